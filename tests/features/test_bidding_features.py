"""The bidding features (cardrl.features.bidding): the bidding decision's state and candidate bid, and the card-play
input block of who bid what, on seeded whole-game deals; the engine's and the view's forms agree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.cards import rank_counts_to_vector
from cardrl.features.bidding import (BID_BLOCK_DIM, BID_STATE_DIM, bid_action_features, bid_block,
                                     bid_block_of_game, bid_block_of_view, bid_state_of_game, bid_state_of_view,
                                     first_bidder)
from cardrl.games.doudizhu import ROLES, DouDizhuGame


def _bid_randomly(seed: int) -> tuple[DouDizhuGame, list[tuple[int, np.ndarray, np.ndarray]]]:
    """A seeded deal bid at random until card play; the (seat, state, view state) of each bidding decision of the
    final deal."""
    game = DouDizhuGame(bidding=True).reset(seed)
    rng = np.random.default_rng(seed)
    decisions = []
    while game.phase == "bid":
        seat = game.current_player
        decisions.append((seat, bid_state_of_game(game, seat), bid_state_of_view(game.view(seat)),
                          game.hands[seat].copy(), tuple(game.bids)))
        before = game.redeals
        legal = game.legal_moves()
        game.step(int(legal[rng.integers(len(legal))]))
        if game.redeals != before:
            decisions = []
    return game, decisions


@pytest.mark.parametrize("seed", range(12))
def test_bid_state_reads_the_hand_the_bids_so_far_and_the_position(seed):
    game, decisions = _bid_randomly(seed)
    for position, (seat, state, view_state, hand, bids_before) in enumerate(decisions):
        assert state.shape == (BID_STATE_DIM,) and np.array_equal(state, view_state)
        assert seat == (game.first_bidder + position) % 3
        assert hand.sum() == 17 and np.array_equal(state[:54], rank_counts_to_vector(hand))
        slots = state[54:69].reshape(3, 5)
        for p in range(3):
            want = 1 + bids_before[p] if p < len(bids_before) else 0
            assert slots[p].tolist() == [int(k == want) for k in range(5)]
        assert state[69:].tolist() == [int(k == position) for k in range(3)]


@pytest.mark.parametrize("seed", range(12))
def test_bid_block_says_who_bid_what_and_the_final_bid(seed):
    game, _ = _bid_randomly(seed)
    block = bid_block_of_game(game)
    assert block.shape == (BID_BLOCK_DIM,)
    roles = block[:15].reshape(3, 5)
    said = {game.role((game.first_bidder + p) % 3): b for p, b in enumerate(game.bids)}
    for r, role in enumerate(ROLES):
        want = 1 + said[role] if role in said else 0
        assert roles[r].tolist() == [int(k == want) for k in range(5)], (role, game.bids)
    assert block[15:].tolist() == [int(k + 1 == game.bid) for k in range(3)]
    assert roles[0, 1 + game.bid] == 1  # the landlord made the final bid
    for seat in range(3):  # public: every seat's view reads the same block
        assert np.array_equal(bid_block_of_view(game.view(seat)), block)


def test_without_bidding_the_block_is_bid_one_and_no_bids():
    game = DouDizhuGame().reset(5)
    block = bid_block_of_view(game.view(1))
    assert block[:15].reshape(3, 5)[:, 0].tolist() == [1, 1, 1]
    assert block[15:].tolist() == [1, 0, 0]


@settings(max_examples=60, deadline=None)
@given(first=st.integers(0, 2), bids=st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_first_bidder_is_recovered_from_the_bids_and_the_landlord(first, bids):
    best = 0  # a legal bid sequence: each bid passes or beats the highest so far; 3 ends it
    legal = []
    for b in bids:
        if b and b <= best:
            b = 0
        legal.append(b)
        best = max(best, b)
        if b == 3:
            break
    if not any(legal):
        return
    last = max(i for i, b in enumerate(legal) if b)
    landlord = (first + last) % 3
    assert first_bidder(legal, landlord) == first


def test_candidate_bids_are_one_hot_and_bad_input_is_refused():
    assert bid_action_features([0, 2, 3]).tolist() == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    with pytest.raises(ValueError, match="bids are 0"):
        bid_action_features([4])
    with pytest.raises(ValueError, match="final bid"):
        bid_block([], 0, 0)
