"""Confidence intervals of tournament metrics: the 95% Student-t interval of a mean, as the papers' "significance
T-test ... 95% confidence interval" (Luo & Tan 2024, Tables 10 and 11; OADMCDou, Luo et al. 2024, Table 1)."""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["mean_interval"]


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval of the mean of ``values`` (degenerate at the mean when every value is equal or there
    is a single value)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = float(values.mean())
    sem = float(stats.sem(values)) if len(values) > 1 else 0.0
    if not sem > 0.0:
        return (mean, mean)
    half = float(stats.t.ppf((1 + confidence) / 2, len(values) - 1)) * sem
    return (mean - half, mean + half)
