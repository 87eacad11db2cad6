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
                       env_config: dict | None = None, batch: int = 64) -> dict[str, float]:
    """Greedy Q-networks against random play on the same deals, sides swapped.

    Each deal is played with the trained landlord against two random peasants and with a random landlord
    against the two trained peasants. Scores are team points, the unit of DouZero's ``evaluate.py`` and of
    ``cardrl eval`` (``+-2 x 2^bombs`` a game). Returns the trained side's mean score as ``landlord`` and as
    ``peasants`` (random play scores about -0.87 and +0.87 there), their mean ``adp``, and ``adp_low`` /
    ``adp_high``, its 95% t-interval over deals. ``batch`` games run in lock-step so that each module scores all
    waiting positions in one forward pass.
    """
    from cardrl.eval.stats import mean_interval

    jobs = [(d, side) for d in range(deals) for side in ("landlord", "peasants")]
    scores = {side: np.zeros(deals) for side in ("landlord", "peasants")}
    envs = [make_aec_env(game, **dict(env_config or {})) for _ in range(min(batch, len(jobs)))]
    features = envs[0].features
    rng = np.random.default_rng([seed, 1])
    deal_seeds = np.random.default_rng([seed, 0]).integers(0, 2**62, size=deals)
    running: dict[int, tuple[int, str]] = {}
    next_job = 0

    def start(i: int) -> None:
        nonlocal next_job
        d, side = jobs[next_job]
        next_job += 1
        envs[i].reset(seed=int(deal_seeds[d]))
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
                if trained and len(legal) > 1:
                    waiting.setdefault(agent, []).append((i, legal))
                else:
                    action = legal[0] if trained else legal[rng.integers(len(legal))]
                    _advance(env, int(action))
            for agent, items in waiting.items():
                obs = np.stack([envs[i].observation_vector(agent) for i, _ in items])
                counts = [len(legal) for _, legal in items]
                actions = np.concatenate([envs[i].action_features(legal) for i, legal in items])
                index = np.repeat(np.arange(len(items)), counts)
                q = modules[agent].score(torch.from_numpy(obs), torch.from_numpy(actions.astype(np.float32)),
                                         torch.from_numpy(index)).cpu().numpy()
                lo = 0
                for (i, legal), n in zip(items, counts):
                    _advance(envs[i], int(legal[int(np.argmax(q[lo:lo + n]))]))
                    lo += n
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
