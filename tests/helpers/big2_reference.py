"""Test helper: an independent Big2 classifier written from docs/rules.md "Big2" and Luo & Tan's Table 13.

It reads a set of cards (card ids ``4 * rank + suit``) from first principles: nothing here comes from
``cardrl.games.big2.moves`` (no sequence list, no order key, no table), so that the move table and the
legal-move scan are checked against an implementation that shares none of their code.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

RANKS = "3456789TJQKA2"  # Big2 order, low to high
SUITS = "dchs"  # diamonds < clubs < hearts < spades
# The 10 straights: 5-card windows of the poker line with the ace at both ends; no window passes K-A-2.
_LINE = "A23456789TJQKA"
WINDOWS = [_LINE[i:i + 5] for i in range(10)]  # "A2345", "23456", ..., "TJQKA"
# Straight orders as written in docs/rules.md / the big2_moves docstring, lowest first.
STRAIGHT_ORDER = {
    "bigzero": ["34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA", "23456", "A2345"],
    "low": ["A2345", "23456", "34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA"],
}
FIVE_LEVEL = {"straight": 0, "flush": 1, "full_house": 2, "quads": 3, "straight_flush": 4}


def card(text: str) -> int:
    """``"Td"`` -> card id."""
    return 4 * RANKS.index(text[0]) + SUITS.index(text[1])


def cards_of(text: str) -> tuple[int, ...]:
    """``"3d4c"`` -> sorted card ids."""
    return tuple(sorted(card(text[i:i + 2]) for i in range(0, len(text), 2)))


def name_of(cards) -> str:
    """Sorted card ids -> move string (ascending card id)."""
    return "".join(RANKS[c // 4] + SUITS[c % 4] for c in sorted(cards)) or "pass"


def _window_of(ranks: set[str]) -> str | None:
    for w in WINDOWS:
        if set(w) == ranks:
            return w
    return None


def classify(cards, order: str = "bigzero") -> tuple[str, int, tuple] | None:
    """``(category, number of cards, order key)`` of a set of card ids, or ``None`` if it is no move.

    Keys compare only within the same number of cards; a follow must have a strictly greater key.
    """
    cards = tuple(sorted(cards))
    n = len(cards)
    ranks = [RANKS[c // 4] for c in cards]
    suits = [c % 4 for c in cards]
    top = max(cards)  # the highest card: rank first, then suit (ids are ordered that way)
    if n == 1:
        return ("solo", 1, (top,))
    if n in (2, 3):
        if len(set(ranks)) == 1:
            return ("pair" if n == 2 else "triple", n, (top,))
        return None
    if n != 5:
        return None
    counts = sorted(Counter(ranks).values())
    flush = len(set(suits)) == 1
    window = _window_of(set(ranks)) if len(set(ranks)) == 5 else None
    if window is not None:
        pos = STRAIGHT_ORDER[order].index(window)
        if order == "bigzero":
            tie = top  # highest card in Big2 order
        else:
            tie = next(c for c in cards if RANKS[c // 4] == window[-1])  # the sequence's top card
        cat = "straight_flush" if flush else "straight"
        return (cat, 5, (FIVE_LEVEL[cat], pos, tie % 4))
    if flush:
        desc = tuple(sorted((RANKS.index(r) for r in ranks), reverse=True))
        return ("flush", 5, (FIVE_LEVEL["flush"], desc, suits[0]))
    if counts == [2, 3]:
        triple = next(r for r, k in Counter(ranks).items() if k == 3)
        return ("full_house", 5, (FIVE_LEVEL["full_house"], RANKS.index(triple)))
    if counts == [1, 4]:
        quad = next(r for r, k in Counter(ranks).items() if k == 4)
        return ("quads", 5, (FIVE_LEVEL["quads"], RANKS.index(quad)))
    return None


def beats(move, last) -> bool:
    """Whether classified ``move`` may follow classified ``last`` (``None``: leading)."""
    if last is None:
        return True
    return move[1] == last[1] and move[2] > last[2]


def brute_force_legal(hand, last_cards, order: str = "bigzero", must_contain: int | None = None) -> set[str]:
    """Every legal move (as strings) of a hand: all its subsets of 1, 2, 3 and 5 cards classified here,
    those that beat ``last_cards`` (``None``: leading, pass then illegal; else pass is legal)."""
    last = None if last_cards is None else classify(last_cards, order)
    out = set() if last_cards is None else {"pass"}
    for n in (1, 2, 3, 5):
        for sub in combinations(sorted(hand), n):
            kind = classify(sub, order)
            if kind is not None and beats(kind, last) and (must_contain is None or must_contain in sub):
                out.add(name_of(sub))
    return out
