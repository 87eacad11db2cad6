"""``cardrl eval``: duplicate tournaments (``--a SPEC --b SPEC``) and leagues (``--league SPEC ...``) printed as
markdown tables (Luo & Tan 2024, Tables 4, 5 and 10), on a seeded or saved deal file; for games whose episode is a
match (GuanDan) whole matches with teams swapped (``--deals`` counts matches)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

__all__ = ["add_eval_arguments", "main_eval", "check_eval"]

# flag -> the rule option it sets (only games that have that option accept it)
RULE_FLAGS = {"kickers": "kickers", "straight_order": "straight_order"}


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardrl eval GAME`` (the game argument is added by the caller)."""
    from cardrl.args import non_negative_int, path_arg, positive_int
    from cardrl.eval.agents import agent_spec_arg, spec_help

    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--a", type=agent_spec_arg, help=f"agent spec of side A: {spec_help()}")
    who.add_argument("--league", nargs="+", metavar="SPEC", type=agent_spec_arg,
                     help="round robin of these agent specs (rank table; games evaluated by deals)")
    parser.add_argument("--b", default=None, type=agent_spec_arg, help="agent spec of side B (with --a)")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--deals", type=positive_int, default=None,
                     help="number of seeded deals to generate (matches for GuanDan) (default: 1000 deals, 100 "
                          "matches)")
    src.add_argument("--deal-file", default=None, type=path_arg, help="play the deals of this .npz deal file")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the generated deals (default: %(default)s)")
    parser.add_argument("--kickers", default=None, choices=["douzero", "distinct"],
                        help="DouDiZhu move set of generated deals (default: douzero)")
    parser.add_argument("--straight-order", default=None, choices=["bigzero", "low"],
                        help="Big2 straight order of generated deals (default: bigzero)")
    parser.add_argument("--bidding", action="store_true",
                        help="the whole game (DouDiZhu): players bid for the landlord; the sides rotate over every "
                             "seat split (6 games a deal) and a table per agent gives landlord rate, results as "
                             "landlord and peasant and the redeal rate; agents must bid (pair one that does not: "
                             "SPEC+bidder=rule)")
    parser.add_argument("--save-deals", default=None, type=path_arg, help="write the deals played to this .npz file")
    parser.add_argument("--workers", type=non_negative_int, default=2,
                        help="Ray tasks at a time (0: play in this process) (default: %(default)s)")
    parser.add_argument("--chunk-size", type=positive_int, default=None, help="deals per Ray task (default: automatic)")
    parser.add_argument("--out", default=None, type=path_arg, help="with --league: write PREFIX.md and PREFIX.csv")
    parser.add_argument("--save-games", default=None, type=path_arg, metavar="DIR",
                        help="with --a/--b: write the first --save-games-count deals (matches) of every arrangement "
                             "as game records with the agents' values to DIR (docs/records.md; cardrl serve and "
                             "cardrl play --replay FILE read them)")
    parser.add_argument("--save-games-count", type=positive_int, default=10, metavar="N",
                        help="deals (matches) that --save-games writes (default: %(default)s)")
    parser.add_argument("--max-deals", type=positive_int, default=None,
                        help="GuanDan: cut every match after this many deals (default: play until a team wins)")


def main_eval(args: argparse.Namespace) -> int:
    """Run ``cardrl eval``; bad input (options, deal file, spec, checkpoint) prints one error line and returns 2."""
    import sys

    try:
        return _run(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"cardrl eval: error: {err}", file=sys.stderr)
        return 2


def _rule_options(args: argparse.Namespace, spec) -> dict:
    """The rule options set by flags; a flag the game has no option for is refused."""
    options = {}
    for flag, option in RULE_FLAGS.items():
        value = vars(args).get(flag)
        if value is None:
            continue
        if option not in spec.rule_options:
            have = [f"--{f.replace('_', '-')}" for f, o in RULE_FLAGS.items() if o in spec.rule_options]
            raise ValueError(f"--{flag.replace('_', '-')} does not apply to {spec.name} (it has no {option} rule "
                             f"option); rule flags for {spec.name}: {', '.join(have) or 'none'}")
        options[option] = value
    return options


def _refuse(args: argparse.Namespace, names: list[str], why: str) -> None:
    given = [f"--{n.replace('_', '-')}" for n in names if vars(args).get(n) not in (None, False)]
    if given:
        raise ValueError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply: {why}")


def check_eval(args: argparse.Namespace) -> dict:
    """What ``cardrl eval`` checks before it plays: the options together, the paths, and every agent spec built for
    the game (a bad spec, a checkpoint that does not fit); returns the rule options set by flags. ValueError /
    FileNotFoundError naming what is wrong."""
    from cardrl.eval.agents import build_agent
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    if args.a is not None and args.b is None:
        raise ValueError("--a needs --b (the opponent's agent spec)")
    if args.league is None:
        _refuse(args, ["out"], "--out writes a league's tables; use it with --league")
    else:
        _refuse(args, ["save_games"], "--save-games records the games of --a against --b")
    _check_paths(args)
    options = _rule_options(args, spec)
    if spec.protocol.unit != "match":
        _refuse(args, ["max_deals"], f"{spec.name} is evaluated by single deals, not matches")
    if args.bidding and spec.protocol.bidding_option is None:
        raise ValueError(f"--bidding: {spec.title} has no bidding (its roles are fixed)")
    bidding = {spec.protocol.bidding_option: True} if args.bidding else {}
    for agent in ([args.a, args.b] if args.league is None else args.league):
        build_agent(agent, spec.name, {**options, **bidding})
    return options


def _check_paths(args: argparse.Namespace) -> None:
    """The deal file is a file; the files to write are not directories, the directory to write is not a file."""
    if args.deal_file is not None and not Path(args.deal_file).exists():
        raise FileNotFoundError(f"--deal-file {args.deal_file} does not exist")
    if args.deal_file is not None and Path(args.deal_file).is_dir():
        raise ValueError(f"--deal-file {args.deal_file} is a directory; give a .npz deal file (cardrl eval "
                         f"--save-deals FILE writes one)")
    if args.save_deals is not None and Path(args.save_deals).is_dir():
        raise ValueError(f"--save-deals {args.save_deals} is a directory; give the .npz file to write")
    if args.save_games is not None and Path(args.save_games).exists() and not Path(args.save_games).is_dir():
        raise ValueError(f"--save-games {args.save_games} is a file; give the directory to write the records to")
    if args.out is not None and Path(args.out).is_dir():
        raise ValueError(f"--out {args.out} is a directory; give a path prefix (PREFIX.md and PREFIX.csv are written)")


def _run(args: argparse.Namespace) -> int:
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    options = check_eval(args)
    if spec.protocol.unit == "match":
        return _run_matches(args, spec, options)
    return _run_deals(args, spec, options)


def _run_deals(args: argparse.Namespace, spec, options: dict) -> int:
    from cardrl.eval.deals import generate_deals, load_deals
    from cardrl.eval.protocols import bids, protocol_for
    from cardrl.eval.tournament import run_league, run_tournament

    if args.bidding:
        option = spec.protocol.bidding_option
        if option is None:
            raise ValueError(f"--bidding: {spec.title} has no bidding (its roles are fixed)")
        if args.deal_file is None:
            options[option] = True
    if args.deal_file is not None:
        if options:
            raise ValueError(f"the deal file fixes the rule options; do not pass "
                             f"{', '.join('--' + k.replace('_', '-') for k in options)} with --deal-file")
        deals = load_deals(args.deal_file, spec.name)
        if bids(spec.name, deals.options) != bool(args.bidding):
            raise ValueError(f"the deal file's deals {'bid' if not args.bidding else 'do not bid'}: "
                             f"{'add' if not args.bidding else 'drop'} --bidding (or generate deals without "
                             f"--deal-file)")
    else:
        deals = generate_deals(spec.name, args.deals if args.deals is not None else 1000, args.seed, **options)
    if args.save_deals:
        print(f"deals saved to {deals.save(args.save_deals)}")
    start = time.perf_counter()
    if args.bidding:
        _run_whole_game(args, deals)
    elif args.a is not None:
        result = run_tournament(args.a, args.b, deals, spec.name, num_workers=args.workers,
                                chunk_size=args.chunk_size, progress=_progress("deals"))
        print(result.table())
        _save_games(args, spec, protocol_for(spec.name).normalise_options(deals.options), deals.seeds)
    else:
        league = run_league(args.league, deals, spec.name, num_workers=args.workers, chunk_size=args.chunk_size,
                            progress=_progress("deals (all pairs)"))
        _print_league(args, league.markdown(), league.csv())
    elapsed = time.perf_counter() - start
    games = "whole-game tournament(s) x 6 games of" if args.bidding else "tournament(s) x"
    matches = 1 if args.a is not None else len(args.league) * (len(args.league) - 1) // 2
    played = matches * len(deals)
    print(f"\n{matches} {games} {len(deals)} deals in {elapsed:.1f} s ({played / elapsed:.0f} deals/s, "
          f"{args.workers} worker(s))")
    return 0


def _print_league(args: argparse.Namespace, markdown: str, csv: str) -> None:
    print(markdown)
    if args.out:
        prefix = Path(args.out)
        prefix.parent.mkdir(parents=True, exist_ok=True)
        prefix.with_suffix(".md").write_text(markdown + "\n")
        prefix.with_suffix(".csv").write_text(csv)
        print(f"\nwritten: {prefix.with_suffix('.md')}, {prefix.with_suffix('.csv')}")


def _progress(unit: str):
    """Progress lines on stderr every 15 s (the results on stdout stay a clean table)."""
    from cardrl.eval.parallel import ProgressLine

    return ProgressLine(unit, say=lambda line: print(line, file=sys.stderr, flush=True))


def _run_whole_game(args: argparse.Namespace, deals) -> None:
    """The whole game: a whole-game tournament (``--a``/``--b``) or league, with the per-agent bidding table."""
    from cardrl.eval.protocols import protocol_for
    from cardrl.eval.whole_game import run_whole_game, run_whole_league

    if args.a is not None:
        print(run_whole_game(args.a, args.b, deals, args.game, num_workers=args.workers,
                             chunk_size=args.chunk_size, progress=_progress("deals")).table())
        protocol = protocol_for(args.game, whole_game=True)
        _save_games(args, protocol.spec, protocol.normalise_options(deals.options), deals.seeds)
        return
    league = run_whole_league(args.league, deals, args.game, num_workers=args.workers, chunk_size=args.chunk_size,
                              progress=_progress("deals (all pairs)"))
    _print_league(args, league.markdown(), league.league.csv())


def _run_matches(args: argparse.Namespace, spec, options: dict) -> int:
    """Whole matches, each played once per arrangement with the teams swapped (``--deals`` = number of matches)."""
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import match_seeds, run_matches

    _refuse(args, ["league", "deal_file", "save_deals", "chunk_size", "bidding"],
            f"{spec.title} is evaluated in whole seeded matches; use --a, --b, --deals (matches), --seed, "
            f"--max-deals, --workers")
    a = build_agent(args.a, spec.name, options, seed=args.seed)
    b = build_agent(args.b, spec.name, options, seed=args.seed + 1)
    a.name, b.name = args.a, args.b
    start = time.perf_counter()
    result = run_matches(a, b, args.deals if args.deals is not None else 100, args.seed, spec.name,
                         max_deals=args.max_deals, num_workers=args.workers, options=options,
                         progress=_progress("matches"))
    print(result.table())
    elapsed = time.perf_counter() - start
    print(f"\n{result.games} matches in {elapsed:.1f} s ({args.workers} worker(s))")
    _save_games(args, spec, spec.full_options({**options, "max_deals": args.max_deals}),
                match_seeds(args.seed, args.deals if args.deals is not None else 100), (args.seed, args.seed + 1))
    return 0


def _save_games(args: argparse.Namespace, spec, options: dict, seeds, agent_seeds: tuple[int, int] = (1, 2)) -> None:
    """``--save-games DIR``: the first deals (matches) again, every arrangement, as game records with values."""
    if args.save_games is None:
        return
    from cardrl.eval.protocols import protocol_of_options
    from cardrl.eval.recording import save_games

    count = min(args.save_games_count, len(seeds))
    unit = {"match": "matches"}.get(spec.protocol.unit, spec.protocol.unit + "s")
    arrangements = len(protocol_of_options(spec.name, options).arrangements)
    print(f"saving the first {count} {unit} x {arrangements} arrangements "
          f"to {args.save_games} ...", flush=True)
    paths = save_games(args.a, args.b, spec.name, options, [int(s) for s in seeds[:count]], args.save_games,
                       agent_seeds=agent_seeds, source=f"cardrl eval {spec.name} --a {args.a} --b {args.b}")
    print(f"{len(paths)} game records written to {args.save_games}")
