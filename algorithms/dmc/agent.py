"""Play with trained DMC Q-networks: greedy agents, and a quick evaluation against the random agent."""

from __future__ import annotations

import numpy as np
import torch

from cardrl.envs.rllib import make_aec_env


class DMCGreedyAgent:
    """Plays the legal move with the highest Q-value (DouZero's greedy policy at evaluation time).

    ``modules`` maps an env agent (seat name) to its Q-module (a ``_DMCQModule``); ``features`` is the env's
    feature encoder, used to split the flat observation into state and history.
    """

    def __init__(self, modules: dict, features):
        self.modules = modules
        self.features = features

    @torch.no_grad()
    def act(self, env, agent: str) -> int:
        raw = env.unwrapped
        legal = raw.legal_moves()
        if len(legal) == 1:
            return int(legal[0])
        obs = raw.observe(agent)["observation"]
        state, history = self.features.split(obs, raw.game.role(raw._seat(agent)))
        q = self.modules[agent].q_values(state, history, raw.action_features(legal))
        return int(legal[int(torch.argmax(q))])


def evaluate_vs_random(modules: dict, game: str = "doudizhu", deals: int = 200, seed: int = 0,
                       env_config: dict | None = None) -> dict[str, float]:
    """Mean ADP of the trained side against random play: as landlord, and as the two peasants, same deals.

    Returns ``{"landlord": mean landlord payoff when the trained module plays landlord, "peasants": mean
    payoff of the two trained peasants together, "adp": their average}``.
    """
    env = make_aec_env(game, **dict(env_config or {}))
    greedy = DMCGreedyAgent(modules, env.features)
    rng = np.random.default_rng(seed)
    totals = {"landlord": 0.0, "peasants": 0.0}
    for d in range(deals):
        for side in ("landlord", "peasants"):
            env.reset(seed=seed * 1_000_003 + d)
            trained = {"landlord"} if side == "landlord" else {"landlord_down", "landlord_up"}
            while not env.game.is_over:
                agent = env.agent_selection
                if agent in trained:
                    action = greedy.act(env, agent)
                else:
                    legal = env.legal_moves()
                    action = int(legal[rng.integers(len(legal))])
                env.step(action)
            payoffs = env.game.payoffs("adp")
            totals[side] += payoffs[0] if side == "landlord" else payoffs[1] + payoffs[2]
    out = {k: v / deals for k, v in totals.items()}
    out["adp"] = (out["landlord"] + out["peasants"]) / 2
    return out
