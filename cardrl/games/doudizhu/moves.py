"""DouDiZhu move table (docs/rules.md "Move table"; Luo & Tan 2024, Appendix A, Table 12).

Two kicker conventions:

* ``kickers="douzero"`` (default): DouZero's table, 27,472 moves, identical entry by entry to RLCard's
  ``action_space.txt`` (the same entries; our order groups moves by main part). Kickers may repeat a rank
  (333444+55), never include both jokers, never a bomb, and never a trio adjacent to the plane
  (333444555+666 is the plane 333444555666). DouZero's own live generator is looser (it also emits both
  jokers, a bomb or an adjacent trio as kickers); its published move list, which we follow, is not.
* ``kickers="distinct"``: Luo & Tan's Table 12, 13,551 moves: kicker ranks all distinct and outside the main
  ranks, the two jokers allowed together (plane+solos 8,044, bomb+2 solos 1,183).

Ranks are indices 0..14 for ``3 4 5 6 7 8 9 T J Q K A 2 B R`` (B, R: black and red joker).
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

import numpy as np

from cardrl.cards import NUM_RANKS_WITH_JOKERS, rank_counts_to_string, rank_counts_to_vector, string_to_rank_counts
from cardrl.games.move_table import MoveTable, build_move_table

KICKER_RULES = ("douzero", "distinct")
BLACK, RED = 13, 14
TWO = 12
CHAIN_TOP = 11  # chains run 3..A


class Category(IntEnum):
    """DouDiZhu move categories, in table order (pass is last in the table)."""

    PASS = 0
    SOLO = 1
    PAIR = 2
    TRIO = 3
    TRIO_SOLO = 4
    TRIO_PAIR = 5
    CHAIN = 6
    PAIR_CHAIN = 7
    PLANE = 8
    PLANE_SOLOS = 9
    PLANE_PAIRS = 10
    BOMB_SOLOS = 11
    BOMB_PAIRS = 12
    BOMB = 13
    ROCKET = 14


# (category, width per rank, minimum length, maximum length) of the chain categories.
_CHAINS = ((Category.CHAIN, 1, 5, 12), (Category.PAIR_CHAIN, 2, 3, 10), (Category.PLANE, 3, 2, 6))


def _counts(pairs) -> np.ndarray:
    c = np.zeros(NUM_RANKS_WITH_JOKERS, dtype=np.int8)
    for r, n in pairs:
        c[r] += n
    return c


def _solo_kickers(excluded: set[int], n: int, rule: str, plane: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Kicker rank tuples for ``n`` solos that avoid the ranks in ``excluded``."""
    kinds = [r for r in range(NUM_RANKS_WITH_JOKERS) if r not in excluded]
    if rule == "distinct":
        return list(combinations(kinds, n))
    adjacent = {plane[0] - 1, plane[-1] + 1} & set(range(CHAIN_TOP + 1)) if plane else set()
    out = []
    for ks in combinations_with_replacement(kinds, n):
        if BLACK in ks and RED in ks:
            continue
        if ks.count(BLACK) > 1 or ks.count(RED) > 1:
            continue
        if any(ks.count(r) >= 4 for r in set(ks)):
            continue
        if any(ks.count(r) == 3 for r in adjacent):
            continue
        out.append(ks)
    return out


def _enumerate(rule: str):
    moves = []

    def add(cat: Category, length: int, rank: int, main: np.ndarray, kick: np.ndarray | None = None):
        total = main if kick is None else main + kick
        moves.append((int(cat), length, rank, rank_counts_to_vector(total),
                      rank_counts_to_vector(main), rank_counts_to_string(total)))

    for r in range(NUM_RANKS_WITH_JOKERS):
        add(Category.SOLO, 1, r, _counts([(r, 1)]))
    for width, cat in ((2, Category.PAIR), (3, Category.TRIO)):
        for r in range(13):
            add(cat, 1, r, _counts([(r, width)]))
    for r in range(13):
        for k in range(NUM_RANKS_WITH_JOKERS):
            if k != r:
                add(Category.TRIO_SOLO, 1, r, _counts([(r, 3)]), _counts([(k, 1)]))
    for r in range(13):
        for k in range(13):
            if k != r:
                add(Category.TRIO_PAIR, 1, r, _counts([(r, 3)]), _counts([(k, 2)]))
    for cat, width, lo, hi in _CHAINS:
        for length in range(lo, hi + 1):
            for start in range(0, CHAIN_TOP - length + 2):
                add(cat, length, start, _counts([(r, width) for r in range(start, start + length)]))
    for length in range(2, 6):  # plane + solos: 8..20 cards
        for start in range(0, CHAIN_TOP - length + 2):
            plane = tuple(range(start, start + length))
            main = _counts([(r, 3) for r in plane])
            for ks in _solo_kickers(set(plane), length, rule, plane):
                add(Category.PLANE_SOLOS, length, start, main, _counts([(k, 1) for k in ks]))
    for length in range(2, 5):  # plane + pairs: 10..20 cards
        for start in range(0, CHAIN_TOP - length + 2):
            plane = tuple(range(start, start + length))
            main = _counts([(r, 3) for r in plane])
            others = [r for r in range(13) if r not in plane]
            for ks in combinations(others, length):
                add(Category.PLANE_PAIRS, length, start, main, _counts([(k, 2) for k in ks]))
    for r in range(13):
        main = _counts([(r, 4)])
        for ks in _solo_kickers({r}, 2, rule):
            add(Category.BOMB_SOLOS, 1, r, main, _counts([(k, 1) for k in ks]))
    for r in range(13):
        main = _counts([(r, 4)])
        for ks in combinations([k for k in range(13) if k != r], 2):
            add(Category.BOMB_PAIRS, 1, r, main, _counts([(k, 2) for k in ks]))
    for r in range(13):
        add(Category.BOMB, 1, r, _counts([(r, 4)]))
    add(Category.ROCKET, 1, BLACK, _counts([(BLACK, 1), (RED, 1)]))
    empty = np.zeros(NUM_RANKS_WITH_JOKERS, dtype=np.int8)
    moves.append((int(Category.PASS), 0, -1, rank_counts_to_vector(empty), rank_counts_to_vector(empty), "pass"))
    return moves


def _follow_ranges(category: int, length: int, rank: int, groups) -> tuple[int, int, int, int]:
    """Groups that beat a move: same category and length with a higher rank, any bomb, the rocket."""
    g_cat, g_len, g_rank = groups
    bombs = np.flatnonzero((g_cat == Category.BOMB) | (g_cat == Category.ROCKET))
    bomb_lo, bomb_hi = int(bombs[0]), int(bombs[-1]) + 1
    if category == Category.PASS or category == Category.ROCKET:
        return (0, 0, 0, 0)
    if category == Category.BOMB:
        higher = np.flatnonzero((g_cat == Category.BOMB) & (g_rank > rank))
        lo = int(higher[0]) if len(higher) else bomb_hi - 1
        return (lo, bomb_hi, 0, 0)
    same = np.flatnonzero((g_cat == category) & (g_len == length) & (g_rank > rank))
    if len(same) == 0:
        return (bomb_lo, bomb_hi, 0, 0)
    return (int(same[0]), int(same[-1]) + 1, bomb_lo, bomb_hi)


# Minimum Combination Search data (Luo & Tan 2024, eq. 1 and Algorithm 5), read by cardrl.search.mcs. Fixed moves as
# ((card counts taken from distinct non-joker ranks), jokers): a joker can stand alone, be a trio's or a bomb's solo
# kicker; the two together are the rocket. "douzero": bomb kickers may share a rank (4444+55), never be both jokers;
# "distinct": kicker ranks distinct, both jokers allowed (Luo & Tan Table 12).
_MCS_FIXED_COMMON = (((1,), 0), ((), 1), ((2,), 0), ((3,), 0), ((3, 1), 0), ((3,), 1), ((3, 2), 0), ((4,), 0),
                     ((4, 1, 1), 0), ((4, 1), 1), ((4, 2, 2), 0), ((), 2))
MCS_FIXED_MOVES = {"douzero": _MCS_FIXED_COMMON + (((4, 2), 0),), "distinct": _MCS_FIXED_COMMON + (((4,), 2),)}
# The variable-length moves the search explores depth first (chains, pair chains, planes with or without kickers).
MCS_VARIABLE_CATEGORIES = (Category.CHAIN, Category.PAIR_CHAIN, Category.PLANE, Category.PLANE_SOLOS,
                           Category.PLANE_PAIRS)


@lru_cache(maxsize=None)
def doudizhu_move_table(kickers: str = "douzero") -> MoveTable:
    """The DouDiZhu move table for a kicker convention (built once per process, then shared read-only)."""
    if kickers not in KICKER_RULES:
        raise ValueError(f"kickers={kickers!r} is not a DouDiZhu kicker rule; allowed: {KICKER_RULES}")
    moves = _enumerate(kickers)
    rank_counts = np.stack([string_to_rank_counts(m[5]) for m in moves]).astype(np.int8)
    return build_move_table(f"doudizhu[{kickers}]", moves, _follow_ranges, rank_counts)
