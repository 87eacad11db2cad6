"""Training against a fixed opponent (``fixed_opponent``): the learning seats turn over the game's arrangements, the
fixed agent's decisions make no frames and its moves are its own, and the options it does not fit are refused."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
from cardrl.algorithms.dmc.fixed_opponent import FixedOpponent
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.games.registry import get_game


def test_learning_seats_turn_over_the_arrangements_from_another_start_in_each_game():
    arrangements = get_game("guandan").protocol.arrangements  # each team
    fixed = FixedOpponent("rule", "guandan", {}, arrangements, num_games=2)
    assert [fixed.new_episode(0, seed) for seed in range(3)] == [arrangements[0], arrangements[1], arrangements[0]]
    assert fixed.new_episode(1, 0) == arrangements[1]
    learning = fixed.learning_seats(1)
    assert [fixed.plays(1, seat) for seat in range(4)] == [seat not in learning for seat in range(4)]


def _runner(game: str, **training) -> DMCEnvRunner:
    config = (DMCConfig().game(game)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=1, rollout_fragment_length=1)
              .training(frames_per_update=64, fixed_opponent="rule", **training).debugging(seed=5))
    return DMCEnvRunner(config=config, worker_index=1)


def test_only_the_learning_side_makes_frames_and_the_opponent_plays_its_own_moves():
    runner = _runner("doudizhu")
    fixed, decisions = runner.fixed, []
    act = fixed.act

    def recorded_act(i, game):  # the rule agent's own move, checked against a fresh rule agent beside it
        move = act(i, game)
        decisions.append((game.current_player, move, game.view(game.current_player), game.legal_moves()))
        return move

    fixed.act = recorded_act
    landlord = fixed.learning_seats(0)
    assert landlord == get_game("doudizhu").protocol.arrangements[0]  # game 0 starts with the landlord learning
    first = runner.sample(num_frames=1)  # one deal: frames of the landlord only
    assert set(first["batch"]) == {"landlord"}
    assert decisions and all(seat not in landlord for seat, *_ in decisions)
    from cardrl.eval.agents import build_agent

    rule = build_agent("rule", "doudizhu")
    assert all(rule.act(view, legal) == move for _, move, view, legal in decisions)
    peasants = fixed.learning_seats(0)
    assert peasants != landlord and set(peasants) | set(landlord) == {0, 1, 2}
    second = runner.sample(num_frames=1)  # the next deal: the peasants learn
    assert set(second["batch"]) <= {"landlord_up", "landlord_down"} and second["frames"] > 0
    assert sum(len(cols["target"]) for cols in second["batch"].values()) == second["frames"]


def test_guandan_matches_keep_their_learning_team_for_the_whole_match():
    runner = _runner("guandan", epsilon=1.0)
    team = runner.fixed.learning_seats(0)
    sample = runner.sample(num_frames=200)  # several deals of the first match, maybe the next match
    # the two teams take turns match by match, never within one
    assert (runner.fixed.learning_seats(0) == team) == (runner._episodes_done % 2 == 0)
    assert sample["frames"] >= 200 and np.isfinite(np.concatenate([c["target"] for c in sample["batch"].values()])).all()


@pytest.mark.parametrize("options, message", [
    ({"fixed_opponent": "nonsense"}, "fixed_opponent='nonsense'"),
    ({"fixed_opponent": "rlcard"}, "fixed_opponent='rlcard'"),  # DouDiZhu's agent, not Big2's
    ({"fixed_opponent": "rule", "coach": True}, "coach"),
])
def test_options_it_does_not_fit_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        DMCConfig().game("big2").training(**options).validate()


def test_bidding_with_a_fixed_opponent_is_refused():
    with pytest.raises(ValueError, match="bidding"):
        DMCConfig().game("doudizhu").training(fixed_opponent="rule", bidding=True).validate()


def test_the_cli_flag_builds_the_spec():
    spec = RunSpec.from_flags("guandan", ["--fixed-opponent", "rule-control"])
    assert spec.settings.fixed_opponent == "rule-control"
    assert "--fixed-opponent" in spec.flags()
