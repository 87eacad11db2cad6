"""The part of a checkpoint's identity that says what its networks read and write: the versioned layout of the
feature encoder (:mod:`cardrl.features.layout`), every rule option of the game, and the size of the action space.

Two runs with the same option names can still differ here: an encoder whose blocks changed size or order under the
same name, a game option (DouDiZhu's spring, Big2's straight order, GuanDan's level) that changes what a move is
worth, a move set of another size. DMC and top-k PPO record these keys with the rest of their identity and refuse
a checkpoint that differs, naming the difference (docs/operations.md, "Checkpoint identity"). Checkpoints written
before the keys existed lack them and are read as having today's values (``older``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cardrl.features.layout import encoder_layout, layout_differences, plain_value

__all__ = ["LAYOUT_KEYS", "layout_identity", "explain_difference", "recorded_layout_problems"]

LAYOUT_KEYS = ("feature_layout", "rule_options", "num_actions")


def layout_identity(spec, env_config: Mapping[str, Any] | None, features: str | None) -> dict[str, Any]:
    """The three keys for the game ``spec`` played with ``env_config``'s rule options (defaults filled in) and the
    encoder named ``features`` (None: the game's default)."""
    given = {k: v for k, v in dict(env_config or {}).items() if k in spec.rule_options}
    options = spec.full_options(given)
    return {"feature_layout": encoder_layout(spec.make_features(features), spec.agents),
            # JSON-shaped (tuples as lists) so that it compares equal after RLlib's state file or the marker's JSON
            "rule_options": json.loads(json.dumps(options, default=str)),
            "num_actions": int(spec.make_engine(**options).num_actions)}


def explain_difference(key: str, saved: Any, current: Any) -> list[str]:
    """How a checkpoint's value of an identity key differs from the config's, one line per difference."""
    if key == "feature_layout" and isinstance(saved, Mapping):
        return [f"feature layout: {d}" for d in layout_differences(saved, current)]
    if key == "rule_options" and isinstance(saved, Mapping):
        return [f"rule option {k}: checkpoint has {saved.get(k, '(none)')!r}, this config has "
                f"{current.get(k, '(none)')!r}"
                for k in sorted(set(saved) | set(current)) if plain_value(saved.get(k)) != plain_value(current.get(k))]
    if key == "num_actions":
        return [f"action space: checkpoint has {saved!r} actions, this config has {current!r}"]
    return [f"{key}: checkpoint has {saved!r}, this config has {current!r}"]


def recorded_layout_problems(counters: Mapping[str, Any], spec, options: Mapping[str, Any]) -> list[str]:
    """For a checkpoint loaded as an agent: where the feature layout and the action-space size it recorded differ
    from what this cardrl builds for the encoder it names and the deals' ``options``; keys it lacks are not checked.
    (Rule options other than the move set's may differ: an agent can be evaluated under other scoring.)"""
    bidding = spec.protocol.bidding_option
    recorded = counters.get("rule_options") or {}
    if bidding is not None and bidding in recorded:
        # the bidding phase only adds the bid actions; whether the agent can bid is the evaluation's check (Agent.bids)
        options = {**options, bidding: recorded[bidding]}
    current = layout_identity(spec, options, counters.get("features"))
    differing = [k for k in ("feature_layout", "num_actions")
                 if k in counters and plain_value(counters[k]) != current[k]]
    return [line for k in differing for line in explain_difference(k, counters[k], current[k])]
