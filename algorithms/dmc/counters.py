"""DMC's counters: :class:`DMCCounters`, the run's totals that a checkpoint carries (saved and restored as a whole),
and :class:`DMCStats`, what this process measured for the iteration's metrics (not saved); the key of the counters
and identity (game, network, the play options) in the algorithm state, and their reader. Below both the checkpoint
loaders and the evaluation's play options, which read them."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from cardrl.algorithms.common.checkpoint_state import read_checkpoint_state

__all__ = ["DMCCounters", "DMCStats", "DMC_COUNTERS", "read_checkpoint_counters"]

DMC_COUNTERS = "dmc_counters"  # the algorithm state's key of DMC's counters and identity (DMC.get_state)

# counters that checkpoints written before them lack: restored as their default (every checkpoint has the others)
_ADDED_LATER = frozenset({"deals", "env_runner_restarts", "env_runner_samples_lost"})


@dataclass
class DMCCounters:
    """The run's totals, ``DMC.counters``: each is reported by that name every iteration and saved under it in the
    checkpoint's :data:`DMC_COUNTERS` (beside the identity and the play options), so a resumed run goes on counting."""

    frames_trained: int = 0
    frames_sampled: int = 0
    episodes: int = 0
    deals: int = 0  # scoring segments ended (a GuanDan match's deals; elsewhere the episodes)
    weights_seq_no: int = 1  # the version of the learner's weights; runners report the one they sampled with
    env_runner_restarts: int = 0  # remote env runners Ray restarted and DMC brought back
    env_runner_samples_lost: int = 0  # sample requests lost with a runner that died

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, saved: Mapping[str, Any]) -> DMCCounters:
        """The counters of a checkpoint's :data:`DMC_COUNTERS` (which also holds the identity: ignored here); a
        counter older checkpoints lack is its default. KeyError if one that every checkpoint has is missing."""
        return cls(**{f.name: saved[f.name] for f in fields(cls) if f.name in saved or f.name not in _ADDED_LATER})


@dataclass
class DMCStats:
    """What this process measured for the iteration's metrics, ``DMC.stats``: tallies since it started and windows of
    the latest values. Not saved: a restored run reports them from its own start, its rates from its restore."""

    module_updates: dict[str, int] = field(default_factory=dict)  # learner updates per module
    module_frames_sampled: dict[str, int] = field(default_factory=dict)  # frames sampled per module
    coach_counts: list[int] = field(default_factory=lambda: [0, 0])  # deals the coach rejected, accepted
    prune_counts: list[int] = field(default_factory=lambda: [0, 0])  # ODMC: legal moves seen, moves kept
    target_baselines: dict[str, float] = field(default_factory=dict)  # each seat's mean return, as runners report
    ages: deque = field(default_factory=lambda: deque(maxlen=30))  # (updates, seconds) of the last updates' frames
    lags: deque = field(default_factory=lambda: deque(maxlen=100))  # updates behind, of the last sample batches
    recent_returns: deque = field(default_factory=lambda: deque(maxlen=1000))  # the last episodes' returns
    counted_from: tuple[int, int] = (0, 0)  # (frames trained, episodes) at `start`: the rates count from there
    start: float = field(default_factory=time.time)

    @classmethod
    def of_modules(cls, module_ids) -> DMCStats:
        return cls(module_updates=dict.fromkeys(module_ids, 0), module_frames_sampled=dict.fromkeys(module_ids, 0))

    def count_rates_from(self, counters: DMCCounters) -> None:
        """The rates (frames trained and episodes per second) count from ``counters`` and now (a restore)."""
        self.counted_from = (counters.frames_trained, counters.episodes)
        self.start = time.time()


def read_checkpoint_counters(path) -> dict | None:
    """The DMC counters and identity (game, network) saved in an algorithm checkpoint directory."""
    return read_checkpoint_state(path).get(DMC_COUNTERS)
