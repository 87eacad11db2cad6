"""Luo & Tan's unified features (cardrl.features.unified, Table 14): every slice checked by hand on constructed
positions of Big2 and DouDiZhu, plus views, invariances, action features and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardrl.features.unified import SLICES, UnifiedFeatures
from cardrl.games.big2 import Big2Game
from cardrl.games.big2.moves import move_id
from cardrl.games.doudizhu import DouDizhuGame

F = UnifiedFeatures()
DDZ_KINDS = {ch: 4 * i for i, ch in enumerate("3456789TJQKA2")}  # first thermometer kind of a rank


def vec(*kinds) -> list[float]:
    out = np.zeros(54)
    out[list(kinds)] = 1
    return out.tolist()


def player_block(identity: int, camp: int, left: int) -> list[float]:
    out = [float((identity >> 1) & 1), float(identity & 1)] * 9 + [float(camp)] * 16
    return out + vec(left - 1)[:20] if left else out + [0.0] * 20


def one_hot(size: int, n: int) -> list[float]:
    out = [0.0] * size
    if n:
        out[n - 1] = 1.0
    return out


def history(obs) -> np.ndarray:
    return F.split(obs)[1]


# ---- Big2 -------------------------------------------------------------------------------------------------
def big2_by_suit() -> Big2Game:
    """Seat s holds the 13 cards of suit s (0 diamonds: West, 1 clubs: South, 2 hearts: East, 3 spades: North)."""
    game = Big2Game().reset(0)
    game.hands[:] = 0
    for seat in range(4):
        game.hands[seat, seat:52:4] = 1
    game.bits = [sum(1 << c for c in range(seat, 52, 4)) for seat in range(4)]
    game.first_player = game.current_player = 0
    return game


BIG2_MOVES = ["3d", "4c", "5h", "pass", "6d", "pass", "pass", "pass", "7d8d9dJdKd", "pass", "pass"]


@pytest.fixture
def big2():
    game = big2_by_suit()
    for text in BIG2_MOVES:
        game.step(move_id(game.table, text))
    assert game.current_player == 3 and game.last_mover == 0
    return game


def test_big2_opening_position():
    game = big2_by_suit()
    obs = F.encode(game, 0)
    assert obs.shape == (1404,) and obs.dtype == np.float32
    assert obs[SLICES["hand"]].tolist() == vec(*range(0, 52, 4))
    assert obs[SLICES["unseen"]].tolist() == vec(*(c for c in range(52) if c % 4))
    assert obs[SLICES["self"]].tolist() == player_block(0, 1, 13)
    assert not obs[SLICES["last_move"]].any() and not obs[SLICES["last_mover"]].any()
    assert not obs[270:486].any()
    assert obs[SLICES["cards_left"]].tolist() == one_hot(13, 13) * 4 + [0.0, 0.0]
    assert not obs[540:].any()


def test_big2_every_slice_for_the_seat_to_move(big2):
    obs = F.encode(big2, 3)  # North (11) follows West's flush 7d8d9dJdKd
    assert obs[SLICES["hand"]].tolist() == vec(*range(3, 52, 4))
    others = [c for c in range(52) if c % 4 != 3 and c not in (0, 5, 10, 12, 16, 20, 24, 32, 40)]
    assert obs[SLICES["unseen"]].tolist() == vec(*others)
    assert obs[SLICES["self_identity"]].tolist() == [1.0, 1.0] * 9
    assert obs[SLICES["self"]].tolist() == player_block(3, 1, 13)
    flush = [16, 20, 24, 32, 40]  # 7d 8d 9d Jd Kd
    assert obs[SLICES["last_move"]].tolist() == vec(*flush)
    assert obs[SLICES["last_mover"]].tolist() == player_block(0, 1, 6)  # West, 6 cards left
    assert not obs[SLICES["played_0"]].any()  # North has played nothing
    assert obs[SLICES["played_1"]].tolist() == vec(0, 12, *flush)  # West: 3d 6d + flush
    assert obs[SLICES["played_2"]].tolist() == vec(5)  # South: 4c
    assert obs[SLICES["played_3"]].tolist() == vec(10)  # East: 5h
    assert obs[SLICES["cards_left"]].tolist() == (one_hot(13, 13) + one_hot(13, 6) + one_hot(13, 12)
                                                  + one_hot(13, 12) + [0.0, 0.0])
    hist = history(obs)
    assert hist.shape == (4, 216)
    assert not hist[0].any()  # only 11 moves: the oldest round is padding
    assert hist[1].tolist() == [0.0] * 54 + vec(0) + vec(5) + vec(10)  # (North before the deal) 3d 4c 5h
    assert hist[2].tolist() == [0.0] * 54 + vec(12) + [0.0] * 108  # North pass, 6d, pass, pass
    assert hist[3].tolist() == [0.0] * 54 + vec(*flush) + [0.0] * 108  # North pass, flush, pass, pass


def test_big2_seat_not_to_move_sees_the_round_in_progress(big2):
    obs = F.encode(big2, 1)  # South (01)
    assert obs[SLICES["self"]].tolist() == player_block(1, 1, 12)
    assert obs[SLICES["played_0"]].tolist() == vec(5)
    assert obs[SLICES["played_1"]].tolist() == vec(10)  # East
    assert not obs[SLICES["played_2"]].any()  # North
    assert obs[SLICES["played_3"]].tolist() == vec(0, 12, 16, 20, 24, 32, 40)  # West
    assert obs[SLICES["cards_left"]].tolist() == (one_hot(13, 12) + one_hot(13, 12) + one_hot(13, 13)
                                                  + one_hot(13, 6) + [0.0, 0.0])
    hist = history(obs)
    # rounds start with South's move: [4c 5h pass 6d] [pass pass pass flush] [pass pass - -]
    assert hist[0].tolist() == [0.0] * 162 + vec(0)  # 3d by West, the round's last seat
    assert hist[1].tolist() == vec(5) + vec(10) + [0.0] * 54 + vec(12)
    assert hist[2].tolist() == [0.0] * 162 + vec(16, 20, 24, 32, 40)
    assert not hist[3].any()


def test_big2_leader_after_three_passes_has_no_move_to_beat():
    game = big2_by_suit()
    for text in BIG2_MOVES[:8]:
        game.step(move_id(game.table, text))
    assert game.current_player == 0 and game.last_move is None
    obs = F.encode(game, 0)
    assert not obs[SLICES["last_move"]].any() and not obs[SLICES["last_mover"]].any()
    hist = history(obs)
    assert hist[3].tolist() == vec(12) + [0.0] * 162 and hist[2].tolist() == vec(0) + vec(5) + vec(10) + [0.0] * 54


def test_big2_identity_bits_of_every_seat():
    game = big2_by_suit()
    for seat, bits in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):  # West, South, East, North
        obs = F.encode(game, seat)
        assert obs[SLICES["self_identity"]].tolist() == list(map(float, bits)) * 9
        assert obs[SLICES["self_camp"]].tolist() == [1.0] * 16  # every Big2 seat plays alone


def test_big2_winner_has_zero_cards_left_encoded_as_zeros():
    game = Big2Game(open_with_three_diamonds=False)
    rng = np.random.default_rng(1)
    game.reset(5)
    while not game.is_over:
        game.step(int(rng.choice(game.legal_moves())))
    obs = F.encode(game, game.winner)
    assert not obs[SLICES["hand"]].any() and not obs[SLICES["self_cards_left"]].any()
    assert not obs[486:499].any()


# ---- DouDiZhu ---------------------------------------------------------------------------------------------
def ddz_constructed() -> DouDizhuGame:
    """Landlord (seat 0) 3333 4444 5555 6666 7777; down 8888 9999 TTTT JJJJ Q; up QQQ KKKK AAAA 2222 B R."""
    game = DouDizhuGame().reset(0)
    game.hands[:] = 0
    game.hands[0, 0:5] = 4
    game.hands[1, 5:9] = 4
    game.hands[1, 9] = 1
    game.hands[2, 9] = 3
    game.hands[2, 10:13] = 4
    game.hands[2, 13:15] = 1
    return game


DDZ_MOVES = ["3", "8", "Q", "pass", "pass", "KK", "pass", "pass", "A"]


@pytest.fixture
def ddz():
    game = ddz_constructed()
    for text in DDZ_MOVES:
        game.step(game.table.id_of(text))
    assert game.current_player == 0 and game.last_mover == 2
    return game


def test_doudizhu_every_slice_for_the_landlord(ddz):
    k = DDZ_KINDS
    obs = F.encode(ddz, 0)
    assert obs[SLICES["hand"]].tolist() == vec(0, 1, 2, *range(4, 20))  # 333 4444 5555 6666 7777
    # unseen: 888 9999 TTTT JJJJ (down) and QQ KK AAA 2222 B R (up); Q's count is 1 + 2 = 3
    unseen = vec(20, 21, 22, *range(24, 36), 36, 37, 38, 40, 41, 44, 45, 46, *range(48, 54))
    assert obs[SLICES["unseen"]].tolist() == unseen
    assert obs[SLICES["self"]].tolist() == player_block(0, 1, 19)  # landlord 00, camp 1, 19 cards
    assert obs[SLICES["last_move"]].tolist() == vec(k["A"])
    assert obs[SLICES["last_mover"]].tolist() == player_block(2, 0, 13)  # landlord_up 10, peasant camp 0
    assert obs[SLICES["played_0"]].tolist() == vec(k["3"])
    assert obs[SLICES["played_1"]].tolist() == vec(k["8"])
    assert obs[SLICES["played_2"]].tolist() == vec(k["Q"], k["K"], k["K"] + 1, k["A"])
    assert not obs[SLICES["played_3"]].any()
    assert obs[SLICES["cards_left"]].tolist() == one_hot(20, 19) + one_hot(17, 16) + one_hot(17, 13)
    hist = history(obs)  # rounds from the landlord: [3 8 Q] [pass pass KK] [pass pass A]
    assert not hist[0].any()
    assert hist[1].tolist() == vec(k["3"]) + vec(k["8"]) + vec(k["Q"]) + [0.0] * 54
    assert hist[2].tolist() == [0.0] * 108 + vec(k["K"], k["K"] + 1) + [0.0] * 54
    assert hist[3].tolist() == [0.0] * 108 + vec(k["A"]) + [0.0] * 54


def test_doudizhu_peasant_down_sees_relative_seats_and_role_ordered_counts(ddz):
    k = DDZ_KINDS
    obs = F.encode(ddz, 1)
    assert obs[SLICES["self"]].tolist() == player_block(1, 0, 16)  # landlord_down 01, camp 0
    assert obs[SLICES["last_mover"]].tolist() == player_block(2, 0, 13)
    assert obs[SLICES["played_0"]].tolist() == vec(k["8"])
    assert obs[SLICES["played_1"]].tolist() == vec(k["Q"], k["K"], k["K"] + 1, k["A"])  # up plays after down
    assert obs[SLICES["played_2"]].tolist() == vec(k["3"])  # the landlord
    assert obs[SLICES["cards_left"]].tolist() == one_hot(20, 19) + one_hot(17, 16) + one_hot(17, 13)
    hist = history(obs)  # rounds from down: [- - 3] [8 Q pass] [pass KK pass] [pass A -]
    assert hist[0].tolist() == [0.0] * 108 + vec(k["3"]) + [0.0] * 54
    assert hist[1].tolist() == vec(k["8"]) + vec(k["Q"]) + [0.0] * 108
    assert hist[2].tolist() == [0.0] * 54 + vec(k["K"], k["K"] + 1) + [0.0] * 108
    assert hist[3].tolist() == [0.0] * 54 + vec(k["A"]) + [0.0] * 108


def test_doudizhu_identity_and_camp_bits():
    game = DouDizhuGame().reset(3)
    for seat, (identity, camp) in enumerate([(0, 1), (1, 0), (2, 0)]):
        obs = F.encode(game, seat)
        assert obs[SLICES["self"]][:34].tolist() == player_block(identity, camp, 0)[:34]
        assert obs[SLICES["self_cards_left"]].tolist() == one_hot(20, 20 if seat == 0 else 17)


def test_doudizhu_landlord_chosen_by_bidding_keeps_role_identities():
    game = DouDizhuGame(bidding=True).reset(0)
    with pytest.raises(ValueError, match="bidding"):
        F.encode(game, 0)
    while game.landlord < 0:
        legal = game.legal_moves()
        game.step(int(legal[-1]))  # bid 3 at once
    ll = game.landlord
    for role_index in range(3):
        obs = F.encode(game, (ll + role_index) % 3)
        assert obs[SLICES["self_identity"]][:2].tolist() == [float(role_index >> 1), float(role_index & 1)]
        assert obs[SLICES["cards_left"]][:20].tolist() == one_hot(20, 20)


# ---- both games -------------------------------------------------------------------------------------------
def _random_positions(game, n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for deal in range(n):
        game.reset(seed * 1000 + deal)
        steps = int(rng.integers(0, 40))
        for _ in range(steps):
            if game.is_over:
                break
            game.step(int(rng.choice(game.legal_moves())))
        out.append(game.copy())
    return out


@pytest.mark.parametrize("make", [Big2Game, DouDizhuGame])
def test_encode_equals_encode_view_and_reuses_out(make):
    out = np.full(1404, 7.0, dtype=np.float32)
    for game in _random_positions(make(), 30, 1):
        for seat in range(4 if make is Big2Game else 3):
            obs = F.encode(game, seat)
            assert np.array_equal(obs, F.encode_view(game.view(seat)))
            assert F.encode(game, seat, out) is out and np.array_equal(out, obs)
            assert set(np.unique(obs)) <= {0.0, 1.0}
            assert obs[SLICES["hand"]].sum() + obs[SLICES["unseen"]].sum() + obs[270:486].sum() == (
                52 if make is Big2Game else 54)


def test_big2_hidden_cards_do_not_leak():
    game = Big2Game().reset(11)
    seat = game.current_player
    a, b = [s for s in range(4) if s != seat][:2]
    before = F.encode(game, seat)
    ca, cb = int(np.flatnonzero(game.hands[a])[0]), int(np.flatnonzero(game.hands[b])[0])
    game.hands[a, ca], game.hands[a, cb], game.hands[b, cb], game.hands[b, ca] = 0, 1, 0, 1
    assert np.array_equal(F.encode(game, seat), before)


@pytest.mark.parametrize("make", [Big2Game, DouDizhuGame])
def test_action_features_are_the_card_vectors(make):
    game = make().reset(2)
    ids = np.array([0, 5, game.table.pass_id, len(game.table) - 2])
    feats = F.action_features(game.table, ids)
    assert feats.shape == (4, 54) and feats.dtype == np.float32
    assert np.array_equal(feats, game.table.cards[ids].astype(np.float32))
    assert not feats[2].any()
    if make is Big2Game:
        assert feats[0].tolist() == vec(0) and not feats[:, 52:].any()  # "3d", jokers always zero
    with pytest.raises(ValueError, match="move ids must be in 0.."):
        F.action_features(game.table, [len(game.table)])


def test_interface_constants_and_split():
    assert F.name == "luo_tan_v1" and F.ACTION_DIM == 54 and F.HISTORY_SHAPE == (4, 216)
    assert all(F.state_dim(a) == 540 for a in ("west", "landlord", "landlord_up", None))
    assert F.obs_dim("north") == 1404
    blocks = ["hand", "unseen", "self", "last_move", "last_mover", "played_0", "played_1", "played_2",
              "played_3", "cards_left"]
    assert [SLICES[b].start for b in blocks] == list(range(0, 540, 54))
    assert all(SLICES[b].stop - SLICES[b].start == 54 for b in blocks)
    batch = np.arange(2 * 1404, dtype=np.float32).reshape(2, 1404)
    state, hist = F.split(batch)
    assert state.shape == (2, 540) and hist.shape == (2, 4, 216) and hist[1, 0, 0] == 1404 + 540
    with pytest.raises(ValueError, match="1404 values"):
        F.split(np.zeros(1129))


@pytest.mark.parametrize("seat", [-1, 4, 1.0, True, "0"])
def test_bad_seat(seat):
    with pytest.raises(ValueError, match="seat must be an int 0..3"):
        F.encode(Big2Game().reset(0), seat)


def test_bad_game_and_out():
    with pytest.raises(TypeError, match="Big2Game or a DouDizhuGame"):
        F.encode(object(), 0)
    with pytest.raises(TypeError, match="Big2View or a DouDizhuView"):
        F.encode_view(object())
    with pytest.raises(RuntimeError, match="reset"):
        F.encode(Big2Game(), 0)
    with pytest.raises(ValueError, match="float32 array of shape"):
        F.encode(Big2Game().reset(0), 0, np.zeros(1404))
    with pytest.raises(ValueError, match="seat must be an int 0..2"):
        F.encode(DouDizhuGame().reset(0), 3)


# ---- a plain-Python reference (oracle) over random positions ------------------------------------------------
def reference_encode(view, table, n: int) -> np.ndarray:
    """The module docstring's layout written out directly from a player's view, one block at a time.

    History rows are built by walking the moves from the start and opening a new round at each move of the
    encoded seat (a different formulation from the kernel's slot arithmetic).
    """
    from cardrl.cards import rank_counts_to_vector

    ddz = n == 3
    card_vec = rank_counts_to_vector if ddz else (lambda v: np.asarray(v, dtype=np.float64))
    s = view.seat
    ident = [(p - view.landlord) % 3 for p in range(3)] if ddz else list(range(4))
    camp = [int(p == view.landlord) for p in range(3)] if ddz else [1] * 4
    left = [int(x) for x in view.cards_left]
    state = [card_vec(view.hand), card_vec(view.unseen), player_block(ident[s], camp[s], left[s])]
    if view.last_move is None:
        state += [np.zeros(54), np.zeros(54)]
    else:
        m = view.last_mover
        state += [table.cards[view.last_move], player_block(ident[m], camp[m], left[m])]
    for k in range(4):
        state.append(card_vec(view.played[(s + k) % n]) if k < n else np.zeros(54))
    if ddz:
        counts = [one_hot(size, left[(view.landlord + i) % 3]) for i, size in enumerate((20, 17, 17))]
    else:
        counts = [one_hot(13, left[(s + k) % 4]) for k in range(4)] + [[0.0, 0.0]]
    state.append(np.concatenate(counts))
    rows: list[list] = []
    for move, mover in zip(view.history, view.history_seats):
        if not rows or mover == s:
            rows.append([None] * 4)
        rows[-1][(mover - s) % n] = move
    hist = np.zeros((4, 216))
    for r, row in enumerate(rows[-4:][::-1]):
        for col, move in enumerate(row):
            if move is not None:
                hist[3 - r, 54 * col:54 * col + 54] = table.cards[move]
    return np.concatenate([np.concatenate([np.asarray(b, dtype=np.float64) for b in state]), hist.ravel()])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(big2=st.booleans(), seed=st.integers(0, 2**31), policy=st.integers(0, 2**31), steps=st.integers(0, 120))
def test_kernel_matches_the_reference_for_every_seat(big2, seed, policy, steps):
    game = Big2Game(open_with_three_diamonds=bool(seed % 2)) if big2 else DouDizhuGame()
    game.reset(seed)
    rng = np.random.default_rng(policy)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_moves())))
    n = 4 if big2 else 3
    for seat in range(n):
        expected = reference_encode(game.view(seat), game.table, n)
        assert np.array_equal(F.encode(game, seat), expected.astype(np.float32)), seat
