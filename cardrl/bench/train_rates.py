"""How ``cardrl bench train`` counts frames trained per second, the same for both trainers it runs (cardrl's DMC,
:mod:`cardrl.bench.train`; DouZero's, :mod:`cardrl.bench.train_douzero`): the rate from update times, and the
environment of the child process each trainer runs in (one torch thread, no Ray cluster address).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["update_rate", "updates_total", "rate_fields", "child_env", "tail_text", "SETUP_TIMEOUT_S"]

SETUP_TIMEOUT_S = 600.0  # a trainer's launch to its first update, at most


def update_rate(updates: Sequence[tuple[float, str, int]], seconds: float | None = None) -> dict[str, Any]:
    """Frames trained per second from a trainer's updates ``(time, position, frames)``, sorted by time.

    The window (``seconds`` in the result) starts at the first update and, with ``seconds``, ends ``seconds``
    later (without: at the last update). Updates come in bursts (every position fills its batch at about the same
    time), so the rate is summed over positions, each measured between its own first and last update in the
    window: frames of its later updates over the time between them (the same phase at both ends, no partial update
    counted). When a position has fewer than two updates in the window (or a position is unknown), the rate falls
    back to the frames of all updates after the first over the window's length (``method`` "all"; coarse: off by
    up to one burst).
    """
    if not updates:
        raise ValueError("no updates to measure a rate from; the trainer made none")
    t0 = updates[0][0]
    inside = [u for u in updates if seconds is None or u[0] - t0 <= seconds]
    by_position: dict[str, list[tuple[float, int]]] = {}
    for t, position, frames in inside:
        by_position.setdefault(position, []).append((t, frames))
    rates = {}
    for position, ups in by_position.items():
        if len(ups) >= 2 and ups[-1][0] > ups[0][0] and position != "unknown":
            rates[position] = sum(f for _, f in ups[1:]) / (ups[-1][0] - ups[0][0])
    span = float(seconds) if seconds is not None else inside[-1][0] - t0
    result = {"frames": sum(f for t, _, f in inside if t > t0), "seconds": span, "updates": len(inside)}
    if rates and len(rates) == len(by_position):
        return {**result, "frames_per_s": sum(rates.values()), "method": "per position",
                "frames_per_s_by_position": rates}
    if span <= 0:
        raise ValueError(f"{len(inside)} update(s) at one instant and no window length: no rate; give the trainer "
                         "more seconds")
    return {**result, "frames_per_s": result["frames"] / span, "method": "all",
            "frames_per_s_by_position": {}}



def updates_total(updates: Iterable[tuple[float, str, int]]) -> int:
    """Frames of all the given updates."""
    return sum(f for _, _, f in updates)



def rate_fields(rate: dict[str, Any]) -> dict[str, Any]:
    """The fields of a trainer's result that :func:`update_rate` measured."""
    return {"frames_per_s": rate["frames_per_s"], "window_s": rate["seconds"], "updates": rate["updates"],
            "rate_method": rate["method"], "frames_per_s_by_position": rate["frames_per_s_by_position"]}


def child_env() -> dict[str, str]:
    """The environment of the trainers' child processes: one torch/BLAS thread each, no Ray cluster address."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("RAY_ADDRESS", None)
    return env



def tail_text(text: str, n: int = 3000) -> str:
    """The last ``n`` characters of a child's output, for an error message."""
    return text[-n:] if len(text) > n else text
