"""``cardrl tune GAME --space FILE``: Ray Tune sweeps over DMC's options, scheduled on the evaluation's ADP.

A *space file* (JSON) names DMC options (the fields of :class:`~cardrl.algorithms.dmc.settings.DMCSettings`, by
field name or by their ``cardrl train`` flag) and the values to try::

    {"description": "ODMC's slack (Luo & Tan 2024, eq. 2: N/n + d, plus prune_extra)",
     "fixed": {"prune": "mcs"},
     "sweep": {"prune_extra": {"grid": [0, 1, 2]},
               "lr": {"loguniform": [1e-5, 1e-3]}},
     "num_samples": 1}

``fixed`` holds options at one value in every trial; ``sweep`` gives each swept option one domain: ``grid`` (every
value, crossed with the other grids), ``choice`` (one value drawn per sample), ``uniform`` / ``loguniform``
([low, high] floats) or ``randint`` ([low, high] ints, both included). ``num_samples`` repeats the grid (Tune's
meaning: each repeat draws the sampled options anew). An unknown option, an unknown domain, a value of the wrong
type and a combination that :meth:`DMCConfig.validate` refuses (e.g. ``prune_extra`` without ``prune``) are refused
before any trial runs, naming what is allowed.

Each trial is a Tune function trainable (:func:`dmc_trial`) built from the training driver's pieces
(:mod:`cardrl.algorithms.dmc.train`: ``build_config``, ``evaluation_baselines``, ``stop_rule``, ``_evaluate``): it
builds the DMC algorithm, trains it, evaluates the greedy networks against the ``--metric-against`` baseline on the
same seeded deals every ``--eval-every`` (sides swapped, ADP with its 95% t-interval; points per deal where the
game's episode is a match) and reports each evaluation to Tune with an algorithm checkpoint. The scheduler (ASHA, Li
et al. 2020, "A System for Massively Parallel Hyperparameter Tuning"; or FIFO: every trial to its end) ranks trials
on that ADP, never on the training loss. The agent is evaluated as it plays deployed
(:mod:`cardrl.algorithms.dmc.evaluation`): an ODMC trial with its pruning, an oracle trial with a zero oracle block;
``--metric-oracle-block trained`` ranks oracle trials on the score with the block they are trained on (lambda x the
true hands) instead, and every report of an oracle trial whose lambda is above 0 carries both, labelled
(``adp_zero_block``, ``adp_trained_block``, ``metric_label``). Each trial asks for the algorithm's own resources (RLlib's
``Algorithm.default_resource_request``: one CPU for the learner and sampling in the trial's process, one per env
runner), so a 2-core machine runs two trials at once with ``--num-env-runners 0``. A trial whose process dies (a
lost node, an OOM kill) is restarted up to ``--max-failures`` times from its last checkpoint: its frames, learner
state and elapsed training time come back, so ``--stop-frames`` and ``--stop-time`` count on from there. A sweep
whose driver died (a head node crash, Ctrl-C, a killed job) is continued by the same command with ``--resume``
(Tune's ``Tuner.restore``): unfinished trials go on from their last checkpoint, finished ones are kept.

Output, in ``--out`` (default ``runs/tune_<game>``): the table of every trial's last evaluation against the swept
values (printed, ``results.json``, ``results.csv``), ``adp_vs_swept.png`` (the ADP with its interval against each
swept option) and the best trial's checkpoint, an RLlib algorithm checkpoint that the ``checkpoint:PATH`` agent spec
loads (``cardrl eval GAME --a checkpoint:PATH``). Tune's own records are in ``<out>/tune``, and the space and
options the sweep was started with in ``<out>/sweep.json`` (what ``--resume`` checks). docs/tune.md shows how
to sweep locally and on a cluster (``ray job submit``).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardrl.algorithms.dmc.settings import (DMCSettings, RunSettings, add_arguments, agent_spec_arg, field_default,
                                            parse_duration, path_arg)

__all__ = ["SweepSpace", "load_space", "check_space", "add_tune_arguments", "run_tune", "run_space", "dmc_trial",
           "DOMAINS", "SCHEDULERS"]

DOMAINS = ("grid", "choice", "uniform", "loguniform", "randint")
SCHEDULERS = ("asha", "fifo")
PLACEMENT_STRATEGIES = ("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD")
_SPACE_KEYS = ("description", "fixed", "sweep", "num_samples")
# run options that a sweep takes from its command line (every trial alike), not from the space file
_RUN_SKIP = ("restore", "resume", "checkpoint_every", "eval_against", "out", "eval_every", "eval_every_frames",
             "eval_unpruned")
# what --resume does not compare with the sweep's start: how this invocation runs, not what the sweep is (the space is
# compared by content, and keys the run adds to args)
_NOT_COMPARED = ("command", "resume", "verbose", "argv", "space", "out", "fixed", "cwd")
SWEEP_RECORD = "sweep.json"  # in --out: the space and options a sweep was started with, checked by --resume
_MAX_CHECKED_COMBINATIONS = 64  # beyond this many, each swept option's values are checked one at a time


class SpaceError(ValueError):
    """A space file that cannot be swept; the message names the file, the entry and what is allowed."""


@dataclass
class SweepSpace:
    """A parsed space file: options held fixed, swept options with their domain, and Tune's ``num_samples``."""

    path: str
    fixed: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, tuple[str, list]] = field(default_factory=dict)  # option -> (domain, values or [low, high])
    num_samples: int = 1
    description: str = ""

    def representatives(self, option: str) -> list:
        """The values of a swept option that the checks try: every grid/choice value, or both bounds."""
        return list(self.sweep[option][1])

    def param_space(self) -> dict[str, Any]:
        """Tune's ``param_space``: one search domain per swept option."""
        from ray import tune

        out = {}
        for name, (domain, values) in self.sweep.items():
            if domain == "grid":
                out[name] = tune.grid_search(list(values))
            elif domain == "choice":
                out[name] = tune.choice(list(values))
            elif domain == "uniform":
                out[name] = tune.uniform(*values)
            elif domain == "loguniform":
                out[name] = tune.loguniform(*values)
            else:  # randint: both bounds included (Tune's upper bound is exclusive)
                out[name] = tune.randint(values[0], values[1] + 1)
        return out


# ---- the space file --------------------------------------------------------------------------------------------
def _options() -> dict[str, Any]:
    """Every name a space file may use for a DMC option (field name, or its ``cardrl train`` flag without dashes)
    -> its dataclass field."""
    out = {}
    for f in fields(DMCSettings):
        out[f.name] = f
        flag = f.metadata.get("flag")
        if flag:
            out[flag.replace("-", "_")] = f
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _coerce(f, value: Any, where: str) -> Any:
    """``value`` as DMC option ``f`` takes it (its CLI type and choices), or a SpaceError naming the expected form."""
    meta = f.metadata
    kind = meta.get("type")
    default = field_default(f)
    if value is None:
        if default is None:
            return None
        raise SpaceError(f"{where}: {f.name} can not be null (its default is {default!r})")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SpaceError(f"{where}: {f.name} is true or false, got {value!r}")
        return value
    if meta.get("nargs"):  # hidden_sizes: a list of ints
        if not isinstance(value, list) or not value or not all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in value):
            raise SpaceError(f"{where}: {f.name} is a list of ints (e.g. [512, 512]) or null, got {value!r}")
        return tuple(value)
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpaceError(f"{where}: {f.name} is an int, got {value!r}")
        return value
    if kind is float:
        if not _number(value):
            raise SpaceError(f"{where}: {f.name} is a number, got {value!r}")
        return float(value)
    if kind is not None:  # the option's own CLI parser (prune_slack: 'paper' or a number)
        if isinstance(value, bool):
            raise SpaceError(f"{where}: {f.name} does not take {value!r}")
        try:
            return kind(str(value))
        except (argparse.ArgumentTypeError, ValueError) as err:
            raise SpaceError(f"{where}: {err}") from None
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise SpaceError(f"{where}: {f.name}={value!r} is not one of {list(meta['choices'])} (or null)")
        return value
    if f.name == "coach_beta":  # ((learner step, beta), ...)
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 and all(map(_number, p))
                                                  for p in value):
            raise SpaceError(f"{where}: coach_beta is a list of [learner step, beta] pairs, e.g. "
                             f"[[0, 0.0], [20000, 0.1]], got {value!r}")
        return tuple((int(p[0]), float(p[1])) for p in value)
    if f.name == "target_scale":
        if not isinstance(value, dict) or not all(map(_number, value.values())):
            raise SpaceError(f"{where}: target_scale is an object of agent: factor, got {value!r}")
        return dict(value)
    if not isinstance(value, str):
        raise SpaceError(f"{where}: {f.name} is a string, got {value!r}")
    return value


def _domain(name: str, spec: Any, f, where: str) -> tuple[str, list]:
    """One swept option's ``{"grid": [...]}`` (or choice, uniform, loguniform, randint), checked."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SpaceError(f"{where}: give one domain as an object, e.g. {{\"grid\": [1, 2]}}; domains: "
                         f"{', '.join(DOMAINS)}; got {spec!r}")
    (domain, values), = spec.items()
    if domain not in DOMAINS:
        raise SpaceError(f"{where}: unknown domain {domain!r}; domains: {', '.join(DOMAINS)}")
    if not isinstance(values, list) or not values:
        raise SpaceError(f"{where}.{domain}: give a non-empty list, got {values!r}")
    if domain in ("grid", "choice"):
        return domain, [_coerce(f, v, f"{where}.{domain}") for v in values]
    if len(values) != 2:
        raise SpaceError(f"{where}.{domain}: give [low, high], got {values!r}")
    kind = f.metadata.get("type")
    if domain == "randint":
        if kind is not int:
            raise SpaceError(f"{where}: randint needs an int option; {name} is not one (use uniform or grid)")
    elif kind is not float:
        raise SpaceError(f"{where}: {domain} needs a number option; {name} is not one (use grid or choice)")
    low, high = (_coerce(f, v, f"{where}.{domain}") for v in values)
    if not low < high:
        raise SpaceError(f"{where}.{domain}: low {low!r} must be below high {high!r}")
    if domain == "loguniform" and low <= 0:
        raise SpaceError(f"{where}.loguniform: low {low!r} must be > 0")
    return domain, [low, high]


def load_space(path: str | Path) -> SweepSpace:
    """Parse a space file (module docstring); SpaceError naming the entry and what is allowed. The values are
    checked against the options' types here; :func:`check_space` checks them against a game with DMCConfig."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"space file {path} does not exist")
    try:
        raw = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise SpaceError(f"space file {path} is not JSON: {err}") from None
    if not isinstance(raw, dict):
        raise SpaceError(f"space file {path}: give an object with keys {', '.join(_SPACE_KEYS)}")
    unknown = sorted(set(raw) - set(_SPACE_KEYS))
    if unknown:
        raise SpaceError(f"space file {path}: unknown key(s) {unknown}; allowed: {', '.join(_SPACE_KEYS)}")
    options = _options()
    run_options = {f.name for f in fields(RunSettings)}

    def option(name: str, where: str):
        key = str(name).replace("-", "_")
        if key in options:
            return options[key]
        if key in run_options:
            raise SpaceError(f"{where}: {name} is a run option, the same for every trial: give it on the command "
                             f"line (--{key.replace('_', '-')})")
        allowed = ", ".join(sorted(f.name for f in fields(DMCSettings)))
        raise SpaceError(f"{where}: unknown DMC option {name!r}; options: {allowed}")

    space = SweepSpace(str(path), description=str(raw.get("description", "")))
    fixed = raw.get("fixed", {})
    if not isinstance(fixed, dict):
        raise SpaceError(f"space file {path}: fixed is an object of option: value, got {fixed!r}")
    for name, value in fixed.items():
        f = option(name, f"space file {path}: fixed.{name}")
        space.fixed[f.name] = _coerce(f, value, f"space file {path}: fixed.{name}")
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or not sweep:
        raise SpaceError(f"space file {path}: sweep must name at least one option with its domain, e.g. "
                         f"{{\"lr\": {{\"grid\": [1e-4, 3e-4]}}}}")
    for name, spec in sweep.items():
        where = f"space file {path}: sweep.{name}"
        f = option(name, where)
        if f.name in space.fixed or f.name in space.sweep:
            raise SpaceError(f"{where}: {f.name} is given twice (fixed and swept, or under two names)")
        space.sweep[f.name] = _domain(f.name, spec, f, where)
    samples = raw.get("num_samples", 1)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise SpaceError(f"space file {path}: num_samples must be an int >= 1, got {samples!r}")
    space.num_samples = samples
    return space


def _trial_args(args: argparse.Namespace, values: dict[str, Any]) -> argparse.Namespace:
    """A ``cardrl train``-shaped namespace: every DMC and run option's default, the command line's, then ``values``."""
    base = {f.name: field_default(f) for settings in (RunSettings, DMCSettings) for f in fields(settings)}
    base.update(vars(args))
    base.update(values)
    base["algo"] = "dmc"
    return argparse.Namespace(**base)


def check_space(space: SweepSpace, args: argparse.Namespace) -> int:
    """Build and validate the DMC config of the sweep's combinations for ``args.game`` (every combination of the
    swept options' representative values when there are at most 64, else each option's values in turn with the
    others at their first); SpaceError with DMCConfig.validate()'s reasons. Returns the configs checked."""
    from cardrl.algorithms.dmc.train import build_config

    names = list(space.sweep)
    reps = [space.representatives(n) for n in names]
    if math.prod(len(r) for r in reps) <= _MAX_CHECKED_COMBINATIONS:
        combos = [dict(zip(names, c)) for c in itertools.product(*reps)]
    else:
        first = {n: r[0] for n, r in zip(names, reps)}
        combos = [{**first, n: v} for n, r in zip(names, reps) for v in r]
    for combo in combos:
        try:
            build_config(_trial_args(args, {**space.fixed, **combo}), say=lambda _: None).validate()
        except ValueError as err:
            shown = ", ".join(f"{k}={v!r}" for k, v in {**space.fixed, **combo}.items())
            raise SpaceError(f"space file {space.path} does not apply to {args.game} ({shown}): {err}") from None
    return len(combos)


# ---- the command line --------------------------------------------------------------------------------------------
def add_tune_arguments(parser: argparse.ArgumentParser) -> None:
    """``cardrl tune GAME``'s options (the game is added by the CLI): the space file, the metric, the scheduler and
    every ``cardrl train`` option that is the same for all trials."""
    parser.add_argument("--space", required=True, type=path_arg,
                        help="JSON space file: DMC options held fixed and swept with their domains (docs/tune.md; "
                             "examples in experiments/spaces/)")
    parser.add_argument("--metric-against", default="random", type=agent_spec_arg,
                        help="baseline agent spec whose ADP the scheduler ranks trials on (random, rule, "
                             "mcs-greedy, checkpoint:PATH, ...) (default: random)")
    parser.add_argument("--metric-oracle-block", default="zeros", choices=("zeros", "trained"),
                        help="with --oracle: the oracle block fed when the metric is measured: zeros (deployable: what "
                             "a real player sees) or trained (lambda of the schedule now x the true hands; zeros once "
                             "lambda is 0) (default: zeros)")
    parser.add_argument("--scheduler", default="asha", choices=SCHEDULERS,
                        help="asha: stop trials whose ADP lags at each rung; fifo: every trial to its end "
                             "(default: asha)")
    parser.add_argument("--grace-evals", type=int, default=1,
                        help="asha: evaluations every trial gets before it may be stopped (default: 1)")
    parser.add_argument("--reduction-factor", type=int, default=3,
                        help="asha: about 1 in this many trials goes on at each rung (default: 3)")
    parser.add_argument("--num-samples", type=int, default=None,
                        help="Tune's num_samples: repeats of the grid, each drawing the sampled options anew "
                             "(default: the space file's, else 1)")
    parser.add_argument("--max-concurrent", type=int, default=0,
                        help="trials running at once (default: 0, as many as the cluster's CPUs hold)")
    parser.add_argument("--max-failures", type=int, default=2,
                        help="Tune's FailureConfig(max_failures): restarts of a trial whose process dies (a lost "
                             "node, an OOM kill), each from the trial's last checkpoint (its last evaluation), so a "
                             "long cluster sweep survives a lost worker at the cost of at most one --eval-every of "
                             "training; a trial that keeps failing is given up after this many restarts; -1: "
                             "unlimited, 0: never (default: 2)")
    parser.add_argument("--placement-strategy", default="PACK", choices=PLACEMENT_STRATEGIES,
                        help="how a trial's bundles (its learner, each env runner) are placed on a cluster's nodes; "
                             "SPREAD puts them on different nodes where it can (default: PACK)")
    parser.add_argument("--out", default=None, type=path_arg,
                        help="sweep directory: results.json, results.csv, adp_vs_swept.png, Tune's records in "
                             "tune/ (default: runs/tune_<game>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the sweep in --out after its driver died (a head node crash, Ctrl-C, a killed "
                             "job): unfinished trials go on from their last checkpoint, a trial that failed with no "
                             "restart left gets one more go from its checkpoint, finished ones are kept; give the "
                             "command the sweep was started with, any other space or option is refused; starts a "
                             "fresh sweep when --out has none")
    parser.add_argument("--eval-every", type=parse_duration, default=180.0,
                        help="evaluate against --metric-against this often, e.g. 2m; each evaluation is one report "
                             "to the scheduler, with a checkpoint (0: once, at the end of a trial) "
                             "(default: 180s (3m))")
    add_arguments(parser, RunSettings, skip=_RUN_SKIP)
    add_arguments(parser, DMCSettings)


def _ray_init(args: argparse.Namespace) -> None:
    import ray

    if ray.is_initialized():
        return
    address = os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=max(os.cpu_count() or 2, 1 + args.num_env_runners), include_dashboard=False,
                 log_to_driver=False, configure_logging=False)


def _trial_resources(config: Any, strategy: str) -> Any:
    """The bundles of one trial: RLlib's own (as ``Algorithm.default_resource_request`` builds them: the main
    process with a local learner, one per env runner, one per remote learner), placed by ``strategy``."""
    from ray.rllib.algorithms.utils import _get_env_runner_bundles, _get_learner_bundles, _get_main_process_bundle
    from ray.tune import PlacementGroupFactory

    bundles = [_get_main_process_bundle(config), *_get_env_runner_bundles(config), *_get_learner_bundles(config)]
    return PlacementGroupFactory([{k: v for k, v in b.items() if v} or {"CPU": 0} for b in bundles],
                                 strategy=strategy)


# ---- the trial ---------------------------------------------------------------------------------------------------
def dmc_trial(values: dict[str, Any], args: argparse.Namespace) -> None:
    """One trial (a Tune function trainable): DMC with the trial's option ``values`` over ``args``, evaluated against
    ``args.metric_against`` every ``args.eval_every`` and at the end; each evaluation is reported with a checkpoint.
    A trial Tune restarts (``--max-failures``) resumes from its last checkpoint: its frames and its elapsed
    training time (the checkpoint's ``run_info``) go on, and so do the stop rule and ``time_s``."""
    import ray
    from ray import tune

    from cardrl.algorithms.dmc.train import build_config, evaluation_baselines, evaluations, stop_rule

    # Tune starts a trial in its own directory: relative paths (a checkpoint:PATH baseline) mean what they meant on
    # the command line, where that directory exists on the trial's node
    if os.path.isdir(getattr(args, "cwd", "")):
        os.chdir(args.cwd)
    targs = _trial_args(args, {**args.fixed, **values})
    config = build_config(targs)
    algo = config.build_algo()
    start_ckpt = tune.get_checkpoint()
    trained_s = 0.0
    if start_ckpt is not None:
        with start_ckpt.as_directory() as path:
            algo.restore_from_path(path)  # DMC's counters (frames, deals) and run_info (time_s) come back with it
        trained_s = float(algo.run_info.get("time_s") or 0.0)
    from cardrl.eval.lockstep import SCORE_FIELDS

    baselines = evaluation_baselines(config, [targs.metric_against], targs)
    done_at = stop_rule(targs)
    # where the trial runs: its own node and each env runner's (a cluster's placement, docs/tune.md); one string, as
    # Tune's TensorBoard logger takes no lists
    runners = algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                       local_env_runner=False) if config.num_env_runners else []
    where = {"node_id": ray.get_runtime_context().get_node_id(), "runner_node_ids": ",".join(runners)}
    last_eval = time.time()
    start = last_eval - trained_s  # a restarted trial's clock goes on from its checkpoint, as its frames do
    try:
        while True:
            result = algo.train()
            now = time.time()
            frames = int(result.get("frames_trained", 0))
            done = done_at(now - start, frames)
            if done or (targs.eval_every and now - last_eval >= targs.eval_every):
                evs = evaluations(algo, baselines, targs)
                ev = evs["eval"][targs.metric_against]
                label = evs.get("eval_label", "")
                extra = {}
                if "eval_oracle" in evs:
                    trained = evs["eval_oracle"]["results"][targs.metric_against]
                    extra = {"adp_zero_block": ev["adp"], "adp_trained_block": trained["adp"],
                             "oracle_lambda": evs["eval_oracle"]["oracle_lambda"]}
                    if targs.metric_oracle_block == "trained":
                        ev, label = trained, evs["eval_oracle"]["label"]
                metrics = {"adp": ev["adp"], "adp_low": ev["adp_low"], "adp_high": ev["adp_high"],
                           "sides": {k: v for k, v in ev.items() if k not in SCORE_FIELDS},
                           **extra, **({"metric_label": label} if label else {}),
                           "frames_trained": frames, "deals": int(result.get("deals", 0)),
                           "time_s": round(now - start, 1), "final": bool(done), **where}
                algo.run_info = {"time_s": metrics["time_s"]}
                with tempfile.TemporaryDirectory(prefix="cardrl_tune_") as tmp:
                    algo.save_to_path(tmp)
                    tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(tmp))
                last_eval = time.time()
            if done:
                break
    finally:
        algo.stop()


def _printer(score_name: str, against: str, names: list[str]) -> Any:
    """A Tune callback that prints one line per reported evaluation (Tune's own tables stay off) and one per failure
    of a trial's process. (A restored sweep runs the copy of it that Tune kept in ``tuner.pkl``, so it holds no
    state that the driver reads back.)"""
    from ray.tune import Callback

    class PrintEvaluations(Callback):
        def on_trial_result(self, iteration, trials, trial, result, **info):
            values = ", ".join(f"{n}={_label(trial.config.get(n))}" for n in names)
            print(f"[{trial.trial_id}] {values} | eval {result.get('training_iteration')} | frames "
                  f"{result.get('frames_trained', 0):,} | {score_name} vs {against} {result['adp']:+.3f} "
                  f"[{result['adp_low']:+.3f}, {result['adp_high']:+.3f}]"
                  + (" | done" if result.get("final") else ""), flush=True)

        def on_trial_recover(self, iteration, trials, trial, **info):
            last = trial.latest_checkpoint_result
            since = (f"its checkpoint of eval {last.metrics.get('training_iteration')} (frames "
                     f"{last.metrics.get('frames_trained', 0):,}, {last.metrics.get('time_s', 0):,.0f}s trained)"
                     if last is not None and last.checkpoint is not None else "the start (no checkpoint yet)")
            limit = "unlimited" if trial.max_failures < 0 else trial.max_failures
            print(f"[{trial.trial_id}] failed (failure {trial.num_failures}, --max-failures {limit}): restarting "
                  f"from {since}; see {_error_file(trial)}", flush=True)

        def on_trial_error(self, iteration, trials, trial, **info):
            print(f"[{trial.trial_id}] failed (failure {trial.num_failures}, no restart left): see "
                  f"{_error_file(trial)}", flush=True)

    def _error_file(trial: Any) -> str:
        # the copy in the sweep directory (Tune syncs it from the driver's staging dir), not the one under /tmp/ray
        return str(Path(trial.path or trial.local_path) / "error.txt")

    return PrintEvaluations()


def _label(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _command_line(args: argparse.Namespace) -> str:
    # args.argv is cardrl's own command line (cli.main), the "tune" command included
    return shlex.join(["cardrl", *args.argv]) if getattr(args, "argv", None) else ""


def run_tune(args: argparse.Namespace) -> int:
    """``cardrl tune``: check the space, run the sweep on the local Ray or the cluster of ``RAY_ADDRESS``, write the
    table, the plot and the best checkpoint's path (module docstring). 0 when every trial ran, 1 otherwise."""
    from cardrl.algorithms.dmc.train import _baseline_factory, stop_time_of
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    space = load_space(args.space)
    if args.num_samples is not None and args.num_samples < 1:
        raise ValueError(f"--num-samples must be >= 1, got {args.num_samples}")
    for name, low in (("grace_evals", 1), ("reduction_factor", 2)):
        if getattr(args, name) < low:
            raise ValueError(f"--{name.replace('_', '-')} must be >= {low}")
    if args.max_concurrent < 0:
        raise ValueError(f"--max-concurrent must be >= 0, got {args.max_concurrent}")
    if args.num_env_runners < 0:
        raise ValueError(f"--num-env-runners must be >= 0, got {args.num_env_runners}")
    if args.max_failures < -1:
        raise ValueError(f"--max-failures must be >= -1 (-1: unlimited, 0: never restart), got {args.max_failures}")
    _baseline_factory(args.metric_against, spec.name, spec.full_options({}), args.seed)  # a bad spec fails now
    if args.metric_oracle_block == "trained" and args.oracle is None and "oracle" not in space.fixed \
            and "oracle" not in space.sweep:
        raise ValueError("--metric-oracle-block trained ranks oracle-guided trials on the score with their trained "
                         "oracle block: give --oracle (or fix or sweep oracle in the space file)")
    checked = check_space(space, args)
    out = Path(args.out or f"runs/tune_{spec.name}").resolve()
    experiment = out / "tune"
    started = _sweep_record(args, space)
    resuming = bool(args.resume) and _can_resume(experiment)
    if resuming:
        started = _check_resume(out, started)
        print(f"--resume: continuing the sweep in {experiment} ({_trial_statuses(experiment)})", flush=True)
    elif args.resume:
        print(f"--resume: {experiment} has no sweep to continue; starting a fresh sweep", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    if not resuming:
        (out / SWEEP_RECORD).write_text(json.dumps(started, indent=1) + "\n")

    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler, FIFOScheduler

    from cardrl.algorithms.dmc.train import build_config

    _ray_init(args)
    args.fixed = dict(space.fixed)
    args.cwd = os.getcwd()
    resources = _trial_resources(build_config(_trial_args(args, space.fixed), say=lambda _: None),
                                 args.placement_strategy)
    per_trial = sum(b.get("CPU", 0) for b in resources.bundles)
    cluster_cpus = int(ray.cluster_resources().get("CPU", 0))
    if per_trial > cluster_cpus:
        raise ValueError(f"a trial needs {per_trial:g} CPUs (1 + --num-env-runners {args.num_env_runners}); the "
                         f"Ray cluster has {cluster_cpus}")
    samples = args.num_samples or space.num_samples
    trials = samples * math.prod(len(v) for d, v in space.sweep.values() if d == "grid")
    score_name = spec.protocol.score_name
    names = list(space.sweep)
    stop_time = stop_time_of(args)
    if args.eval_every and stop_time:
        max_t = max(1, math.ceil(stop_time / args.eval_every))
    else:
        max_t = 100 if args.eval_every else 1
    scheduler = (ASHAScheduler(time_attr="training_iteration", max_t=max_t, grace_period=min(args.grace_evals, max_t),
                               reduction_factor=args.reduction_factor)
                 if args.scheduler == "asha" else FIFOScheduler())
    print(f"tuning DMC on {spec.name}: {trials} trial(s) over {', '.join(names)} ({checked} config(s) checked), "
          f"{per_trial:g} CPU(s) each, {cluster_cpus} in the cluster; scheduler {args.scheduler} on {score_name} vs "
          f"{args.metric_against}; sweep dir {out}", flush=True)
    # Tune's own console tables and its checkpoint-sync warnings stay off: the callback prints each evaluation
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    os.environ.setdefault("TUNE_WARN_EXCESSIVE_EXPERIMENT_CHECKPOINT_SYNC_THRESHOLD_S", "0")
    trainable = tune.with_resources(tune.with_parameters(dmc_trial, args=args), resources)
    if resuming:
        # the scheduler, the search state, the failure config and the printer come back from Tune's own records;
        # they equal this command's, which _check_resume made sure of. A trial that failed with no restart left gets
        # one more go from its checkpoint (its failures still count, so it is not retried again)
        tuner = tune.Tuner.restore(str(experiment), trainable=trainable, resume_unfinished=True, resume_errored=True)
    else:
        tuner = tune.Tuner(
            trainable, param_space=space.param_space(),
            tune_config=tune.TuneConfig(metric="adp", mode="max", scheduler=scheduler, num_samples=samples,
                                        max_concurrent_trials=args.max_concurrent or None),
            run_config=tune.RunConfig(name="tune", storage_path=str(out), verbose=0,
                                      checkpoint_config=tune.CheckpointConfig(num_to_keep=1),
                                      failure_config=tune.FailureConfig(max_failures=args.max_failures),
                                      callbacks=[_printer(score_name, args.metric_against, names)]))
    grid = tuner.fit()
    rows = _rows(grid, names, _trial_states(experiment))
    best = _best(rows)
    unfinished = [r["trial"] for r in rows if r["status"] == "unfinished"]
    record = {"game": spec.name, "space": space.path, "description": space.description, "fixed": space.fixed,
              "swept": {n: {"domain": d, "values": v} for n, (d, v) in space.sweep.items()},
              "metric": f"{score_name} vs {args.metric_against}", "metric_oracle_block": args.metric_oracle_block,
              "scheduler": args.scheduler,
              "max_failures": args.max_failures, "command": started["command"] or _command_line(args),
              "resumed": resuming, "trials": rows, "best": best, "errors": [str(e) for e in grid.errors]}
    (out / "results.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    _write_csv(out / "results.csv", rows, names)
    png = _plot(out / "adp_vs_swept.png", rows, names, space, f"{score_name} vs {args.metric_against}", spec.title)
    print(_table(rows, names, score_name, args.metric_against), flush=True)
    print(f"results: {out / 'results.json'}, {out / 'results.csv'}; plot: {png}", flush=True)
    if best is not None:
        print(f"best trial {best['trial']} ({', '.join(f'{n}={_label(best[n])}' for n in names)}): {score_name} "
              f"{best['adp']:+.3f} [{best['adp_low']:+.3f}, {best['adp_high']:+.3f}]; checkpoint {best['checkpoint']}"
              f"\n  cardrl eval {spec.name} --a checkpoint:{best['checkpoint']} --b {args.metric_against}", flush=True)
    for err in grid.errors:
        print(f"trial error: {err}", file=sys.stderr)
    if unfinished:
        again = _command_line(args) or f"cardrl tune {spec.name} --space {space.path} --out {out}"
        print(f"the sweep stopped before trial(s) {', '.join(unfinished)} finished; continue it with:\n  "
              f"{again}{'' if args.resume else ' --resume'}", flush=True)
    return 0 if not grid.errors and not unfinished and best is not None else 1


# ---- --resume ----------------------------------------------------------------------------------------------------
def _normal(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples as lists, paths as strings), so a record compares with a fresh one."""
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def _sweep_record(args: argparse.Namespace, space: SweepSpace) -> dict[str, Any]:
    """What a sweep is: its space (by content, not by path) and every option of the command line."""
    return {"space": space.path, "command": _command_line(args),
            "space_content": _normal({"fixed": space.fixed, "sweep": space.sweep, "num_samples": space.num_samples}),
            "options": _normal({k: v for k, v in sorted(vars(args).items()) if k not in _NOT_COMPARED})}


def _can_resume(experiment: Path) -> bool:
    """Tune can restore the sweep in ``experiment``: its ``tuner.pkl`` and a saved experiment state (a driver that
    died right after starting Tune leaves the one without the other)."""
    from ray import tune

    return tune.Tuner.can_restore(str(experiment)) and any(experiment.glob("experiment_state-*.json"))


def _check_resume(out: Path, now: dict[str, Any]) -> dict[str, Any]:
    """The record of the sweep in ``out`` when ``now`` (this command's) continues it; ValueError naming what
    differs otherwise: Tune restores the scheduler, the search and the failure config as the sweep started them, so
    another value of any option would be ignored or would change trials half-way."""
    path = out / SWEEP_RECORD
    if not path.is_file():
        raise ValueError(f"--resume: {out / 'tune'} holds a sweep, but {path}, the record of the space and options "
                         f"it was started with, is missing, so this command can not be checked against it; start a "
                         f"new sweep in another --out")
    then = json.loads(path.read_text())
    if then["space_content"] != now["space_content"]:
        parts = [f"{k} {json.dumps(now['space_content'].get(k))} (was {json.dumps(then['space_content'].get(k))})"
                 for k in ("fixed", "sweep", "num_samples")
                 if now["space_content"].get(k) != then["space_content"].get(k)]
        raise ValueError(f"--resume: --space {now['space']} is not the space the sweep in {out} was started with "
                         f"({then['space']}): {'; '.join(parts)}; give that space, or start a new sweep in another "
                         f"--out")
    differ = [f"--{k.replace('_', '-')} {_label(now['options'].get(k))} (was {_label(then['options'].get(k))})"
              for k in sorted(set(now["options"]) | set(then["options"]))
              if now["options"].get(k) != then["options"].get(k)]
    if differ:
        raise ValueError(f"--resume continues the sweep in {out} with the options it was started with"
                         + (f" ({then['command']})" if then.get("command") else "")
                         + f"; these differ: {', '.join(differ)}; give those, or start a new sweep in another --out")
    return then


def _trial_states(experiment: Path) -> dict[str, Any]:
    """Trial id -> Tune's record of the trial (its status and ``num_failures``), from the sweep's saved state."""
    from ray.tune import ExperimentAnalysis

    try:
        return {t.trial_id: t for t in ExperimentAnalysis(str(experiment)).trials}
    except Exception as err:  # the table and results are still worth writing without restarts and statuses
        print(f"could not read Tune's trial states in {experiment}: {err}", file=sys.stderr)
        return {}


def _trial_statuses(experiment: Path) -> str:
    """``"2 trial(s): 1 to continue, 1 finished"``, from the sweep's saved state."""
    from collections import Counter

    counts = Counter("finished" if t.status == "TERMINATED" else "failed with no restart left"
                     if t.status == "ERROR" else "to continue" for t in _trial_states(experiment).values())
    return f"{sum(counts.values())} trial(s): " + ", ".join(f"{n} {what}" for what, n in counts.items())


def run_space(game: str, space: str | Path, out: str | Path, argv: list[str] | None = None) -> int:
    """An experiment's sweep (the ``experiments/tune_*.py`` entry points): ``cardrl tune GAME --space SPACE --out
    OUT`` followed by ``argv`` (default: the script's own arguments, ``sys.argv[1:]``), so that every option of
    ``cardrl tune`` is accepted and wins over these defaults. Returns the command's exit status."""
    from cardrl.cli import main

    return main(["tune", game, "--space", str(space), "--out", str(out), *(sys.argv[1:] if argv is None else argv)])


# ---- results -----------------------------------------------------------------------------------------------------
def _rows(grid: Any, names: list[str], states: dict[str, Any] | None = None) -> list[dict]:
    """One row per trial: its swept values and its last evaluation (ADP with its interval, frames, status), and the
    restarts Tune made of it, from Tune's record of the trial (``states``: trial id -> Tune's Trial): a trial that
    did not finish (an interrupted sweep) is ``unfinished``."""
    rows = []
    for result in grid:
        metrics = result.metrics or {}
        row = {"trial": metrics.get("trial_id") or Path(result.path).name,
               **{n: result.config.get(n) for n in names}}
        if "adp" in metrics:
            row.update({k: metrics[k] for k in ("adp", "adp_low", "adp_high", "frames_trained", "time_s")})
            row["evaluations"] = int(metrics.get("training_iteration", 0))
            # a trial that failed after evaluating, with no restart left, is an error, not stopped early
            row["status"] = "error" if result.error else "completed" if metrics.get("final") else "stopped early"
        else:
            row.update({"adp": None, "adp_low": None, "adp_high": None, "frames_trained": None, "time_s": None,
                        "evaluations": 0, "status": "error" if result.error else "no evaluation"})
        row["node_id"] = metrics.get("node_id")
        row["runner_node_ids"] = [n for n in str(metrics.get("runner_node_ids") or "").split(",") if n]
        row["checkpoint"] = result.checkpoint.path if result.checkpoint is not None else None
        state = (states or {}).get(row["trial"])
        if state is not None and state.status not in ("TERMINATED", "ERROR"):
            row["status"] = "unfinished"
        # every failure but the last of a trial that ended in error was followed by a restart
        row["restarts"] = (max(0, state.num_failures - (state.status == "ERROR")) if state is not None else 0)
        rows.append(row)
    return rows


def _best(rows: list[dict]) -> dict | None:
    """The trial with the highest last ADP (ties: the higher lower bound) that has a checkpoint."""
    scored = [r for r in rows if r["adp"] is not None and r["checkpoint"]]
    return max(scored, key=lambda r: (r["adp"], r["adp_low"])) if scored else None


def _table(rows: list[dict], names: list[str], score_name: str, against: str) -> str:
    head = ["trial", *names, f"{score_name} vs {against}", "95% interval", "frames", "evals", "status"]
    body = []
    for r in sorted(rows, key=lambda r: (r["adp"] is None, -(r["adp"] or 0))):
        adp = "-" if r["adp"] is None else f"{r['adp']:+.3f}"
        ci = "-" if r["adp"] is None else f"[{r['adp_low']:+.3f}, {r['adp_high']:+.3f}]"
        frames = "-" if r["frames_trained"] is None else f"{r['frames_trained']:,}"
        body.append([r["trial"], *(_label(r[n]) for n in names), adp, ci, frames, str(r["evaluations"]),
                     r["status"]])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)) for line in (head, *body)]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _write_csv(path: Path, rows: list[dict], names: list[str]) -> None:
    columns = ["trial", *names, "adp", "adp_low", "adp_high", "frames_trained", "time_s", "evaluations", "status",
               "checkpoint"]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: _label(r[k]) if k in names else r[k] for k in columns})


def _plot(path: Path, rows: list[dict], names: list[str], space: SweepSpace, ylabel: str, title: str) -> Path:
    """ADP (with its 95% interval as an error bar) against each swept option, one panel per option: a numeric
    option on its own axis (log-scaled when swept log-uniformly), any other by its values in order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [r for r in rows if r["adp"] is not None]
    fig, axes = plt.subplots(1, len(names), figsize=(max(6.0, 4.5 * len(names)), 4.0), squeeze=False)
    for ax, name in zip(axes[0], names):
        domain = space.sweep[name][0]
        numeric = all(isinstance(r[name], (int, float)) and not isinstance(r[name], bool) for r in done)
        if numeric:
            xs = [float(r[name]) for r in done]
        else:
            labels = list(dict.fromkeys(_label(r[name]) for r in done))
            xs = [labels.index(_label(r[name])) for r in done]
            ax.set_xticks(range(len(labels)), labels, rotation=20 if max(map(len, labels or [""])) > 8 else 0,
                          fontsize=8)
        ys = [r["adp"] for r in done]
        err = [[r["adp"] - r["adp_low"] for r in done], [r["adp_high"] - r["adp"] for r in done]]
        colors = ["C0" if r["status"] == "completed" else "C1" for r in done]
        for x, y, lo, hi, c in zip(xs, ys, err[0], err[1], colors):
            ax.errorbar([x], [y], yerr=[[lo], [hi]], fmt="o", color=c, capsize=3)
        if numeric and domain == "loguniform" or numeric and xs and min(xs) > 0 and max(xs) / min(xs) >= 10:
            ax.set_xscale("log")
        ax.axhline(0.0, color="grey", lw=0.7, ls="--")
        ax.set_xlabel(name)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{title}: {ylabel} at each trial's last evaluation\n(95% intervals; orange: stopped early by the "
                 f"scheduler)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
