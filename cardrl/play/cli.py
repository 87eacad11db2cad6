"""The command line of ``cardrl play GAME``: its options, the rule options they set, the seat, the agents and the
replay line, and :func:`main_play`, the entry point."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

import numpy as np

from cardrl.play.record_view import is_record_path, main_replay
from cardrl.play.session import DEFAULT_SHOWN, PlaySession, notation_for
from cardrl.play.terminal import run_session

__all__ = ["add_play_arguments", "build_session", "main_play", "check_play"]


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardrl play GAME`` (the game argument is the caller's)."""
    from cardrl.args import non_negative_int
    from cardrl.eval.agents import agent_spec_arg
    from cardrl.eval.agents import spec_help

    parser.add_argument("--seat", default="0",
                        help="your seat: a number (0 = DouDiZhu's landlord without bidding) or an agent name such as "
                             "landlord_up, south, player_1 (default: 0)")
    parser.add_argument("--opponents", nargs="+", default=None, metavar="SPEC", type=agent_spec_arg,
                        help=f"agent spec of every other seat, or one spec per other seat in seat order (default: "
                             f"the game's zoo agent zoo:GAME when its card shows it beats the rule agent, else rule; "
                             f"docs/strength.md); specs: {spec_help()}")
    parser.add_argument("--seed", type=non_negative_int, default=None,
                        help="the deal's seed (default: a random one, shown)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of the game (docs/rules.md), e.g. bidding=true (DouDiZhu), "
                             "straight_order=low (Big2); repeat for several")
    parser.add_argument("--bidding", action="store_true",
                        help="the whole game (DouDiZhu; the bidding rule option): bid for the landlord first; every "
                             "opponent must bid (pair one that does not with a bidder: SPEC+bidder=rule)")
    parser.add_argument("--deals", type=int, default=None, metavar="N",
                        help="games played as a match of deals (the max_deals rule option, GuanDan): deals of the "
                             "match to play (default 1; 2 or more include tribute and return; 0 plays a whole match)")
    parser.add_argument("--tribute-decisions", action="store_true",
                        help="games with tribute (the tribute_decisions rule option, GuanDan): you choose your own "
                             "tribute and return cards (default: DanZero+'s heuristic chooses them)")
    parser.add_argument("--show", type=non_negative_int, default=DEFAULT_SHOWN,
                        help=f"legal moves listed before 'type all' (default {DEFAULT_SHOWN}; 0: all)")
    parser.add_argument("--replay", default=None, metavar="IDS",
                        help="comma-separated action ids to apply first (the line printed at the end or on quit): "
                             "replays a finished deal or resumes a stopped one; or a game record FILE.json "
                             "(docs/records.md: cardrl eval --save-games, cardrl serve) shown move by move with "
                             "every hand and the agents' values")


def _rule_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        low = text.lower()
        return {"true": True, "false": False, "none": None, "null": None}.get(low, text)


# the rule options that cardrl play sets from its own flags: --deals N is max_deals (a match of N deals), and
# --tribute-decisions is tribute_decisions=True; a game without the option refuses the flag
_DEALS_OPTION = "max_deals"
_TRIBUTE_OPTION = "tribute_decisions"


def _games_with(option: str) -> str:
    """The titles of the registered games that have rule option ``option`` (for messages)."""
    from cardrl.games.registry import game_names, get_game

    titles = [get_game(g).title for g in game_names() if option in get_game(g).rule_options]
    return " / ".join(titles) if titles else "no registered game"


def _deals(spec: Any, args: argparse.Namespace) -> int | None:
    """The ``--deals`` of a game played as a match (1 when not given), or None for a game of one deal."""
    if _DEALS_OPTION not in spec.rule_options:
        return None
    return 1 if args.deals is None else int(args.deals)


def _play_options(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """The engine options from ``--rule`` and, where the game has the rule option, ``--deals`` (``max_deals``) and
    ``--tribute-decisions`` (``tribute_decisions``), checked."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    options: dict[str, Any] = {}
    for item in args.rule:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--rule {item!r}: write KEY=VALUE, e.g. --rule bidding=true; {game} rule options: "
                             f"{', '.join(sorted(spec.rule_options))}")
        key = key.strip()
        # an option whose default is text (GuanDan's level "2" .. "A") keeps the text: level=4 is the 4s
        text_option = isinstance(spec.rule_options.get(key), str)
        options[key] = value.strip() if text_option else _rule_value(value.strip())
    if args.bidding:
        option = spec.protocol.bidding_option
        if option is None:
            raise ValueError(f"--bidding: {spec.title} has no bidding (its roles are fixed)")
        if options.get(option, True) is not True:
            raise ValueError(f"--bidding contradicts --rule {option}={options[option]}")
        options[option] = True
    deals = _deals(spec, args)
    if deals is not None:
        if deals < 0:
            raise ValueError(f"--deals must be 0 (a whole match) or a positive number of deals, got {deals}")
        if _DEALS_OPTION in options:
            raise ValueError(f"{spec.title}: give the number of deals with --deals N, not --rule {_DEALS_OPTION}=N")
        options[_DEALS_OPTION] = None if deals == 0 else deals
    elif args.deals is not None:
        raise ValueError(f"--deals is for {_games_with(_DEALS_OPTION)}'s match (rule option {_DEALS_OPTION}); "
                         f"{spec.title} plays one deal")
    if args.tribute_decisions:
        if _TRIBUTE_OPTION not in spec.rule_options:
            raise ValueError(f"--tribute-decisions is for {_games_with(_TRIBUTE_OPTION)} (rule option "
                             f"{_TRIBUTE_OPTION}); {spec.title} has no tribute")
        options[_TRIBUTE_OPTION] = True
    full = spec.full_options(options)  # checks names and values
    return {k: full[k] for k in options}


def _seat(game: str, text: str) -> int:
    from cardrl.games.registry import get_game

    spec = get_game(game)
    if text.strip().isdigit():
        seat = int(text)
        if not 0 <= seat < spec.num_players:
            raise ValueError(f"--seat {text}: {spec.title} has seats 0..{spec.num_players - 1} "
                             f"({', '.join(spec.agents)})")
        return seat
    return spec.seat_of(text.strip())


def _command_line(game: str, seat: int, opponents: Sequence[str], seed: int, args: argparse.Namespace) -> str:
    from cardrl.games.registry import get_game

    parts = ["cardrl", "play", game, "--seed", str(seed), "--seat", str(seat), "--opponents", *opponents]
    for item in args.rule:
        parts += ["--rule", item]
    if args.bidding:
        parts.append("--bidding")
    deals = _deals(get_game(game), args)
    if deals is not None:
        parts += ["--deals", str(deals)]
    if args.tribute_decisions:
        parts.append("--tribute-decisions")
    if args.show != DEFAULT_SHOWN:
        parts += ["--show", str(args.show)]
    return " ".join(shlex.quote(p) for p in parts)


def build_session(args: argparse.Namespace) -> PlaySession:
    """A :class:`PlaySession` from parsed ``cardrl play`` arguments (ValueError naming what is wrong)."""
    from cardrl.eval.agents import build_agent, check_bids
    from cardrl.eval.protocols import bids
    from cardrl.games.registry import get_game
    from cardrl.zoo.catalog import default_agent

    game = args.game
    spec = get_game(game)
    notation_for(spec.name)
    seat = _seat(game, args.seat)
    options = _play_options(game, args)
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1_000_000))
    if seed < 0:
        raise ValueError(f"--seed must be a non-negative int, got {seed}")
    others = [s for s in range(spec.num_players) if s != seat]
    given = list(args.opponents) if args.opponents is not None else \
        [default_agent(spec.name, bidding=bids(spec.name, spec.full_options(options)))]
    specs = list(given)
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise ValueError(f"--opponents takes one spec for every other seat or one per other seat "
                         f"({len(others)}: seats {others}), got {len(specs)}")
    agents = {s: build_agent(sp, spec.name, options, seed=seed + s) for s, sp in zip(others, specs)}
    if bids(spec.name, spec.full_options(options)):
        for agent in agents.values():
            check_bids(agent, "the whole game (bidding) against you")
    command = _command_line(game, seat, given, seed, args)
    session = PlaySession(spec.name, seat, agents, seed, options, shown=args.show, command=command)
    if args.replay:
        _apply_replay(session, args.replay)
    return session


def _apply_replay(session: PlaySession, text: str) -> None:
    try:
        actions = [int(a) for a in text.replace(" ", "").split(",") if a]
    except ValueError:
        raise ValueError(f"--replay takes comma-separated action ids such as 12,45,27471, got {text!r}") from None
    for i, action in enumerate(actions):
        if session.over:
            raise ValueError(f"--replay: the game is over after {i} actions; {len(actions) - i} are left over")
        if action not in set(int(a) for a in session.game.legal_moves()):
            raise ValueError(f"--replay: action {i + 1} ({action}) is not legal there (a different seed or rule "
                             f"option?)")
        session.step(action)


def check_play(args: argparse.Namespace) -> None:
    """What ``cardrl play`` checks before the game starts: a ``--replay`` record file exists, else the session
    builds (seat, rule options, agents, replayed actions). ValueError / FileNotFoundError naming what is wrong."""
    if args.replay and is_record_path(args.replay):
        if not Path(args.replay).is_file():
            raise FileNotFoundError(f"--replay {args.replay}: no such game record file (docs/records.md)")
        return
    build_session(args)


def main_play(args: argparse.Namespace, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """``cardrl play``: 0 at the end of the game or when the person stops, 2 for bad options."""
    if args.replay and is_record_path(args.replay):
        return main_replay(args.game, args.replay, out)
    try:
        session = build_session(args)
    except (ValueError, FileNotFoundError, TypeError) as err:
        print(f"cardrl play: error: {err}", file=sys.stderr)
        return 2
    if session.events:
        print(f"Replayed {len(session.game.actions)} actions.", file=out or sys.stdout)
    return run_session(session, read, out)
