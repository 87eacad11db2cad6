"""Batched evaluation of trained DMC Q-networks against a baseline agent (greedy play, sides swapped).

For single games and tournaments use :class:`cardrl.agents.dmc_agent.DMCAgent` with :mod:`cardrl.eval`; this module
plays many deals in lock-step so that each network scores all waiting positions in one forward pass, which is
what periodic evaluation during training needs.
"""

from __future__ import annotations

import numpy as np
import torch

from cardrl.algorithms.dmc.dmc_env_runner import score_legal_moves
from cardrl.envs.rllib import make_aec_env


def evaluate_vs_random(modules: dict, game: str = "doudizhu", deals: int = 200, seed: int = 0,
                       env_config: dict | None = None, batch: int = 64) -> dict[str, float]:
    """:func:`evaluate_against` the random agent."""
    from cardrl.agents import RandomAgent

    return evaluate_against(modules, RandomAgent(seed), game, deals, seed, env_config, batch)


def evaluate_against(modules: dict, baseline, game: str = "doudizhu", deals: int = 200, seed: int = 0,
                     env_config: dict | None = None, batch: int = 64) -> dict[str, float]:
    """Greedy Q-networks against a baseline :class:`~cardrl.agents.Agent` on the same deals, sides swapped.

    Each deal is played with the trained landlord against two baseline peasants and with a baseline landlord
    against the two trained peasants (the baseline is reset with the deal's seed before each game). Scores are team points, the unit of DouZero's ``evaluate.py`` and of
    ``cardrl eval`` (``+-2 x 2^bombs`` a game). Returns the trained side's mean score as ``landlord`` and as
    ``peasants`` (random play scores about -0.87 and +0.87 there), their mean ``adp``, and ``adp_low`` /
    ``adp_high``, its 95% t-interval over deals. ``batch`` games run in lock-step so that each module scores all
    waiting positions in one forward pass.
    """
    from cardrl.eval.stats import mean_interval

    jobs = [(d, side) for d in range(deals) for side in ("landlord", "peasants")]
    scores = {side: np.zeros(deals) for side in ("landlord", "peasants")}
    envs = [make_aec_env(game, **dict(env_config or {})) for _ in range(min(batch, len(jobs)))]
    deal_seeds = np.random.default_rng([seed, 0]).integers(0, 2**62, size=deals)
    running: dict[int, tuple[int, str]] = {}
    next_job = 0

    def start(i: int) -> None:
        nonlocal next_job
        d, side = jobs[next_job]
        next_job += 1
        envs[i].reset(seed=int(deal_seeds[d]))
        baseline.reset(int(deal_seeds[d]) + (side == "peasants"))
        running[i] = (d, side)

    for i in range(len(envs)):
        start(i)
    with torch.no_grad():
        while running:
            waiting: dict[str, list] = {}
            for i, (d, side) in list(running.items()):
                env = envs[i]
                agent = env.agent_selection
                trained = (agent == "landlord") == (side == "landlord")
                legal = env.legal_moves()
                if not trained:
                    _advance(env, int(baseline.act(env.game.view(env.game.current_player), legal)))
                elif len(legal) == 1:
                    _advance(env, int(legal[0]))
                else:
                    waiting.setdefault(agent, []).append((i, legal))
            for agent, items in waiting.items():
                obs = np.stack([envs[i].observation_vector(agent) for i, _ in items])
                q_lists = score_legal_moves(modules[agent], obs, [envs[i].action_features(legal) for i, legal in items])
                for (i, legal), q in zip(items, q_lists):
                    _advance(envs[i], int(legal[int(np.argmax(q))]))
            for i, (d, side) in list(running.items()):
                if envs[i].game.is_over:
                    payoffs = envs[i].game.payoffs("adp")
                    scores[side][d] = payoffs[0] if side == "landlord" else payoffs[1] + payoffs[2]
                    del running[i]
                    if next_job < len(jobs):
                        start(i)
    pair = (scores["landlord"] + scores["peasants"]) / 2.0
    low, high = mean_interval(pair)
    return {"landlord": float(scores["landlord"].mean()), "peasants": float(scores["peasants"].mean()),
            "adp": float(pair.mean()), "adp_low": low, "adp_high": high}


def _advance(env, action: int) -> None:
    if not env.game.is_over:
        env.step(action)
