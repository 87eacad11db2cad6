"""DMC on RLlib with a real local Ray: build, train, checkpoint, restore, resume, play; bad input."""

import math

import numpy as np
import pytest
import torch

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_rl_module import DouZeroQModule, MLPQModule
from cardrl.envs.rllib import make_aec_env

ROLES = ("landlord", "landlord_down", "landlord_up")


def small_config(num_env_runners=0, q_model="douzero_lstm", **training):
    return (DMCConfig().game("doudizhu")
            .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=8, rollout_fragment_length=100)
            .training(q_model=q_model, frames_per_update=128, **training)
            .debugging(seed=3))


def _observations(n=6, seed=0):
    """(agent, obs, legal action features) of a few real positions."""
    env = make_aec_env("doudizhu")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        agent = env.agent_selection
        legal = env.legal_moves()
        out.append((agent, env.observe(agent)["observation"], env.action_features(legal)))
        env.step(int(legal[rng.integers(len(legal))]))
    return out


def _q(module, obs, actions, role):
    features = make_aec_env("doudizhu").features
    state, history = features.split(obs, role)
    return module.q_values(state, history, actions).numpy()


def test_train_checkpoint_restore_resume(ray_local, tmp_path):
    algo = small_config().build_algo()
    try:
        for _ in range(3):
            result = algo.train()
        for role in ROLES:
            assert math.isfinite(result["learners"][role]["q_loss"])
        assert result["frames_trained"] >= 3 * 3 * 128
        assert result["episodes"] > 0 and result["frames_trained_per_s"] > 0
        path = algo.save_to_path(str(tmp_path / "ckpt"))
        before = {role: algo.learner_group._learner.module[role] for role in ROLES}
        positions = _observations()
        q_before = [_q(before[a], o, x, a) for a, o, x in positions]
        frames = result["frames_trained"]
    finally:
        algo.stop()

    restored = small_config().build_algo()
    try:
        restored.restore_from_path(path)
        modules = {role: restored.learner_group._learner.module[role] for role in ROLES}
        for (agent, obs, actions), q in zip(positions, q_before):
            q_now = _q(modules[agent], obs, actions, agent)
            np.testing.assert_allclose(q_now, q, rtol=1e-6, atol=1e-6)
            assert int(np.argmax(q_now)) == int(np.argmax(q))
        result = restored.train()  # training continues from the restored counters
        assert result["frames_trained"] > frames
        assert result["training_iteration"] == 4
    finally:
        restored.stop()

    # one seat's module alone, for play
    from ray.rllib.core.rl_module.rl_module import RLModule

    landlord = RLModule.from_checkpoint(f"{path}/learner_group/learner/rl_module/landlord")
    assert isinstance(landlord, DouZeroQModule)
    agent, obs, actions = next(p for p in positions if p[0] == "landlord")
    np.testing.assert_allclose(_q(landlord, obs, actions, "landlord"), q_before[positions.index(
        next(p for p in positions if p[0] == "landlord"))], rtol=1e-6, atol=1e-6)


def test_remote_env_runner_overlaps_and_reports_lag(ray_local):
    algo = small_config(num_env_runners=1, q_model="mlp").build_algo()
    try:
        for _ in range(3):
            result = algo.train()
        assert isinstance(algo.learner_group._learner.module["landlord"], MLPQModule)
        assert result["frames_trained"] >= 3 * 128
        assert result["weight_lag"] >= 0
        assert set(result["env_runners"]["mean_return"]) == set(ROLES)
    finally:
        algo.stop()


def test_bad_configs_fail_fast_with_clear_messages():
    with pytest.raises(ValueError, match="game 'chess' is unknown; available: \\['doudizhu'\\]"):
        DMCConfig().game("chess").validate()
    with pytest.raises(ValueError, match="q_model 'transformer' is unknown"):
        DMCConfig().training(q_model="transformer").validate()
    with pytest.raises(ValueError, match="epsilon"):
        DMCConfig().training(epsilon=1.5).validate()
    if torch.cuda.device_count() == 0:
        with pytest.raises(ValueError, match="GPU"):
            DMCConfig().learners(num_learners=2, num_gpus_per_learner=1).validate()
    with pytest.raises(ValueError, match="bidding"):
        DMCConfig().game("doudizhu", bidding=True).validate()


def test_mismatched_or_corrupt_checkpoint_is_refused(ray_local, tmp_path):
    algo = small_config(q_model="mlp").build_algo()
    try:
        algo.train()
        path = algo.save_to_path(str(tmp_path / "mlp"))
    finally:
        algo.stop()
    other = small_config(q_model="douzero_lstm").build_algo()
    try:
        with pytest.raises(ValueError, match="q_model: checkpoint has 'mlp', this config has 'douzero_lstm'"):
            other.restore_from_path(path)
        with pytest.raises(ValueError, match="game: checkpoint has 'big2'"):
            other.set_state({"dmc_counters": {**other.get_state()["dmc_counters"], "game": "big2"}})
        (tmp_path / "broken").mkdir()
        (tmp_path / "broken" / "algorithm_state.pkl").write_bytes(b"not a pickle")
        with pytest.raises(ValueError, match="corrupt"):
            other.restore_from_path(str(tmp_path / "broken"))
        with pytest.raises(FileNotFoundError):
            other.restore_from_path(str(tmp_path / "missing"))
    finally:
        other.stop()


def test_remote_learner_trains_and_gives_modules_for_play(ray_local):
    algo = small_config().learners(num_learners=1).build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert not algo.learner_group.is_local
        assert all(math.isfinite(result["learners"][role]["q_loss"]) for role in ROLES)
        modules = algo.q_modules()
        assert set(modules) == set(ROLES)
        agent, obs, actions = _observations(1)[0]
        assert _q(modules[agent], obs, actions, agent).shape == (len(actions),)
    finally:
        algo.stop()


def test_runner_labels_a_deal_the_landlord_wins_in_one_move():
    """The peasants never moved: every seat still gets its return, the landlord's frame its target."""
    from collections import defaultdict

    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
    from cardrl.cards import string_to_rank_counts

    runner = DMCEnvRunner(config=small_config(), worker_index=1)
    env = runner.envs[0]
    runner._reset(0)
    env.game.hands[0] = string_to_rank_counts("3334445556667779TJQK")  # a 20-card plane with solos
    env._legal = None
    move = env.table.id_of("3334445556667779TJQK")
    assert move in env.legal_moves()
    runner._trajectories[0]["landlord"].append((env.observation_vector("landlord"), env.action_features([move])[0]))
    out = defaultdict(lambda: defaultdict(list))
    assert runner._step(0, "landlord", move, out) == 1
    assert runner._episode_returns[-1] == {"landlord": 2.0, "landlord_down": -1.0, "landlord_up": -1.0}
    assert out["landlord"]["target"][0].tolist() == [1.0]  # DouZero's per-side target: 2 x 0.5
    assert "landlord_down" not in out
    runner.stop()


def test_tune_sweep_example_runs_trials(ray_local, tmp_path, capsys):
    """experiments/tune_dmc_lr.py: DMC as a Tune Trainable, a grid over the learning rate."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / "tune_dmc_lr.py"
    spec = importlib.util.spec_from_file_location("tune_dmc_lr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rc = module.main(["--frames", "300", "--num-env-runners", "0", "--num-envs-per-env-runner", "4",
                      "--frames-per-update", "100", "--lr", "1e-4", "1e-3", "--storage", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "lr 0.0001 epsilon 0.01: frames 300" in out and "lr 0.001 epsilon 0.01: frames 300" in out
