"""The DouDiZhu env's bidding against OpenSpiel's ``dou_dizhu`` bidding phase on random games (docs/rules.md
"Bidding": where the two rule sets agree and where they differ).

OpenSpiel's bid actions are 0 (pass) and 1, 2, 3; ours are ``num_moves + b``, the same b. Both let a player pass or
bid above the standing bid, and both end at once on a bid of 3 or when the first bidder's bid is passed by the other
two. They differ after that: our bidding is one round (each player bids once, the highest bid takes the landlord's
seat; all pass: the deal is redealt), OpenSpiel's goes round again until a bid has been passed twice in a row (a
player who passed may bid later; all pass: the game ends with zero returns). The test plays the same random bids in
both, compares the legal bids and the player to move (relative to the first bidder) at every decision of our round,
and checks that where our bidding ends OpenSpiel's either ends with the same landlord or is one of those documented
differences. (PettingZoo's api_test of the env with bidding: tests/envs/test_env_contract.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.envs import doudizhu_v0

pyspiel = pytest.importorskip("pyspiel")
GAMES = 400


def open_spiel_bidding_state(game, rng: np.random.Generator):
    """A dealt OpenSpiel state at its first bid, and its first bidder."""
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
    return state, state.current_player()


def env_bids(env) -> list[int]:
    """The legal bids (0 pass, 1..3) of the env's agent to move, read from its action mask."""
    mask = env.observe(env.agent_selection)["action_mask"]
    base = env.unwrapped.game.num_moves
    return [int(a) - base for a in np.flatnonzero(mask) if a >= base]


def test_bidding_legality_agrees_with_open_spiel():
    spiel = pyspiel.load_game("dou_dizhu")
    env = doudizhu_v0.env(bidding=True)
    rng = np.random.default_rng(0)
    outcomes = {"same landlord": 0, "redeal vs game over": 0, "second round in OpenSpiel": 0}
    for i in range(GAMES):
        state, spiel_first = open_spiel_bidding_state(spiel, rng)
        env.reset(seed=i)
        game = env.unwrapped.game
        first, bids = game.current_player, []
        while game.phase == "bid" and game.redeals == 0:
            assert (state.current_player() - spiel_first) % 3 == (game.current_player - first) % 3
            legal = env_bids(env)
            assert legal == sorted(state.legal_actions()), (bids, legal, state.legal_actions())
            bid = int(rng.choice(legal))
            bids.append(bid)
            env.step(game.num_moves + bid)
            state.apply_action(bid)
        if game.redeals:  # all passed: we redeal and bid again, OpenSpiel ends the game with zero returns
            assert bids == [0, 0, 0] and state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]
            assert game.phase == "bid" and env_bids(env) == [0, 1, 2, 3]
            outcomes["redeal vs game over"] += 1
        elif state.current_player() == (spiel_first + game.landlord - first) % 3 and _bidding_over(state):
            assert bids[-1] == 3 or bids[1:] == [0, 0]  # a 3, or the first bid passed by both others
            outcomes["same landlord"] += 1
        else:  # our round ended without a 3; OpenSpiel lets the players before the last bidder bid again
            assert 3 not in bids and bids[1:] != [0, 0] and len(bids) == 3 and not _bidding_over(state)
            outcomes["second round in OpenSpiel"] += 1
    assert all(outcomes.values()), outcomes  # every case was met


def _bidding_over(state) -> bool:
    """Whether OpenSpiel's state is past bidding (its legal actions are card plays)."""
    return state.is_terminal() or max(state.legal_actions()) > 3

