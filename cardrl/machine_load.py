"""The machine's load averages: what else ran beside a run or a benchmark, recorded with its figures."""

from __future__ import annotations

import os

__all__ = ["load_averages", "load_1m"]


def load_averages() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages, rounded to 0.01 (``None`` where the platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def load_1m() -> float | None:
    """The 1-minute load average, rounded to 0.01 (``None`` where the platform has none)."""
    loads = load_averages()
    return None if loads is None else loads[0]
