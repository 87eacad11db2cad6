"""``cardrl tune GAME``'s options (the game is added by the CLI): the space file, the metric, the scheduler, Tune's
failure and placement settings, and every ``cardrl train`` option that is the same for all trials."""

from __future__ import annotations

import argparse

from cardrl.algorithms.training.registry import driver
from cardrl.algorithms.training.settings import RunSettings, add_arguments, parse_duration
from cardrl.algorithms.tune.space import ALGO
from cardrl.args import agent_spec_arg, path_arg

__all__ = ["add_tune_arguments", "SCHEDULERS", "PLACEMENT_STRATEGIES"]

SCHEDULERS = ("asha", "fifo")
PLACEMENT_STRATEGIES = ("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD")
# run options that a sweep takes from its command line (every trial alike), not from the space file
_RUN_SKIP = ("restore", "resume", "checkpoint_every", "eval_against", "out", "eval_every", "eval_every_frames",
             "eval_unpruned", "deterministic")  # deterministic: a trial evaluates by the clock


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
    add_arguments(parser, driver(ALGO).settings)
