"""Chunks of seeded games as Ray tasks, merged in order: the same numbers whatever the parallelism."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

__all__ = ["run_in_chunks", "ensure_ray", "one_torch_thread", "Progress", "ProgressLine", "offset_progress"]

Progress = Callable[[int, int], None]  # (rows done, rows in all), after each chunk


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Torch (when a loaded agent imported it) on one thread inside the block: the same float arithmetic in every
    worker, so results do not depend on the parallelism."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def ensure_ray() -> Any:
    """Ray, when it is not running yet: the cluster of ``RAY_ADDRESS``, else a local Ray on 2 CPUs
    (:func:`cardrl.ray_start.start_ray`)."""
    import ray

    from cardrl.ray_start import start_ray

    start_ray(2)
    return ray


class ProgressLine:
    """A :data:`Progress` that prints ``[eval 15s] deals 600/3,000 (40/s) | ETA 1.2 min`` at most every
    ``every_s`` seconds, and once more when all rows are done."""

    def __init__(self, unit: str = "deals", every_s: float = 15.0, say: Callable[[str], Any] = print):
        self.unit, self.every_s, self.say = unit, every_s, say
        self.t0 = time.perf_counter()
        self._said = self.t0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - self._said < self.every_s and done < total:
            return
        self._said = now
        rate = done / max(now - self.t0, 1e-9)
        line = f"[eval {now - self.t0:5.0f}s] {self.unit} {done:,}/{total:,} ({rate:,.0f}/s)"
        if done < total and rate > 0:
            line += f" | ETA {(total - done) / rate / 60:.1f} min"
        self.say(line)


def offset_progress(progress: Progress | None, before: int, total: int) -> Progress | None:
    """``progress`` for one part of a longer run (a league's pair): ``before`` rows done in earlier parts, ``total``
    in all."""
    return None if progress is None else (lambda done, _: progress(before + done, total))


def run_in_chunks(fn: Callable[..., tuple[np.ndarray, ...]], before: tuple, items: Sequence[np.ndarray],
                  after: tuple = (), num_workers: int = 0, chunk_size: int = 1, *, shared: Sequence[int] = (),
                  with_start: bool = False, progress: Progress | None = None) -> tuple[np.ndarray, ...]:
    """``fn(*before, *[item[lo:hi] for item in items], *after[, lo])`` over chunks of the items' rows, each returning
    a tuple of arrays with one row per item row; returns those arrays concatenated in row order.

    ``num_workers=0`` makes one call in this process; ``k >= 1`` runs chunks of ``chunk_size`` rows as Ray tasks, at
    most ``k`` at a time (Ray is started with 2 CPUs if needed). The arguments of ``before`` at the positions in
    ``shared`` (large objects such as agents) go to the object store once, not once per chunk. ``progress`` is told
    the rows done after each chunk (with Ray only).
    """
    n = len(items[0])
    if num_workers == 0:
        return fn(*before, *items, *after, *((0,) if with_start else ()))
    ray = ensure_ray()
    task = ray.remote(num_cpus=1)(fn)
    refs: dict[int, Any] = {}
    for i in shared:
        if id(before[i]) not in refs:
            refs[id(before[i])] = ray.put(before[i])
    before = tuple(refs[id(arg)] if i in shared else arg for i, arg in enumerate(before))
    pending = [(lo, min(n, lo + chunk_size)) for lo in range(0, n, chunk_size)]
    results: dict[int, tuple[np.ndarray, ...]] = {}
    running: dict[Any, int] = {}
    rows_done = 0
    while pending or running:
        while pending and len(running) < num_workers:
            lo, hi = pending.pop(0)
            args = (*before, *(item[lo:hi] for item in items), *after, *((lo,) if with_start else ()))
            running[task.remote(*args)] = lo
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            lo = running.pop(ref)
            results[lo] = ray.get(ref)
            rows_done += len(results[lo][0])
        if progress is not None:
            progress(rows_done, n)
    order = sorted(results)
    width = len(results[order[0]])
    return tuple(np.concatenate([results[lo][j] for lo in order]) for j in range(width))
