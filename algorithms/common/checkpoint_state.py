"""Reading what an RLlib algorithm checkpoint saved beside its components, and checking it against a config.

DMC and top-k PPO store their counters and identity (game, features, network, ...) in the algorithm state
(``algorithm_state.pkl``, or ``.msgpack`` when RLlib wrote msgpack); a checkpoint is restored only into an algorithm
whose identity agrees (:func:`identity_problems`).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["read_checkpoint_state", "identity_problems", "load_checkpoint_rl_modules", "IdentityCheckedState"]


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
        import msgpack

        with msgpack_file.open("rb") as f:
            state = msgpack.load(f, strict_map_key=False)
    else:
        try:
            with state_file.open("rb") as f:
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
    from ray.rllib.core.rl_module.rl_module import RLModule

    mroot = root / "learner_group" / "learner" / "rl_module"
    missing = sorted({n for n in names.values() if not (mroot / n).is_dir()})
    if missing:
        raise ValueError(f"checkpoint {root} has no {what}(s) {missing} under {mroot}")
    # absolute: pyarrow's file system, which RLlib's checkpoints go through, refuses a relative path
    loaded = {n: RLModule.from_checkpoint(str((mroot / n).resolve())) for n in set(names.values())}
    for module in loaded.values():
        module.eval()
    return {agent: loaded[n] for agent, n in names.items()}


class IdentityCheckedState:
    """Mixin of an ``Algorithm`` whose state carries its counters and identity under :attr:`COUNTERS_KEY`: a
    checkpoint or state is restored only when its identity agrees with the algorithm's (``_check_identity``), and its
    counters come back with it (``_restore_counters``)."""

    COUNTERS_KEY: str

    def _read_counters(self, path) -> dict | None:
        """The counters saved in a checkpoint directory (None if it has none)."""
        return read_checkpoint_state(path).get(self.COUNTERS_KEY)

    def _before_restore(self, path, kwargs: dict) -> None:
        """Checks of a checkpoint directory before its identity (none here)."""

    def _check_identity(self, counters: dict | None, where: str) -> None:
        raise NotImplementedError

    def _restore_counters(self, counters: dict) -> None:
        raise NotImplementedError

    def restore_from_path(self, path, *args, **kwargs):
        """Restore a checkpoint, after checking that it is one of this algorithm with the same identity."""
        if kwargs.get("component") is None:
            self._before_restore(path, kwargs)
            self._check_identity(self._read_counters(path), f"checkpoint {path}")
        return super().restore_from_path(path, *args, **kwargs)

    def set_state(self, state) -> None:
        counters = state.get(self.COUNTERS_KEY)
        if counters is not None:
            self._check_identity(counters, "the given state")
        super().set_state(state)
        if counters:
            self._restore_counters(counters)
