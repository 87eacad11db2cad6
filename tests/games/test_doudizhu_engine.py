"""The DouDiZhu engine's contract (docs/rules.md "DouDiZhu"): errors on bad input with the state left unchanged,
the lead and the trick, ADP/WP payoffs (bombs, bids, spring), bidding, views and render()."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.cards import rank_counts_to_string, string_to_rank_counts
from cardrl.games.doudizhu import DouDizhuGame, GameOverError, IllegalMoveError
from cardrl.games.doudizhu.moves import Category
from helpers.game_state import snapshot

def move(game: DouDizhuGame, text: str) -> int:
    return game.table.id_of(text)


def lowest_solo(game: DouDizhuGame) -> int:
    hand = game.hands[game.current_player]
    return move(game, "3456789TJQKA2BR"[int(np.flatnonzero(hand)[0])])


def first_seed(predicate, **options) -> int:
    """The first deal (seed) that satisfies ``predicate(game)``: the tests stay deterministic."""
    for seed in range(10_000):
        if predicate(DouDizhuGame(**options).reset(seed)):
            return seed
    raise AssertionError("no deal found")


def landlord_plays_out(game: DouDizhuGame, first: str | None = None) -> DouDizhuGame:
    """The landlord plays ``first`` (if given) then solos from the bottom; the peasants always pass."""
    if first is not None:
        game.step(move(game, first))
    while not game.is_over:
        if game.current_player == game.landlord:
            game.step(lowest_solo(game))
        else:
            game.step(game.table.pass_id)
    return game


# ---------------------------------------------------------------------------------------------
# bad input: a clear error, and nothing changes
# ---------------------------------------------------------------------------------------------

@pytest.fixture
def following():
    """Seat 1 to move, following the landlord's lowest solo."""
    game = DouDizhuGame().reset(7)
    game.step(lowest_solo(game))
    assert game.current_player == 1 and game.last_move is not None
    return game


def _not_held(game: DouDizhuGame) -> int:
    hand = game.hands[game.current_player]
    for text in ("BR", "2222", "AAAA", "3333", "KKKK"):
        if (string_to_rank_counts(text) > hand).any():
            return move(game, text)
    raise AssertionError("every candidate is held")


def test_leader_may_not_pass():
    game = DouDizhuGame().reset(0)
    assert game.last_move is None and game.table.pass_id not in game.legal_moves()
    assert not game.is_legal(game.table.pass_id)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="may not pass"):
        game.step(game.table.pass_id)
    assert snapshot(game) == before


# bad types, ids out of range, bad seeds and a step after the end, in every game: test_engine_contract.py
@pytest.mark.parametrize("action, error, message", [
    (27_472, IllegalMoveError, r"27472 is out of range: move ids are 0\.\.27471"),
    (27_472 + 2, IllegalMoveError, r"out of range"),  # a bid action outside bidding
])
def test_bad_action_raises_and_changes_nothing(following, action, error, message):
    before = snapshot(following)
    with pytest.raises(error, match=message):
        following.step(action)
    assert snapshot(following) == before


def test_move_not_held_names_move_and_hand(following):
    bad = _not_held(following)
    before = snapshot(following)
    hand = rank_counts_to_string(following.hands[following.current_player])
    with pytest.raises(IllegalMoveError, match="does not hold") as info:
        following.step(bad)
    assert following.table.strings[bad] in str(info.value) and hand in str(info.value)
    assert snapshot(following) == before


def test_move_that_does_not_beat_names_both_moves(following):
    last = following.table.strings[following.last_move]
    hand = following.hands[following.current_player]
    weak = next(i for i in range(15) if hand[i] and i <= "3456789TJQKA2BR".index(last))
    bad = move(following, "3456789TJQKA2BR"[weak])
    before = snapshot(following)
    with pytest.raises(IllegalMoveError, match="does not beat") as info:
        following.step(bad)
    assert f"({last})" in str(info.value)
    assert snapshot(following) == before
    pair = next(i for i in range(13) if hand[i] >= 2)  # a pair can't follow a solo either
    with pytest.raises(IllegalMoveError, match="does not beat"):
        following.step(move(following, "3456789TJQKA2"[pair] * 2))
    assert snapshot(following) == before


def test_numpy_integer_actions_are_accepted(following):
    following.step(np.int64(following.table.pass_id))
    assert following.history[-1] == following.table.pass_id


def test_step_after_the_landlord_plays_out_raises():
    game = landlord_plays_out(DouDizhuGame().reset(3))
    assert game.is_over and game.legal_moves().size == 0
    before = snapshot(game)
    with pytest.raises(GameOverError, match="over"):
        game.step(game.table.pass_id)
    assert snapshot(game) == before


def test_unknown_options_are_rejected():
    with pytest.raises(ValueError, match="kickers"):
        DouDizhuGame(kickers="any")
    game = landlord_plays_out(DouDizhuGame().reset(1))
    with pytest.raises(ValueError, match="reward"):
        game.payoffs("score")


def test_step_before_reset_says_to_reset():
    """EXPOSES A BUG (see report): an unreset game raises AttributeError 'phase' instead of a clear error."""
    game = DouDizhuGame()
    with pytest.raises(Exception, match="reset"):
        game.step(0)
    with pytest.raises(Exception, match="reset"):
        game.legal_moves()


@pytest.mark.parametrize("action", [1.5, "3", None])
def test_is_legal_rejects_non_int_actions_clearly(following, action):
    """EXPOSES A BUG (see report): is_legal(1.5) raises numpy's IndexError, is_legal('3') and is_legal(None) a
    bare comparison TypeError; like step(), it should say that an action must be an int move id."""
    with pytest.raises(TypeError, match=r"action must be an int"):
        following.is_legal(action)


# ---------------------------------------------------------------------------------------------
# the trick
# ---------------------------------------------------------------------------------------------

def test_two_passes_give_the_lead_back():
    game = DouDizhuGame().reset(2)
    first = lowest_solo(game)
    game.step(first)
    assert game.last_move == first and game.last_mover == 0
    game.step(game.table.pass_id)
    assert game.current_player == 2 and game.last_move == first  # one pass: still following
    game.step(game.table.pass_id)
    assert game.current_player == 0 and game.last_move is None  # two passes: the landlord leads again
    assert game.table.pass_id not in game.legal_moves()
    assert game.history == [first, game.table.pass_id, game.table.pass_id] and game.history_seats == [0, 1, 2]


def test_lead_goes_to_the_last_player_who_played():
    seed = first_seed(lambda g: g.hands[1][np.flatnonzero(g.hands[0])[0] + 1:].any())
    game = DouDizhuGame().reset(seed)
    game.step(lowest_solo(game))
    beat = next(m for m in game.legal_moves() if game.table.category[m] == Category.SOLO)
    game.step(int(beat))  # landlord_down beats it
    game.step(game.table.pass_id)
    game.step(game.table.pass_id)
    assert game.current_player == 1 and game.last_move is None and game.last_mover == 1


# ---------------------------------------------------------------------------------------------
# payoffs
# ---------------------------------------------------------------------------------------------

def test_landlord_win_payoffs_adp_and_wp():
    game = landlord_plays_out(DouDizhuGame().reset(first_seed(lambda g: not (g.hands[0][:13] == 4).any())))
    assert game.winner == 0 and game.winning_side() == "landlord" and game.bomb_count == 0
    assert game.payoffs().tolist() == game.payoffs("adp").tolist() == [2, -1, -1]
    assert game.payoffs("wp").tolist() == [2, -1, -1]


@pytest.mark.parametrize("spring, expect", [(False, [2, -1, -1]), (True, [4, -2, -2])])
def test_spring_doubles_only_when_the_option_is_on(spring, expect):
    game = landlord_plays_out(DouDizhuGame(spring=spring).reset(4))
    assert not game.played[1:].any()  # a spring: the peasants never played
    assert game.payoffs("adp").tolist() == expect
    assert game.payoffs("wp").tolist() == [2, -1, -1]


def _anti_spring(spring: bool) -> DouDizhuGame:
    """The landlord plays its lowest solo, a peasant beats it and the peasants play out; the landlord passes."""
    seed = first_seed(lambda g: g.hands[1][np.flatnonzero(g.hands[0])[0] + 1:].any())
    game = DouDizhuGame(spring=spring).reset(seed)
    game.step(lowest_solo(game))
    solos = [m for m in game.legal_moves() if game.table.category[m] == Category.SOLO]
    game.step(int(solos[0]))  # landlord_down takes the trick
    while not game.is_over:
        if game.current_player == 1 and game.last_move is None:
            game.step(lowest_solo(game))
        else:
            game.step(game.table.pass_id)
    assert game.winner == 1 and (game.played[0] > 0).sum() == 1
    return game


@pytest.mark.parametrize("spring, expect", [(False, [-2, 1, 1]), (True, [-4, 2, 2])])
def test_anti_spring(spring, expect):
    game = _anti_spring(spring)
    assert game.winning_side() == "peasants"
    assert game.payoffs("adp").tolist() == expect
    assert game.payoffs("wp").tolist() == [-2, 1, 1]


def test_each_bomb_and_the_rocket_double():
    seed = first_seed(lambda g: (g.hands[0][:13] == 4).any() and g.hands[0][13] and g.hands[0][14])
    game = DouDizhuGame().reset(seed)
    bomb = "3456789TJQKA2"[int(np.flatnonzero(game.hands[0][:13] == 4)[0])] * 4
    game.step(move(game, bomb))
    assert game.bomb_count == 1
    game.step(game.table.pass_id)
    game.step(game.table.pass_id)
    landlord_plays_out(game, "BR")
    assert game.bomb_count == 2
    assert game.payoffs("adp").tolist() == [8, -4, -4]
    assert game.payoffs("wp").tolist() == [2, -1, -1]


def test_bomb_with_kickers_does_not_double():
    seed = first_seed(lambda g: (g.hands[0][:13] == 4).any())
    game = DouDizhuGame().reset(seed)
    r = int(np.flatnonzero(game.hands[0][:13] == 4)[0])
    kicks = [k for k in np.flatnonzero(game.hands[0]) if k != r][:2]
    counts = np.zeros(15, dtype=np.int8)
    counts[r] = 4
    counts[kicks] += 1
    four_two = move(game, rank_counts_to_string(counts))
    assert game.table.category[four_two] == Category.BOMB_SOLOS
    landlord_plays_out(game, game.table.strings[four_two])
    assert game.bomb_count == 0 and game.payoffs("adp").tolist() == [2, -1, -1]


@pytest.mark.parametrize("bid", [1, 2, 3])
def test_bid_multiplies(bid):
    game = DouDizhuGame(bidding=True).reset(9)
    first = game.current_player
    game.step(game.num_moves + bid)
    while game.phase == "bid":
        game.step(game.num_moves)
    assert game.landlord == first and game.bid == bid
    landlord_plays_out(game)
    expect = [-bid] * 3
    expect[first] = 2 * bid
    assert game.payoffs("adp").tolist() == expect
    wp = [-1] * 3
    wp[first] = 2
    assert game.payoffs("wp").tolist() == wp


def test_payoffs_are_zero_while_the_game_runs():
    game = DouDizhuGame().reset(0)
    assert game.payoffs("adp").tolist() == [0, 0, 0] and game.payoffs("wp").tolist() == [0, 0, 0]
    assert game.winner is None and game.winning_side() is None


# ---------------------------------------------------------------------------------------------
# bidding
# ---------------------------------------------------------------------------------------------

def test_all_pass_redeals():
    game = DouDizhuGame(bidding=True).reset(5)
    hands = game.hands.copy()
    for _ in range(3):
        assert game.phase == "bid"
        game.step(game.num_moves)
    assert game.phase == "bid" and game.redeals == 1 and game.bids == []
    assert not np.array_equal(game.hands, hands)  # a new deal
    assert game.hands.sum(axis=1).tolist() == [17, 17, 17]
    assert game.actions == [game.num_moves] * 3
    assert snapshot(DouDizhuGame.replay(5, game.actions, bidding=True)) == snapshot(game)


def test_bid_three_ends_bidding_and_landlord_takes_bottom():
    game = DouDizhuGame(bidding=True).reset(8)
    first = game.current_player
    before, bottom = game.hands.copy(), game.bottom.copy()
    assert bottom.sum() == 3
    with pytest.raises(RuntimeError, match="bidding"):
        game.role(0)
    game.step(game.num_moves + 3)
    assert game.phase == "play" and game.bids == [3] and game.landlord == first and game.bid == 3
    assert game.current_player == first and game.last_move is None
    assert game.hands[first].tolist() == (before[first] + bottom).tolist()
    assert game.hands.sum(axis=1).tolist() == [20 if s == first else 17 for s in range(3)]
    assert game.role(first) == "landlord" and game.seat_of("landlord_down") == (first + 1) % 3
    assert game.seat_of("landlord_up") == (first + 2) % 3


def test_a_bid_must_exceed_the_last():
    game = DouDizhuGame(bidding=True).reset(6)
    first = game.current_player
    game.step(game.num_moves + 2)
    assert (game.legal_moves() - game.num_moves).tolist() == [0, 3]
    before = snapshot(game)
    for bad in (game.num_moves + 1, game.num_moves + 2, game.num_moves + 4, 0):
        with pytest.raises(IllegalMoveError, match="bidding"):
            game.step(bad)
        assert snapshot(game) == before
    game.step(game.num_moves)
    game.step(game.num_moves)
    assert game.phase == "play" and game.bid == 2 and game.landlord == first and game.bids == [2, 0, 0]


def test_without_bidding_seat_zero_is_landlord():
    game = DouDizhuGame().reset(12)
    assert game.landlord == 0 and game.current_player == 0 and game.phase == "play"
    assert game.hands.sum(axis=1).tolist() == [20, 17, 17]
    assert (game.bottom <= game.hands[0]).all() and game.bottom.sum() == 3
    assert [game.role(s) for s in range(3)] == ["landlord", "landlord_down", "landlord_up"]


# ---------------------------------------------------------------------------------------------
# views and render
# ---------------------------------------------------------------------------------------------

def test_views_hide_other_hands():
    game = DouDizhuGame().reset(13)
    game.step(lowest_solo(game))
    view = game.view(2)
    assert view.seat == 2 and view.role == "landlord_up" and view.hands is None
    assert view.hand.tolist() == game.hands[2].tolist()
    assert view.unseen.tolist() == (game.hands[0] + game.hands[1]).tolist()
    assert view.cards_left.tolist() == [19, 17, 17] and view.last_move == game.last_move
    view.hand[:] = 0  # a view is a copy
    assert game.hands[2].any()
    oracle = game.oracle_view()
    assert oracle.hands.tolist() == game.hands.tolist() and oracle.seat == game.current_player


def _tokens(hand) -> list[str]:
    names = {"T": "10", "B": "BJ", "R": "RJ"}
    return [names.get(ch, ch) for ch in rank_counts_to_string(hand)]


def _line_of(text: str, role: str) -> str:
    return next(line for line in text.splitlines() if role in line.split())


def test_render_shows_hands_and_trick():
    game = DouDizhuGame().reset(14)
    text = game.render()
    for seat, role in enumerate(("landlord", "landlord_down", "landlord_up")):
        line = _line_of(text, role)
        tokens = line.split()
        for tok in set(_tokens(game.hands[seat])):
            assert tokens.count(tok) >= _tokens(game.hands[seat]).count(tok), (role, tok, line)
        assert str(int(game.hands[seat].sum())) in line
    assert "lead" in text
    first = lowest_solo(game)
    game.step(first)
    text = game.render()
    trick = next(line for line in text.splitlines() if "beat" in line)
    assert _tokens(string_to_rank_counts(game.table.strings[first]))[0] in trick.split()
    assert str(int(game.hands[0].sum())) in _line_of(text, "landlord")
    over = landlord_plays_out(game).render()
    assert "landlord" in over and "win" in over


def test_render_during_bidding():
    game = DouDizhuGame(bidding=True).reset(15)
    text = game.render()
    assert "bid" in text
    for seat in range(3):
        assert " ".join(_tokens(game.hands[seat])) in text
