"""Test helper: a DouDiZhu game's state as plain values, for "unchanged" and "replays equal" checks."""

import numpy as np

from cardrl.games.doudizhu import DouDizhuGame


def snapshot(game: DouDizhuGame) -> dict:
    """Every field of the game as plain values (the shared read-only move table by identity; private memo
    caches such as ``_bits_cache`` are derived from the hands, not state, and are left out)."""
    out = {}
    for name, value in vars(game).items():
        if name.startswith("_"):
            continue
        if isinstance(value, np.ndarray):
            out[name] = (value.dtype.str, value.shape, value.tolist())
        elif isinstance(value, list):
            out[name] = list(value)
        elif name == "table":
            out[name] = id(value)
        else:
            out[name] = value
    return out
