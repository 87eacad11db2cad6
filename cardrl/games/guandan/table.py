"""GuanDan's action ids: per-level move tables plus the tribute and return decisions, and the compiled legal-move
scan over them.

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

Legal moves (:meth:`LevelMoveTable.legal_ids`, what :class:`~cardrl.games.guandan.GuanDanGame` uses) are one
compiled scan (numba) over per-level arrays, :class:`LevelScan`: the universe factored into *groups* (a category and
rank: one unit of cards per rank of a sequence, trio + pair, one unit for n-of-a-kind and bombs), each unit a list of
*options* (the card multisets the by-value generator's ``fills`` gives on the full deck, wild substitutions
included), and a table from each group's mixed-radix product index to the move id. For a hand the scan keeps the
options the hand holds (two 54-bit tests each), enumerates their products within the wild cards held and sets the
ids in a bit set, which it reads back sorted; following, only the groups of the same category above the last move and
the bombs above it are visited. The result is the same set as :func:`~cardrl.games.guandan.moves.legal_moves` (which
remains the by-value reference; tests/games/test_guandan_moves_differential.py checks them against each other). The
scan's speed against the by-value generator, and what building, caching and compiling cost: docs/benchmarks.md.

A level's arrays hold ~6.2 MB (keys and hash index 3.8 MB, decode arrays 1.8 MB, scan 0.7 MB; the kernel's scratch
1.1 MB more). Building them takes the generator's lead moves of the deck, the keys, then a check that the scan's
groups cover the table exactly once, so they are cached on disk (:func:`cache_path`: ``~/.cache/cardrl`` or
``$CARDRL_CACHE_DIR``, ``off`` to disable; keyed by :data:`SCAN_VERSION` and a digest of this module's and the
generator's source) and per process (13 levels at most). The kernel is compiled with numba's ``cache=True``: the
first call in a process loads it from numba's cache instead of compiling it afresh. ``Move`` values map to ids with
:meth:`LevelMoveTable.ids_of`; ids decode to ``Move`` values from the decode arrays (:meth:`LevelMoveTable.values_of`,
:class:`LegalValues` lazily).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import chain
from collections.abc import Sequence as _SequenceABC
from typing import NamedTuple, Sequence

import numpy as np
from numba import njit

from cardrl.games.guandan.moves import (DECK, LEVEL_POWER, NUM_KINDS, PASS, Category, Move, Rank, check_level,
                                        legal_moves)

__all__ = ["LevelMoveTable", "level_table", "NUM_SPECIAL", "MAX_TABLE_SIZE", "NUM_ACTIONS", "TRIBUTE_BASE",
           "RETURN_BASE", "moves_to_counts", "decision_move", "LevelScan", "LegalValues", "build_level_scan",
           "cache_path", "SCAN_VERSION"]

TRIBUTE_BASE = 0  # tribute ids 0..53: the kind given
RETURN_BASE = TRIBUTE_BASE + NUM_KINDS  # return ids 54..107: the kind returned
NUM_SPECIAL = 2 * NUM_KINDS
MAX_TABLE_SIZE = 135_071  # pass + the largest level move universe (level 2); the tests check all 13 levels
NUM_ACTIONS = NUM_SPECIAL + MAX_TABLE_SIZE
_POW3 = 3 ** np.arange(27, dtype=np.int64)
_POW3_F = (3.0 ** (np.arange(54) % 27)).astype(np.float64)  # per kind, for _keys_of_moves
_CATEGORY_INT = {c: int(c) for c in Category}
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
MAX_MOVE_CARDS = 10  # a 10-card bomb is the largest move
_CATEGORY_OF = {int(c): c for c in Category}
_new_move = tuple.__new__
_SEQUENCE_CATS = frozenset((Category.STRAIGHT, Category.TUBE, Category.PLATE, Category.STRAIGHT_FLUSH))


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
        self._decode: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._scan: LevelScan | None = None
        self._scratch: tuple = ()
        cached = _read_cache(self.level)
        if cached is not None:
            self.hi, self.lo, self._hash_order, self._hash_sorted = (cached.pop(k) for k in _TABLE_FIELDS)
            self._decode = tuple(cached.pop(k) for k in _DECODE_FIELDS)
            self.size = len(self.hi)
            for arr in (self.hi, self.lo, self._hash_order, self._hash_sorted) + self._decode:
                arr.setflags(write=False)
            self._set_scan(LevelScan(**cached))
            return
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
        self._decode = self._build_decode()
        self._set_scan(build_level_scan(self))
        _write_cache(self.level, {**dict(zip(_TABLE_FIELDS, (self.hi, self.lo, self._hash_order, self._hash_sorted))),
                                  **dict(zip(_DECODE_FIELDS, self._decode)), **self._scan._asdict()})

    def __len__(self) -> int:
        return self.size

    def __reduce__(self):
        """Pickled as its level: unpickling gives the process's own cached table (not ~7 MB of arrays)."""
        return level_table, (self.level,)

    def _lookup_keys(self, hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        """Table ids of exact move keys (:func:`_move_keys`), ``-1`` where a key is no move of the table."""
        pos = np.minimum(np.searchsorted(self._hash_sorted, _hash(hi, lo)), self.size - 1)
        ids = self._hash_order[pos].astype(np.int64)
        ids[(self.hi[ids] != hi) | (self.lo[ids] != lo)] = -1
        return ids

    def _set_scan(self, scan: "LevelScan") -> None:
        for arr in scan:
            arr.setflags(write=False)
        self._scan = scan
        # the kernel's scratch: feasible options (local index, wild cards) per unit slot, their number per unit
        # type, the id bit set (all zero between calls) and the output
        self._scratch = (np.zeros(len(scan.opt_w), dtype=np.int32), np.zeros(len(scan.opt_w), dtype=np.int8),
                         np.zeros(len(scan.unit_start), dtype=np.int32),
                         np.zeros((self.size + 63) // 64, dtype=np.uint64), np.zeros(self.size, dtype=np.int64))

    @property
    def scan(self) -> "LevelScan":
        """The compiled scan's arrays of this level (:class:`LevelScan`)."""
        return self._scan

    def nbytes(self) -> int:
        """Bytes held by the key, decode and scan arrays (the kernel's scratch aside: ~1.1 MB)."""
        return (int(sum(a.nbytes for a in (self.hi, self.lo, self._hash_order, self._hash_sorted) + self._decode))
                + self._scan.nbytes())

    def legal_ids(self, hand: np.ndarray, last_move: Move | None) -> np.ndarray:
        """Sorted table ids of the legal moves of ``hand`` (54 counts 0..2) on ``last_move`` (``None`` or pass:
        leading), the same set as :func:`~cardrl.games.guandan.moves.legal_moves` gives by value (pass, id 0,
        included when following). One compiled scan (:func:`_scan_kernel`); not for concurrent threads on one table
        (shared scratch; the kernel holds the GIL)."""
        scan = self.scan
        lead = last_move is None or last_move[0] == Category.PASS
        last_cat = last_cmp = last_bomb = 0
        if not lead:
            cat = last_move[0]
            last_cat = int(cat)
            if cat in _SEQUENCE_CATS:
                last_cmp = last_move[1]
            else:
                last_cmp = LEVEL_POWER if last_move[1] == self.level else last_move[1]
            if cat == Category.JOKER_BOMB:
                last_bomb = 16 * 22
            elif cat == Category.STRAIGHT_FLUSH:
                last_bomb = 16 * 11 + last_move[1]
            elif cat == Category.BOMB:
                last_bomb = 16 * 2 * len(last_move[2]) + last_cmp
        feas_opt, feas_w, feas_n, bitmap, out = self._scratch
        hand = np.ascontiguousarray(hand, dtype=np.int8)
        if hand.shape != (NUM_KINDS,):
            raise ValueError(f"a hand must be a 54-count vector, got shape {hand.shape}")
        n = _scan_kernel(hand, 4 * self.level + 2, lead, last_cat, last_cmp, last_bomb, scan.opt_m1, scan.opt_m2,
                         scan.opt_w, scan.unit_start, scan.unit_end, scan.unit_kinds, scan.unit_size, scan.group_cat,
                         scan.group_cmp, scan.group_bomb, scan.group_units, scan.group_strides, scan.group_offset,
                         scan.ids, feas_opt, feas_w, feas_n, bitmap, _DEBRUIJN_INDEX, out)
        return out[:n].copy()

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

    def _build_decode(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(category int8, rank int8, cards (M, 10) int8 sorted and padded with -1, card count int8) of every id:
        what :meth:`values_of` builds ``Move`` values from without base-3 arithmetic (~1.8 MB)."""
        all_ids = np.arange(self.size)
        counts = self.counts_of(all_ids)
        ncards = counts.sum(axis=1).astype(np.int8)
        cards = np.full((self.size, MAX_MOVE_CARDS), -1, dtype=np.int8)
        rows = np.repeat(all_ids, ncards)
        kinds = np.nonzero(counts)[1].repeat(counts[counts > 0])
        cols = np.arange(len(rows)) - np.repeat(np.cumsum(ncards) - ncards, ncards)
        cards[rows, cols] = kinds
        out = (self.categories_of(all_ids).astype(np.int8), self.ranks_of(all_ids).astype(np.int8), cards, ncards)
        for arr in out:
            arr.setflags(write=False)
        return out

    def _decode_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self._decode

    def values_of(self, ids) -> list[Move]:
        """The ``Move`` values of table ids (a fast :meth:`move_of` for many ids; no range check)."""
        cats, ranks, cards, ncards = self._decode_arrays()
        ids = np.asarray(ids, dtype=np.int64)
        c, r, n, rows = cats[ids].tolist(), ranks[ids].tolist(), ncards[ids].tolist(), cards[ids].tolist()
        return [_new_move(Move, (_CATEGORY_OF[c[i]], r[i], tuple(rows[i][:n[i]]))) for i in range(len(c))]

    def value_of(self, table_id: int) -> Move:
        """The ``Move`` value of one table id (no range check; :meth:`move_of` checks)."""
        cats, ranks, cards, ncards = self._decode
        return _new_move(Move, (_CATEGORY_OF[int(cats[table_id])], int(ranks[table_id]),
                                tuple(cards[table_id, :ncards[table_id]].tolist())))

    def move_of(self, table_id: int) -> Move:
        """The ``Move`` value of a table id."""
        if not 0 <= table_id < self.size:
            raise ValueError(f"table id must be in 0..{self.size - 1} at level {self.level}, got {table_id}")
        hi = int(self.hi[table_id])
        counts = self.counts_of(np.array([table_id]))[0]
        cards = tuple(int(k) for k in np.repeat(np.arange(NUM_KINDS), counts))
        return Move(Category(hi >> 49), ((hi >> 44) & 31) - 1, cards)


class LegalValues(_SequenceABC):
    """The ``Move`` values of sorted table ids, decoded on first access (the engine's legal list: most steps only
    ever read the one move played). Immutable; ``index(move)`` looks the move's id up by key."""

    __slots__ = ("_table", "_ids", "_values")

    def __init__(self, table: LevelMoveTable, ids: np.ndarray):
        self._table = table
        self._ids = ids  # sorted table ids
        self._values: list[Move] | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def __reduce__(self):
        return LegalValues, (self._table, self._ids)

    def __getitem__(self, i):
        if self._values is None:
            if not isinstance(i, slice):  # one move (the one played): decode it alone
                return self._table.value_of(int(self._ids[i]))
            self._values = self._table.values_of(self._ids)
        return self._values[i]

    def __iter__(self):
        if self._values is None:
            self._values = self._table.values_of(self._ids)
        return iter(self._values)

    def index(self, move, start: int = 0, stop: int | None = None) -> int:
        """Position of ``move`` (a ``Move``) among the legal moves; ValueError when it is not one (``start`` and
        ``stop`` are accepted for the ``Sequence`` signature and ignored: each move appears once)."""
        if not isinstance(move, tuple) or len(move) != 3:
            raise ValueError(f"{move!r} is not in the legal moves")
        hi, lo = _keys_of_moves([move])
        table_id = int(self._table._lookup_keys(hi, lo)[0])
        pos = int(np.searchsorted(self._ids, table_id))
        if table_id < 0 or pos >= len(self._ids) or self._ids[pos] != table_id:
            raise ValueError(f"{move!r} is not in the legal moves")
        return pos

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, _SequenceABC) else NotImplemented

    def __repr__(self) -> str:
        return f"LegalValues({list(self)!r})"


def level_table(level: Rank | str) -> LevelMoveTable:
    """The (immutable, cached) :class:`LevelMoveTable` of ``level`` (a ``Rank`` or ``"2"`` .. ``"A"``)."""
    return _level_table(check_level(level))


@lru_cache(maxsize=None)
def _level_table(level: Rank) -> LevelMoveTable:
    return LevelMoveTable(level)


# ---- compiled legal-move scan ----------------------------------------------------------------------------------
# Every move of a level's universe is a product of *units*: the cards one rank (or the jokers) contributes. A unit
# *type* is one call of the generator's ``MoveGenerator.fills`` on the full deck (rank, size, suits, wild cap), or a
# fixed joker group; its *options* are the card multisets that call returns, each with the number of wild kinds it
# holds (natural or standing in). A *group* is a (category, rank) shape: a list of unit types (one per rank of a
# sequence; trio + pair; one for n-of-a-kind and bombs). The group's moves are exactly the products of one option
# per unit with at most 2 wild cards in all, and ``LevelScan.ids`` maps the mixed-radix product index to the table id.
# Non-wild kinds of different units never overlap, so for a hand the legal products are the products of options
# the hand holds whose wild cards add up to at most the wilds held: what the generator enumerates, with ids.
SCAN_VERSION = 2


class LevelScan(NamedTuple):
    """The arrays of the compiled legal-move scan of one level (see the comment above :data:`SCAN_VERSION`).

    Options (``O``): ``opt_m1`` / ``opt_m2`` uint64 bit sets over the 54 kinds of the non-wild kinds the option
    holds at least once / twice, ``opt_w`` int8 its wild cards. Unit types (``U``): options
    ``unit_start[u]..unit_end[u]``, ``unit_kinds`` the uint64 bit set of the non-wild kinds its options draw from
    and ``unit_size`` the cards of each option (a hand holding fewer of those kinds plus wilds has none). Groups
    (``G``): ``group_cat`` category, ``group_cmp`` the value a same-category follow must exceed (power for
    n-of-a-kind types, start for sequences), ``group_bomb`` the bomb strength (``16 * a + b`` of
    :func:`~cardrl.games.guandan.moves.bomb_key`; 0 for non-bombs), ``group_units`` (G, 5) unit types (``-1``
    padding), ``group_strides`` (G, 5) mixed-radix strides, ``group_offset`` the start of the group's block of
    ``ids`` (int32 table ids; ``-1`` for products of more than 2 wild cards, never legal).
    """

    opt_m1: np.ndarray
    opt_m2: np.ndarray
    opt_w: np.ndarray
    unit_start: np.ndarray
    unit_end: np.ndarray
    unit_kinds: np.ndarray
    unit_size: np.ndarray
    group_cat: np.ndarray
    group_cmp: np.ndarray
    group_bomb: np.ndarray
    group_units: np.ndarray
    group_strides: np.ndarray
    group_offset: np.ndarray
    ids: np.ndarray

    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        return int(sum(a.nbytes for a in self))


_JOKERS = ((52, 14), (53, 15))  # (kind, rank) of the black and red joker
_MAX_UNITS = 5
_DEBRUIJN = 0x03F79D71B4CB0A89  # de Bruijn sequence: (lowest set bit * it) >> 58 names the bit
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
_DEBRUIJN_INDEX[[(((1 << b) * _DEBRUIJN) & 0xFFFFFFFFFFFFFFFF) >> 58 for b in range(64)]] = np.arange(64)


def _scan_groups(level: int):
    """The unit types (option card tuples per type) and groups ``(category, rank, cmp, bomb, [unit ids])`` of a
    level, enumerated in the generator's own terms (its ``fills`` on the full deck)."""
    from cardrl.games.guandan.moves import (ALL_SUITS, HEARTS, NUM_RANKS, MoveGenerator, _LINE, _SEQUENCE_SHAPES,
                                            power)

    gen = MoveGenerator([2] * NUM_KINDS, level)
    wild = gen.wild
    index: dict = {}
    unit_options: list[list[tuple[int, ...]]] = []

    def unit(key, options) -> int:
        u = index.get(key)
        if u is None:
            u = index[key] = len(unit_options)
            unit_options.append(list(options))
        return u

    def fill(rank: int, size: int, suits: tuple[int, ...], max_sub: int) -> int:
        return unit((rank, size, suits, max_sub), [c for c, _ in gen.fills(rank, size, suits, max_sub)])

    groups = []
    for cat, size in ((Category.SINGLE, 1), (Category.PAIR, 2), (Category.TRIO, 3)):
        for rank in range(NUM_RANKS):
            groups.append((cat, rank, power(rank, level), 0,
                           [fill(rank, size, ALL_SUITS, size - 1 if rank != level else size)]))
        if size <= 2:
            for kind, jrank in _JOKERS:
                groups.append((cat, jrank, jrank, 0, [unit(("joker", kind, size), [(kind,) * size])]))
    pair_units = [(rank, fill(rank, 2, ALL_SUITS, 1 if rank != level else 2)) for rank in range(NUM_RANKS)]
    pair_units += [(jrank, unit(("joker", kind, 2), [(kind, kind)])) for kind, jrank in _JOKERS]
    wild_pair = unit(("wild pair",), [(wild, wild)])
    for trank in range(NUM_RANKS):
        trio = fill(trank, 3, ALL_SUITS, 2)
        for prank, pu in pair_units + ([(-1, wild_pair)] if trank == level else []):
            if prank != trank:
                groups.append((Category.THREE_WITH_TWO, trank, power(trank, level), 0, [trio, pu]))
    for cat in (Category.STRAIGHT, Category.TUBE, Category.PLATE, Category.STRAIGHT_FLUSH):
        length, copies, starts = _SEQUENCE_SHAPES[cat]
        suit_sets = [(s,) for s in ALL_SUITS] if cat == Category.STRAIGHT_FLUSH else [ALL_SUITS]
        for suits in suit_sets:
            for start in range(starts):
                units = [fill(r, copies, suits, copies) for r in _LINE[start:start + length]]
                groups.append((cat, start, start, 16 * 11 + start if cat == Category.STRAIGHT_FLUSH else 0, units))
    for rank in range(NUM_RANKS):
        for size in range(4, 8 + (0 if rank == level else 2) + 1):
            groups.append((Category.BOMB, rank, power(rank, level), 16 * (2 * size) + power(rank, level),
                           [fill(rank, size, ALL_SUITS, size - 1)]))
    groups.append((Category.JOKER_BOMB, 0, 0, 16 * 22, [unit(("four jokers",), [(52, 52, 53, 53)])]))
    assert HEARTS == 2
    return wild, unit_options, groups


def build_level_scan(table: "LevelMoveTable") -> LevelScan:
    """The :class:`LevelScan` of ``table``'s level, checked to be a bijection onto the table's moves (pass aside)."""
    level = table.level
    wild, unit_options, groups = _scan_groups(level)
    opt_cards = [c for opts in unit_options for c in opts]
    sizes = [len(o) for o in unit_options]
    unit_end = np.cumsum(sizes).astype(np.int32)
    unit_start = (unit_end - np.asarray(sizes, dtype=np.int32)).astype(np.int32)
    opt_counts = np.zeros((len(opt_cards), NUM_KINDS), dtype=np.int64)
    for i, cards in enumerate(opt_cards):
        for k in cards:
            opt_counts[i, k] += 1
    opt_w = opt_counts[:, wild].astype(np.int8)
    natural = opt_counts.copy()
    natural[:, wild] = 0
    weights = np.uint64(1) << np.arange(NUM_KINDS, dtype=np.uint64)
    opt_m1 = np.bitwise_or.reduce(np.where(natural >= 1, weights, np.uint64(0)), axis=1).astype(np.uint64)
    opt_m2 = np.bitwise_or.reduce(np.where(natural >= 2, weights, np.uint64(0)), axis=1).astype(np.uint64)

    unit_kinds = np.array([np.bitwise_or.reduce(opt_m1[a:b]) for a, b in zip(unit_start, unit_end)], dtype=np.uint64)
    unit_size = np.array([len(opts[0]) for opts in unit_options], dtype=np.int8)
    g = len(groups)
    group_units = np.full((g, _MAX_UNITS), -1, dtype=np.int32)
    group_strides = np.zeros((g, _MAX_UNITS), dtype=np.int32)
    group_offset = np.zeros(g, dtype=np.int32)
    blocks = []
    offset = 0
    for gi, (cat, rank, _cmp, _bomb, units) in enumerate(groups):
        n = [sizes[u] for u in units]
        strides = np.cumprod([1] + n[::-1])[:-1][::-1]  # C order: the last unit varies fastest
        group_units[gi, :len(units)] = units
        group_strides[gi, :len(units)] = strides
        group_offset[gi] = offset
        total = np.zeros(tuple(n) + (NUM_KINDS,), dtype=np.int64)
        for j, u in enumerate(units):
            shape = [1] * len(units) + [NUM_KINDS]
            shape[j] = n[j]
            total = total + opt_counts[unit_start[u]:unit_end[u]].reshape(shape)
        total = total.reshape(-1, NUM_KINDS)
        cats = np.full(len(total), int(cat), dtype=np.int64)
        hi, lo = _move_keys(total, cats, np.full(len(total), rank, dtype=np.int64))
        ids = table._lookup_keys(hi, lo)
        valid = total[:, wild] <= 2
        if (ids[valid] < 0).any():
            raise AssertionError(f"level {level}: group {cat.name} {rank} makes a move missing from the table")
        ids[~valid] = -1
        blocks.append(ids.astype(np.int32))
        offset += len(ids)
    all_ids = np.concatenate(blocks)
    found = np.sort(all_ids[all_ids >= 0])
    if len(found) != table.size - 1 or (found != np.arange(1, table.size)).any():
        raise AssertionError(f"level {level}: the scan groups do not cover the move table exactly once")
    scan = LevelScan(
        opt_m1=opt_m1, opt_m2=opt_m2, opt_w=opt_w, unit_start=unit_start, unit_end=unit_end,
        unit_kinds=unit_kinds, unit_size=unit_size,
        group_cat=np.array([int(x[0]) for x in groups], dtype=np.int8),
        group_cmp=np.array([x[2] for x in groups], dtype=np.int8),
        group_bomb=np.array([x[3] for x in groups], dtype=np.int16),
        group_units=group_units, group_strides=group_strides, group_offset=group_offset, ids=all_ids)
    return scan


@njit(cache=True)
def _unit_options(u, unit_start, unit_end, opt_m1, opt_m2, opt_w, miss1, miss2, nw, feas_opt, feas_w, feas_n):
    """Lists the options of unit type ``u`` that a hand holds (local index and wild cards) in its scratch slots."""
    s = unit_start[u]
    n = 0
    for o in range(s, unit_end[u]):
        if opt_w[o] <= nw and (opt_m1[o] & miss1) == 0 and (opt_m2[o] & miss2) == 0:
            feas_opt[s + n] = o - s
            feas_w[s + n] = opt_w[o]
            n += 1
    feas_n[u] = n


@njit(cache=True)
def _popcount(x):
    """Set bits of a uint64 (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _scan_kernel(hand, wild, lead, last_cat, last_cmp, last_bomb, opt_m1, opt_m2, opt_w, unit_start, unit_end,
                 unit_kinds, unit_size, group_cat, group_cmp, group_bomb, group_units, group_strides, group_offset, ids,
                 feas_opt, feas_w, feas_n, bitmap, debruijn_index, out):
    """Writes the sorted legal table ids of ``hand`` (pass, id 0, first when following) into ``out``; returns how
    many. ``lead``: every group; else the groups of ``last_cat`` above ``last_cmp`` and the bombs above
    ``last_bomb`` (every bomb when ``last_bomb`` is 0)."""
    one = np.uint64(1)
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for k in range(54):
        if k != wild:
            c = hand[k]
            if c >= 1:
                h1 |= one << np.uint64(k)
            if c >= 2:
                h2 |= one << np.uint64(k)
    miss1 = ~h1
    miss2 = ~h2
    nw = hand[wild]
    feas_n[:] = -1
    pos = np.zeros(_MAX_UNITS, dtype=np.int64)
    acc_i = np.zeros(_MAX_UNITS, dtype=np.int64)
    acc_w = np.zeros(_MAX_UNITS, dtype=np.int64)
    lowest = len(bitmap) * 64  # the range of ids set: the collection below reads only its words
    highest = 0
    if not lead:
        bitmap[0] |= one  # pass
        lowest = 0
    for g in range(len(group_cat)):
        if not lead:
            if last_bomb > 0:
                if group_bomb[g] <= last_bomb:
                    continue
            elif group_bomb[g] == 0 and (group_cat[g] != last_cat or group_cmp[g] <= last_cmp):
                continue
        nu = 0
        ok = True
        for j in range(_MAX_UNITS):
            u = group_units[g, j]
            if u < 0:
                break
            if feas_n[u] < 0:
                held = _popcount(h1 & unit_kinds[u]) + _popcount(h2 & unit_kinds[u]) + nw
                if held < unit_size[u]:
                    feas_n[u] = 0
                    ok = False
                    break
                _unit_options(u, unit_start, unit_end, opt_m1, opt_m2, opt_w, miss1, miss2, nw,
                              feas_opt, feas_w, feas_n)
            if feas_n[u] == 0:
                ok = False
                break
            nu += 1
        if not ok:
            continue
        base = group_offset[g]
        depth = 0
        pos[0] = 0
        acc_i[0] = 0
        acc_w[0] = 0
        while depth >= 0:
            u = group_units[g, depth]
            if pos[depth] >= feas_n[u]:
                depth -= 1
                if depth >= 0:
                    pos[depth] += 1
                continue
            if depth == nu - 1:  # the last unit: every option within the wild budget, in one loop
                s = unit_start[u]
                room = nw - acc_w[depth]
                stride = group_strides[g, depth]
                head = base + acc_i[depth]
                for k in range(s, s + feas_n[u]):
                    if feas_w[k] <= room:
                        m = ids[head + feas_opt[k] * stride]
                        bitmap[m >> 6] |= one << np.uint64(m & 63)
                        if m < lowest:
                            lowest = m
                        if m > highest:
                            highest = m
                depth -= 1
                if depth >= 0:
                    pos[depth] += 1
                continue
            k = unit_start[u] + pos[depth]
            w = acc_w[depth] + feas_w[k]
            if w > nw:
                pos[depth] += 1
                continue
            idx = acc_i[depth] + feas_opt[k] * group_strides[g, depth]
            depth += 1
            pos[depth] = 0
            acc_i[depth] = idx
            acc_w[depth] = w
    n = 0
    for i in range(lowest >> 6, (highest >> 6) + 1):
        word = bitmap[i]
        if word == 0:
            continue
        bitmap[i] = np.uint64(0)
        while word != 0:
            low = word & (~word + one)
            out[n] = 64 * i + debruijn_index[(low * np.uint64(_DEBRUIJN)) >> np.uint64(58)]
            n += 1
            word ^= low
    return n


# ---- disk cache --------------------------------------------------------------------------------------------------
# A level's table and scan take ~1.5-3 s to build (the generator's lead moves of the 108-card deck, then the scan's
# bijection check), so they are kept under $CARDRL_CACHE_DIR (default ~/.cache/cardrl; "off" disables) as one .npz
# per level, keyed by SCAN_VERSION and a digest of this module's and the generator's source: any edit to either
# rebuilds. Reading one back takes a few ms.
_TABLE_FIELDS = ("hi", "lo", "hash_order", "hash_sorted")
_DECODE_FIELDS = ("decode_category", "decode_rank", "decode_cards", "decode_ncards")


@lru_cache(maxsize=1)
def _cache_key() -> str:
    import hashlib
    from pathlib import Path

    from cardrl.games.guandan import moves as guandan_moves

    digest = hashlib.sha256()
    for path in (Path(__file__), Path(guandan_moves.__file__)):
        digest.update(path.read_bytes())
    return f"v{SCAN_VERSION}-{digest.hexdigest()[:16]}"


def cache_path(level: Rank | str):
    """The cache file of a level's table (``None`` when the cache is off)."""
    import os
    from pathlib import Path

    root = os.environ.get("CARDRL_CACHE_DIR", "")
    if root.lower() == "off":
        return None
    base = Path(root) if root else Path.home() / ".cache" / "cardrl"
    return base / f"guandan_level_table_{_cache_key()}_L{int(check_level(level))}.npz"


def _read_cache(level: int) -> dict[str, np.ndarray] | None:
    path = cache_path(level)
    if path is None or not path.exists():
        return None
    try:
        with np.load(path) as data:
            out = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError):
        return None
    if set(out) != set(_TABLE_FIELDS) | set(_DECODE_FIELDS) | set(LevelScan._fields):
        return None
    return out


def _write_cache(level: int, arrays: dict[str, np.ndarray]) -> None:
    import os
    import tempfile

    path = cache_path(level)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
        for stale in path.parent.glob(f"guandan_level_table_*_L{int(level)}.npz"):  # other versions of this level
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:  # a read-only home: build every time
        pass
