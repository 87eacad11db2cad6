"""The PettingZoo env doudizhu_v0 and its RLlib adapter."""

import numpy as np
import pytest

from cardrl.envs import doudizhu_v0
from cardrl.envs import make_env
from cardrl.envs.rllib import RLlibMultiAgentEnv, register_cardrl_envs
from cardrl.games.doudizhu import IllegalMoveError
from helpers.aec_play import play_random, snapshot
from helpers.rllib_episode import play_random_episode


def test_spaces_and_observation_layout():
    env = doudizhu_v0.env()
    env.reset(seed=3)
    assert env.possible_agents == ["landlord", "landlord_down", "landlord_up"]
    assert env.action_space("landlord").n == 27472
    assert env.observation_space("landlord")["observation"].shape == (319 + 810,)
    assert env.observation_space("landlord_up")["observation"].shape == (430 + 810,)
    obs, reward, term, trunc, info = env.last()
    assert env.agent_selection == "landlord" and info["role"] == "landlord"
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask[env.unwrapped.table.pass_id] == 0  # the leader may not pass
    assert set(np.flatnonzero(mask)) == set(env.unwrapped.legal_moves())
    # the first 54 state entries are the landlord's 20 cards
    assert obs["observation"][:54].sum() == 20


@pytest.mark.parametrize("reward", ["adp", "wp"])
def test_rewards_are_the_game_payoffs(reward):
    env = doudizhu_v0.env(reward=reward)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        total = play_random(env, rng)
        payoffs = env.unwrapped.game.payoffs(reward)
        assert [total[a] for a in env.possible_agents] == payoffs.tolist()
        assert sum(total.values()) == 0 and total["landlord"] != 0


def test_bad_actions_raise_clear_errors_and_change_nothing():
    """DouDiZhu's own refusals; bad types and ids out of range: test_env_contract.py."""
    env = doudizhu_v0.env()
    env.reset(seed=5)
    before = snapshot(env)
    table = env.unwrapped.table
    with pytest.raises(IllegalMoveError, match="may not pass"):
        env.step(table.pass_id)
    with pytest.raises(IllegalMoveError, match="out of range: move ids are 0..27471"):
        env.step(27472)
    not_held = next(i for i in range(len(table)) if not env.unwrapped.game.is_legal(i) and i != table.pass_id)
    with pytest.raises(IllegalMoveError, match="does not hold"):
        env.step(not_held)
    assert snapshot(env) == before
    env.step(int(env.unwrapped.legal_moves()[0]))  # still playable after the rejections


def test_follow_that_does_not_beat_is_rejected():
    env = doudizhu_v0.env()
    env.reset(seed=11)
    table, game = env.unwrapped.table, env.unwrapped.game
    game.hands[0, :] = 0
    game.hands[0, [12, 0]] = [1, 1]  # the landlord holds a 2 and a 3
    game.hands[1, 0] = max(game.hands[1, 0], 1)  # landlord_down holds a 3
    env.unwrapped._legal = None
    env.step(table.id_of("2"))
    before = snapshot(env)
    with pytest.raises(IllegalMoveError, match="does not beat"):
        env.step(table.id_of("3"))
    assert snapshot(env) == before


def test_bad_options():
    with pytest.raises(ValueError, match="reward"):
        doudizhu_v0.env(reward="points")
    with pytest.raises(ValueError, match="kickers"):
        doudizhu_v0.env(kickers="any")


def test_ansi_render_shows_hands_and_trick():
    env = doudizhu_v0.env(render_mode="ansi")
    env.reset(seed=4)
    env.step(int(env.unwrapped.legal_moves()[0]))
    text = env.render()
    for role in ("landlord", "landlord_down", "landlord_up"):
        assert role in text
    assert "to beat:" in text and "[19]" in text


def test_bidding_env_roles_and_actions():
    env = doudizhu_v0.env(bidding=True)
    env.reset(seed=8)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    n = env.unwrapped.game.num_moves
    obs, *_ = env.last()
    assert set(np.flatnonzero(obs["action_mask"])) == {n, n + 1, n + 2, n + 3}
    assert obs["observation"][0] == 1.0  # in bidding
    env.step(n + 3)  # bid 3 ends the bidding
    _, _, _, _, info = env.last()
    assert info["role"] == "landlord" and env.unwrapped.game.bid == 3


def test_rllib_adapter_plays_whole_deals():
    env = RLlibMultiAgentEnv(make_env("doudizhu_v0"))
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, infos = env.reset(seed=seed)
        assert list(obs) == ["landlord"]
        rewards = play_random_episode(env, obs, rng)
        assert sum(rewards.values()) == 0 and rewards["landlord"] != 0


def test_rllib_env_runner_samples_our_env(ray_local):
    """RLlib's own MultiAgentEnvRunner steps the registered env with a masked module."""
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    class UniformLegal(TorchRLModule):
        def setup(self):
            self.dummy = torch.nn.Parameter(torch.zeros(1))

        def _forward(self, batch, **kwargs):
            mask = batch["obs"]["action_mask"].float()
            return {"action_dist_inputs": torch.where(mask > 0, 0.0, -1e9) + self.dummy}

    name = register_cardrl_envs()[0]
    spec = MultiRLModuleSpec(rl_module_specs={a: RLModuleSpec(module_class=UniformLegal)
                                              for a in ("landlord", "landlord_down", "landlord_up")})
    config = (PPOConfig().environment(name, disable_env_checking=True)
              .multi_agent(policies={"landlord", "landlord_down", "landlord_up"},
                           policy_mapping_fn=lambda agent_id, episode, **kw: agent_id)
              .rl_module(rl_module_spec=spec)
              .env_runners(num_envs_per_env_runner=1, episodes_to_numpy=False))
    runner = MultiAgentEnvRunner(config=config)
    episodes = runner.sample(num_episodes=3, random_actions=False)
    assert len(episodes) == 3
    for ep in episodes:
        assert ep.is_done
        returns = {a: sa.get_return() for a, sa in ep.agent_episodes.items()}
        assert set(returns) == {"landlord", "landlord_down", "landlord_up"}
        assert sum(returns.values()) == 0 and returns["landlord"] != 0
    runner.stop()
