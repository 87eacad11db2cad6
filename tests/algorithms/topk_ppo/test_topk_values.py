"""Top-k PPO's values (game records, cardrl serve's hints): the policy's probabilities of its candidates, asked for
without changing the agent's play (no random draw, level-A counters followed on trackers of their own)."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.agents.base import agent_view
from cardrl.eval.agents import build_agent
from cardrl.eval.records import validate_record
from cardrl.eval.recording import decision_values, play_recorded
from cardrl.games.registry import get_game

OPTIONS = {"max_deals": 2}  # a match of two deals: the level-A counters follow the deal change


def _tiny_agent(seed: int = 0):
    """A :class:`TopKPPOAgent` for GuanDan reading the level-A counters, over an untrained candidate Q-model."""
    import torch

    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import RoleDims
    from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent
    from cardrl.algorithms.topk_ppo.level_a import LEVEL_A_DIM
    from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import TopKPolicyModule, policy_spaces, parse_policy_config

    torch.manual_seed(seed)
    spec = get_game("guandan")
    features = spec.make_features(None)
    agent = spec.agents[0]
    history = None if features.history_shape is None else tuple(features.history_shape)
    dims = RoleDims(features.state_dim(agent), history, features.action_dim)
    candidate = dmc_module_spec("mlp", {"shared": dims}, {"hidden_sizes": [8]}).build()["shared"]
    config = {"state_dim": dims.state_dim, "history_shape": history, "action_dim": dims.action_dim,
              "extra_dim": LEVEL_A_DIM, "k": 3, "hidden_sizes": (16,), "head_hidden": 8, "lstm_hidden": 8,
              "candidate_model": {"module_class": f"{type(candidate).__module__}:{type(candidate).__qualname__}",
                                  "model_config": dict(candidate.model_config)}}
    obs, act = policy_spaces(parse_policy_config(config))
    module = TopKPolicyModule(observation_space=obs, action_space=act, model_config=config)
    return TopKPPOAgent({a: module for a in spec.agents}, "guandan", options=OPTIONS, seed=seed)


def _play(agent, other, seed: int, ask_values: bool) -> tuple[list[int], list]:
    game = get_game("guandan").make_engine(**get_game("guandan").full_options(OPTIONS)).reset(seed)
    agents = [agent, other, agent, other]
    for a in (agent, other):
        a.reset(seed)
    values = []
    while not game.is_over:
        seat = int(game.current_player)
        legal = game.legal_moves()
        if ask_values:  # as a record (the deciding agent) and as hints (the agent asked about every seat)
            values.append(decision_values(agent, agent_view(agent, game, seat), legal))
        game.step(int(agents[seat].act(agent_view(agents[seat], game, seat), legal)))
    return [int(a) for a in game.actions], values


def test_values_calls_leave_the_top_k_agents_moves_unchanged():
    agent, other = _tiny_agent(), build_agent("random", "guandan", OPTIONS)
    plain, _ = _play(agent, other, 3, ask_values=False)
    asked, values = _play(agent, other, 3, ask_values=True)
    assert asked == plain  # sampled moves: a values call that drew a random number would change them
    game = get_game("guandan").engine_class.replay(3, asked, **get_game("guandan").full_options(OPTIONS))
    assert game.deals_played == 2 and len(values) == len(asked)
    for entry in values:
        assert entry["kind"] == "prob" and 0 < sum(v for _, v in entry["moves"]) <= 1 + 1e-4
        assert len(entry["moves"]) <= 3  # the k candidates


def test_a_top_k_agent_records_its_probabilities():
    agent = _tiny_agent(1)
    options = get_game("guandan").full_options({"max_deals": 1})
    engine = get_game("guandan").make_engine(**options)
    record = play_recorded(engine, [agent] * 4, 5, ["topk-ppo:x"] * 4, options)
    checked = validate_record(record.to_json())
    game = engine.reset(5)
    candidates_played = 0
    for action, entry in zip(checked.actions, checked.values):
        ids, probs = agent.move_values(game.view(game.current_player), game.legal_moves())
        order = np.argsort(-probs, kind="stable")
        assert entry["kind"] == "prob" and [m[0] for m in entry["moves"]] == [int(i) for i in ids[order]]
        assert [m[1] for m in entry["moves"]] == pytest.approx(sorted(probs.tolist(), reverse=True), abs=1e-5)
        candidates_played += action in [m[0] for m in entry["moves"]]
        game.step(action)
    assert candidates_played == len(checked.actions)  # every move played was a candidate
