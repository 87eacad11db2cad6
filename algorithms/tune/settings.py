"""``cardrl tune GAME``'s options and a sweep as one value.

:class:`TuneSettings` holds the sweep's own options (the space file, the metric, the scheduler, Tune's failure and
placement settings), declared as :class:`~cardrl.algorithms.training.settings.RunSettings` declares a run's (one
:func:`~cardrl.algorithms.training.settings.option` per field: default, help, type and choices, the flags built
from them). :class:`Sweep` is a whole ``cardrl tune`` command: those options and the
:class:`~cardrl.algorithms.training.run_spec.RunSpec` every trial starts from (the run and DMC options the command
line gives, the same for all trials); a trial's spec is that one with the trial's fixed and sampled values.
No Ray or torch is imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from cardrl.algorithms.training.run_spec import RunSpec, settings_class
from cardrl.algorithms.training.settings import RunSettings, add_arguments, option, option_problems, parse_duration
from cardrl.args import int_at_least, non_negative_int, path_arg, positive_int
from cardrl.eval.agents import agent_spec_arg

__all__ = ["TuneSettings", "Sweep", "add_tune_arguments", "ALGO", "SCHEDULERS", "PLACEMENT_STRATEGIES",
           "RUN_OPTIONS_NOT_TAKEN"]

ALGO = "dmc"  # the algorithm a sweep trains
SCHEDULERS = ("asha", "fifo")
PLACEMENT_STRATEGIES = ("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD")
# run options a sweep does not take from its command line: the sweep's own (out, resume, eval_every), the baseline
# (--metric-against), and what a trial can not do (checkpoints and evaluations are the sweep's reports; a trial
# evaluates by the clock, so never deterministically)
RUN_OPTIONS_NOT_TAKEN = ("restore", "resume", "checkpoint_every", "eval_against", "out", "eval_every",
                         "eval_every_frames", "eval_unpruned", "deterministic")


@dataclass
class TuneSettings:
    """The options of ``cardrl tune`` that are the sweep's, not a trial's."""

    space: str | None = option(None, "JSON space file: DMC options held fixed and swept with their domains "
                                     "(docs/tune.md; examples in cardrl/spaces/)", type=path_arg, required=True)
    metric_against: str = option("random", "baseline agent spec whose ADP the scheduler ranks trials on (random, "
                                           "rule, mcs-greedy, checkpoint:PATH, ...)", type=agent_spec_arg)
    metric_oracle_block: str = option("zeros", "with --oracle: the oracle block fed when the metric is measured: "
                                               "zeros (deployable: what a real player sees) or trained (lambda of "
                                               "the schedule now x the true hands; zeros once lambda is 0)",
                                      choices=("zeros", "trained"))
    scheduler: str = option("asha", "asha: stop trials whose ADP lags at each rung; fifo: every trial to its end",
                            choices=SCHEDULERS)
    grace_evals: int = option(1, "asha: evaluations every trial gets before it may be stopped", type=positive_int)
    reduction_factor: int = option(3, "asha: about 1 in this many trials goes on at each rung",
                                   type=int_at_least(2))
    num_samples: int | None = option(None, "Tune's num_samples: repeats of the grid, each drawing the sampled "
                                           "options anew (default: the space file's, else 1)", type=positive_int)
    max_concurrent: int = option(0, "trials running at once (0: as many as the cluster's CPUs hold)",
                                 type=non_negative_int)
    max_failures: int = option(2, "Tune's FailureConfig(max_failures): restarts of a trial whose process dies (a "
                                  "lost node, an OOM kill), each from the trial's last checkpoint (its last "
                                  "evaluation), so a long cluster sweep survives a lost worker at the cost of at "
                                  "most one --eval-every of training; a trial that keeps failing is given up after "
                                  "this many restarts; -1: unlimited, 0: never",
                               type=int_at_least(-1, "-1: unlimited, 0: never restart"))
    placement_strategy: str = option("PACK", "how a trial's bundles (its learner, each env runner) are placed on a "
                                             "cluster's nodes; SPREAD puts them on different nodes where it can",
                                     choices=PLACEMENT_STRATEGIES)
    out: str | None = option(None, "sweep directory: results.json, results.csv, adp_vs_swept.png, Tune's records "
                                   "in tune/ (default: runs/tune_<game>)", type=path_arg)
    resume: bool = option(False, "continue the sweep in --out after its driver died (a head node crash, Ctrl-C, a "
                                 "killed job): unfinished trials go on from their last checkpoint, a trial that "
                                 "failed with no restart left gets one more go from its checkpoint, finished ones "
                                 "are kept; give the command the sweep was started with, any other space or option "
                                 "is refused; starts a fresh sweep when --out has none")
    eval_every: float = option(180.0, "evaluate against --metric-against this often, e.g. 2m; each evaluation is "
                                      "one report to the scheduler, with a checkpoint (0: once, at the end of a "
                                      "trial)", type=parse_duration)


_TUNE_FIELDS = tuple(f.name for f in fields(TuneSettings))


@dataclass(frozen=True)
class Sweep:
    """A ``cardrl tune`` command: its options, the run every trial starts from (``base``), its command line
    (``command``, for the records and the resume hint), and, once the sweep starts, the space's fixed values and the
    directory relative paths were given in (a trial runs in a directory of its own)."""

    tune: TuneSettings
    base: RunSpec
    command: str = ""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    cwd: str = ""

    def __post_init__(self) -> None:
        problems = option_problems(self.tune, TuneSettings)
        if problems:
            raise ValueError("invalid cardrl tune options: " + "; ".join(problems))

    @classmethod
    def from_values(cls, game: str, values: Mapping[str, Any], command: str = "") -> "Sweep":
        """The sweep of a parsed ``cardrl tune`` command line (``values``: its options by name)."""
        tune = TuneSettings(**{k: values[k] for k in _TUNE_FIELDS if k in values})
        run = {k: v for k, v in values.items() if k not in _TUNE_FIELDS and k not in RUN_OPTIONS_NOT_TAKEN}
        base = RunSpec.from_values(game, ALGO, run).replace(eval_every=tune.eval_every,
                                                            eval_against=[tune.metric_against])
        return cls(tune, base, command)

    def trial_spec(self, values: Mapping[str, Any]) -> RunSpec:
        """The spec of a trial: ``base`` with the space's fixed values and the trial's swept ``values``."""
        return self.base.replace(**{**self.fixed, **values})

    def options(self) -> dict[str, Any]:
        """Every option of the command (one flat mapping: the game, the trials' run and DMC options, the sweep's),
        what ``--resume`` compares with the sweep's start."""
        run = {k: v for k, v in self.base.run_values().items() if k not in RUN_OPTIONS_NOT_TAKEN}
        return {"game": self.base.game, **self.base.settings_values(), **run,
                **{k: getattr(self.tune, k) for k in _TUNE_FIELDS}}


def add_tune_arguments(parser) -> None:
    """``cardrl tune GAME``'s options (the game is added by the CLI): the sweep's own and every run and DMC option
    that is the same for all trials."""
    add_arguments(parser, TuneSettings)
    add_arguments(parser, RunSettings, skip=RUN_OPTIONS_NOT_TAKEN)
    add_arguments(parser, settings_class(ALGO))
