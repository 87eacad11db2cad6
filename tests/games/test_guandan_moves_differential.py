"""GuanDan legal moves: the level tables' compiled scan (``LevelMoveTable.legal_ids``, what ``GuanDanGame`` uses)
against the by-value generator it replaced (:func:`cardrl.games.guandan.moves.legal_moves`, itself checked against
brute force in tests/games/test_guandan_moves.py, and unchanged by the scan): the same legal set, id for id, on random
positions of every level (leads and follows of every category; 0, 1 and 2 wild cards; hands of 1..27 cards and the
adversarial both-wilds hands), through the engine in random games, and as hypothesis properties. Also: the scan's
tables cover each level's move universe exactly once, ``LegalValues`` decodes ids to the reference's values, and the
disk cache gives back the arrays it was built with."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.games.guandan import GuanDanGame
from cardrl.games.guandan import moves as ref
from cardrl.games.guandan.moves import Category, Rank, hand_from_string, wild_kind
from cardrl.games.guandan.table import NUM_SPECIAL, LegalValues, LevelMoveTable, level_table

DECK_CARDS = np.repeat(np.arange(54), 2)
LEVELS = list(Rank)


def reference_ids(hand: np.ndarray, last, level: int) -> np.ndarray:
    """Sorted table ids of the reference generator's legal moves (asserting it lists each move once)."""
    ids = level_table(level).ids_of(ref.legal_moves(hand, last, level))
    assert len(np.unique(ids)) == len(ids), "the reference lists a move twice"
    return np.sort(ids)


def random_hand(rng: np.random.Generator, level: int, size: int, wilds: int) -> np.ndarray:
    """``size`` cards of the two decks holding exactly ``wilds`` wild cards (when the size allows)."""
    wild = wild_kind(level)
    others = DECK_CARDS[DECK_CARDS != wild]
    wilds = min(wilds, size)
    hand = np.bincount(rng.choice(others, size - wilds, replace=False), minlength=54).astype(np.int8)
    hand[wild] = wilds
    return hand


def last_moves(rng: np.random.Generator, level: int, count: int) -> list:
    """``count`` moves to follow: drawn per category from the lead moves of random 27-card hands (bombs, straight
    flushes and four jokers included), plus a pass (a lead)."""
    by_cat: dict[int, list] = {}
    for _ in range(3):
        for move in ref.legal_moves(random_hand(rng, level, 27, int(rng.integers(3))), None, level):
            by_cat.setdefault(int(move.category), []).append(move)
    by_cat.setdefault(int(ref.Category.JOKER_BOMB), []).append(
        ref.Move(ref.Category.JOKER_BOMB, 0, (52, 52, 53, 53)))
    cats = sorted(by_cat)
    out = [ref.PASS]
    for i in range(count):
        pool = by_cat[cats[i % len(cats)]]
        out.append(pool[int(rng.integers(len(pool)))])
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_scan_equals_reference_on_random_positions(level: int):
    rng = np.random.default_rng(1000 + level)
    table = level_table(level)
    follows = last_moves(rng, level, 24)
    checked = {0: 0, 1: 0, 2: 0}
    for i in range(72):
        wilds = i % 3
        size = 27 if i % 4 == 0 else int(rng.integers(1, 28))
        hand = random_hand(rng, level, size, wilds)
        last = None if i % 3 == 0 else follows[int(rng.integers(len(follows)))]
        got = table.legal_ids(hand, last)
        assert np.array_equal(got, reference_ids(hand, last, level)), (level, hand.tolist(), last)
        checked[int(hand[wild_kind(level)])] += 1
    assert all(n > 0 for n in checked.values())


@pytest.mark.parametrize("level", [Rank.TWO, Rank.EIGHT, Rank.ACE])
def test_scan_follows_every_category(level: int):
    """Each category of last move (and every bomb size) on hands rich in bombs and both wilds."""
    rng = np.random.default_rng(7 + level)
    table = level_table(level)
    follows = last_moves(rng, level, 60)
    for last in follows:
        for wilds in (0, 1, 2):
            hand = random_hand(rng, level, 27, wilds)
            assert np.array_equal(table.legal_ids(hand, last), reference_ids(hand, last, level)), (hand.tolist(), last)


def test_scan_on_adversarial_hands():
    """The full deck (the whole universe) and the both-wilds hand with the most legal leads found (15,947)."""
    for level in LEVELS:
        table = level_table(level)
        assert np.array_equal(table.legal_ids(ref.DECK, None), np.arange(1, len(table)))
    hand = hand_from_string(" ".join(r + s for r in "345678" for s in "dchs") + " 9d 9s 8h")
    hand[wild_kind("8")] = 2
    got = level_table("8").legal_ids(hand, None)
    assert len(got) == 15_947 and np.array_equal(got, reference_ids(hand, None, Rank.EIGHT))


def test_engine_legal_moves_equal_reference_in_random_games():
    rng = np.random.default_rng(3)
    plays = 0
    for seed in range(6):
        game = GuanDanGame(match=True).reset(seed)
        while not game.is_over and plays < 400 * (seed + 1):
            ids = game.legal_moves()
            if game.phase == "play":
                seat = game.current_player
                want = reference_ids(game.hands[seat], game.last_move, game.level) + NUM_SPECIAL
                assert np.array_equal(ids, want)
                values = game.legal_move_values()
                assert values == level_table(game.level).values_of(ids - NUM_SPECIAL)
                assert sorted(values) == sorted(ref.legal_moves(game.hands[seat], game.last_move, game.level))
                plays += 1
            game.step(int(ids[rng.integers(len(ids))]))
    assert plays > 500


def test_legal_values_sequence():
    table = level_table(Rank(4))
    hand = random_hand(np.random.default_rng(0), Rank(4), 27, 2)
    ids = table.legal_ids(hand, None)
    values = LegalValues(table, ids)
    assert len(values) == len(ids) and values[5] == table.move_of(int(ids[5]))
    assert values[-1] == table.move_of(int(ids[-1]))
    assert list(values) == [table.move_of(int(i)) for i in ids]
    assert values.index(values[7]) == 7
    with pytest.raises(ValueError):
        values.index(ref.Move(ref.Category.JOKER_BOMB, 0, (52, 52, 53, 53)))
    with pytest.raises(ValueError):
        values.index("pass")
    copied = pickle.loads(pickle.dumps(values))
    assert list(copied) == list(values) and len(pickle.dumps(values)) < 20_000  # the table travels as its level
    assert pickle.loads(pickle.dumps(table)) is table


def test_game_with_cached_legal_moves_pickles_small():
    game = GuanDanGame(match=False).reset(5)
    legal = game.legal_moves()
    blob = pickle.dumps(game)
    assert len(blob) < 100_000
    again = pickle.loads(blob)
    assert np.array_equal(again.legal_moves(), legal) and again.legal_move_values() == game.legal_move_values()


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDRL_CACHE_DIR", str(tmp_path))
    built = LevelMoveTable(Rank(9))
    assert len(list(tmp_path.glob("*_L9.npz"))) == 1
    loaded = LevelMoveTable(Rank(9))
    assert built.size == loaded.size == len(level_table(Rank(9)))
    for a, b in zip(built.scan, loaded.scan):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    for a, b in zip(built._decode_arrays(), loaded._decode_arrays()):
        assert np.array_equal(a, b)
    assert np.array_equal(built.hi, loaded.hi) and np.array_equal(built.lo, loaded.lo)
    monkeypatch.setenv("CARDRL_CACHE_DIR", "off")
    assert np.array_equal(LevelMoveTable(Rank(9)).scan.ids, built.scan.ids)


_counts = st.lists(st.integers(0, 2), min_size=54, max_size=54)


@settings(max_examples=150, deadline=None)
@given(counts=_counts, level=st.sampled_from(list(Rank)), wilds=st.integers(0, 2), pick=st.integers(0, 10_000),
       lead=st.booleans(), keep=st.floats(0.05, 0.5))
def test_property_scan_equals_reference(counts, level, wilds, pick, lead, keep):
    """Any hand (each kind 0..2; thinned to about ``keep`` of the deck), any level, any move of a 27-card hand to
    follow: the scan's set is the reference's."""
    rng = np.random.default_rng(pick)
    hand = np.array(counts, dtype=np.int8) * (rng.random(54) < keep)
    hand[wild_kind(level)] = wilds
    last = None
    if not lead:
        pool = ref.legal_moves(random_hand(rng, level, 27, int(rng.integers(3))), None, level)
        last = pool[pick % len(pool)]
    assert np.array_equal(level_table(level).legal_ids(hand.astype(np.int8), last), reference_ids(hand, last, level))


@settings(max_examples=40, deadline=None)
@given(counts=_counts, level=st.sampled_from(list(Rank)), pick=st.integers(0, 10_000), keep=st.floats(0.1, 0.5))
def test_property_follow_is_lead_filtered_by_beats(counts, level, pick, keep):
    """A follow's legal set is pass plus the lead moves that beat the last move (the ordering, independently of the
    scan's group ranges), on hands thinned to about ``keep`` of the deck."""
    hand = np.array(counts, dtype=np.int8) * (np.random.default_rng(pick).random(54) < keep)
    table = level_table(level)
    leads = table.legal_ids(hand, None)
    values = table.values_of(leads)
    for last in values[:: max(1, len(values) // 7)]:
        follow = table.legal_ids(hand, last)
        want = [0] + [int(i) for i, m in zip(leads, values) if ref.beats(m, last, level)]
        assert follow.tolist() == want
        assert all(table.move_of(int(i)).category != Category.PASS for i in follow[1:])
