"""RLlib adapter: any cardrl PettingZoo AEC env as a turn-based ``ray.rllib`` ``MultiAgentEnv``.

Only the agent to move receives an observation each step; rewards earned by the others are reported with
the next step (RLlib keeps them until that agent acts again); when the deal ends every agent gets its reward
and a final observation, and ``terminateds["__all__"]`` is True (docs/architecture.md, layer 7).

Register it under a name with :func:`register_cardrl_envs`, e.g.
``config.environment("cardrl/doudizhu_v0", env_config={"reward": "wp"}, disable_env_checking=True)``
(RLlib's env pre-check steps with unmasked random actions, so it must be disabled for masked envs).
"""

from __future__ import annotations

from pettingzoo import AECEnv
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardrl.envs import make_env
from cardrl.games.registry import game_names, get_game


class RLlibMultiAgentEnv(MultiAgentEnv):
    """Turn-based RLlib view of a cardrl AEC env (see the module docstring)."""

    def __init__(self, aec_env: AECEnv):
        super().__init__()
        self.aec = aec_env
        self.possible_agents = list(aec_env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: aec_env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: aec_env.action_space(a) for a in self.possible_agents}
        self._pending = dict.fromkeys(self.possible_agents, 0.0)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        agent = self.aec.agent_selection
        return {agent: self.aec.observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def step(self, action_dict: dict):
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"it is {agent}'s turn; got actions for {sorted(action_dict)}")
        self.aec.step(action_dict[agent])
        for a in self.possible_agents:
            self._pending[a] += float(self.aec.rewards.get(a, 0.0))
        if all(self.aec.terminations.values()) or all(self.aec.truncations.values()):
            obs = {a: self.aec.observe(a) for a in self.possible_agents}
            rewards = {a: self._pending[a] for a in self.possible_agents}
            infos = {a: dict(self.aec.infos.get(a, {})) for a in self.possible_agents}
            terminated = all(self.aec.terminations.values())
            done = dict.fromkeys(self.possible_agents, True)
            self.agents = []
            return (obs, rewards, {**done, "__all__": terminated}, {**done, "__all__": not terminated}, infos)
        nxt = self.aec.agent_selection
        rewards = {nxt: self._pending[nxt]}
        self._pending[nxt] = 0.0
        return ({nxt: self.aec.observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: dict(self.aec.infos[nxt])})


def register_cardrl_envs() -> list[str]:
    """Register the env of every registered game with Ray Tune as ``cardrl/<env_name>`` (e.g.
    ``cardrl/doudizhu_v0``); returns the registered names."""
    from ray.tune.registry import register_env

    names = []
    for game in game_names():
        name = get_game(game).env_name
        register_env(f"cardrl/{name}", lambda cfg, _g=game: RLlibMultiAgentEnv(make_env(_g, **dict(cfg or {}))))
        names.append(f"cardrl/{name}")
    return names
