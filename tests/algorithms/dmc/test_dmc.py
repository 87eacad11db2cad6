"""DMC on RLlib with a real local Ray: build, train, checkpoint, restore, resume, play; bad input."""

import math
from functools import partial

import numpy as np
import pytest
import torch
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_rl_module import DouZeroQModule, MLPQModule
from cardrl.envs import make_env
from helpers.dmc_configs import small_dmc_config

ROLES = ("landlord", "landlord_down", "landlord_up")


small_config = partial(small_dmc_config, q_model="douzero_lstm")


def _observations(n=6, seed=0):
    """(agent, obs, legal action features) of a few real positions."""
    env = make_env("doudizhu")
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
    features = make_env("doudizhu").features
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


def test_queued_sample_requests_train_within_their_bound(ray_local):
    """--sample-requests-in-flight: RLlib's max_requests_in_flight_per_env_runner; DMC's runners keep no connector
    state, so RLlib's per-iteration merge and broadcast of it (a blocking call behind the queue) is off."""
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.algorithms.training.run_spec import RunSpec

    flags = build_config(RunSpec.from_flags("doudizhu", ["--sample-requests-in-flight", "3"]), say=lambda *_: None)
    assert flags.max_requests_in_flight_per_env_runner == 3
    config = small_config(num_env_runners=1, q_model="mlp").env_runners(max_requests_in_flight_per_env_runner=3)
    assert config.merge_env_runner_states is False and config.broadcast_env_runner_states is False
    algo = config.build_algo()
    try:
        queued = []
        for _ in range(6):
            result = algo.train()
            queued.append(max(algo._in_flight.values()))
        assert 1 <= max(queued) <= 3 and result["frames_trained"] >= 6 * 128 and result["weight_lag"] >= 0
    finally:
        algo.stop()


def test_bad_configs_fail_fast_with_clear_messages():
    with pytest.raises(ValueError, match="game 'chess' is unknown; available: \\['big2', 'doudizhu', 'guandan'\\]"):
        DMCConfig().game("chess").validate()
    with pytest.raises(ValueError, match="q_model='transformer' is unknown; allowed: None, 'douzero_lstm', 'luo_tan', 'mlp'"):
        DMCConfig().training(q_model="transformer").validate()
    with pytest.raises(ValueError, match="epsilon"):
        DMCConfig().training(epsilon=1.5).validate()
    if torch.cuda.device_count() == 0:
        with pytest.raises(ValueError, match="GPU"):
            DMCConfig().learners(num_learners=2, num_gpus_per_learner=1).validate()
    with pytest.raises(ValueError, match="bidding=True: big2 has no bidding phase"):
        DMCConfig().game("big2", bidding=True).validate()


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
    runner._labels[0].add("landlord", (env.observation_vector("landlord"), env.action_features([move])[0], 0.0, {},
                                       "landlord"))
    out = defaultdict(lambda: defaultdict(list))
    assert runner._step(0, "landlord", move, out) == 1
    assert runner._episode_returns[-1] == {"landlord": 2.0, "landlord_down": -1.0, "landlord_up": -1.0}
    assert out["landlord"]["target"][0].tolist() == [1.0]  # DouZero's per-side target: 2 x 0.5
    assert "landlord_down" not in out
    runner.stop()


def test_q_model_defaults_per_game_and_a_contradiction_is_refused():
    assert DMCConfig().game("doudizhu").q_model == "douzero_lstm"
    assert DMCConfig().game("big2").q_model == "luo_tan"  # the unified features' default (Luo & Tan, Table 3)
    assert DMCConfig().game("guandan").q_model == "mlp"
    assert DMCConfig().training(q_model="mlp").game("doudizhu").q_model == "mlp"  # the user's choice stays
    with pytest.raises(ValueError, match="q_model='douzero_lstm' needs move-history features; guandan's danzero_v1 features have none"):
        DMCConfig().training(q_model="douzero_lstm").game("guandan").validate()


def test_odmc_config_errors_name_what_is_allowed():
    with pytest.raises(ValueError, match="prune='alpha-beta' is unknown; allowed: None, 'mcs'"):
        DMCConfig().training(prune="alpha-beta").validate()
    with pytest.raises(ValueError, match="prune_slack='wide' must be 'paper' or a number"):
        DMCConfig().training(prune="mcs", prune_slack="wide").validate()
    with pytest.raises(ValueError, match="slack must be 'paper'.* or a number >= 0, got -1"):
        DMCConfig().training(prune="mcs", prune_slack=-1).validate()
    with pytest.raises(ValueError, match="prune_extra=-1 must be a finite number >= 0"):
        DMCConfig().training(prune="mcs", prune_extra=-1).validate()
    with pytest.raises(ValueError, match="prune is None"):
        DMCConfig().training(prune_slack=3.0).validate()
    DMCConfig().training(prune="mcs", prune_slack=2.0).validate()


def test_odmc_runner_chooses_only_among_kept_moves(monkeypatch):
    """With prune='mcs' every chosen move is in the set kept by eq. 2, and the runner reports its pruning counts."""
    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

    from cardrl.search.prune import prune_moves

    runner = DMCEnvRunner(config=small_config(prune="mcs", prune_slack=0.0, epsilon=1.0), worker_index=1)
    chosen_outside = []
    original_step = runner._step

    def checked_step(i, agent, action, out):
        env = runner.envs[i]
        kept = prune_moves(env.unwrapped.game, env.legal_moves(), slack=0.0)
        if action not in kept:
            chosen_outside.append(action)
        return original_step(i, agent, action, out)

    monkeypatch.setattr(runner, "_step", checked_step)
    result = runner.sample(num_frames=200)
    assert result["frames"] >= 200
    legal_seen, kept = result["pruning"]
    assert legal_seen > kept > 0  # slack 0 prunes, and never everything
    assert not chosen_outside
    runner.stop()


def test_odmc_trains_and_reports_pruning_ratio(ray_local):
    algo = small_config(prune="mcs").build_algo()
    try:
        result = algo.train()
        assert 0.0 < result["pruning_ratio"] < 1.0
    finally:
        algo.stop()


def test_guandan_odmc_runner_prunes_card_plays_only():
    """ODMC on GuanDan (beyond the paper): the runner prunes card plays by the exact wild-card K, never the tribute
    decisions, and every chosen move is one eq. 2 keeps."""
    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
    from cardrl.games.guandan.table import NUM_SPECIAL

    from cardrl.search.prune import prune_moves

    config = (DMCConfig().game("guandan", max_deals=2, tribute_decisions=True)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=100)
              .training(q_model="mlp", frames_per_update=128, prune="mcs", prune_slack=1.0, epsilon=1.0)
              .debugging(seed=3))
    config.validate()
    runner = DMCEnvRunner(config=config, worker_index=1)
    outside, plays = [], 0
    original_step = runner._step

    def checked_step(i, agent, action, out):
        nonlocal plays
        env = runner.envs[i]
        legal = env.legal_moves()
        kept = prune_moves(env.unwrapped.game, legal, slack=1.0)
        if legal.min() < NUM_SPECIAL:
            assert kept.tolist() == legal.tolist()
        else:
            plays += 1
        if action not in kept:
            outside.append(action)
        return original_step(i, agent, action, out)

    runner._step = checked_step
    result = runner.sample(num_frames=300)
    legal_seen, kept = result["pruning"]
    assert plays > 0 and legal_seen > kept > 0 and not outside
    runner.stop()


def test_big2_trains_one_shared_network_checkpoints_and_restores(ray_local, tmp_path):
    """Big2 DMC: every seat maps to one shared Q-network (identity bits in the unified features tell them apart)."""
    from cardrl.algorithms.common.policy_mapping import one_shared_module
    from cardrl.algorithms.dmc.dmc import DMC

    config = (DMCConfig().game("big2")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=100)
              .training(q_model="douzero_lstm", frames_per_update=128)
              .debugging(seed=3))
    assert config.policy_mapping_fn is one_shared_module
    algo = config.build_algo()
    try:
        result = algo.train()
        assert result["frames_trained"] >= 128
        modules = algo.q_modules()
        assert set(modules) == {"west", "south", "east", "north"} and len({id(m) for m in modules.values()}) == 1
        path = algo.save_to_path(str(tmp_path / "ckpt"))
        before = {k: v.clone() for k, v in modules["west"].state_dict().items()}
    finally:
        algo.stop()
    restored = DMC.from_checkpoint(path)
    try:
        after = restored.q_modules()["north"].state_dict()
        assert all(torch.equal(before[k], after[k]) for k in before)
    finally:
        restored.stop()


def test_deprecated_actor_q_clip_becomes_admc_and_trains(ray_local):
    """``actor_q_clip=lambda`` (our earlier reading of DanZero) now means OADMCDou's ratio clip with gamma=lambda."""
    with pytest.warns(DeprecationWarning, match="q_clip='admc', admc_gamma=0.65"):
        config = small_config(actor_q_clip=0.65)
    assert (config.q_clip, config.admc_gamma) == ("admc", 0.65)
    with pytest.raises(ValueError, match=r"admc_gamma=-1 must be a number in \(0, 1\)"):
        with pytest.warns(DeprecationWarning):
            DMCConfig().training(actor_q_clip=-1).validate()
    algo = config.build_algo()
    try:
        result = algo.train()
        assert all(np.isfinite(float(s["q_loss"])) for m, s in result["learners"].items() if m in ROLES)
    finally:
        algo.stop()


def test_guandan_dmc_labels_each_deal_with_its_points_and_trains(ray_local):
    """DanZero's setting: one shared 4x512 tanh MLP, actor-Q clip; a match is an episode and each deal's frames get
    that deal's points (+-3/2/1), so targets are deal points, never a whole match's sum."""
    from collections import defaultdict

    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

    config = (DMCConfig().game("guandan", max_deals=3)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=100)
              .training(q_model="mlp", lr=1e-3, frames_per_update=128, q_clip="admc", admc_gamma=0.65)
              .debugging(seed=5))
    runner = DMCEnvRunner(config=config, worker_index=1)
    out = defaultdict(lambda: defaultdict(list))
    frames = 0
    while frames < 600:
        frames += runner._tick(out)
    targets = np.concatenate(out["shared"]["target"])
    assert set(np.unique(targets)) <= {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}
    obs = np.concatenate(out["shared"]["obs"])
    assert obs.shape[1] == 513 and obs.dtype == np.int8 and obs.min() >= -1
    runner.stop()
    algo = config.build_algo()
    try:
        result = algo.train()
        assert result["frames_trained"] >= 128 and np.isfinite(float(result["learners"]["shared"]["q_loss"]))
    finally:
        algo.stop()


def test_big2_checkpoint_agent_plays_tournaments_and_refuses_other_games(ray_local, tmp_path):
    """A Big2 DMC checkpoint is a `checkpoint:PATH` agent of cardrl eval (one shared module for every seat); it
    plays every seat, agrees with the trained module's Q-values, and a DouDiZhu deal set refuses it."""
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.agents import build_agent
    from cardrl.eval.tournament import run_tournament
    from cardrl.games.big2 import Big2Game

    config = (DMCConfig().game("big2")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=100)
              .training(frames_per_update=128).debugging(seed=4))
    algo = config.build_algo()
    try:
        algo.train()
        path = algo.save_to_path(str(tmp_path / "big2_ckpt"))
        trained = algo.q_modules()["west"]
    finally:
        algo.stop()
    agent = build_agent(f"checkpoint:{path}", "big2")
    assert isinstance(agent, QAgent) and len({id(m) for m in agent.modules.values()}) == 1
    game = Big2Game().reset(8)
    view, legal = game.view(game.current_player), game.legal_moves()
    features = agent.features
    state, history = features.split(features.encode(game, game.current_player))
    expected = trained.q_values(state, history, features.action_features(game, legal)).numpy()
    np.testing.assert_allclose(agent.q_values(view, legal), expected, rtol=1e-5, atol=1e-6)
    result = run_tournament(f"checkpoint:{path}", "random", 6, game="big2", seed=1)
    assert result.scores.shape == (6, 4)
    with pytest.raises(ValueError, match="trained on 'big2_v0', not on 'doudizhu'"):
        build_agent(f"checkpoint:{path}", "doudizhu")


def test_guandan_checkpoint_agent_plays_whole_matches(ray_local, tmp_path):
    from cardrl.agents import RandomAgent
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import run_matches

    config = (DMCConfig().game("guandan", max_deals=2)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=100)
              .training(q_model="mlp", frames_per_update=128).debugging(seed=6))
    algo = config.build_algo()
    try:
        algo.train()
        path = algo.save_to_path(str(tmp_path / "gd_ckpt"))
    finally:
        algo.stop()
    agent = build_agent(f"checkpoint:{path}", "guandan")
    assert isinstance(agent, QAgent) and len({id(m) for m in agent.modules.values()}) == 1
    result = run_matches(agent, RandomAgent(3), 1, seed=2, game="guandan", max_deals=1)
    assert result.games == 2
    with pytest.raises(ValueError, match="trained on 'guandan_v0', not on 'big2'"):
        build_agent(f"checkpoint:{path}", "big2")
