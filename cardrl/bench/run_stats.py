"""Run-level statistics: each training run is one sample (Agarwal et al., "Deep Reinforcement Learning at the Edge of
the Statistical Precipice", NeurIPS 2021, the ``rliable`` package).

A run's evaluation score is a mean over deals; its deal-level interval describes that one run on those deals. Two
runs of one configuration (even of one seed: the actors and the learner run asynchronously) land further apart than
those intervals, so a comparison of configurations takes the runs as the unit:

* :func:`mean_over_runs`: the mean (and interquartile mean) of the runs' scores with a stratified-bootstrap
  confidence interval over runs (rliable's ``get_interval_estimates``, percentile method);
* :func:`improvement`: the probability of improvement P(X > Y) of one configuration's runs over another's (rliable's
  ``probability_of_improvement``: the Mann-Whitney U statistic over the run pairs, ties counting one half) and the
  difference of their means, each with a bootstrap interval resampling the two sets of runs independently;
  :func:`verdict` words it ("ahead" only where an interval excludes no difference);
* Welch's t-test p-value beside them: with fewer than :data:`FEW_RUNS` runs a side a percentile bootstrap
  interval is too narrow (three runs have ten distinct resamples), and the report says so next to each verdict;
* :func:`runs_needed`: per configuration, the runs a two-sided 5% test with 80% power would need to tell the
  observed difference from none, given the observed spread between runs (the normal approximation);
* :func:`time_to_threshold`: the median and range over runs of when each first lay above 0.

The bootstraps draw from numpy's global generator (rliable's resampling calls ``np.random.choice``); each call here
seeds it from ``seed`` and puts the caller's state back, so a report is the same every time it is written.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["BOOTSTRAP_REPS", "CONFIDENCE", "FEW_RUNS", "mean_over_runs", "probability_of_improvement", "improvement", "verdict", "runs_needed",
           "time_to_threshold"]

FEW_RUNS = 5  # Agarwal et al. 2021: with fewer runs per configuration, bootstrap intervals are unreliable
BOOTSTRAP_REPS = 2000  # bootstrap replications per interval (rliable's examples use 2,000 and up)
CONFIDENCE = 0.95


@contextmanager
def _seeded_global_rng(seed: int) -> Iterator[None]:
    """numpy's global generator seeded for the block, the caller's state restored after it."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _column(scores: Sequence[float]) -> np.ndarray:
    """Runs as rliable's (runs x tasks) matrix of one task."""
    values = np.asarray([float(s) for s in scores], dtype=np.float64)
    if values.size == 0:
        raise ValueError("no runs: a run-level statistic needs at least one run's score")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"a run's score is not a finite number: {values.tolist()}")
    return values[:, None]


def mean_over_runs(scores: Sequence[float], *, reps: int = BOOTSTRAP_REPS, seed: int = 0) -> dict[str, Any]:
    """``{"mean", "low", "high", "iqm", "runs"}``: the mean of the runs' scores with its stratified-bootstrap
    interval over runs, and their interquartile mean (the 25% trimmed mean). One run: the interval is that point
    (a bootstrap over one run knows nothing of the spread: :func:`runs_needed` and the report say so)."""
    from rliable import library as rly
    from rliable import metrics

    column = _column(scores)
    with _seeded_global_rng(seed):
        points, intervals = rly.get_interval_estimates(
            {"x": column}, lambda s: np.array([metrics.aggregate_mean(s)]), reps=reps,
            confidence_interval_size=CONFIDENCE)
    return {"mean": float(points["x"][0]), "low": float(intervals["x"][0][0]), "high": float(intervals["x"][1][0]),
            "iqm": float(metrics.aggregate_iqm(column)), "runs": int(column.shape[0])}


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """P(X > Y) of two (runs x 1) score columns, ties counting one half: rliable's ``probability_of_improvement``
    (the Mann-Whitney U statistic over ``len(x) * len(y)``) for one task, computed over the run pairs directly
    because scipy's test costs a millisecond per call and a bootstrap makes thousands (a test checks they agree)."""
    a, b = x[:, 0][:, None], y[:, 0][None, :]
    return float(np.mean((a > b) + 0.5 * (a == b)))


def improvement(x: Sequence[float], y: Sequence[float], *, reps: int = BOOTSTRAP_REPS,
                seed: int = 0) -> dict[str, Any]:
    """How the runs ``x`` compare with the runs ``y``: ``probability`` P(X > Y) with ``probability_low/high``,
    ``difference`` (mean of x less mean of y) with ``difference_low/high``, each interval a bootstrap resampling the
    two sets of runs independently; ``runs`` (len x, len y)."""
    from rliable import library as rly

    cx, cy = _column(x), _column(y)
    with _seeded_global_rng(seed):
        p_point, p_interval = rly.get_interval_estimates(
            {"xy": (cx, cy)}, lambda a, b: np.array([probability_of_improvement(a, b)]), reps=reps,
            confidence_interval_size=CONFIDENCE)
    with _seeded_global_rng(seed + 1):
        d_point, d_interval = rly.get_interval_estimates(
            {"xy": (cx, cy)}, lambda a, b: np.array([a.mean() - b.mean()]), reps=reps,
            confidence_interval_size=CONFIDENCE)
    return {"probability": float(p_point["xy"][0]), "probability_low": float(p_interval["xy"][0][0]),
            "probability_high": float(p_interval["xy"][1][0]), "difference": float(d_point["xy"][0]),
            "difference_low": float(d_interval["xy"][0][0]), "difference_high": float(d_interval["xy"][1][0]),
            "welch_p": _welch_p(cx[:, 0], cy[:, 0]), "runs": (int(cx.shape[0]), int(cy.shape[0]))}


def _welch_p(a: np.ndarray, b: np.ndarray) -> float | None:
    """Welch's two-sided t-test p-value of the difference of means (None with fewer than two runs on a side, or no
    spread at all). Shown beside the bootstrap because with few runs a percentile bootstrap is too narrow."""
    from scipy import stats

    if a.size < 2 or b.size < 2 or (a.var() == 0 and b.var() == 0):
        return None
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def verdict(comparison: dict[str, Any]) -> str:
    """"ahead" / "behind" where the interval of the difference or of the probability of improvement excludes no
    difference (0, or 0.5), "not apart" otherwise; "one run each" where a side has a single run."""
    if min(comparison["runs"]) < 2:
        return "one run each" if max(comparison["runs"]) < 2 else "one run on a side"
    if comparison["difference_low"] > 0 or comparison["probability_low"] > 0.5:
        return "ahead"
    if comparison["difference_high"] < 0 or comparison["probability_high"] < 0.5:
        return "behind"
    return "not apart"


def runs_needed(x: Sequence[float], y: Sequence[float], *, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Runs per configuration for a two-sided test at ``alpha`` to tell the observed difference of means from 0
    with ``power``, given the pooled spread between runs: ``2 ((z_{1-alpha/2} + z_power) sd / difference)^2``,
    rounded up. None where it cannot be said (fewer than two runs on a side, or no difference observed)."""
    from scipy import stats

    a, b = _column(x)[:, 0], _column(y)[:, 0]
    if a.size < 2 or b.size < 2:
        return None
    difference = abs(a.mean() - b.mean())
    pooled_var = ((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2)
    if difference == 0:
        return None
    if pooled_var == 0:
        return 2
    z = float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))
    return max(2, math.ceil(2 * (z * math.sqrt(pooled_var) / difference) ** 2))


def time_to_threshold(reached: Sequence[float | None]) -> dict[str, Any]:
    """Each run's first time above the threshold (None: never within the budget): ``median`` (a run that never got
    there counts as later than every run that did; None when half or more never did), ``low``/``high`` (the
    range of the runs that got there), ``reached`` and ``runs``."""
    times = sorted(float(t) for t in reached if t is not None)
    n = len(reached)
    ordered = times + [math.inf] * (n - len(times))
    if n == 0:
        median = None
    else:
        middle = (ordered[(n - 1) // 2] + ordered[n // 2]) / 2
        median = None if math.isinf(middle) else middle
    return {"median": median, "low": times[0] if times else None, "high": times[-1] if times else None,
            "reached": len(times), "runs": n}
