"""How :class:`~cardrl.algorithms.dmc.dmc.DMC` checkpoints: RLlib saves the learner and runner states; DMC's counters
(frames, episodes, deals, restarts), its identity (game, features and their versioned layout, networks, options that
change the modules, every rule option, the action-space size: docs/operations.md, "Checkpoint identity") and
the driver's ``run_info`` ride along in the algorithm state. Checkpoints written by :meth:`DMCCheckpointing.
save_to_path` end with a completion marker (:data:`MANIFEST`, :func:`write_manifest`) that
:meth:`DMCCheckpointing.restore_from_path`, the driver's ``--resume`` and the agent loaders check
(:func:`verify_checkpoint`: docs/operations.md, "Checkpoints"). The frame buffers are not saved: a restored run starts
with empty buffers, and its runners are reseeded from (seed, frames trained) so that it does not replay the deals of
the run it continues.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.checkpoint_trust import file_sha256
from cardrl.algorithms.common.checkpoint_identity import LAYOUT_KEYS, layout_identity
from cardrl.algorithms.common.checkpoint_state import IdentityCheckedState, identity_problems
from cardrl.algorithms.dmc.counters import DMC_COUNTERS, DMCCounters
from cardrl.atomic_file import replace_text

__all__ = ["DMCCheckpointing", "DMC_RUN", "MANIFEST", "write_manifest", "verify_checkpoint",
           "IncompleteCheckpointError", "missing_module_files"]

DMC_RUN = "dmc_run"  # the algorithm state's key of what the driver keeps for a resume (run_info)

# The completion marker of a cardrl checkpoint directory: written last, after every file of the checkpoint is on disk,
# it lists each file with its size. A directory without it (or whose files do not match it) is not a complete
# checkpoint: a write that was cut short (docs/operations.md, "Checkpoints").
MANIFEST = "cardrl_checkpoint.json"
# Files every RLlib algorithm checkpoint has (the state file is .pkl or .msgpack); checked where there is no manifest
# (checkpoints written before cardrl wrote one).
_ALGORITHM_FILES = ("rllib_checkpoint.json", "class_and_ctor_args.pkl", "learner_group/learner/state.pkl")
_MODULE_FILES = ("module_state.pkl", "class_and_ctor_args.pkl", "metadata.json")


class IncompleteCheckpointError(ValueError):
    """A checkpoint directory that is incomplete or corrupt: a file is missing or has another size than when it was
    written."""


def write_manifest(path: str | Path, info: Mapping[str, Any] | None = None) -> Path:
    """Write ``path/cardrl_checkpoint.json``: every file under ``path`` with its size and SHA-256 (each synced to disk
    first), plus ``info`` (the DMC counters). Written last, through a temporary file and a rename, so that it exists only
    when the checkpoint is complete."""
    root = Path(path)
    files, digests = {}, {}
    for file in sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST
                       and not p.name.startswith(MANIFEST)):
        with file.open("rb") as f:
            os.fsync(f.fileno())
        name = file.relative_to(root).as_posix()
        files[name] = file.stat().st_size
        digests[name] = file_sha256(file)
    record = {"format": 1, "files": files, "sha256": digests, **({"info": dict(info)} if info else {})}
    return replace_text(root / MANIFEST, json.dumps(record, indent=1, sort_keys=True, default=str), fsync=True)


def missing_module_files(module_dir: Path, root: Path) -> list[str]:
    """The files an RLlib module directory must hold that ``module_dir`` lacks, relative to ``root``."""
    return [str((module_dir / name).relative_to(root)) for name in _MODULE_FILES if not (module_dir / name).is_file()]


def verify_checkpoint(path: str | Path, *, algorithm: bool = True) -> dict | None:
    """Check that an algorithm checkpoint directory is complete; returns its manifest (None for a checkpoint
    written before cardrl wrote manifests, whose RLlib files are checked instead where ``algorithm``: what
    restoring an algorithm reads; an agent loader reads only the modules, which it checks itself).

    Raises :class:`IncompleteCheckpointError` (a ValueError) naming what is missing or truncated, FileNotFoundError
    when ``path`` is not a directory."""
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {path} does not exist")
    manifest_file = root / MANIFEST
    if manifest_file.is_file():
        try:
            manifest = json.loads(manifest_file.read_text())
            files = dict(manifest["files"])
            digests = dict(manifest.get("sha256") or {})  # absent in manifests written before they were recorded
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise IncompleteCheckpointError(f"checkpoint {path} is incomplete or corrupt: its {MANIFEST} can not be "
                                            f"read ({err})") from None
        missing = sorted(name for name in files if not (root / name).is_file())
        wrong = sorted(f"{name} ({(root / name).stat().st_size} bytes, written with {size})"
                       for name, size in files.items() if name not in missing and (root / name).stat().st_size != size)
        # same size, other bytes (a bit flip, a bad copy): the digests of manifests that record them
        wrong += sorted(f"{name} (its bytes differ from those written)" for name, digest in
                        digests.items() if name in files and name not in missing
                        and (root / name).stat().st_size == files[name] and file_sha256(root / name) != digest)
        if missing or wrong:
            raise IncompleteCheckpointError(
                f"checkpoint {path} is incomplete or corrupt: "
                + "; ".join(part for part in (f"missing {', '.join(missing)}" if missing else "",
                                              f"truncated or changed {', '.join(wrong)}" if wrong else "") if part)
                + " (a complete copy may be its sibling checkpoint.prev; see docs/operations.md)")
        return manifest
    if not algorithm:
        return None
    missing = [name for name in _ALGORITHM_FILES if not (root / name).is_file()]
    if not (root / "algorithm_state.pkl").is_file() and not (root / "algorithm_state.msgpack").is_file():
        missing.insert(0, "algorithm_state.pkl")
    modules = root / "learner_group" / "learner" / "rl_module"
    if modules.is_dir():
        for module_dir in sorted(p for p in modules.iterdir() if p.is_dir()):
            missing += missing_module_files(module_dir, root)
    else:
        missing.append("learner_group/learner/rl_module/")
    if missing:
        raise IncompleteCheckpointError(f"checkpoint {path} is incomplete or corrupt: missing {', '.join(missing)} "
                                        f"(and it has no {MANIFEST}, the marker a complete cardrl checkpoint ends "
                                        f"with)")
    return None


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
        :func:`write_manifest`). An old marker is removed first, so a directory written over and cut short has none.
        (Local paths only: a ``filesystem`` argument skips the marker.)"""
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
