"""``cardrl play GAME``: a person plays one deal (or, in GuanDan, a few deals of a match) against agents in the
terminal.

The rules are those of docs/rules.md; the opponents are any agent spec of :func:`cardrl.eval.agents.build_agent`
(``rule`` by default). The module has two layers:

* a pure core with no terminal in it: :func:`parse_input` reads what the person typed against the legal moves
  (an action id, an ambiguity to resolve, a command, or a one-line error naming what is allowed), and
  :class:`PlaySession` deals, lets the agents move, formats the screen for the person's seat (their hand sorted,
  the move to beat and who played it, every player's cards left, the recent moves, the numbered legal moves), and
  the result and replay line at the end;
* a thin loop, :func:`run_session`, that reads lines with ``input()`` (or any callable) and prints to a stream;
  :func:`main_play` is the CLI entry point.

What can be typed (case-insensitive; ``help`` on the prompt says the same):

* cards in the game's notation, in any order, with or without spaces: DouDiZhu ranks ``3456789TJQKA2`` and the
  jokers ``B`` / ``R`` (``33344``, ``TJQKA``, ``BR``; ``10`` for ``T``); Big2 and GuanDan cards as rank + suit
  (``3d 4c 5h 6s 7d``, ``10h``; GuanDan jokers ``BJ`` / ``RJ``), or ranks only (``33344``) when only the ranks
  matter: if several legal moves fit, they are listed and one is picked by number;
* ``pass`` or ``p``; ``#N`` (or a bare ``N`` that does not read as cards) picks move ``N`` of the list;
* a move's name without its cards (GuanDan ``straight 2-6``, ``bomb 7``; DouDiZhu ``bid 2``): GuanDan's wild
  cards can make the same cards two moves (a straight 2-6 and 3-7), which are listed by name to be told apart;
* ``all`` (or ``all TEXT``: the moves whose text contains TEXT) lists every legal move, ``help`` / ``?`` the help,
  ``quit`` / ``exit`` stop, and so does a lowercase ``q`` unless a queen could be meant (then it asks; a capital ``Q``
  is the queen); end of input (ctrl-D) and ctrl-C stop too.

Stopping early prints a ``--replay`` line that resumes the deal where it was left; the end of a deal prints the
result and the same kind of line, which replays the whole deal (the engine's ``replay(seed, actions, **options)``
rebuilds it exactly, docs/architecture.md).

GuanDan plays ``--deals 1`` by default: the first deal of a match (at level 2, no tribute). ``--deals N`` plays
``N`` deals of a match (``max_deals=N``), so from the second deal on there is tribute and return; with
``--tribute-decisions`` the person chooses their own tribute and return cards. ``--deals 0`` plays a whole match.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TextIO

import numpy as np

from cardrl.agents.base import agent_view
from cardrl.games.notation import PASS_WORDS, GameNotation, notation_of, rank_vectors

__all__ = ["Parsed", "GameNotation", "notation_for", "playable_games", "parse_input", "PlaySession", "run_session",
           "add_play_arguments", "main_play", "build_session", "DEFAULT_SHOWN"]

DEFAULT_SHOWN = 30  # legal moves listed before "type all to see the rest"
QUIT_WORDS = ("quit", "exit", ":q")
HELP_WORDS = ("?", "help", "h")
ALL_WORDS = ("all", "list", "moves")


# ---------------------------------------------------------------------------------------------------------------
# notation: how each game writes and reads cards (the notation module beside its engine)
# ---------------------------------------------------------------------------------------------------------------
def playable_games() -> list[str]:
    """The registered games that have a notation (:func:`~cardrl.games.notation.notation_of`), so that a person can
    play them."""
    from cardrl.games.registry import game_names, get_game

    return [name for name in game_names() if notation_of(get_game(name).engine_class) is not None]


def notation_for(game: str) -> GameNotation:
    """The :class:`GameNotation` of a registered game (ValueError naming the games that can be played)."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    notation = notation_of(spec.engine_class)
    if notation is None:
        raise ValueError(f"{spec.title} cannot be played in the terminal: it has no notation (a notation module "
                         f"beside its engine); cardrl play plays {', '.join(playable_games()) or 'no game'}")
    return notation


# ---------------------------------------------------------------------------------------------------------------
# reading what was typed
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Parsed:
    """What a typed line means.

    ``kind``: ``"move"`` (``action`` is a legal id), ``"ambiguous"`` (``candidates`` are the legal ids it fits;
    ``message`` lists them by number), ``"command"`` (``command`` is ``quit``, ``help``, ``all`` or ``empty``;
    ``argument`` the filter of ``all TEXT``) or ``"error"`` (``message`` says what is wrong and what is allowed).
    """

    kind: str
    action: int | None = None
    message: str = ""
    command: str | None = None
    argument: str = ""
    candidates: tuple[int, ...] = field(default=())


def display_order(notation: GameNotation, game: Any, legal: Sequence[int]) -> list[int]:
    """The legal ids in the order they are numbered on screen: a pass (:meth:`GameNotation.is_pass`) first, then the
    engine's order."""
    legal = [int(a) for a in legal]
    ends = {legal[0], legal[-1]} if legal else set()  # every engine puts its pass first or last among the ids
    first = [a for a in legal if a in ends and notation.is_pass(game, a)]
    return first + [a for a in legal if a not in first]


def _numbered(notation: GameNotation, game: Any, items: Sequence[int], ids: Sequence[int]) -> str:
    pos = {a: i + 1 for i, a in enumerate(items)}
    return ", ".join(f"#{pos[a]} {notation.move_text(game, a)}" for a in ids)


def parse_input(notation: GameNotation, game: Any, text: str, items: Sequence[int] | None = None) -> Parsed:
    """Read ``text`` typed by the player to move in ``game`` against its legal moves (module docstring).

    ``items`` is the numbered list as shown (default :func:`display_order` of ``game.legal_moves()``). Never
    raises on any string: a line that is no legal move gives ``Parsed("error", message=...)``.
    """
    legal = np.asarray(game.legal_moves(), dtype=np.int64)
    items = display_order(notation, game, legal) if items is None else [int(a) for a in items]
    raw = text if isinstance(text, str) else ""
    body = " ".join(raw.strip().split())
    low = body.lower()
    if not body:
        return Parsed("command", command="empty")
    if low in QUIT_WORDS:
        return Parsed("command", command="quit")
    if body == "q":  # quit, unless a queen could be meant: then ask (a capital Q is always the queen)
        queen = parse_input(notation, game, "Q", items)
        if queen.kind in ("move", "ambiguous"):
            return Parsed("error", message="'q' could mean quit or a queen: type quit to stop, or a capital Q for "
                                           "the queen")
        return Parsed("command", command="quit")
    if low in HELP_WORDS:
        return Parsed("command", command="help")
    first, _, rest = low.partition(" ")
    if first in ALL_WORDS:
        return Parsed("command", command="all", argument=rest.strip())
    try:
        special = notation.special_input(game, body, legal)
    except Exception as err:  # a notation bug must not end the game
        special = f"cannot read {body!r}: {err}"
    if isinstance(special, str):
        return Parsed("error", message=special)
    if special is not None:
        return Parsed("move", action=int(special))
    if low in PASS_WORDS:
        passes = [a for a in items[:1] + items[-1:] if notation.is_pass(game, a)]
        if passes:
            return Parsed("move", action=passes[0])
        return Parsed("error", message=f"you may not pass: {notation.no_pass_reason(game)} (type 'all' to see the "
                                       f"legal moves)")
    number = body[1:] if body.startswith("#") else None
    if number is not None:
        return _pick(notation, game, items, number.strip())
    # cards
    typed_counts: np.ndarray | None = None
    try:
        if notation.suited and notation.has_suits(body):
            typed_counts = notation.parse_cards(body)
            typed_ranks = rank_vectors(typed_counts)[0]
        else:
            typed_ranks = notation.parse_ranks(body)
    except ValueError as err:
        if body.isdigit():
            return _pick(notation, game, items, body)
        named = _by_name(notation, game, items, low)
        if named is not None:
            return named
        if low.split()[0] in notation.move_words:  # a move's name that is no legal move now
            return Parsed("error", message=f"no legal move is called {body!r} (type 'all {low.split()[0]}' to list "
                                           f"the moves by name, or help)")
        return Parsed("error", message=f"cannot read {body!r}: {err}; or type pass, #N for a move of the list, "
                                       f"all, help or quit")
    if not typed_ranks.any():
        return Parsed("error", message=f"{body!r} names no cards: {notation.card_hint}")
    cards = np.asarray(game.move_cards(items), dtype=np.int64)
    if typed_counts is not None:
        fits = (cards == typed_counts).all(axis=1)
    else:
        fits = (rank_vectors(cards) == typed_ranks).all(axis=1)
    matches = [a for a, ok in zip(items, fits) if ok]
    if len(matches) == 1:
        return Parsed("move", action=matches[0])
    if matches:
        return Parsed("ambiguous", candidates=tuple(matches),
                      message=f"{body!r} fits {len(matches)} legal moves; type the number of the one you mean: "
                              + _numbered(notation, game, items, matches))
    if body.isdigit() and body.lstrip("0") and int(body) <= len(items):
        hint = f" (to pick move #{int(body)} of the list type #{int(body)})"
    else:
        hint = ""
    try:
        seat = int(game.current_player)
        reason = notation.illegal_reason(game, seat, typed_counts, typed_ranks, body)
    except Exception as err:  # pragma: no cover (a reason is a courtesy; never let it crash the prompt)
        reason = f"{body} is not a legal move now ({err})"
    return Parsed("error", message=reason + hint)


def _pick(notation: GameNotation, game: Any, items: Sequence[int], number: str) -> Parsed:
    if not number.isdigit() or not 1 <= int(number) <= len(items):
        return Parsed("error", message=f"there is no move #{number}: the legal moves are numbered 1..{len(items)} "
                                       f"(type 'all' to list them)")
    return Parsed("move", action=items[int(number) - 1])


_MAX_LISTED = 12  # candidates named in an ambiguity message


def _by_name(notation: GameNotation, game: Any, items: Sequence[int], low: str) -> Parsed | None:
    """Moves whose name (without cards) or whole text equals ``low`` (GuanDan ``straight 2-6``, ``bid 2``)."""
    names = {a: notation.move_name(game, a).lower() for a in items}
    matches = [a for a in items if low in (names[a], notation.move_text(game, a).lower())]
    if len(matches) == 1:
        return Parsed("move", action=matches[0])
    exact = bool(matches)
    if not matches:  # a kind of move ("straight", "bomb", "three-with-two 9"): list them, never play one
        matches = [a for a in items if names[a].startswith(low + " ")]
    if not matches:
        return None
    listed = _numbered(notation, game, items, matches[:_MAX_LISTED])
    more = f", and {len(matches) - _MAX_LISTED} more ('all {low}' lists them)" if len(matches) > _MAX_LISTED else ""
    return Parsed("ambiguous", candidates=tuple(matches),
                  message=f"{low!r} {'names' if exact else 'fits'} {len(matches)} legal move"
                          f"{'s' if len(matches) > 1 else ''}; type the number of the one you mean: {listed}{more}")


# ---------------------------------------------------------------------------------------------------------------
# the session: a deal against agents, seen from one seat
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class _Event:
    deal: int
    seat: int
    text: str


class PlaySession:
    """One game of ``game`` (a deal; a GuanDan match of ``max_deals`` deals) with a person at ``seat`` and agents in
    the other seats. No terminal: :meth:`advance` lets the agents move until it is the person's turn, :meth:`screen`
    is what they see, :meth:`parse` reads a line, :meth:`play` applies their move, :meth:`result_text` and
    :meth:`replay_line` end it.
    """

    def __init__(self, game: str, seat: int, agents: dict[int, Any], seed: int, options: dict[str, Any],
                 shown: int = DEFAULT_SHOWN, command: str = ""):
        from cardrl.games.registry import get_game

        self.spec = get_game(game)
        self.notation = notation_for(self.spec.name)
        self.seat = int(seat)
        self.agents = agents
        self.seed = int(seed)
        self.options = dict(options)
        self.shown = int(shown)
        self.command = command
        self.game = self.spec.make_engine(**self.options).reset(self.seed)
        for agent in {id(a): a for a in agents.values()}.values():
            agent.reset(self.seed)
        self.events: list[_Event] = []
        self._deal = self._deal_index()

    # ---- state ------------------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.game.is_over)

    @property
    def my_turn(self) -> bool:
        return not self.over and int(self.game.current_player) == self.seat

    def _deal_index(self) -> int:
        return self.notation.deal_index(self.game)

    def items(self) -> list[int]:
        """The person's legal moves in their on-screen order (empty when it is not their turn)."""
        return display_order(self.notation, self.game, self.game.legal_moves()) if self.my_turn else []

    # ---- moving -----------------------------------------------------------------------------------------------
    def _label(self, seat: int) -> str:
        name = self.notation.seat_label(self.game, seat)
        if seat == self.seat:
            return f"you ({name})"
        return f"{name} (partner)" if seat == self.notation.partner(self.seat) else name

    def step(self, action: int) -> list[str]:
        """Apply ``action`` for the player to move (who must be allowed it); returns the lines that tell what
        happened (the move, and the game's own lines: a player going out, a new deal)."""
        game, n = self.game, self.notation
        seat = int(game.current_player)
        text = n.shown_move_text(game, action, seat, self.seat)
        label_before = self._label(seat)
        left_before = np.asarray(game.cards_left()).copy()
        game.step(int(action))
        deal = self._deal_index()
        lines = [f"  {label_before}: {text}"]
        self.events.append(_Event(self._deal, seat, text))
        if deal == self._deal:
            lines += n.step_lines(game, seat, label_before, left_before)
        else:
            lines += n.deal_change_lines(game, self.seat)
            self._deal = deal
        return lines

    def advance(self) -> list[str]:
        """Let the agents move until it is the person's turn or the game is over; the lines of what happened."""
        lines: list[str] = []
        while not self.over and int(self.game.current_player) != self.seat:
            seat = int(self.game.current_player)
            agent = self.agents[seat]
            action = agent.act(agent_view(agent, self.game, seat), self.game.legal_moves())
            lines += self.step(int(action))
        return lines

    def parse(self, text: str) -> Parsed:
        """:func:`parse_input` for the person's current decision."""
        return parse_input(self.notation, self.game, text, self.items())

    def play(self, action: int) -> list[str]:
        """The person's move (a legal id of :meth:`items`)."""
        if not self.my_turn:
            raise RuntimeError("it is not your turn")
        return self.step(action)

    # ---- what is shown ----------------------------------------------------------------------------------------
    def header(self) -> str:
        names = ", ".join(f"{self.notation.seat_label(self.game, s)}: {getattr(a, 'name', 'agent')}"
                          for s, a in sorted(self.agents.items()))
        label = self.notation.seat_label(self.game, self.seat)
        partner = self.notation.partner(self.seat)
        about = (f" ({label})" if label != f"seat {self.seat}" else "") + (
            f", partner seat {partner}" if partner is not None else "")
        return (f"cardrl play {self.spec.name}: {self.spec.title}, deal seed {self.seed}; you are seat {self.seat}"
                f"{about}; the others: {names}. Type help for help.")

    def screen(self) -> str:
        """The table as the person sees it when it is their turn."""
        game, n = self.game, self.notation
        lines = ["", "=" * 72]
        lines += n.status_lines(game, self.seat)
        left = np.asarray(game.cards_left())
        lines.append("Cards left: " + " | ".join(f"{self._label(s)} {int(left[s])}" for s in range(len(left))))
        lines += self._recent_lines(len(left))
        beat = n.to_beat(game)
        if beat is not None:
            lines.append(f"To beat: {beat[0]}  (played by {self._label(beat[1])})")
        else:
            lines += n.lead_lines(game)
        hand = np.asarray(game.cards_held()[self.seat])
        lines.append(f"Your hand ({int(hand.sum())}): {n.cards_text(hand, game)}")
        lines.append(self.moves_text())
        lines.append(f"Type {n.prompt_hint(game)}.")
        return "\n".join(lines)

    def _recent_lines(self, players: int) -> list[str]:
        """This deal's moves since the person's previous move (at most two rounds), on one line when short."""
        deal = [e for e in self.events if e.deal == self._deal]
        mine = [i for i, e in enumerate(deal) if e.seat == self.seat]
        recent = deal[mine[-1]:] if mine else deal
        recent = recent[-2 * players:]
        if not recent:
            return []
        cells = [f"{self._label(e.seat)}: {e.text}" for e in recent]
        line = "Recent: " + " | ".join(cells)
        return [line] if len(line) <= 110 else ["Recent:"] + ["  " + c for c in cells]

    def moves_text(self, limit: int | None = None, contains: str = "") -> str:
        """The numbered legal moves, the first ``limit`` (default the session's ``shown``) of those whose text
        contains ``contains``; ``limit=0`` lists them all."""
        items = self.items()
        limit = self.shown if limit is None else limit
        numbered = [(i + 1, self.notation.move_text(self.game, a)) for i, a in enumerate(items)]
        if contains:
            numbered = [(i, t) for i, t in numbered if contains.lower() in t.lower()]
        total = len(numbered)
        if limit and total > limit:
            numbered = numbered[:limit]
        cells = [f"#{i} {t}" for i, t in numbered]
        width = max((len(c) for c in cells), default=0) + 2
        per_row = max(1, 96 // max(width, 1))
        rows = ["  " + "".join(c.ljust(width) for c in cells[r:r + per_row]).rstrip()
                for r in range(0, len(cells), per_row)]
        what = f"Legal moves ({len(items)})" if not contains else f"Legal moves containing {contains!r} ({total})"
        out = [what + ":"] + rows
        if len(numbered) < total:
            out.append(f"  ... {total - len(numbered)} more: type 'all' to list every move, 'all TEXT' to list those "
                       f"containing TEXT, or type the cards")
        if not total:
            out.append("  (none)")
        return "\n".join(out)

    def prompt(self) -> str:
        return "Your move: "

    def help_text(self) -> str:
        n = self.notation
        return "\n".join([
            f"How to move ({n.title}):",
            f"  cards       {n.card_hint}; any order, spaces optional, any case",
            "  pass, p     pass (when following)",
            "  #N          play move N of the numbered list (a bare N works when it does not read as cards)",
            "  NAME        a move's name, e.g. 'straight 2-6' or 'bomb 7' (GuanDan), 'bid 2' (DouDiZhu bidding)",
            "  all [TEXT]  list every legal move (or those containing TEXT)",
            "  help, ?     this help;  quit, exit: stop (a replay line resumes the deal later); Q (capital) is a queen",
            "  When typed cards fit several moves (suits, or GuanDan's wild card used two ways), they are listed:",
            "  type the number of the one you mean.",
        ])

    # ---- the end ----------------------------------------------------------------------------------------------
    def result_text(self) -> str:
        game = self.game
        lines = ["", "=" * 72, "Game over." if self.over else "Stopped before the end."]
        if self.over:
            lines += self.notation.result_lines(game, self.seat)
            hands = np.asarray(game.cards_held())
            shown = [f"{self._label(s)}: {self.notation.cards_text(hands[s], game)}" for s in range(len(hands))
                     if hands[s].any()]
            if shown:
                lines.append("Cards left in hand: " + " | ".join(shown))
        return "\n".join(lines)

    def replay_line(self) -> str:
        """A command that replays this game's actions (``--replay``): the whole deal at the end, or up to now."""
        ids = ",".join(str(a) for a in self.game.actions)
        return f"{self.command} --replay {ids}" if ids else self.command

    def replay_note(self) -> str:
        return (f"Replay: {self.replay_line()}\n(deal seed {self.seed}, {len(self.game.actions)} action ids; "
                f"{self.spec.engine_class.__name__}.replay(seed, actions, **options) rebuilds it"
                + (f" with options {self.options}" if self.options else "") + ")")


# ---------------------------------------------------------------------------------------------------------------
# the terminal loop
# ---------------------------------------------------------------------------------------------------------------
def run_session(session: PlaySession, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Play ``session`` with lines from ``read(prompt)`` (``input`` by default) printed to ``out``: 0 when the game
    ends or the person stops (quit, end of input), 130 on ctrl-C, 1 if an agent fails; every way out but the end
    prints a replay line that resumes the game."""
    out = sys.stdout if out is None else out
    try:
        return _loop(session, read, out)
    except KeyboardInterrupt:
        print("\nInterrupted: leaving the game.", file=out, flush=True)
        print(session.replay_note(), file=out, flush=True)
        return 130


def _loop(session: PlaySession, read: Callable[[str], str], out: TextIO) -> int:
    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(session.header())
    while True:
        try:
            for line in session.advance():
                say(line)
        except Exception as err:  # an agent (e.g. a checkpoint) failed: end cleanly, keep the deal
            say(f"cardrl play: an opponent failed: {type(err).__name__}: {err}")
            say(session.replay_note())
            return 1
        if session.over:
            break
        say(session.screen())
        while True:
            try:
                text = read(session.prompt())
            except EOFError:
                say("\nEnd of input: leaving the game.")
                say(session.replay_note())
                return 0
            parsed = session.parse(text)
            if parsed.kind == "move":
                for line in session.play(parsed.action):
                    say(line)
                break
            if parsed.command == "quit":
                say("You stopped the game.")
                say(session.replay_note())
                return 0
            if parsed.command == "help":
                say(session.help_text())
            elif parsed.command == "all":
                say(session.moves_text(limit=0, contains=parsed.argument))
            elif parsed.command == "empty":
                say(f"Type a move: {session.notation.prompt_hint(session.game)}")
            else:
                say(("Ambiguous: " if parsed.kind == "ambiguous" else "Not a legal move: ") + parsed.message)
    say(session.result_text())
    say(session.replay_note())
    return 0


# ---------------------------------------------------------------------------------------------------------------
# the CLI
# ---------------------------------------------------------------------------------------------------------------
def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardrl play GAME`` (the game argument is the caller's)."""
    from cardrl.args import agent_spec_arg
    from cardrl.eval.agents import spec_help

    parser.add_argument("--seat", default="0",
                        help="your seat: a number (0 = DouDiZhu's landlord without bidding) or an agent name such as "
                             "landlord_up, south, player_1 (default: 0)")
    parser.add_argument("--opponents", nargs="+", default=["rule"], metavar="SPEC", type=agent_spec_arg,
                        help=f"agent spec of every other seat, or one spec per other seat in seat order (default: "
                             f"rule); specs: {spec_help()}")
    parser.add_argument("--seed", type=int, default=None, help="the deal's seed (default: a random one, shown)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of the game (docs/rules.md), e.g. bidding=true (DouDiZhu), "
                             "straight_order=low (Big2); repeat for several")
    parser.add_argument("--deals", type=int, default=None, metavar="N",
                        help="games played as a match of deals (the max_deals rule option, GuanDan): deals of the "
                             "match to play (default 1; 2 or more include tribute and return; 0 plays a whole match)")
    parser.add_argument("--tribute-decisions", action="store_true",
                        help="games with tribute (the tribute_decisions rule option, GuanDan): you choose your own "
                             "tribute and return cards (default: DanZero+'s heuristic chooses them)")
    parser.add_argument("--show", type=int, default=DEFAULT_SHOWN,
                        help=f"legal moves listed before 'type all' (default {DEFAULT_SHOWN}; 0: all)")
    parser.add_argument("--replay", default=None, metavar="IDS",
                        help="comma-separated action ids to apply first (the line printed at the end or on quit): "
                             "replays a finished deal or resumes a stopped one")


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
    from cardrl.eval.agents import build_agent
    from cardrl.games.registry import get_game

    game = args.game
    spec = get_game(game)
    notation_for(spec.name)
    seat = _seat(game, args.seat)
    options = _play_options(game, args)
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1_000_000))
    if seed < 0:
        raise ValueError(f"--seed must be a non-negative int, got {seed}")
    others = [s for s in range(spec.num_players) if s != seat]
    specs = list(args.opponents)
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise ValueError(f"--opponents takes one spec for every other seat or one per other seat "
                         f"({len(others)}: seats {others}), got {len(specs)}")
    agents = {s: build_agent(sp, spec.name, options, seed=seed + s) for s, sp in zip(others, specs)}
    command = _command_line(game, seat, list(args.opponents), seed, args)
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


def main_play(args: argparse.Namespace, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """``cardrl play``: 0 at the end of the game or when the person stops, 2 for bad options."""
    try:
        session = build_session(args)
    except (ValueError, FileNotFoundError, TypeError) as err:
        print(f"cardrl play: error: {err}", file=sys.stderr)
        return 2
    if session.events:
        print(f"Replayed {len(session.game.actions)} actions.", file=out or sys.stdout)
    return run_session(session, read, out)
