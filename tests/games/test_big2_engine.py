"""The Big2 engine's contract (docs/rules.md "Big2"; Luo & Tan 2024, Appendix B): the opening with the 3 of diamonds,
passes and the lead, payoffs with penalty multipliers, errors on bad input with the state unchanged,
copy/replay, views and render()."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.games import doudizhu
from cardrl.games.big2 import NUM_PLAYERS, Big2Game, GameOverError, IllegalMoveError
from cardrl.games.big2.moves import Category, bits_to_cards, cards_to_string, move_id, parse_cards
from cardrl.games.engine import GameOverError as CommonGameOver
from cardrl.games.engine import IllegalMoveError as CommonIllegal
from helpers.game_state import snapshot

THREE_D = 0


def hand_cards(game: Big2Game, seat: int) -> tuple[int, ...]:
    return bits_to_cards(game.hand_bits(seat))


def lowest_solo(game: Big2Game) -> int:
    """The lowest single of the player to move (the 3d on the opening)."""
    return move_id(game.table, cards_to_string(hand_cards(game, game.current_player)[:1]))


def lowest_legal_solo(game: Big2Game) -> int | None:
    solos = [m for m in game.legal_moves() if game.table.category[m] == Category.SOLO]
    return int(solos[0]) if solos else None


def first_player_plays_out(game: Big2Game) -> Big2Game:
    """The opener plays its cards one by one from the lowest; everybody else passes."""
    opener = game.current_player
    while not game.is_over:
        game.step(lowest_solo(game) if game.current_player == opener else game.table.pass_id)
    return game


@pytest.fixture
def following():
    """The player after the opener to move, following the opener's 3d."""
    game = Big2Game().reset(7)
    game.step(lowest_solo(game))
    assert game.last_move == move_id(game.table, "3d") and game.current_player == (game.first_player + 1) % 4
    return game


# ---------------------------------------------------------------------------------------------
# the deal and the opening
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_deal_gives_13_cards_each_and_the_3d_holder_opens(seed):
    game = Big2Game().reset(seed)
    assert game.hands.shape == (4, 54) and game.cards_left().tolist() == [13] * 4
    assert (game.hands.sum(axis=0)[:52] == 1).all() and not game.hands[:, 52:].any()
    assert game.hand_bits(game.current_player) & 1 and game.current_player == game.first_player
    assert game.last_move is None and game.phase == "play" and not game.is_over


def test_first_move_must_contain_the_three_of_diamonds():
    game = Big2Game().reset(3)
    legal = game.legal_moves()
    assert len(legal) and all(int(game.table.bits[m]) & 1 for m in legal)
    assert game.must_contain_three_of_diamonds and game.table.pass_id not in legal
    other = move_id(game.table, cards_to_string(hand_cards(game, game.current_player)[1:2]))
    assert not game.is_legal(other)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match=r"first move.*must contain the 3 of diamonds \(3d\)"):
        game.step(other)
    assert snapshot(game) == before
    game.step(move_id(game.table, "3d"))
    assert not game.must_contain_three_of_diamonds


def test_without_the_3d_rule_the_holder_opens_with_anything():
    game = Big2Game(open_with_three_diamonds=False).reset(3)
    hand = hand_cards(game, game.current_player)
    assert THREE_D in hand
    legal = set(game.legal_moves().tolist())
    assert move_id(game.table, cards_to_string(hand[1:2])) in legal
    assert any(not int(game.table.bits[m]) & 1 for m in legal)
    game.step(move_id(game.table, cards_to_string(hand[-1:])))
    assert game.last_mover == game.first_player


def test_leader_may_not_pass():
    game = Big2Game().reset(0)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="may not pass"):
        game.step(game.table.pass_id)
    assert snapshot(game) == before and not game.is_legal(game.table.pass_id)


# ---------------------------------------------------------------------------------------------
# the trick
# ---------------------------------------------------------------------------------------------

def test_three_passes_give_the_lead_back():
    game = Big2Game().reset(2)
    opener = game.current_player
    first = lowest_solo(game)
    game.step(first)
    for k in range(1, 3):
        game.step(game.table.pass_id)
        assert game.current_player == (opener + k + 1) % 4 and game.last_move == first  # still following
    game.step(game.table.pass_id)
    assert game.current_player == opener and game.last_move is None  # three passes: the opener leads again
    assert game.table.pass_id not in game.legal_moves()
    assert game.history == [first] + [game.table.pass_id] * 3
    assert game.history_seats == [(opener + k) % 4 for k in range(4)]


def test_lead_goes_to_the_last_player_who_played():
    for seed in range(100):
        game = Big2Game().reset(seed)
        game.step(lowest_solo(game))
        beat = lowest_legal_solo(game)
        if beat is not None:
            break
    follower = game.current_player
    game.step(beat)
    assert game.last_move == beat and game.last_mover == follower
    for _ in range(3):
        game.step(game.table.pass_id)
    assert game.current_player == follower and game.last_move is None


def test_a_follow_must_have_the_same_size_and_beat(following):
    last = following.table.strings[following.last_move]
    legal = following.legal_moves()
    assert following.table.pass_id in legal
    assert all(following.table.length[m] == 1 for m in legal if m != following.table.pass_id)
    pairs = [m for m in following.table.legal_moves(following.hand_bits(following.current_player), None)
             if following.table.category[m] == Category.PAIR]
    assert pairs  # the deal of seed 7 gives the follower a pair
    before = snapshot(following)
    with pytest.raises(IllegalMoveError, match=rf"does not beat the last move \d+ \({last}\)"):
        following.step(int(pairs[0]))
    assert snapshot(following) == before


# ---------------------------------------------------------------------------------------------
# payoffs
# ---------------------------------------------------------------------------------------------

def test_payoffs_one_point_per_card_left_zero_sum():
    game = first_player_plays_out(Big2Game().reset(4))
    winner = game.winner
    assert game.is_over and winner == game.first_player and game.cards_left()[winner] == 0
    expect = np.full(4, -13.0)
    expect[winner] = 39.0
    assert game.payoffs().tolist() == expect.tolist() and game.payoffs().sum() == 0


def test_penalty_multipliers_scale_each_loser():
    game = first_player_plays_out(Big2Game(penalty_multipliers={10: 2, 13: 3}).reset(4))
    expect = np.full(4, -39.0)
    expect[game.winner] = 117.0
    assert game.payoffs().tolist() == expect.tolist()
    assert [game.penalty(n) for n in (0, 1, 9, 10, 12, 13)] == [0, 1, 9, 20, 24, 39]


def test_mixed_card_counts_payoffs():
    """Losers with 13, 12 and 9 cards: -39, -24, -9 with x2 at 10+ and x3 at 13; the winner +72."""
    for seed in range(200):
        game = Big2Game(penalty_multipliers={10: 2, 13: 3}).reset(seed)
        opener = game.current_player
        nxt, after = (opener + 1) % 4, (opener + 2) % 4
        game.step(lowest_solo(game))  # opener 12 left
        if lowest_legal_solo(game) is None:
            continue
        game.step(lowest_legal_solo(game))  # nxt: 12 left
        for _ in range(3):
            game.step(game.table.pass_id)  # nxt leads
        # nxt plays out its cards one by one; the others pass
        while not game.is_over:
            game.step(lowest_solo(game) if game.current_player == nxt else game.table.pass_id)
        left = game.cards_left()
        assert left[nxt] == 0 and left[opener] == 12 and left[after] == 13
        expect = {opener: -24.0, after: -39.0, (opener + 3) % 4: -39.0}
        expect[nxt] = -sum(expect.values())
        assert game.payoffs().tolist() == [expect[s] for s in range(4)]
        return
    raise AssertionError("no deal found")


def test_payoffs_are_zero_while_the_game_runs(following):
    assert following.payoffs().tolist() == [0.0] * 4 and following.winner is None


@pytest.mark.parametrize("bad, error, message", [
    ({0: 2}, ValueError, r"threshold 0.*1\.\.13"),
    ({14: 2}, ValueError, r"threshold 14"),
    ({10: 0}, ValueError, r"factor 0.*positive"),
    ({10: "x"}, ValueError, r"factor 'x'"),
    ({"10": 2}, ValueError, r"threshold '10'"),
    ([(10, 2)], TypeError, r"dict .*\{10: 2, 13: 3\}"),
])
def test_bad_penalty_multipliers_are_rejected(bad, error, message):
    with pytest.raises(error, match=message):
        Big2Game(penalty_multipliers=bad)


def test_unknown_options_are_rejected():
    with pytest.raises(ValueError, match=r"straight_order='pagat'.*allowed"):
        Big2Game(straight_order="pagat")
    with pytest.raises(TypeError, match="open_with_three_diamonds"):
        Big2Game(open_with_three_diamonds="yes")
    with pytest.raises(TypeError):
        Big2Game(kickers="douzero")


# ---------------------------------------------------------------------------------------------
# bad input: a clear error, and nothing changes
# ---------------------------------------------------------------------------------------------

# bad types, ids out of range, bad seeds and a step after the end, in every game: test_engine_contract.py
@pytest.mark.parametrize("action, error, message", [
    (-1, IllegalMoveError, r"action -1 is out of range: move ids are 0\.\.19898"),
    ("3d", TypeError, r"int.*str '3d'"),
])
def test_bad_action_raises_and_changes_nothing(following, action, error, message):
    before = snapshot(following)
    with pytest.raises(error, match=message):
        following.step(action)
    assert snapshot(following) == before
    if error is TypeError:
        with pytest.raises(TypeError, match="action must be an int"):
            following.is_legal(action)
    else:
        assert not following.is_legal(action)


def test_move_not_held_names_move_and_hand(following):
    seat = following.current_player
    missing = next(c for c in range(51, -1, -1) if not following.hand_bits(seat) >> c & 1)
    bad = move_id(following.table, cards_to_string([missing]))
    hand = cards_to_string(hand_cards(following, seat))
    before = snapshot(following)
    with pytest.raises(IllegalMoveError, match="does not hold") as info:
        following.step(bad)
    assert following.table.strings[bad] in str(info.value) and hand in str(info.value)
    assert snapshot(following) == before


def test_numpy_integer_actions_are_accepted(following):
    following.step(np.int64(following.table.pass_id))
    assert following.history[-1] == following.table.pass_id


def test_step_after_the_first_player_plays_out_raises():
    game = first_player_plays_out(Big2Game().reset(3))
    assert game.is_over and game.legal_moves().size == 0
    before = snapshot(game)
    with pytest.raises(GameOverError, match="over"):
        game.step(game.table.pass_id)
    assert snapshot(game) == before


def test_step_before_reset_says_to_reset():
    game = Big2Game()
    for call in (lambda: game.step(0), game.legal_moves, lambda: game.is_legal(0), lambda: game.view(0)):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    assert game.render() == "no deal yet" and game.copy().phase is None


@pytest.mark.parametrize("seat", [-1, 4, 1.0, "0", True])
def test_bad_seat_in_view(following, seat):
    with pytest.raises(ValueError, match=r"seat must be an int 0\.\.3"):
        following.view(seat)


def test_shared_errors_live_in_common_and_doudizhu_re_exports_them():
    assert IllegalMoveError is CommonIllegal is doudizhu.IllegalMoveError
    assert GameOverError is CommonGameOver is doudizhu.GameOverError
    assert issubclass(IllegalMoveError, ValueError)


# ---------------------------------------------------------------------------------------------
# copy and replay
# ---------------------------------------------------------------------------------------------

def _random_play(game: Big2Game, steps: int, seed: int) -> Big2Game:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_moves())))
    return game


def test_copy_is_independent():
    game = _random_play(Big2Game().reset(21), 10, 0)
    before = snapshot(game)
    twin = game.copy()
    assert snapshot(twin) == before and twin.table is game.table
    _random_play(twin, 30, 1)
    assert snapshot(game) == before
    assert snapshot(game.copy()) == before


@pytest.mark.parametrize("options", [{}, {"straight_order": "low", "open_with_three_diamonds": False,
                                          "penalty_multipliers": {10: 2}}])
def test_replay_rebuilds_the_state(options):
    game = _random_play(Big2Game(**options).reset(22), 200, 2)
    assert game.is_over
    again = Big2Game.replay(22, game.actions, **options)
    assert snapshot(again) == snapshot(game)
    assert again.payoffs().tolist() == game.payoffs().tolist()


# ---------------------------------------------------------------------------------------------
# views and render
# ---------------------------------------------------------------------------------------------

def test_views_hide_other_hands_and_carry_what_an_agent_needs(following):
    seat = following.current_player
    view = following.view(seat)
    assert view.seat == seat and view.hands is None
    assert view.hand.shape == (54,) and view.hand.tolist() == following.hands[seat].tolist()
    assert view.hand_bits == following.hand_bits(seat)
    assert view.cards_left.tolist() == [12 if s == following.first_player else 13 for s in range(4)]
    assert view.plays == ((following.first_player, following.last_move),)
    assert view.last_move == following.last_move and view.last_mover == following.first_player
    assert view.legal.tolist() == following.legal_moves().tolist()
    others = following.hands.sum(axis=0) - following.hands[seat]
    assert view.unseen.tolist() == others.tolist()
    assert following.view((seat + 1) % 4).legal.size == 0  # not to move
    view.hand[:] = 0  # a view is a copy
    assert following.hands[seat].any()
    oracle = following.oracle_view()
    assert oracle.hands.tolist() == following.hands.tolist() and oracle.seat == seat


def test_render_shows_suits_hands_and_trick():
    game = Big2Game().reset(14)
    text = game.render()
    assert "3\u2666" in text and "(lead)" in text
    lines = text.splitlines()
    for seat in range(NUM_PLAYERS):
        assert lines[seat].lstrip("* ").startswith(f"seat {seat} [13] ")
    assert lines[game.current_player].startswith("*")
    game.step(lowest_solo(game))
    text = game.render()
    assert "to beat: 3\u2666 by seat" in text and "[12]" in text
    assert "\x1b[31m" in game.render(color=True) and "\x1b[" not in text
    over = first_player_plays_out(Big2Game().reset(14)).render()
    assert "wins" in over and "payoffs" in over


def test_parse_round_trip_of_a_hand():
    game = Big2Game().reset(9)
    hand = cards_to_string(hand_cards(game, 0))
    assert parse_cards(hand) == hand_cards(game, 0)
