"""Minimum Combination Search (Luo & Tan 2024, section 4.1, eq. 1, Algorithms 2 and 5).

K(X), the *minimum combination* of a hand X, is the fewest moves that empty it. Eq. (1) splits a decomposition
into *variable* moves (DouDiZhu: chains, pair chains, planes with or without kickers; Big2: straights, flushes,
straight flushes), found by a depth-first search, and *fixed* moves (solos, pairs, trios, trio/bomb with kickers,
full houses, quads...), whose best use depends only on how many ranks hold 4, 3, 2 and 1 cards: the paper's
``Fixed[a][b][y][z]`` table, precomputed once per game.

Two deliberate differences from the paper's pseudo-code make K *exact* (equal to a brute-force search over all
decompositions of the hand into moves of the game's move table; tests/search/test_mcs.py checks it on thousands of
hands):

* The fixed table is computed by dynamic programming over *real moves* between rank histograms
  ``(h1, h2, h3, h4, jokers)`` (``h_c`` = ranks holding exactly c cards), with each game's kicker rules, instead of
  Algorithm 5's split recurrences. Those recurrences allow moves the tables forbid (6666+3333 as a bomb with two
  pairs; a bomb with both jokers as kickers under DouZero's table) and so undercount. Fixed moves only test
  ranks for equality, so K of the fixed part is a function of the histogram: the DP is exact.
* The variable moves, kickers included, are the move table's own entries (the same kicker rules as the
  game), scanned with the table's main-part groups; the search is memoised by the hand's bit set, so every
  sub-hand is solved once per :class:`MinCombinationSearch` (and reused across calls: hands recur within a deal
  and, after ``k_after``, across the legal moves of one position).

The search runs compiled (numba). Hands are the game's 54-bit card sets (cardrl.cards): DouDiZhu's are
thermometer-coded per rank, Big2's hold a card per (rank, suit) bit; in both a rank owns 4 consecutive bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict

from cardrl.games.move_table import MoveTable

MAX_HAND = 20  # the largest hand of the supported games (DouDiZhu's landlord)
# Fixed-table dimensions: ranks holding 1, 2, 3, 4 cards (13 ranks, 20 cards at most) and jokers.
_DIMS = (14, 11, 7, 6, 3)
_UNSOLVED = 127


@dataclass(frozen=True)
class FixedMove:
    """A fixed-length move as rank parts: ``parts`` are card counts taken from pairwise distinct non-joker ranks,
    ``jokers`` the jokers it uses (each joker is its own rank). E.g. DouDiZhu's trio + pair is ``(3, 2)``."""

    parts: tuple[int, ...]
    jokers: int = 0


class MCSRules(NamedTuple):
    """What the search needs to know of a game's move set (its engine's ``min_combination_rules()``): the fixed
    moves as ``((parts), jokers)`` pairs (:class:`FixedMove`), the move-table categories searched as variable
    moves, whether hands are thermometer-coded per rank (suits irrelevant, DouDiZhu) and whether the deck has
    jokers."""

    fixed_moves: tuple[tuple[tuple[int, ...], int], ...]
    variable_categories: tuple[int, ...]
    thermometer: bool
    jokers: bool


def _successors(hist: tuple[int, ...], jokers: int, move: FixedMove):
    """Histograms reachable by playing ``move`` from (hist, jokers); hist[c] = ranks holding c cards (c=0..4)."""
    if move.jokers > jokers:
        return
    out = []

    def assign(i: int, h: list[int], freed: list[int]):
        if i == len(move.parts):
            nh = list(h)
            for c in freed:
                nh[c] += 1
            out.append((tuple(nh), jokers - move.jokers))
            return
        p = move.parts[i]
        for c in range(p, 5):
            if h[c] > 0:
                h[c] -= 1
                freed.append(c - p)
                assign(i + 1, h, freed)
                freed.pop()
                h[c] += 1

    assign(0, list(hist), [])
    yield from set(out)


@lru_cache(maxsize=None)
def fixed_table(rules: MCSRules) -> np.ndarray:
    """``F[h1, h2, h3, h4, jokers]``: the fewest fixed moves that empty a hand with that rank histogram.

    Luo & Tan's ``Fixed[a][b][y][z]`` (Algorithms 2 and 5, ``Calculate_Fixed``), computed exactly by dynamic
    programming over the game's fixed moves (``rules.fixed_moves``); entries of hands larger than 20 cards are 127.
    """
    rules = MCSRules(*rules)
    moves = tuple(FixedMove(tuple(parts), jokers) for parts, jokers in rules.fixed_moves)
    table = np.full(_DIMS, _UNSOLVED, dtype=np.int8)
    memo: dict[tuple, int] = {}

    def solve(hist: tuple[int, ...], jokers: int) -> int:
        key = (hist, jokers)
        if key in memo:
            return memo[key]
        if sum(hist[1:]) == 0 and jokers == 0:
            memo[key] = 0
            return 0
        best = _UNSOLVED
        for move in moves:
            for nh, nj in _successors(hist, jokers, move):
                best = min(best, 1 + solve(nh, nj))
        memo[key] = best
        return best

    for h1 in range(_DIMS[0]):
        for h2 in range(_DIMS[1]):
            for h3 in range(_DIMS[2]):
                for h4 in range(_DIMS[3]):
                    for j in range(_DIMS[4]):
                        if h1 + h2 + h3 + h4 > 13 or h1 + 2 * h2 + 3 * h3 + 4 * h4 + j > MAX_HAND:
                            continue
                        if j and not rules.jokers:
                            continue
                        table[h1, h2, h3, h4, j] = solve((0, h1, h2, h3, h4), j)
    table.setflags(write=False)
    return table


# ---- compiled search ---------------------------------------------------------------------------------------------
_NIBBLE_COUNT = np.array([bin(i).count("1") for i in range(16)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _subtract(hand: np.int64, move: np.int64, thermometer: bool, nibble_count) -> np.int64:
    """The hand without the move's cards; thermometer hands stay thermometer-coded per rank."""
    if not thermometer:
        return hand & ~move
    out = hand & ~move & (np.int64(3) << 52)  # jokers
    for r in range(13):
        c = nibble_count[(hand >> (4 * r)) & 15] - nibble_count[(move >> (4 * r)) & 15]
        out |= ((np.int64(1) << c) - 1) << (4 * r)
    return out


@njit(cache=True, nogil=True)
def _fixed_k(hand: np.int64, fixed, nibble_count) -> np.int64:
    h = np.zeros(5, dtype=np.int64)
    for r in range(13):
        h[nibble_count[(hand >> (4 * r)) & 15]] += 1
    jokers = ((hand >> 52) & 1) + ((hand >> 53) & 1)
    return np.int64(fixed[h[1], h[2], h[3], h[4], jokers])


@njit(cache=True, nogil=True)
def _min_k(hand, thermometer, group_bits, group_start, group_end, move_bits, fixed, nibble_count, memo):
    """Eq. (1): K = min(Fixed(histogram), 1 + K(hand - v)) over the variable moves v the hand holds."""
    if hand == 0:
        return np.int64(0)
    if hand in memo:
        return np.int64(memo[hand])
    best = _fixed_k(hand, fixed, nibble_count)
    missing = ~hand
    for g in range(group_bits.shape[0]):
        if group_bits[g] & missing:
            continue
        for m in range(group_start[g], group_end[g]):
            if move_bits[m] & missing:
                continue
            k = 1 + _min_k(_subtract(hand, move_bits[m], thermometer, nibble_count), thermometer, group_bits,
                           group_start, group_end, move_bits, fixed, nibble_count, memo)
            if k < best:
                best = k
    memo[hand] = np.int8(best)
    return best


@njit(cache=True, nogil=True)
def _k_after(hand, moves, thermometer, group_bits, group_start, group_end, move_bits, fixed, nibble_count, memo):
    out = np.empty(moves.shape[0], dtype=np.int64)
    for i in range(moves.shape[0]):
        sub = _subtract(hand, move_bits[moves[i]], thermometer, nibble_count)
        out[i] = _min_k(sub, thermometer, group_bits, group_start, group_end, move_bits, fixed, nibble_count, memo)
    return out


class MemoisedSearch:
    """A K search with a compiled memo ``int64 hand key -> int8 K`` that starts over past ``max_cache`` entries and
    is not pickled (e.g. to Ray workers): a copy starts with an empty memo."""

    max_cache: int

    def _memo_for_call(self):
        self._calls += 1
        if self._calls % 1024 == 0 and len(self._memo) > self.max_cache:  # len() of a typed dict costs a few us
            self.clear_cache()
        return self._memo

    def cache_size(self) -> int:
        """Sub-hands solved and remembered so far."""
        return len(self._memo)

    def clear_cache(self) -> None:
        """Forget every solved sub-hand."""
        self._memo = Dict.empty(key_type=types.int64, value_type=types.int8)
        self._calls = 0

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("_memo", "_arg_tuple")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.clear_cache()


class MinCombinationSearch(MemoisedSearch):
    """K of hands of one game variant (Luo & Tan 2024, eq. 1; Algorithm 5 for DouDiZhu, Algorithm 2 for Big2).

    ``table`` is the game's move table and ``rules`` its :class:`MCSRules` (``engine.min_combination_rules()``).
    Build one per move table and reuse it: solved sub-hands are memoised (up to ``max_cache`` entries, then the
    cache starts over). ``k(hand_bits)`` is K of a hand; ``k_after(hand_bits, move_ids)`` is K after each move
    (pass: the hand unchanged), the quantity ODMC's pruning rule (eq. 2) compares.
    """

    def __init__(self, table: MoveTable, rules: MCSRules | tuple, max_cache: int = 2_000_000):
        self.table = table
        self.rules = MCSRules(*rules)
        self.thermometer = bool(self.rules.thermometer)
        self.fixed = fixed_table(self.rules)
        self.max_cache = int(max_cache)
        variable = np.array(self.rules.variable_categories, dtype=np.int64)
        starts = table.group_start
        is_var = np.isin(table.category[starts], variable)
        self._group_bits = table.group_bits[is_var].view(np.int64)
        self._group_start = table.group_start[is_var]
        self._group_end = table.group_end[is_var]
        self._move_bits = table.bits.view(np.int64)
        self._size = table.cards.sum(axis=1).astype(np.int64)
        self._rank = table.rank.astype(np.int64)
        self.clear_cache()

    def _args(self):
        self._memo_for_call()
        return self._arg_tuple

    def k(self, hand_bits: int) -> int:
        """The fewest moves that empty the hand (0 for an empty hand)."""
        return int(_min_k(np.int64(hand_bits), *self._args()))

    def k_after(self, hand_bits: int, move_ids) -> np.ndarray:
        """K of the hand after each move in ``move_ids`` (int64 array); pass leaves the hand as it is."""
        moves = np.asarray(move_ids, dtype=np.int64)
        return _k_after(np.int64(hand_bits), moves, *self._args())

    def clear_cache(self) -> None:
        """Forget every solved sub-hand."""
        super().clear_cache()
        self._arg_tuple = (self.thermometer, self._group_bits, self._group_start, self._group_end, self._move_bits,
                           self.fixed, _NIBBLE_COUNT, self._memo)

    # ---- the uniform interface of the games' searches (pruning, mcs-greedy, min_combinations) -----------------
    def k_of_hand(self, hand, level: int | None = None) -> int:
        """K of a hand given as a card bit set (int), a 54-dim card vector, or (thermometer games) rank counts
        ``(15,)`` or a rank string such as ``"33344456"``."""
        from cardrl.cards import rank_counts_to_bits, string_to_rank_counts, vector_to_bits

        if level is not None:
            raise ValueError("level is a GuanDan argument; this game's hands have no level")
        if isinstance(hand, str):
            if not self.thermometer:
                raise ValueError("hand strings are DouDiZhu rank strings; give this game's hands as a bit set or a "
                                 "54-dim card vector")
            counts = string_to_rank_counts(hand)
            if (counts[:13] > 4).any() or (counts[13:] > 1).any():
                raise ValueError(f"hand {hand!r} holds more cards of a rank than the deck has")
            return self.k(rank_counts_to_bits(counts))
        if isinstance(hand, (int, np.integer)):
            return self.k(int(hand))
        arr = np.asarray(hand)
        if arr.shape == (15,) and self.thermometer:
            return self.k(rank_counts_to_bits(arr))
        if arr.shape == (54,):
            return self.k(vector_to_bits(arr))
        raise ValueError(f"hand must be a bit set, rank counts (15,) or a 54-dim card vector, got shape {arr.shape}")

    def k_after_state(self, state, move_ids) -> np.ndarray:
        """K of the hand of the player to move in an engine ``state`` after each of ``move_ids``."""
        return self.k_after(state.hand_bits(state.current_player), move_ids)

    def k_after_view(self, view, move_ids) -> np.ndarray:
        """K of the hand of a player's ``view`` after each of ``move_ids``."""
        return self.k_after(view.hand_bits, move_ids)

    def greedy_keys(self, view, move_ids) -> tuple[np.ndarray, ...]:
        """Tie-break keys of the mcs-greedy agent among moves of equal K, most important first: the lowest main
        rank (pass below every rank), then the most cards."""
        ids = np.asarray(move_ids, dtype=np.int64)
        return (self._rank[ids], -self._size[ids])


@lru_cache(maxsize=None)
def _search(table: MoveTable, rules: MCSRules) -> MinCombinationSearch:
    return MinCombinationSearch(table, rules)


def search_for_table_game(engine) -> MinCombinationSearch:
    """The shared, memoising search of a move-table engine's move set (one per table and rules)."""
    return _search(engine.table, MCSRules(*engine.min_combination_rules()))
