"""Test helper: one episode of uniformly random legal moves through the RLlib multi-agent adapter."""

import numpy as np


def play_random_episode(env, obs: dict, rng: np.random.Generator) -> dict[str, float]:
    """Play on from ``obs`` (what ``env.reset`` returned) to the episode's end, one agent observed at a time
    (checked); returns each agent's summed rewards."""
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    while True:
        (agent, ob), = obs.items()
        action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, rew, term, _trunc, _infos = env.step({agent: action})
        for a, r in rew.items():
            rewards[a] += r
        if term["__all__"]:
            return rewards
        assert len(obs) == 1
