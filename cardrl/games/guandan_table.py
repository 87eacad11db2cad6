"""GuanDan's action ids: per-level move tables plus the tribute and return decisions.

Measured on the 2-core development machine (the engine generates moves by value, see
:mod:`cardrl.games.guandan_moves`):

* Every move some 27-card hand can make at a level is a lead move of the full 108-card deck (or pass): that
  *move universe* holds 132,169 .. 135,070 moves depending on the level (2, K, A: 135,070; 3, Q: 133,407;
  4, J: 132,788; 5 .. 10: 132,169), and it changes with the level (the wild card and the level rank move), so one
  id space for every level would need up to 13 x ~133k = ~1.7M ids.
* A padded list of the legal moves is not an exact design at a practical size: random 27-card leads have 713
  legal moves on average (p99 2,748, max 3,895 over 3,000 deals), but a hill-climb over hands holding both wild
  cards found a lead with 15,947 legal moves (3..8 of every suit, 9d 9s and both wild 8h, at level 8).

So the id space has ``NUM_ACTIONS = 108 + 135,071 = 135,179`` ids: ``0..53`` are the tribute decisions (the card
kind given), ``54..107`` the return decisions, and ``108 + i`` is move ``i`` of the *current level's* table: pass
(``i = 0``) and the level's universe sorted by (category, rank, cards), see :class:`LevelMoveTable`. A move's id
depends on the level (which every GuanDan observation carries); ids past a smaller level's table are never legal.
A table takes 1.5-3 s to build the first time its level is met and holds ~3.8 MB (cached per process, 13 at most).
Mapping a legal list to ids costs ~0.7 us per move.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain
from typing import Sequence

import numpy as np

from cardrl.games.guandan_moves import DECK, NUM_KINDS, PASS, Category, Move, check_level, legal_moves

__all__ = ["LevelMoveTable", "level_table", "NUM_SPECIAL", "MAX_TABLE_SIZE", "NUM_ACTIONS", "TRIBUTE_BASE",
           "RETURN_BASE", "moves_to_counts", "decision_move"]

TRIBUTE_BASE = 0  # tribute ids 0..53: the kind given
RETURN_BASE = NUM_KINDS  # return ids 54..107: the kind returned
NUM_SPECIAL = 2 * NUM_KINDS
MAX_TABLE_SIZE = 135_071  # pass + the largest level move universe (level 2); the tests check all 13 levels
NUM_ACTIONS = NUM_SPECIAL + MAX_TABLE_SIZE
_POW3 = 3 ** np.arange(27, dtype=np.int64)
_POW3_F = (3.0 ** (np.arange(54) % 27)).astype(np.float64)  # per kind, for _keys_of_moves
_CATEGORY_INT = {c: int(c) for c in Category}
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)


def moves_to_counts(moves: Sequence[Move], dtype=np.int8) -> np.ndarray:
    """``(n, 54)`` card counts of ``moves`` (one vectorised bincount over all their cards)."""
    n = len(moves)
    if n == 0:
        return np.zeros((0, NUM_KINDS), dtype=dtype)
    lengths = np.fromiter((len(m[2]) for m in moves), dtype=np.int64, count=n)
    flat = np.fromiter((k for m in moves for k in m[2]), dtype=np.int64, count=int(lengths.sum()))
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    return np.bincount(rows * NUM_KINDS + flat, minlength=n * NUM_KINDS).reshape(n, NUM_KINDS).astype(dtype)


def decision_move(action: int) -> Move:
    """The ``Move`` of a tribute (0..53) or return (54..107) id: one card, rank as the engine's single."""
    kind = action % NUM_KINDS
    category = Category.TRIBUTE if action < RETURN_BASE else Category.RETURN
    return Move(category, kind // 4 if kind < 52 else kind - 38, (kind,))


def _move_keys(counts: np.ndarray, categories: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys (hi, lo) of moves: base-3 card counts of kinds 0..26 (lo) and 27..53 (hi, plus
    (rank + 1) << 44 and category << 49, so that sorting by (hi, lo) sorts by category, rank, cards)."""
    c = counts.astype(np.int64, copy=False)
    lo = c[:, :27] @ _POW3
    hi = c[:, 27:] @ _POW3 + ((ranks.astype(np.int64) + 1) << 44) + (categories.astype(np.int64) << 49)
    return hi, lo


def _keys_of_moves(moves: Sequence[Move]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_move_keys` straight from ``Move`` values (no (n, 54) matrix; float64 sums of powers of 3 below
    2**53 are exact)."""
    n = len(moves)
    lengths = np.fromiter((len(m[2]) for m in moves), dtype=np.int64, count=n)
    flat = np.fromiter(chain.from_iterable(m[2] for m in moves), dtype=np.int64, count=int(lengths.sum()))
    rows = np.repeat(np.arange(n), lengths)
    weights = _POW3_F[flat]
    high = flat >= 27
    lo = np.bincount(rows[~high], weights=weights[~high], minlength=n).astype(np.int64)
    hi = np.bincount(rows[high], weights=weights[high], minlength=n).astype(np.int64)
    cats = np.fromiter((_CATEGORY_INT[m[0]] for m in moves), dtype=np.int64, count=n)  # no IntEnum __index__
    ranks = np.fromiter((m[1] for m in moves), dtype=np.int64, count=n)
    hi += ((ranks + 1) << 44) + (cats << 49)
    return hi, lo


def _hash(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return hi.astype(np.uint64) * _HASH_MUL + lo.astype(np.uint64)


class LevelMoveTable:
    """The move universe of one level (pass and every lead move of the 108-card deck) with stable ids.

    Ids are positions in the universe sorted by (category, rank, cards); a move is stored as its exact key
    (see :func:`_move_keys`), so :meth:`ids_of` maps ``Move`` values to ids with one vectorised lookup and
    :meth:`move_of` / :meth:`counts_of` decode ids. Built by :func:`level_table` (cached per level).
    """

    def __init__(self, level: int):
        self.level = check_level(level)
        moves = [PASS] + legal_moves(DECK, None, self.level)
        counts = moves_to_counts(moves)
        cats = np.fromiter((m[0] for m in moves), dtype=np.int64, count=len(moves))
        ranks = np.fromiter((m[1] for m in moves), dtype=np.int64, count=len(moves))
        hi, lo = _move_keys(counts, cats, ranks)
        order = np.lexsort((lo, hi))
        self.hi, self.lo = hi[order], lo[order]
        hashes = _hash(self.hi, self.lo)
        self._hash_order = np.argsort(hashes, kind="stable").astype(np.int32)
        self._hash_sorted = hashes[self._hash_order]
        if (np.diff(self._hash_sorted) == 0).any():  # pragma: no cover (a 64-bit collision among ~135k keys)
            raise RuntimeError(f"move-key hash collision in the level {self.level} table")
        self.size = len(moves)
        for arr in (self.hi, self.lo, self._hash_order, self._hash_sorted):
            arr.setflags(write=False)

    def __len__(self) -> int:
        return self.size

    def ids_of(self, moves: Sequence[Move]) -> np.ndarray:
        """Table ids (0..size-1) of ``moves`` (card-play moves of this level, pass included). Raises
        ``ValueError`` for a move that is not in the table."""
        if not moves:
            return np.zeros(0, dtype=np.int64)
        hi, lo = _keys_of_moves(moves)
        pos = np.searchsorted(self._hash_sorted, _hash(hi, lo))
        pos = np.minimum(pos, self.size - 1)
        ids = self._hash_order[pos].astype(np.int64)
        bad = (self.hi[ids] != hi) | (self.lo[ids] != lo)
        if bad.any():
            raise ValueError(f"{moves[int(np.flatnonzero(bad)[0])]} is not a move of the level {self.level} table")
        return ids

    def counts_of(self, ids: np.ndarray) -> np.ndarray:
        """``(n, 54)`` int8 card counts of table ids."""
        ids = np.asarray(ids, dtype=np.int64)
        lo = (self.lo[ids][:, None] // _POW3) % 3
        hi = ((self.hi[ids][:, None] & ((1 << 44) - 1)) // _POW3) % 3
        return np.concatenate([lo, hi], axis=1).astype(np.int8)

    def categories_of(self, ids: np.ndarray) -> np.ndarray:
        """``(n,)`` int64 :class:`Category` values of table ids."""
        return self.hi[np.asarray(ids, dtype=np.int64)] >> 49

    def ranks_of(self, ids: np.ndarray) -> np.ndarray:
        """``(n,)`` int64 move ranks (the ``Move.rank`` convention) of table ids."""
        return ((self.hi[np.asarray(ids, dtype=np.int64)] >> 44) & 31) - 1

    def move_of(self, table_id: int) -> Move:
        """The ``Move`` value of a table id."""
        if not 0 <= table_id < self.size:
            raise ValueError(f"table id must be in 0..{self.size - 1} at level {self.level}, got {table_id}")
        hi = int(self.hi[table_id])
        counts = self.counts_of(np.array([table_id]))[0]
        cards = tuple(int(k) for k in np.repeat(np.arange(NUM_KINDS), counts))
        return Move(Category(hi >> 49), ((hi >> 44) & 31) - 1, cards)


@lru_cache(maxsize=None)
def level_table(level: int) -> LevelMoveTable:
    """The (immutable, cached) :class:`LevelMoveTable` of ``level`` (0..12 for 2..A)."""
    return LevelMoveTable(level)
