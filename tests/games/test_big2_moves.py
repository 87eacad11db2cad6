"""The Big2 move table (docs/rules.md "Big2"; Luo & Tan 2024, Appendix B, Table 13).

(a) every count of Table 13 exactly, for each straight order;
(b) hand-written leads and follows for every category and every five-card ranking rule, both straight orders
    written out in full;
(c) every entry against the independent classifier of ``big2_reference`` and the follow ranges against a
    brute-force pairwise comparison over a sample.
"""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest

from helpers.big2_reference import FIVE_LEVEL, STRAIGHT_ORDER, beats, cards_of, classify
from cardrl.games.big2.moves import (
    STRAIGHT_ORDERS,
    Category,
    big2_move_table,
    bits_to_cards,
    cards_to_bits,
    cards_to_string,
    move_id,
    parse_cards,
    pretty_cards,
)
from cardrl.games.move_table import MoveTable

C = Category
TABLE_13 = {C.SOLO: 52, C.PAIR: 78, C.TRIPLE: 52, C.STRAIGHT: 10_200, C.FLUSH: 5_108, C.FULL_HOUSE: 3_744,
            C.QUADS: 624, C.STRAIGHT_FLUSH: 40, C.PASS: 1}


@pytest.fixture(scope="module", params=STRAIGHT_ORDERS)
def table(request) -> MoveTable:
    return big2_move_table(request.param)


@pytest.fixture(scope="module")
def bz() -> MoveTable:
    return big2_move_table("bigzero")


@pytest.fixture(scope="module")
def low() -> MoveTable:
    return big2_move_table("low")


def beats_text(table: MoveTable, move: str, last: str | None) -> bool:
    return table.beats(move_id(table, move), None if last is None else move_id(table, last))


def legal(table: MoveTable, hand: str, last: str | None = None) -> set[str]:
    last_id = None if last is None else move_id(table, last)
    return {table.strings[i] for i in table.legal_moves(cards_to_bits(parse_cards(hand)), last_id)}


def category(table: MoveTable, move: str) -> Category:
    return Category(int(table.category[move_id(table, move)]))


# ---------------------------------------------------------------------------------------------
# (a) Table 13
# ---------------------------------------------------------------------------------------------

def test_every_table_13_count(table):
    counts = Counter(Category(int(c)) for c in table.category)
    assert counts == TABLE_13
    assert len(table) == 19_899 == sum(TABLE_13.values())


def test_counts_from_first_principles():
    assert 10 * (4 ** 5 - 4) == 10_200  # 10 sequences, any suits but all-one-suit
    assert 4 * comb(13, 5) - 40 == 5_108  # one suit, not a straight flush
    assert 13 * comb(4, 3) * 12 * comb(4, 2) == 3_744
    assert 13 * 48 == 624
    assert 13 * comb(4, 2) == 78 and 13 * comb(4, 3) == 52


def test_pass_is_last_and_strings_are_unique(table):
    assert table.strings[table.pass_id] == "pass" and table.pass_id == len(table) - 1
    assert len(set(table.strings)) == len(table)


def test_card_vectors_bits_and_rank_counts_agree(table):
    vec = table.cards.astype(np.int64)
    assert vec.shape == (19_899, 54) and not vec[:, 52:].any()
    for i in range(0, len(table), 997):
        cards = tuple(np.flatnonzero(vec[i]))
        assert cards_to_string(cards) == table.strings[i]
        assert int(table.bits[i]) == cards_to_bits(cards)
        assert table.rank_counts[i].tolist() == [sum(1 for c in cards if c // 4 == r) for r in range(13)]
    assert (vec.sum(axis=1) == table.length.astype(np.int64)).all()  # length = number of cards


def test_both_orders_hold_the_same_moves():
    assert set(big2_move_table("bigzero").strings) == set(big2_move_table("low").strings)


def test_unknown_straight_order_is_rejected():
    with pytest.raises(ValueError, match=r"straight_order='pagat'.*allowed: \('bigzero', 'low'\)"):
        big2_move_table("pagat")


# ---------------------------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------------------------

def test_move_strings_are_cards_in_ascending_order(bz):
    assert bz.strings[:5] == ("3d", "3c", "3h", "3s", "4d")
    assert category(bz, "3d3s") == C.PAIR
    assert category(bz, "3d4c5h6s7d") == C.STRAIGHT
    assert "3d4c5hAs2d" in bz.index  # A-2-3-4-5: ascending card order puts the A and the 2 last


@pytest.mark.parametrize("text, cards", [
    ("3d", (0,)), ("2s", (51,)), ("Td", (28,)), ("10d", (28,)), ("7d 6s,5h 4c 3D", (0, 5, 10, 15, 16)),
    ("pass", ()), ("", ()),
])
def test_parse_cards(text, cards):
    assert parse_cards(text) == cards


@pytest.mark.parametrize("text, error, message", [
    ("3x", ValueError, r"cannot read a card at '3x'.*3456789TJQKA2.*dchs"),
    ("1d", ValueError, r"cannot read"),
    ("3d3d", ValueError, r"twice"),
    (3, TypeError, r"must be a str"),
])
def test_parse_cards_errors(text, error, message):
    with pytest.raises(error, match=message):
        parse_cards(text)


def test_move_id_accepts_any_order_and_unknown_moves_are_named(bz):
    assert move_id(bz, "7d6s5h4c3d") == bz.id_of("3d4c5h6s7d")
    with pytest.raises(ValueError, match="'3d4c' is not a move"):
        move_id(bz, "4c3d")


def test_bits_round_trip_and_pretty():
    cards = parse_cards("3d Ts 2s")
    assert bits_to_cards(cards_to_bits(cards)) == cards
    assert pretty_cards(cards) == "3\u2666 10\u2660 2\u2660"
    assert "\x1b[31m3\u2666\x1b[0m" in pretty_cards(cards, color=True)


# ---------------------------------------------------------------------------------------------
# (b) categories and ranking rules, hand-written
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("move, cat", [
    ("6s", C.SOLO), ("6h6s", C.PAIR), ("6c6h6s", C.TRIPLE), ("7s8h9sThJh", C.STRAIGHT),
    ("3h6h7hThQh", C.FLUSH), ("3h3s8c8h8s", C.FULL_HOUSE), ("3h8d8c8h8s", C.QUADS),
    ("9sTsJsQsKs", C.STRAIGHT_FLUSH), ("3d4d5dAd2d", C.STRAIGHT_FLUSH), ("3c4c5c6c2c", C.STRAIGHT_FLUSH),
    ("TsJsQsKsAs", C.STRAIGHT_FLUSH), ("JsQsKsAs2s", C.FLUSH), ("3d4c5h6s2d", C.STRAIGHT),
])
def test_categories(table, move, cat):
    assert category(table, move) == cat


@pytest.mark.parametrize("not_a_move", [
    "JdQcKhAs2d",  # J-Q-K-A-2 is no straight
    "QdKcAh2s3d",  # no wrap-around
    "Kd2c3h4s5d",
    "3d4c", "3d3c4h", "3d3c4h4s", "3d3c3h3s", "3d4c5h6s7d8d", "3d4c5h6s8d",
])
def test_invalid_sets_are_not_moves(table, not_a_move):
    assert cards_to_string(parse_cards(not_a_move)) not in table.index


def test_solo_pair_triple_compare_highest_card(table):
    assert beats_text(table, "3s", "3d") and not beats_text(table, "3d", "3s")
    assert beats_text(table, "4d", "3s") and beats_text(table, "2d", "As")
    assert beats_text(table, "3d3s", "3c3h")  # the spade decides
    assert not beats_text(table, "3c3s", "3d3s") and not beats_text(table, "3d3s", "3c3s")  # equal: no
    assert beats_text(table, "4d4c", "3h3s")
    assert beats_text(table, "4d4c4h", "3c3h3s") and beats_text(table, "3c3h3s", "3d3c3h")


def test_follows_need_the_same_number_of_cards(table):
    assert not beats_text(table, "4d4c", "3d") and not beats_text(table, "2s", "3d3c")
    assert not beats_text(table, "3d3c3h3s4d", "2s") and not beats_text(table, "2d2c2h", "3d3c")
    assert beats_text(table, "2s", None) and not table.beats(table.pass_id, None)
    assert table.beats(table.pass_id, move_id(table, "3d"))


def _key(table: MoveTable, move: str) -> int:
    return int(table.rank[move_id(table, move)])


def test_five_card_category_order(table):
    ladder = ["3d4c5h6s7d", "3h6h7hThQh", "3h3s8c8h8s", "3h8d8c8h8s", "9sTsJsQsKs"]
    for lo, hi in zip(ladder, ladder[1:]):
        assert beats_text(table, hi, lo) and not beats_text(table, lo, hi)
    # the lowest hand of each category beats the highest hand of the category below
    top_straight = max(["TdJcQhKsAs", "3d4c5hAs2s", "3d4c5h6s2s", "3d4c5sAd2d"], key=lambda m: _key(table, m))
    low_sf = min(["3d4d5d6d7d", "3d4d5dAd2d"], key=lambda m: _key(table, m))
    steps = [(top_straight, "3d4d5d6d8d"), ("JsQsKsAs2s", "3d3c3h4d4c"), ("3d3c2c2h2s", "3d3c3h3s4d"),
             ("As2d2c2h2s", low_sf)]
    for below, above in steps:
        assert beats_text(table, above, below) and not beats_text(table, below, above), (below, above)


def test_flush_compares_highest_card_then_next_then_suit(table):
    assert beats_text(table, "3c4c5c6cAc", "8sTsJsQsKs")  # ace-high beats king-high
    assert beats_text(table, "3c4c5c8cAc", "3s4s5s7sAs")  # next card: 8 > 7
    assert beats_text(table, "4d5d6d8d2d", "3s5s6s8s2s")  # fifth card decides
    assert beats_text(table, "3s4s5s8sAs", "3h4h5h8hAh")  # same ranks: the suit
    assert not beats_text(table, "3h4h5h8hAh", "3s4s5s8sAs")


def test_full_house_and_quads_compare_the_main_rank(table):
    assert not beats_text(table, "4d4c4h3d3c", "3h3s2d2c2h")  # triple 4 < triple 2
    assert beats_text(table, "3h3s2d2c2h", "4d4c4hAdAc")  # the pair does not matter
    assert beats_text(table, "5d5c5h5s3d", "4d4c4h4s2s")  # the kicker does not matter
    assert not beats_text(table, "4d4c4h4s2s", "5d5c5h5s3d")
    assert not beats_text(table, "5d5c5h5s4d", "5d5c5h5s3d")  # same quads: no


def _rep(seq: str, suit_of_top: str, order: str) -> str:
    """A non-flush straight of the rank sequence ``seq`` whose tie-breaking card has suit ``suit_of_top``."""
    tie_rank = max(seq, key="3456789TJQKA2".index) if order == "bigzero" else seq[-1]
    other = "d" if suit_of_top != "d" else "c"
    return cards_to_string(parse_cards("".join(r + (suit_of_top if r == tie_rank else other) for r in seq)))


@pytest.mark.parametrize("order", STRAIGHT_ORDERS)
def test_straight_orders_written_out(order):
    written = {
        "bigzero": ["34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA", "23456", "A2345"],
        "low": ["A2345", "23456", "34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA"],
    }[order]
    table = big2_move_table(order)
    ladder = [_rep(seq, suit, order) for seq in written for suit in "dchs"]
    for lo, hi in zip(ladder, ladder[1:]):
        assert beats_text(table, hi, lo) and not beats_text(table, lo, hi), (lo, hi)
    flushes = [cards_to_string(parse_cards("".join(r + s for r in seq))) for seq in written for s in "dchs"]
    for lo, hi in zip(flushes, flushes[1:]):
        assert category(table, lo) == C.STRAIGHT_FLUSH
        assert beats_text(table, hi, lo) and not beats_text(table, lo, hi), (lo, hi)


def test_bigzero_ties_by_the_highest_card_in_big2_order(bz):
    # A-2-3-4-5: the 2 decides (not the 5), then the suit of the 2
    assert beats_text(bz, "3d4d5dAd2s", "3s4s5sAs2h")
    assert not beats_text(bz, "3s4s5sAs2h", "3d4d5dAd2s")
    assert not beats_text(bz, "3d4d5sAd2s", "3c4c5hAh2s")  # the same 2: equal, no follow
    assert beats_text(bz, "TdJdQdKdAs", "TsJsQsKhAh")  # the A's suit


def test_low_order_ties_by_the_sequence_top_card(low):
    assert beats_text(low, "3d4d5sAd2d", "3s4s5hAs2s")  # the 5 decides in A-2-3-4-5
    assert beats_text(low, "2d3d4d5d6s", "2s3s4s5s6h")  # the 6 decides in 2-3-4-5-6
    assert beats_text(low, "3d4d5d6d7c", "Ac2s3s4s5s")  # 3-4-5-6-7 beats A-2-3-4-5
    assert not beats_text(low, "3d4d5sAd2s", "3c4c5sAh2h")  # the same 5: equal, no follow


def test_straight_suits_are_free_and_flush_never_a_straight(table):
    assert category(table, "3d4d5d6d7c") == C.STRAIGHT
    assert category(table, "3s4h5c6d7s") == C.STRAIGHT


# ---------------------------------------------------------------------------------------------
# leads and follows of hands (the scan)
# ---------------------------------------------------------------------------------------------

def test_lead_of_a_small_hand(bz):
    assert legal(bz, "3d 3s 4c") == {"3d", "3s", "4c", "3d3s"}
    assert legal(bz, "3d 3s 4c", "3c") == {"pass", "3s", "4c"}
    assert legal(bz, "3d 3s 4c", "3c3h") == {"pass", "3d3s"}
    assert legal(bz, "3d 3s 4c", "2s") == {"pass"}


def test_lead_of_a_full_house_hand(bz):
    moves = legal(bz, "3d3c3h 4d4c")
    assert {"3d3c3h4d4c", "3d3c3h", "3d3c", "4d4c"} <= moves
    assert all(category(bz, m) != C.QUADS for m in moves)
    assert legal(bz, "3d3c3h 4d4c", "3s4s5h6h7h") == {"pass", "3d3c3h4d4c"}
    assert legal(bz, "3d3c3h 4d4c", "3s4s5s6s8s") == {"pass", "3d3c3h4d4c"}
    assert legal(bz, "3d3c3h 4d4c", "5d5c5h6d6c") == {"pass"}


# ---------------------------------------------------------------------------------------------
# (c) against the independent classifier
# ---------------------------------------------------------------------------------------------

_CATS = {"solo": C.SOLO, "pair": C.PAIR, "triple": C.TRIPLE, "straight": C.STRAIGHT, "flush": C.FLUSH,
         "full_house": C.FULL_HOUSE, "quads": C.QUADS, "straight_flush": C.STRAIGHT_FLUSH}


def _reference(table: MoveTable, order: str):
    kinds = [classify(cards_of(s), order) for s in table.strings[:-1]]
    return kinds


@pytest.mark.parametrize("order", STRAIGHT_ORDERS)
def test_every_entry_matches_the_independent_classifier(order):
    table = big2_move_table(order)
    kinds = _reference(table, order)
    assert all(k is not None for k in kinds)
    assert [_CATS[k[0]] for k in kinds] == [Category(int(c)) for c in table.category[:-1]]
    # the table's dense order key sorts exactly as the reference keys within each number of cards
    for n in (1, 2, 3, 5):
        idx = [i for i, k in enumerate(kinds) if k[1] == n]
        ref = sorted(set(kinds[i][2] for i in idx))
        dense = {key: j for j, key in enumerate(ref)}
        assert [int(table.rank[i]) for i in idx] == [dense[kinds[i][2]] for i in idx]


@pytest.mark.parametrize("order", STRAIGHT_ORDERS)
def test_follow_ranges_equal_brute_force_pairwise_comparison(order):
    """For a sample of last moves, ``beats`` over a sample of candidates equals the reference's pairwise
    comparison, and the follow range covers exactly the reference's beating moves over the whole table."""
    table = big2_move_table(order)
    kinds = _reference(table, order) + [None]
    rng = np.random.default_rng(13)
    non_pass = len(table) - 1
    lasts = list(rng.choice(non_pass, 150, replace=False)) + [move_id(table, m) for m in (
        "2s", "2h2s", "2c2h2s", "TsJsQsKsAs", "3s4s5sAs2s", "3d4d5d6d7d", "3d4d5dAd2d", "3d4c5h6s7d",
        "Ad2s3s4s5s", "9sJsQsKsAs", "Ad2d2c2h2s")]
    cands = rng.choice(non_pass, 1500, replace=False)
    n_cards = np.array([k[1] for k in kinds[:-1]])
    for last in lasts:
        lk = kinds[last]
        for m in cands:
            assert table.beats(int(m), int(last)) == beats(kinds[m], lk), (table.strings[m], table.strings[last])
        # the whole table: the follow range's members are exactly the reference's beating moves
        same = np.flatnonzero(n_cards == lk[1])
        expect = {int(i) for i in same if kinds[i][2] > lk[2]}
        lo1, hi1, lo2, hi2 = table.follow_ranges[last]
        got = set()
        for lo, hi in ((lo1, hi1), (lo2, hi2)):
            for g in range(lo, hi):
                got.update(range(int(table.group_start[g]), int(table.group_end[g])))
        assert got == expect, table.strings[last]


def test_five_card_levels_are_the_rules_order():
    assert sorted(FIVE_LEVEL, key=FIVE_LEVEL.get) == ["straight", "flush", "full_house", "quads", "straight_flush"]
    assert STRAIGHT_ORDER["bigzero"][-2:] == ["23456", "A2345"]
