"""Playing games into :class:`~cardrl.eval.records.GameRecord` s: each decision's values of the deciding agent's top
legal moves, and ``cardrl eval --save-games DIR`` (the first deals of a tournament, every arrangement, played again
in this process with values recorded; the agents are reset with each deal's seed, so the games are the
tournament's).

An agent has values when it has ``move_values(view, legal) -> (ids, values)`` and a ``value_kind`` (``"q"``: DMC's
:class:`~cardrl.agents.q_agent.QAgent`; ``"prob"``: a PPO policy); rule and random agents have none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardrl.agents.base import Agent, agent_view
from cardrl.eval.records import GameRecord, write_record

__all__ = ["TOP_MOVES", "decision_values", "play_recorded", "save_games"]

TOP_MOVES = 5  # values kept per decision: the agent's best moves


def decision_values(agent: Agent, view: Any, legal: np.ndarray, top: int = TOP_MOVES) -> dict[str, Any] | None:
    """``{"kind", "moves": [[id, value], ...]}`` of the agent's ``top`` best legal moves, or None when the agent
    has no values (or none for this decision, e.g. a card-play network at a bidding decision)."""
    decider = getattr(agent, "decider", None)  # a pair of agents (SPEC+bidder=BIDDER): the one deciding here
    agent = decider(view) if decider is not None else agent
    values = getattr(agent, "move_values", None)
    kind = getattr(agent, "value_kind", None)
    if values is None or kind is None or len(legal) == 0:
        return None
    try:
        ids, vals = values(view, legal)
    except ValueError:  # a decision the agent's networks do not score (bidding for a card-play network)
        return None
    ids, vals = np.asarray(ids, dtype=np.int64), np.asarray(vals, dtype=np.float64)
    order = np.argsort(-vals, kind="stable")[:top]
    return {"kind": kind, "moves": [[int(ids[i]), round(float(vals[i]), 5)] for i in order]}


def play_recorded(engine: Any, agents: Sequence[Agent], seed: int, seats: Sequence[str], options: dict[str, Any], *,
                  top: int = TOP_MOVES, label: str = "", source: str = "", reward: str | None = None) -> GameRecord:
    """Deal ``seed`` on ``engine`` (built with the rule ``options``) and play it to the end as
    :func:`~cardrl.agents.base.play_game` does, recording each decision's values; ``seats`` are the agents' specs as
    the record names them."""
    engine.reset(seed)
    for agent in {id(a): a for a in agents}.values():
        agent.reset(seed)
    values: list[dict[str, Any] | None] = []
    while not engine.is_over:
        seat = int(engine.current_player)
        agent = agents[seat]
        legal = engine.legal_moves()
        view = agent_view(agent, engine, seat)
        values.append(decision_values(agent, view, legal, top))
        engine.step(int(agent.act(view, legal)))
    return GameRecord(engine.name, dict(options), int(seed), list(seats), [int(a) for a in engine.actions], values,
                      [float(p) for p in engine.payoffs(reward)], label, source)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "game"


def save_games(a_spec: str, b_spec: str, game: str, options: dict[str, Any], seeds: Sequence[int],
               out_dir: str | Path, *, agent_seeds: tuple[int, int] = (1, 2), source: str = "") -> list[Path]:
    """Play each seed once per arrangement of the game's protocol (side A in its seats, B in the others; with bidding
    on, the whole game's six) with values recorded and write one record per game to ``out_dir``; returns the
    paths. With bidding, an agent that cannot bid is refused before any game (pair it: ``SPEC+bidder=rule``)."""
    from cardrl.eval.agents import build_agent, check_bids
    from cardrl.eval.protocols import bids, protocol_of_options

    protocol = protocol_of_options(game, options)
    a = build_agent(a_spec, game, options, seed=agent_seeds[0])
    b = build_agent(b_spec, game, options, seed=agent_seeds[1])
    if bids(game, options):
        check_bids(a), check_bids(b)
    engine = protocol.spec.make_engine(**options)
    out, paths = Path(out_dir), []
    for i, seed in enumerate(seeds):
        for k, seats in enumerate(protocol.arrangements):
            agents = [a if s in seats else b for s in range(protocol.num_players)]
            specs = [a_spec if s in seats else b_spec for s in range(protocol.num_players)]
            label = f"deal {i} (seed {int(seed)}), {protocol.labels[k]}"
            record = play_recorded(engine, agents, int(seed), specs, options, label=label, source=source,
                                   reward=protocol.reward)
            paths.append(write_record(record, out / f"{game}_{i:04d}_{_slug(protocol.labels[k])}.json"))
    return paths
