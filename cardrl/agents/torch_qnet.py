"""A DMC Q-network rebuilt in plain torch from an exported agent's description (``weights:DIR``; docs/export.md).

``cardrl export --format safetensors`` writes each Q-network's parameters with the names and shapes they have in the
checkpoint's RLlib module (:mod:`cardrl.algorithms.dmc.dmc_rl_module`): ``lstm.*`` and ``dense1`` .. ``denseK``
(DouZero's network), ``layers.i`` and ``head`` (DanZero's MLP, Luo & Tan's network, the latter with ``lstm.*``).
:class:`TorchQNet` builds the same layers from the record ``cardrl_agent.json`` keeps under ``networks`` (kind,
input sizes, hidden sizes, activation, LSTM width, input-block width) and computes Q exactly as the module's grouped
path does (one observation, n actions: the observation part of the first layer once, then each action's part), so
it chooses the same moves. No RLlib, no pickle: the parameters come from ``safetensors.torch.load_file``.

Input blocks (the oracle block, the bidding block) are zeros here, what a deployed agent reads. Luo & Tan's opponent
model is rebuilt from the record's ``opponent_model_config`` (its LSTM, trunk and heads under ``opponent_model.*``;
its predictions join the Q input as in the module); DouZero+'s is not (such a network is exported as ONNX only).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["TorchQNet", "NET_KINDS", "net_record_problems"]

NET_KINDS = ("douzero_lstm", "mlp", "luo_tan")
_REQUIRED = ("kind", "state_dim", "history_shape", "action_dim", "hidden_sizes", "activation", "lstm_hidden",
             "block_width")


def net_record_problems(record: Any) -> list[str]:
    """What is wrong with a ``networks`` record of cardrl_agent.json ([] when it describes a network)."""
    if not isinstance(record, Mapping):
        return [f"a network record must be a JSON object, got {type(record).__name__}"]
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        return [f"the network record lacks {missing}"]
    problems = []
    if record["kind"] not in NET_KINDS:
        problems.append(f"kind {record['kind']!r} is not one of {list(NET_KINDS)}")
    history = record["history_shape"]
    if history is not None and not (isinstance(history, list) and len(history) == 2):
        problems.append(f"history_shape must be null or [T, H], got {history!r}")
    if record["activation"] not in ("relu", "tanh"):
        problems.append(f"activation must be 'relu' or 'tanh', got {record['activation']!r}")
    sizes = [record["state_dim"], record["action_dim"], record["lstm_hidden"], *(history or []),
             *(record["hidden_sizes"] if isinstance(record["hidden_sizes"], list) else [None])]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in sizes) or not record["hidden_sizes"]:
        problems.append("state_dim, action_dim, lstm_hidden, history_shape and hidden_sizes must be positive ints")
    if not (isinstance(record["block_width"], int) and record["block_width"] >= 0):
        problems.append(f"block_width must be an int >= 0, got {record['block_width']!r}")
    if record["kind"] in ("douzero_lstm", "luo_tan") and history is None:
        problems.append(f"a {record['kind']} network reads a history: history_shape can not be null")
    if record.get("opponent_model") is not None:
        problems += _opponent_model_problems(record.get("opponent_model_config"))
    return problems


def _opponent_model_problems(config: Any) -> list[str]:
    """What is wrong with an ``opponent_model_config`` record ([] for a Luo & Tan model this module rebuilds)."""
    if not isinstance(config, Mapping) or config.get("kind") != "luo_tan":
        return ["the network carries an opponent model that weights:DIR does not rebuild (only Luo & Tan's, with "
                "its opponent_model_config): play it with onnx:DIR"]
    sizes = [config.get(k) for k in ("card_dim", "k_classes", "players", "slots")]
    hidden = config.get("hidden_sizes")
    if not all(isinstance(v, int) and v > 0 for v in sizes) or not (isinstance(hidden, list) and hidden and
                                                                      all(isinstance(v, int) and v > 0 for v in hidden)):
        return ["opponent_model_config needs positive ints card_dim, k_classes, players, slots and hidden_sizes"]
    return []


def _opponent_model_width(record: Mapping[str, Any]) -> int:
    """How many values an opponent model adds to the Q input (its predictions), 0 without one."""
    config = record.get("opponent_model_config") if record.get("opponent_model") is not None else None
    return 0 if config is None else int(config["slots"]) * (int(config["card_dim"]) + int(config["k_classes"]))


def _observation_width(record: Mapping[str, Any]) -> int:
    """The width of a record's observation: its state, what its history becomes, and the zero-fed blocks."""
    kind, history, lstm_hidden = record["kind"], record["history_shape"], int(record["lstm_hidden"])
    if kind == "douzero_lstm":
        width = lstm_hidden + record["state_dim"]
    elif kind == "luo_tan":
        width = record["state_dim"] + int(history[0]) * lstm_hidden
    else:
        width = record["state_dim"] + (0 if history is None else int(history[0]) * int(history[1]))
    return width + _opponent_model_width(record) + int(record["block_width"])


def _activation(record: Mapping[str, Any]):
    """The hidden layers' activation: tanh for an MLP that says so (DanZero's), else relu."""
    import torch

    return torch.tanh if record["activation"] == "tanh" and record["kind"] == "mlp" else torch.relu


def _opponent_model(record: Mapping[str, Any]):
    """Luo & Tan's opponent model in plain torch (the layers and names of ``LuoTanOpponentModel``), or None."""
    import torch
    from torch import nn

    if record.get("opponent_model") is None:
        return None
    config, history = record["opponent_model_config"], record["history_shape"]

    class _LuoTan(nn.Module):
        def __init__(self):
            super().__init__()
            self.card_dim, self.k_classes, self.slots = (int(config[k]) for k in ("card_dim", "k_classes", "slots"))
            in_dim, self.lstm = int(record["state_dim"]), None
            if history is not None:
                self.lstm = nn.LSTM(int(history[1]), int(config["lstm_hidden"]), batch_first=True)
                in_dim += int(history[0]) * int(config["lstm_hidden"])
            layers = []
            for a, b in zip([in_dim, *config["hidden_sizes"]], config["hidden_sizes"]):
                layers += [nn.Linear(a, b), nn.ReLU()]
            self.trunk = nn.Sequential(*layers)
            self.card_head = nn.Linear(config["hidden_sizes"][-1], self.slots * self.card_dim)
            self.k_head = nn.Linear(config["hidden_sizes"][-1], self.slots * self.k_classes)
            valid = torch.zeros(self.slots)
            valid[1:int(config["players"])] = 1.0  # the other players' slots; slot 0 is the player itself
            self.register_buffer("valid_slots", valid, persistent=False)

        def forward(self, state, history):
            """The predictions the Q-network reads: per slot the card probabilities then the K distribution."""
            x = state if self.lstm is None else torch.cat([state, self.lstm(history)[0].flatten(1)], dim=-1)
            h, n = self.trunk(x), state.shape[0]
            cards = torch.sigmoid(self.card_head(h).view(n, self.slots, self.card_dim))
            k = torch.softmax(self.k_head(h).view(n, self.slots, self.k_classes), dim=-1)
            valid = self.valid_slots[None, :, None]
            return torch.cat([cards * valid, k * valid], dim=-1).flatten(1)

    return _LuoTan()


def _module_class():
    from torch import nn

    class _Net(nn.Module):
        """The layers of one record; parameter names as in the RLlib modules."""

        def __init__(self, record: Mapping[str, Any]):
            super().__init__()
            self.kind = kind = record["kind"]
            history = record["history_shape"]
            self.history_shape = None if history is None else (int(history[0]), int(history[1]))
            self.block_width, self.obs_width = int(record["block_width"]), _observation_width(record)
            if kind != "mlp":
                self.lstm = nn.LSTM(self.history_shape[1], int(record["lstm_hidden"]), batch_first=True)
            sizes = [self.obs_width + record["action_dim"], *record["hidden_sizes"], 1]
            linears = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
            if kind == "douzero_lstm":
                for i, layer in enumerate(linears):
                    setattr(self, f"dense{i + 1}", layer)
                self._stack = [f"dense{i + 1}" for i in range(len(linears))]
            else:
                self.layers, self.head = nn.ModuleList(linears[:-1]), linears[-1]
            self._act = _activation(record)
            self.opponent_model = _opponent_model(record)

        def linears(self) -> list:
            if self.kind == "douzero_lstm":
                return [getattr(self, name) for name in self._stack]
            return [*self.layers, self.head]

        def observation(self, state, history):
            import torch

            if self.kind == "douzero_lstm":
                out, _ = self.lstm(history)
                parts = [out[:, -1, :], state]
            elif self.kind == "luo_tan":
                out, _ = self.lstm(history)
                parts = [state, out.flatten(1)]
            else:
                parts = [state] if history is None else [state, history.flatten(1)]
            if self.opponent_model is not None:
                parts.append(self.opponent_model(state, history))
            if self.block_width:
                parts.append(state.new_zeros(state.shape[0], self.block_width))
            return torch.cat(parts, dim=-1)

        def forward(self, state, history, actions):
            """Q of n actions of one observation: state (1, S), history (1, T, H) or None, actions (n, A) -> (n,)."""
            from torch.nn import functional

            first, *rest = self.linears()
            obs = self.observation(state, history)
            x = functional.linear(obs, first.weight[:, :self.obs_width], first.bias)
            x = self._act(x.expand(actions.shape[0], -1) + functional.linear(actions, first.weight[:, self.obs_width:]))
            for layer in rest[:-1]:
                x = self._act(layer(x))
            return rest[-1](x).squeeze(-1)

    return _Net


class TorchQNet:
    """One exported Q-network in plain torch: ``q_values(state, history, actions) -> (n,)`` numpy, and ``net`` (its
    input sizes, what :func:`~cardrl.agents.q_agent.check_modules_fit` reads)."""

    def __init__(self, record: Mapping[str, Any], tensors: Mapping[str, Any], where: str):
        import torch

        problems = net_record_problems(record)
        if problems:
            raise ValueError(f"{where}: " + "; ".join(problems))
        self.module = _module_class()(record).eval()
        own = self.module.state_dict()
        wrong = sorted(set(own) ^ set(tensors))
        shapes = [f"{k} {tuple(tensors[k].shape)} (want {tuple(v.shape)})" for k, v in own.items()
                  if k in tensors and tuple(tensors[k].shape) != tuple(v.shape)]
        if wrong or shapes:
            raise ValueError(f"{where}: the weights do not fit the {record['kind']} network the JSON describes "
                             f"(unexpected or missing tensors {wrong}; wrong shapes {shapes})")
        self.module.load_state_dict({k: torch.as_tensor(v).float() for k, v in tensors.items()})
        history = record["history_shape"]
        self.net = SimpleNamespace(state_dim=int(record["state_dim"]), action_dim=int(record["action_dim"]),
                                   history_shape=None if history is None else tuple(int(d) for d in history))

    def eval(self) -> "TorchQNet":
        return self

    def q_values(self, state, history, actions) -> np.ndarray:
        """Q of each of n actions (float32 ``(n,)``) of one observation."""
        import torch

        with torch.no_grad():
            s = torch.as_tensor(np.asarray(state, dtype=np.float32)).reshape(1, -1)
            h = None if history is None else torch.as_tensor(np.asarray(history, dtype=np.float32)).unsqueeze(0)
            a = torch.as_tensor(np.asarray(actions, dtype=np.float32))
            return self.module(s, h, a).numpy()
