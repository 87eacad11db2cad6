"""Top-k PPO (DanZero+): candidates, level-A counters, GAE, the loss, masking, the runner, checkpoints, refusals,
the CLI; with real DMC checkpoints, a real local Ray and real RLlib algorithms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from cardrl.agents.q_agent import greedy_index
from cardrl.algorithms.topk_ppo.candidates import candidate_block, topk_candidates
from cardrl.algorithms.topk_ppo.gae import gae
from cardrl.algorithms.topk_ppo.level_a import LevelATracker, level_a_counters
from cardrl.algorithms.topk_ppo.topk_ppo import TopKPPOConfig
from cardrl.algorithms.topk_ppo.topk_ppo_learner import APPROX_KL_KEY, topk_ppo_loss
from cardrl.run_dir import read_progress
from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
    ACTION_DIST_INPUTS, CANDIDATE_MASK, CANDIDATES, EXTRA_STATE, MASKED_LOGIT, OBS, TopKPolicyModule)

TINY_NET = dict(hidden_sizes=(32, 16), head_hidden=8, lstm_hidden=8)


@pytest.fixture(scope="module")
def dmc_checkpoint(tmp_path_factory):
    """``dmc_checkpoint(game)``: the path of a DMC checkpoint of ``game`` trained for one tiny iteration (cached)."""
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig

    if not ray.is_initialized():  # as the ray_local fixture of conftest.py
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    paths = {}

    def make(game: str) -> str:
        if game not in paths:
            config = (DMCConfig().game(game, **({"match": False} if game == "guandan" else {}))
                      .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=100)
                      .training(frames_per_update=128, hidden_sizes=[16]).debugging(seed=5))
            algo = config.build_algo()
            try:
                algo.train()
                paths[game] = algo.save_to_path(str(tmp_path_factory.mktemp(f"dmc_{game}")))
            finally:
                algo.stop()
        return paths[game]

    return make


def tiny_config(game: str, dmc_path: str, k: int = 2, **training) -> TopKPPOConfig:
    env = {"max_deals": 2} if game == "guandan" else {}
    return (TopKPPOConfig().game(game, **env)
            .env_runners(num_env_runners=0, num_envs_per_env_runner=4)
            .training(dmc_checkpoint=dmc_path, k=k, train_batch_size=128, **{**TINY_NET, **training})
            .debugging(seed=2))


# ---- candidates ---------------------------------------------------------------------------------------------------
def test_topk_candidates_order_ties_as_dmc_and_padding():
    q = np.array([0.5, 2.0, 2.0, -1.0, 2.0, 0.5])
    strength = np.array([0, 1, 7, 0, 7, 9])
    # Q order; among the three tied 2.0s the stronger first (7, 7: the lower index), then the weaker
    assert topk_candidates(q, 6, strength).tolist() == [2, 4, 1, 5, 0, 3]
    assert topk_candidates(q, 2, lambda: strength).tolist() == [2, 4]
    assert topk_candidates(q, 3).tolist() == [1, 2, 4]  # no strength: the lower index
    assert topk_candidates(q, 10, strength).tolist() == [2, 4, 1, 5, 0, 3]  # fewer than k moves
    rng = np.random.default_rng(0)
    for _ in range(200):  # candidate 0 is DMC's greedy move, ties within its tolerance included
        q = rng.integers(0, 4, size=9).astype(float) + rng.choice([0.0, 1e-9], size=9)
        strength = rng.integers(0, 3, size=9)
        assert topk_candidates(q, 3, strength)[0] == greedy_index(q, strength)
    features = np.arange(12, dtype=np.float32).reshape(3, 4)
    cands, mask = candidate_block(features, np.array([2, 0]), 4)
    assert cands.tolist() == [features[2].tolist(), features[0].tolist(), [-1.0] * 4, [-1.0] * 4]
    assert mask.tolist() == [True, True, False, False]
    with pytest.raises(ValueError, match="k must be a positive int"):
        topk_candidates(q, 0)


def test_candidates_equal_the_dmc_top_k_on_fixed_states(dmc_checkpoint):
    """On real GuanDan positions the agent's candidates are the DMC's legal moves sorted by its Q (ties: stronger first,
    as its greedy agent), and the first is the DMC agent's own move."""
    from cardrl.agents.q_agent import QAgent, TIE_TOLERANCE
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules
    from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent
    from cardrl.games.guandan import GuanDanGame

    path = dmc_checkpoint("guandan")
    dmc_modules = load_checkpoint_modules(path, "guandan", {"match": False})
    dmc = QAgent(dmc_modules, "guandan")
    config = tiny_config("guandan", path, k=400)  # k above any legal count: the whole order is compared
    policy = config.get_multi_rl_module_spec().build()["shared"]
    policy.candidate_model.load_state_dict(dmc_modules["player_0"].state_dict())
    agent = TopKPPOAgent({a: policy for a in ("player_0", "player_1", "player_2", "player_3")}, "guandan",
                         options={"match": False})
    rng = np.random.default_rng(1)
    positions = ties = 0
    for seed in range(3):
        game = GuanDanGame(match=False).reset(seed)
        while not game.is_over and positions < 60:
            view, legal = game.view(game.current_player), game.legal_moves()
            if len(legal) > 1:
                ids, probs = agent.policy(view, legal)
                assert sorted(ids.tolist()) == legal.tolist() and np.isclose(probs.sum(), 1.0)
                assert ids[0] == dmc.act(view, legal)
                q = dict(zip(legal.tolist(), dmc.q_values(view, legal)))
                strength = dict(zip(legal.tolist(), view.move_strength(legal)))
                for a, b in zip(ids[:-1], ids[1:]):
                    tol = TIE_TOLERANCE * max(1.0, abs(q[a]))
                    assert q[a] >= q[b] - tol
                    if abs(q[a] - q[b]) <= tol:
                        ties += 1
                        assert strength[a] >= strength[b]
                positions += 1
            game.step(int(legal[rng.integers(len(legal))]))
    assert positions >= 30 and ties > 0


# ---- level-A counters ----------------------------------------------------------------------------------------------
def test_level_a_tracker_rebuilds_the_engine_counters_over_whole_matches():
    from cardrl.agents import RandomAgent
    from cardrl.games.guandan import LEVEL_A, GuanDanGame

    seen, demotions = set(), 0
    for seed in range(4):
        game = GuanDanGame(a_level_attempts=2, max_deals=14).reset(seed)
        game.team_levels = [LEVEL_A - 1, LEVEL_A - 1]  # start at K: the deals at level A come at once
        trackers = [LevelATracker(2) for _ in range(4)]
        agent = RandomAgent(seed)
        while not game.is_over:
            seat = game.current_player
            view = game.view(seat)
            counters = level_a_counters(game, seat)
            assert trackers[seat].update(view).tolist() == counters.tolist(), (seed, game.deal_index)
            seen.add(tuple(counters.tolist()))
            game.step(agent.act(view, game.legal_moves()))
        demotions += sum("demoted" in r for r in game.deal_results)
    # both teams' failed attempts were counted, both signs of whose attempt it is, and teams were sent back
    assert {(1, 0, 1), (0, 1, -1), (1, 1, 1), (0, 0, 0)} <= seen and demotions > 0
    tracker = LevelATracker()
    game = GuanDanGame(max_deals=3).reset(0)
    game.deal_index = 2
    with pytest.raises(ValueError, match="must see every deal from the first"):
        tracker.update(game.view(game.current_player))


# ---- GAE -----------------------------------------------------------------------------------------------------------
def test_gae_over_a_multi_deal_match_resets_at_deal_ends():
    gamma, lam = 0.9, 0.5
    # one player's decisions over three deals: 3, 2 and 2 decisions, rewards at each deal's end
    rewards = np.array([0, 0, 2.0, 0, -3.0, 0, 1.0])
    dones = np.array([0, 0, 1, 0, 1, 0, 1.0])
    values = np.array([0.1, 0.2, 0.3, -0.5, 0.4, 0.0, 0.6])
    adv, targets = gae(rewards, values, dones, gamma, lam)
    # by hand, deal 1: delta = [0 + .9*.2 - .1, 0 + .9*.3 - .2, 2 - .3] = [.08, .07, 1.7]
    d1 = [0.08 + 0.45 * (0.07 + 0.45 * 1.7), 0.07 + 0.45 * 1.7, 1.7]
    np.testing.assert_allclose(adv[:3], d1, rtol=1e-6)
    np.testing.assert_allclose(targets, adv + values, rtol=1e-6)
    for start, end in ((0, 3), (3, 5), (5, 7)):  # each deal alone gives the same numbers
        np.testing.assert_allclose(adv[start:end], gae(rewards[start:end], values[start:end], dones[start:end],
                                                       gamma, lam)[0], rtol=1e-6)
    later = values.copy()
    later[3:] += 100.0  # a later deal's values do not leak into an earlier deal's advantages
    np.testing.assert_allclose(gae(rewards, later, dones, gamma, lam)[0][:3], adv[:3], rtol=1e-6)
    with pytest.raises(ValueError, match="must be done"):
        gae([0.0, 1.0], [0.0, 0.0], [0, 0])


def test_runner_samples_per_deal_trajectories_with_gae_and_legal_slots(dmc_checkpoint):
    """A real runner on GuanDan matches (k = 5 > many legal counts): every sample's slot holds a legal move, rewards sit
    on the last decision of a (player, deal) trajectory, and the stored advantages are GAE's with done there."""
    from cardrl.algorithms.topk_ppo.topk_ppo_env_runner import CANDIDATE_IDS, DONES, REWARDS, TopKPPOEnvRunner
    from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
        ACTIONS, ADVANTAGES, CANDIDATE_MASK as MASK, VALUE_TARGETS, VF_PREDS)

    config = tiny_config("guandan", dmc_checkpoint("guandan"), k=5)  # matches of up to 2 deals
    config.validate()
    runner = TopKPPOEnvRunner(config=config, worker_index=1)
    step, mid_match = runner._step, []

    def watched_step(i, agent, action, out):  # GAE samples made while the match goes on: a deal ended, not the match
        matches = len(runner._episode_returns)
        frames = step(i, agent, action, out)
        if frames and len(runner._episode_returns) == matches:
            mid_match.append((runner.envs[i].game.deal_index, frames))
        return frames

    runner._step = watched_step
    try:
        result = runner.sample(num_frames=300)
        assert mid_match and all(deal >= 1 for deal, _ in mid_match)
        cols = result["batch"]["shared"]
        n = len(cols[ACTIONS])
        assert n == result["frames"] >= 300 and 0 < result["scoring_seconds"] < result["seconds"]
        assert cols[MASK][np.arange(n), cols[ACTIONS]].all()  # the chosen slot is never a padded one
        assert (cols[CANDIDATE_IDS][np.arange(n), cols[ACTIONS]] >= 0).all()
        assert (~cols[MASK]).any()  # some positions had fewer than 5 legal moves
        assert (cols[CANDIDATES][~cols[MASK]] == -1).all()
        assert np.all(cols[REWARDS][cols[DONES] == 0] == 0) and cols[DONES][-1] == 1
        ends = np.flatnonzero(cols[DONES]) + 1
        for start, end in zip(np.r_[0, ends[:-1]], ends):
            adv, targets = gae(cols[REWARDS][start:end], cols[VF_PREDS][start:end], cols[DONES][start:end])
            np.testing.assert_allclose(cols[ADVANTAGES][start:end], adv, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(cols[VALUE_TARGETS][start:end], targets, rtol=1e-5, atol=1e-6)
        assert set(np.unique(cols[EXTRA_STATE][:, 2])) <= {-1, 0, 1}
    finally:
        runner.stop()


def test_match_reward_sits_on_each_players_last_decision_of_a_won_match(dmc_checkpoint):
    """DanZero+'s match reward in top-k PPO, as the authors' PPO actor gives it: every (player, deal) trajectory ends
    with that deal's points, and only each player's last decision of the match gets the +1 / -1 on top (DMC's
    targets get it on every deal). Read off the runner's samples of one seeded match, against the engine's record
    of each deal."""
    from cardrl.algorithms.topk_ppo.topk_ppo_env_runner import DONES, REWARDS, TopKPPOEnvRunner

    config = (TopKPPOConfig().game("guandan", match_bonus=True)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
              .training(dmc_checkpoint=dmc_checkpoint("guandan"), k=2, train_batch_size=128, **TINY_NET)
              .debugging(seed=4))
    runner = TopKPPOEnvRunner(config=config, worker_index=1)
    finished, reset = [], runner._reset

    def keep_finished_match(i):  # the match the runner just labelled, before the env deals the next one
        finished.append(runner.envs[i].game.copy())
        reset(i)

    runner._reset = keep_finished_match
    try:
        cols = runner.sample(num_frames=1)["batch"]["shared"]  # labels come at the match's end: one whole match
    finally:
        runner.stop()
    game = finished[0]
    assert game.match_winner is not None and len(game.deal_results) > 1
    ends = np.flatnonzero(cols[DONES]) + 1
    assert len(ends) == 4 * len(game.deal_results) and ends[-1] == len(cols[REWARDS])
    assert np.all(cols[REWARDS][cols[DONES] == 0] == 0)
    last_deal = len(game.deal_results) - 1
    for n, end in enumerate(ends):  # trajectories in the order the deals ended, seats in order within a deal
        deal, seat = divmod(n, 4)
        result = game.deal_results[deal]
        points = result["reward"] if seat % 2 == result["team"] else -result["reward"]
        bonus = (1.0 if seat % 2 == game.match_winner else -1.0) if deal == last_deal else 0.0
        assert cols[REWARDS][end - 1] == points + bonus, (deal, seat)


# ---- the loss ------------------------------------------------------------------------------------------------------
def test_loss_equals_equations_1_to_5_on_hand_computed_tensors():
    logits = torch.tensor([[0.0, 0.0], [2.0, 0.0], [0.0, MASKED_LOGIT]])
    actions = torch.tensor([0, 1, 0])
    # current probabilities: [.5, .5], [e^2/(1+e^2), 1/(1+e^2)], [1, 0]
    p = [0.5, 1 / (1 + math.e ** 2), 1.0]
    logp_old = torch.log(torch.tensor([0.25, 0.5, 0.2]))  # ratios: 2, 0.238..., 5
    adv = torch.tensor([1.0, -2.0, 0.5])
    values = torch.tensor([0.5, -1.0, 0.0])
    targets = torch.tensor([1.0, 0.0, 2.0])
    total, metrics = topk_ppo_loss(logits, actions, logp_old, adv, values, targets, clip_param=0.2, ratio_max=3.0,
                                   vf_loss_coeff=0.5, vf_scale=0.5, entropy_coeff=0.05)
    ratio = [p[0] / 0.25, p[1] / 0.5, p[2] / 0.2]
    surrogate = [min(min(max(r, 0.0), 3.0) * a, min(max(r, 0.8), 1.2) * a) for r, a in zip(ratio, [1.0, -2.0, 0.5])]
    # sample 1: min(2 * 1, 1.2 * 1) = 1.2; sample 2: min(.238 * -2, .8 * -2) = -1.6; sample 3: min(3 * .5, 1.2 * .5)
    assert np.allclose(surrogate, [1.2, -1.6, 0.6])
    entropy = [math.log(2), -(p[1] * math.log(p[1]) + (1 - p[1]) * math.log(1 - p[1])), 0.0]
    policy_loss = -np.mean(surrogate)                                       # eq. 3 without the entropy term
    value_loss = 0.5 * np.mean([(0.5 - 1.0) ** 2, 1.0, 4.0])               # eq. 4 (0.5 x MSE)
    want = policy_loss - 0.05 * np.mean(entropy) + 0.5 * value_loss         # eqs. 3 and 5
    assert math.isclose(float(total), want, rel_tol=1e-5)
    assert math.isclose(float(metrics[APPROX_KL_KEY]), float((logp_old - torch.log(torch.tensor(p))).mean()),
                        rel_tol=1e-5)
    # the [0, 3] clamp matters only where the clip does not bind: a big ratio with a negative advantage
    neg, _ = topk_ppo_loss(torch.tensor([[0.0, MASKED_LOGIT]]), torch.tensor([0]), torch.log(torch.tensor([0.1])),
                           torch.tensor([-1.0]), torch.zeros(1), torch.zeros(1), entropy_coeff=0.0)
    assert math.isclose(float(neg), 3.0, rel_tol=1e-6)  # -min(3 x -1, 1.2 x -1) = 3, not 10


# ---- the module and masking ----------------------------------------------------------------------------------------
def test_masking_never_lets_an_illegal_slot_be_chosen():
    module = TopKPolicyModule(observation_space=None, action_space=None, model_config=dict(
        state_dim=4, history_shape=None, extra_dim=3, k=3, action_dim=5, **TINY_NET))
    with torch.no_grad():
        module.pi[-1].bias.copy_(torch.tensor([-50.0, 1e6, 1e7]))  # the padded slots would win by far
    batch = {OBS: torch.randn(4096, 4), EXTRA_STATE: torch.randn(4096, 3), CANDIDATES: torch.randn(4096, 3, 5),
             CANDIDATE_MASK: torch.tensor([True, False, False]).repeat(4096, 1)}
    logits = module.forward_exploration(batch)[ACTION_DIST_INPUTS]
    assert (logits[:, 1:] == MASKED_LOGIT).all()
    assert (torch.distributions.Categorical(logits=logits).sample() == 0).all()
    with pytest.raises(ValueError, match="candidates.*must have shape"):
        module.forward_exploration({**batch, CANDIDATES: torch.randn(4096, 2, 5)})
    # orthogonal init, zero biases (DanZero+ code)
    w = module.trunk[0].weight  # 32 x 22: orthonormal columns
    assert torch.allclose(w.T @ w, torch.eye(w.shape[1]), atol=1e-5) and (module.trunk[0].bias == 0).all()


# ---- the algorithm: train, checkpoint, restore, play; refusals -------------------------------------------------
def _fixed_views(n: int = 40):
    from cardrl.games.guandan import GuanDanGame

    out, rng = [], np.random.default_rng(4)
    game = GuanDanGame(match=False).reset(11)
    while not game.is_over and len(out) < n:
        view, legal = game.view(game.current_player), game.legal_moves()
        out.append((view, legal))
        game.step(int(legal[rng.integers(len(legal))]))
    return out


def test_train_checkpoint_restore_and_play_the_same_actions(dmc_checkpoint, ray_local, tmp_path):
    from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent
    from cardrl.algorithms.topk_ppo.agent_loaders import register
    from cardrl.eval.agents import build_agent

    register()  # what the entry point does once installed (test_loader_entry_point_is_declared)
    path = dmc_checkpoint("guandan")
    algo = tiny_config("guandan", path).build_algo()
    try:
        result = algo.train()
        stats = result["learners"]["shared"]
        assert math.isfinite(float(stats["policy_loss"])) and result["frames_sampled"] >= 128
        assert 0 < result["candidate_scoring_share"] < 1 and result["epochs_taken"]["shared"] >= 1
        assert stats["num_trainable_parameters"] < 30_000  # the frozen DMC network is not trained
        ckpt = algo.save_to_path(str(tmp_path / "topk"))
        views = _fixed_views()
        greedy = algo.agent(greedy=True)
        before = [greedy.act(v, legal) for v, legal in views]
        sampler = algo.agent(seed=3)
        sampled = [sampler.act(v, legal) for v, legal in views]
    finally:
        algo.stop()
    restored = tiny_config("guandan", path).build_algo()
    try:
        restored.restore_from_path(ckpt)
        assert [restored.agent(greedy=True).act(v, legal) for v, legal in views] == before
        counters = restored.get_state()["topk_ppo_counters"]
        assert counters["rule_options"]["level"] == "2" and counters["feature_layout"]["encoder"] == "danzero_v1"
        with pytest.raises(ValueError, match="rule option level: checkpoint has '5', this config has '2'"):
            restored.set_state({"topk_ppo_counters": {**counters, "rule_options": {**counters["rule_options"],
                                                                                   "level": "5"}}})
        older = {k: v for k, v in counters.items() if k not in ("feature_layout", "rule_options", "num_actions")}
        restored.set_state({"topk_ppo_counters": older})  # written before the layout keys: read as today's
        with pytest.raises(ValueError, match="k: checkpoint has 2, this config has 3"):
            other = tiny_config("guandan", path, k=3).build_algo()
            try:
                other.restore_from_path(ckpt)
            finally:
                other.stop()
    finally:
        restored.stop()
    loaded = build_agent(f"topk-ppo:{ckpt}:greedy", "guandan")
    assert isinstance(loaded, TopKPPOAgent) and [loaded.act(v, legal) for v, legal in views] == before
    again = build_agent(f"topk-ppo:{ckpt}", "guandan")
    again.reset(3)
    assert [again.act(v, legal) for v, legal in views] == sampled  # sampling is reproducible
    from cardrl.cli import main  # cardrl eval plays it like any agent

    assert main(["eval", "guandan", "--a", f"topk-ppo:{ckpt}", "--b", "rule", "--deals", "1", "--max-deals", "1",
                 "--workers", "1"]) == 0
    with pytest.raises(ValueError, match="trained on 'guandan_v0', not on 'big2'"):
        build_agent(f"topk-ppo:{ckpt}", "big2")
    with pytest.raises(ValueError, match="allowed: topk-ppo:PATH"):
        build_agent(f"topk-ppo:{ckpt}:fast", "guandan")


def test_loader_entry_point_is_declared():
    """pyproject.toml names the loader in the cardrl.agent_loaders group (reinstall to register it)."""
    import tomllib
    from pathlib import Path

    from cardrl.agents.loaders import ENTRY_POINT_GROUP
    from cardrl.games.registry import resolve

    pyproject = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    points = pyproject["project"]["entry-points"][ENTRY_POINT_GROUP]
    from cardrl.algorithms.topk_ppo.agent_loaders import register

    assert resolve(points["topk_ppo"]) is register


def test_a_dmc_checkpoint_of_another_game_or_none_is_refused(dmc_checkpoint, tmp_path):
    big2 = dmc_checkpoint("big2")
    with pytest.raises(ValueError, match="is a DMC checkpoint of 'big2_v0'; top-k PPO on guandan needs a DMC "
                                         "checkpoint of 'guandan_v0'"):
        tiny_config("guandan", big2).validate()
    with pytest.raises(ValueError, match="top-k PPO needs dmc_checkpoint=PATH"):
        TopKPPOConfig().game("guandan").validate()
    with pytest.raises(ValueError, match="does not exist"):
        tiny_config("guandan", str(tmp_path / "missing")).validate()
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="not a cardrl DMC algorithm checkpoint"):
        tiny_config("guandan", str(tmp_path / "empty")).validate()
    guandan = dmc_checkpoint("guandan")
    with pytest.raises(ValueError, match="k=0 must be an int >= 1"):
        tiny_config("guandan", guandan, k=0).validate()
    with pytest.raises(ValueError, match="features='danzero_keyed' differ from the DMC checkpoint's 'danzero'"):
        tiny_config("guandan", guandan).game(features="danzero_keyed").validate()
    with pytest.raises(ValueError, match="big2 has no level-A rule"):
        tiny_config("big2", big2, level_a_counters=True).validate()
    with pytest.raises(ValueError, match="minibatch_size=500 must be None"):
        tiny_config("guandan", guandan, minibatch_size=500).validate()


@pytest.mark.parametrize("game", ["doudizhu", "big2"])
def test_trains_on_doudizhu_and_big2_with_their_features(game, dmc_checkpoint, ray_local):
    algo = tiny_config(game, dmc_checkpoint(game), num_epochs=3).build_algo()
    try:
        result = algo.train()
        modules = ["landlord", "landlord_down", "landlord_up"] if game == "doudizhu" else ["shared"]
        for m in modules:
            assert math.isfinite(float(result["learners"][m]["policy_loss"]))
            assert algo.learner_group._learner.module[m].lstm is not None  # the history LSTM
        assert algo.learner_group._learner.module[modules[0]].net.extra_dim == 0
    finally:
        algo.stop()


def test_cli_trains_topk_ppo_and_refuses_foreign_flags(dmc_checkpoint, ray_local, tmp_path, capsys, monkeypatch):
    """Also: relative paths (--dmc-checkpoint, --out, an eval spec's checkpoint) mean the current directory's (pyarrow
    refuses a relative --dmc-checkpoint with "URI has empty scheme" unless it is resolved first)."""
    import os

    from cardrl.cli import main

    path = dmc_checkpoint("guandan")
    monkeypatch.chdir(tmp_path)
    relative = os.path.relpath(path, tmp_path)
    rc = main(["train", "guandan", "--algo", "topk-ppo", "--dmc-checkpoint", relative, "--k", "2", "--stop-frames",
               "60", "--train-batch-size", "60", "--hidden-sizes", "16", "--head-hidden", "8", "--num-epochs", "2",
               "--num-envs-per-env-runner", "2", "--num-env-runners", "0", "--eval-every", "0", "--eval-deals", "1",
               "--out", "run"])
    out = capsys.readouterr().out
    assert rc == 0 and "training top-k PPO (k=2) on guandan" in out
    assert "final points per deal vs random over 1 deals x 2 (teams swapped)" in out and "ADP" not in out  # GuanDan
    assert (tmp_path / "run" / "checkpoint" / "algorithm_state.pkl").is_file()
    first = read_progress(tmp_path / "run")[-1]
    # resumed (counters and the run's clock come back) and evaluated by frames, as cardrl bench learning runs it
    rc = main(["train", "guandan", "--algo", "topk-ppo", "--dmc-checkpoint", relative, "--k", "2", "--stop-frames",
               "120", "--train-batch-size", "60", "--hidden-sizes", "16", "--head-hidden", "8", "--num-epochs", "2",
               "--num-envs-per-env-runner", "2", "--num-env-runners", "0", "--eval-every", "0", "--eval-deals", "1",
               "--eval-every-frames", "100", "--out", "run", "--resume"])
    out = capsys.readouterr().out
    assert rc == 0 and f"frames {first['frames_trained']:,}" in out.split("resumed from")[1].splitlines()[0]
    records = read_progress(tmp_path / "run")
    resumed = records[len([r for r in records if r["iteration"] <= first["iteration"]]):]
    assert resumed and resumed[0]["iteration"] == first["iteration"] + 1
    assert resumed[0]["time_s"] >= first["time_s"] and resumed[-1]["frames_trained"] >= 120
    assert {r["eval_frames"] for r in resumed if "eval_frames" in r} == {100}  # the final record repeats it
    for spec in ("topk-ppo:run/checkpoint", f"checkpoint:{relative}"):
        assert main(["eval", "guandan", "--a", spec, "--b", "random", "--deals", "1", "--max-deals", "1",
                     "--workers", "1"]) == 0
    assert main(["train", "guandan", "--algo", "topk-ppo", "--dmc-checkpoint", path, "--epsilon", "0.1"]) == 2
    assert "--epsilon (dmc) do not apply to --algo topk-ppo" in capsys.readouterr().err
    assert main(["train", "guandan", "--algo", "dmc", "--k", "2"]) == 2
    assert "--k (topk-ppo) do not apply to --algo dmc" in capsys.readouterr().err


@pytest.mark.slow
def test_topk_ppo_vs_dmc_experiment_runs_tiny(tmp_path, capsys):
    """experiments/topk_ppo_vs_dmc.py end to end with tiny settings (no claim on who wins)."""
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "experiments" / "topk_ppo_vs_dmc.py"
    spec = importlib.util.spec_from_file_location("topk_ppo_vs_dmc", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--tiny", "--num-env-runners", "0", "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["throughput"]["frames_per_s"] > 0
    assert 0 < summary["throughput"]["candidate_scoring_share"] < 1
    assert set(summary["evaluation"]) == {"PPO(2) vs rule", "DMC vs rule", "PPO(2) vs DMC"}
    assert "candidate scoring" in capsys.readouterr().out


# ---- RLlib's own PPO with the masked module (the baseline) ---------------------------------------------------------
def _masked_module(num_actions: int = 50, obs_dim: int = 6):
    import gymnasium as gym

    from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import ACTION_MASK, OBSERVATIONS, MaskedActionEmbeddingModule

    space = gym.spaces.Dict({OBSERVATIONS: gym.spaces.Box(-1, 1, (obs_dim,), np.float32),
                             ACTION_MASK: gym.spaces.Box(0, 1, (num_actions,), np.int8)})
    return MaskedActionEmbeddingModule(observation_space=space, action_space=gym.spaces.Discrete(num_actions),
                                       model_config={"hidden_sizes": (16,), "embedding_dim": 4})


def test_masked_module_samples_legal_actions_with_the_training_distribution():
    """The runner-side sampler (legal scores only) never picks an illegal action, even when illegal actions would win by
    far, and its log-probabilities are those of the dense masked logits PPO trains on."""
    from ray.rllib.core.columns import Columns

    from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import ACTION_MASK, OBSERVATIONS

    torch.manual_seed(0)
    module = _masked_module()
    with torch.no_grad():
        module.action_bias.copy_(torch.where(torch.arange(50) % 7 == 0, -5.0, 1e4))  # only ids 0, 7, ... are legal
    mask = torch.zeros(512, 50, dtype=torch.int8)
    mask[:, ::7] = 1
    mask[1, :] = 0
    mask[1, 3] = 1  # a single legal action
    mask[2, :] = 0  # RLlib's final observation of an episode: no legal action
    batch = {Columns.OBS: {OBSERVATIONS: torch.randn(512, 6), ACTION_MASK: mask}}
    for out in (module.forward_exploration(batch), module.forward_inference(batch)):
        actions = out[Columns.ACTIONS]
        rows = [r for r in range(512) if r != 2]
        assert mask[rows, actions[rows]].all() and actions[1] == 3 and actions[2] == 0
        dense = torch.distributions.Categorical(logits=module.forward_train(batch)[Columns.ACTION_DIST_INPUTS])
        torch.testing.assert_close(out[Columns.ACTION_LOGP], dense.log_prob(actions), atol=1e-5, rtol=1e-5)
    assert len(set(module.forward_exploration(batch)[Columns.ACTIONS].tolist())) > 2  # it samples
    with pytest.raises(ValueError, match="use_kl_loss=False"):
        module.get_exploration_action_dist_cls().from_logits(torch.zeros(1, 2)).kl(None)


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_rllib_ppo_with_the_masked_module_trains_without_an_illegal_action(game, ray_local):
    """RLlib's own PPO trains two tiny iterations on each game (an illegal action would raise in the env), and the
    actions of freshly sampled episodes all lie in their observations' masks."""
    from cardrl.algorithms.masked_ppo.masked_ppo import masked_ppo_config, module_ids
    from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import ACTION_MASK

    env = {"match": False} if game == "guandan" else {}
    algo = (masked_ppo_config(game, env, train_batch_size=48, minibatch_size=48, num_epochs=1, hidden_sizes=(16,),
                              embedding_dim=4)
            .env_runners(num_env_runners=0, rollout_fragment_length=48).debugging(seed=1)).build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        for m in module_ids(game):
            assert math.isfinite(float(result["learners"][m]["policy_loss"]))
        checked = 0
        for episode in algo.env_runner.sample(num_timesteps=40, random_actions=False):
            for single in episode.agent_episodes.values():
                for t, action in enumerate(single.get_actions()):
                    assert single.get_observations(t)[ACTION_MASK][action] == 1
                    checked += 1
        assert checked >= 40
    finally:
        algo.stop()


def test_cli_trains_rllib_ppo_and_eval_plays_its_checkpoint(ray_local, tmp_path, capsys):
    from cardrl.algorithms.masked_ppo.agent_loaders import MaskedPPOAgent, register
    from cardrl.cli import main
    from cardrl.eval.agents import build_agent

    register()  # what the entry point does once installed
    rc = main(["train", "big2", "--algo", "ppo", "--stop-frames", "40", "--train-batch-size", "40",
               "--minibatch-size", "40", "--num-epochs", "1", "--hidden-sizes", "16", "--embedding-dim", "4",
               "--num-env-runners", "0", "--eval-every", "0", "--eval-deals", "2", "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert rc == 0 and "training RLlib's PPO" in out and "final ADP vs random over " in out and " arrangements: " in out
    ckpt = tmp_path / "run" / "checkpoint"
    assert isinstance(build_agent(f"ppo:{ckpt}", "big2"), MaskedPPOAgent)
    assert main(["eval", "big2", "--a", f"ppo:{ckpt}", "--b", "random", "--deals", "2", "--workers", "1"]) == 0
    with pytest.raises(ValueError, match="not on cardrl/doudizhu_v0"):
        build_agent(f"ppo:{ckpt}", "doudizhu")
