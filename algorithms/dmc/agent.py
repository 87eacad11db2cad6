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


# Who the trained networks play in each arrangement of a deal, and whose payoffs make the trained side's score.
# DouDiZhu: the landlord, then the two peasants, scored in team points (DouZero's evaluate.py); Big2: each seat in
# turn against three baselines (Luo & Tan 2024, section 5.1); GuanDan: each team (DanZero's per-deal points).
ARRANGEMENTS: dict[str, tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]] = {
    "doudizhu": (("landlord", ("landlord",), ("landlord",)),
                 ("peasants", ("landlord_down", "landlord_up"), ("landlord_down", "landlord_up"))),
    "big2": tuple((seat, (seat,), (seat,)) for seat in ("west", "south", "east", "north")),
    "guandan": (("team_0", ("player_0", "player_2"), ("player_0",)),
                ("team_1", ("player_1", "player_3"), ("player_1",))),
}


def arrangements_of(game: str):
    from cardrl.envs.rllib import GAME_ENVS

    name = game if game in ARRANGEMENTS else {v: k for k, v in GAME_ENVS.items()}.get(game, game)
    if name not in ARRANGEMENTS:
        raise ValueError(f"no evaluation arrangements for game {game!r}; known: {sorted(ARRANGEMENTS)}")
    return ARRANGEMENTS[name]


def pick(legal, index: int):
    """The env action for choosing entry ``index`` of ``legal``: the move id when legal moves are table ids, else
    the index itself (envs whose actions index a per-position list of moves, e.g. GuanDan)."""
    return int(legal[index]) if isinstance(legal, np.ndarray) else int(index)


def _baseline_action(baseline, env, legal):
    choice = baseline.act(env.game.view(env.game.current_player), legal)
    if isinstance(legal, np.ndarray):
        return int(choice)
    return next(i for i, m in enumerate(legal) if m == choice)


def evaluate_against(modules: dict, baseline, game: str = "doudizhu", deals: int = 200, seed: int = 0,
                     env_config: dict | None = None, batch: int = 64) -> dict[str, float]:
    """Greedy Q-networks against a baseline :class:`~cardrl.agents.Agent` on the same deals, every arrangement.

    Each deal is played once per arrangement of :data:`ARRANGEMENTS` (DouDiZhu: trained landlord vs two baseline
    peasants, then baseline landlord vs two trained peasants; Big2: the trained network in each seat against three
    baselines; GuanDan: each team), the baseline reset with the deal's seed before each game. A game's score is the
    sum of the scored seats' rewards (DouDiZhu: team points, the unit of DouZero's ``evaluate.py`` and of
    ``cardrl eval``). Returns the trained side's mean score per arrangement label, their mean ``adp`` and
    ``adp_low`` / ``adp_high``, its 95% t-interval over deals. ``batch`` games run in lock-step so that each module
    scores all waiting positions in one forward pass.
    """
    from cardrl.eval.stats import mean_interval

    arrangements = arrangements_of(game)
    jobs = [(d, k) for d in range(deals) for k in range(len(arrangements))]
    scores = np.zeros((deals, len(arrangements)))
    envs = [make_aec_env(game, **dict(env_config or {})) for _ in range(min(batch, len(jobs)))]
    deal_seeds = np.random.default_rng([seed, 0]).integers(0, 2**62, size=deals)
    running: dict[int, tuple[int, int]] = {}
    totals: dict[int, dict[str, float]] = {}
    next_job = 0

    def start(i: int) -> None:
        nonlocal next_job
        d, k = jobs[next_job]
        next_job += 1
        envs[i].reset(seed=int(deal_seeds[d]))
        baseline.reset(int(deal_seeds[d]) + k)
        running[i] = (d, k)
        totals[i] = dict.fromkeys(envs[i].possible_agents, 0.0)

    def advance(i: int, action: int) -> None:
        env = envs[i]
        env.step(action)
        for a in env.possible_agents:
            totals[i][a] += float(env.rewards.get(a, 0.0))

    for i in range(len(envs)):
        start(i)
    with torch.no_grad():
        while running:
            waiting: dict[str, list] = {}
            for i, (d, k) in list(running.items()):
                env = envs[i]
                agent = env.agent_selection
                legal = env.legal_moves()
                if agent not in arrangements[k][1]:
                    advance(i, _baseline_action(baseline, env, legal))
                elif len(legal) == 1:
                    advance(i, pick(legal, 0))
                else:
                    waiting.setdefault(agent, []).append((i, legal))
            for agent, items in waiting.items():
                obs = np.stack([envs[i].observation_vector(agent) for i, _ in items])
                q_lists = score_legal_moves(modules[agent], obs, [envs[i].action_features(legal) for i, legal in items])
                for (i, legal), q in zip(items, q_lists):
                    advance(i, pick(legal, int(np.argmax(q))))
            for i, (d, k) in list(running.items()):
                env = envs[i]
                if all(env.terminations.values()) or all(env.truncations.values()):
                    scores[d, k] = sum(totals[i][a] for a in arrangements[k][2])
                    del running[i]
                    if next_job < len(jobs):
                        start(i)
    pair = scores.mean(axis=1)
    low, high = mean_interval(pair)
    out = {label: float(scores[:, k].mean()) for k, (label, _, _) in enumerate(arrangements)}
    return {**out, "adp": float(pair.mean()), "adp_low": low, "adp_high": high}
