"""GuanDan agents and whole-match evaluation: the rule agents' planner and tactics on constructed positions
(GuanDanGame.set_hands), tribute / return decisions, full matches without error, strength against random over
seeded matches with teams swapped (DanZero, Lu et al. 2023, Sec. V-B), exact symmetry of an agent against itself,
and Ray parity of :func:`run_matches`."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from cardrl.agents import GuanDanControlAgent, GuanDanShedAgent, RandomAgent, play_game
from cardrl.agents.guandan_rule import PlanWeights, plan_hand
from cardrl.eval.matches import match_seeds, run_matches
from cardrl.games.guandan import GuanDanGame, deal_cards, return_candidates, tribute_candidates
from cardrl.games.guandan.moves import (
    PASS, Category, Move, Rank, hand_from_string, legal_moves, parse_cards)

C = Category
RULE_AGENTS = (GuanDanShedAgent, GuanDanControlAgent)
run_guandan_matches = partial(run_matches, game="guandan")


def stats_beta_high(won: int, n: int) -> float:
    """The Clopper-Pearson 97.5% upper bound, written out: with no win it is 1 - 0.025 ** (1 / n)."""
    assert won == 0
    return 1 - 0.025 ** (1 / n)


def hands_of(*texts: str) -> np.ndarray:
    return np.stack([hand_from_string(t) for t in texts])


def position(texts: tuple[str, str, str, str], leader: int, level: str = "2") -> GuanDanGame:
    """A one-deal game at ``level`` with the given hands, ``leader`` to lead."""
    game = GuanDanGame(match=False, level=level).reset(0)
    return game.set_hands(hands_of(*texts), current_player=leader)


def lead(game: GuanDanGame, cards: str, category: Category = C.SINGLE) -> None:
    kinds = parse_cards(cards)
    game.step(next(m for m in game.legal_move_values() if m.category == category and m.cards == kinds))


def decide(agent, game: GuanDanGame) -> Move:
    action = agent.act(game.view(game.current_player), game.legal_moves())
    assert isinstance(action, int) and action in game.legal_moves()
    return game.move_of(action)


MANY = "3d 4d 5c 6c 7d 8d 9c Tc Jd Qd Kc 3s 4s 5s"  # an opponent far from finishing (14 cards, no bomb)


# ---- planner ---------------------------------------------------------------------------------------------------
def test_plan_covers_the_hand_and_every_unit_is_a_legal_lead():
    for seed in range(16):
        level = Rank((5 * seed) % 13)
        for hand in deal_cards(seed, 0)[0]:
            for weights in (GuanDanShedAgent.weights, GuanDanControlAgent.weights):
                plan = plan_hand(hand, level, weights)
                assert sum(u.size for u in plan.units) == int(hand.sum())
                leads = legal_moves(hand, None, level)
                agent = GuanDanShedAgent()
                for unit in plan.units:
                    assert agent._unit_move(unit, leads, level, plan) is not None, unit


def _unit_cost(unit, w: PlanWeights, level: int) -> float:
    """The module docstring's unit costs, written out independently of the planner."""
    if unit.category == C.JOKER_BOMB:
        return 2 * w.bomb
    if unit.is_bomb:
        return w.bomb
    if unit.category == C.SINGLE and unit.wilds:
        return w.wild_single
    if unit.category in (C.STRAIGHT, C.TUBE, C.PLATE):
        length = {C.STRAIGHT: 5, C.TUBE: 3, C.PLATE: 2}[unit.category]
        top = unit.rank + length - 2  # ace-low line position -> rank index
        return w.base + w.slope * (12 - top)
    pw = 13 if unit.rank == level else unit.rank
    return w.base + w.slope * (12 - pw)


def test_plan_cost_is_the_sum_of_its_unit_costs():
    for seed in range(60):
        level = Rank(seed % 13)
        for hand in deal_cards(seed, 1)[0]:
            for weights in (GuanDanShedAgent.weights, GuanDanControlAgent.weights):
                plan = plan_hand(hand, level, weights)
                assert plan.cost == pytest.approx(sum(_unit_cost(u, weights, level) for u in plan.units))


def test_plan_keeps_bombs_and_uses_a_wild_to_complete_a_straight():
    # level 2: 2h is wild; 3 4 _ 6 7 + wild is a straight, 8888 a bomb, KK a pair
    plan = plan_hand(hand_from_string("3s 4d 6c 7s 2h 8s 8d 8c 8h Kd Kc"), "2")
    kinds = sorted((u.category, u.wilds) for u in plan.units)
    assert kinds == [(C.PAIR, 0), (C.STRAIGHT, 1), (C.BOMB, 0)]
    # a trio and a wild make a bomb; a pair rides with the trio as three-with-two
    plan = plan_hand(hand_from_string("9s 9d 9c 2h 5s 5d Qs Qd Qc 4s 4d"), "2", PlanWeights())
    assert (C.BOMB, 9 - 2) in [(u.category, u.rank) for u in plan.units]
    assert any(u.category == C.THREE_WITH_TWO for u in plan.units)


def test_plan_keeps_a_natural_straight_flush():
    plan = plan_hand(hand_from_string("5h 6h 7h 8h 9h Kd Kc 3s"), "2")
    assert [u.category for u in plan.units].count(C.STRAIGHT_FLUSH) == 1


# ---- leading ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_play_out_when_one_move_empties_the_hand(cls):
    game = position(("5s 5d", MANY, MANY, MANY), leader=0)
    assert decide(cls(), game).cards == parse_cards("5s 5d")
    game = position(("4s 4d Kc", "6s 6d", MANY, MANY), leader=0)
    lead(game, "4s 4d", C.PAIR)
    assert decide(cls(), game).cards == parse_cards("6s 6d")  # beats with the last two cards


def test_shed_leads_the_weakest_unit_shedding_most_and_a_wild_straight():
    game = position(("3s 3d 3c 9s 9d Ks Ah", MANY, MANY, MANY), leader=0, level="7")
    move = decide(GuanDanShedAgent(), game)
    assert move.category == C.THREE_WITH_TWO and move.rank == 1  # 333 + 99 before the K and A singles
    game = position(("3s 4d 6c 7s 2h Kd Kc Qs", MANY, MANY, MANY), leader=0, level="2")
    move = decide(GuanDanShedAgent(), game)
    assert move.category == C.STRAIGHT and parse_cards("2h")[0] in move.cards  # the wild is the 5


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_singles_go_last_when_the_next_opponent_holds_one_card(cls):
    game = position(("3s 9d 9c Kd", "As", MANY, MANY), leader=0, level="7")
    move = decide(cls(), game)
    assert move.category == C.PAIR


def test_control_feeds_a_partner_on_one_card_and_leads_long_units_first():
    game = position(("3s 8d 8c 8s Kd 5c 6d 7c 9s Ts", MANY, "4s", MANY), leader=0, level="7")
    assert decide(GuanDanControlAgent(), game).cards == parse_cards("3s")
    game = position(("3s 5c 6d 7c 8s 9d Kd Ks", MANY, MANY, MANY), leader=0, level="2")
    assert decide(GuanDanControlAgent(), game).category == C.STRAIGHT


# ---- following -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_follow_with_the_cheapest_same_type_move_not_a_bomb(cls):
    game = position((MANY, "8s 8d 8c 8h Ad 4d 4c", MANY, MANY), leader=0, level="7")
    lead(game, "9c")
    move = decide(cls(), game)
    assert move.category == C.SINGLE and move.cards == parse_cards("Ad")


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_no_bomb_on_a_far_opponent_but_bomb_one_about_to_finish(cls):
    game = position(("As " + MANY, "8s 8d 8c 8h 4d 5c 9s Jd", MANY, MANY), leader=0, level="7")
    lead(game, "As")
    assert decide(cls(), game) == PASS
    game = position(("As Qs Qd", "8s 8d 8c 8h 4d 5c 9s Jd", MANY, MANY), leader=0, level="7")
    lead(game, "As")
    assert decide(cls(), game).category == C.BOMB


def test_control_keeps_its_bomb_and_wild_when_following():
    # following a pair of 9s: the control agent will not break 8888 or spend the wild (2h at level 2)
    game = position((MANY, "8s 8d 8c 8h 2h Tc 5d 6d", MANY, MANY), leader=0, level="2")
    lead(game, "3s")
    move = decide(GuanDanControlAgent(), game)
    assert move.cards in (parse_cards("5d"), parse_cards("6d"), parse_cards("Tc"))
    game = position(("9c 9d " + MANY, "8s 8d 8c 8h 2h Tc 5d 6d", MANY, MANY), leader=0, level="2")
    lead(game, "9c 9d", C.PAIR)
    assert decide(GuanDanControlAgent(), game) == PASS  # a TT pair would need the wild


def test_partner_support_differs_by_style():
    # seat 0 leads a low single, seat 1 passes; seat 2 is seat 0's partner with a lone 9
    texts = ("5s " + MANY, MANY, "9d Kd Kc Qs Qd 3c 3d", MANY)
    game = position(texts, leader=0, level="7")
    lead(game, "5s")
    game.step(PASS)
    assert decide(GuanDanControlAgent(), game) == PASS  # never beats the partner
    assert decide(GuanDanShedAgent(), game).cards == parse_cards("9d")  # sheds its lone card on a low lead
    game = position(("Ks " + MANY, MANY, "9d Ad Kc Qs Qd 3c 3d", MANY), leader=0, level="7")
    lead(game, "Ks")
    game.step(PASS)
    assert decide(GuanDanShedAgent(), game) == PASS  # a high partner lead is left alone


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_random_positions_get_a_legal_move(cls):
    """Random hands (1..27 cards, any level, both wilds sometimes) on a lead or on a random opponent move."""
    rng = np.random.default_rng(17)
    agent = cls()
    for case in range(40):
        level = Rank(int(rng.integers(13)))
        game = GuanDanGame(match=False, level=level).reset(case)
        hands = np.zeros((4, 54), dtype=np.int8)
        deck = rng.permutation(np.repeat(np.arange(54), 2))
        sizes = rng.integers(1, 28, size=4)
        start = 0
        for seat in range(4):
            np.add.at(hands[seat], deck[start:start + sizes[seat]], 1)
            start += sizes[seat]
        game.set_hands(hands, current_player=0)
        if case % 2:  # seat 0 leads something random, seat 1 (or 2 after a pass) must answer
            moves = game.legal_moves()
            game.step(moves[int(rng.integers(len(moves)))])
            if not game.is_over and case % 4 == 1 and game.current_player == 1:
                game.step(PASS)
        if not game.is_over:
            decide(agent, game)


# ---- tribute and return ----------------------------------------------------------------------------------------
def _card_view(game: GuanDanGame, hand: str):
    view = game.view(0)
    view.hand = hand_from_string(hand)
    return view


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_tribute_keeps_a_straight_flush_and_return_gives_a_lone_low_card(cls):
    game = GuanDanGame().reset(1)
    view = _card_view(game, "Ts Js Qs Ks As Ad 3c 4d 8h")
    tribute = [Move(C.TRIBUTE, k // 4, (k,)) for k in tribute_candidates(view.hand, view.level)]
    assert len(tribute) == 2 and cls().choose(view, tribute).cards == parse_cards("Ad")
    view = _card_view(game, "3s 5d 5c 7s 7d 7c 9h 9s Ks As BJ")
    ret = [Move(C.RETURN, k // 4, (k,)) for k in return_candidates(view.hand, view.level)]
    assert cls().choose(view, ret).cards == parse_cards("3s")


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_agents_make_the_tribute_decisions_when_the_engine_asks(cls):
    other = next(c for c in RULE_AGENTS if c is not cls)
    game = GuanDanGame(tribute_decisions=True, max_deals=3)
    agents = [cls(), other(), cls(), other()]
    phases = set()  # the phases in which ``cls`` decided
    for seed in range(3):
        game.reset(seed)
        while not game.is_over:
            seat = game.current_player
            if seat % 2 == 0:
                phases.add(game.phase)
            game.step(agents[seat].act(game.view(seat), game.legal_moves()))
        assert len(game.deal_results) == 3
    assert phases == {"play", "tribute", "return"}


def test_decisions_are_deterministic_and_do_not_depend_on_the_memo():
    def actions(agents, seed):
        game = GuanDanGame(tribute_decisions=True, max_deals=2)
        play_game(game, agents, seed)
        return list(game.actions)

    used = [GuanDanShedAgent(), GuanDanControlAgent()]
    first = actions([used[0], used[1], used[0], used[1]], 21)
    actions([used[0], used[1], used[0], used[1]], 22)  # fills the memos with other hands
    again = actions([used[0], used[1], used[0], used[1]], 21)
    fresh = actions([GuanDanShedAgent(), GuanDanControlAgent(), GuanDanShedAgent(), GuanDanControlAgent()], 21)
    assert first == again == fresh


# ---- whole matches ---------------------------------------------------------------------------------------------
# rule agents and random in every seat; the slow run adds rule against rule and mixed teams (longer matches)
LINEUPS = (("shed", "random", "control", "random"), ("random", "control", "random", "shed"),
           ("random", "random", "random", "random"), ("control", "random", "shed", "random"))
LONG_LINEUPS = LINEUPS + (("shed", "control", "shed", "control"), ("control", "shed", "random", "random"))


def _play_matches(n: int, lineups=LINEUPS) -> dict:
    makers = {"shed": GuanDanShedAgent(), "control": GuanDanControlAgent()}
    stats = {"deals": 0, "winners": [0, 0], "tribute_games": 0}
    for i in range(n):
        names = lineups[i % len(lineups)]
        agents = [makers.get(name) or RandomAgent(10 + seat) for seat, name in enumerate(names)]
        game = GuanDanGame(tribute_decisions=bool(i % 2))
        payoffs = play_game(game, agents, 1000 + i)
        assert game.is_over and game.match_winner in (0, 1)
        assert payoffs[0] == payoffs[2] == -payoffs[1] == -payoffs[3]
        stats["deals"] += len(game.deal_results)
        stats["winners"][game.match_winner] += 1
        stats["tribute_games"] += int(game.tribute_decisions)
    return stats


def test_fifty_full_matches_with_random_and_both_rule_agents():
    stats = _play_matches(50)
    assert stats["deals"] >= 50 * 4 and sum(stats["winners"]) == 50


@pytest.mark.slow
def test_one_thousand_full_matches_with_random_and_both_rule_agents():
    stats = _play_matches(1000, LONG_LINEUPS)
    assert sum(stats["winners"]) == 1000


@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_rule_agent_beats_random_over_swapped_matches(cls):
    result = run_guandan_matches(cls(), RandomAgent(7), 8, seed=3)
    assert result.games == 16 and result.win_rate >= 0.9
    assert result.win_rate_interval[0] > 0.5 and result.win_rate_exact_interval[0] > 0.5 and result.beats()
    assert result.points_per_deal_interval[0] > 0
    assert result.deals_per_match >= 4  # from level 2 a team needs at least 4 deals, the last at A


@pytest.mark.slow
@pytest.mark.parametrize("cls", RULE_AGENTS)
def test_rule_agent_beats_random_over_200_swapped_matches(cls):
    result = run_guandan_matches(cls(), RandomAgent(7), 200, seed=11)
    print(result.table())
    assert result.win_rate_interval[0] > 0.9 and result.win_rate_exact_interval[0] > 0.9


@pytest.mark.parametrize("cls, same_object", [(GuanDanShedAgent, True), (GuanDanControlAgent, False)])
def test_an_agent_against_itself_is_exactly_symmetric(cls, same_object):
    a = cls()
    result = run_guandan_matches(a, a if same_object else cls(), 1, seed=5)
    assert result.win_rate == 0.5 and np.all(result.win_samples == 0.5) and np.all(result.decided)
    assert np.all(result.points[:, 0] == -result.points[:, 1]) and result.points_per_deal == 0.0
    assert np.all(result.deals[:, 0] == result.deals[:, 1])
    cut = run_guandan_matches(a, a if same_object else cls(), 2, seed=6, max_deals=3)
    assert cut.undecided == 4 and cut.win_rate == 0.0 and cut.points_per_deal == 0.0


def test_match_results_table_seeds_and_bad_arguments():
    seeds = match_seeds(4, 6)
    assert np.array_equal(match_seeds(4, 3), seeds[:3])
    result = run_guandan_matches(RandomAgent(1), RandomAgent(2), 2, seed=4, max_deals=2)
    assert np.array_equal(result.seeds, seeds[:2]) and np.all(result.deals == 2) and result.undecided == 4
    assert "match win rate" in result.table() and result.to_dict()["games"] == 4
    assert result.win_rate == 0.0 and result.win_rate_exact_interval == pytest.approx((0.0, stats_beta_high(0, 4)))
    for kwargs, words in (({"num_matches": 0}, "num_matches"), ({"seed": -1}, "seed"),
                          ({"num_workers": -1}, "num_workers"), ({"max_deals": 0}, "max_deals"),
                          ({"options": {"match": False}}, "match=False"), ({"options": {"bogus": 1}}, "bogus")):
        args = {"num_matches": 1, "seed": 0} | kwargs
        with pytest.raises((ValueError, TypeError), match=words):
            run_guandan_matches(RandomAgent(1), RandomAgent(2), **args)
    with pytest.raises(TypeError, match="Agent"):
        run_guandan_matches("random", RandomAgent(2), 1, 0)


@pytest.mark.slow  # starting Ray takes 10-25 s on the 2-core machine
def test_results_do_not_depend_on_ray_workers(ray_local):
    a, b = GuanDanShedAgent(), RandomAgent(3)
    local = run_guandan_matches(a, b, 3, seed=9, max_deals=2)
    for workers, chunk in ((1, 2), (2, 1)):
        remote = run_guandan_matches(a, b, 3, seed=9, max_deals=2, num_workers=workers, chunk_size=chunk)
        for name in ("wins", "decided", "points", "deals", "seeds"):
            assert np.array_equal(getattr(local, name), getattr(remote, name)), name


def test_cardrl_eval_guandan_plays_matches_and_refuses_deal_options(capsys):
    from cardrl.cli import main

    assert main(["eval", "guandan", "--a", "rule-control", "--b", "random", "--deals", "2", "--max-deals", "2",
                 "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert "rule-control vs random: GuanDan, 2 seeded matches x 2 (teams swapped)" in out
    assert main(["eval", "guandan", "--league", "rule", "random", "--deals", "2"]) == 2
    assert "whole seeded matches" in capsys.readouterr().err
    assert main(["eval", "big2", "--a", "rule-control", "--b", "random", "--deals", "2"]) == 2
    assert "plays guandan only" in capsys.readouterr().err
