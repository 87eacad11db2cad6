"""The ``cardrl`` command line: ``train``, ``eval``, ``plot``, ``bench``.

``cardrl train doudizhu --algo dmc --stop-time 10m`` trains DouZero-style DMC on an embedded local Ray (or on
the cluster named by ``RAY_ADDRESS``), prints a progress line per iteration, evaluates against the random agent
every few minutes and writes RLlib checkpoints. ``cardrl bench env doudizhu`` measures the environment against
the peers installed beside us; ``cardrl bench train doudizhu`` measures DMC's frames/s against DouZero's trainer.
"""

from __future__ import annotations

import argparse
import re
import sys

GAMES = ("doudizhu", "big2", "guandan")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smh]?)$")


def parse_duration(text: str) -> float:
    """``"90"``/``"90s"`` -> 90.0, ``"10m"`` -> 600.0, ``"1.5h"`` -> 5400.0 seconds."""
    match = _DURATION.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration; use e.g. 90s, 10m or 2h")
    value, unit = float(match.group(1)), match.group(2) or "s"
    return value * {"s": 1, "m": 60, "h": 3600}[unit]


def _game(text: str) -> str:
    if text not in GAMES:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; available: {', '.join(GAMES)}")
    return text


def _slack(text: str):
    if text == "paper":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"slack must be 'paper' or a number, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardrl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    train = sub.add_parser("train", help="train an agent (DMC) and write checkpoints")
    train.add_argument("game", type=_game)
    train.add_argument("--algo", default="dmc", choices=["dmc"])
    stop = train.add_mutually_exclusive_group()
    stop.add_argument("--stop-time", type=parse_duration, default=None, help="wall time, e.g. 10m (default 10m)")
    stop.add_argument("--stop-frames", type=int, default=None, help="frames (state-action samples) trained")
    train.add_argument("--num-env-runners", type=int, default=1)
    train.add_argument("--num-envs-per-env-runner", type=int, default=64)
    train.add_argument("--frames-per-update", type=int, default=3200)
    train.add_argument("--model", default=None, choices=["douzero_lstm", "mlp"],
                       help="Q-network (default: the game's: douzero_lstm for doudizhu and big2, mlp for guandan)")
    train.add_argument("--lr", type=float, default=1e-4, help="RMSprop learning rate (DouZero: 1e-4)")
    train.add_argument("--epsilon", type=float, default=0.01, help="exploration rate (DouZero: 0.01)")
    train.add_argument("--reward", default="adp", choices=["adp", "wp"])
    train.add_argument("--prune", default=None, choices=["mcs"],
                       help="ODMC: prune the actor's legal moves by Minimum Combination Search (Luo & Tan eq. 2)")
    train.add_argument("--prune-slack", type=_slack, default="paper",
                       help="'paper' (N/n + d) or a fixed number")
    train.add_argument("--prune-extra", type=float, default=0.0, help="added to the paper's slack")
    train.add_argument("--actor-q-clip", type=float, default=None,
                       help="DanZero's learner preprocessing: clip around the actor's Q (lambda; DanZero 0.65)")
    train.add_argument("--gpu", action="store_true", help="put the learner on a GPU")
    train.add_argument("--out", default="runs/dmc_doudizhu", help="run directory (checkpoints, results)")
    train.add_argument("--restore", default=None, help="checkpoint directory to resume from")
    train.add_argument("--eval-every", type=parse_duration, default=parse_duration("3m"),
                       help="evaluate against the baselines this often (0: never)")
    train.add_argument("--eval-deals", type=int, default=200)
    train.add_argument("--eval-against", nargs="+", default=["random"],
                       help="baseline agent specs evaluated against (random, rule, ...)")
    train.add_argument("--checkpoint-every", type=parse_duration, default=parse_duration("5m"))
    train.add_argument("--seed", type=int, default=0)

    bench = sub.add_parser("bench", help="benchmarks against the peers installed beside us")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    benv = bench_sub.add_parser("env", help="environment steps/s and legal-move generation")
    benv.add_argument("game", type=_game)
    benv.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    benv.add_argument("--no-peers", action="store_true", help="measure cardrl only")
    btrain = bench_sub.add_parser("train", help="DMC frames/s against DouZero's own trainer")
    btrain.add_argument("game", type=_game)
    btrain.add_argument("--seconds", type=float, default=60.0, help="seconds per trainer")
    btrain.add_argument("--no-peers", action="store_true")
    btrain.add_argument("--num-env-runners", type=int, default=1)
    btrain.add_argument("--prune", choices=["mcs"], default=None,
                        help="also measure ODMC (MCS pruning on) and print its frames/s ratio to plain DMC")

    bmcs = bench_sub.add_parser("mcs", help="Minimum Combination Search us/call and ODMC pruning cost per step")
    bmcs.add_argument("game", type=_game)
    bmcs.add_argument("--deals", type=int, default=2000, help="dealt hands timed per hand size")

    plot = sub.add_parser("plot", help="learning curves of a training run directory as a PNG")
    plot.add_argument("run_dir")
    plot.add_argument("--out", default=None, help="PNG path (default RUN_DIR/learning_curves.png)")

    from cardrl.eval.cli import add_eval_arguments

    evaluate = sub.add_parser("eval", help="duplicate tournaments and leagues on seeded deal files (WP, ADP)")
    evaluate.add_argument("game", type=_game)
    add_eval_arguments(evaluate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "train":
        from cardrl.algorithms.dmc.train import run_training

        return run_training(args)
    if args.command == "bench" and args.target == "env":
        from cardrl.bench import main_bench_env

        return main_bench_env(args) or 0
    if args.command == "bench" and args.target == "mcs":
        from cardrl.bench_mcs import main_bench_mcs

        return main_bench_mcs(args) or 0
    if args.command == "bench" and args.target == "train":
        from cardrl.bench_train import main_bench_train

        return main_bench_train(args) or 0
    if args.command == "plot":
        from cardrl.eval.plot import main_plot

        return main_plot(args) or 0
    if args.command == "eval":
        from cardrl.eval.cli import main_eval

        return main_eval(args) or 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
