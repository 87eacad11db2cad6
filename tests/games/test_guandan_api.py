"""GuanDan's public API as an adapter to another engine uses it: levels are ranks, a move's concrete reading (what
every card, a wild card's stand-in included, is played as), the public classify check, the display of four jokers
and of wild stand-ins, and the move tables and action ids that trained checkpoints depend on."""

from __future__ import annotations

import argparse
import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import guandan_v0
from cardrl.games.guandan import GuanDanGame, IllegalMoveError
from cardrl.games.guandan.moves import (
    BLACK_JOKER, HEARTS, RED_JOKER, Category, Move, PlayedCard, Rank, classify, legal_moves, move_to_string,
    parse_cards, parse_level, sequence_ranks, wild_kind)
from cardrl.games.guandan.table import NUM_SPECIAL, level_table
from cardrl.games.guandan.notation import GuanDanNotation
from cardrl.games.registry import get_game

C = Category
FOUR_JOKERS = Move(C.JOKER_BOMB, 0, (BLACK_JOKER, BLACK_JOKER, RED_JOKER, RED_JOKER))


def mv(category: Category, rank: int, cards: str) -> Move:
    return Move(category, rank, parse_cards(cards))


# ---- levels are ranks ------------------------------------------------------------------------------------------
def test_game_level_is_the_rank_named():
    game = GuanDanGame(match=False, level="4").reset(0)
    assert game.level == Rank.FOUR and str(game.level) == "4" and f"{game.level}" == "4"
    assert game.wild_kinds() == (parse_cards("4h")[0],)
    assert GuanDanGame(match=False, level=Rank.KING).reset(0).level == Rank.KING
    assert parse_level("10") == parse_level("t") == parse_level(" T ") == Rank.TEN
    assert GuanDanGame().reset(0).level == Rank.TWO and GuanDanGame().reset(0).team_levels == [Rank.TWO] * 2
    assert all(isinstance(x, Rank) for x in GuanDanGame().reset(0).view(0).team_levels)


def test_an_int_level_is_refused_as_ambiguous():
    with pytest.raises(TypeError, match=r"level=2 is ambiguous.*the 4s.*level='4' or Rank\(2\)"):
        GuanDanGame(level=2)
    with pytest.raises(TypeError, match="ambiguous"):
        legal_moves(np.zeros(54, dtype=np.int8), None, np.int64(3))
    with pytest.raises(TypeError, match="level=13 is ambiguous"):
        level_table(13)
    with pytest.raises(ValueError, match="level '1' is no rank.*'2' .. '9', 'T'"):
        GuanDanGame(level="1")
    with pytest.raises(TypeError, match="level must be a rank, got float"):
        wild_kind(2.0)


def test_a_start_level_is_refused_for_a_whole_match():
    """A match always starts at level 2; a level given with match=True was ignored without a word."""
    with pytest.raises(ValueError, match="level='4' applies to a single deal \\(match=False\\)"):
        GuanDanGame(match=True, level="4")
    assert GuanDanGame(match=True, level="2").reset(1).level == Rank.TWO
    assert GuanDanGame(match=False, level="4").reset(1).level == Rank.FOUR


def test_rule_options_env_and_play_take_ranks():
    spec = get_game("guandan")
    assert spec.full_options()["level"] == "2"
    assert spec.full_options({"level": Rank.QUEEN})["level"] == "Q"  # stored as its name (deal files are JSON)
    assert spec.make_engine(match=False, level="Q").reset(0).level == Rank.QUEEN
    with pytest.raises(TypeError, match="ambiguous"):
        spec.full_options({"level": 10})
    env = guandan_v0.env(match=False, level="9")
    env.reset(seed=0)
    assert env.unwrapped.game.level == Rank.NINE
    from cardrl.play.cli import _play_options

    args = argparse.Namespace(rule=["match=false", "level=4"], deals=None, tribute_decisions=False, bidding=False)
    options = _play_options("guandan", args)
    assert options == {"match": False, "level": "4", "max_deals": 1}
    assert spec.make_engine(**options).reset(0).level == Rank.FOUR


# ---- a move's concrete reading -------------------------------------------------------------------------------
def test_as_played_names_what_each_wild_card_stands_for():
    straight = mv(C.STRAIGHT, 2, "3d 4c 6s 7d Th")  # level T: Th is the wild
    reading = straight.as_played("T")
    assert reading.ranks == (Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN)
    assert straight.substitutions("T") == (PlayedCard(parse_cards("Th")[0], Rank.FIVE, None, True),)
    assert str(reading) == "straight 3-7 [3d 4c 6s 7d Th] (Th as 5)"
    flush = mv(C.STRAIGHT_FLUSH, 8, "9s Ts Qs Ks Jh")  # level J: the wild is the J of spades
    assert [(str(c.rank), c.suit) for c in flush.substitutions("J")] == [("J", 3)]
    # a heart level card played as the level rank is itself, not a substitution
    natural = mv(C.STRAIGHT, 1, "2h 3d 4d 5d 6d")
    assert natural.substitutions("2") == () and natural.as_played("2").ranks[0] == Rank.TWO
    trio = mv(C.THREE_WITH_TWO, 7, "9d 9c 9h 7d 7c")  # level 9: 9h is a natural 9 of the trio
    assert trio.substitutions("9") == () and trio.as_played("9").ranks == (7, 7, 7, 5, 5)
    pair = mv(C.THREE_WITH_TWO, 9, "Jd Jc Js 7d 4h")  # level 4: the wild completes the pair of 7s
    assert [(c.kind, c.rank) for c in pair.substitutions("4")] == [(parse_cards("4h")[0], Rank.SEVEN)]


def test_a_level_trio_with_two_wild_cards_reads_as_a_free_pair():
    move = mv(C.THREE_WITH_TWO, 3, "5d 5c 5s 5h 5h")  # level 5: the trio 555, the pair any other rank
    reading = move.as_played("5")
    assert reading.ranks[:3] == (Rank.FIVE,) * 3
    subs = reading.substitutions
    assert len(subs) == 2 and all(c.free and c.wild and c.kind == wild_kind("5") for c in subs)
    assert all(c.rank == Rank.TWO for c in subs)  # the named stand-in: the lowest rank but the level's
    assert mv(C.THREE_WITH_TWO, 0, "2d 2c 2s 2h 2h").as_played("2").substitutions[0].rank == Rank.THREE
    assert "5h 5h as a pair of any other rank" in str(reading)
    # the same cards at another level: 5h 5h are a plain pair of 5s under a trio of 9s, no wild at all
    assert mv(C.THREE_WITH_TWO, 7, "9d 9c 9s 5h 5h").substitutions("2") == ()


def test_sequence_ranks_are_public():
    assert mv(C.STRAIGHT, 0, "Ad 2c 3h 4s 5s").sequence_ranks() == (Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR,
                                                                  Rank.FIVE)
    assert sequence_ranks(C.PLATE, 12) == (Rank.KING, Rank.ACE)
    assert sequence_ranks(C.TUBE, 11) == (Rank.QUEEN, Rank.KING, Rank.ACE)
    with pytest.raises(ValueError, match="no sequence"):
        mv(C.PAIR, 3, "5d 5s").sequence_ranks()
    with pytest.raises(ValueError, match="starts at 0..9"):
        sequence_ranks(C.STRAIGHT, 10)


def test_as_played_refuses_a_move_its_cards_do_not_make():
    with pytest.raises(ValueError, match="not a combination of its cards at level 2"):
        mv(C.PAIR, 3, "5d 6s").as_played("2")
    with pytest.raises(ValueError, match="not a combination"):
        mv(C.STRAIGHT, 2, "3d 4c 6s 7d Th").as_played("2")  # Th is no wild at level 2


# ---- classify ------------------------------------------------------------------------------------------------
def test_classify_lists_every_combination_the_cards_make():
    found = classify("5d 5c 5s 5h 5h", "5")
    assert sorted((r.move.category, r.move.rank) for r in found) == [(C.THREE_WITH_TWO, 3), (C.BOMB, 3)]
    assert [r.move for r in classify("BJ BJ RJ RJ", "A")] == [FOUR_JOKERS]
    assert classify("BJ RJ", "2") == [] and classify("5d 7c", "2") == [] and classify("", "2") == []
    run = classify("2h 3d 4d 5d 6d", "2")  # straight / straight flush, 2h as itself or as the 7 (flush: 7d)
    assert sorted(str(r) for r in run) == ["straight 2-6 [2h 3d 4d 5d 6d]", "straight 3-7 [2h 3d 4d 5d 6d] (2h as 7)",
                                           "straight-flush 2-6 [2h 3d 4d 5d 6d] (2h as 2d)",
                                           "straight-flush 3-7 [2h 3d 4d 5d 6d] (2h as 7d)"]
    assert classify(parse_cards("9d 9c 9s"), Rank.FOUR)[0].move == mv(C.TRIO, 7, "9d 9c 9s")
    with pytest.raises(ValueError, match="more than twice"):
        classify("5d 5d 5d", "2")
    with pytest.raises(ValueError, match="card kind"):
        classify([54], "2")


# ---- display -------------------------------------------------------------------------------------------------
def test_four_jokers_are_shown_without_a_rank():
    assert str(FOUR_JOKERS) == move_to_string(FOUR_JOKERS, "7") == "four-jokers [BJ BJ RJ RJ]"
    game = GuanDanGame(match=False, level="7").reset(0)
    hands = np.zeros((4, 54), dtype=np.int8)
    hands[:, 0] = 1
    game.set_hands(hands, current_player=0)
    with pytest.raises(IllegalMoveError, match=r"does not hold the cards of four-jokers \[BJ BJ RJ RJ\]"):
        game.step(FOUR_JOKERS)
    hands[1, 52:] = 2
    game.set_hands(hands, current_player=1)
    ids = game.legal_moves()
    notation = GuanDanNotation()
    assert "four-jokers [BJ BJ RJ RJ]" in [notation.move_text(game, a) for a in ids]


def test_engine_messages_and_play_name_wild_stand_ins():
    game = GuanDanGame(match=False, level="T").reset(0)
    hands = np.zeros((4, 54), dtype=np.int8)
    hands[:, 0] = 1
    hands[0][list(parse_cards("3d 4c 6s 7d Th"))] = 1
    game.set_hands(hands, current_player=0)
    straight = mv(C.STRAIGHT, 2, "3d 4c 6s 7d Th")
    action = game.id_of(straight)
    assert game.move_string(action) == "straight 3-7 [3d 4c 6s 7d Th] (Th as 5)"
    assert GuanDanNotation().move_text(game, action) == "straight 3-7 [3d 4c 6s 7d Th*] (Th as 5)"
    hands[0][parse_cards("Th")[0]] = 0
    game.set_hands(hands, current_player=0)
    with pytest.raises(IllegalMoveError, match=r"hold the cards of straight 3-7 \[3d 4c 6s 7d Th\] \(Th as 5\)"):
        game.step(straight)


# ---- properties over random positions ------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 31), level=st.sampled_from(list(Rank)), wilds=st.integers(0, 2))
def test_property_every_legal_move_has_a_reading_that_classify_finds(seed, level, wilds):
    """For legal moves of random 27-card hands (leads, 0..2 wild cards): the reading plays exactly the move's cards,
    keeps every natural card as itself, puts every non-joker card at the move's rank (n-of-a-kind) or along its run
    (sequences), uses a wild only where the move holds one, and is among classify(move.cards)."""
    rng = np.random.default_rng(seed)
    wild = wild_kind(level)
    deck = [k for k in range(54) for _ in range(2) if k != wild]
    cards = [deck[i] for i in rng.choice(len(deck), size=27 - wilds, replace=False)] + [wild] * wilds
    hand = np.bincount(cards, minlength=54).astype(np.int8)
    moves = legal_moves(hand, None, level)
    for i in rng.choice(len(moves), size=min(40, len(moves)), replace=False):
        move = moves[int(i)]
        reading = move.as_played(level)
        assert tuple(sorted(c.kind for c in reading.cards)) == move.cards
        for c in reading.cards:
            if c.wild:
                assert c.kind == wild and (c.rank, c.suit) not in ((level, HEARTS), (level, None))
            else:
                assert c.rank == (c.kind // 4 if c.kind < 52 else c.kind - 38) and c.suit in (None, c.kind % 4)
        if move.category in (C.SINGLE, C.PAIR, C.TRIO, C.BOMB):
            assert set(reading.ranks) == {move.rank}
        elif move.category in (C.STRAIGHT, C.TUBE, C.PLATE, C.STRAIGHT_FLUSH):
            copies = len(move.cards) // len(move.sequence_ranks())
            assert reading.ranks == tuple(r for r in move.sequence_ranks() for _ in range(copies))
            if move.category == C.STRAIGHT_FLUSH:
                assert len({c.suit for c in reading.cards}) == 1
        elif move.category == C.THREE_WITH_TWO:
            assert reading.ranks[:3] == (move.rank,) * 3 and len(set(reading.ranks[3:])) == 1
            assert reading.ranks[3] != move.rank
        assert reading in classify(move.cards, level)


# ---- the move tables and action ids are unchanged ------------------------------------------------------------
# sha256 (first 16 hex digits) of each level's table keys, hi then lo, computed before levels took ranks (commit
# 54728dc): a table with other moves or another order would change the ids trained checkpoints act with
TABLE_DIGESTS = {0: "05efaf1a776cd366", 1: "b333e4b3652b2c1f", 2: "a4120ad9347fdc0b", 3: "cafd5fc1efd7c639",
                 4: "9fdf02c681a1146e", 5: "b2df99c55d0b943f", 6: "f10b5000da0b7793", 7: "b1652b2244fad749",
                 8: "35caf1c0b71c216e", 9: "886e00d71fa03ad5", 10: "32a0e14d4cd88336", 11: "2062e5a414ff9145",
                 12: "328172a6a1a139d6"}


def _digest(level: Rank) -> str:
    table = level_table(level)
    return hashlib.sha256(table.hi.tobytes() + table.lo.tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("level", [Rank.TWO, Rank.EIGHT, Rank.ACE])
def test_move_tables_are_unchanged(level):
    assert _digest(level) == TABLE_DIGESTS[int(level)]


@pytest.mark.slow
def test_every_move_table_is_unchanged():
    assert {int(level): _digest(level) for level in Rank} == TABLE_DIGESTS


def test_action_ids_are_unchanged():
    """Ids of a few moves, read off the tables before levels took ranks."""
    two, ten = level_table("2"), level_table("T")
    assert NUM_SPECIAL + int(two.ids_of([FOUR_JOKERS])[0]) == 135_178
    assert NUM_SPECIAL + int(two.ids_of([mv(C.PAIR, 3, "5d 5s")])[0]) == 211
    assert NUM_SPECIAL + int(two.ids_of([mv(C.STRAIGHT, 0, "Ad 2c 3h 4s 5s")])[0]) == 61_515
    assert NUM_SPECIAL + int(ten.ids_of([mv(C.STRAIGHT, 2, "3d 4c 6s 7d Th")])[0]) == 68_018


def test_a_deal_file_written_with_a_rank_index_level_still_loads(tmp_path):
    """Deal files store the full rule options; those written before levels took ranks hold the rank index."""
    from cardrl.eval.deals import generate_deals, load_deals

    deals = generate_deals("guandan", 3, seed=1)
    assert deals.options["level"] == "2"
    deals.options["level"] = 0  # as written before
    path = deals.save(tmp_path / "old.npz")
    loaded = load_deals(path, "guandan")
    assert loaded.options["level"] == "2" and np.array_equal(loaded.hands, deals.hands)
