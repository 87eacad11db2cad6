"""RLlib adapter: any cardrl PettingZoo AEC env as a turn-based ``ray.rllib`` ``MultiAgentEnv``.

Only the agent to move receives an observation each step; rewards earned by the others are reported with
the next step (RLlib keeps them until that agent acts again); when the deal ends every agent gets its reward
and a final observation, and ``terminateds["__all__"]`` is True (docs/architecture.md, layer 7).

Observations follow RLlib's convention for masked actions (the layout of RLlib's own
``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``):
``Dict(observations=Box(D, float32), action_mask=Box(0.0, 1.0, (N,), float32))``, 1.0 for a legal action and 0.0
for an illegal one (all zeros in the final observation of an agent not to move). The PettingZoo envs keep
PettingZoo's layout, ``Dict(observation, action_mask=int8)``. ``action_mask_dtype="int8"`` keeps the mask in int8:
a quarter of the memory per stored step (GuanDan: 135 KB instead of 540 KB); modules that read the mask as 0/1 values
(e.g. ``torch.log(mask)`` or ``mask.bool()``) work with either.

Register it under a name with :func:`register_cardrl_envs`, e.g.
``config.environment("cardrl/doudizhu_v0", env_config={"reward": "wp"}, disable_env_checking=True)``
(RLlib's env pre-check steps with unmasked random actions, so it must be disabled for masked envs); the env_config
holds the env's options and, optionally, ``action_mask_dtype``. experiments/rllib_action_masking.py is a complete
script: RLlib's PPO with RLlib's action-masking module on any game.

``step`` takes a dict holding the action of the agent to move and nothing else; anything else (not a dict, another
agent's action, a step before ``reset`` or after the episode's end) raises an error naming what is allowed, and a
refused step changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardrl.envs import make_env
from cardrl.games.engine import GameOverError
from cardrl.games.registry import game_names, get_game

OBSERVATIONS = "observations"  # RLlib's key; PettingZoo's envs say "observation"
ACTION_MASK = "action_mask"
MASK_DTYPES = {"float32": np.float32, "int8": np.int8}


class RLlibMultiAgentEnv(MultiAgentEnv):
    """Turn-based RLlib view of a cardrl AEC env (see the module docstring)."""

    def __init__(self, aec_env: AECEnv, action_mask_dtype: str = "float32"):
        super().__init__()
        if action_mask_dtype not in MASK_DTYPES:
            raise ValueError(f"action_mask_dtype must be one of {list(MASK_DTYPES)} (RLlib's convention "
                             f"is 'float32'), got {action_mask_dtype!r}")
        self.aec = aec_env
        self.action_mask_dtype = action_mask_dtype
        self._mask_dtype = MASK_DTYPES[action_mask_dtype]
        self.possible_agents = list(aec_env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self._space(aec_env.observation_space(a)) for a in self.possible_agents}
        self.action_spaces = {a: aec_env.action_space(a) for a in self.possible_agents}
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._has_reset = False

    def _space(self, pz_space: spaces.Dict) -> spaces.Dict:
        """RLlib's layout of a PettingZoo ``Dict(observation, action_mask)`` space."""
        (num_actions,) = pz_space[ACTION_MASK].shape
        return spaces.Dict({OBSERVATIONS: pz_space["observation"],
                            ACTION_MASK: spaces.Box(0, 1, (num_actions,), self._mask_dtype)})

    def _observe(self, agent: str) -> dict[str, Any]:
        pz = self.aec.observe(agent)
        return {OBSERVATIONS: pz["observation"], ACTION_MASK: pz[ACTION_MASK].astype(self._mask_dtype, copy=False)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._has_reset = True
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def _agent_to_move(self, action_dict) -> str:
        """The agent whose action ``action_dict`` must hold (and hold alone), or the error that says what is wrong."""
        if not self._has_reset:
            raise RuntimeError("no deal yet: call reset() before step()")
        if not self.agents:
            raise GameOverError("the episode is over; call reset() to play again")
        agent = self.aec.agent_selection
        if not isinstance(action_dict, Mapping):
            raise TypeError(f"step() takes a dict {{agent: action}} with {agent}'s action, got "
                            f"{type(action_dict).__name__} {action_dict!r}")
        others = sorted(map(repr, set(action_dict) - {agent}))
        if agent not in action_dict or others:
            raise ValueError(f"it is {agent}'s turn: step() takes {agent}'s action alone; got actions for "
                             f"{sorted(map(repr, action_dict))}" + (f" ({', '.join(others)} not to move)" if others
                                                                    else ""))
        return agent

    def step(self, action_dict: dict):
        agent = self._agent_to_move(action_dict)
        self.aec.step(action_dict[agent])
        for a in self.possible_agents:
            self._pending[a] += float(self.aec.rewards.get(a, 0.0))
        if all(self.aec.terminations.values()) or all(self.aec.truncations.values()):
            obs = {a: self._observe(a) for a in self.possible_agents}
            rewards = {a: self._pending[a] for a in self.possible_agents}
            infos = {a: dict(self.aec.infos.get(a, {})) for a in self.possible_agents}
            terminated = all(self.aec.terminations.values())
            done = dict.fromkeys(self.possible_agents, True)
            self.agents = []
            return (obs, rewards, {**done, "__all__": terminated}, {**done, "__all__": not terminated}, infos)
        nxt = self.aec.agent_selection
        rewards = {nxt: self._pending[nxt]}
        self._pending[nxt] = 0.0
        return ({nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: dict(self.aec.infos[nxt])})


def register_cardrl_envs() -> list[str]:
    """Register the env of every registered game with Ray Tune as ``cardrl/<env_name>`` (e.g.
    ``cardrl/doudizhu_v0``); returns the registered names. The env_config is the game's env options plus, optionally,
    ``action_mask_dtype`` ("float32", RLlib's convention, or "int8")."""
    from ray.tune.registry import register_env

    names = []
    for game in game_names():
        name = get_game(game).env_name
        register_env(f"cardrl/{name}", lambda cfg, _g=game: _make_rllib_env(_g, cfg))
        names.append(f"cardrl/{name}")
    return names


def _make_rllib_env(game: str, env_config: dict | None) -> RLlibMultiAgentEnv:
    """The registered env: ``env_config`` is the env's options plus, optionally, ``action_mask_dtype``."""
    options = dict(env_config or {})
    mask_dtype = options.pop("action_mask_dtype", "float32")
    return RLlibMultiAgentEnv(make_env(game, **options), action_mask_dtype=mask_dtype)
