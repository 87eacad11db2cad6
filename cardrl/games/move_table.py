"""Move tables: every move of a game enumerated once, legality as array arithmetic.

A :class:`MoveTable` is built once per game variant. Each move has a stable integer id, its 54-dim card
vector (``cards``), the same as a 54-bit set (``bits``), a category, a length (number of consecutive
units of a chain, 1 otherwise) and a main rank. Moves that share a *main part* (the same trio or plane with
different kickers) form a contiguous *group*; groups are ordered by (category, length, main rank), so the
moves that beat a given move are at most two contiguous runs of groups. Legal-move generation is then one
compiled scan (numba) over the table's arrays:

1. a bit test of the (few hundred) group main parts against the hand, then
2. a bit test of the members of the feasible groups only,

instead of a Python search over card combinations (docs/architecture.md, layer 2; its speed: docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit


@dataclass(frozen=True, eq=False)
class MoveTable:
    """All moves of one game variant (see module docstring). Build it with a game's table factory."""

    name: str
    cards: np.ndarray  # (M, 54) uint8
    rank_counts: np.ndarray  # (M, R) int8: cards of each rank (the game's rank order)
    bits: np.ndarray  # (M,) uint64
    category: np.ndarray  # (M,) int8
    length: np.ndarray  # (M,) int8
    rank: np.ndarray  # (M,) int8 by default; the order key within a class of comparable moves (rank_dtype)
    strings: tuple[str, ...]
    pass_id: int
    group_start: np.ndarray  # (G,) int64, first move id of each group
    group_end: np.ndarray  # (G,) int64, one past the last move id
    group_bits: np.ndarray  # (G,) uint64, the cards every member of the group needs
    group_of: np.ndarray  # (M,) int64
    # follow_ranges[m] = (lo1, hi1, lo2, hi2): the groups whose moves beat move m.
    follow_ranges: np.ndarray  # (M, 4) int64
    index: dict = field(repr=False)

    def __len__(self) -> int:
        return len(self.strings)

    def id_of(self, move: str) -> int:
        """Move id of a move string such as ``"33345"`` or ``"pass"``."""
        try:
            return self.index[move]
        except KeyError:
            raise ValueError(f"{move!r} is not a move of the {self.name} move table") from None

    def legal_moves(self, hand_bits: int, last_move: int | None) -> np.ndarray:
        """Sorted ids of the moves a hand (as a card bit set) may play.

        ``last_move`` is the move to beat, or ``None`` when leading (pass is then not legal). When
        following, pass is always included.
        """
        if last_move is None:  # every group but pass's, which is the last one
            lo1, hi1, lo2, hi2 = 0, len(self.group_start) - 1, 0, 0
        else:
            lo1, hi1, lo2, hi2 = self.follow_ranges[last_move]
        out = np.empty(len(self.strings), dtype=np.int64)
        n = _legal_moves_kernel(self.group_bits, self.group_start, self.group_end, self.bits,
                                np.uint64(hand_bits), lo1, hi1, lo2, hi2, out)
        if last_move is not None:
            out[n] = self.pass_id
            n += 1
        return out[:n].copy()  # a copy, so a kept result does not pin the full-size scratch array

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` uint8 card vectors of move ids (pass: zeros); ValueError for an id outside the table."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self.strings)):
            raise ValueError(f"move ids must be in 0..{len(self.strings) - 1}; got min {ids.min()} max {ids.max()}")
        return self.cards[ids]

    def beats(self, move: int, last_move: int | None) -> bool:
        """Whether ``move`` may be played on ``last_move`` (``None``: leading), ignoring the hand."""
        if last_move is None:
            return move != self.pass_id
        if move == self.pass_id:
            return True
        g = self.group_of[move]
        lo1, hi1, lo2, hi2 = self.follow_ranges[last_move]
        return bool(lo1 <= g < hi1 or lo2 <= g < hi2)


@njit(cache=True, nogil=True)
def _legal_moves_kernel(group_bits, group_start, group_end, bits, hand_bits, lo1, hi1, lo2, hi2, out):
    """Writes the legal move ids of groups [lo1, hi1) and [lo2, hi2) into ``out``; returns how many.

    A group is skipped unless the hand holds its main part; then each member is kept if the hand holds it.
    """
    missing = ~hand_bits
    n = 0
    for lo, hi in ((lo1, hi1), (lo2, hi2)):
        for g in range(lo, hi):
            if group_bits[g] & missing:
                continue
            for m in range(group_start[g], group_end[g]):
                if not bits[m] & missing:
                    out[n] = m
                    n += 1
    return n


def build_move_table(
    name: str,
    moves: list[tuple[int, int, int, np.ndarray, np.ndarray, str]],
    beats_classes: "callable",
    rank_counts: np.ndarray,
    rank_dtype: type = np.int8,
) -> MoveTable:
    """Assemble a :class:`MoveTable` from enumerated moves.

    ``moves`` is a list of ``(category, length, rank, card_vector, main_vector, string)`` in table order;
    consecutive moves with equal ``(category, length, rank, main_vector)`` form a group. Groups must
    come ordered by (category, length, rank) within each class of comparable moves. The last move must
    be pass (category 0, empty vectors).

    ``beats_classes(category, length, rank, groups)`` returns the follow ranges ``(lo1, hi1, lo2, hi2)``
    in group indices for a move of that kind, given the group table as arrays (category, length, rank).
    ``rank_counts`` (M, R) gives each move's cards per rank. ``rank_dtype`` is the dtype of the stored
    ``rank``: int8 suffices for main ranks (DouDiZhu); Big2 stores a wider order key (int32) there.
    """
    from cardrl.cards import vectors_to_bits

    m = len(moves)
    category = np.array([mv[0] for mv in moves], dtype=np.int8)
    length = np.array([mv[1] for mv in moves], dtype=np.int8)
    rank = np.array([mv[2] for mv in moves], dtype=rank_dtype)
    cards = np.stack([mv[3] for mv in moves]).astype(np.uint8)
    mains = np.stack([mv[4] for mv in moves]).astype(np.uint8)
    strings = tuple(mv[5] for mv in moves)
    if len(set(strings)) != m:
        raise AssertionError(f"{name}: duplicate move strings in the table")
    bits = vectors_to_bits(cards)
    main_bits = vectors_to_bits(mains)

    group_start = _group_starts(category, length, rank, main_bits)
    group_end = np.append(group_start[1:], m).astype(np.int64)
    group_bits = main_bits[group_start]
    group_of = np.repeat(np.arange(len(group_start)), group_end - group_start)
    pass_id = m - 1
    if category[pass_id] != 0 or cards[pass_id].any():
        raise AssertionError(f"{name}: the last move must be pass")
    if int(group_of[pass_id]) != len(group_start) - 1 or group_end[-2] != pass_id:
        raise AssertionError(f"{name}: pass must be the only member of the last group")
    follow = _follow_ranges(category, length, rank, beats_classes, group_start)
    for arr in (cards, bits, category, length, rank, group_start, group_end, group_bits, group_of, follow, rank_counts):
        arr.setflags(write=False)
    return MoveTable(
        name=name, cards=cards, rank_counts=rank_counts, bits=bits, category=category, length=length, rank=rank,
        strings=strings, pass_id=pass_id, group_start=group_start, group_end=group_end,
        group_bits=group_bits, group_of=group_of, follow_ranges=follow,
        index={s: i for i, s in enumerate(strings)},
    )


def _group_starts(category: np.ndarray, length: np.ndarray, rank: np.ndarray, main_bits: np.ndarray) -> np.ndarray:
    """The first move of every group: a run of moves with equal (category, length, rank, main cards)."""
    starts = [0]
    for i in range(1, len(category)):
        if (category[i], length[i], rank[i], main_bits[i]) != (
                category[i - 1], length[i - 1], rank[i - 1], main_bits[i - 1]):
            starts.append(i)
    return np.array(starts, dtype=np.int64)


def _follow_ranges(category: np.ndarray, length: np.ndarray, rank: np.ndarray, beats_classes,
                   group_start: np.ndarray) -> np.ndarray:
    """``(M, 4)`` group ranges each move may be followed by: ``beats_classes`` asked once per (category, length,
    rank)."""
    groups = (category[group_start], length[group_start], rank[group_start])
    follow = np.zeros((len(category), 4), dtype=np.int64)
    cache: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
    for i in range(len(category)):
        key = (int(category[i]), int(length[i]), int(rank[i]))
        if key not in cache:
            cache[key] = beats_classes(*key, groups)
        follow[i] = cache[key]
    return follow
