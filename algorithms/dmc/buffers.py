"""Bounded, fresh sample buffers of DMC: one per module, newest frames first, oldest dropped.

DouZero updates each position as soon as its own batch is ready, from a bounded pool of buffers (Zha et al. 2021,
Sec. 4; its ``num_buffers``). :class:`FrameBuffer` does the same for one module: chunks of frames arrive from the
env runners with the weights version and the time they were made; :meth:`FrameBuffer.take` serves the newest
``n`` frames; whatever exceeds ``capacity`` frames is dropped, oldest first. So the memory held is bounded whatever
the run length, and a module never trains on data older than ``capacity`` frames of its own. Each take reports the
age of what it served: in learner updates (the weights version it was made with, against the current one) and in
seconds.

The buffer owns what it holds: :meth:`FrameBuffer.add` copies an array that is a view of memory it does not own. A
remote runner's reply arrives as arrays read in place from Ray's object store, and one such view, however few frames
it kept, would pin the whole reply (every module's columns) there until the buffer let go of it (docs/operations.md,
"The chaos run and the soaks").
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["FrameBuffer", "TakenBatch"]


@dataclass(frozen=True)
class TakenBatch:
    """``n`` frames (column -> array) and the mean age of their frames: learner updates behind, seconds old."""

    columns: dict[str, np.ndarray]
    age_updates: float
    age_seconds: float


def _owned(array: np.ndarray) -> np.ndarray:
    """``array``, copied when it is a view of memory it does not own (module docstring)."""
    return array.copy() if isinstance(array, np.ndarray) and array.base is not None else array


class FrameBuffer:
    """The frames of one module, as chunks ``(columns, weights version, time made)`` oldest first (module docstring).

    ``capacity`` is in frames (at least one batch); ``dropped`` counts the frames dropped because it was full.
    """

    def __init__(self, capacity: int):
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
            raise ValueError(f"buffer capacity must be a positive int (frames), got {capacity!r}")
        self.capacity = int(capacity)
        self._chunks: deque[tuple[dict[str, np.ndarray], int, float]] = deque()
        self.frames = 0
        self.dropped = 0

    def __len__(self) -> int:
        return self.frames

    @property
    def nbytes(self) -> int:
        """Bytes held: of each array the owned array it is a slice of (``add`` copies what it does not own), counted
        once."""
        held = {}
        for cols, _, _ in self._chunks:
            for a in cols.values():
                owner = a if a.base is None else a.base
                held[id(owner)] = owner.nbytes
        return sum(held.values())

    def add(self, columns: dict[str, np.ndarray], version: int, made_at: float | None = None) -> None:
        """Append a chunk of frames made with weights ``version`` at ``made_at`` (default: now); drop the oldest
        frames beyond the capacity."""
        n = len(next(iter(columns.values())))
        if n == 0:
            return
        columns = {k: _owned(v) for k, v in columns.items()}
        self._chunks.append((columns, int(version), time.time() if made_at is None else float(made_at)))
        self.frames += n
        excess = self.frames - self.capacity
        while excess > 0:
            cols, version_, made = self._chunks[0]
            size = len(next(iter(cols.values())))
            if size <= excess:
                self._chunks.popleft()
                cut = size
            else:
                self._chunks[0] = ({k: v[excess:] for k, v in cols.items()}, version_, made)
                cut = excess
            self.frames -= cut
            self.dropped += cut
            excess -= cut

    def take(self, n: int, current_version: int, now: float | None = None) -> TakenBatch:
        """The newest ``n`` frames (removed from the buffer) and their mean age; ValueError if fewer are held."""
        if n > self.frames:
            raise ValueError(f"the buffer holds {self.frames} frames, fewer than the {n} asked for")
        now = time.time() if now is None else now
        parts: list[dict[str, np.ndarray]] = []
        ages_u = ages_s = 0.0
        got = 0
        while got < n:
            cols, version, made = self._chunks.pop()
            size = len(next(iter(cols.values())))
            need = n - got
            if size > need:  # keep the older part of the chunk
                self._chunks.append(({k: v[:size - need] for k, v in cols.items()}, version, made))
                cols = {k: v[size - need:] for k, v in cols.items()}
                size = need
            parts.append(cols)
            ages_u += size * (current_version - version)
            ages_s += size * (now - made)
            got += size
        self.frames -= n
        parts.reverse()  # oldest first within the batch, as the frames were made
        columns = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return TakenBatch(columns, ages_u / n, ages_s / n)
