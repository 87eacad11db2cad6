"""Move tables: every move of a game enumerated once, legality as array arithmetic.

A :class:`MoveTable` is built once per game variant. Each move has a stable integer id, its 54-dim card
vector (``cards``), the same as a 54-bit set (``bits``), a category, a length (number of consecutive
units of a chain, 1 otherwise) and a main rank. Moves that share a *main part* (the same trio or plane with
different kickers) form a contiguous *group*; groups are ordered by (category, length, main rank), so the
moves that beat a given move are at most two contiguous runs of groups. Legal-move generation is then

1. a bit test of the (few hundred) group main parts against the hand, then
2. a bit test of the members of the feasible groups only,

which is a handful of vectorised numpy operations instead of a Python search over card combinations
(DESIGN.md, layer 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class MoveTable:
    """All moves of one game variant (see module docstring). Build it with a game's table factory."""

    name: str
    cards: np.ndarray  # (M, 54) uint8
    bits: np.ndarray  # (M,) uint64
    category: np.ndarray  # (M,) int8
    length: np.ndarray  # (M,) int8
    rank: np.ndarray  # (M,) int8
    strings: tuple[str, ...]
    pass_id: int
    group_start: np.ndarray  # (G,) int64, first move id of each group
    group_end: np.ndarray  # (G,) int64, one past the last move id
    group_bits: np.ndarray  # (G,) uint64, the cards every member of the group needs
    group_of: np.ndarray  # (M,) int64
    # follow_ranges[m] = (lo1, hi1, lo2, hi2): the groups whose moves beat move m.
    follow_ranges: np.ndarray  # (M, 4) int64
    lead_range: tuple[int, int]  # the groups a leader may play (all but pass)
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
        need_missing = ~np.uint64(hand_bits)
        if last_move is None:
            lo, hi = self.lead_range
            groups = np.flatnonzero((self.group_bits[lo:hi] & need_missing) == 0) + lo
        else:
            lo1, hi1, lo2, hi2 = self.follow_ranges[last_move]
            g1 = np.flatnonzero((self.group_bits[lo1:hi1] & need_missing) == 0) + lo1
            g2 = np.flatnonzero((self.group_bits[lo2:hi2] & need_missing) == 0) + lo2
            groups = np.concatenate((g1, g2)) if len(g2) else g1
        candidates = _ranges_to_indices(self.group_start[groups], self.group_end[groups])
        legal = candidates[(self.bits[candidates] & need_missing) == 0]
        if last_move is not None:
            legal = np.append(legal, self.pass_id)
        return legal

    def beats(self, move: int, last_move: int | None) -> bool:
        """Whether ``move`` may be played on ``last_move`` (``None``: leading), ignoring the hand."""
        if last_move is None:
            return move != self.pass_id
        if move == self.pass_id:
            return True
        g = self.group_of[move]
        lo1, hi1, lo2, hi2 = self.follow_ranges[last_move]
        return bool(lo1 <= g < hi1 or lo2 <= g < hi2)


def _ranges_to_indices(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenate ``arange(s, e)`` for each pair without a Python loop."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shifts = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return shifts + np.arange(total)


def build_move_table(
    name: str,
    moves: list[tuple[int, int, int, np.ndarray, np.ndarray, str]],
    beats_classes: "callable",
) -> MoveTable:
    """Assemble a :class:`MoveTable` from enumerated moves.

    ``moves`` is a list of ``(category, length, rank, card_vector, main_vector, string)`` in table order;
    consecutive moves with equal ``(category, length, rank, main_vector)`` form a group. Groups must
    come ordered by (category, length, rank) within each class of comparable moves. The last move must
    be pass (category 0, empty vectors).

    ``beats_classes(category, length, rank, groups)`` returns the follow ranges ``(lo1, hi1, lo2, hi2)``
    in group indices for a move of that kind, given the group table as arrays (category, length, rank).
    """
    from cardrl.cards import vectors_to_bits

    m = len(moves)
    category = np.array([mv[0] for mv in moves], dtype=np.int8)
    length = np.array([mv[1] for mv in moves], dtype=np.int8)
    rank = np.array([mv[2] for mv in moves], dtype=np.int8)
    cards = np.stack([mv[3] for mv in moves]).astype(np.uint8)
    mains = np.stack([mv[4] for mv in moves]).astype(np.uint8)
    strings = tuple(mv[5] for mv in moves)
    if len(set(strings)) != m:
        raise AssertionError(f"{name}: duplicate move strings in the table")
    bits = vectors_to_bits(cards)
    main_bits = vectors_to_bits(mains)

    starts = [0]
    for i in range(1, m):
        if (category[i], length[i], rank[i], main_bits[i]) != (
                category[i - 1], length[i - 1], rank[i - 1], main_bits[i - 1]):
            starts.append(i)
    group_start = np.array(starts, dtype=np.int64)
    group_end = np.append(group_start[1:], m).astype(np.int64)
    group_bits = main_bits[group_start]
    group_of = np.repeat(np.arange(len(starts)), group_end - group_start)
    g_cat, g_len, g_rank = category[group_start], length[group_start], rank[group_start]

    pass_id = m - 1
    if category[pass_id] != 0 or cards[pass_id].any():
        raise AssertionError(f"{name}: the last move must be pass")
    follow = np.zeros((m, 4), dtype=np.int64)
    cache: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
    for i in range(m):
        key = (int(category[i]), int(length[i]), int(rank[i]))
        if key not in cache:
            cache[key] = beats_classes(*key, (g_cat, g_len, g_rank))
        follow[i] = cache[key]
    pass_group = int(group_of[pass_id])
    return MoveTable(
        name=name, cards=cards, bits=bits, category=category, length=length, rank=rank,
        strings=strings, pass_id=pass_id, group_start=group_start, group_end=group_end,
        group_bits=group_bits, group_of=group_of, follow_ranges=follow,
        lead_range=(0, pass_group), index={s: i for i, s in enumerate(strings)},
    )
