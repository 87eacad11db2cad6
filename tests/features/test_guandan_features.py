"""DanZero's 513-dim GuanDan state and 54-dim action features (cardrl.features.danzero), slice by slice."""

import numpy as np
import pytest

from cardrl.features.danzero import SLICES, STATE_DIM, DanZeroFeatures, wild_flags
from cardrl.games.guandan.table import moves_to_counts
from cardrl.games.guandan import GuanDanGame
from cardrl.games.guandan.moves import DECK, Category, Rank, hand_from_string, parse_cards

F = DanZeroFeatures()


def _game(hands: dict[int, str], leader: int = 0, level: Rank | str = "2") -> GuanDanGame:
    g = GuanDanGame(match=False, level=level).reset(0)
    h = np.zeros((4, 54), dtype=np.int8)
    for seat, text in hands.items():
        h[seat] = hand_from_string(text)
    return g.set_hands(h, current_player=leader)


def _play(g: GuanDanGame, text: str | None, category: Category | None = None) -> None:
    """Play the cards ``text`` (None: pass) as the seat to move."""
    if text is None:
        g.step(next(m for m in g.legal_move_values() if m.is_pass))
        return
    cards = parse_cards(text)
    g.step(next(m for m in g.legal_move_values() if m.cards == cards and (category is None or m.category == category)))


def test_layout_adds_up_to_513():
    assert F.name == "danzero_v1" and F.state_dim() == F.state_dim("player_3") == STATE_DIM == 513
    assert F.ACTION_DIM == 54 and F.HISTORY_SHAPE == (0,)
    ends = 0
    for s in SLICES.values():
        assert s.start == ends
        ends = s.stop
    assert ends == 513
    sizes = {k: s.stop - s.start for k, s in SLICES.items()}
    assert sizes == {"hand": 54, "unseen": 54, "last_move": 54, "partner_last_move": 54, "cards_left": 84,
                     "played": 162, "levels": 39, "wild_flags": 12}
    assert STATE_DIM + F.ACTION_DIM == 567  # DanZero's network input


def test_hand_and_unseen_at_the_deal():
    g = GuanDanGame(match=False).reset(3)
    for seat in range(4):
        x = F.blocks(F.encode(g, seat))
        assert np.array_equal(x["hand"], g.hands[seat]) and x["hand"].sum() == 27
        assert np.array_equal(x["hand"] + x["unseen"], DECK)  # nothing played yet: unseen = the other 81 cards
        assert set(np.unique(x["hand"])) <= {0, 1, 2}


def test_trick_slices_on_a_constructed_deal():
    g = _game({0: "3d 3c 9s", 1: "5d 6d", 2: "4s", 3: "Kd Kc Ks"})
    x = F.blocks(F.encode(g, 0))
    assert not x["last_move"].any() and not x["partner_last_move"].any()  # a lead, nobody has acted
    assert np.flatnonzero(x["cards_left"]).tolist() == [2, 28 + 1, 56 + 3]  # down 2, mate 1, up 3 cards
    _play(g, "3d 3c")
    x1 = F.blocks(F.encode(g, 1))
    assert np.array_equal(x1["last_move"], hand_from_string("3d 3c"))
    assert np.array_equal(x1["played"][108:162], hand_from_string("3d 3c"))  # seat 0 is seat 1's "up"
    assert not x1["played"][:108].any()
    assert np.flatnonzero(x1["cards_left"]).tolist() == [1, 28 + 3, 56 + 1]  # down = seat 2, mate 3, up 0
    x2 = F.blocks(F.encode(g, 2))
    assert np.array_equal(x2["partner_last_move"], hand_from_string("3d 3c"))  # seat 0 is seat 2's partner
    assert np.array_equal(x2["played"][54:108], hand_from_string("3d 3c"))  # ... and its "mate" block
    _play(g, None)  # seat 1 passes
    _play(g, None)  # seat 2 passes
    x3 = F.blocks(F.encode(g, 3))
    assert not x3["partner_last_move"].any()  # seat 1's pass is all zero
    assert np.array_equal(x3["last_move"], hand_from_string("3d 3c"))  # still the move to beat
    _play(g, "Kd Kc")
    x0 = F.blocks(F.encode(g, 0))
    assert not x0["partner_last_move"].any()  # seat 2 passed
    assert np.array_equal(x0["last_move"], hand_from_string("Kd Kc"))
    for _ in range(3):
        _play(g, None)
    assert g.current_player == 3 and g.last_move is None
    x3 = F.blocks(F.encode(g, 3))
    assert not x3["last_move"].any()  # seat 3 leads: zeros
    _play(g, "Ks")  # seat 3 finishes
    x1 = F.blocks(F.encode(g, 1))
    assert (x1["partner_last_move"] == -1).all()  # partner finished: -1
    assert x1["cards_left"][28 + 0] == 1  # mate has 0 cards
    assert np.array_equal(x1["played"][54:108], hand_from_string("Kd Kc Ks"))


def test_unseen_is_what_the_seat_cannot_see():
    g = _game({0: "3d 3c 9s", 1: "5d 6d", 2: "4s", 3: "Kd Kc Ks"})
    _play(g, "3d 3c")
    x = F.blocks(F.encode(g, 1))
    assert np.array_equal(x["unseen"], hand_from_string("9s 4s Kd Kc Ks"))  # not own, not played
    # the encoding depends on the other hands only through their union and sizes
    h = g.hands.copy()
    h[2], h[3] = hand_from_string("Ks"), hand_from_string("Kd Kc 4s")
    g2 = g.copy()
    g2.hands = h
    assert np.array_equal(F.encode(g, 1), F.encode(g2, 1))


def test_level_one_hots():
    g = GuanDanGame(match=True).reset(0)
    g.team_levels = [3, 7]
    g.level_team = 1
    x = F.blocks(F.encode(g, 1))["levels"]
    assert np.flatnonzero(x).tolist() == [7, 13 + 3, 26 + 7]  # own (team 1) 9, opponents 5, current 9
    x = F.blocks(F.encode(g, 2))["levels"]
    assert np.flatnonzero(x).tolist() == [3, 13 + 7, 26 + 7]


@pytest.mark.parametrize("text,level,expected", [
    ("9d 9c 9h 9s 9d Kd", 0, []),  # no wild card: all zero, whatever the hand
    ("2h", 0, [0]),
    ("5h", 3, [0]),  # the wild follows the level (5 of hearts at level 5)
    ("2h 3d 4d 5d 6d", 0, [0, 1, 7, 8]),  # straight flush and straight with the wild
    ("2h 7d 7c 7h 7s 7d", 0, [0, 3, 4, 5, 6, 7]),  # five 7s: thermometer from ">= 5"
    ("2h 8d 8c 8s 9d 9c", 0, [0, 5, 6, 7, 9, 11]),  # plate 888-99x, three-with-two 99x+88
    ("2h 5d 5c 6d 6c 7d", 0, [0, 6, 7, 10, 11]),  # tube 55-66-7x
    ("2h 5d 6d 7d", 0, [0, 7]),  # one wild cannot fill two gaps
    ("2h 2h 5d 6d 7d", 0, [0, 1, 7, 8]),  # two wilds can
    ("2h BJ BJ 9d 9c", 0, [0, 6, 7, 11]),  # the joker pair as the pair of a three-with-two
    ("2h BJ RJ 9d 9c", 0, [0, 6, 7]),
])
def test_wild_flags(text, level, expected):
    assert np.flatnonzero(wild_flags(hand_from_string(text), level)).tolist() == expected


def test_wild_flags_agree_with_the_move_generator():
    """Flags [1] and [8..11]: a legal lead of that category that includes a wild card exists (brute force)."""
    from cardrl.games.guandan.moves import legal_moves

    categories = {1: Category.STRAIGHT_FLUSH, 8: Category.STRAIGHT, 9: Category.PLATE, 10: Category.TUBE,
                  11: Category.THREE_WITH_TWO}
    rng = np.random.default_rng(0)
    deck = np.repeat(np.arange(54), 2)
    seen = dict.fromkeys(categories, 0)
    for _ in range(250):
        level = Rank(int(rng.integers(13)))
        wild = 4 * level + 2
        hand = np.bincount(rng.choice(deck, int(rng.integers(5, 28)), replace=False), minlength=54).astype(np.int8)
        hand[wild] = max(hand[wild], 1)
        flags = wild_flags(hand, level)
        moves = legal_moves(hand, None, level)
        for i, cat in categories.items():
            oracle = any(m.category == cat and wild in m.cards for m in moves)
            assert bool(flags[i]) == oracle, (i, level, hand.nonzero())
            seen[i] += oracle
        assert flags[0] == 1
        m = max(int(hand[4 * r:4 * r + 4].sum() - (hand[wild] if r == level else 0)) for r in range(13))
        assert flags[2:8].tolist() == [int(m >= t) for t in (6, 5, 4, 3, 2, 1)]
    assert all(0 < v < 250 for v in seen.values())  # both answers occur for every flag


def test_wild_flags_in_the_state():
    g = _game({0: "2h 3d 4d 5d 6d", 1: "5c", 2: "6c", 3: "7c"})
    assert np.flatnonzero(F.blocks(F.encode(g, 0))["wild_flags"]).tolist() == [0, 1, 7, 8]
    assert not F.blocks(F.encode(g, 1))["wild_flags"].any()


def test_action_features_counts_copies_and_wilds():
    g = _game({0: "2h 3d 3d 4c 5s 6d 7h", 1: "5c", 2: "6c", 3: "7c"})
    legal = g.legal_move_values()
    feats = F.move_vectors(legal)
    assert feats.shape == (len(legal), 54) and feats.dtype == np.float32
    assert np.array_equal(F.action_features(g, g.legal_moves()), feats)  # by action id: the same vectors
    assert np.array_equal(feats, np.stack([m.counts() for m in legal]))
    pair = legal.index(next(m for m in legal if m.category == Category.PAIR and m.cards == (4, 4)))
    assert feats[pair, 4] == 2 and feats[pair].sum() == 2  # two copies of 3d: a 2
    # the wild is counted at its own kind; the same cards used two ways share the encoding, keys differ
    straights = [m for m in legal if m.category == Category.STRAIGHT and m.cards == parse_cards("2h 3d 4c 5s 6d")]
    assert len({m.rank for m in straights}) >= 2  # the wild as A, as 2 (2-6) or as 7 (3-7)
    rows = F.move_vectors(straights)
    assert (rows == rows[0]).all() and rows[0, 2] == 1
    keys = F.move_keys(straights)
    assert len({tuple(k) for k in keys}) == len(straights)
    assert keys[0, 0] == Category.STRAIGHT


def test_pass_is_zero_and_moves_to_counts_matches():
    g = _game({0: "3d", 1: "5c 5d", 2: "6c", 3: "7c"})
    _play(g, "3d")
    legal = g.legal_move_values()
    assert legal[0].is_pass and not F.move_vectors(legal)[0].any()
    assert not F.action_features(g, g.legal_moves())[0].any()
    g = GuanDanGame(match=False).reset(7)
    legal = g.legal_move_values()
    assert np.array_equal(moves_to_counts(legal), np.stack([m.counts() for m in legal]))
    assert moves_to_counts([]).shape == (0, 54)


def test_encode_view_matches_and_out_is_filled():
    g = GuanDanGame(match=True, max_deals=2).reset(11)
    rng = np.random.default_rng(0)
    buf = np.full(513, 9.0, dtype=np.float32)
    steps = 0
    while not g.is_over and steps < 400:
        seat = g.current_player
        x = F.encode(g, seat)
        assert np.array_equal(x, F.encode_view(g.view(seat)))
        assert F.encode(g, seat, out=buf) is buf and np.array_equal(buf, x)
        assert x.min() >= -1 and x.max() <= 2
        assert x[216:300].sum() == 3 and x[462:501].sum() == 3  # one-hots
        g.step(int(rng.choice(g.legal_moves())))
        steps += 1
    batch = np.stack([F.encode(g, s) for s in range(4)])
    assert F.blocks(batch)["played"].shape == (4, 162)


def test_bad_input():
    g = GuanDanGame(match=False).reset(0)
    for seat in (4, -1, True):
        with pytest.raises(ValueError, match="seat"):
            F.encode(g, seat)
    with pytest.raises(ValueError, match="float32"):
        F.encode(g, 0, out=np.zeros(513))
    with pytest.raises(RuntimeError, match="reset"):
        F.encode(GuanDanGame(), 0)
    with pytest.raises(TypeError, match="Move"):
        F.move_vectors([3])
    with pytest.raises(ValueError, match="action ids"):
        F.action_features(g, [g.num_actions])
    with pytest.raises(ValueError, match="513"):
        F.blocks(np.zeros(512))
    with pytest.raises(ValueError, match="513"):
        F.split(np.zeros(512))
