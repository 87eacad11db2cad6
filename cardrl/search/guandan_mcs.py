"""Minimum Combination Search for GuanDan: exact K with wild cards (beyond Luo & Tan 2024, eq. 1).

Luo & Tan define K, the fewest moves that empty a hand, for DouDiZhu and Big2 (section 4.1); GuanDan adds two decks,
wild cards (the hearts of the level rank stand for any non-joker card), tubes, plates, straight flushes and bombs of
4 to 10 cards (docs/rules.md "GuanDan"). The histogram table of :mod:`cardrl.search.mcs` does not carry over: which rank a
wild joins is itself a choice. The search here is exact by a different argument:

* K depends only on the natural cards per rank, the number of wilds and the jokers. Suits do not matter: a
  straight flush holds the same cards as a straight, so it never lowers K. The level does not matter either: the
  level rank's natural cards are ordinary cards of that rank, and a wild that stands for the level card is just a
  wild (two wilds as the pair of a level-rank trio give five level cards, which are one bomb anyway).
* Every natural card of the *lowest* rank r still in the hand belongs to some move of an optimal decomposition, and
  that move contains a natural r. So ``K(hand) = 1 + min K(hand - m)`` over the moves m that contain a natural r:
  an n-of-a-kind or bomb of r (with wilds), a three-with-two with r as trio or as pair, and every straight (5
  singles), tube (3 pairs) or plate (2 trios) through r's place, each place filled by naturals or wilds in every
  possible way. With no natural card left, the wilds make one single or pair and the jokers one move per colour, or
  one four-joker bomb.

A hand is packed into one int64, a 4-bit count per field: ranks 2..A (natural cards, 0..8), wilds (0..2), black
jokers, red jokers. A move's pack is subtracted from the hand's pack without borrows, so K after every legal move
is one subtraction and a memoised lookup. tests/test_mcs_guandan.py checks K against a brute-force search over the
engine's own lead moves on thousands of small hands with 0, 1 and 2 wilds.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from cardrl.games.guandan.moves import BLACK_JOKER, HEARTS, NUM_KINDS, NUM_RANKS, RED_JOKER, check_level
from cardrl.games.guandan.table import NUM_SPECIAL
from cardrl.search.mcs import MemoisedSearch

WILD_FIELD, BLACK_FIELD, RED_FIELD = 13, 14, 15
# Sequences (docs/rules.md): (length, cards per place, number of starts) on the ace-low line A 2 3 .. K A, where place 0
# is the low ace and place p >= 1 is rank p - 1. Straights A2345..TJQKA, tubes AA2233..QQKKAA, plates AAA222..KKKAAA.
_SEQUENCES = np.array([(5, 1, 10), (3, 2, 12), (2, 3, 13)], dtype=np.int64)


def pack_counts(counts, level) -> np.ndarray:
    """Pack (n, 54) (or (54,)) GuanDan card counts at ``level`` into int64 MCS keys (module docstring)."""
    level = check_level(level)
    arr = np.asarray(counts, dtype=np.int64)
    single = arr.ndim == 1
    arr = arr.reshape(-1, NUM_KINDS)
    wild = 4 * level + HEARTS
    naturals = arr[:, :52].reshape(-1, NUM_RANKS, 4).sum(axis=2)
    naturals[:, level] -= arr[:, wild]
    fields = np.concatenate([naturals, arr[:, [wild, BLACK_JOKER, RED_JOKER]]], axis=1)
    packed = (fields << (4 * np.arange(16, dtype=np.int64))).sum(axis=1)
    return packed[0] if single else packed


@njit(cache=True, nogil=True, inline="always")
def _field(s, i):
    return (s >> (4 * i)) & 15


@njit(cache=True, nogil=True)
def _rank_of_place(place):
    return 12 if place == 0 else place - 1


@njit(cache=True, nogil=True)
def _k(s, memo):
    """K of the packed hand ``s`` (module docstring); memoised in ``memo``."""
    if s == 0:
        return np.int64(0)
    if s in memo:
        return np.int64(memo[s])
    r = -1
    for i in range(NUM_RANKS):
        if _field(s, i):
            r = i
            break
    wilds = _field(s, WILD_FIELD)
    black, red = _field(s, BLACK_FIELD), _field(s, RED_FIELD)
    if r < 0:  # only wilds and jokers: one single or pair of wilds; jokers one move per colour, or the joker bomb
        best = (1 if wilds else 0) + (1 if black == 2 and red == 2 else (1 if black else 0) + (1 if red else 0))
        memo[s] = np.int8(best)
        return np.int64(best)
    one = np.int64(1)
    count_r = _field(s, r)
    best = np.int64(99)
    for k in range(1, count_r + 1):
        for j in range(0, wilds + 1):
            rest = s - (k << (4 * r)) - (j << (4 * WILD_FIELD))
            # n of a kind: single, pair, trio, or a bomb of 4..10 (a single is one natural card)
            if k + j >= 2 or j == 0:
                v = 1 + _k(rest, memo)
                if v < best:
                    best = v
            if k + j == 3:  # trio of r with a pair: of another rank (naturals and wilds), two wilds, or jokers
                w_left = wilds - j
                for q in range(r + 1, NUM_RANKS):
                    cq = _field(rest, q)
                    for k2 in range(1, min(2, cq) + 1):
                        if 2 - k2 <= w_left:
                            v = 1 + _k(rest - (k2 << (4 * q)) - ((2 - k2) << (4 * WILD_FIELD)), memo)
                            if v < best:
                                best = v
                if w_left >= 2:
                    v = 1 + _k(rest - (2 << (4 * WILD_FIELD)), memo)
                    if v < best:
                        best = v
                if black == 2:
                    v = 1 + _k(rest - (2 << (4 * BLACK_FIELD)), memo)
                    if v < best:
                        best = v
                if red == 2:
                    v = 1 + _k(rest - (2 << (4 * RED_FIELD)), memo)
                    if v < best:
                        best = v
            if k + j == 2:  # pair of r under a trio of a higher rank (at least one natural card in the trio)
                w_left = wilds - j
                for q in range(r + 1, NUM_RANKS):
                    cq = _field(rest, q)
                    for k2 in range(1, min(3, cq) + 1):
                        if 3 - k2 <= w_left:
                            v = 1 + _k(rest - (k2 << (4 * q)) - ((3 - k2) << (4 * WILD_FIELD)), memo)
                            if v < best:
                                best = v
    # sequences through r's place: every split of each place between naturals and wilds
    lo = np.zeros(5, dtype=np.int64)
    hi = np.zeros(5, dtype=np.int64)
    take = np.zeros(5, dtype=np.int64)
    for t in range(_SEQUENCES.shape[0]):
        length, copies, starts = _SEQUENCES[t, 0], _SEQUENCES[t, 1], _SEQUENCES[t, 2]
        for start in range(starts):
            has_r = False
            ok = True
            need = 0  # wilds needed at least
            for p in range(length):
                rank = _rank_of_place(start + p)
                avail = min(_field(s, rank), copies)
                hi[p] = avail
                lo[p] = 0
                if rank == r:
                    has_r = True
                    lo[p] = 1
                    if avail == 0:
                        ok = False
                need += copies - avail
            if not has_r or not ok or need > wilds:
                continue
            for p in range(length):
                take[p] = lo[p]
            while True:
                used = 0
                rest = s
                for p in range(length):
                    used += copies - take[p]
                    rest -= take[p] << (4 * _rank_of_place(start + p))
                if used <= wilds:
                    v = 1 + _k(rest - (used << (4 * WILD_FIELD)), memo)
                    if v < best:
                        best = v
                p = 0  # next split (mixed-radix counter)
                while p < length and take[p] == hi[p]:
                    take[p] = lo[p]
                    p += 1
                if p == length:
                    break
                take[p] += one
    memo[s] = np.int8(best)
    return best


@njit(cache=True, nogil=True)
def _k_after(hand, moves, memo):
    out = np.empty(moves.shape[0], dtype=np.int64)
    for i in range(moves.shape[0]):
        out[i] = _k(hand - moves[i], memo)
    return out


class GuanDanMinCombinationSearch(MemoisedSearch):
    """Exact K for GuanDan hands with wild cards (module docstring); memoised across calls and levels.

    ``k(counts, level)`` is K of a 54-count hand; ``k_after(counts, level, move_counts)`` is K after each move of an
    ``(n, 54)`` count matrix (a pass is a zero row). Subsets of the hand only: a move must be in the hand. Sub-hands
    rarely recur across deals, so a modest memo (``max_cache`` entries, then it starts over) loses little.
    """

    def __init__(self, max_cache: int = 1_000_000):  # ~60 bytes an entry: ~60 MB at most
        self.max_cache = int(max_cache)
        self.clear_cache()

    def k(self, counts, level: int) -> int:
        """The fewest moves that empty the hand (0 for an empty hand)."""
        return int(_k(np.int64(pack_counts(_check_hand(counts), level)), self._memo_for_call()))

    def k_after(self, counts, level: int, move_counts) -> np.ndarray:
        """K of the hand after each move (rows of ``move_counts``); raises if a move is not in the hand."""
        hand = _check_hand(counts)
        moves = np.asarray(move_counts, dtype=np.int64).reshape(-1, NUM_KINDS)
        if (moves > hand[None, :]).any():
            raise ValueError("a move holds cards the hand does not: K after a move needs the move in the hand")
        return self.k_after_packed(int(pack_counts(hand, level)), pack_counts(moves, level))

    def k_after_packed(self, hand_key: int, move_keys: np.ndarray) -> np.ndarray:
        """:meth:`k_after` on packed keys (:func:`pack_counts`), without checks: the hot path of pruning."""
        return _k_after(np.int64(hand_key), np.asarray(move_keys, dtype=np.int64), self._memo_for_call())


    # ---- the uniform interface of the games' searches (pruning, mcs-greedy, min_combinations) -----------------
    def k_of_hand(self, hand, level=None) -> int:
        """K of a 54-count hand or a card string such as ``"3d 4d 5c 6s 2h"`` at ``level`` (a ``Rank`` or ``"2"`` ..
        ``"A"``)."""
        from cardrl.games.guandan.moves import hand_from_string

        if level is None:
            raise ValueError("GuanDan needs the level (a rank: '2' .. 'A' or a Rank) to know the wild card")
        return self.k(hand_from_string(hand) if isinstance(hand, str) else np.asarray(hand), level)

    def k_after_state(self, state, move_ids) -> np.ndarray:
        """K of the hand of the player to move in a GuanDan ``state`` after each action id (tribute and return
        ids: after giving that card)."""
        level, hand = state.level, state.hands[state.current_player]
        ids = np.asarray(move_ids, dtype=np.int64)
        if ids.size and ids.min() >= NUM_SPECIAL:
            keys = _packed_level_table(level)[ids - NUM_SPECIAL]
        else:
            keys = pack_counts(state.move_cards(ids).astype(np.int64), level)
        return self.k_after_packed(int(pack_counts(hand, level)), keys)

    def k_after_view(self, view, move_ids) -> np.ndarray:
        """K of a player's hand (``view``) after each action id."""
        counts = view.move_cards(move_ids).astype(np.int64)
        return self.k_after_packed(int(pack_counts(view.hand, view.level)), pack_counts(counts, view.level))

    def greedy_keys(self, view, move_ids) -> tuple[np.ndarray, ...]:
        """Tie-break keys of the mcs-greedy agent among moves of equal K, most important first. Card plays: a
        non-bomb before a bomb, then pass, then the lowest power, then the most cards; tribute and return cards:
        the lowest power, then the lowest kind."""
        from cardrl.games.guandan.moves import BLACK_JOKER, RED_JOKER, Category, power

        moves = view.moves_of(move_ids)
        level = view.level
        if moves and moves[0].category in (Category.TRIBUTE, Category.RETURN):
            kinds = np.array([m.cards[0] for m in moves], dtype=np.int64)
            powers = np.array([14 if k == BLACK_JOKER else 15 if k == RED_JOKER else power(k // 4, level)
                               for k in kinds], dtype=np.int64)
            return (powers, kinds)
        bombs = np.array([m.is_bomb for m in moves], dtype=np.int64)
        powers = np.array([-1 if m.is_pass else (power(m.rank, level) if m.rank <= 12 else m.rank) for m in moves],
                          dtype=np.int64)
        sizes = np.array([-len(m.cards) for m in moves], dtype=np.int64)
        return (bombs, powers, sizes)


@lru_cache(maxsize=None)
def guandan_search() -> GuanDanMinCombinationSearch:
    """The shared, memoising GuanDan search (K does not depend on the level: one cache serves all levels)."""
    return GuanDanMinCombinationSearch()


def search_for_engine(engine) -> GuanDanMinCombinationSearch:
    """The registry's search factory for GuanDan: the shared search (one for every level and option)."""
    return guandan_search()


@lru_cache(maxsize=13)
def _packed_level_table(level: int) -> np.ndarray:
    from cardrl.games.guandan.table import level_table

    table = level_table(level)
    return pack_counts(table.counts_of(np.arange(len(table))), level)


def _check_hand(counts) -> np.ndarray:
    hand = np.asarray(counts)
    if hand.shape != (NUM_KINDS,):
        raise ValueError(f"a GuanDan hand is a 54-count vector (kinds 4*rank+suit, 52 BJ, 53 RJ), got shape "
                         f"{hand.shape}")
    if hand.min() < 0 or hand.max() > 2:
        raise ValueError("a GuanDan hand holds each kind 0..2 times (two decks)")
    return hand.astype(np.int64)
