"""The interface of a feature encoder: what a Q-network or a policy reads of a game, from one player's seat.

An encoder turns an engine and a seat (or that seat's view) into one flat float32 observation
``[state | history flattened]``, says how to cut it back (:meth:`FeatureEncoder.split`), and turns action ids into
action vectors. The three games' encoders (DouZero's, Luo & Tan's unified one, DanZero's) and any new one
implement it; the registry names them per game (:mod:`cardrl.games.registry`) and the envs, the DMC runner, the
evaluation and the agents use nothing else (docs/extending.md, "A feature encoder").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

__all__ = ["FeatureEncoder", "check_action_ids", "slice_blocks"]


def check_action_ids(ids) -> np.ndarray:
    """``ids`` as a 1-d int64 array, or ValueError naming what an id list must be."""
    arr = np.asarray(ids)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"action ids must be a 1-d sequence of ints, got shape {arr.shape} dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def slice_blocks(slices: dict[str, slice]) -> tuple[tuple[str, int, int], ...]:
    """Named slices of a state as :meth:`FeatureEncoder.state_blocks`: ``(name, start, stop)`` in the order of the
    vector, a block before the blocks nested in it."""
    return tuple(sorted(((n, s.start, s.stop) for n, s in slices.items()), key=lambda b: (b[1], -b[2])))


class FeatureEncoder(ABC):
    """Observation and action features of one game (module docstring).

    Class attributes: ``name`` (a versioned id such as ``"douzero_v1"``), ``version`` (bumped with every change of
    the layout: the blocks, their sizes, order or meaning; checkpoints record it, :mod:`cardrl.features.layout`),
    ``history_shape`` ((T, H) of the history
    block, ``None`` without one), ``action_dim``, the observation bounds ``obs_low`` / ``obs_high`` (the env's
    Box), the DMC Q-network made for them (``default_q_model``) and the opponent models that read them. ``state_dim(agent)`` may depend on the agent (DouZero's landlord sees 319 values, a peasant 430).
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1
    default_q_model: ClassVar[str] = "mlp"  # the DMC Q-network made for these features
    opponent_models: ClassVar[tuple[str, ...]] = ()  # the opponent models that read these features
    history_shape: ClassVar[tuple[int, int] | None] = None
    action_dim: ClassVar[int] = 54
    obs_low: ClassVar[float] = 0.0
    obs_high: ClassVar[float] = 1.0

    @abstractmethod
    def state_dim(self, agent: str | None = None) -> int:
        """Values in the state block of ``agent``'s observation."""

    def state_blocks(self, agent: str | None = None) -> tuple[tuple[str, int, int], ...]:
        """The named blocks of ``agent``'s state in order, each ``(name, start, stop)``; a block may nest inside the
        one before it. The default is one block, the whole state."""
        return (("state", 0, self.state_dim(agent)),)

    def obs_dim(self, agent: str | None = None) -> int:
        """Values in the whole flat observation: state plus the flattened history."""
        history = 0 if self.history_shape is None else self.history_shape[0] * self.history_shape[1]
        return self.state_dim(agent) + history

    @abstractmethod
    def encode(self, game: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat`` in ``game`` (float32 ``(obs_dim,)``; ``out`` is filled in place if given)."""

    @abstractmethod
    def encode_view(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """The same observation from the seat's view (``game.view(seat)``): what an agent computes."""

    def split(self, obs: np.ndarray, agent: str | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """``obs (..., obs_dim)`` -> ``(state (..., state_dim), history (..., T, H) or None)`` (views, no copy)."""
        obs = np.asarray(obs)
        sd = self.state_dim(agent)
        width = self.obs_dim(agent)
        if obs.ndim == 0 or obs.shape[-1] != width:
            who = f"an {agent} observation" if agent else "an observation"
            raise ValueError(f"{who} of {self.name} has {width} values in its last axis (state {sd} + history "
                             f"{self.history_shape}); got shape {obs.shape}")
        if self.history_shape is None:
            return obs, None
        return obs[..., :sd], obs[..., sd:].reshape(obs.shape[:-1] + tuple(self.history_shape))

    def action_features(self, source: Any, ids) -> np.ndarray:
        """``(n, action_dim)`` float32 action vectors of action ids; ``source`` is the engine, a view or a move
        table (anything with ``move_cards(ids)``). The default is the 54-dim card vector of each move."""
        return source.move_cards(check_action_ids(ids)).astype(np.float32)
