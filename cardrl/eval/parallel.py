"""Chunks of seeded games as Ray tasks, merged in order: the same numbers whatever the parallelism."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

__all__ = ["run_in_chunks", "ensure_ray", "one_torch_thread"]


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


def run_in_chunks(fn: Callable[..., tuple[np.ndarray, ...]], before: tuple, items: Sequence[np.ndarray],
                  after: tuple = (), num_workers: int = 0, chunk_size: int = 1, *, shared: Sequence[int] = (),
                  with_start: bool = False) -> tuple[np.ndarray, ...]:
    """``fn(*before, *[item[lo:hi] for item in items], *after[, lo])`` over chunks of the items' rows, each returning
    a tuple of arrays with one row per item row; returns those arrays concatenated in row order.

    ``num_workers=0`` makes one call in this process; ``k >= 1`` runs chunks of ``chunk_size`` rows as Ray tasks, at
    most ``k`` at a time (Ray is started with 2 CPUs if needed). The arguments of ``before`` at the positions in
    ``shared`` (large objects such as agents) go to the object store once, not once per chunk.
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
    while pending or running:
        while pending and len(running) < num_workers:
            lo, hi = pending.pop(0)
            args = (*before, *(item[lo:hi] for item in items), *after, *((lo,) if with_start else ()))
            running[task.remote(*args)] = lo
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            results[running.pop(ref)] = ray.get(ref)
    order = sorted(results)
    width = len(results[order[0]])
    return tuple(np.concatenate([results[lo][j] for lo in order]) for j in range(width))
