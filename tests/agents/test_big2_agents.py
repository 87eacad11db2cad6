"""The Big2 rule agent (cardrl/agents/big2_rule.py): legality over many games (the 3-of-diamonds opening
included), determinism, the hand planner, and its rules of play in constructed positions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.agents import Big2RuleAgent, RandomAgent, play_game
from cardrl.games.big2 import Big2Game
from cardrl.games.big2.moves import (
    THREE_OF_DIAMONDS,
    Category,
    big2_move_table,
    cards_to_bits,
    cards_to_string,
    cards_to_vector,
    move_id,
    parse_cards,
)

AGENT = Big2RuleAgent()  # plans are memoised per agent: one agent for the whole module keeps the file fast


# ---- legality and determinism ----------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"straight_order": "low"}, {"open_with_three_diamonds": False}])
def test_rule_agent_always_plays_a_legal_move(options):
    game = Big2Game(**options)
    rule = Big2RuleAgent(straight_order=options.get("straight_order", "bigzero"))
    rnd = RandomAgent(3)
    openings = 0
    for seed in range(40):
        game.reset(seed)
        rnd.reset(seed)
        while not game.is_over:
            legal = game.legal_moves()
            view = game.view(game.current_player)
            choice = rule.act(view, legal)
            assert choice in set(legal.tolist()), f"rule agent chose {choice} outside {legal}"
            if not game.history and game.open_with_three_diamonds:
                assert int(game.table.bits[choice]) >> THREE_OF_DIAMONDS & 1  # the opening holds the 3d
                openings += 1
            # the rule agent plays seats 0 and 2 (and the first move), random the others
            seat = game.current_player
            game.step(choice if seat % 2 == 0 or not game.history else rnd.act(view, legal))
    assert openings == (40 if game.open_with_three_diamonds else 0)


def test_rule_agent_plays_every_seat_to_the_end():
    game = Big2Game()
    for seed in range(30):
        payoffs = play_game(game, [AGENT] * 4, seed)  # the engine refuses an illegal move
        assert payoffs.sum() == 0 and payoffs.max() > 0
        assert game.table.bits[game.actions[0]] & np.uint64(1 << THREE_OF_DIAMONDS)


def test_rule_agent_is_deterministic():
    def actions(agent: Big2RuleAgent, seed: int) -> list[int]:
        game = Big2Game()
        play_game(game, [agent, RandomAgent(1), agent, RandomAgent(2)], seed)
        return list(game.actions)

    for seed in range(5):
        assert actions(Big2RuleAgent(), seed) == actions(AGENT, seed)
    game = Big2Game().reset(5)
    view, legal = game.view(game.current_player), game.legal_moves()
    assert len({Big2RuleAgent().act(view, legal) for _ in range(4)}) == 1


def test_no_legal_moves_is_an_error():
    game = Big2Game().reset(0)
    with pytest.raises(ValueError, match="no legal moves"):
        AGENT.act(game.view(game.current_player), np.zeros(0, dtype=np.int64))


# ---- the hand planner ------------------------------------------------------------------------------
def plan_strings(hand: str) -> list[str]:
    table = AGENT.table
    return sorted(table.strings[u] for u in AGENT.plan(cards_to_bits(parse_cards(hand))).units)


def test_plan_finds_five_card_hands_first():
    assert plan_strings("3d4c5h6s7d") == ["3d4c5h6s7d"]
    assert plan_strings("3d4c5h6s7d 9c Kh") == ["3d4c5h6s7d", "9c", "Kh"]
    # two disjoint five-card hands (a straight and a full house) and a pair: three units instead of nine
    assert plan_strings("3d4c5h6s7d 9c9h9s Jd Js Kc Kh") == ["3d4c5h6s7d", "9c9h9sJdJs", "KcKh"]
    # a flush of five hearts rather than five singles
    assert plan_strings("3h6h9hJhKh") == ["3h6h9hJhKh"]
    # without a five-card hand: triples, pairs and singles by rank
    assert plan_strings("3d3c3h 5d5s 8h Kh") == ["3d3c3h5d5s", "8h", "Kh"]  # a full house
    assert plan_strings("3d3c3h 5d 8h") == ["3d3c3h", "5d", "8h"]
    assert plan_strings("3d3c 4d4c 6h6s 9h") == ["3d3c", "4d4c", "6h6s", "9h"]
    # four of a kind: quads with the lowest single as kicker
    assert plan_strings("7d7c7h7s 4d Ks") == ["4d7d7c7h7s", "Ks"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=1, max_size=13, unique=True))
def test_plan_units_partition_the_hand_into_legal_leads(cards):
    table = AGENT.table
    bits = cards_to_bits(cards)
    plan = AGENT.plan(bits)
    covered = 0
    leads = set(table.legal_moves(bits, None).tolist())
    for unit in plan.units:
        ub = int(table.bits[unit])
        assert not covered & ub, "units overlap"
        covered |= ub
        assert unit in leads
    assert covered == bits
    assert sum(1 for u in plan.units if table.length[u] == 5) <= 2
    assert plan.cost == pytest.approx(sum(AGENT._cost[u] for u in plan.units))


def test_plan_refuses_a_non_big2_hand():
    with pytest.raises(ValueError, match="bit set of card ids"):
        AGENT.plan(1 << 52)


# ---- rules of play in set positions ------------------------------------------------------------------
FILLER = "3s4s5s6s7s8s9sTsJsQsKsAs2s"  # 13 cards


def position(hands: list[str], to_move: int, last: str | None = None, last_mover: int | None = None,
             opening: bool = False) -> Big2Game:
    """A position with the given hands; ``last`` was played by ``last_mover`` (None: ``to_move`` leads).
    ``opening``: the first move of the deal (it must contain the 3 of diamonds)."""
    game = Big2Game(open_with_three_diamonds=opening).reset(0)
    cards = [parse_cards(h) for h in hands]
    game.hands = np.stack([cards_to_vector(c) for c in cards])
    game.bits = [cards_to_bits(c) for c in cards]
    game.current_player = to_move
    game.last_move = None if last is None else move_id(game.table, last)
    game.last_mover = last_mover
    if not opening:
        game.history = [game.table.pass_id]
        game.history_seats = [(to_move - 1) % 4]
    return game


def rule_move(game: Big2Game) -> str:
    move = AGENT.act(game.view(game.current_player), game.legal_moves())
    assert game.is_legal(move)
    return game.table.strings[move]


def test_opening_plays_the_unit_holding_the_three_of_diamonds():
    others = [FILLER, FILLER, FILLER]
    assert rule_move(position(["3d4c5h6s7d Jh Qs", *others], 0, opening=True)) == "3d4c5h6s7d"
    assert rule_move(position(["3d3s 9h Kd", *others], 0, opening=True)) == "3d3s"
    assert rule_move(position(["3d 8h 9h Kd", *others], 0, opening=True)) == "3d"
    # without the rule the same hand leads by the ordinary rules (lowest unit first)
    assert rule_move(position(["3d4c5h6s7d Jh Qs", *others], 0)) == "3d4c5h6s7d"


def test_plays_out_when_one_move_empties_the_hand():
    assert rule_move(position(["9c9h", FILLER, FILLER, FILLER], 0, "8h8s", 3)) == "9c9h"
    assert rule_move(position(["4c5h6s7d8d", FILLER, FILLER, FILLER], 0)) == "4c5h6s7d8d"


def test_follows_with_the_cheapest_beating_move():
    hand = "7d 9s Jh Kh 2s 4c4h"
    assert rule_move(position([hand, FILLER, FILLER, FILLER], 0, "5c", 3)) == "7d"
    assert rule_move(position([hand, FILLER, FILLER, FILLER], 0, "3d3c", 3)) == "4c4h"
    # the same rank with a higher suit is the cheapest beat of the 7 of clubs
    assert rule_move(position(["7h 9s Jd", FILLER, FILLER, FILLER], 0, "7c", 3)) == "7h"
    # ... unless it breaks a pair: then the next single up
    assert rule_move(position(["7d 7h 9s", FILLER, FILLER, FILLER], 0, "7c", 3)) == "9s"


def test_keeps_a_straight_intact():
    # a single from outside the straight rather than breaking it
    assert rule_move(position(["3d4c5h6s7d Kh", FILLER, FILLER, FILLER], 0, "4d", 3)) == "Kh"
    # only straight cards beat the 6 of diamonds: pass
    assert rule_move(position(["3d4c5h6s7d 3c", FILLER, FILLER, FILLER], 0, "6d", 3)) == "pass"
    # nor a flush
    assert rule_move(position(["3h6h9hJhKh 4c", FILLER, FILLER, FILLER], 0, "5d", 3)) == "pass"


def test_plays_to_win_when_it_can_empty_its_hand():
    # nobody can beat the 2 of spades (the filler holds no 2s): take the lead with it, then the last card goes
    hands = ["2s 4d", "3s4s5s6s7s8s9sTsJsQsKsAs3c", FILLER.replace("2s", "3h"), "3c4c"]
    assert rule_move(position(hands, 0, "Kc", 3)) == "2s"
    assert rule_move(position(hands, 0)) == "2s"  # leading: the control first, then the 4d
    # a pair: lead the unbeatable pair of 2s before the last single
    hands = ["2h2s 5d", "3s4s5s6s7s8s9sTsJsQsKsAs3c", "3h4h", "3c4c"]
    assert rule_move(position(hands, 0)) == "2h2s"


def test_keeps_control_cards_early_but_not_when_an_opponent_is_close():
    hand = "3c 5d 7h 9s Jc 2s Kd"
    assert rule_move(position([hand, FILLER, FILLER, FILLER.replace("As", "Ah")], 0, "Ah", 3)) == "pass"
    assert rule_move(position([hand, FILLER, FILLER, "4d5d6d"], 0, "Ah", 3)) == "2s"  # 3 cards left: all out


def test_blocks_an_opponent_about_to_go_out():
    hand = "4c 6d 9s Jc Kd Ah"
    # the next opponent holds one card: answer a single with the highest single
    assert rule_move(position([hand, "Qd", FILLER, FILLER], 0, "5c", 3)) == "Ah"
    # leading with an opponent on one card: no single while something else is left
    assert rule_move(position(["4c 6d 9s9h Kd", "Qd", FILLER, FILLER], 0)) == "9h9s"
    # only singles left: the highest goes first
    assert rule_move(position(["4c 6d Kd", "Qd", FILLER, FILLER], 0)) == "Kd"


def test_leads_the_weakest_unit_first():
    # a low straight before the singles above it; low single before higher pairs
    assert rule_move(position(["4c5h6s7d8d Jh Kh", FILLER, FILLER, FILLER], 0)) == "4c5h6s7d8d"
    assert rule_move(position(["5d 8c8h Qd Kh", FILLER, FILLER, FILLER], 0)) == "5d"
    pairs = "6c6s 9d9s JcJh QcQs KdKs AcAd 2d"  # opponents who can beat a pair of 5s
    assert rule_move(position(["5d5h 8c Kh", pairs, pairs, pairs], 0)) == "5d5h"
    # a pair nobody can beat is kept as a control while two other units are left
    assert rule_move(position(["5d5h 8c Kh", FILLER, FILLER, FILLER], 0)) == "8c"


def test_five_card_follow_takes_the_cheapest_five_card_hand():
    # a straight 6-10 and a heart flush: answer a 3-7 straight with the straight that leaves the flush whole
    table = big2_move_table()
    game = position(["6c7d8c9sTd 3h5h8hJhQh", FILLER, FILLER, FILLER], 0, "3d4c5h6s7s", 3)
    move = rule_move(game)
    assert move == cards_to_string(parse_cards("6c7d8c9sTd"))
    assert table.category[move_id(table, move)] == Category.STRAIGHT
