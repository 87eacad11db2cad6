"""``cardrl bench env|mcs|train|scale|limits|learning|chaos|soak GAME`` and ``cardrl bench table``: the benchmark
subcommands of the ``cardrl`` command line.

:func:`add_bench_parsers` adds the ``bench`` subcommand to the ``cardrl`` parser's subparsers; :func:`main_bench` runs
a parsed ``bench`` command (or a list of arguments after ``bench``). Games come from the registry
(:mod:`cardrl.games.registry`); ``mcs`` offers the games with a Minimum Combination Search. The targets are one table,
:data:`_TARGETS`: each one's help texts and the function that adds its arguments; a benchmark's own module is
imported when its command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from cardrl.args import SignedValuesParser, positive_float, positive_int
from cardrl.games.registry import game_names, get_game, resolve

__all__ = ["add_bench_parsers", "build_bench_parser", "main_bench", "check_bench"]


def _games_with_search() -> list[str]:
    return [g for g in game_names() if get_game(g).search is not None]


def _add_env_arguments(env: argparse.ArgumentParser) -> None:
    env.add_argument("game", choices=list(game_names()), help="the game to benchmark")
    env.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement (default 3)")
    env.add_argument("--no-peers", action="store_true", help="measure cardrl only")
    env.add_argument("--hands", type=positive_int, default=200, help="lead hands per hand size (default 200)")
    env.add_argument("--moves", action="store_true",
                     help="legal-move generation only: leads by hand size and, in games with wild cards, dealt leads "
                          "by wild cards held (mean and p99 us)")
    env.add_argument("--json-out", default=None, metavar="PATH",
                     help="also write every figure printed, with the command, the UTC date, the machine and its load "
                          "averages at start and end, to this JSON file (cardrl.bench.json_out)")


def _add_mcs_arguments(mcs: argparse.ArgumentParser) -> None:
    mcs.add_argument("game", choices=_games_with_search(), help="a game with Minimum Combination Search")
    mcs.add_argument("--deals", type=positive_int, default=2000, help="dealt hands timed per hand size (default 2000)")
    mcs.add_argument("--prune-steps", type=positive_int, default=10_000,
                     help="steps of random games timed for prune_moves (whole games; default 10000)")


def _add_table_arguments(table: argparse.ArgumentParser) -> None:
    table.add_argument("--readme", default="README.md", help="the README (default README.md; files are read "
                                                             "relative to its directory)")
    table.add_argument("--write", action="store_true", help="rewrite the README's table")


# each target: its line in ``cardrl bench --help``, the description of its own ``--help``, and what adds its arguments
# (a function of this module, or a "module:function" reference imported when the parser is built)
_TARGETS = {
    "env": ("environment steps/s and legal-move generation, against the game's peers",
            "Random-play steps/s (bare engine, with features, through the PettingZoo env), feature encoding and "
            "lead-move generation us/call, side by side with the game's peers when installed (e.g. cardrl bench env "
            "doudizhu).",
            _add_env_arguments),
    "mcs": ("Minimum Combination Search us/call and ODMC pruning cost per step",
            "K of dealt hands, cold and memoised, and prune_moves per step of random games (e.g. cardrl bench mcs "
            "big2 --deals 100).",
            _add_mcs_arguments),
    "train": ("DMC frames/s, against DouZero's own trainer where the game has it",
              "cardrl's DMC frames trained per second in a child process, then DouZero's trainer for games whose "
              "peers include douzero (e.g. cardrl bench train doudizhu --seconds 60).",
              "cardrl.bench.train:add_train_arguments"),
    "scale": ("a scaling model: predicted DMC frames/s on 4 to 160 CPUs, CPU or GPU learner",
              "Measures one DMC runner's frames/s, the learner's ingest rate, bytes per frame through the object "
              "store and the weight broadcast's cost here, then predicts frames/s and the learner's saturation point "
              "for clusters (docs/scaling.md; e.g. cardrl bench scale doudizhu).",
              "cardrl.bench.scale:add_scale_arguments"),
    "limits": ("where DMC's time goes: network work per frame and frames per CPU-second of the runner and the "
               "learner, against the core's peak on the same shapes",
               "Builds each variant's DMC in this process and measures per role the networks' floating-point work "
               "per frame, the frames per CPU-second achieved, one core's measured matrix-product and LSTM peak on "
               "the same shapes and the share of that limit reached (docs/performance.md; e.g. cardrl bench limits "
               "doudizhu --variants dmc omodmc).",
               "cardrl.bench.limits:add_limits_arguments"),
    "learning": ("which DMC variant learns fastest: runs as the unit, over frames and minutes, against each baseline",
                 "Trains each variant from each seed to the same frames in its own resumable run directory, "
                 "evaluates all at the same frame milestones on the same deals, and reports with runs as the unit "
                 "(rliable): the mean over runs with bootstrap intervals, each variant's probability of improvement "
                 "over the reference, each run's time to ADP > 0 and frames/s (learning.md, results.json, "
                 "learning.png; e.g. cardrl bench learning doudizhu --variants dmc odmc --seed-list 0 1 2 3 4 "
                 "--frames 2000000).",
                 "cardrl.bench.learning_cli:add_learning_arguments"),
    "chaos": ("DMC under faults: env runners and the driver killed, a checkpoint write interrupted; recovery times "
              "and final strength beside an undisturbed run",
              "Trains an undisturbed DMC run for --duration, then a run to the same frames while env runners are "
              "SIGKILLed, the driver is SIGKILLed and resumed, and a checkpoint write is cut short; reports frames "
              "over time, restarts, lost samples, time to recover and both runs' final scores (chaos.md, chaos.json; "
              "exit 1 on a stall or a failed resume; docs/operations.md; e.g. cardrl bench chaos doudizhu --duration "
              "60m --kill-runner-every 5m --kill-driver-at 20m 40m).",
              "cardrl.bench.chaos:add_chaos_arguments"),
    "soak": ("a long DMC run sampling every process's memory, the object store and the buffers: growth in MB per "
             "hour and projected to 24 h",
             "Trains DMC for --duration and samples, every --every, the RSS of every process of the run, the object "
             "store in use and DMC's buffers; reports each one's least-squares slope (MB/h, %/h of its size) and its "
             "figure at 24 h (soak.md, soak.json, soak.png; docs/operations.md; e.g. cardrl bench soak doudizhu "
             "--duration 2h).",
             "cardrl.bench.soak:add_soak_arguments"),
    "table": ("the README's benchmark table from the kept result files",
              "Computes every cell of the README's benchmark table from the result file its row names "
              "(cardrl.bench.readme_table) and prints it; exit 1 when the README's table differs; --write puts it in "
              "the README.",
              _add_table_arguments),
}


def _add_targets(bench: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``bench``'s subcommands, one per entry of :data:`_TARGETS`."""
    targets = bench.add_subparsers(dest="target", required=True)
    for name, (help_text, description, add_arguments) in _TARGETS.items():
        parser = targets.add_parser(name, help=help_text, description=description)
        resolve(add_arguments)(parser)
    return bench


def add_bench_parsers(subparsers) -> argparse.ArgumentParser:
    """Add ``bench`` (with its targets, :data:`_TARGETS`) to the ``cardrl`` parser's ``subparsers``; returns it."""
    bench = subparsers.add_parser("bench", help="benchmarks, against the peers installed beside us",
                                  description="Benchmarks; every one prints the machine first and, where the game "
                                              "has a peer, the ratio ours/theirs.")
    return _add_targets(bench)


# each target's check of its options, run before anything is measured (main_bench's callers: cardrl.cli)
_CHECKS = {"chaos": "cardrl.bench.chaos:check_chaos", "soak": "cardrl.bench.soak:check_soak",
           "learning": "cardrl.bench.learning_cli:check_learning", "train": "cardrl.bench.train:check_bench_train",
           "scale": "cardrl.bench.scale:check_scale_args", "limits": "cardrl.bench.limits:check_limits"}


def check_bench(args: argparse.Namespace) -> None:
    """ValueError naming what is wrong with a parsed ``cardrl bench TARGET`` command line, before anything runs (the
    counts and seconds are checked by their argparse types)."""
    if args.target in _CHECKS:
        resolve(_CHECKS[args.target])(args)


def _main_bench_env(args: argparse.Namespace) -> int:
    """``cardrl bench env GAME [--moves] [--json-out PATH]``: print the tables; with ``--json-out``, also write
    them as JSON (:mod:`cardrl.bench.json_out`)."""
    from cardrl.bench.env import bench_env, bench_moves, format_bench_env, format_bench_moves
    from cardrl.bench.json_out import (BenchClock, bench_command, env_figures, moves_figures, prepare_json_out,
                                       write_json_out)

    json_out = args.json_out
    if json_out:
        prepare_json_out(json_out)
    clock = BenchClock()
    if args.moves:
        result = bench_moves(args.game, seconds=args.seconds, hands=args.hands)
        text, kind, figures = format_bench_moves(result), "env --moves", moves_figures(result)
    else:
        result = bench_env(args.game, seconds=args.seconds, peers=not args.no_peers, hands=args.hands)
        text, kind, figures = format_bench_env(result), "env", env_figures(result)
    print(text, flush=True)
    if json_out:
        path = write_json_out(json_out, clock.record(kind, bench_command("env", args), figures, result, text))
        print(f"json: {path}", flush=True)
    return 0


def build_bench_parser() -> argparse.ArgumentParser:
    """A stand-alone parser of the arguments after ``cardrl bench``."""
    return _add_targets(SignedValuesParser(prog="cardrl bench"))


def main_bench(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run a ``cardrl bench`` command: a parsed namespace (``target``, ``game``, ...) or the arguments after
    ``bench`` (``["env", "doudizhu", "--seconds", "1"]``). Prints the benchmark's output; returns 0."""
    if not isinstance(args, argparse.Namespace):
        args = build_bench_parser().parse_args(args)
    if args.target == "env":
        return _main_bench_env(args)
    if args.target == "mcs":
        from cardrl.bench.mcs import bench_mcs, print_bench_mcs

        print_bench_mcs(bench_mcs(args.game, deals=args.deals, prune_steps=args.prune_steps))
        return 0
    if args.target == "train":
        from cardrl.bench.train import main_bench_train

        return main_bench_train(args)
    if args.target == "scale":
        from cardrl.bench.scale import main_bench_scale

        return main_bench_scale(args)
    if args.target == "limits":
        from cardrl.bench.limits import main_bench_limits

        return main_bench_limits(args)
    if args.target == "learning":
        from cardrl.bench.learning_cli import main_bench_learning

        return main_bench_learning(args)
    if args.target == "chaos":
        from cardrl.bench.chaos import main_bench_chaos

        return main_bench_chaos(args)
    if args.target == "soak":
        from cardrl.bench.soak import main_bench_soak

        return main_bench_soak(args)
    if args.target == "table":
        from cardrl.bench.readme_table import main_bench_table

        return main_bench_table(args.readme, args.write)
    raise ValueError(f"unknown bench target {args.target!r}; targets: {', '.join(_TARGETS)}")
