"""Agents: the interface, the random agent and the DouDiZhu rule agent (strength, legality, determinism, rules)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from cardrl.agents import Agent, DouDizhuRuleAgent, RandomAgent, plan_hand, play_game
from cardrl.cards import rank_counts_to_bits, rank_counts_to_string, string_to_rank_counts
from cardrl.games.doudizhu import DouDizhuGame
from cardrl.games.doudizhu.moves import doudizhu_move_table

DEALS = 1000


def t_interval(x: np.ndarray) -> tuple[float, float]:
    """95% t interval of the mean of ``x``."""
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=float(np.mean(x)), scale=stats.sem(x))
    return float(lo), float(hi)


def side_scores(a: Agent, b: Agent, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Per deal: ``a``'s per-side ADP as landlord against ``b`` peasants, and as peasants against a ``b`` landlord
    (DouZero's per-side unit: the landlord's payoff / 2)."""
    game = DouDizhuGame()
    as_landlord = np.array([play_game(game, [a, b, b], s)[0] / 2 for s in seeds])
    as_peasants = np.array([-play_game(game, [b, a, a], s)[0] / 2 for s in seeds])
    return as_landlord, as_peasants


# ---- strength --------------------------------------------------------------------------------------
def test_rule_agent_beats_random_in_both_roles():
    landlord, peasants = side_scores(DouDizhuRuleAgent(), RandomAgent(7), range(DEALS))
    for name, x in (("landlord", landlord), ("peasants", peasants)):
        lo, hi = t_interval(x)
        assert lo > 0.5, f"rule agent as {name}: ADP {x.mean():.3f}, 95% interval ({lo:.3f}, {hi:.3f})"
        assert (x > 0).mean() > 0.85, f"rule agent as {name} wins only {(x > 0).mean():.1%} against random"


def test_random_vs_random_duplicate_is_even_but_one_role_is_not():
    a, b = RandomAgent(1), RandomAgent(2)
    as_landlord, as_peasants = side_scores(a, b, range(DEALS))
    lo, hi = t_interval(as_landlord + as_peasants)  # duplicate: same deals, sides swapped
    assert lo < 0 < hi, f"duplicate random vs random: interval ({lo:.3f}, {hi:.3f}) excludes 0"
    # Without the swap the seat decides: random landlords lose to random peasants.
    lo, hi = t_interval(as_landlord)
    assert hi < 0, f"random landlord vs random peasants: interval ({lo:.3f}, {hi:.3f}); expected a landlord loss"


# ---- legality and determinism -------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"kickers": "distinct"}, {"bidding": True}])
def test_agents_always_return_legal_moves(options):
    game = DouDizhuGame(**options)
    rule = DouDizhuRuleAgent(kickers=options.get("kickers", "douzero"))
    rnd = RandomAgent(3)
    for seed in range(60):
        game.reset(seed)
        rnd.reset(seed)
        while not game.is_over:
            legal = game.legal_moves()
            view = game.view(game.current_player)
            choice = rule.act(view, legal)
            assert choice in set(legal.tolist()), f"rule agent chose {choice} outside {legal}"
            other = rnd.act(view, legal)
            assert other in set(legal.tolist())
            game.step(choice if (seed + len(game.actions)) % 2 else other)


def test_rule_agent_is_deterministic():
    def actions(seed: int) -> list[int]:
        plan_hand.cache_clear()
        game = DouDizhuGame()
        agent = DouDizhuRuleAgent()
        play_game(game, [agent, agent, agent], seed)
        return list(game.actions)

    for seed in range(20):
        assert actions(seed) == actions(seed)
    game = DouDizhuGame().reset(5)
    view, legal = game.view(0), game.legal_moves()
    assert len({DouDizhuRuleAgent().act(view, legal) for _ in range(5)}) == 1


def test_random_agent_is_reproducible_per_deal_and_uniform():
    game = DouDizhuGame()
    first = [play_game(game, [RandomAgent(4)] * 3, s).tolist() + list(game.actions) for s in (3, 9)]
    agent = RandomAgent(4)
    again = [play_game(game, [agent] * 3, s).tolist() + list(game.actions) for s in (9, 3)]  # other order
    assert first == again[::-1]
    agent.reset(0)
    picks = np.array([agent.act(None, np.arange(10, 14)) for _ in range(4000)])
    assert set(picks.tolist()) == {10, 11, 12, 13}
    assert np.abs(np.bincount(picks - 10) / 4000 - 0.25).max() < 0.04
    with pytest.raises(ValueError, match="non-negative int"):
        RandomAgent(-1)


def test_play_game_names_the_agent_of_an_illegal_move_and_checks_seats():
    class Cheat(Agent):
        name = "cheat"

        def act(self, view, legal_moves):
            return int(DouDizhuGame().table.pass_id)  # the leader may not pass

    with pytest.raises(ValueError, match="cheat.*seat 0"):
        play_game(DouDizhuGame(), [Cheat(), RandomAgent(), RandomAgent()], 0)
    with pytest.raises(ValueError, match="no agent for seat"):
        play_game(DouDizhuGame(), {0: RandomAgent(), 1: RandomAgent()}, 0)
    payoffs = play_game(DouDizhuGame(), {0: RandomAgent(), 1: RandomAgent(1), 2: RandomAgent(2)}, 0)
    assert payoffs.sum() == 0 and payoffs[0] != 0


# ---- the hand planner ---------------------------------------------------------------------------
def plan_strings(hand: str) -> list[str]:
    return sorted(rank_counts_to_string(u.counts) for u in plan_hand(tuple(string_to_rank_counts(hand))).units)


def test_plan_hand_finds_the_structures():
    assert plan_strings("34567") == ["34567"]
    assert plan_strings("3334") == ["3334"]
    assert plan_strings("BR") == ["BR"]
    assert plan_strings("333444569") == ["33344456", "9"]  # plane with the two lowest solos
    assert plan_strings("334455") == ["334455"]
    assert plan_strings("77779") == ["7777", "9"]  # the bomb is kept whole
    # Two chains beat one chain plus four solos.
    assert plan_strings("34567789TJ") == ["34567", "789TJ"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 53), min_size=1, max_size=20, unique=True))
@example(cards=[0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 16])  # 333 4444 555 6 7: the plane must not take a 4 as kicker
def test_plan_units_partition_the_hand_into_legal_leads(cards):
    table = doudizhu_move_table()
    counts = np.bincount(np.array([min(c // 4, 12) if c < 52 else 13 + c - 52 for c in cards]), minlength=15)
    plan = plan_hand(tuple(int(c) for c in counts))
    total = np.sum([u.counts for u in plan.units], axis=0)
    assert total.tolist() == counts.tolist()
    leads = set(table.legal_moves(rank_counts_to_bits(counts), None).tolist())
    for unit in plan.units:
        move = table.id_of(rank_counts_to_string(unit.counts))
        assert move in leads and table.category[move] == unit.category


# ---- rules of play in set positions --------------------------------------------------------------
def position(hands: list[str], to_move: int, last: str | None = None, last_mover: int | None = None):
    """A play-phase position (landlord seat 0) with the given hands; ``last`` was played by ``last_mover``."""
    game = DouDizhuGame().reset(0)
    game.hands = np.stack([string_to_rank_counts(h) for h in hands]).astype(np.int8)
    game.current_player = to_move
    game.last_move = None if last is None else game.table.id_of(last)
    game.last_mover = last_mover
    return game


def rule_move(game: DouDizhuGame) -> str:
    move = DouDizhuRuleAgent().act(game.view(game.current_player), game.legal_moves())
    return game.table.strings[move]


FULL = "3456789TJQKA2"  # a filler hand of 13 solos


def test_plays_out_when_one_move_empties_the_hand():
    assert rule_move(position(["3334", FULL, FULL], 0)) == "3334"
    assert rule_move(position([FULL + "B", "4444", FULL], 1, "K", 0)) == "4444"  # bomb out: doubles the score


def test_leads_the_lowest_combination_keeping_structure():
    assert rule_move(position(["345678QQKK2", FULL, FULL], 0)) == "345678"
    assert rule_move(position(["377799J", FULL + "AA", FULL + "KK"], 0)) == "3777"  # trio + lowest kicker
    # An opponent on one card: no solo lead while something else is left.
    assert rule_move(position(["49QQ", "5", FULL + "AAKK"], 0)) == "QQ"


def test_follows_with_the_smallest_move_that_breaks_nothing():
    assert rule_move(position([FULL, "5599JK", FULL], 1, "4", 0)) == "J"


def test_peasant_lets_the_partner_run_and_beats_the_landlord():
    hand = "569TQK2" + "8899"
    assert rule_move(position([FULL, FULL, hand], 2, "8", 1)) == "pass"  # partner's 8
    assert rule_move(position([FULL, FULL, hand], 2, "8", 0)) != "pass"  # the landlord's 8


def test_keeps_bombs_unless_an_opponent_is_close_to_going_out():
    landlord = "7777" + "3456" + "9JQ"
    assert rule_move(position([landlord, FULL + "5", FULL], 0, "2", 1)) == "pass"
    assert rule_move(position([landlord, "2" + "3", FULL], 0, "2", 1)) == "7777"


def test_peasant_feeds_a_partner_on_one_card():
    assert rule_move(position([FULL, "34567KK", "9"], 1)) == "3"
    assert rule_move(position([FULL, "34567KK", FULL], 1)) == "34567"  # no feeding otherwise
