"""Test helper: an engine's state as plain values, for "unchanged" and "replays equal" checks."""

import numpy as np


def _plain(value):
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def snapshot(game) -> dict:
    """Every field of the game as plain values (the shared read-only move table by identity; private memo
    caches such as ``_bits_cache`` are derived from the hands, not state, and are left out)."""
    out = {}
    for name, value in vars(game).items():
        if name.startswith("_"):
            continue
        if name == "table":
            out[name] = id(value)
        elif isinstance(value, (np.ndarray, list)):
            out[name] = _plain(value)
        else:
            out[name] = value
    return out
