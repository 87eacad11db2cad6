"""How :class:`~cardrl.algorithms.dmc.dmc.DMC` checkpoints: RLlib saves the learner and runner states; DMC's counters
(frames, episodes, deals, restarts), its identity (game, features and their versioned layout, networks, options that
change the modules, every rule option, the action-space size: docs/operations.md, "Checkpoint identity") and
the driver's ``run_info`` ride along in the algorithm state. Checkpoints written by :meth:`DMCCheckpointing.
save_to_path` end with a completion marker (``cardrl_checkpoint.json``) that :meth:`DMCCheckpointing.restore_from_path`
checks. The frame buffers are not saved: a restored run starts with empty buffers, and its runners are reseeded from
(seed, frames trained) so that it does not replay the deals of the run it continues.
"""

from __future__ import annotations

from pathlib import Path

from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.algorithms.common.checkpoint_identity import LAYOUT_KEYS, layout_identity
from cardrl.algorithms.common.checkpoint_state import IdentityCheckedState, identity_problems
from cardrl.algorithms.dmc.checkpoints import verify_checkpoint
from cardrl.algorithms.dmc.counters import DMC_COUNTERS, DMCCounters

__all__ = ["DMCCheckpointing", "DMC_COUNTERS", "DMC_RUN"]

DMC_RUN = "dmc_run"  # the algorithm state's key of what the driver keeps for a resume (run_info)


def _local_path(path, kwargs: dict) -> bool:
    """Whether a checkpoint save or restore is on the local disk (no ``filesystem`` argument, no URI): where cardrl
    writes and checks its completion marker."""
    return kwargs.get("filesystem") is None and "://" not in str(path)


class DMCCheckpointing(IdentityCheckedState):
    """The checkpoint half of :class:`~cardrl.algorithms.dmc.dmc.DMC` (module docstring)."""

    COUNTERS_KEY = DMC_COUNTERS

    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = super().get_state(components, not_components=not_components, **kwargs)
        state[DMC_COUNTERS] = self._counters_state()
        state[DMC_RUN] = dict(self.run_info)
        return state

    def _counters_state(self) -> dict:
        """The state's :data:`DMC_COUNTERS`: the counters (:class:`~cardrl.algorithms.dmc.counters.DMCCounters`, each
        under its own name, as checkpoints always held them), the play options and the identity."""
        return {**self.counters.to_dict(), "play_options": self.play_options().to_dict(), **self._identity()}

    def save_to_path(self, path=None, *args, **kwargs) -> str:
        """RLlib's checkpoint, then its completion marker ``cardrl_checkpoint.json`` (every file with its size:
        :func:`~cardrl.algorithms.dmc.checkpoints.write_manifest`). An old marker is removed first, so a directory
        written over and cut short has none. (Local paths only: a ``filesystem`` argument skips the marker.)"""
        from cardrl.algorithms.dmc.checkpoints import MANIFEST, write_manifest

        local = _local_path(path, kwargs)  # path None: RLlib writes to a local temporary directory
        if local and path is not None and (Path(path) / MANIFEST).is_file():
            (Path(path) / MANIFEST).unlink()
        out = super().save_to_path(path, *args, **kwargs)
        if local:
            write_manifest(out, {**self._counters_state(), "training_iteration": self.iteration})
        return out

    def _identity(self) -> dict:
        """What a checkpoint must agree on to be restored into this algorithm."""
        cfg = self.config
        return {"game": cfg.game_spec.env_name, "q_model": cfg.q_model, "opponent_model": cfg.opponent_model,
                "features": (cfg.env_config or {}).get("features") or cfg.game_spec.default_features,
                "oracle": cfg.oracle is not None, "coach": bool(cfg.coach),
                "module_mapping": cfg.resolved_module_mapping(),
                **({"coach_input": cfg.coach_input} if cfg.coach else {}),
                "hidden_sizes": list(cfg.hidden_sizes) if cfg.hidden_sizes else None,
                "kickers": dict(cfg.env_config or {}).get("kickers", "douzero"),
                "bidding": bool(cfg.bidding),
                **layout_identity(cfg.game_spec, cfg.env_config, (cfg.env_config or {}).get("features"))}

    def _check_identity(self, counters: dict | None, where: str) -> None:
        """ValueError unless ``counters`` (a checkpoint's) agree with this algorithm's identity."""
        if not counters:
            raise ValueError(f"{where} is not a cardrl DMC checkpoint (it has no DMC state)")
        # keys older checkpoints lack had one value then: no opponent model, oracle or coach, the game's features,
        # the game's module mapping whatever the features, the coach reading card kinds
        older = {"opponent_model": None, "oracle": False, "coach": False,
                 "features": self.config.game_spec.default_features,
                 "module_mapping": default_module_mapping(self.config.game_spec), "coach_input": "kinds",
                 "bidding": False}
        identity = self._identity()
        older.update({k: identity[k] for k in LAYOUT_KEYS})  # written before the layout was recorded: today's
        diffs = identity_problems(identity, counters, older)
        if diffs:
            raise ValueError(f"{where} does not match this DMC config (" + "; ".join(diffs) + ")")

    @classmethod
    def _before_restore(cls, path, kwargs: dict) -> None:
        if _local_path(path, kwargs):
            verify_checkpoint(path)  # a checkpoint whose write was cut short is refused, naming what is missing

    def _restore_counters(self, counters: dict) -> None:
        """The counters of a checkpoint's state, as a whole (:meth:`DMCCounters.from_dict`: those older checkpoints
        lack start from their default); the rates count from them."""
        self.counters = DMCCounters.from_dict(counters)
        self.stats.count_rates_from(self.counters)
        self._weights_ref = None
        self._reseed_runners()

    def set_state(self, state) -> None:
        super().set_state(state)
        if DMC_RUN in state:
            self.run_info = dict(state[DMC_RUN] or {})
