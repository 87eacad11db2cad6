"""Batched evaluation of a scoring policy against a baseline agent: many deals in lock-step, sides swapped.

:func:`evaluate_scorer` plays ``deals`` seeded deals once per arrangement of the game's protocol (DouDiZhu: the
trained side as landlord, then as the two peasants; Big2: in each seat against three baselines; GuanDan: each team,
single deals) with ``batch`` games in lock-step, so that at every tick the trained side's waiting positions are
scored in one call of ``score(agent, obs, actions)`` (a DMC Q-network's batched forward pass, any batched policy).
The trained side plays greedily (:func:`~cardrl.agents.q_agent.greedy_index`: ties to the stronger move). This is what periodic evaluation
during training runs; single games and tournaments between agents are :mod:`cardrl.eval.tournament`'s.

Each game of the batch has its own baseline agent, reset with the deal's seed as it starts (the same seed for every
arrangement of a deal, as :func:`cardrl.agents.base.play_game` does), so a stochastic baseline makes the same choices
whatever the other games of the batch do.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from cardrl.agents.base import Agent
from cardrl.agents.q_agent import greedy_index
from cardrl.eval.protocols import protocol_for
from cardrl.eval.stats import mean_interval

__all__ = ["evaluate_scorer", "Scorer"]

# score(agent name, obs (U, D), [actions (n_u, A) per position]) -> [Q (n_u,) per position]
Scorer = Callable[[str, np.ndarray, "list[np.ndarray]"], "list[np.ndarray]"]


def evaluate_scorer(score: Scorer, baseline: Callable[[int], Agent], game: str = "doudizhu", deals: int = 200,
                    seed: int = 0, options: Mapping[str, Any] | None = None, features: str | None = None,
                    batch: int = 64, per_deal: bool = False) -> dict[str, Any]:
    """Greedy play by ``score`` against ``baseline`` on the same seeded deals, every arrangement (module docstring).

    ``baseline(i)`` builds the baseline agent of batch slot ``i``; ``options`` are rule options (a GuanDan deal
    tournament plays single deals), ``features`` the encoder the scorer reads (default: the game's). A game's
    score is the sum of the protocol's scored seats' payoffs (DouDiZhu: team points, the unit of DouZero's
    ``evaluate.py`` and of ``cardrl eval``). Returns the trained side's mean score per arrangement (keyed by the protocol's ``sides``), their mean
    ``adp`` and ``adp_low`` / ``adp_high``, its 95% t-interval over deals (``per_deal=True`` adds the per-deal samples
    as ``per_deal``, e.g. to pool several runs).
    """
    protocol = protocol_for(game)
    spec = protocol.spec
    deal_only = spec.protocol.deal_options  # evaluation is per deal, whatever the training episode is
    full = protocol.normalise_options({k: v for k, v in dict(options or {}).items() if k not in deal_only})
    encoder = spec.make_features(features)
    arrangements = protocol.arrangements
    jobs = [(d, k) for d in range(deals) for k in range(len(arrangements))]
    scores = np.zeros((deals, len(arrangements)))
    slots = min(batch, len(jobs))
    engines = [protocol.make_game(**full) for _ in range(slots)]
    baselines = [baseline(i) for i in range(slots)]
    deal_seeds = np.random.default_rng([seed, 0]).integers(0, 2**62, size=deals)
    running: dict[int, tuple[int, int]] = {}
    next_job = 0

    def start(i: int) -> None:
        nonlocal next_job
        d, k = jobs[next_job]
        next_job += 1
        engines[i].reset(int(deal_seeds[d]))
        baselines[i].reset(int(deal_seeds[d]))
        running[i] = (d, k)

    for i in range(slots):
        start(i)
    while running:
        waiting: dict[str, list[tuple[int, np.ndarray]]] = {}
        for i, (d, k) in list(running.items()):
            engine = engines[i]
            seat = engine.current_player
            legal = engine.legal_moves()
            if seat not in arrangements[k]:
                engine.step(baselines[i].act(engine.view(seat), legal))
            elif len(legal) == 1:
                engine.step(int(legal[0]))
            else:
                waiting.setdefault(spec.agents[seat], []).append((i, legal))
        for agent, items in waiting.items():
            seat = spec.seat_of(agent)
            obs = np.stack([encoder.encode(engines[i], seat) for i, _ in items])
            q_lists = score(agent, obs, [encoder.action_features(engines[i], legal) for i, legal in items])
            for (i, legal), q in zip(items, q_lists):
                engines[i].step(int(legal[greedy_index(q, lambda e=engines[i], ids=legal: e.move_strength(ids))]))
        for i, (d, k) in list(running.items()):
            if engines[i].is_over:
                scores[d, k] = protocol.score_a(engines[i].payoffs(protocol.reward), k)
                del running[i]
                if next_job < len(jobs):
                    start(i)
    pair = scores.mean(axis=1)
    low, high = mean_interval(pair)
    out = {side: float(scores[:, k].mean()) for k, side in enumerate(spec.protocol.sides)}
    out = {**out, "adp": float(pair.mean()), "adp_low": low, "adp_high": high}
    if per_deal:
        out["per_deal"] = pair.tolist()
    return out
