"""The rule bidder (cardrl.agents.doudizhu_bidder), the agents' ``bids`` capability and the bidder pairing
(cardrl.agents.with_bidder, the ``SPEC+bidder=BIDDER`` agent spec)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.agents import DouDizhuRuleAgent, MCSGreedyAgent, RandomAgent
from cardrl.agents.doudizhu_bidder import THRESHOLDS, choose_bid, hand_strength, wanted_bid
from cardrl.agents.with_bidder import WithBidder
from cardrl.cards import string_to_rank_counts
from cardrl.eval.agents import build_agent, check_bids, parse_agent_spec
from cardrl.games.doudizhu import DouDizhuGame

THRESHOLDS_SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "bidder_thresholds.py"


def counts(text: str) -> np.ndarray:
    return np.asarray(string_to_rank_counts(text))


# ---- the heuristic --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hand, strength", [
    ("3456789TJQK", 0),            # no control card
    ("A", 1), ("2", 2), ("B", 3), ("R", 4),
    ("BR", 8),                     # rocket: 3 + 4 + 1
    ("3333", 4), ("2222", 12),     # a bomb of 2s: four 2s and the bomb
    ("BR22AA3333", 8 + 4 + 2 + 4),
])
def test_hand_strength_counts_control_cards(hand, strength):
    assert hand_strength(counts(hand)) == strength


@pytest.mark.parametrize("hand, strength", [("22AA", 6), ("R2A", 7), ("B222", 9), ("R222", 10), ("BR22", 12),
                                            ("BR22A", 13), ("BR2222", 20)])
def test_wanted_bid_follows_the_thresholds(hand, strength):
    assert hand_strength(counts(hand)) == strength
    assert wanted_bid(counts(hand)) == sum(strength >= t for t in THRESHOLDS)
    assert wanted_bid(counts(hand), thresholds=(strength, strength + 1, strength + 2)) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 14), min_size=17, max_size=17), st.integers(0, 2))
def test_choose_bid_is_legal_and_never_above_the_wanted_bid(cards, standing):
    hand = np.bincount(cards, minlength=15)
    hand[:13] = np.minimum(hand[:13], 4)
    hand[13:] = np.minimum(hand[13:], 1)
    legal = [0] + list(range(standing + 1, 4))
    bid = choose_bid(hand, legal)
    assert bid in legal and bid <= wanted_bid(hand)
    assert bid == (wanted_bid(hand) if wanted_bid(hand) > standing else 0)


def test_bidder_refuses_bad_input():
    with pytest.raises(ValueError, match="15 rank counts"):
        hand_strength([1, 2, 3])
    with pytest.raises(ValueError, match="increasing"):
        wanted_bid(counts("BR"), thresholds=(5, 3, 9))
    with pytest.raises(ValueError, match="include 0"):
        choose_bid(counts("BR"), [2, 3])


def test_thresholds_order_the_landlords_results():
    """On seeded deals other than those the thresholds were read from: hands the bidder passes lose as landlord,
    hands it bids win, and hands it bids 2 or more win more often than hands it bids 1."""
    spec = importlib.util.spec_from_file_location("bidder_thresholds", THRESHOLDS_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    strength, won, adp = module.landlord_results(deals=150, seed=12345)
    from cardrl.eval.stats import mean_interval

    passed, one, more = strength < THRESHOLDS[0], (strength >= THRESHOLDS[0]) & (strength < THRESHOLDS[1]), \
        strength >= THRESHOLDS[1]
    assert mean_interval(adp[passed])[1] < 0, f"passed hands as landlord: ADP {adp[passed].mean():+.3f}"
    assert mean_interval(adp[~passed])[0] > 0, f"bid hands as landlord: ADP {adp[~passed].mean():+.3f}"
    assert won[more].mean() > won[one].mean() > won[passed].mean()
    assert "| strength |" in module.table(strength, won, adp)


# ---- agents that bid ------------------------------------------------------------------------------------------
def test_bids_capability():
    assert RandomAgent(0).bids and DouDizhuRuleAgent().bids
    assert not MCSGreedyAgent.for_game("doudizhu").bids
    assert not build_agent("rlcard").bids and build_agent("rlcard+bidder=rule").bids


def bid_views(seeds):
    """(view, legal) of every bidding decision of seeded deals where each bidder passes or bids at random."""
    game, rng = DouDizhuGame(bidding=True), np.random.default_rng(0)
    for seed in seeds:
        game.reset(seed)
        while game.phase == "bid":
            legal = game.legal_moves()
            yield game.view(game.current_player), legal
            game.step(int(rng.choice(legal)))


def test_rule_agent_bids_with_the_rule_bidder():
    agent, seen = DouDizhuRuleAgent(), set()
    for view, legal in bid_views(range(40)):
        base = view.num_moves
        expected = choose_bid(view.hand, [int(a) - base for a in legal])
        assert agent.act(view, legal) == base + expected
        seen.add(expected)
    assert seen == {0, 1, 2, 3}


def test_random_agent_bids_uniformly_over_the_legal_bids():
    view, legal = next(bid_views([3]))
    agent = RandomAgent(5)
    picks = np.array([agent.act(view, legal) for _ in range(4000)])
    assert set(picks.tolist()) == set(legal.tolist())
    shares = np.bincount(picks - view.num_moves, minlength=4)[legal - view.num_moves] / len(picks)
    assert np.allclose(shares, 1 / len(legal), atol=0.03), shares


# ---- the pairing ----------------------------------------------------------------------------------------------
class Recorder(RandomAgent):
    def __init__(self, seed):
        super().__init__(seed)
        self.phases = []

    def act(self, view, legal_moves):
        self.phases.append(view.phase)
        return super().act(view, legal_moves)


def test_with_bidder_routes_bid_views_to_the_bidder():
    cards, bidder = Recorder(1), Recorder(2)
    pair = WithBidder(cards, bidder)
    game = DouDizhuGame(bidding=True)
    for seed in range(5):
        game.reset(seed)
        pair.reset(seed)
        while not game.is_over:
            game.step(pair.act(game.view(game.current_player), game.legal_moves()))
    assert set(bidder.phases) == {"bid"} and set(cards.phases) == {"play"}
    assert pair.bids and pair.name == "random+bidder=random"


def test_pairing_spec_parses_builds_and_refuses():
    spec = parse_agent_spec("rlcard+bidder=random:4")
    assert spec.kind == "rlcard" and spec.bidder.kind == "random" and spec.bidder.seed == 4
    agent = build_agent(spec)
    assert isinstance(agent, WithBidder) and agent.name == "rlcard+bidder=random:4"
    assert agent.card_play.name == "rlcard" and agent.bidder.seed == 4
    for bad in ("rlcard+bidder=", "+bidder=rule", "rule+bidder=rule+bidder=random", "rule+bidder=nope"):
        with pytest.raises(ValueError, match="does not parse"):
            parse_agent_spec(bad)
    with pytest.raises(ValueError, match="'rlcard' does not bid, so it cannot be the bidder"):
        build_agent("rule+bidder=rlcard")
    with pytest.raises(ValueError, match=r"cannot play the whole game.*'rlcard\+bidder=rule'"):
        check_bids(build_agent("rlcard"))
