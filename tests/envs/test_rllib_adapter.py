"""The RLlib adapter (cardrl.envs.rllib) speaks RLlib's convention for masked observations, so that RLlib's own
action-masking example module trains on every game, as experiments/rllib_action_masking.py does."""

import importlib.util
import math
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from cardrl.envs import make_env
from cardrl.envs.rllib import RLlibMultiAgentEnv, register_cardrl_envs

GAMES = {"doudizhu": {}, "big2": {}, "guandan": {"match": False}}
SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "rllib_action_masking.py"


def _script():
    spec = importlib.util.spec_from_file_location("rllib_action_masking", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", sorted(GAMES))
def test_observations_follow_rllibs_convention(game):
    """``Dict(observations=Box(D), action_mask=Box(0.0, 1.0, (N,), float32))`` (the layout RLlib's
    ActionMaskingTorchRLModule reads), 1.0 exactly at the legal ids; the PettingZoo env keeps its own layout."""
    aec = make_env(game, **GAMES[game])
    env = RLlibMultiAgentEnv(aec)
    obs, _ = env.reset(seed=3)
    (agent, ob), = obs.items()
    space = env.observation_spaces[agent]
    assert set(space.spaces) == {"observations", "action_mask"}
    mask_space = space["action_mask"]
    assert mask_space.dtype == np.float32 and mask_space.shape == (env.action_spaces[agent].n,)
    assert float(mask_space.low.min()) == 0.0 and float(mask_space.high.max()) == 1.0
    assert set(ob) == {"observations", "action_mask"} and ob["action_mask"].dtype == np.float32
    assert space.contains(ob)
    pz = aec.observe(agent)
    assert set(pz) == {"observation", "action_mask"} and pz["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(ob["observations"], pz["observation"])
    legal = np.asarray(aec.legal_moves())
    assert np.array_equal(np.flatnonzero(ob["action_mask"]), np.sort(legal))
    assert set(np.unique(ob["action_mask"]).tolist()) == {0.0, 1.0}
    action = int(legal[0])
    obs, *_ = env.step({agent: action})
    assert all(space.contains(o) for a, o in obs.items() for space in [env.observation_spaces[a]])


def test_the_mask_dtype_is_an_option_of_the_registered_env():
    """``action_mask_dtype="int8"`` (a quarter of the memory per step; cardrl's own PPO asks for it unless told
    otherwise) through the registered env's env_config; the other keys still reach the game; a wrong value is refused
    with what is allowed."""
    from ray.tune.registry import ENV_CREATOR, _global_registry

    register_cardrl_envs()
    creator = _global_registry.get(ENV_CREATOR, "cardrl/big2_v0")
    env = creator({"straight_order": "low", "action_mask_dtype": "int8"})
    obs, _ = env.reset(seed=0)
    (ob,) = obs.values()
    assert env.aec.game.straight_order == "low"
    assert ob["action_mask"].dtype == np.int8 and env.observation_spaces["west"]["action_mask"].dtype == np.int8
    with pytest.raises(ValueError, match=r"action_mask_dtype.*'float32'.*'int8'"):
        RLlibMultiAgentEnv(make_env("big2"), action_mask_dtype="bool")
    from cardrl.algorithms.masked_ppo.masked_ppo import masked_ppo_config

    assert masked_ppo_config("big2").env_config == {"action_mask_dtype": "int8"}
    assert masked_ppo_config("big2", {"action_mask_dtype": "float32"}).env_config["action_mask_dtype"] == "float32"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rllib_ppo_with_rllibs_action_masking_module_trains_on_each_game(game, ray_local, capsys):
    """experiments/rllib_action_masking.py as a user runs it (tiny sizes): RLlib's PPO with RLlib's own
    ActionMaskingTorchRLModule builds and trains one iteration on the game (an illegal action would raise in the env);
    the policy loss is finite and freshly sampled actions lie in their masks."""
    script = _script()
    assert script.main([game, "--env-config", str(GAMES[game]).replace("False", "false").replace("'", '"'),
                        "--hidden", "8", "--train-batch-size", "32", "--minibatch-size", "32", "--num-epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert "iteration 1:" in out
    algo = (script.ppo_config(game, GAMES[game], hidden=8, train_batch_size=32, num_epochs=1)
            .env_runners(rollout_fragment_length=32).debugging(seed=1)).build_algo()
    try:
        result = algo.train()
        losses = [float(s["policy_loss"]) for s in result["learners"].values() if "policy_loss" in s]
        assert losses and all(math.isfinite(v) for v in losses)
        checked = 0
        for episode in algo.env_runner.sample(num_timesteps=20, random_actions=False):
            for single in episode.agent_episodes.values():
                for t, action in enumerate(single.get_actions()):
                    assert single.get_observations(t)["action_mask"][action] == 1.0
                    checked += 1
        assert checked >= 20
    finally:
        algo.stop()


def test_a_masked_ppo_module_saved_with_the_old_layout_still_loads_and_plays(tmp_path):
    """Masked-PPO checkpoints written before the adapter followed RLlib's convention (``Dict(observation,
    action_mask)`` with an int8 mask) rebuild from their saved spaces and play as ``ppo:`` agents do."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from cardrl.algorithms.masked_ppo.agent_loaders import MaskedPPOAgent
    from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import MaskedActionEmbeddingModule
    from cardrl.eval.tournament import run_tournament

    aec = make_env("big2")
    old = gym.spaces.Dict({"observation": aec.observation_space("west")["observation"],
                           "action_mask": gym.spaces.Box(0, 1, (aec.action_space("west").n,), np.int8)})
    module = MaskedActionEmbeddingModule(observation_space=old, action_space=aec.action_space("west"),
                                         model_config={"hidden_sizes": (8,), "embedding_dim": 4})
    module.save_to_path(str(tmp_path / "shared"))
    loaded = RLModule.from_checkpoint(str(tmp_path / "shared"))
    agent = MaskedPPOAgent({a: loaded for a in aec.possible_agents}, "big2")
    result = run_tournament(agent, "random", 2, game="big2")
    assert len(result.scores) == 2


@pytest.mark.slow
def test_the_readmes_rllib_script_runs_as_printed(tmp_path):
    """The RLlib snippet of docs/usage.md (the README links it) is a complete script: run verbatim in a fresh
    interpreter, it trains two iterations of RLlib's PPO with RLlib's own action-masking module on Big2 (about 30 s)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "ActionMaskingTorchRLModule" in b]
    assert len(blocks) == 1, "docs/usage.md has one RLlib script"
    script = tmp_path / "readme_rllib.py"
    script.write_text(blocks[0])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"iteration 2: \d+ steps, policy loss [+-]\d", done.stdout), done.stdout
