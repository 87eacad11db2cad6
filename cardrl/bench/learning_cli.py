"""``cardrl bench learning GAME``'s command line: its flags, their checks and the entry point that runs
:func:`cardrl.bench.learning.run_learning`."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from cardrl.args import non_negative_int, positive_float, positive_int
from cardrl.bench.checks import check_specs, split_train_flags
from cardrl.bench.common import machine_description
from cardrl.bench.learning import DEFAULT_VARIANTS, VARIANTS, run_learning, variant_flags
from cardrl.games.registry import game_names, get_game

__all__ = ["add_learning_arguments", "check_learning", "main_bench_learning", "default_against"]


def add_learning_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=list(game_names()), help="the game to train")
    parser.add_argument("--variants", nargs="+", default=None,
                        help=f"variants to compare (default: {' and '.join(DEFAULT_VARIANTS)}); every one: "
                             f"{', '.join(VARIANTS)} (each game takes those that apply to it)")
    parser.add_argument("--seeds", type=positive_int, default=3, help="seeds 1..N (default 3)")
    parser.add_argument("--seed-list", type=non_negative_int, nargs="+", default=None,
                        help="these seeds instead of 1..N")
    parser.add_argument("--frames", type=positive_int, default=2_000_000, help="frames per run (default 2,000,000)")
    parser.add_argument("--eval-every-frames", type=positive_int, default=200_000,
                        help="frames between evaluations (default 200,000)")
    parser.add_argument("--eval-deals", type=positive_int, default=500,
                        help="deals per evaluation, each played once per seat arrangement (default 500)")
    parser.add_argument("--against", nargs="+", default=None,
                        help="baseline agent specs (default: random and the game's rule agents: DouDiZhu's rule "
                             "and rlcard, Big2's rule, GuanDan's rule and rule-control)")
    parser.add_argument("--out", default=None, help="benchmark directory (default: runs/bench_learning_GAME)")
    parser.add_argument("--keep", default=None,
                        help="a directory to commit: each finished run's evaluation records and config are copied "
                             "there, with the report; runs finished there are not trained again (a benchmark "
                             "continued on another machine)")
    parser.add_argument("--hours", type=positive_float, default=None,
                        help="stop this invocation after this many hours (the same command continues it)")
    parser.add_argument("--num-env-runners", type=non_negative_int, default=1, help="env runners per run (default 1)")
    parser.add_argument("--report-only", action="store_true", help="write the report from the runs as they are")
    parser.add_argument("--reference", default=None,
                        help="the variant every other is compared with (default: the first of --variants)")
    parser.add_argument("--train-args", default="",
                        help="more cardrl train flags for every run, one quoted string (e.g. \"--eval-unpruned\")")


def default_against(game: str) -> list[str]:
    """Random play and every rule agent the game registers (DouDiZhu: cardrl's and RLCard's)."""
    return ["random", *get_game(game).agent_kinds]


def _variants(args: argparse.Namespace) -> list[str]:
    """The variants to train: ``--variants``, by default :data:`DEFAULT_VARIANTS`."""
    return list(args.variants or DEFAULT_VARIANTS)


def _benchmark_out(args: argparse.Namespace) -> Path:
    """The benchmark's directory: ``--out``, by default ``runs/bench_learning_GAME``."""
    return Path(args.out or f"runs/bench_learning_{get_game(args.game).name}")


def check_learning(args: argparse.Namespace) -> None:
    """What ``cardrl bench learning`` checks before it trains (ValueError naming the option)."""
    if args.eval_every_frames > args.frames:
        raise ValueError(f"--eval-every-frames {args.eval_every_frames:,} is more than --frames {args.frames:,}: no "
                         f"evaluation but the last")
    variants = _variants(args)
    if len(set(variants)) != len(variants):
        raise ValueError(f"--variants names one twice: {variants}")
    for name in variants:
        variant_flags(name, args.game, args.frames)
    check_specs(args.game, args.against, "--against")
    split_train_flags(args.train_args, args.game)
    if args.reference is not None and args.reference not in variants:
        raise ValueError(f"--reference {args.reference} is not among --variants {' '.join(variants)}: the reference "
                         f"is one of the variants compared")
    out = _benchmark_out(args)
    if args.keep is not None and Path(args.keep).resolve() == out.resolve():
        raise ValueError(f"--keep {args.keep} is the benchmark's own --out: give another directory (the kept runs are "
                         f"cut to their evaluations; the runs in --out keep their checkpoints and every record)")


def _without_invocation_flags(argv: list[str]) -> list[str]:
    """``argv`` less ``--report-only`` and ``--hours H``, which bound one invocation, not the runs it trains."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--hours":
            skip = True
        elif a != "--report-only" and not a.startswith("--hours="):
            out.append(a)
    return out


def main_bench_learning(args: argparse.Namespace) -> int:
    game = get_game(args.game).name
    variants = _variants(args)
    seeds = args.seed_list or list(range(1, args.seeds + 1))
    check_learning(args)
    against = args.against or default_against(game)
    out = _benchmark_out(args)
    # the command that trains these runs: a --report-only or --hours invocation names the same runs
    command = ("cardrl " + " ".join(shlex.quote(a) for a in _without_invocation_flags(sys.argv[1:]))
               if sys.argv[1:3] == ["bench", "learning"] else f"cardrl bench learning {game}")
    print(machine_description(), flush=True)
    run_learning(game, variants, seeds, frames=args.frames, eval_every_frames=args.eval_every_frames,
                 eval_deals=args.eval_deals, against=against, out=out,
                 keep=args.keep, hours=args.hours,
                 report_only=args.report_only, num_env_runners=args.num_env_runners,
                 extra=split_train_flags(args.train_args), command=command, reference=args.reference)
    return 0
