"""The PettingZoo env big2_v0, its RLlib adapter, and doudizhu_v0's unified-features option."""

import numpy as np
import pytest

from cardrl.envs import big2_v0, doudizhu_v0
from cardrl.envs import make_env
from cardrl.envs.rllib import RLlibMultiAgentEnv, register_cardrl_envs
from cardrl.games.registry import get_game
from cardrl.features.unified import UnifiedFeatures
from cardrl.games.big2 import IllegalMoveError
from cardrl.games.big2.moves import move_id
from helpers.aec_play import play_random, snapshot
from helpers.rllib_episode import play_random_episode


def test_spaces_and_first_observation():
    env = big2_v0.env()
    env.reset(seed=3)
    assert env.possible_agents == ["west", "south", "east", "north"]
    for agent in env.possible_agents:
        assert env.action_space(agent).n == 19899
        space = env.observation_space(agent)
        assert space["observation"].shape == (1404,) and space["action_mask"].shape == (19899,)
    game = env.unwrapped.game
    assert env.agent_selection == env.possible_agents[game.current_player]
    obs, reward, term, trunc, info = env.last()
    assert info["seat"] == game.current_player and reward == 0 and not term
    assert obs["observation"].dtype == np.float32 and obs["observation"][:52].sum() == 13
    assert obs["observation"][0] == 1.0  # the 3 of diamonds is in the opener's hand
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask[env.unwrapped.table.pass_id] == 0
    assert set(np.flatnonzero(mask)) == set(env.unwrapped.legal_moves())
    other = env.possible_agents[(game.current_player + 1) % 4]
    assert not env.observe(other)["action_mask"].any()
    expected = UnifiedFeatures().encode(game, (game.current_player + 1) % 4)
    assert np.array_equal(env.unwrapped.observation_vector(other), expected)
    assert np.array_equal(env.observe(other)["observation"], expected)


@pytest.mark.parametrize("penalty", [None, {10: 2, 13: 3}])
def test_rewards_are_the_payoffs_and_zero_sum(penalty):
    env = big2_v0.env(penalty_multipliers=penalty)
    rng = np.random.default_rng(0)
    for seed in range(12):
        env.reset(seed=seed)
        total = play_random(env, rng, check_mask=seed < 3)
        payoffs = env.unwrapped.game.payoffs()
        assert [total[a] for a in env.possible_agents] == payoffs.tolist()
        assert sum(total.values()) == 0 and max(total.values()) > 0
        assert total[env.possible_agents[env.unwrapped.game.winner]] == max(total.values())


def test_action_features_are_card_vectors():
    env = big2_v0.raw_env()
    env.reset(seed=1)
    legal = env.legal_moves()
    feats = env.action_features(legal)
    assert feats.shape == (len(legal), 54) and np.array_equal(feats, env.table.cards[legal])
    assert env.features.name == "luo_tan_v1"


def test_illegal_moves_name_the_agent_and_rule():
    env = big2_v0.env()
    env.reset(seed=5)
    agent, table = env.agent_selection, env.unwrapped.table
    before = snapshot(env)
    with pytest.raises(IllegalMoveError, match=f"{agent}: .*may not pass"):
        env.step(table.pass_id)
    with pytest.raises(IllegalMoveError, match="out of range: move ids are 0..19898"):
        env.step(19899)  # bad types and other ids out of range: test_env_contract.py
    with pytest.raises(TypeError, match="got str"):
        env.step("3d")
    hand = env.unwrapped.game.hand_bits(env.unwrapped.game.current_player)
    not_held = next(c for c in range(52) if not hand >> c & 1)
    with pytest.raises(IllegalMoveError, match="does not hold"):
        env.step(int(not_held))  # solo ids are the card ids
    holds = [c for c in range(1, 52) if hand >> c & 1]
    with pytest.raises(IllegalMoveError, match="3 of diamonds"):
        env.step(move_id(table, table.strings[holds[0]]))  # a held solo without the 3 of diamonds
    assert snapshot(env) == before


def test_follow_that_does_not_beat_is_rejected():
    env = big2_v0.env()
    env.reset(seed=5)
    env.step(0)  # "3d" (solo ids are the card ids)
    table, game = env.unwrapped.table, env.unwrapped.game
    pairs = [m for m in table.legal_moves(game.hand_bits(game.current_player), None) if table.length[m] == 2]
    assert pairs, "seed 5 should give the second player a pair"
    before = snapshot(env)
    with pytest.raises(IllegalMoveError, match=f"{env.agent_selection}: move {pairs[0]} .* does not beat the last "
                                               r"move 0 \(3d\)"):
        env.step(int(pairs[0]))
    assert snapshot(env) == before


def test_reset_options_name_the_rule_options():
    """Bad seeds and reset options change nothing: test_env_contract.py."""
    env = big2_v0.env()
    env.reset(seed=4)
    with pytest.raises(TypeError, match="reset options must be None or a dict.*straight_order"):
        env.reset(seed=1, options="low")


def test_bad_constructor_options():
    with pytest.raises(ValueError, match=r"straight_order='pagat'.*allowed"):
        big2_v0.env(straight_order="pagat")
    with pytest.raises(TypeError, match="open_with_three_diamonds"):
        big2_v0.env(open_with_three_diamonds="yes")
    with pytest.raises(ValueError, match="threshold"):
        big2_v0.env(penalty_multipliers={20: 2})
    with pytest.raises(TypeError):
        big2_v0.env(kickers="douzero")
    with pytest.raises(ValueError, match="unknown agent 'landlord'"):
        big2_v0.raw_env().observation_vector("landlord")


def test_options_reach_the_game():
    env = big2_v0.raw_env(straight_order="low", open_with_three_diamonds=False, penalty_multipliers={13: 3})
    env.reset(seed=0)
    g = env.game
    assert g.straight_order == "low" and not g.open_with_three_diamonds and g.penalty_multipliers == ((13, 3.0),)
    legal = env.legal_moves()
    assert (env.table.cards[legal, 0] == 0).any()  # the opener need not play the 3 of diamonds


def test_ansi_render_shows_suits_agents_and_trick():
    env = big2_v0.env(render_mode="ansi")
    env.reset(seed=4)
    env.step(int(env.unwrapped.legal_moves()[0]))
    text = env.render()
    for agent in ("west", "south", "east", "north"):
        assert agent in text
    assert "\u2666" in text and "to beat:" in text and "[12]" in text
    assert big2_v0.raw_env().render() is None  # no render_mode, before a deal


def test_rllib_adapter_plays_whole_deals():
    assert get_game("big2").env_name == "big2_v0" and get_game("doudizhu").env_name == "doudizhu_v0"
    env = RLlibMultiAgentEnv(make_env("big2", penalty_multipliers={10: 2}))
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, infos = env.reset(seed=seed)
        (first,) = obs
        assert first == env.possible_agents[env.aec.game.current_player]
        rewards = play_random_episode(env, obs, rng)
        assert sum(rewards.values()) == 0
        assert [rewards[a] for a in env.possible_agents] == env.aec.game.payoffs().tolist()


def test_registered_with_ray_tune():
    names = register_cardrl_envs()
    assert "cardrl/big2_v0" in names and "cardrl/doudizhu_v0" in names
    from ray.tune.registry import ENV_CREATOR, _global_registry

    creator = _global_registry.get(ENV_CREATOR, "cardrl/big2_v0")
    env = creator({"straight_order": "low"})
    obs, _ = env.reset(seed=0)
    assert env.aec.game.straight_order == "low" and next(iter(obs.values()))["observations"].shape == (1404,)


# ---- doudizhu_v0 with features="unified" ----------------------------------------------------------------------
@pytest.mark.parametrize("bidding", [False, True])
def test_doudizhu_unified_features_option(bidding):
    env = doudizhu_v0.env(features="unified", bidding=bidding)  # api_test: test_env_contract.py
    env.reset(seed=3)
    assert env.unwrapped.features.name == "luo_tan_v1"
    width = 1404 + (73 if bidding else 0)
    assert all(env.observation_space(a)["observation"].shape == (width,) for a in env.possible_agents)
    if not bidding:
        obs, *_ = env.last()
        assert np.array_equal(obs["observation"], UnifiedFeatures().encode(env.unwrapped.game, 0))
        assert obs["observation"][108:126].sum() == 0 and obs["observation"][126:142].sum() == 16  # landlord
    total = play_random(env, np.random.default_rng(0))
    assert sum(total.values()) == 0
    with pytest.raises(ValueError, match=r"features='bigzero' is unknown; allowed: \['douzero', 'unified'\]"):
        doudizhu_v0.env(features="bigzero")


def test_dmc_env_runner_samples_big2_with_unified_features():
    """The DMC EnvRunner plays Big2 unchanged: 1404-wide observations, 54-wide actions, zero-sum returns."""
    pytest.importorskip("torch")
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

    config = (DMCConfig().game("big2")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=40)
              .training(q_model="douzero_lstm", frames_per_update=64).debugging(seed=3))
    runner = DMCEnvRunner(config=config, worker_index=1)
    try:
        result = runner.sample(num_frames=40)
    finally:
        runner.stop()
    assert result["frames"] >= 40 and result["batch"]
    for cols in result["batch"].values():
        assert cols["obs"].shape[1:] == (1404,) and cols["action"].shape[1:] == (54,)
    for returns in result["episodes"]:
        assert sum(returns.values()) == 0
