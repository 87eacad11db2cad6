"""Reading what an RLlib algorithm checkpoint saved beside its components, and checking it against a config.

DMC and top-k PPO store their counters and identity (game, features, network, ...) in the algorithm state
(``algorithm_state.pkl``, or ``.msgpack`` when RLlib wrote msgpack); a checkpoint is restored only into an algorithm
whose identity agrees (:func:`identity_problems`).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["read_checkpoint_state", "identity_problems", "load_checkpoint_rl_modules", "load_module_dirs",
           "IdentityCheckedState", "damaged_checkpoint_errors"]


def read_checkpoint_state(path) -> dict:
    """The algorithm state saved in a checkpoint directory (``algorithm_state.pkl`` or ``.msgpack``); ValueError when
    it is not an RLlib algorithm checkpoint or its state file can not be read."""
    from ray.rllib.algorithms.algorithm import Algorithm

    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {path} does not exist")
    state_file = root / f"{Algorithm.STATE_FILE_NAME}.pkl"
    if not state_file.is_file():
        msgpack_file = state_file.with_suffix(".msgpack")
        if not msgpack_file.is_file():
            raise ValueError(f"{path} is not an RLlib algorithm checkpoint (it has no {state_file.name})")
        state_file = msgpack_file
    try:
        with state_file.open("rb") as f:
            if state_file.suffix == ".msgpack":
                import msgpack

                state = msgpack.load(f, strict_map_key=False)
            else:
                state = pickle.load(f)
    except Exception as err:  # a truncated or foreign file
        raise ValueError(f"checkpoint {path} is corrupt: {state_file} could not be read ({err})") from None
    return state if isinstance(state, dict) else {}


def identity_problems(identity: Mapping[str, Any], saved: Mapping[str, Any],
                      older: Mapping[str, Any] | None = None) -> list[str]:
    """Where a checkpoint's saved identity differs from a config's (``older``: the value of a key that older
    checkpoints lack)."""
    from cardrl.algorithms.common.checkpoint_identity import explain_difference
    from cardrl.features.layout import plain_value

    older = older or {}
    return [line for k, v in identity.items() if plain_value(saved.get(k, older.get(k))) != plain_value(v)
            for line in explain_difference(k, saved.get(k, older.get(k)), v)]


def load_checkpoint_rl_modules(root: Path, names: Mapping[str, str], what: str) -> dict[str, Any]:
    """Agent -> the RLModule (eval mode, CPU) of an algorithm checkpoint that ``names`` maps it to; ValueError naming
    the ``what`` (e.g. "policy module") that the checkpoint lacks."""
    mroot = root / "learner_group" / "learner" / "rl_module"
    missing = sorted({n for n in names.values() if not (mroot / n).is_dir()})
    if missing:
        raise ValueError(f"checkpoint {root} has no {what}(s) {missing} under {mroot}")
    loaded = load_module_dirs(mroot, set(names.values()), root)
    return {agent: loaded[n] for agent, n in names.items()}


def load_module_dirs(mroot: Path, names, root) -> dict[str, Any]:
    """Module name -> the RLModule (eval mode, CPU) saved in ``mroot/<name>``; a module whose files can not be read
    (truncated, overwritten) is a ValueError naming the checkpoint ``root`` and the module, not unpickling's or
    torch's error from deep inside RLlib."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    loaded = {}
    for name in sorted(names):
        where = f"checkpoint {root} is corrupt: module {name!r} ({mroot / name}) can not be loaded"
        try:  # absolute: pyarrow's file system, which RLlib's checkpoints go through, refuses a relative path
            module = RLModule.from_checkpoint(str((mroot / name).resolve()))
        except (OSError, MemoryError, RecursionError):
            raise
        except Exception as err:  # unpickling and torch raise many types for a damaged file
            raise ValueError(f"{where} ({type(err).__name__}: {err})") from err
        if type(module) is RLModule:  # RLlib falls back to the base class when the class file can not be read
            raise ValueError(f"{where} (its class_and_ctor_args.pkl does not name a module class)")
        loaded[name] = module.eval()
    return loaded


class IdentityCheckedState:
    """Mixin of an ``Algorithm`` whose state carries its counters and identity under :attr:`COUNTERS_KEY`: a
    checkpoint or state is restored only when its identity agrees with the algorithm's (``_check_identity``), and its
    counters come back with it (``_restore_counters``)."""

    COUNTERS_KEY: str

    def _read_counters(self, path) -> dict | None:
        """The counters saved in a checkpoint directory (None if it has none)."""
        return read_checkpoint_state(path).get(self.COUNTERS_KEY)

    @classmethod
    def _before_restore(cls, path, kwargs: dict) -> None:
        """Checks of a checkpoint directory before its identity (none here)."""

    def _check_identity(self, counters: dict | None, where: str) -> None:
        raise NotImplementedError

    def _restore_counters(self, counters: dict) -> None:
        raise NotImplementedError

    def restore_from_path(self, path, *args, **kwargs):
        """Restore a checkpoint, after checking that it is one of this algorithm with the same identity; a file RLlib
        can not read is a ValueError naming the checkpoint (:func:`damaged_checkpoint_errors`)."""
        if kwargs.get("component") is None:
            self._before_restore(path, kwargs)
            self._check_identity(self._read_counters(path), f"checkpoint {path}")
        with damaged_checkpoint_errors(path, "restored (this algorithm may be partly restored: build a new one)"):
            return super().restore_from_path(path, *args, **kwargs)

    @classmethod
    def from_checkpoint(cls, path, *args, **kwargs):
        """RLlib's ``from_checkpoint`` (which unpickles the checkpoint's config before any check of ours), with a
        damaged file a ValueError naming the checkpoint."""
        if not args and kwargs.get("filesystem") is None:  # RLlib restores with a filesystem, which skips the check
            cls._before_restore(path, kwargs)
        with damaged_checkpoint_errors(path, "loaded"):
            return super().from_checkpoint(path, *args, **kwargs)

    def set_state(self, state) -> None:
        counters = state.get(self.COUNTERS_KEY)
        if counters is not None:
            self._check_identity(counters, "the given state")
        super().set_state(state)
        if counters:
            self._restore_counters(counters)


@contextmanager
def damaged_checkpoint_errors(path, what: str):
    """Errors from reading a checkpoint's files inside RLlib (unpickling's, torch's, msgpack's, ...) as a ValueError
    naming the checkpoint and the original error; a ValueError or FileNotFoundError that names the checkpoint already
    (cardrl's checks) passes unchanged."""
    try:
        yield
    except (ValueError, FileNotFoundError) as err:
        if str(path) not in str(err):
            raise ValueError(f"checkpoint {path} could not be {what}: {type(err).__name__}: {err} (a damaged or "
                             f"foreign file)") from err
        raise
    except Exception as err:  # noqa: BLE001 (a damaged pickle raises almost any type)
        raise ValueError(f"checkpoint {path} could not be {what}: {type(err).__name__}: {err} (a damaged or foreign "
                         f"file; a complete copy may be its sibling checkpoint.prev, see docs/operations.md)") from err
