"""A feature encoder's layout as a checkpoint records it, and where two layouts differ.

A network trained on one layout reads garbage from another of the same sizes, so a checkpoint records the layout of
the features it was trained on: the encoder's name and version, each agent's state blocks in order (name, first and
past-the-end index), the history shape and the action-vector width (docs/operations.md, "Checkpoint identity").
Everything is lists, strings and ints, so that it reads back the same from RLlib's state file and from the
completion marker's JSON.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from cardrl.features.base import FeatureEncoder

__all__ = ["encoder_layout", "layout_differences", "plain_value"]


def encoder_layout(encoder: FeatureEncoder, agents: Iterable[str]) -> dict[str, Any]:
    """The layout of ``encoder``'s observations for each of ``agents`` (module docstring)."""
    return {"encoder": encoder.name, "version": int(encoder.version),
            "state": {agent: [[str(n), int(a), int(b)] for n, a, b in encoder.state_blocks(agent)] for agent in agents},
            "history": None if encoder.history_shape is None else [int(d) for d in encoder.history_shape],
            "action_dim": int(encoder.action_dim)}


def layout_differences(saved: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """Each way ``saved`` (a checkpoint's layout) differs from ``current`` (this config's), the first differing
    block of each agent named with its position; [] when they agree."""
    out = [f"{key}: checkpoint has {saved.get(key)!r}, these features have {current.get(key)!r}"
           for key in ("encoder", "version", "history", "action_dim")
           if plain_value(saved.get(key)) != plain_value(current.get(key))]
    saved_state, state = dict(saved.get("state") or {}), dict(current.get("state") or {})
    if sorted(saved_state) != sorted(state):
        out.append(f"agents: checkpoint has {sorted(saved_state)}, these features have {sorted(state)}")
    for agent in sorted(set(saved_state) & set(state)):
        old, new = plain_value(saved_state[agent]), state[agent]
        if old == new:
            continue
        at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        had = _block(old[at]) if at < len(old) else "nothing"
        has = _block(new[at]) if at < len(new) else "nothing"
        out.append(f"{agent} state block {at}: checkpoint has {had}, these features have {has} (state "
                   f"{_size(old)} values in {len(old)} blocks, now {_size(new)} in {len(new)})")
    return out


def plain_value(value: Any) -> Any:
    """Tuples (a pickled or msgpack'd value may hold them) as lists, in mappings too, so that equal values compare
    equal however they were stored."""
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: plain_value(v) for k, v in value.items()}
    return value


def _block(block: list) -> str:
    name, start, stop = block
    return f"{name!r} [{start}:{stop}] ({stop - start} values)"


def _size(blocks: list) -> int:
    return max((b[2] for b in blocks), default=0)
