"""experiments/guandan_pass_rollouts.py: a branch played out from a copy gives the deal's own points when it takes
the move the game then took, leaves the game unchanged, and branches both ways as the module says; the summary's
figures on hand-worked numbers."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.eval.agents import build_agent
from cardrl.games.guandan import GuanDanGame
from experiments import guandan_pass_rollouts as pr
from experiments.guandan_q_fit import agent_decider


class ValueTable:
    """A stand-in for a Q-network's ``move_values``: Q 1.0 for the pass and for moves of ``category``, 0 else."""

    def __init__(self, game: GuanDanGame, pass_value: float):
        self.game, self.pass_value = game, pass_value

    def move_values(self, view, legal):
        ids = np.asarray(legal, dtype=np.int64)
        return ids, np.array([self.pass_value if self.game.move_of(int(a)).is_pass else -float(k) / len(ids)
                              for k, a in enumerate(ids)])


def _rule_deciders() -> dict:
    rule = agent_decider(build_agent("rule", "guandan"))
    return {s: rule for s in range(4)}


def _first_follow(game: GuanDanGame, deciders: dict) -> None:
    """Play ``game`` on to its first follow where pass and a non-pass move are both legal."""
    while not (game.phase == "play" and game.last_move is not None and len(game.legal_moves()) > 1):
        seat = game.current_player
        game.step(deciders[seat](game.view(seat), game.legal_moves())[0])


def test_a_branch_on_the_move_the_game_then_takes_ends_as_the_deal_did():
    deciders = _rule_deciders()
    game = GuanDanGame(max_deals=1).reset(5)
    _first_follow(game, deciders)
    before = list(game.actions)
    seat = game.current_player
    move = deciders[seat](game.view(seat), game.legal_moves())[0]
    points = pr.finish_deal(game, deciders, move)
    assert game.actions == before  # the copy was played, not the game
    while not game.is_over:
        s = game.current_player
        game.step(deciders[s](game.view(s), game.legal_moves())[0])
    assert np.array_equal(points, game.deal_rewards[0]) and abs(points).max() >= 1


@pytest.mark.parametrize("pass_value", [2.0, -2.0])
def test_branch_here_plays_out_the_pass_and_the_best_non_pass_move(pass_value):
    deciders = _rule_deciders()
    game = GuanDanGame(max_deals=1).reset(8)
    _first_follow(game, deciders)
    seat, legal = game.current_player, game.legal_moves()
    row = pr.branch_here(game, ValueTable(game, pass_value), deciders, index=3)
    passing = next(int(a) for a in legal if game.move_of(int(a)).is_pass)
    best_play = next(int(a) for a in legal if not game.move_of(int(a)).is_pass)  # Q falls with the list's order
    assert row.chose_pass == (pass_value > 0) and row.q_pass == pass_value and row.q_play <= 0
    assert row.ret_pass == pr.finish_deal(game, deciders, passing)[seat]
    assert row.ret_play == pr.finish_deal(game, deciders, best_play)[seat]
    assert row.game == 3 and row.seat == seat and row.whose in ("partner", "opponent")
    assert row.bomb == game.move_of(best_play).is_bomb


def test_branch_here_refuses_a_position_without_the_choice():
    game = GuanDanGame(max_deals=1).reset(8)  # a lead: no pass legal
    with pytest.raises(ValueError, match="pass and a non-pass move"):
        pr.branch_here(game, ValueTable(game, 0.0), _rule_deciders(), index=0)


def test_summary_by_hand():
    rows = [pr.Branching(0, 0, 0, "partner", False, False, 0.0, 0.5, 2.0, -1.0),
            pr.Branching(0, 0, 2, "partner", False, False, 0.1, 0.3, 1.0, 1.0),
            pr.Branching(0, 0, 1, "opponent", True, True, 0.4, 0.2, -3.0, 1.0)]
    figures = pr.summarise(rows)
    partner = figures["partner"]
    assert partner["n"] == 2 and partner["mean_gain"] == pytest.approx(1.5)  # (3 + 0) / 2
    assert partner["better"] == 0.5 and partner["same"] == 0.5 and partner["worse"] == 0.0
    assert partner["q_gap"] == pytest.approx((-0.5 - 0.2) / 2) and partner["chose_pass"] == 0.0
    assert partner["low"] < 1.5 < partner["high"]
    assert figures["opponent, bomb"]["mean_gain"] == -4.0 and figures["opponent, no bomb"] == {"n": 0}
    assert figures["all"]["n"] == 3 and figures["opponent"]["chose_pass"] == 1.0
    text = pr.markdown(figures, ["# t"])
    assert "| partner | 2 | +1.50 [" in text and "| opponent, bomb | 1 | -4.00 | 0% / 0% / 100% | +0.20 | 100% |" in text
