"""Batched evaluation of a scoring policy against a baseline agent: many deals in lock-step, sides swapped.

:func:`evaluate_scorer` plays ``deals`` seeded deals once per arrangement of the game's protocol (DouDiZhu: the
trained side as landlord, then as the two peasants; Big2: in each seat against three baselines; GuanDan: each team,
single deals) with ``batch`` games in lock-step, so that at every tick the trained side's waiting positions are
scored in one call of ``score(agent, obs, actions)`` (a DMC Q-network's batched forward pass, any batched policy).
The trained side plays greedily (:func:`~cardrl.agents.q_agent.greedy_index`: ties to the stronger move). This is
what periodic evaluation during training runs; single games and tournaments between agents are
:mod:`cardrl.eval.tournament`'s.

Each game of the batch has its own baseline agent, reset with the deal's seed as it starts (the same seed for every
arrangement of a deal, as :func:`cardrl.agents.base.play_game` does), so a stochastic baseline makes the same choices
whatever the other games of the batch do.

The trained side plays the way it was trained when told how (:class:`ScorerHooks`, all optional):
``move_filter(engine, legal) -> kept`` restricts its choice to the kept moves (ODMC's pruning,
:class:`~cardrl.search.prune.MCSPruner`), and ``input_blocks(engine, seat) -> {name: array}`` computes the
Q-network's input blocks of each waiting position (an oracle agent's trained block), passed to ``score`` as its
``blocks``; without them it chooses among all legal moves and the blocks are zeros.
``count_outside`` (a move filter too, never applied) counts how often the greedy choice lies outside its kept set:
how often an ODMC agent played unpruned picks a move it never trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from cardrl.agents.base import Agent, agent_view
from cardrl.agents.q_agent import greedy_index
from cardrl.eval.protocols import protocol_for
from cardrl.eval.stats import mean_interval

__all__ = ["evaluate_scorer", "evaluation_deal_seeds", "ScorerHooks", "Scorer", "SCORE_FIELDS"]

# the fields of an evaluate_scorer result that are not a side's mean score
SCORE_FIELDS = ("adp", "adp_low", "adp_high", "deals", "adp_sd", "per_deal", "outside_kept", "passes")

# score(agent name, obs (U, D), [actions (n_u, A) per position][, blocks {name: (U, size)}]) -> [Q (n_u,) per
# position]; blocks are passed only when evaluate_scorer is given input_blocks
Scorer = Callable[..., "list[np.ndarray]"]
MoveFilter = Callable[[Any, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ScorerHooks:
    """How the trained side of :func:`evaluate_scorer` plays and what it counts (module docstring), none by default.

    ``move_filter(engine, legal) -> kept``: the moves it chooses among; ``input_blocks(engine, seat) -> {name:
    array}``: the input blocks ``score`` is given; ``count_outside`` (a move filter, never applied): the result adds
    ``outside_kept``, ``{"decisions": greedy choices among more than one move, "outside": those outside its kept
    set}``; ``count_passes``: the result adds ``passes``, per side ``{"decisions": greedy choices where passing was
    legal among other moves, "passed": those that passed}`` (a pass is a move of no cards)."""

    move_filter: MoveFilter | None = None
    input_blocks: Callable[[Any, int], Mapping[str, np.ndarray]] | None = None
    count_outside: MoveFilter | None = None
    count_passes: bool = False


def evaluation_deal_seeds(seed: int, deals: int) -> np.ndarray:
    """The deal seeds :func:`evaluate_scorer` plays with ``seed`` (an agent evaluated on the same deals plays
    :func:`cardrl.eval.deals.deals_from_seeds` of them)."""
    return np.random.default_rng([seed, 0]).integers(0, 2**62, size=deals)


def evaluate_scorer(score: Scorer, baseline: Callable[[int], Agent], game: str = "doudizhu", deals: int = 200,
                    seed: int = 0, options: Mapping[str, Any] | None = None, features: str | None = None,
                    batch: int = 64, per_deal: bool = False, hooks: ScorerHooks = ScorerHooks()) -> dict[str, Any]:
    """Greedy play by ``score`` against ``baseline`` on the same seeded deals, every arrangement (module docstring).

    ``baseline(i)`` builds the baseline agent of batch slot ``i``; ``options`` are rule options (a GuanDan deal
    tournament plays single deals), ``features`` the encoder the scorer reads (default: the game's). A game's
    score is the sum of the protocol's scored seats' payoffs (DouDiZhu: team points, the unit of DouZero's
    ``evaluate.py`` and of ``cardrl eval``). Returns the trained side's mean score per arrangement (keyed by the
    protocol's ``sides``), their mean ``adp`` and ``adp_low`` / ``adp_high``, its 95% t-interval over deals, with
    ``deals`` and ``adp_sd`` (the standard deviation of the per-deal scores, to pool several runs' intervals)
    (``per_deal=True`` adds the per-deal samples as ``per_deal``, e.g. to pool several runs). ``hooks``: how the
    trained side plays and what it counts besides (:class:`ScorerHooks`).
    """
    protocol = protocol_for(game)
    deal_only = protocol.spec.protocol.deal_options  # evaluation is per deal, whatever the training episode is
    full = protocol.normalise_options({k: v for k, v in dict(options or {}).items() if k not in deal_only})
    run = _Lockstep(protocol, full, baseline, deals, seed, batch)
    trained = _TrainedSide(score, protocol.spec.make_features(features), hooks, len(protocol.arrangements))
    while run.running:
        waiting = run.advance_to_trained_side(trained.filter_moves)
        for agent, items in waiting.items():
            trained.play(run, agent, items)
        run.finish_games()
    return trained.summary(run.scores, protocol.spec.protocol.sides, per_deal)


class _Lockstep:
    """``batch`` games in lock-step working through the (deal, arrangement) jobs; each game's scores as they end."""

    def __init__(self, protocol, options: dict, baseline: Callable[[int], Agent], deals: int, seed: int, batch: int):
        self.protocol = protocol
        self.jobs = [(d, k) for d in range(deals) for k in range(len(protocol.arrangements))]
        self.scores = np.zeros((deals, len(protocol.arrangements)))
        slots = min(batch, len(self.jobs))
        self.engines = [protocol.make_game(**options) for _ in range(slots)]
        self.baselines = [baseline(i) for i in range(slots)]
        self.deal_seeds = evaluation_deal_seeds(seed, deals)
        self.running: dict[int, tuple[int, int]] = {}  # slot -> (deal, arrangement)
        self.next_job = 0
        for i in range(slots):
            self.start(i)

    def start(self, i: int) -> None:
        """Deal the next job in slot ``i``; its baseline is reset with the deal's seed."""
        d, k = self.jobs[self.next_job]
        self.next_job += 1
        self.engines[i].reset(int(self.deal_seeds[d]))
        self.baselines[i].reset(int(self.deal_seeds[d]))
        self.running[i] = (d, k)

    def advance_to_trained_side(self, filter_moves: Callable[[Any, np.ndarray], np.ndarray],
                                ) -> dict[str, list[tuple[int, np.ndarray]]]:
        """One move of every running game: the baseline's, or the trained side's only (kept) move; the trained
        side's positions with a choice are returned by agent name, as ``(slot, kept legal moves)``."""
        arrangements, spec = self.protocol.arrangements, self.protocol.spec
        waiting: dict[str, list[tuple[int, np.ndarray]]] = {}
        for i, (d, k) in list(self.running.items()):
            engine = self.engines[i]
            seat = engine.current_player
            legal = engine.legal_moves()
            if seat not in arrangements[k]:
                engine.step(self.baselines[i].act(agent_view(self.baselines[i], engine, seat), legal))
                continue
            legal = filter_moves(engine, legal)
            if len(legal) == 1:
                engine.step(int(legal[0]))
            else:
                waiting.setdefault(spec.agents[seat], []).append((i, legal))
        return waiting

    def finish_games(self) -> None:
        """Score the games that ended and deal the next jobs in their slots."""
        for i, (d, k) in list(self.running.items()):
            if self.engines[i].is_over:
                self.scores[d, k] = self.protocol.score_a(self.engines[i].payoffs(self.protocol.reward), k)
                del self.running[i]
                if self.next_job < len(self.jobs):
                    self.start(i)


class _TrainedSide:
    """The greedy side: its move filter, its batched scoring per agent, and the counts it keeps."""

    def __init__(self, score: Scorer, encoder, hooks: ScorerHooks, arrangements: int):
        self.score, self.encoder = score, encoder
        self.move_filter, self.input_blocks = hooks.move_filter, hooks.input_blocks
        self.count_outside, self.count_passes = hooks.count_outside, hooks.count_passes
        self.outside = [0, 0]  # greedy decisions, those outside count_outside's kept set
        self.passes = np.zeros((arrangements, 2), dtype=np.int64)  # per arrangement: pass-legal decisions, passes

    def filter_moves(self, engine, legal: np.ndarray) -> np.ndarray:
        if self.move_filter is not None and len(legal) > 1:
            return np.asarray(self.move_filter(engine, legal), dtype=np.int64)
        return legal

    def q_values(self, engines: list, agent: str, seat: int, items: list[tuple[int, np.ndarray]],
                 ) -> list[np.ndarray]:
        """One ``score`` call over the waiting positions of ``agent`` (in ``seat``)."""
        obs = np.stack([self.encoder.encode(engines[i], seat) for i, _ in items])
        actions = [self.encoder.action_features(engines[i], legal) for i, legal in items]
        if self.input_blocks is None:
            return self.score(agent, obs, actions)
        per_position = [self.input_blocks(engines[i], seat) for i, _ in items]
        return self.score(agent, obs, actions, {name: np.stack([b[name] for b in per_position])
                                                for name in per_position[0]})

    def play(self, run: _Lockstep, agent: str, items: list[tuple[int, np.ndarray]]) -> None:
        """Score ``agent``'s waiting positions and play each one's greedy move, counting as asked."""
        seat = run.protocol.spec.seat_of(agent)
        for (i, legal), q in zip(items, self.q_values(run.engines, agent, seat, items)):
            engine = run.engines[i]
            j = greedy_index(q, lambda e=engine, ids=legal: e.move_strength(ids))
            move = int(legal[j])
            if self.count_outside is not None:
                self.outside[0] += 1
                self.outside[1] += move not in self.count_outside(engine, legal)
            if self.count_passes:
                empty = engine.move_cards(legal).sum(axis=1) == 0
                if empty.any():
                    self.passes[run.running[i][1]] += (1, int(empty[j]))
            engine.step(move)

    def summary(self, scores: np.ndarray, sides: tuple[str, ...], per_deal: bool) -> dict[str, Any]:
        """The result of :func:`evaluate_scorer` from the scores per (deal, arrangement)."""
        deals = len(scores)
        pair = scores.mean(axis=1)
        low, high = mean_interval(pair)
        out = {side: float(scores[:, k].mean()) for k, side in enumerate(sides)}
        out = {**out, "adp": float(pair.mean()), "adp_low": low, "adp_high": high, "deals": int(deals),
               "adp_sd": float(pair.std(ddof=1)) if deals > 1 else 0.0}
        if per_deal:
            out["per_deal"] = pair.tolist()
        if self.count_outside is not None:
            out["outside_kept"] = {"decisions": self.outside[0], "outside": self.outside[1]}
        if self.count_passes:
            out["passes"] = {side: {"decisions": int(self.passes[k, 0]), "passed": int(self.passes[k, 1])}
                             for k, side in enumerate(sides)}
        return out
