"""Big2 move table (docs/rules.md "Big2"; Luo & Tan 2024, Appendix B, Table 13): 19,899 moves.

Cards are ids ``4 * rank + suit`` (0..51) with ranks ``3 4 5 6 7 8 9 T J Q K A 2`` (0..12) and suits
diamonds < clubs < hearts < spades (0..3), so a card's order is its id (rank, then suit); id 0 is the 3 of
diamonds. A move's 54-dim card vector has a 1 at each of its card ids (52 and 53, the jokers, stay 0).

Moves (Table 13): solo 52, pair 78, triple 52, straight 10,200, flush 5,108, full house 3,744, quads (four of
a rank + any fifth card) 624, straight flush 40, and pass: 19,899. Straights are the 10 sequences
A-2-3-4-5, 2-3-4-5-6, 3-4-5-6-7, ..., 10-J-Q-K-A (no J-Q-K-A-2, no wrap-around), not all of one suit;
straight flushes are those sequences in one suit; flushes are the other 5,108 five-card sets of one suit.

Comparison: a follow has the same number of cards and a higher order key.

* Solo, pair, triple: the highest card (rank, then suit); 3d3s beats 3c3h, and 3c3s does not beat 3d3s.
* Five-card hands are one class: straight < flush < full house < quads < straight flush; within a category
  straights (and straight flushes) by ``straight_order``, flushes by the highest rank, then the next, and so
  on, then by suit; full houses by the triple's rank, quads by the quad's rank.

``straight_order`` (option):

* ``"bigzero"`` (default, docs/rules.md; BigZero's order used by the papers' benchmark):
  3-4-5-6-7 < 4-5-6-7-8 < ... < 10-J-Q-K-A < 2-3-4-5-6 < A-2-3-4-5; equal sequences are ordered by their
  highest card in Big2 card order (rank, then suit), i.e. by the suit of the A of 10-J-Q-K-A and of the 2
  of 2-3-4-5-6 and A-2-3-4-5.
* ``"low"``: the poker convention in which the A and the 2 play low in the two wheel straights:
  A-2-3-4-5 < 2-3-4-5-6 < 3-4-5-6-7 < ... < 10-J-Q-K-A; equal sequences are ordered by the suit of the
  sequence's top card (the 5 of A-2-3-4-5, the 6 of 2-3-4-5-6, the A of 10-J-Q-K-A).

Move strings: the cards in ascending card order, each as a rank character of ``3456789TJQKA2`` and a suit
character of ``dchs``: ``"3d"``, ``"3d3s"``, ``"3d4c5h6s7d"``, ``"3d4c5hAs2d"`` (A-2-3-4-5); pass is
``"pass"``. :func:`parse_cards` also reads ``"10"`` for ``T``, any case, any order, spaces and commas.

In the :class:`~cardrl.games.move_table.MoveTable` of Big2, ``length`` is the number of cards (the class of
comparable moves) and ``rank`` is the int32 order key within that class (a dense rank: equal keys tie,
e.g. all full houses with the same triple rank).
"""

from __future__ import annotations

import re
from enum import IntEnum
from functools import lru_cache
from itertools import combinations

import numpy as np

from cardrl.cards import NUM_KINDS, SUIT_SYMBOLS
from cardrl.games.move_table import MoveTable, build_move_table

RANK_CHARS = "3456789TJQKA2"
SUIT_CHARS = "dchs"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = 52
THREE_OF_DIAMONDS = 0
ACE, TWO = 11, 12
STRAIGHT_ORDERS = ("bigzero", "low")

# The 10 straight sequences as rank tuples, in the "low" order: A2345, 23456, 34567, ..., TJQKA.
SEQUENCES: tuple[tuple[int, ...], ...] = (
    (ACE, TWO, 0, 1, 2), (TWO, 0, 1, 2, 3), *(tuple(range(s, s + 5)) for s in range(0, 8)))


class Category(IntEnum):
    """Big2 move categories (Luo & Tan 2024, Table 13), in table order; pass is last in the table."""

    PASS = 0
    SOLO = 1
    PAIR = 2
    TRIPLE = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


# Minimum Combination Search data (Luo & Tan 2024, eq. 1 and Algorithm 2), read by cardrl.search.mcs: the fixed
# moves as ((card counts from distinct ranks), jokers) -- solo, pair, triple, full house, quads (four + any fifth
# card; a bare four is not a move) -- and the variable ones the search explores depth first.
MCS_FIXED_MOVES = (((1,), 0), ((2,), 0), ((3,), 0), ((3, 2), 0), ((4, 1), 0))
MCS_VARIABLE_CATEGORIES = (Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH)

FIVE_CARD_CATEGORIES = (Category.STRAIGHT, Category.FLUSH, Category.FULL_HOUSE, Category.QUADS,
                        Category.STRAIGHT_FLUSH)  # lowest to highest


# ---------------------------------------------------------------------------------------------
# cards and strings
# ---------------------------------------------------------------------------------------------

def card_name(card: int) -> str:
    """Card id -> ``"3d"`` style name."""
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def cards_to_string(cards) -> str:
    """Card ids -> a move string (ascending card order); no cards is ``"pass"``."""
    cards = sorted(int(c) for c in cards)
    return "".join(card_name(c) for c in cards) if cards else "pass"


def pretty_cards(cards, color: bool = False) -> str:
    """Card ids -> ``"3♦ 10♠"``; with ``color`` the red suits get ANSI red."""
    out = []
    for c in sorted(int(c) for c in cards):
        rank = "10" if RANK_CHARS[c // 4] == "T" else RANK_CHARS[c // 4]
        text = rank + SUIT_SYMBOLS[c % 4]
        out.append(f"\x1b[31m{text}\x1b[0m" if color and c % 4 in (0, 2) else text)
    return " ".join(out)


_TOKEN = re.compile(r"(10|[2-9TJQKA])([DCHS])", re.IGNORECASE)


def parse_cards(text: str) -> tuple[int, ...]:
    """A card string (``"3d4c5h6s7d"``, ``"10h Jh"``, any order/case) -> sorted card ids; ``"pass"`` -> ()."""
    if not isinstance(text, str):
        raise TypeError(f"cards must be a str such as '3d3s', got {type(text).__name__} {text!r}")
    body = text.strip()
    if body.lower() == "pass" or body == "":
        return ()
    cards, pos = [], 0
    body = re.sub(r"[\s,]+", "", body)
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None:
            raise ValueError(f"cannot read a card at {body[pos:]!r} in {text!r}: a card is a rank of "
                             f"{RANK_CHARS} (or 10) followed by a suit of {SUIT_CHARS}, e.g. '3d' or 'Ts'")
        rank = "T" if m.group(1) == "10" else m.group(1).upper()
        cards.append(4 * RANK_CHARS.index(rank) + SUIT_CHARS.index(m.group(2).lower()))
        pos = m.end()
    if len(set(cards)) != len(cards):
        raise ValueError(f"{text!r} names a card twice")
    return tuple(sorted(cards))


def cards_to_bits(cards) -> int:
    """Card ids -> bit set (bit ``c`` = card ``c``)."""
    bits = 0
    for c in cards:
        bits |= 1 << int(c)
    return bits


def bits_to_cards(bits: int) -> tuple[int, ...]:
    """Bit set -> ascending card ids."""
    return tuple(c for c in range(NUM_CARDS) if bits >> c & 1)


def cards_to_vector(cards) -> np.ndarray:
    """Card ids -> 54-dim 0/1 card vector (docs/rules.md "Cards")."""
    vec = np.zeros(NUM_KINDS, dtype=np.uint8)
    vec[list(cards)] = 1
    return vec


# ---------------------------------------------------------------------------------------------
# order keys
# ---------------------------------------------------------------------------------------------

def straight_key(cards: tuple[int, ...], order: str) -> tuple[int, int]:
    """(sequence position, suit of the tie-breaking card) of a straight or straight flush."""
    ranks = tuple(sorted(c // 4 for c in cards))
    low_pos = next(i for i, seq in enumerate(SEQUENCES) if tuple(sorted(seq)) == ranks)
    if order == "bigzero":
        pos = low_pos - 2 if low_pos >= 2 else 8 + (1 - low_pos)  # 34567..TJQKA = 0..7, 23456 = 8, A2345 = 9
        tie = max(cards)  # the highest card in Big2 order
    else:
        pos = low_pos
        top = SEQUENCES[low_pos][-1]
        tie = next(c for c in cards if c // 4 == top)
    return pos, tie % 4


def _tie_card(seq: tuple[int, ...], suit: int, order: str) -> int:
    """The card that breaks ties between equal straight sequences (see :func:`straight_key`)."""
    rank = max(seq) if order == "bigzero" else seq[-1]
    return 4 * rank + suit


def _five_card_key(cat: Category, cards: tuple[int, ...], order: str) -> tuple:
    level = FIVE_CARD_CATEGORIES.index(cat)
    if cat in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        return (level, *straight_key(cards, order))
    if cat == Category.FLUSH:
        return (level, tuple(sorted((c // 4 for c in cards), reverse=True)), cards[0] % 4)
    ranks = [c // 4 for c in cards]
    main = max(set(ranks), key=ranks.count)  # the triple's / the quad's rank
    return (level, main)


# ---------------------------------------------------------------------------------------------
# enumeration
# ---------------------------------------------------------------------------------------------

def _suits_of(rank: int) -> list[int]:
    return [4 * rank + s for s in range(NUM_SUITS)]


def _enumerate(order: str) -> list[tuple[int, int, int, np.ndarray, np.ndarray, str]]:
    """Every move as (category, length, order key, card vector, main vector, string), in table order."""
    # entries: (class length, sort key, main cards, all cards, category)
    entries: list[tuple[int, tuple, tuple[int, ...], tuple[int, ...], Category]] = []
    for c in range(NUM_CARDS):
        entries.append((1, (c,), (c,), (c,), Category.SOLO))
    for width, cat in ((2, Category.PAIR), (3, Category.TRIPLE)):
        for r in range(NUM_RANKS):
            for combo in combinations(_suits_of(r), width):
                entries.append((width, (max(combo),), combo, combo, cat))
    sequence_sets = {tuple(sorted(seq)) for seq in SEQUENCES}
    for seq in SEQUENCES:
        for suits in np.ndindex(*(NUM_SUITS,) * 5):
            cards = tuple(sorted(4 * r + s for r, s in zip(seq, suits)))
            cat = Category.STRAIGHT_FLUSH if len(set(suits)) == 1 else Category.STRAIGHT
            key = _five_card_key(cat, cards, order)
            # the straights of one key (sequence, tie suit) form one group whose main part is the tie card
            main = cards if cat == Category.STRAIGHT_FLUSH else (_tie_card(seq, key[2], order),)
            entries.append((5, key, main, cards, cat))
    for suit in range(NUM_SUITS):
        for ranks in combinations(range(NUM_RANKS), 5):
            if ranks in sequence_sets:
                continue  # a straight flush
            cards = tuple(4 * r + suit for r in ranks)
            entries.append((5, _five_card_key(Category.FLUSH, cards, order), cards, cards, Category.FLUSH))
    for t in range(NUM_RANKS):
        for triple in combinations(_suits_of(t), 3):
            for p in range(NUM_RANKS):
                if p == t:
                    continue
                for pair in combinations(_suits_of(p), 2):
                    cards = tuple(sorted(triple + pair))
                    entries.append((5, _five_card_key(Category.FULL_HOUSE, cards, order), triple, cards,
                                    Category.FULL_HOUSE))
    for q in range(NUM_RANKS):
        quad = tuple(_suits_of(q))
        for k in range(NUM_CARDS):
            if k // 4 != q:
                cards = tuple(sorted(quad + (k,)))
                entries.append((5, _five_card_key(Category.QUADS, cards, order), quad, cards, Category.QUADS))

    # table order: by class (1, 2, 3, 5 cards), then order key, then main part (so groups are contiguous)
    entries.sort(key=lambda e: (e[0], e[1], e[2], e[3]))
    moves = []
    dense, prev = -1, None
    for length, key, main, cards, cat in entries:
        if (length, key) != prev:
            dense, prev = (dense + 1 if prev is not None and prev[0] == length else 0), (length, key)
        moves.append((int(cat), length, dense, cards_to_vector(cards), cards_to_vector(main),
                      cards_to_string(cards)))
    empty = np.zeros(NUM_KINDS, dtype=np.uint8)
    moves.append((int(Category.PASS), 0, -1, empty, empty, "pass"))
    return moves


def _follow_ranges(category: int, length: int, rank: int, groups) -> tuple[int, int, int, int]:
    """Groups that beat a move: the same number of cards and a higher order key (one contiguous run)."""
    g_cat, g_len, g_rank = groups
    if category == Category.PASS:
        return (0, 0, 0, 0)
    higher = np.flatnonzero((g_len == length) & (g_rank > rank) & (g_cat != Category.PASS))
    if len(higher) == 0:
        return (0, 0, 0, 0)
    lo, hi = int(higher[0]), int(higher[-1]) + 1
    if hi - lo != len(higher):
        raise AssertionError("big2: the moves that beat a move must be one contiguous run of groups")
    return (lo, hi, 0, 0)


@lru_cache(maxsize=None)
def big2_move_table(straight_order: str = "bigzero") -> MoveTable:
    """The Big2 move table for a straight order (module docstring; built once per process, shared read-only)."""
    if straight_order not in STRAIGHT_ORDERS:
        raise ValueError(f"straight_order={straight_order!r} is not a Big2 straight order; "
                         f"allowed: {STRAIGHT_ORDERS}")
    moves = _enumerate(straight_order)
    cards = np.stack([m[3] for m in moves])
    rank_counts = cards[:, :NUM_CARDS].reshape(len(moves), NUM_RANKS, NUM_SUITS).sum(axis=2).astype(np.int8)
    return build_move_table(f"big2[{straight_order}]", moves, _follow_ranges, rank_counts, rank_dtype=np.int32)


def move_id(table: MoveTable, text: str) -> int:
    """The id of a move written in any card order/case (``"7d6s5h4c3d"``, ``"pass"``) in a Big2 table."""
    return table.id_of(cards_to_string(parse_cards(text)))
