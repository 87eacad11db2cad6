"""GuanDan moves: card kinds, the move value, per-hand legal-move generation with wild cards, and ``beats``.

Rules: docs/rules.md "GuanDan" and its pitfalls list; Lu et al. 2023 (DanZero, Sec. III) and Zhao et al. 2024
(DanZero+, Sec. III and appendix) for the game description.

Cards
    Two decks, 108 cards; a hand is a 54-count vector (each kind 0, 1 or 2). Kind ``k < 52`` is
    ``4 * rank + suit`` with ``rank`` 0..12 for ``2 3 4 5 6 7 8 9 T J Q K A`` and ``suit`` in the order of
    :mod:`cardrl.cards` (diamonds, clubs, hearts, spades: ``d c h s``, hearts = 2); 52 is the black joker,
    53 the red joker. At level ``L`` the heart level card ``4 * L + 2`` is the wild.

Levels
    A level is a rank: a :class:`Rank` (``Rank.FOUR``; an ``IntEnum`` whose value is the rank index, 0 for 2 ..
    12 for A, so it indexes arrays and does arithmetic like an int) or its name ``"2"`` .. ``"9"``, ``"T"`` (or
    ``"10"``), ``"J"``, ``"Q"``, ``"K"``, ``"A"``. Every function here that takes a ``level`` checks it with
    :func:`parse_level`, which refuses a plain int: ``level=2`` could mean the 2s or rank index 2 (the 4s), so it
    says to write ``"4"`` / ``Rank.FOUR`` or ``Rank(2)``. The engine's own
    levels (``GuanDanGame.level``, a view's ``level``) are ``Rank`` values.

Moves
    A :class:`Move` is ``(category, rank, cards)``: ``cards`` is the sorted tuple of the card kinds played
    (repeats for two copies), so the same cards used two ways (a wild as the 5 of a straight or as the
    level card of a pair) give two different moves. ``rank`` is:

    * single, pair, trio, three-with-two (the trio's rank), bomb: the *natural* rank index 0..12, or 14 (black
      joker) / 15 (red joker). Its power at level ``L`` is :func:`power`: 13 for the level rank (above A,
      below the jokers), the index otherwise.
    * straight, tube, plate, straight flush: the sequence start ``s`` on the ace-low line
      ``A 2 3 ... K A`` (position 0 is the low ace, position ``p >= 1`` is rank ``p - 1``): straights and
      straight flushes ``s = 0..9`` (A2345 .. TJQKA), tubes ``0..11`` (AA2233 .. QQKKAA), plates ``0..12``
      (AAA222 .. KKKAAA). The level rank sits at its natural place.
    * four jokers: 0 (no rank; shown without one).

    What each card is played as (a wild card's stand-in included) is :meth:`Move.as_played` (a
    :class:`Reading`), the ranks along a sequence :meth:`Move.sequence_ranks`; :func:`classify` gives every
    combination a set of cards makes at a level.

Wild cards (the hearts of the level rank) stand for any non-joker card in any combination. A combination
made of wild cards only keeps its natural meaning (a single or pair of the level rank): two wilds are
never played as, say, a pair of 3s. A same-suit run of five is both a straight and a straight flush (two
moves).

Ordering (:func:`beats`): a non-bomb beats only the same category with a higher rank (power); bombs beat
every non-bomb and rank 4-card < 5-card < straight flush (by start) < 6- .. 10-card (size, then power) <
four jokers. Equal straight flushes do not beat each other.

Move table or per-hand generation?
    The move universe of one level (the lead moves of all 108 cards, :func:`move_universe_size`) holds
    132,169..135,070 moves depending on the level (level 2: single 54, pair 180, trio 376, three-with-two
    59,919, straight 28,224, tube 33,672, plate 9,672, bomb 2,354, straight flush 618, four jokers 1); it
    takes 7.1 MB as a (M, 54) uint8 matrix, and it differs per level (the wild and the level rank move), so a
    single id space for all levels would be ~1.7M moves. A per-level table is practical, but stable ids are only
    per level. This module generates moves per hand and identifies a move by its value; the engine's legal moves
    come from a compiled scan over the per-level table (:mod:`cardrl.games.guandan.table`; the two timed against
    each other: docs/benchmarks.md), built from this module's ``fills`` and checked against :func:`legal_moves`
    (tests/games/test_guandan_moves_differential.py). Legal-set sizes of random
    27-card leads (3,000 deals, random level): mean 770, median 480, p99 2,748, max 3,895 (0 wilds: mean 326, max
    998; 1 wild: mean 1,170, max 3,004; 2 wilds: mean 2,231, max 3,895; hands forced to hold both wilds reach
    5,000: DanZero+'s "more than 5,000").
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache
from typing import Iterable, NamedTuple

import numpy as np

NUM_KINDS = 54
NUM_RANKS = 13
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "dchs"
HEARTS = 2
BLACK_JOKER = 52
RED_JOKER = 53
BLACK_JOKER_RANK = 14
RED_JOKER_RANK = 15
LEVEL_POWER = 13
ALL_SUITS = (0, 1, 2, 3)
DECK = np.full(NUM_KINDS, 2, dtype=np.int8)  # the two-deck multiset: every kind twice
DECK.setflags(write=False)


class Category(IntEnum):
    """Move categories (docs/rules.md "GuanDan"; DanZero's card types)."""

    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIO = 3
    THREE_WITH_TWO = 4
    STRAIGHT = 5
    TUBE = 6
    PLATE = 7
    BOMB = 8
    STRAIGHT_FLUSH = 9
    JOKER_BOMB = 10
    TRIBUTE = 11  # not card plays: the tribute-phase decisions of the engine (one card each)
    RETURN = 12


class Rank(IntEnum):
    """A rank, valued by its rank index (2 is 0 .. A is 12): what a GuanDan level is. ``str(Rank.TEN)`` is
    ``"T"``, the notation of the cards; :func:`parse_level` turns ``"2"`` .. ``"A"`` (or ``"10"``) into one."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    def __str__(self) -> str:
        return RANK_CHARS[self.value]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


RANKS = tuple(Rank)  # RANKS[i] is the Rank of rank index i (a tuple lookup, cheaper than Rank(i) in hot paths)


BOMB_CATEGORIES = frozenset((Category.BOMB, Category.STRAIGHT_FLUSH, Category.JOKER_BOMB))
_SEQUENCE_SHAPES = {Category.STRAIGHT: (5, 1, 10), Category.TUBE: (3, 2, 12), Category.PLATE: (2, 3, 13),
                    Category.STRAIGHT_FLUSH: (5, 1, 10)}  # (length, copies per rank, number of starts)


class Move(NamedTuple):
    """A GuanDan move: category, rank (see the module docstring) and the sorted card kinds played.

    A value (hashable, comparable); ``Move.cards`` holds one entry per card, so ``len(move.cards)`` is its size.
    """

    category: Category
    rank: int
    cards: tuple[int, ...]

    @property
    def is_pass(self) -> bool:
        return self.category == Category.PASS

    @property
    def is_bomb(self) -> bool:
        return self.category in BOMB_CATEGORIES

    def counts(self) -> np.ndarray:
        """The 54-count vector of the cards."""
        return cards_to_counts(self.cards)

    def as_played(self, level: "Rank | str") -> "Reading":
        """What every card of the move is played as at ``level`` (wild stand-ins explicit): a :class:`Reading`.
        ValueError when the move is no combination of its cards at that level."""
        level = parse_level(level)
        if self.category in (Category.PASS, Category.TRIBUTE, Category.RETURN):
            return _reading(self, level)
        if self not in legal_moves(cards_to_counts(self.cards), None, level):
            raise ValueError(f"{move_to_string(self)} is not a combination of its cards at level {level} "
                             f"(its readings: {[str(r) for r in classify(self.cards, level)] or 'none'})")
        return _reading(self, level)

    def substitutions(self, level: "Rank | str") -> tuple["PlayedCard", ...]:
        """The wild cards of the move that stand for another card at ``level`` (see :meth:`as_played`)."""
        return self.as_played(level).substitutions

    def sequence_ranks(self) -> tuple[Rank, ...]:
        """The ranks along a straight, tube, plate or straight flush, low to high (``A 2 3 4 5`` for the lowest
        straight; the level does not move them). ValueError for other categories, whose ``rank`` is the rank."""
        return sequence_ranks(self.category, self.rank)

    def __str__(self) -> str:
        return move_to_string(self)


PASS = Move(Category.PASS, -1, ())
_new = tuple.__new__  # Move construction without the NamedTuple keyword wrapper (hot loops)


# ---- cards -------------------------------------------------------------------------------------------
def wild_kind(level: "Rank | str") -> int:
    """The kind of the wild card (heart of the level rank) at ``level``."""
    return 4 * parse_level(level) + HEARTS


_LEVEL_NAMES = {**{ch: Rank(i) for i, ch in enumerate(RANK_CHARS)}, "10": Rank.TEN}
_LEVEL_HELP = ("a GuanDan level is a rank: its name '2' .. '9', 'T' (or '10'), 'J', 'Q', 'K', 'A', or a Rank "
               "(cardrl.games.guandan.moves.Rank, e.g. Rank.FOUR)")


def parse_level(level: "Rank | str") -> Rank:
    """The :class:`Rank` of a level given as a ``Rank`` or a rank name (``"4"``, ``"T"`` or ``"10"``, ``"a"``).

    A plain int is refused (TypeError): before levels took ranks ``level=2`` meant rank index 2, the 4s, and read
    as a rank it would be the 2s. ``Rank(i)`` turns a rank index ``i`` into a level."""
    if isinstance(level, Rank):
        return level
    if isinstance(level, str):
        got = _LEVEL_NAMES.get(level.strip().upper())
        if got is None:
            raise ValueError(f"level {level!r} is no rank: {_LEVEL_HELP}")
        return got
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)):
        raise TypeError(f"level must be a rank, got {type(level).__name__} {level!r}: {_LEVEL_HELP}")
    example = f"; for rank index {int(level)} (the {RANK_CHARS[int(level)]}s, what level={int(level)} meant before " \
              f"levels took ranks) write level={RANK_CHARS[int(level)]!r} or Rank({int(level)})" \
        if 0 <= level < NUM_RANKS else ""
    raise TypeError(f"level={int(level)} is ambiguous (a rank or a rank index?): {_LEVEL_HELP}{example}")


check_level = parse_level  # the name the rest of cardrl imports


def power(rank: int, level: int) -> int:
    """Power of a natural rank (0..12, 14, 15) in singles/pairs/trios/bombs: the level rank is 13."""
    return LEVEL_POWER if rank == level else rank


def card_name(kind: int) -> str:
    """``"5h"``, ``"Td"``, ``"BJ"``, ``"RJ"``."""
    if kind == BLACK_JOKER:
        return "BJ"
    if kind == RED_JOKER:
        return "RJ"
    return RANK_CHARS[kind // 4] + SUIT_CHARS[kind % 4]


def parse_cards(text: str) -> tuple[int, ...]:
    """``"5h 5d BJ"`` -> sorted kinds; tokens are rank+suit (``2..9 T J Q K A`` + ``d c h s``), BJ, RJ."""
    kinds = []
    for token in text.split():
        up = token.upper()
        if up in ("BJ", "RJ"):
            kinds.append(BLACK_JOKER if up == "BJ" else RED_JOKER)
            continue
        if up.startswith("10"):
            up = "T" + up[2:]
        if len(up) != 2 or up[0] not in RANK_CHARS or up[1].lower() not in SUIT_CHARS:
            raise ValueError(f"unknown card {token!r} in {text!r}: use rank (2-9, T, J, Q, K, A) + suit "
                             f"(d, c, h, s), or BJ / RJ")
        kinds.append(4 * RANK_CHARS.index(up[0]) + SUIT_CHARS.index(up[1].lower()))
    return tuple(sorted(kinds))


def cards_to_counts(cards: Iterable[int]) -> np.ndarray:
    counts = np.zeros(NUM_KINDS, dtype=np.int8)
    for kind in cards:
        counts[kind] += 1
    return counts


def counts_to_cards(counts) -> tuple[int, ...]:
    return tuple(k for k, c in enumerate(np.asarray(counts).tolist()) for _ in range(int(c)))


def hand_from_string(text: str) -> np.ndarray:
    """A 54-count hand from :func:`parse_cards` text."""
    return cards_to_counts(parse_cards(text))


def cards_to_string(cards: Iterable[int]) -> str:
    return " ".join(card_name(k) for k in sorted(cards))


_CATEGORY_NAMES = {Category.PASS: "pass", Category.SINGLE: "single", Category.PAIR: "pair",
                   Category.TRIO: "trio", Category.THREE_WITH_TWO: "three-with-two",
                   Category.STRAIGHT: "straight", Category.TUBE: "tube", Category.PLATE: "plate",
                   Category.BOMB: "bomb", Category.STRAIGHT_FLUSH: "straight-flush",
                   Category.JOKER_BOMB: "four-jokers", Category.TRIBUTE: "tribute", Category.RETURN: "return"}


def rank_name(category: Category, rank: int) -> str:
    """The rank of a move in words: ``"7"`` or, for sequences, the run such as ``"A-5"``; ``""`` for pass and four
    jokers (which have none)."""
    if category in (Category.PASS, Category.JOKER_BOMB):
        return ""
    if category in _SEQUENCE_SHAPES:
        length = _SEQUENCE_SHAPES[category][0]
        return f"{RANK_CHARS[_seq_rank(rank)]}-{RANK_CHARS[_seq_rank(rank + length - 1)]}"
    if rank == BLACK_JOKER_RANK:
        return "BJ"
    if rank == RED_JOKER_RANK:
        return "RJ"
    return RANK_CHARS[rank] if 0 <= rank < NUM_RANKS else ""


def move_to_string(move: Move, level: "Rank | str | None" = None) -> str:
    """``"pair 5 [5d 5h]"``, ``"four-jokers [BJ BJ RJ RJ]"``, ``"pass"``; with ``level``, the wild cards that
    stand for another card follow: ``"straight 3-7 [3d 4c 6s 7d Th] (Th as 5)"`` (see :meth:`Reading.__str__`)."""
    if move.is_pass:
        return "pass"
    name = _CATEGORY_NAMES[move.category]
    rank = rank_name(move.category, move.rank)
    text = f"{name} {rank} [{cards_to_string(move.cards)}]" if rank else f"{name} [{cards_to_string(move.cards)}]"
    if level is None or move.category in (Category.TRIBUTE, Category.RETURN):
        return text
    level = parse_level(level)
    if wild_kind(level) not in move.cards:
        return text
    try:
        subs = _reading(move, level).substitutions
    except ValueError:  # not a combination at this level (an illegal move being reported): the cards alone
        return text
    return f"{text} ({_substitutions_text(subs)})" if subs else text


# ---- ordering ----------------------------------------------------------------------------------------
def bomb_key(move: Move, level: int) -> tuple[int, int]:
    """Bomb strength: 4-card < 5-card < straight flush (by start) < 6..10-card (size, power) < four jokers."""
    if move.category == Category.JOKER_BOMB:
        return (22, 0)
    if move.category == Category.STRAIGHT_FLUSH:
        return (11, move.rank)
    return (2 * len(move.cards), power(move.rank, level))


def beats(move: Move, last: Move | None, level: int) -> bool:
    """Whether ``move`` may be played on ``last`` (``None`` or pass: leading, where anything but pass goes)."""
    if last is None or last.is_pass:
        return not move.is_pass
    if move.is_pass:
        return True  # following, one may always pass
    if move.is_bomb:
        return not last.is_bomb or bomb_key(move, level) > bomb_key(last, level)
    if move.category != last.category:
        return False
    if move.category in _SEQUENCE_SHAPES:
        return move.rank > last.rank
    return power(move.rank, level) > power(last.rank, level)


# ---- generation --------------------------------------------------------------------------------------
def _seq_rank(position: int) -> int:
    """Rank index at a position of the ace-low line (0 = low ace)."""
    return NUM_RANKS - 1 if position == 0 else position - 1


_LINE = [_seq_rank(p) for p in range(NUM_RANKS + 1)]  # ranks along the ace-low line A 2 3 ... K A


def sequence_ranks(category: Category, start: int) -> tuple[Rank, ...]:
    """The ranks of a sequence of ``category`` (straight, tube, plate, straight flush) starting at ``start`` on the
    ace-low line (``Move.rank`` of a sequence), low to high: ``sequence_ranks(Category.STRAIGHT, 0)`` is
    ``(A, 2, 3, 4, 5)``."""
    shape = _SEQUENCE_SHAPES.get(category)
    if shape is None:
        raise ValueError(f"{_CATEGORY_NAMES.get(category, category)} is no sequence: a sequence is a straight, tube, "
                         f"plate or straight flush (the rank of other moves is their rank)")
    length, _, starts = shape
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start < starts:
        raise ValueError(f"a {_CATEGORY_NAMES[category]} starts at 0..{starts - 1} on the ace-low line, got {start!r}")
    return tuple(RANKS[r] for r in _LINE[start:start + length])


@lru_cache(maxsize=1 << 14)
def _multisets(caps: tuple[tuple[int, int], ...], size: int, start: int = 0) -> tuple[tuple[int, ...], ...]:
    """Every multiset of ``size`` kinds drawn from ``caps`` = ((kind, available copies), ...), as sorted tuples
    (a memo of a pure function: the same few hundred rank patterns recur in every hand)."""
    if size == 0:
        return ((),)
    out = []
    for i in range(start, len(caps)):
        kind, cap = caps[i]
        for take in range(1, min(cap, size) + 1):
            head = (kind,) * take
            for tail in _multisets(caps, size - take, i + 1):
                out.append(head + tail)
    return tuple(out)


class MoveGenerator:
    """Legal-move generation for one hand (a list of 54 counts) at one level; group fills are cached for the
    object's life. :func:`legal_moves` is the entry point; the category methods serve engines and heuristics
    (e.g. ``MoveGenerator(counts, level).sequences(Category.STRAIGHT_FLUSH, -1)``)."""

    __slots__ = ("counts", "level", "wild", "num_wild", "_cache")

    def __init__(self, counts: list[int], level: int):
        self.counts = counts
        self.level = level
        self.wild = 4 * level + HEARTS
        self.num_wild = counts[self.wild]
        self._cache: dict = {}

    def fills(self, rank: int, size: int, suits: tuple[int, ...], max_sub: int) -> list[tuple[tuple, int]]:
        """Ways to put ``size`` cards of ``rank`` (allowed suits) down: (cards, wild cards used).

        Wild substitutes are allowed up to ``max_sub`` except where the wild is itself a natural card of the
        group (the level rank with hearts allowed), so that no multiset is produced twice.
        """
        key = (rank, size, suits, max_sub)
        got = self._cache.get(key)
        if got is not None:
            return got
        counts, wild = self.counts, self.wild
        caps = tuple((4 * rank + s, counts[4 * rank + s]) for s in suits if counts[4 * rank + s])
        natural_wild = rank == self.level and HEARTS in suits
        max_w = 0 if natural_wild else min(size, self.num_wild, max_sub)
        out = []
        for w in range(max_w + 1):
            subs = (wild,) * w
            for nat in _multisets(caps, size - w):
                used = w + nat.count(wild)
                if used <= self.num_wild:
                    out.append((tuple(sorted(nat + subs)) if subs else nat, used))
        self._cache[key] = out
        return out

    def combine(self, groups: list[list[tuple[tuple, int]]]) -> list[tuple[int, ...]]:
        """Products of group fills within the wild budget, as sorted card tuples."""
        partial = [((), 0)]
        budget = self.num_wild
        for fills in groups:
            if not fills:
                return []
            partial = [(cards + f, used + u) for cards, used in partial for f, u in fills if used + u <= budget]
            if not partial:
                return []
        return [tuple(sorted(cards)) for cards, _ in partial]

    # -- categories: each yields moves of rank strictly above ``above`` (power for n-of-a-kind types) --
    def n_of_a_kind(self, category: Category, size: int, above: int) -> list[Move]:
        out = []
        level = self.level
        for rank in range(NUM_RANKS):
            if power(rank, level) <= above:
                continue
            # a group of only wilds is allowed for the level rank alone (its natural meaning)
            for cards, used in self.fills(rank, size, ALL_SUITS, size - 1 if rank != level else size):
                out.append(Move(category, rank, cards))
        if size <= 2:
            for kind, jrank in ((BLACK_JOKER, BLACK_JOKER_RANK), (RED_JOKER, RED_JOKER_RANK)):
                if jrank > above and self.counts[kind] >= size:
                    out.append(Move(category, jrank, (kind,) * size))
        return out

    def three_with_two(self, above: int) -> list[Move]:
        out = []
        level, counts = self.level, self.counts
        budget = self.num_wild
        pair_fills = []
        for rank in range(NUM_RANKS):
            # an all-wild pair only as the level pair (else the same cards would repeat per rank)
            pair_fills.append((rank, self.fills(rank, 2, ALL_SUITS, 1 if rank != level else 2)))
        for kind, jrank in ((BLACK_JOKER, BLACK_JOKER_RANK), (RED_JOKER, RED_JOKER_RANK)):
            if counts[kind] >= 2:
                pair_fills.append((jrank, [((kind, kind), 0)]))
        # two wilds as the pair of a level-rank trio (standing for any other rank) come from here
        wild_pair = [(-1, [((self.wild, self.wild), 2)])] if self.num_wild == 2 else []
        for trank in range(NUM_RANKS):
            if power(trank, level) <= above:
                continue
            trios = self.fills(trank, 3, ALL_SUITS, 2)
            if not trios:
                continue
            for prank, pfills in pair_fills + (wild_pair if trank == level else []):
                if prank == trank:
                    continue
                for tcards, tu in trios:
                    for pcards, pu in pfills:
                        if tu + pu <= budget:
                            out.append(_new(Move, (Category.THREE_WITH_TWO, trank, tuple(sorted(tcards + pcards)))))
        return out

    def sequences(self, category: Category, above: int) -> list[Move]:
        length, copies, starts = _SEQUENCE_SHAPES[category]
        out = []
        suit_sets = [(s,) for s in ALL_SUITS] if category == Category.STRAIGHT_FLUSH else [ALL_SUITS]
        counts, budget = self.counts, self.num_wild
        for suits in suit_sets:
            # quick necessary condition per start: the wilds must cover what the naturals lack
            lack = [max(0, copies - sum(counts[4 * r + s] for s in suits)) for r in _LINE]
            for start in range(above + 1, starts):
                if sum(lack[start:start + length]) > budget:
                    continue
                groups = [self.fills(r, copies, suits, copies) for r in _LINE[start:start + length]]
                out.extend([_new(Move, (category, start, cards)) for cards in self.combine(groups)])
        return out

    def bombs(self, last: Move | None) -> list[Move]:
        out = []
        level, counts = self.level, self.counts
        for rank in range(NUM_RANKS):
            natural = sum(counts[4 * rank + s] for s in ALL_SUITS)
            extra = 0 if rank == level else self.num_wild
            for size in range(4, natural + extra + 1):
                for cards, _ in self.fills(rank, size, ALL_SUITS, size - 1):
                    out.append(Move(Category.BOMB, rank, cards))
        out.extend(self.sequences(Category.STRAIGHT_FLUSH, -1))
        if counts[BLACK_JOKER] == 2 and counts[RED_JOKER] == 2:
            out.append(Move(Category.JOKER_BOMB, 0, (BLACK_JOKER,) * 2 + (RED_JOKER,) * 2))
        if last is not None and last.is_bomb:
            key = bomb_key(last, level)
            out = [m for m in out if bomb_key(m, level) > key]
        return out


def _as_count_list(hand) -> list[int]:
    counts = np.asarray(hand)
    if counts.shape != (NUM_KINDS,):
        raise ValueError(f"a hand must be a 54-count vector (kinds 4*rank+suit, 52 BJ, 53 RJ), got shape "
                         f"{counts.shape}")
    out = [int(c) for c in counts.tolist()]
    if min(out) < 0 or max(out) > 2:
        raise ValueError(f"a GuanDan hand holds each kind 0..2 times (two decks), got counts {sorted(set(out))}")
    return out


def legal_moves(hand, last_move: Move | None, level: int) -> list[Move]:
    """Every legal move of ``hand`` (54 counts) on ``last_move`` (``None`` or pass: leading) at ``level``.

    Leading: every combination the hand can form (no pass). Following: pass first, then every move of the
    same category that beats ``last_move``, then every bomb that beats it. Each move appears once; the
    order is deterministic for given arguments.
    """
    level = check_level(level)
    gen = MoveGenerator(_as_count_list(hand), level)
    leading = last_move is None or last_move.is_pass
    out: list[Move] = [] if leading else [PASS]
    if leading:
        out += gen.n_of_a_kind(Category.SINGLE, 1, -1)
        out += gen.n_of_a_kind(Category.PAIR, 2, -1)
        out += gen.n_of_a_kind(Category.TRIO, 3, -1)
        out += gen.three_with_two(-1)
        for category in (Category.STRAIGHT, Category.TUBE, Category.PLATE):
            out += gen.sequences(category, -1)
        out += gen.bombs(None)
        return out
    cat = last_move.category
    if cat in (Category.SINGLE, Category.PAIR, Category.TRIO):
        out += gen.n_of_a_kind(cat, int(cat), power(last_move.rank, level))
    elif cat == Category.THREE_WITH_TWO:
        out += gen.three_with_two(power(last_move.rank, level))
    elif cat in (Category.STRAIGHT, Category.TUBE, Category.PLATE):
        out += gen.sequences(cat, last_move.rank)
    out += gen.bombs(last_move)
    return out


def move_universe_size(level: int) -> dict[str, int]:
    """Number of distinct moves per category that some hand can make at ``level`` (the move-table size):
    the lead moves of the full 108-card deck."""
    counts: dict[str, int] = {}
    for move in legal_moves(DECK, None, level):
        name = _CATEGORY_NAMES[move.category]
        counts[name] = counts.get(name, 0) + 1
    counts["total"] = sum(counts.values())
    return counts


# ---- readings: what each card of a move is played as -------------------------------------------------------
class PlayedCard(NamedTuple):
    """One card of a :class:`Reading`: the card put down and what it counts as.

    ``rank``: a :class:`Rank`, or 14 / 15 for the black / red joker. ``suit``: the suit it counts as: a natural
    card's own; a wild card's is the flush suit in a straight flush and ``None`` (any suit) elsewhere. ``wild``:
    the card is a wild standing for another card (a heart level card played as the level rank is itself:
    ``False``). ``free``: the two wild cards of a level-rank trio's pair: they stand for a pair of any rank but the
    level's (the rules make no difference between them, so one move covers them all); ``rank`` then names the
    lowest such rank (2, or 3 at level 2), an engine that wants a concrete pair may take it or any other.
    """

    kind: int
    rank: int
    suit: int | None
    wild: bool = False
    free: bool = False

    def __str__(self) -> str:
        if not self.wild:
            return card_name(self.kind)
        if self.free:
            return f"{card_name(self.kind)} as any rank but the level's (e.g. {RANK_CHARS[self.rank]})"
        return f"{card_name(self.kind)} as {RANK_CHARS[self.rank]}{'' if self.suit is None else SUIT_CHARS[self.suit]}"


class Reading(NamedTuple):
    """A move's concrete reading at a level: ``cards`` holds one :class:`PlayedCard` per card, in the order of
    the combination (low to high along a sequence; a three-with-two's trio, then its pair)."""

    move: Move
    level: Rank
    cards: tuple[PlayedCard, ...]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The rank every card is played as, in the order of ``cards``."""
        return tuple(c.rank for c in self.cards)

    @property
    def substitutions(self) -> tuple[PlayedCard, ...]:
        """The wild cards that stand for another card (empty when every card is itself)."""
        return tuple(c for c in self.cards if c.wild)

    def __str__(self) -> str:
        """``"straight 3-7 [3d 4c 6s 7d Th] (Th as 5)"`` at level T; ``"three-with-two 5 [5d 5c 5s 5h 5h] (5h 5h
        as a pair of any rank but 5)"`` at level 5."""
        text = move_to_string(self.move)
        subs = self.substitutions
        return f"{text} ({_substitutions_text(subs)})" if subs else text


def _substitutions_text(subs: tuple[PlayedCard, ...]) -> str:
    """``"Th as 5, Th as 6"``; the free pair of a level trio: ``"5h 5h as a pair of any other rank"``."""
    parts = [str(c) for c in subs if not c.free]
    free = [card_name(c.kind) for c in subs if c.free]
    if free:
        parts.append(f"{' '.join(free)} as a pair of any other rank")
    return ", ".join(parts)


def _natural(kind: int) -> PlayedCard:
    if kind == BLACK_JOKER:
        return PlayedCard(kind, BLACK_JOKER_RANK, None)
    if kind == RED_JOKER:
        return PlayedCard(kind, RED_JOKER_RANK, None)
    return PlayedCard(kind, RANKS[kind // 4], kind % 4)


def _as_rank(kind: int, rank: int, level: int, suit: int | None = None, free: bool = False) -> PlayedCard:
    """The wild card ``kind`` played as ``rank`` (of ``suit``, or any): itself when that is the heart level card."""
    if rank == level and suit in (None, HEARTS):
        return PlayedCard(kind, RANKS[rank], HEARTS)
    return PlayedCard(kind, RANKS[rank], suit, True, free)


def _reading(move: Move, level: Rank) -> Reading:
    """The reading of ``move`` at ``level`` (ValueError when its cards do not fit its category and rank)."""
    category, rank, cards = move
    wild = 4 * level + HEARTS
    bad = ValueError(f"{move_to_string(move)} does not fit its category and rank at level {level}")
    if category == Category.PASS:
        return Reading(move, level, ())
    if category in (Category.TRIBUTE, Category.RETURN, Category.JOKER_BOMB):
        if category == Category.JOKER_BOMB and tuple(cards) != (BLACK_JOKER,) * 2 + (RED_JOKER,) * 2:
            raise bad
        return Reading(move, level, tuple(_natural(k) for k in cards))
    if category in (Category.SINGLE, Category.PAIR, Category.TRIO, Category.BOMB):
        played = _n_of_a_kind_reading(move, level, wild, bad)
    elif category == Category.THREE_WITH_TWO:
        played = _three_with_two_reading(move, level, wild, bad)
    elif category in _SEQUENCE_SHAPES:
        played = _sequence_reading(move, level, wild, bad)
    else:
        raise bad
    return Reading(move, level, tuple(played))


def _n_of_a_kind_reading(move: Move, level: Rank, wild: int, bad: ValueError) -> list[PlayedCard]:
    """A single, pair, trio or bomb: every card at the move's rank (a joker as itself, the wild as the rank)."""
    category, rank, cards = move
    out = []
    for k in cards:
        if k >= BLACK_JOKER:
            if rank != k - BLACK_JOKER + BLACK_JOKER_RANK or category not in (Category.SINGLE, Category.PAIR):
                raise bad
            out.append(_natural(k))
        elif k // 4 == rank:
            out.append(_natural(k))
        elif k == wild:
            out.append(_as_rank(k, rank, level))
        else:
            raise bad
    return out


def _three_with_two_reading(move: Move, level: Rank, wild: int, bad: ValueError) -> list[PlayedCard]:
    """A trio of the move's rank and a pair, wild cards filling either."""
    _, rank, cards = move
    trio = [k for k in cards if k != wild and k < BLACK_JOKER and k // 4 == rank]
    pair = [k for k in cards if k != wild and not (k < BLACK_JOKER and k // 4 == rank)]
    wilds = len(cards) - len(trio) - len(pair)
    need_trio, need_pair = 3 - len(trio), 2 - len(pair)
    if need_trio < 0 or need_pair < 0 or need_trio + need_pair != wilds:
        raise bad
    played = [_natural(k) for k in trio] + [_as_rank(wild, rank, level) for _ in range(need_trio)]
    if pair:
        pair_ranks = {_natural(k).rank for k in pair}
        if len(pair_ranks) != 1 or (pair[0] >= BLACK_JOKER and len(pair) != 2):
            raise bad
        pair_rank = pair_ranks.pop()
        played += [_natural(k) for k in pair] + [_as_rank(wild, pair_rank, level) for _ in range(need_pair)]
    elif rank != level:  # two wild cards alone: the level pair, as themselves
        played += [_as_rank(wild, level, level) for _ in range(2)]
    else:  # a level trio with two wild cards: a pair of any other rank
        any_rank = Rank.THREE if level == Rank.TWO else Rank.TWO
        played += [PlayedCard(wild, any_rank, None, True, True) for _ in range(2)]
    return played


def _sequence_reading(move: Move, level: Rank, wild: int, bad: ValueError) -> list[PlayedCard]:
    """A straight, tube, plate or straight flush: each rank of the run its copies, wild cards filling the gaps."""
    category, rank, cards = move
    length, copies, _ = _SEQUENCE_SHAPES[category]
    naturals = [k for k in cards if k != wild]
    if any(k >= BLACK_JOKER for k in naturals) or len(cards) != length * copies:
        raise bad
    suit = None
    if category == Category.STRAIGHT_FLUSH:
        suits = {k % 4 for k in naturals}
        if len(suits) != 1:
            raise bad
        suit = suits.pop()
    spare = len(cards) - len(naturals)
    played = []
    for r in sequence_ranks(category, rank):
        mine = [k for k in naturals if k // 4 == r]
        if len(mine) > copies:
            raise bad
        played += [_natural(k) for k in mine] + [_as_rank(wild, r, level, suit) for _ in range(copies - len(mine))]
        spare -= copies - len(mine)
    if spare != 0 or len(played) != len(cards):
        raise bad
    return played


def classify(cards: "str | Iterable[int]", level: "Rank | str") -> list[Reading]:
    """Every combination the cards make at ``level`` (all of them played at once), as :class:`Reading` values
    in the engine's move order; empty when they make none.

    ``cards``: a card string (``"5h 5d BJ"``, :func:`parse_cards`) or card kinds (0..53, each at most twice).
    The same cards may make several moves (a wild as a straight's 5 or as a level single is a different move
    of different cards; a same-suit run is a straight and a straight flush; a level trio with two wild cards is a
    five-card bomb and a three-with-two)."""
    level = parse_level(level)
    kinds = parse_cards(cards) if isinstance(cards, str) else tuple(sorted(_check_kind(k) for k in cards))
    counts = cards_to_counts(kinds)
    if counts.max(initial=0) > 2:
        raise ValueError(f"{cards_to_string(kinds)} holds a card more than twice; GuanDan has two decks")
    if not kinds or len(kinds) > 10:  # the largest move is a ten-card bomb
        return []
    return [_reading(m, level) for m in legal_moves(counts, None, level) if m.cards == kinds]


def _check_kind(kind) -> int:
    if isinstance(kind, (bool, np.bool_)) or not isinstance(kind, (int, np.integer)) or not 0 <= kind < NUM_KINDS:
        raise ValueError(f"a card kind is an int 0..53 (4 * rank + suit, 52 BJ, 53 RJ), got {kind!r}")
    return int(kind)
