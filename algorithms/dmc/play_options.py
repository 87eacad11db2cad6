"""How a DMC agent plays when it is evaluated: the pruning it was trained with and the oracle block it is fed.

Two training options change what the Q-network's greedy policy is, not only how it learned:

- ODMC's pruning (Luo & Tan 2024, Sec. 4.3, eq. 2; ``prune="mcs"``): the actor scored and chose among the kept moves
  only, so a pruned move never got a Monte-Carlo target. An ODMC agent plays with the same pruning (slack settings
  from its training config) unless told to play unpruned; eq. 2 reads only what the player sees (its hand, the hand
  sizes, the moves made), so the pruned agent is deployable.
- Oracle guiding (OADMCDou, Luo et al. 2024, Sec. 4.1, eq. 1; ``oracle=...``): the Q input holds lambda x the other
  players' hands. The *deployable* score feeds zeros (what a real player can see: the paper's agent after lambda has
  reached 0); the *trained-block* score feeds the block the agent was trained on at its frames (lambda of the
  schedule at the checkpoint's frames x the true hands): what OADMCDou's Fig. 4 plots for PerfectDou (lambda fixed at
  1). With ``oracle_mode="bernoulli"`` the network saw the whole hands (x 1) with probability lambda and zeros
  otherwise: its trained block is the whole hands, fed whenever lambda > 0 (zeros is the deployable score); feeding a
  random mix of the two would only blend the two scores with noise.

:class:`PlayOptions` holds these settings, from a live config (:meth:`PlayOptions.of_config`) or a checkpoint
(:meth:`PlayOptions.of_checkpoint`: the record DMC saves with its counters, else the RLlib config the checkpoint was
written with), and builds the move filters and block functions that :func:`cardrl.eval.lockstep.evaluate_scorer`
(engines) and :class:`~cardrl.agents.q_agent.QAgent` (views) take. No Ray or torch here.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from cardrl.algorithms.dmc.schedules import OracleSchedule

__all__ = ["PlayOptions", "DEPLOYABLE", "TRAINED_BLOCK"]

DEPLOYABLE = "zeros"  # the oracle block a real player can feed
TRAINED_BLOCK = "trained"  # lambda x the true hands (bernoulli: the hands whenever lambda > 0)


@dataclass(frozen=True)
class PlayOptions:
    """The training options that change how a DMC agent plays (module docstring), and its frames trained (which fix
    the oracle schedule's lambda)."""

    prune: str | None = None
    prune_slack: str | float = "paper"
    prune_extra: float = 0.0
    oracle: OracleSchedule | None = None
    oracle_mode: str = "scale"
    frames_trained: int = 0

    # ---- where they come from ------------------------------------------------------------------------------------
    @classmethod
    def of_config(cls, config: Any, frames_trained: int = 0) -> "PlayOptions":
        """The options of a live :class:`~cardrl.algorithms.dmc.dmc.DMCConfig` (or its ``to_dict()``)."""
        get = config.get if isinstance(config, Mapping) else (lambda k, d=None: getattr(config, k, d))
        oracle = get("oracle")
        if isinstance(oracle, str):
            from cardrl.algorithms.dmc.schedules import parse_oracle

            oracle = parse_oracle(oracle)
        return cls(prune=get("prune"), prune_slack=get("prune_slack", "paper"),
                   prune_extra=float(get("prune_extra", 0.0) or 0.0), oracle=oracle,
                   oracle_mode=get("oracle_mode", "scale") or "scale", frames_trained=int(frames_trained))

    def to_dict(self) -> dict[str, Any]:
        """JSON form, saved with a checkpoint's DMC counters (:meth:`from_dict` reads it back)."""
        oracle = None if self.oracle is None else {"start": self.oracle.start, "end": self.oracle.end,
                                                   "frames_start": self.oracle.frames_start,
                                                   "frames_end": self.oracle.frames_end}
        return {"prune": self.prune, "prune_slack": self.prune_slack, "prune_extra": self.prune_extra,
                "oracle": oracle, "oracle_mode": self.oracle_mode}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any], frames_trained: int = 0) -> "PlayOptions":
        oracle = record.get("oracle")
        return cls(prune=record.get("prune"), prune_slack=record.get("prune_slack", "paper"),
                   prune_extra=float(record.get("prune_extra") or 0.0),
                   oracle=None if oracle is None else OracleSchedule(**oracle),
                   oracle_mode=record.get("oracle_mode") or "scale", frames_trained=int(frames_trained))

    @classmethod
    def of_checkpoint(cls, path: str | Path) -> "PlayOptions | None":
        """The options an algorithm checkpoint was trained with, at its frames: the ``play_options`` record of its
        DMC counters, else (a checkpoint written before that record existed) the config in RLlib's
        ``class_and_ctor_args.pkl``. None for a directory of modules only (no training config: plain play)."""
        from cardrl.algorithms.dmc import counters as dmc_counters  # looked up at call time (tests patch it)

        root = Path(path)
        if not ((root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file()):
            return None
        counters = dmc_counters.read_checkpoint_counters(root) or {}
        frames = int(counters.get("frames_trained") or 0)
        if counters.get("play_options") is not None:
            return cls.from_dict(counters["play_options"], frames)
        ctor = root / "class_and_ctor_args.pkl"
        try:
            with ctor.open("rb") as f:
                config = pickle.load(f)["ctor_args_and_kwargs"][0][0]
        except Exception as err:  # a missing or foreign file: its training options can not be known
            raise ValueError(f"checkpoint {root} does not say how it was trained (no play_options in its DMC state, "
                             f"and {ctor.name} could not be read: {err}); load its modules directory "
                             f"({root}/learner_group/learner/rl_module) to play it plainly") from None
        return cls.of_config(config, frames)

    # ---- the oracle block ----------------------------------------------------------------------------------------
    @property
    def trained_lambda(self) -> float:
        """Lambda of the oracle schedule at ``frames_trained`` (0 without oracle guiding)."""
        return 0.0 if self.oracle is None else float(self.oracle.value(self.frames_trained))

    @property
    def has_trained_block(self) -> bool:
        """Whether the block it was trained on at its frames differs from zeros (oracle guiding with lambda > 0)."""
        return self.trained_lambda > 0

    @property
    def block_scale(self) -> float:
        """The factor of the true hands in the trained block: lambda ("scale"), 1 ("bernoulli", lambda > 0)."""
        lam = self.trained_lambda
        return lam if self.oracle_mode == "scale" or lam == 0 else 1.0

    def check_trained_block(self, where: str) -> None:
        """ValueError unless there is a trained block to feed (an oracle agent whose lambda is > 0 at its frames)."""
        if self.oracle is None:
            raise ValueError(f"{where}: the agent was trained without oracle guiding: it has no oracle block to feed "
                             f"(drop 'oracle')")
        if not self.has_trained_block:
            raise ValueError(f"{where}: the oracle schedule's lambda is 0 at this agent's {self.frames_trained:,} "
                             f"frames: the block it was trained on is zeros, which it is fed without 'oracle'")

    def engine_blocks(self) -> Callable[[Any, int], dict[str, np.ndarray]]:
        """``blocks(engine, seat)``: the trained oracle block of the player at ``seat`` (for evaluate_scorer)."""
        from cardrl.algorithms.dmc.oracle import ORACLE, oracle_block

        scale = np.float32(self.block_scale)
        return lambda engine, seat: {ORACLE: oracle_block(engine, seat).astype(np.float32) * scale}

    def view_blocks(self) -> Callable[[Any], dict[str, np.ndarray]]:
        """``blocks(view)`` of an oracle view: the trained oracle block (for QAgent)."""
        from cardrl.algorithms.dmc.oracle import ORACLE, oracle_block_of_view

        scale = np.float32(self.block_scale)
        return lambda view: {ORACLE: oracle_block_of_view(view).astype(np.float32) * scale}

    def block_label(self, trained: bool) -> str:
        """What an evaluation fed as the oracle block, in words."""
        if self.oracle is None:
            return "no oracle block"
        if not trained:
            return "zero oracle block (deployable)"
        if self.oracle_mode == "bernoulli":
            return (f"trained oracle block: the true hands (bernoulli, shown with probability lambda "
                    f"{self.trained_lambda:.3f} in training)")
        return f"trained oracle block: lambda {self.trained_lambda:.3f} x the true hands"

    # ---- pruning -------------------------------------------------------------------------------------------------
    @property
    def pruned(self) -> bool:
        return self.prune == "mcs"

    def engine_pruner(self):
        """``kept(engine, legal)`` with the training's slack settings (:class:`~cardrl.search.prune.MCSPruner`)."""
        from cardrl.search.prune import MCSPruner

        return MCSPruner(self.prune_slack, self.prune_extra)

    def view_pruner(self, game: str, options: Mapping[str, Any] | None = None):
        """``kept(view, legal)`` for an agent (:class:`~cardrl.search.prune.MCSViewPruner`)."""
        from cardrl.search.prune import MCSViewPruner

        return MCSViewPruner(game, options, self.prune_slack, self.prune_extra)

    def pruning_label(self, pruned: bool) -> str:
        if not self.pruned:
            return "no pruning"
        slack = "N/n + d" if self.prune_slack == "paper" else f"{self.prune_slack:g}"
        extra = f" + {self.prune_extra:g}" if self.prune_extra else ""
        return f"MCS pruning (slack {slack}{extra}), as trained" if pruned else "unpruned (trained with MCS pruning)"

    def label(self, *, trained_block: bool = False, pruned: bool | None = None) -> str:
        """What an evaluation fed and how it pruned, e.g. ``"zero oracle block (deployable); no pruning"``."""
        return f"{self.block_label(trained_block)}; {self.pruning_label(self.pruned if pruned is None else pruned)}"
