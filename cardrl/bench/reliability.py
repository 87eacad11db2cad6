"""The arithmetic of ``cardrl bench chaos`` and ``cardrl bench soak``, pure functions over what they observe:

* a chaos run's fault schedule (:func:`fault_plan`): runner kills every ``kill_runner_every`` seconds, driver kills at
  given times, one interrupted checkpoint write;
* a run's progress as it is written (:class:`ProgressWatch`, :func:`new_records`): the records of
  ``progress.jsonl`` (:mod:`cardrl.run_dir`) stamped with the wall time they were first seen, across a ``--resume``
  that moves records aside;
* the time to recover after a fault (:func:`time_to_recover`: seconds until a record shows frames above those the
  run went on from) and the stall detector (:func:`stalled_for`, :func:`longest_stall`: seconds without frames
  rising);
* growth over time (:func:`growth`): the least-squares slope in MB per hour, the figure projected to 24 hours and
  the slope as a share of the size per hour.

No Ray, psutil or torch here; the benchmarks' processes are :mod:`cardrl.bench.run_processes`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from cardrl.run_dir import read_progress

__all__ = ["FAULT_KINDS", "fault_plan", "new_records", "Observation", "ProgressWatch", "time_to_recover",
           "stalled_for", "longest_stall", "least_squares", "growth", "DAY_H"]

# env-runner SIGKILL, driver SIGKILL + --resume, torn checkpoint, a worker node of a cluster SIGKILLed whole
FAULT_KINDS = ("runner", "driver", "checkpoint", "node")
DAY_H = 24.0


def fault_plan(duration_s: float, kill_runner_every_s: float | None = None,
               kill_driver_at_s: Sequence[float] = (), interrupt_checkpoint_at_s: float | None = None,
               kill_node_at_s: Sequence[float] = ()) -> list[tuple[float, str]]:
    """The faults of a chaos run as ``(seconds after its start, kind)``, sorted: a runner kill at every multiple of
    ``kill_runner_every_s`` before ``duration_s``, a driver kill at each of ``kill_driver_at_s``, a checkpoint write
    interrupted at the first write after ``interrupt_checkpoint_at_s``, a worker node killed at each of
    ``kill_node_at_s``. ValueError for a time outside ``(0, duration_s)`` or two driver faults at the same time."""
    if not duration_s > 0:
        raise ValueError(f"--duration must be > 0, got {duration_s!r}")
    plan: list[tuple[float, str]] = []
    if kill_runner_every_s is not None:
        if not kill_runner_every_s > 0:
            raise ValueError(f"--kill-runner-every must be > 0 (or left out: no runner kills), got "
                             f"{kill_runner_every_s!r}")
        k = 1
        while k * kill_runner_every_s < duration_s:
            plan.append((k * kill_runner_every_s, "runner"))
            k += 1
    driver_times = [(float(t), "driver") for t in kill_driver_at_s]
    if interrupt_checkpoint_at_s is not None:
        driver_times.append((float(interrupt_checkpoint_at_s), "checkpoint"))
    for t, kind in driver_times:
        flag = "--kill-driver-at" if kind == "driver" else "--interrupt-checkpoint-at"
        if not 0 < t < duration_s:
            raise ValueError(f"{flag} {t:g}s is outside the run: give a time between 0 and --duration "
                             f"({duration_s:g}s)")
    times = sorted(t for t, _ in driver_times)
    if len(set(times)) != len(times):
        raise ValueError(f"two driver faults at the same time: {times}; the driver can die once at a time")
    node_times = [(float(t), "node") for t in kill_node_at_s]
    for t, _ in node_times:
        if not 0 < t < duration_s:
            raise ValueError(f"--kill-node-at {t:g}s is outside the run: give a time between 0 and --duration "
                             f"({duration_s:g}s)")
    return sorted(plan + driver_times + node_times)


def new_records(seen: Sequence[dict], current: Sequence[dict]) -> tuple[int, list[dict]]:
    """What ``current`` (the records in the file now) adds to ``seen`` (those read before): the length of their
    common prefix and the records after it. A ``--resume`` rewrites the file without the records written after its
    checkpoint: those are no longer in ``current``, and what comes after the prefix is new."""
    common = 0
    for old, new in zip(seen, current):
        if old != new:
            break
        common += 1
    return common, list(current[common:])


@dataclass(frozen=True)
class Observation:
    """One progress record as first seen: wall time ``t`` (seconds since the benchmark's start), its frames trained,
    whether they rose above those of the record before it in the file, and its env-runner counters."""

    t: float
    frames: int
    rose: bool
    restarts: int = 0
    samples_lost: int = 0
    buffer_mb: float | None = None
    episodes: int | None = None
    healthy: int | None = None  # env runners healthy (RLlib's count), None without remote runners


@dataclass
class ProgressWatch:
    """Polls a run directory's ``progress.jsonl`` and keeps an :class:`Observation` of every record once, stamped
    with the time of the poll that first saw it."""

    run: Path
    records: list[dict] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)

    def poll(self, t: float) -> list[Observation]:
        try:
            current = read_progress(self.run, torn_last_line=True)
        except FileNotFoundError:
            return []
        common, added = new_records(self.records, current)
        before = int(current[common - 1].get("frames_trained") or 0) if common else None
        fresh = []
        for record in added:
            frames = int(record.get("frames_trained") or 0)
            fresh.append(Observation(t, frames, before is None or frames > before,
                                     int(record.get("env_runner_restarts") or 0),
                                     int(record.get("env_runner_samples_lost") or 0),
                                     record.get("buffer_mb"), record.get("episodes"),
                                     record.get("env_runners_healthy")))
            before = frames
        self.records = list(current)
        self.observations += fresh
        return fresh

    @property
    def frames(self) -> int:
        """Frames trained of the newest record in the file (0 before the first)."""
        return int(self.records[-1].get("frames_trained") or 0) if self.records else 0


def time_to_recover(observations: Sequence[Observation], fault_t: float, base_frames: int) -> float | None:
    """Seconds from a fault at ``fault_t`` to the first record seen after it with frames above ``base_frames``
    (a runner kill: the frames at the kill; a driver kill: those of the checkpoint the run went on from); None when
    the frames never rose again."""
    for obs in observations:
        if obs.t > fault_t and obs.frames > base_frames:
            return obs.t - fault_t
    return None


def _progress_times(observations: Sequence[Observation], start: float, end: float) -> list[float]:
    return [start] + sorted(o.t for o in observations if o.rose and start <= o.t <= end)


def stalled_for(observations: Sequence[Observation], now: float, start: float = 0.0) -> float:
    """Seconds since the frames last rose before ``now`` (since ``start`` when they have not yet): the stall
    detector."""
    return now - _progress_times(observations, start, now)[-1]


def longest_stall(observations: Sequence[Observation], end: float, start: float = 0.0) -> float:
    """The longest time between ``start``, the records whose frames rose, and ``end``."""
    times = _progress_times(observations, start, end) + [end]
    return max(b - a for a, b in zip(times, times[1:]))


def least_squares(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """``(slope, intercept)`` of the least-squares line through the points; ValueError with fewer than 2 distinct
    ``x``."""
    n = len(x)
    if n != len(y):
        raise ValueError(f"least_squares: {n} x values and {len(y)} y values")
    if n < 2 or len(set(x)) < 2:
        raise ValueError(f"least_squares needs 2 or more distinct x values, got {n} point(s)")
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    slope = sxy / sxx
    return slope, my - slope * mx


def growth(t_s: Sequence[float], mb: Sequence[float]) -> dict[str, Any]:
    """How a size grows: its least-squares slope in MB per hour over samples at ``t_s`` seconds, the fitted figure
    at 24 hours, the mean and the slope as a percentage of the mean per hour (the soak's goal: under 1%/h)."""
    slope_s, intercept = least_squares(t_s, mb)
    mean = sum(mb) / len(mb)
    slope_h = slope_s * 3600
    return {"samples": len(mb), "first_mb": mb[0], "last_mb": mb[-1], "mean_mb": mean, "slope_mb_per_h": slope_h,
            "projected_24h_mb": intercept + slope_s * DAY_H * 3600,
            "pct_per_h": 100 * slope_h / mean if mean > 0 else None}
