"""The uniform random agent, the weakest baseline of every paper's evaluation tables."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.agents.base import Agent

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Plays a legal move uniformly at random: the "random agents" of Lu et al. 2023 (DanZero), Sec. I, which
    "choose actions randomly from legal action set"; the weakest baseline of every evaluation here.

    It owns its ``numpy.random.Generator`` (no global state). ``reset(deal_seed)`` re-seeds it from
    ``(seed, deal_seed)``, so its play on a deal does not depend on which deals were played before.
    """

    name = "random"
    bids = True  # bidding actions are legal moves like any other: it bids uniformly among the legal bids

    def __init__(self, seed: int = 0):
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"RandomAgent seed must be a non-negative int, got {seed!r}")
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, int(seed)])

    def act(self, view: Any, legal_moves) -> int:
        if len(legal_moves) == 0:
            raise ValueError("RandomAgent.act got no legal moves (is the game over?)")
        return int(legal_moves[self.rng.integers(len(legal_moves))])
