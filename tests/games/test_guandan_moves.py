"""GuanDan moves (docs/rules.md "GuanDan" and its pitfalls): one test per combination type, per ordering rule and
per pitfall, and a brute-force oracle written from first principles (every sub-multiset of a small hand,
every assignment of its wild cards) whose legal set must equal ``legal_moves``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.games.guandan.moves import (
    PASS, Category, Move, Rank, beats, cards_to_counts, hand_from_string, legal_moves, move_to_string,
    parse_cards, wild_kind)

C = Category
LV = {ch: Rank(i) for i, ch in enumerate("23456789TJQKA")}


def mv(category: Category, rank, cards: str) -> Move:
    rank = LV[rank] if isinstance(rank, str) else rank
    return Move(category, rank, parse_cards(cards))


def moves(hand: str, level: str = "2", last: Move | None = None) -> list[Move]:
    return legal_moves(hand_from_string(hand), last, LV[level])


def of(category: Category, found: list[Move]) -> list[Move]:
    return [m for m in found if m.category == category]


# ---------------------------------------------------------------------------------------------
# combination types
# ---------------------------------------------------------------------------------------------

def test_cards_and_names():
    assert parse_cards("2d 2c 2h 2s Ad BJ RJ") == (0, 1, 2, 3, 48, 52, 53)
    assert wild_kind(LV["2"]) == 2 and wild_kind(LV["A"]) == 50  # hearts of the level rank
    assert move_to_string(mv(C.PAIR, "5", "5d 5s")) == "pair 5 [5d 5s]"
    assert move_to_string(PASS) == "pass"
    with pytest.raises(ValueError, match="unknown card"):
        parse_cards("5x")


def test_singles_every_card_once_per_kind():
    found = moves("3d 3d 3c BJ RJ 9h", level="2")
    assert sorted(of(C.SINGLE, found)) == sorted([mv(C.SINGLE, "3", "3d"), mv(C.SINGLE, "3", "3c"),
                                                   mv(C.SINGLE, "9", "9h"), Move(C.SINGLE, 14, (52,)),
                                                   Move(C.SINGLE, 15, (53,))])


def test_single_order_level_above_ace_below_jokers():
    level = LV["7"]
    ace, lvl = mv(C.SINGLE, "A", "As"), mv(C.SINGLE, "7", "7s")
    bj, rj = Move(C.SINGLE, 14, (52,)), Move(C.SINGLE, 15, (53,))
    assert beats(lvl, ace, level) and not beats(ace, lvl, level)
    assert beats(bj, lvl, level) and beats(rj, bj, level) and not beats(bj, rj, level)
    assert not beats(mv(C.SINGLE, "7", "7d"), lvl, level)  # equal ranks never beat each other
    assert beats(mv(C.SINGLE, "8", "8d"), mv(C.SINGLE, "6", "6d"), level)


def test_pairs_and_joker_pairs():
    found = of(C.PAIR, moves("5d 5s BJ BJ RJ", level="2"))
    assert sorted(found) == sorted([mv(C.PAIR, "5", "5d 5s"), Move(C.PAIR, 14, (52, 52))])  # BJ+RJ no pair
    assert beats(Move(C.PAIR, 15, (53, 53)), Move(C.PAIR, 14, (52, 52)), 0)


def test_trios():
    found = of(C.TRIO, moves("9d 9d 9c 9s", level="2"))
    assert sorted(found) == sorted([mv(C.TRIO, "9", "9d 9d 9c"), mv(C.TRIO, "9", "9d 9d 9s"),
                                    mv(C.TRIO, "9", "9d 9c 9s")])


def test_three_with_two_ranked_by_trio_and_joker_pair_allowed():
    found = of(C.THREE_WITH_TWO, moves("4d 4c 4s 9d 9c RJ RJ", level="2"))
    assert mv(C.THREE_WITH_TWO, "4", "4d 4c 4s 9d 9c") in found
    assert mv(C.THREE_WITH_TWO, "4", "4d 4c 4s RJ RJ") in found  # pitfall: a joker pair as the pair
    assert beats(mv(C.THREE_WITH_TWO, "5", "5d 5c 5s 2d 2c"), mv(C.THREE_WITH_TWO, "4", "4d 4c 4s Ad Ac"), 0)
    assert not of(C.THREE_WITH_TWO, moves("4d 4c 4s BJ RJ", level="2"))  # BJ+RJ is no pair
    assert not of(C.THREE_WITH_TWO, moves("4d 4c 4s 4h 4d", level="2"))  # five of a kind is a bomb


def test_straights_ace_low_and_high_no_wrap_no_jokers():
    low = of(C.STRAIGHT, moves("Ad 2c 3c 4c 5c", level="9"))
    assert low == [mv(C.STRAIGHT, 0, "Ad 2c 3c 4c 5c")]
    high = of(C.STRAIGHT, moves("Td Jc Qc Kc Ac", level="9"))
    assert high == [mv(C.STRAIGHT, 9, "Td Jc Qc Kc Ac")]
    assert not of(C.STRAIGHT, moves("Jd Qc Kc Ac 2c", level="9"))  # J-Q-K-A-2 wraps
    assert not of(C.STRAIGHT, moves("Td Jc Qc Kc BJ", level="9"))
    assert {len(m.cards) for m in of(C.STRAIGHT, moves("3d 4c 5c 6c 7c 8c", level="9"))} == {5}  # exactly 5
    assert beats(mv(C.STRAIGHT, 1, "2d 3c 4c 5c 6c"), low[0], 7)


def test_tubes_include_aa2233_and_qqkkaa():
    assert of(C.TUBE, moves("Ad Ac 2d 2c 3d 3c", level="9")) == [mv(C.TUBE, 0, "Ad Ac 2d 2c 3d 3c")]
    assert of(C.TUBE, moves("Qd Qc Kd Kc Ad Ac", level="9")) == [mv(C.TUBE, 11, "Qd Qc Kd Kc Ad Ac")]
    assert not of(C.TUBE, moves("Kd Kc Ad Ac 2d 2c", level="9"))


def test_plates_include_aaa222_and_kkkaaa():
    assert of(C.PLATE, moves("Ad Ac As 2d 2c 2s", level="9")) == [mv(C.PLATE, 0, "Ad Ac As 2d 2c 2s")]
    assert of(C.PLATE, moves("Kd Kc Ks Ad Ac As", level="9")) == [mv(C.PLATE, 12, "Kd Kc Ks Ad Ac As")]
    assert beats(mv(C.PLATE, 12, "Kd Kc Ks Ad Ac As"), mv(C.PLATE, 0, "Ad Ac As 2d 2c 2s"), 0)


def test_bombs_four_to_ten_cards():
    hand = "8d 8d 8c 8c 8h 8h 8s 8s 2h 2h"  # level 2: two wilds make a ten-card bomb of 8s
    sizes = sorted({len(m.cards) for m in of(C.BOMB, moves(hand, level="2")) if m.rank == LV["8"]})
    assert sizes == [4, 5, 6, 7, 8, 9, 10]
    assert mv(C.BOMB, "8", hand) in moves(hand, level="2")


def test_straight_flush_and_its_plain_straight_are_two_moves():
    found = moves("5s 6s 7s 8s 9s", level="2")
    assert mv(C.STRAIGHT_FLUSH, 4, "5s 6s 7s 8s 9s") in found
    assert mv(C.STRAIGHT, 4, "5s 6s 7s 8s 9s") in found


def test_four_jokers():
    found = moves("BJ BJ RJ RJ", level="2")
    assert Move(C.JOKER_BOMB, 0, (52, 52, 53, 53)) in found
    assert not of(C.JOKER_BOMB, moves("BJ BJ RJ 2h", level="2"))  # a wild never stands for a joker


# ---------------------------------------------------------------------------------------------
# bomb order and the pitfalls
# ---------------------------------------------------------------------------------------------

def _bombs(level: int):
    four = mv(C.BOMB, "A", "Ad Ac Ah As")
    five = mv(C.BOMB, "3", "3d 3c 3h 3s 3d")
    sf_low = mv(C.STRAIGHT_FLUSH, 0, "Ad 2d 3d 4d 5d")
    sf_high = mv(C.STRAIGHT_FLUSH, 9, "Td Jd Qd Kd Ad")
    six = mv(C.BOMB, "3", "3d 3c 3h 3s 3d 3c")
    ten = mv(C.BOMB, "A", "Ad Ac Ah As Ad Ac Ah As 2h 2h")
    jokers = Move(C.JOKER_BOMB, 0, (52, 52, 53, 53))
    return [four, five, sf_low, sf_high, six, ten, jokers]


def test_bomb_order_is_total_and_strict():
    order = _bombs(level=Rank.TWO)
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            assert beats(a, b, 0) == (i > j), (move_to_string(a), move_to_string(b))


def test_four_jokers_beat_every_bomb_including_six_plus():
    jokers = Move(C.JOKER_BOMB, 0, (52, 52, 53, 53))
    for bomb in _bombs(0)[:-1]:
        assert beats(jokers, bomb, 0) and not beats(bomb, jokers, 0)
    last = mv(C.BOMB, "A", "Ad Ac Ah As Ad Ac Ah As")
    assert jokers in moves("BJ BJ RJ RJ 3d", level="2", last=last)


def test_equal_straight_flushes_do_not_beat_each_other():
    a = mv(C.STRAIGHT_FLUSH, 4, "5s 6s 7s 8s 9s")
    b = mv(C.STRAIGHT_FLUSH, 4, "5d 6d 7d 8d 9d")
    assert not beats(a, b, 0) and not beats(b, a, 0)
    assert b not in moves("5d 6d 7d 8d 9d", level="2", last=a)
    assert beats(mv(C.STRAIGHT_FLUSH, 5, "6d 7d 8d 9d Td"), a, 0)


def test_bombs_beat_non_bombs_and_sizes_then_rank():
    assert beats(mv(C.BOMB, "2", "2d 2c 2h 2s"), mv(C.STRAIGHT, 9, "Td Jc Qc Kc Ac"), 5)
    assert beats(mv(C.BOMB, "3", "3d 3c 3h 3s 3d"), mv(C.BOMB, "A", "Ad Ac Ah As"), 5)
    assert beats(mv(C.BOMB, "5", "5d 5c 5h 5s"), mv(C.BOMB, "A", "Ad Ac Ah As"), 3)  # 5 is the level
    assert not beats(mv(C.BOMB, "5", "5d 5c 5h 5s"), mv(C.BOMB, "5", "5d 5c 5h 5s"), 3)


def test_level_rank_sits_at_its_natural_place_in_sequences():
    level = "7"
    assert mv(C.STRAIGHT, 4, "5d 6c 7c 8c 9c") in moves("5d 6c 7c 8c 9c", level=level)
    assert mv(C.TUBE, 5, "6d 6c 7d 7c 8d 8c") in moves("6d 6c 7d 7c 8d 8c", level=level)
    assert mv(C.PLATE, 6, "7d 7c 7s 8d 8c 8s") in moves("7d 7c 7s 8d 8c 8s", level=level)
    assert mv(C.STRAIGHT_FLUSH, 3, "4s 5s 6s 7s 8s") in moves("4s 5s 6s 7s 8s", level=level)


def test_wild_alone_is_a_level_single_and_two_wilds_a_level_pair():
    found = moves("5h 5h", level="5")
    assert sorted(found) == sorted([mv(C.SINGLE, "5", "5h"), mv(C.PAIR, "5", "5h 5h")])


def test_wild_makes_pairs_trios_and_three_with_two():
    found = moves("9d 9c Kc 4h", level="4")
    assert mv(C.PAIR, "9", "9d 4h") in found and mv(C.PAIR, "K", "Kc 4h") in found
    assert mv(C.TRIO, "9", "9d 9c 4h") in found
    found = moves("9d 9c Kc Kd 4h", level="4")
    assert mv(C.THREE_WITH_TWO, "9", "9d 9c Kc Kd 4h") in found
    assert mv(C.THREE_WITH_TWO, "K", "9d 9c Kc Kd 4h") in found  # same cards, other rank: another move


def test_wild_completes_straight_tube_plate_bomb_and_straight_flush():
    lv = "J"  # wild: Jh
    assert mv(C.STRAIGHT, 1, "2d 3c Jh 5c 6c") in moves("2d 3c 5c 6c Jh", level=lv)
    assert mv(C.TUBE, 1, "2d 2c 3d Jh 4d 4c") in moves("2d 2c 3d 4d 4c Jh", level=lv)
    assert mv(C.PLATE, 1, "2d 2c 2s 3d 3c Jh") in moves("2d 2c 2s 3d 3c Jh", level=lv)
    assert mv(C.BOMB, "6", "6d 6c 6s Jh") in moves("6d 6c 6s Jh", level=lv)
    assert mv(C.STRAIGHT_FLUSH, 1, "2s 3s Jh 5s 6s") in moves("2s 3s 5s 6s Jh", level=lv)
    # a wild stands for the level card of another suit inside a straight flush
    assert mv(C.STRAIGHT_FLUSH, 8, "9s Ts Jh Qs Ks") in moves("9s Ts Qs Ks Jh", level=lv)


def test_each_use_of_a_wild_is_a_distinct_move():
    # 2h (wild at level 2) + 3d 4d 5d 6d: straight 2-6 (2h as itself), straight-flush 2-6 (wild as 2d),
    # straight and straight-flush 3-7 (wild as 7 / 7d); A-5 would need both an A and a 2
    found = [m for m in moves("2h 3d 4d 5d 6d", level="2") if len(m.cards) == 5]
    cards = parse_cards("2h 3d 4d 5d 6d")
    assert sorted(found) == sorted(Move(c, r, cards) for c in (C.STRAIGHT, C.STRAIGHT_FLUSH) for r in (1, 2))


def test_following_same_type_higher_or_bomb_and_pass():
    last = mv(C.PAIR, "9", "9d 9c")
    found = moves("Td Tc 8d 8c 3d 3c 3h 3s", level="2", last=last)
    assert found[0] == PASS
    assert set(found) == {PASS, mv(C.PAIR, "T", "Td Tc"), mv(C.BOMB, "3", "3d 3c 3h 3s")}
    assert PASS not in moves("Td Tc", level="2")  # the leader may not pass


def test_bad_hands_and_levels_are_refused():
    with pytest.raises(ValueError, match="54-count"):
        legal_moves(np.zeros(53), None, "2")
    with pytest.raises(ValueError, match="0..2"):
        legal_moves(np.full(54, 3), None, "2")
    with pytest.raises(ValueError, match="no rank"):
        legal_moves(np.zeros(54), None, "1")
    with pytest.raises(TypeError, match="level"):
        legal_moves(np.zeros(54), None, 2.0)


# ---------------------------------------------------------------------------------------------
# brute-force oracle: first principles on every sub-multiset and every wild assignment
# ---------------------------------------------------------------------------------------------

ACE_LOW_LINE = [12] + list(range(13))  # positions of the run line: A 2 3 ... K A


def _natural_types(kinds: tuple[int, ...], level: int) -> set[tuple[int, int, tuple]]:
    """(category, key) for every reading of a wild-free multiset of kinds; key sorts within category."""
    n = len(kinds)
    jokers = [k for k in kinds if k >= 52]
    ranks = sorted(k // 4 for k in kinds if k < 52)
    suits = {k % 4 for k in kinds if k < 52}
    out = set()

    def pw(r):
        return 13 if r == level else r

    if n == 1:
        out.add((C.SINGLE, {52: 14, 53: 15}.get(kinds[0], kinds[0] // 4)))
    if n == 4 and sorted(jokers) == [52, 52, 53, 53]:
        out.add((C.JOKER_BOMB, 0))
    if jokers:
        if n == 2 and jokers[0] == jokers[-1] and len(jokers) == 2:
            out.add((C.PAIR, {52: 14, 53: 15}[jokers[0]]))
        if n == 5 and len(jokers) == 2 and jokers[0] == jokers[1] and len(set(ranks)) == 1:
            out.add((C.THREE_WITH_TWO, ranks[0]))
        return out
    same = len(set(ranks)) == 1
    if same and n in (2, 3):
        out.add(({2: C.PAIR, 3: C.TRIO}[n], ranks[0]))
    if same and 4 <= n <= 10:
        out.add((C.BOMB, ranks[0]))
    if n == 5:
        hist = sorted(ranks.count(r) for r in set(ranks))
        if hist == [2, 3]:
            trio = [r for r in set(ranks) if ranks.count(r) == 3][0]
            out.add((C.THREE_WITH_TWO, trio))
    for cat, length, copies in ((C.STRAIGHT, 5, 1), (C.TUBE, 3, 2), (C.PLATE, 2, 3)):
        if n != length * copies:
            continue
        for start in range(len(ACE_LOW_LINE) - length + 1):
            want = sorted(ACE_LOW_LINE[start:start + length] * copies)
            if ranks == want:
                out.add((cat, start))
                if cat == C.STRAIGHT and len(suits) == 1:
                    out.add((C.STRAIGHT_FLUSH, start))
    return out


def oracle_moves(hand_cards: tuple[int, ...], level: int) -> set[Move]:
    """Every lead move of the hand: each sub-multiset, each wild as itself or as any of the 52 cards."""
    wild = 4 * level + 2
    subs = set()
    for size in range(1, len(hand_cards) + 1):
        subs.update(itertools.combinations(sorted(hand_cards), size))
    found = set()
    for sub in subs:
        num_wild = sub.count(wild)
        rest = tuple(k for k in sub if k != wild)
        options = [(wild,)] if not rest else [(wild,)] + [(k,) for k in range(52)]  # all-wild: natural only
        for assign in itertools.product(options, repeat=num_wild):
            virtual = tuple(sorted(rest + tuple(a[0] for a in assign)))
            for cat, rank in _natural_types(virtual, level):
                found.add(Move(cat, rank, sub))
    return found


def oracle_follows(lead: set[Move], last: Move, level: int) -> set[Move]:
    return {PASS} | {m for m in lead if _oracle_beats(m, last, level)}


def _oracle_beats(m: Move, last: Move, level: int) -> bool:
    def strength(x: Move):
        p = 13 if x.rank == level else x.rank
        if x.category == C.JOKER_BOMB:
            return 100
        if x.category == C.STRAIGHT_FLUSH:
            return 55 + x.rank / 100
        if x.category == C.BOMB:
            return 10 * len(x.cards) + p / 100
        return None

    sm, sl = strength(m), strength(last)
    if sm is not None:
        return sl is None or sm > sl
    if sl is not None or m.category != last.category:
        return False
    if m.category in (C.STRAIGHT, C.TUBE, C.PLATE):
        return m.rank > last.rank
    pm = 13 if m.rank == level else m.rank
    pl = 13 if last.rank == level else last.rank
    return pm > pl


def _random_small_hand(rng: np.random.Generator, num_wild: int, level: int) -> tuple[int, ...]:
    size = int(rng.integers(4, 9)) - num_wild
    width = int(rng.integers(2, 6))  # a window of ranks on the ace-low line, so runs are likely
    low = int(rng.integers(0, len(ACE_LOW_LINE) - width + 1))
    window = sorted({ACE_LOW_LINE[p] for p in range(low, low + width)} | {level})
    pool = [4 * r + s for r in window for s in range(4) for _ in range(2) if 4 * r + s != 4 * level + 2]
    pool += [52, 52, 53, 53] if rng.random() < 0.3 else []
    picks = rng.choice(len(pool), size=min(size, len(pool)), replace=False)
    return tuple(sorted([pool[i] for i in picks] + [4 * level + 2] * num_wild))


def _check_against_oracle(cards: tuple[int, ...], level: int, rng: np.random.Generator) -> None:
    hand = cards_to_counts(cards)
    got = legal_moves(hand, None, level)
    assert len(got) == len(set(got)), "duplicate moves"
    want = oracle_moves(cards, level)
    assert set(got) == want, (sorted(map(str, set(got) - want)), sorted(map(str, want - set(got))))
    # follows: on a few of the lead moves (and a bomb of the oracle) the legal sets must match too
    candidates = sorted(want)
    for i in rng.choice(len(candidates), size=min(4, len(candidates)), replace=False):
        last = candidates[int(i)]
        got = legal_moves(hand, last, level)
        assert set(got) == oracle_follows(want, last, level) and len(got) == len(set(got))


@pytest.mark.parametrize("num_wild", [0, 1, 2])
def test_legal_moves_equal_brute_force_oracle(num_wild):
    rng = np.random.default_rng(100 + num_wild)
    for _ in range({0: 150, 1: 60, 2: 8}[num_wild]):
        level = Rank(int(rng.integers(13)))
        _check_against_oracle(_random_small_hand(rng, num_wild, level), level, rng)


@pytest.mark.parametrize("text,level", [
    ("Ad Ac 2d 2c 3d 3h 5h", "5"),        # AA2233 with a wild
    ("Ad Ac As 2d 2c Kh 9s", "K"),        # AAA222 with a wild, level K
    ("Td Jd Qd Kd 7h 7h", "7"),           # straight flushes and straights with two wilds
    ("4d 4c 4s 9d BJ BJ 3h", "3"),        # three-with-two with a joker pair, wild as trio card
    ("6d 6c 6s 6h 2h 2h BJ RJ", "2"),     # bombs with wilds
    ("5s 6s 7s 8s 9s BJ BJ RJ", "3"),     # a natural straight flush; jokers
    ("BJ BJ RJ RJ 4d 4c 4s 4h", "K"),     # four jokers over a bomb
    ("6d 6d 6s 6h 6h 9c", "6"),           # level trio + two wilds as a pair of another rank
    ("9s Ts Qs Ks Jh Jd", "J"),           # wild as the level card of another suit in a straight flush
])
def test_oracle_on_chosen_hands(text, level):
    _check_against_oracle(parse_cards(text), LV[level], np.random.default_rng(0))


# ---------------------------------------------------------------------------------------------
# properties on full 27-card hands (hypothesis): held cards, uniqueness, follows = lead moves that beat
# ---------------------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 31), level=st.sampled_from(list(Rank)), wilds=st.integers(0, 2))
def test_follow_sets_are_the_lead_moves_that_beat(seed, level, wilds):
    rng = np.random.default_rng(seed)
    deck = [k for k in range(54) for _ in range(2) if k != 4 * level + 2]
    cards = [deck[i] for i in rng.choice(len(deck), size=27 - wilds, replace=False)] + [4 * level + 2] * wilds
    hand = cards_to_counts(cards)
    lead = legal_moves(hand, None, level)
    assert len(lead) == len(set(lead)) and PASS not in lead
    for m in lead:
        assert (m.counts() <= hand).all() and list(m.cards) == sorted(m.cards)
    lead_set = set(lead)
    for i in rng.choice(len(lead), size=min(6, len(lead)), replace=False):
        last = lead[int(i)]
        follow = legal_moves(hand, last, level)
        assert follow[0] == PASS and len(follow) == len(set(follow))
        assert set(follow) == {PASS} | {m for m in lead_set if beats(m, last, level)}


@pytest.mark.parametrize("level", [Rank.TWO, Rank.NINE])
def test_a_hands_moves_are_the_move_universe_moves_it_holds(level):
    """The per-level move table (the lead moves of all 108 cards) filtered by what a hand holds gives exactly
    the hand's own lead moves: per-hand generation and a fixed table agree (module docstring)."""
    from cardrl.games.guandan.moves import DECK

    universe = legal_moves(DECK, None, level)
    assert len(universe) == len(set(universe)) > 130_000
    matrix = np.array([m.counts() for m in universe], dtype=np.int8)
    rng = np.random.default_rng(level)
    deck = [k for k in range(54) for _ in range(2)]
    for _ in range(15):
        hand = cards_to_counts([deck[i] for i in rng.choice(108, size=27, replace=False)])
        held = np.flatnonzero((matrix <= hand).all(axis=1))
        assert {universe[i] for i in held} == set(legal_moves(hand, None, level))
