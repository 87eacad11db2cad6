"""The Play page's cards: a hand shown card by card, each legal move as the cards it uses, and a person's selection of
cards read as a move (docs/web.md, "Play").

A card is named by its *token*, the game's notation of that one card (``5h``, ``5h*`` for GuanDan's wild heart,
``3`` or ``B`` in DouDiZhu, which has no suits): two cards with the same token are the same to every move, so a
selection is a multiset of tokens and a move is the legal move whose cards are exactly that multiset. Nothing here
knows a game: the notation (:mod:`cardrl.games.notation`) and the engine's ``move_cards`` say it all."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from cardrl.games.notation import GameNotation

__all__ = ["card_tokens", "hand_cards", "move_cards_json", "Selection", "read_selection", "web_message",
           "MAX_LISTED"]

NUM_KINDS = 54
MAX_LISTED = 12  # legal moves named with a refused selection


def _card_order(notation: GameNotation, game: Any) -> tuple[np.ndarray, np.ndarray]:
    """The 54 card kinds in the game's order (lowest first) and the token of each, in that order."""
    order = np.asarray(sorted(range(NUM_KINDS), key=lambda k: notation.card_sort_key(game, k)))
    tokens = np.empty(NUM_KINDS, dtype=object)
    for i, kind in enumerate(order):
        one = np.zeros(NUM_KINDS, dtype=np.int64)
        one[kind] = 1
        tokens[i] = notation.cards_text(one, game)
    return order, tokens


def card_tokens(notation: GameNotation, game: Any, counts: np.ndarray) -> list[str]:
    """The cards of ``counts`` (54 card kinds) as tokens, in the game's order."""
    order, tokens = _card_order(notation, game)
    return list(np.repeat(tokens, np.asarray(counts, dtype=np.int64)[order]))


def hand_cards(notation: GameNotation, game: Any, seat: int) -> list[dict[str, Any]]:
    """``seat``'s hand card by card, lowest first: each card's ``token`` and ``marks`` (``wild``, ``level``)."""
    order, tokens = _card_order(notation, game)
    held = np.asarray(game.cards_held()[seat], dtype=np.int64)[order]
    return [{"token": tokens[i], "marks": list(notation.card_marks(game, int(order[i])))}
            for i in np.repeat(np.arange(NUM_KINDS), held)]


def move_cards_json(notation: GameNotation, game: Any, legal: Sequence[int]) -> list[list[str]]:
    """The tokens of the cards each legal move uses (empty for a pass or a bid), in the game's order."""
    if not len(legal):
        return []
    order, tokens = _card_order(notation, game)
    cards = np.asarray(game.move_cards(np.asarray(legal, dtype=np.int64)), dtype=np.int64)[:, order]
    rows, cols = cards.nonzero()  # row by row, each row's cards in the game's order (GuanDan leads with 2,000+ moves)
    copies = cards[rows, cols]
    flat = tokens[np.repeat(cols, copies)].tolist()
    ends = np.cumsum(cards.sum(axis=1))
    return [flat[start:end] for start, end in zip(np.concatenate([[0], ends[:-1]]), ends)]


@dataclass(frozen=True)
class Selection:
    """What a selection of cards is: ``action`` (the one legal move of exactly those cards), or ``choices`` (the
    legal moves of exactly those cards, when several are: a GuanDan wild card standing for different ranks), or
    neither, with ``using`` (the legal moves that use every selected card, at most :data:`MAX_LISTED`)."""

    action: int | None = None
    choices: tuple[int, ...] = ()
    using: tuple[int, ...] = field(default=())


def read_selection(notation: GameNotation, game: Any, tokens: Sequence[str], legal: Sequence[int]) -> Selection:
    """The selected cards ``tokens`` against the ``legal`` moves (in the order the page lists them)."""
    chosen = Counter(tokens)
    moves = move_cards_json(notation, game, legal)
    exact = tuple(int(a) for a, cards in zip(legal, moves) if Counter(cards) == chosen)
    if len(exact) == 1:
        return Selection(action=exact[0])
    if exact:
        return Selection(choices=exact)
    using = sorted((len(cards), i, int(a)) for i, (a, cards) in enumerate(zip(legal, moves))
                   if not chosen - Counter(cards))  # the smallest moves first
    return Selection(using=tuple(a for _, _, a in using[:MAX_LISTED]))


# The terminal's own words in a notation's messages (its 'all', 'help' and '#N' commands); the page has buttons.
_TERMINAL_ASIDES = (re.compile(r"\s*\((?:type|see help, or) '?all[^)]*\)"), re.compile(r"\s*\('all [^)]*\)"),
                    re.compile(r";? or type pass, #N for a move of the list, all, help or quit"))


def web_message(message: str) -> str:
    """A message of the terminal's reader (:mod:`cardrl.play.input`) as the Play page says it: without the asides
    that name the terminal's commands."""
    for aside in _TERMINAL_ASIDES:
        message = aside.sub("", message)
    return message
