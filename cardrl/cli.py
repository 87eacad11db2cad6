"""The ``cardrl`` command line: ``train``, ``eval``, ``plot``, ``bench``.

``cardrl train doudizhu --algo dmc --stop-time 10m`` trains DouZero-style DMC on an embedded local Ray (or on
the cluster named by ``RAY_ADDRESS``), prints a progress line per iteration, evaluates against the random agent
every few minutes and writes RLlib checkpoints. ``cardrl bench env doudizhu`` measures the environment against
the peers installed beside us; ``cardrl bench train doudizhu`` measures DMC's frames/s against DouZero's trainer.
"""

from __future__ import annotations

import argparse
import sys


def _games() -> tuple[str, ...]:
    from cardrl.games.registry import game_names

    return game_names()


def build_parser() -> argparse.ArgumentParser:
    from cardrl.algorithms.dmc.settings import DMCSettings, RunSettings, add_arguments

    games = _games()
    parser = argparse.ArgumentParser(prog="cardrl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    train = sub.add_parser("train", help="train an agent (DMC) and write checkpoints")
    train.add_argument("game", choices=games, help="the game to train on")
    train.add_argument("--algo", default="dmc", choices=["dmc"], help="the algorithm (default: dmc)")
    add_arguments(train, RunSettings)
    add_arguments(train, DMCSettings)

    from cardrl.bench.cli import add_bench_parsers

    add_bench_parsers(sub)

    plot = sub.add_parser("plot", help="learning curves of a training run directory as a PNG")
    plot.add_argument("run_dir")
    plot.add_argument("--out", default=None, help="PNG path (default RUN_DIR/learning_curves.png)")

    from cardrl.eval.cli import add_eval_arguments

    evaluate = sub.add_parser("eval", help="duplicate tournaments and leagues on seeded deal files (WP, ADP)")
    evaluate.add_argument("game", choices=games)
    add_eval_arguments(evaluate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "train":
        from cardrl.algorithms.dmc.train import run_training

        try:
            return run_training(args)
        except ValueError as err:
            print(f"cardrl train: error: {err}", file=sys.stderr)
            return 2
    if args.command == "bench":
        from cardrl.bench.cli import main_bench

        return main_bench(args)
    if args.command == "plot":
        from cardrl.eval.plot import main_plot

        return main_plot(args) or 0
    if args.command == "eval":
        from cardrl.eval.cli import main_eval

        return main_eval(args) or 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
