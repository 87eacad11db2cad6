"""How often agents choose the same move as a reference agent on seeded positions: the export round trips
(tests/algorithms/test_export*.py) and ``cardrl export --fp16``'s check that float16 weights play as float32's do."""

from __future__ import annotations

import time
from typing import Iterator, Mapping

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.games.registry import get_game

__all__ = ["positions", "agreement"]


def positions(game: str, options: Mapping, count: int, seed: int = 0) -> Iterator[tuple]:
    """(view, legal) at ``count`` decisions with two or more legal moves, from seeded games of random moves."""
    spec = get_game(game)
    engine = spec.make_engine(**spec.full_options(dict(options)))
    rng = np.random.default_rng(seed)
    found, deal = 0, 0
    while found < count:
        engine.reset(seed * 100_003 + deal)
        deal += 1
        while not engine.is_over and found < count:
            legal = engine.legal_moves()
            if len(legal) > 1:
                found += 1
                yield engine.view(engine.current_player), legal
            engine.step(int(rng.choice(legal)))


def agreement(agents: Mapping[str, Agent], reference: str, game: str, options: Mapping,
              count: int, seed: int = 0) -> tuple[dict, dict]:
    """``(name -> share of the positions where it chose the reference agent's move, name -> ms per move)``."""
    same = {name: 0 for name in agents}
    seconds = {name: 0.0 for name in agents}
    for view, legal in positions(game, options, count, seed):
        chosen = {}
        for name, agent in agents.items():
            started = time.perf_counter()
            chosen[name] = agent.act(view, legal_ids(agent, legal))
            seconds[name] += time.perf_counter() - started
        for name in agents:
            same[name] += chosen[name] == chosen[reference]
    return ({name: n / count for name, n in same.items()},
            {name: 1000 * s / count for name, s in seconds.items()})
