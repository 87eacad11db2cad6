"""``cardrl eval``: duplicate tournaments (``--a SPEC --b SPEC``) and leagues (``--league SPEC ...``) printed as
markdown tables (Luo & Tan 2024, Tables 4, 5 and 10), on a seeded or saved deal file, for every game with a
tournament protocol (``cardrl eval doudizhu ...``, ``cardrl eval big2 --a rule --b random --deals 1000``)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from cardrl.eval.agents import SPEC_HELP

__all__ = ["add_eval_arguments", "main_eval"]


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardrl eval GAME`` (the game argument is added by the caller)."""
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--a", help=f"agent spec of side A: {SPEC_HELP}")
    who.add_argument("--league", nargs="+", metavar="SPEC", help="round robin of these agent specs (rank table)")
    parser.add_argument("--b", default=None, help="agent spec of side B (with --a)")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--deals", type=int, default=None, help="number of seeded deals to generate (default 1000)")
    src.add_argument("--deal-file", default=None, help="play the deals of this .npz deal file")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated deals")
    parser.add_argument("--kickers", default=None, choices=["douzero", "distinct"],
                        help="DouDiZhu move set of generated deals (default douzero)")
    parser.add_argument("--straight-order", default=None, choices=["bigzero", "low"],
                        help="Big2 straight order of generated deals (default bigzero)")
    parser.add_argument("--save-deals", default=None, help="write the deals played to this .npz file")
    parser.add_argument("--workers", type=int, default=2, help="Ray tasks at a time (0: play in this process)")
    parser.add_argument("--chunk-size", type=int, default=None, help="deals per Ray task")
    parser.add_argument("--out", default=None, help="league: write PREFIX.md and PREFIX.csv")
    parser.add_argument("--max-deals", type=int, default=None,
                        help="GuanDan: cut every match after this many deals (default: play until a team wins)")


def main_eval(args: argparse.Namespace) -> int:
    """Run ``cardrl eval``; bad input (deal file, spec, checkpoint) prints one error line and returns 2."""
    import sys

    try:
        return _run(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"cardrl eval: error: {err}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from cardrl.eval.deals import generate_deals, load_deals
    from cardrl.eval.tournament import run_league, run_tournament

    if args.a is not None and args.b is None:
        raise ValueError("--a needs --b (the opponent's agent spec)")
    if args.game == "guandan":
        return _run_guandan(args)
    if args.deal_file is not None:
        deals = load_deals(args.deal_file, args.game)
    else:
        options = {} if args.kickers is None else {"kickers": args.kickers}
        if getattr(args, "straight_order", None) is not None:
            options["straight_order"] = args.straight_order
        deals = generate_deals(args.game, args.deals if args.deals is not None else 1000, args.seed, **options)
    if args.save_deals:
        print(f"deals saved to {deals.save(args.save_deals)}")
    start = time.perf_counter()
    if args.a is not None:
        result = run_tournament(args.a, args.b, deals, args.game, num_workers=args.workers,
                                chunk_size=args.chunk_size)
        print(result.table())
    else:
        league = run_league(args.league, deals, args.game, num_workers=args.workers, chunk_size=args.chunk_size)
        print(league.markdown())
        if args.out:
            prefix = Path(args.out)
            prefix.parent.mkdir(parents=True, exist_ok=True)
            prefix.with_suffix(".md").write_text(league.markdown() + "\n")
            prefix.with_suffix(".csv").write_text(league.csv())
            print(f"\nwritten: {prefix.with_suffix('.md')}, {prefix.with_suffix('.csv')}")
    elapsed = time.perf_counter() - start
    matches = 1 if args.a is not None else len(args.league) * (len(args.league) - 1) // 2
    played = matches * len(deals)
    print(f"\n{matches} tournament(s) x {len(deals)} deals in {elapsed:.1f} s ({played / elapsed:.0f} deals/s, "
          f"{args.workers} worker(s))")
    return 0


def _run_guandan(args: argparse.Namespace) -> int:
    """GuanDan: whole matches, each played twice with the teams swapped (``--deals`` = number of matches)."""
    from cardrl.eval.agents import build_agent
    from cardrl.eval.guandan_matches import run_guandan_matches

    if args.league is not None or args.deal_file is not None or args.save_deals:
        raise ValueError("GuanDan is evaluated in whole seeded matches: --league, --deal-file and --save-deals are "
                         "for DouDiZhu and Big2; use --a, --b, --deals (matches), --seed, --max-deals")
    a, b = build_agent(args.a, "guandan", seed=args.seed), build_agent(args.b, "guandan", seed=args.seed + 1)
    a.name, b.name = args.a, args.b
    start = time.perf_counter()
    result = run_guandan_matches(a, b, args.deals if args.deals is not None else 100, args.seed,
                                 max_deals=args.max_deals, num_workers=args.workers)
    print(result.table())
    elapsed = time.perf_counter() - start
    print(f"\n{result.games} matches in {elapsed:.1f} s ({args.workers} worker(s))")
    return 0
