"""Pickles that show whether they were loaded: unpickling one creates a marker file (``open(MARKER, "a")``), the way a
checkpoint from a stranger could run any code. Planted where a loader must read no pickle, a marker that never
appears shows that nothing was unpickled."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

# the files of an RLlib algorithm checkpoint that are pickles (algorithm state, constructor, each module's state)
RLLIB_PICKLES = ("algorithm_state.pkl", "class_and_ctor_args.pkl",
                 "learner_group/learner/rl_module/landlord/module_state.pkl",
                 "learner_group/learner/rl_module/landlord/class_and_ctor_args.pkl")


class _CreatesMarker:
    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "a")


def payload(marker: Path) -> bytes:
    """A pickle whose loading creates ``marker``."""
    return pickle.dumps(_CreatesMarker(marker))


def plant(directory: Path, marker: Path, names=RLLIB_PICKLES) -> list[Path]:
    """The payload written under each of ``names`` in ``directory``; returns the files."""
    files = []
    for name in names:
        file = directory / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(payload(marker))
        files.append(file)
    return files


def payload_checkpoint(root: Path, marker: Path) -> Path:
    """A directory laid out as an RLlib algorithm checkpoint whose every pickle is the payload."""
    plant(root, marker)
    (root / "rllib_checkpoint.json").write_text(json.dumps({"type": "Algorithm", "checkpoint_version": "2.1"}))
    return root
