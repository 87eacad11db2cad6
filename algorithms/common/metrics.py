"""Metrics DMC and top-k PPO both report."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["mean_returns"]


def mean_returns(returns: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each agent's mean return over the recent episodes (each a dict agent -> return); empty when there are none."""
    if not returns:
        return {}
    return {agent: float(np.mean([r[agent] for r in returns])) for agent in returns[0]}
