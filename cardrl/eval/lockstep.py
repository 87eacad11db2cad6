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

The trained side plays the way it was trained when told how: ``move_filter(engine, legal) -> kept`` restricts its
choice to the kept moves (ODMC's pruning, :class:`~cardrl.search.prune.MCSPruner`), and ``input_blocks(engine, seat)
-> {name: array}`` computes the Q-network's input blocks of each waiting position (an oracle agent's trained block),
passed to ``score`` as its ``blocks``; without them it chooses among all legal moves and the blocks are zeros.
``count_outside`` (a move filter too, never applied) counts how often the greedy choice lies outside its kept set:
how often an ODMC agent played unpruned picks a move it never trained on.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from cardrl.agents.base import Agent, agent_view
from cardrl.agents.q_agent import greedy_index
from cardrl.eval.protocols import protocol_for
from cardrl.eval.stats import mean_interval

__all__ = ["evaluate_scorer", "Scorer", "SCORE_FIELDS"]

# the fields of an evaluate_scorer result that are not a side's mean score
SCORE_FIELDS = ("adp", "adp_low", "adp_high", "deals", "adp_sd", "per_deal", "outside_kept", "passes")

# score(agent name, obs (U, D), [actions (n_u, A) per position][, blocks {name: (U, size)}]) -> [Q (n_u,) per
# position]; blocks are passed only when evaluate_scorer is given input_blocks
Scorer = Callable[..., "list[np.ndarray]"]
MoveFilter = Callable[[Any, np.ndarray], np.ndarray]


def evaluate_scorer(score: Scorer, baseline: Callable[[int], Agent], game: str = "doudizhu", deals: int = 200,
                    seed: int = 0, options: Mapping[str, Any] | None = None, features: str | None = None,
                    batch: int = 64, per_deal: bool = False, move_filter: MoveFilter | None = None,
                    input_blocks: Callable[[Any, int], Mapping[str, np.ndarray]] | None = None,
                    count_outside: MoveFilter | None = None, count_passes: bool = False) -> dict[str, Any]:
    """Greedy play by ``score`` against ``baseline`` on the same seeded deals, every arrangement (module docstring).

    ``baseline(i)`` builds the baseline agent of batch slot ``i``; ``options`` are rule options (a GuanDan deal
    tournament plays single deals), ``features`` the encoder the scorer reads (default: the game's). A game's
    score is the sum of the protocol's scored seats' payoffs (DouDiZhu: team points, the unit of DouZero's
    ``evaluate.py`` and of ``cardrl eval``). Returns the trained side's mean score per arrangement (keyed by the protocol's ``sides``), their mean
    ``adp`` and ``adp_low`` / ``adp_high``, its 95% t-interval over deals, with ``deals`` and ``adp_sd`` (the
    standard deviation of the per-deal scores, to pool several runs' intervals) (``per_deal=True`` adds the per-deal samples
    as ``per_deal``, e.g. to pool several runs). ``move_filter``, ``input_blocks``, ``count_outside``: module
    docstring; with ``count_outside`` the result adds ``outside_kept``: ``{"decisions": greedy choices among more than
    one move, "outside": those outside the filter's kept set}``. ``count_passes`` adds ``passes``: per side,
    ``{"decisions": greedy choices where passing was legal among other moves, "passed": those that passed}`` (a
    pass is a move of no cards).
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
    outside = [0, 0]  # greedy decisions, those outside count_outside's kept set
    passes = np.zeros((len(arrangements), 2), dtype=np.int64)  # per arrangement: pass-legal decisions, passes

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
                engine.step(baselines[i].act(agent_view(baselines[i], engine, seat), legal))
                continue
            if move_filter is not None and len(legal) > 1:
                legal = np.asarray(move_filter(engine, legal), dtype=np.int64)
            if len(legal) == 1:
                engine.step(int(legal[0]))
            else:
                waiting.setdefault(spec.agents[seat], []).append((i, legal))
        for agent, items in waiting.items():
            seat = spec.seat_of(agent)
            obs = np.stack([encoder.encode(engines[i], seat) for i, _ in items])
            actions = [encoder.action_features(engines[i], legal) for i, legal in items]
            if input_blocks is None:
                q_lists = score(agent, obs, actions)
            else:
                per_position = [input_blocks(engines[i], seat) for i, _ in items]
                q_lists = score(agent, obs, actions, {name: np.stack([b[name] for b in per_position])
                                                      for name in per_position[0]})
            for (i, legal), q in zip(items, q_lists):
                j = greedy_index(q, lambda e=engines[i], ids=legal: e.move_strength(ids))
                move = int(legal[j])
                if count_outside is not None:
                    outside[0] += 1
                    outside[1] += move not in count_outside(engines[i], legal)
                if count_passes:
                    empty = engines[i].move_cards(legal).sum(axis=1) == 0
                    if empty.any():
                        passes[running[i][1]] += (1, int(empty[j]))
                engines[i].step(move)
        for i, (d, k) in list(running.items()):
            if engines[i].is_over:
                scores[d, k] = protocol.score_a(engines[i].payoffs(protocol.reward), k)
                del running[i]
                if next_job < len(jobs):
                    start(i)
    pair = scores.mean(axis=1)
    low, high = mean_interval(pair)
    out = {side: float(scores[:, k].mean()) for k, side in enumerate(spec.protocol.sides)}
    out = {**out, "adp": float(pair.mean()), "adp_low": low, "adp_high": high, "deals": int(deals),
           "adp_sd": float(pair.std(ddof=1)) if deals > 1 else 0.0}
    if per_deal:
        out["per_deal"] = pair.tolist()
    if count_outside is not None:
        out["outside_kept"] = {"decisions": outside[0], "outside": outside[1]}
    if count_passes:
        out["passes"] = {side: {"decisions": int(passes[k, 0]), "passed": int(passes[k, 1])}
                         for k, side in enumerate(spec.protocol.sides)}
    return out
