"""Reading what the person typed at ``cardrl play``'s prompt against the legal moves (what may be typed is in
:mod:`cardrl.play`): an action id, an ambiguity to resolve, a command, or a one-line error naming what is allowed.
Pure: no terminal, no state beyond the game and the numbered list on screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from cardrl.games.notation import PASS_WORDS, GameNotation, rank_vectors

__all__ = ["Parsed", "parse_input", "display_order", "QUIT_WORDS", "HELP_WORDS", "ALL_WORDS"]

QUIT_WORDS = ("quit", "exit", ":q")
HELP_WORDS = ("?", "help", "h")
ALL_WORDS = ("all", "list", "moves")


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
    """Read ``text`` typed by the player to move in ``game`` against its legal moves (:mod:`cardrl.play`).

    ``items`` is the numbered list as shown (default :func:`display_order` of ``game.legal_moves()``). Never
    raises on any string: a line that is no legal move gives ``Parsed("error", message=...)``. The readings are
    tried in order: a command, the game's own reading (DouDiZhu's bids), pass, ``#N``, and last cards or a name.
    """
    legal = np.asarray(game.legal_moves(), dtype=np.int64)
    items = display_order(notation, game, legal) if items is None else [int(a) for a in items]
    body = " ".join((text if isinstance(text, str) else "").strip().split())
    low = body.lower()
    for reading in (_command(notation, game, body, low, items), _special(notation, game, body, legal),
                    _pass_or_number(notation, game, body, low, items)):
        if reading is not None:
            return reading
    return _cards(notation, game, body, low, items)


def _command(notation: GameNotation, game: Any, body: str, low: str, items: Sequence[int]) -> Parsed | None:
    """``quit``, ``help``, ``all [TEXT]`` or an empty line; None for anything else."""
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
    return None


def _special(notation: GameNotation, game: Any, body: str, legal: np.ndarray) -> Parsed | None:
    """The game's own reading (:meth:`GameNotation.special_input`), if it has one for ``body``."""
    try:
        special = notation.special_input(game, body, legal)
    except Exception as err:  # a notation bug must not end the game
        special = f"cannot read {body!r}: {err}"
    if isinstance(special, str):
        return Parsed("error", message=special)
    return None if special is None else Parsed("move", action=int(special))


def _pass_or_number(notation: GameNotation, game: Any, body: str, low: str, items: Sequence[int]) -> Parsed | None:
    """``pass`` (the pass among the items, or why there is none) or ``#N``; None for anything else."""
    if low in PASS_WORDS:
        passes = [a for a in items[:1] + items[-1:] if notation.is_pass(game, a)]
        if passes:
            return Parsed("move", action=passes[0])
        return Parsed("error", message=f"you may not pass: {notation.no_pass_reason(game)} (type 'all' to see the "
                                       f"legal moves)")
    if body.startswith("#"):
        return _pick(notation, game, items, body[1:].strip())
    return None


def _read_cards(notation: GameNotation, body: str) -> tuple[np.ndarray | None, np.ndarray]:
    """(the typed cards with suits, or None when typed by rank; the counts per rank); ValueError if unreadable."""
    if notation.suited and notation.has_suits(body):
        counts = notation.parse_cards(body)
        return counts, rank_vectors(counts)[0]
    return None, notation.parse_ranks(body)


def _cards(notation: GameNotation, game: Any, body: str, low: str, items: Sequence[int]) -> Parsed:
    """Typed cards matched against the items (a move, an ambiguity, or why none fits), else a bare number or a
    move's name."""
    try:
        typed_counts, typed_ranks = _read_cards(notation, body)
    except ValueError as err:
        return _not_cards(notation, game, body, low, items, err)
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
    return _no_move(notation, game, body, items, typed_counts, typed_ranks)


def _not_cards(notation: GameNotation, game: Any, body: str, low: str, items: Sequence[int],
               err: ValueError) -> Parsed:
    """Text that does not read as cards: a bare move number, a move's name, or an error saying what may be typed."""
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


def _no_move(notation: GameNotation, game: Any, body: str, items: Sequence[int], typed_counts: np.ndarray | None,
             typed_ranks: np.ndarray) -> Parsed:
    """Readable cards that are no legal move: the game's reason (and a hint when a move number was meant)."""
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
