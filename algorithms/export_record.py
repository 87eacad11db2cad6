"""The records of ``cardrl export`` (:mod:`cardrl.algorithms.export`): each network's description and the agent's
``cardrl_agent.json`` (docs/export.md, "The directory"), built from a checkpoint's modules and counters."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["network_record", "opponent_model_record", "agent_record", "json_text"]


def network_record(module, kind: str) -> dict:
    net = module.net
    return {"kind": kind, "state_dim": int(net.state_dim),
            "history_shape": None if net.history_shape is None else [int(d) for d in net.history_shape],
            "action_dim": int(net.action_dim), "hidden_sizes": [int(h) for h in net.hidden_sizes],
            "activation": net.activation, "lstm_hidden": int(net.lstm_hidden),
            "block_width": int(sum(dim for _, dim in net.input_blocks)),
            "input_blocks_fed_zeros": [name for name, _ in net.input_blocks],
            "opponent_model": None if net.opponent_model is None else dict(net.opponent_model).get("kind"),
            "opponent_model_config": opponent_model_record(module)}


def opponent_model_record(module) -> dict | None:
    """What :class:`~cardrl.agents.torch_qnet.TorchQNet` needs to rebuild a Luo & Tan opponent model in plain torch
    (its sizes read from the built layers); None without one (or for another kind: ONNX only)."""
    from torch import nn

    model = getattr(module, "opponent_model", None)
    if model is None or dict(module.net.opponent_model).get("kind") != "luo_tan":
        return None
    trunk = [layer.out_features for layer in model.trunk if isinstance(layer, nn.Linear)]
    return {"kind": "luo_tan", "card_dim": int(model.card_dim), "k_classes": int(model.k_classes),
            "players": int(model.players), "slots": int(model.slots),
            "lstm_hidden": None if model.lstm is None else int(model.lstm.hidden_size), "hidden_sizes": trunk}


def json_text(record: dict) -> str:
    """Indented JSON with each list of plain values on one line (the layout's blocks, the sizes)."""
    import re

    text = json.dumps(record, indent=1, default=str)
    return re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"


def agent_record(fmt: str, precision: str, spec, options: dict, features, encoder, mapping: dict, networks: dict,
                  counters: dict, root: Path) -> dict:
    """``cardrl_agent.json``'s record (module docstring)."""
    from cardrl.agents.exported import FORMAT_VERSION, cardrl_version
    from cardrl.features.layout import encoder_layout

    play = dict(counters.get("play_options") or {})
    return {
        "format_version": FORMAT_VERSION, "format": fmt, "precision": precision,
        "cardrl_version": cardrl_version(), "game": spec.name, "env_name": spec.env_name,
        "rule_options": json.loads(json.dumps(options, default=str)),
        "features": features, "feature_layout": encoder_layout(encoder, spec.agents),
        "num_actions": int(spec.make_engine(**options).num_actions),
        "action_encoding": {"ids": f"the env's Discrete({spec.make_engine(**options).num_actions}) action ids "
                                   f"(docs/usage.md, conventions)",
                            "vector": f"{encoder.name}'s action_features(view, legal ids): {encoder.action_dim} "
                                      f"values per legal move"},
        "network": "q", "modules": mapping, "networks": networks,
        "inputs": ({"state": "(1, S) float32", "history": "(1, T, H) float32, networks with a history",
                    "action": "(n, A) float32", "q": "(n,) float32, the move of highest q is played"}
                   if fmt == "onnx" else
                   {"parameters": "the RLlib module's state_dict names (cardrl/agents/torch_qnet.py)"}),
        "play": {"prune": play.get("prune"), "prune_slack": play.get("prune_slack", "paper"),
                 "prune_extra": play.get("prune_extra", 0.0), "ties": "the stronger move, then the first "
                                                                       "(cardrl.agents.q_agent.greedy_index)"},
        "source": {"checkpoint": root.name, "q_model": counters.get("q_model"),
                   "frames_trained": counters.get("frames_trained"), "oracle": play.get("oracle")},
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
