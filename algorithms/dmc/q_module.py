"""The base of DMC's Q-networks (:mod:`~cardrl.algorithms.dmc.dmc_rl_module`): :class:`DMCQModule`, the
model_config it reads (:func:`parse_q_model_config`) and the batch keys.

Batch format (keys are the module constants below), used by ``forward_train``, ``forward_inference`` and
``forward_exploration`` alike:

- row-aligned (training samples): ``state`` (B, S), ``history`` (B, T, H), ``action`` (B, A) -> ``q`` (B,).
  Instead of ``state`` and ``history`` a batch may carry ``obs`` (B, S + T*H): the flat observation of the
  PettingZoo env / ``DouZeroFeatures`` (state first, then the flattened history), split here without a copy.
- grouped (action scoring): add ``obs_index`` (B,) int64; then ``state`` (U, S) and ``history`` (U, T, H)
  (or ``obs`` (U, S + T*H)) hold U distinct observations and action row i belongs to observation
  ``obs_index[i]``. The LSTM and the observation part of the first layer run once per observation, not once
  per action, so scoring all legal moves of many games costs U history encodings plus B cheap action rows. Results equal the row-aligned ones up to float
  rounding. RLlib slices train batches by rows, so train batches should be row-aligned.

Inputs may be any real or integer dtype (uint8, int8, float16 ...); they are cast to the parameters' dtype.
Modules hold no global state and never change torch's thread settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

# Batch keys.
STATE = "state"
HISTORY = "history"
OBS = "obs"
ACTION = "action"
OBS_INDEX = "obs_index"
TARGET = "target"
Q = "q"

# model_config keys (and their defaults where one exists).
DOUZERO_LSTM_HIDDEN = 128
DOUZERO_HIDDEN_SIZES = (512, 512, 512, 512, 512)
DANZERO_HIDDEN_SIZES = (512, 512, 512, 512)
LUO_TAN_HIDDEN_SIZES = (1024, 512, 512, 512, 512)
ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}


class RoleDims(NamedTuple):
    """Input sizes of one role's Q-network: state vector, history (T, H) or None, action vector."""

    state_dim: int
    history_shape: tuple[int, int] | None
    action_dim: int = 54


# DouZero's per-seat feature sizes (Zha et al. 2021, Table 4; douzero/env/env.py): state 319 (landlord) or
# 430 (peasants) without the action, history 5 x 162 (the last 15 moves, 3 per row), action 54.
DOUZERO_ROLE_DIMS: dict[str, RoleDims] = {
    "landlord": RoleDims(319, (5, 162), 54),
    "landlord_down": RoleDims(430, (5, 162), 54),
    "landlord_up": RoleDims(430, (5, 162), 54),
}


@dataclass(frozen=True)
class QNetConfig:
    """The validated part of a Q-module's ``model_config`` (other keys, e.g. RLlib's defaults, are ignored).

    ``input_blocks`` are extra per-observation inputs of the Q-network read from batch columns of those names
    (extension point a; e.g. the oracle block), zeros when a batch lacks them (evaluation); ``opponent_model`` the
    config of an auxiliary opponent model whose detached predictions join the Q input
    (:mod:`cardrl.algorithms.dmc.opponent_model`).
    """

    state_dim: int
    history_shape: tuple[int, int] | None
    action_dim: int
    hidden_sizes: tuple[int, ...]
    activation: str
    lstm_hidden: int
    input_blocks: tuple[tuple[str, int], ...] = ()
    opponent_model: tuple[tuple[str, Any], ...] | None = None


def _positive_int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"model_config[{key!r}] must be a positive int, got {value!r}")
    return int(value)


def _history_shape(value: Any, required: bool) -> tuple[int, int] | None:
    if value is None:
        if required:
            raise ValueError("model_config['history_shape'] is required for this module, e.g. (5, 162); got None")
        return None
    if not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"model_config['history_shape'] must be (T, H) with two positive ints, got {value!r}")
    return (_positive_int(value[0], "history_shape[0]"), _positive_int(value[1], "history_shape[1]"))


def parse_q_model_config(
    model_config: Mapping[str, Any] | None,
    *,
    default_hidden_sizes: tuple[int, ...],
    default_activation: str,
    history_required: bool,
) -> QNetConfig:
    """Validates the Q-network keys of ``model_config``.

    Keys: ``state_dim`` (int), ``history_shape`` ((T, H) or None), ``action_dim`` (int), and optionally
    ``hidden_sizes`` (sequence of ints; None or absent: the paper's sizes), ``activation`` ("relu" | "tanh"),
    ``lstm_hidden`` (int).
    """
    cfg = dict(model_config or {})
    for key in ("state_dim", "action_dim"):
        if key not in cfg:
            raise ValueError(f"model_config needs {key!r} (an int); got keys {sorted(cfg)}")
    if "history_shape" not in cfg and history_required:
        raise ValueError(f"model_config needs 'history_shape' (T, H), e.g. (5, 162); got keys {sorted(cfg)}")
    hidden = cfg.get("hidden_sizes") or default_hidden_sizes  # None: the paper's sizes
    if not isinstance(hidden, Sequence) or len(hidden) == 0:
        raise ValueError(f"model_config['hidden_sizes'] must be a non-empty sequence of ints, got {hidden!r}")
    activation = cfg.get("activation", default_activation)
    if activation not in ACTIVATIONS:
        raise ValueError(f"model_config['activation'] must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    blocks = cfg.get("input_blocks") or {}
    if not isinstance(blocks, Mapping):
        raise ValueError(f"model_config['input_blocks'] must be a mapping name -> size, got {blocks!r}")
    om = cfg.get("opponent_model")
    if om is not None and not (isinstance(om, Mapping) and "kind" in om):
        raise ValueError(f"model_config['opponent_model'] must be None or a mapping with a 'kind', got {om!r}")
    return QNetConfig(
        state_dim=_positive_int(cfg["state_dim"], "state_dim"),
        history_shape=_history_shape(cfg.get("history_shape"), history_required),
        action_dim=_positive_int(cfg["action_dim"], "action_dim"),
        hidden_sizes=tuple(_positive_int(h, "hidden_sizes[i]") for h in hidden),
        activation=activation,
        lstm_hidden=_positive_int(cfg.get("lstm_hidden", DOUZERO_LSTM_HIDDEN), "lstm_hidden"),
        input_blocks=tuple((str(k), _positive_int(v, f"input_blocks[{k!r}]")) for k, v in blocks.items()),
        opponent_model=None if om is None else tuple(sorted(om.items())),
    )


def _check_trailing_shape(name: str, x: torch.Tensor, shape: tuple[int, ...]) -> None:
    if x.dim() != len(shape) + 1 or tuple(x.shape[1:]) != shape:
        raise ValueError(f"batch[{name!r}] must have shape (N, {', '.join(map(str, shape))}), got {tuple(x.shape)}")


class DMCQModule(TorchRLModule):
    """Base of the DMC Q-networks (Zha et al. 2021, Sec. 4.1: Q(s, a) of one state-action pair per row).

    Shared forward logic: Q = trunk(first_layer([observation | action])), where the observation part is
    ``[obs_features(state, history) | opponent-model predictions (detached) | input blocks]``: the extension points
    of docs/architecture.md ("input blocks of the Q-network"; "auxiliary heads").

    Subclasses expose ``first_layer`` (a property naming their ``nn.Linear`` over [observation | action], so
    it is not registered twice in the state_dict), implement ``_obs_features`` and ``_trunk``, and call
    :meth:`_setup_extras` in ``setup`` (its return value is the width the extras add to the first layer). The
    grouped path splits ``first_layer``'s weight into its observation and action columns, which is exact algebra:
    W [o | a] + b = W_o o + b + W_a a; observations and the opponent model are computed once per observation.
    """

    net: QNetConfig
    train_precision: torch.dtype | None = None  # bfloat16: the learner's forward under autocast (learner_precision)

    @property
    def first_layer(self) -> nn.Linear:
        raise NotImplementedError

    def _obs_features(self, state: torch.Tensor, history: torch.Tensor | None) -> torch.Tensor:
        raise NotImplementedError

    def _trunk(self, pre_activation: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _setup_extras(self) -> int:
        """Build the opponent model if configured; the input width the extras add (its predictions, the blocks)."""
        width = sum(dim for _, dim in self.net.input_blocks)
        self.opponent_model = None
        if self.net.opponent_model is not None:
            from cardrl.algorithms.dmc.opponent_model import build_opponent_model

            self.opponent_model = build_opponent_model(dict(self.net.opponent_model), self.net.state_dim,
                                                       self.net.history_shape)
            width += self.opponent_model.hidden_dim
        return width

    # --- input handling -------------------------------------------------------------------------------------
    def _dtype(self) -> torch.dtype:
        return self.first_layer.weight.dtype

    def split_obs(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Flat observations (N, S + T*H) -> state (N, S) and history (N, T, H) (None without history); views."""
        history_size = 0 if self.net.history_shape is None else self.net.history_shape[0] * self.net.history_shape[1]
        width = self.net.state_dim + history_size
        if obs.dim() != 2 or obs.shape[1] != width:
            raise ValueError(
                f"batch[{OBS!r}] must have shape (N, {width}) = state {self.net.state_dim} + history "
                f"{self.net.history_shape}, got {tuple(obs.shape)}"
            )
        state = obs[:, : self.net.state_dim]
        if self.net.history_shape is None:
            return state, None
        return state, obs[:, self.net.state_dim :].reshape(obs.shape[0], *self.net.history_shape)

    def _inputs(self, batch: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        if STATE not in batch and OBS in batch:
            state, history = self.split_obs(batch[OBS])
            batch = {**batch, STATE: state}
            if history is not None:
                batch[HISTORY] = history
        missing = [k for k in (STATE, ACTION) if k not in batch]
        if self.net.history_shape is not None and HISTORY not in batch:
            missing.append(HISTORY)
        if missing:
            raise KeyError(
                f"{type(self).__name__} batch lacks {missing} (or {OBS!r} in their place); it has {sorted(batch)}"
            )
        dtype = self._dtype()
        state = batch[STATE].to(dtype)
        action = batch[ACTION].to(dtype)
        _check_trailing_shape(STATE, state, (self.net.state_dim,))
        _check_trailing_shape(ACTION, action, (self.net.action_dim,))
        history = None
        if self.net.history_shape is not None:
            history = batch[HISTORY].to(dtype)
            _check_trailing_shape(HISTORY, history, self.net.history_shape)
            if history.shape[0] != state.shape[0]:
                raise ValueError(
                    f"batch[{HISTORY!r}] has {history.shape[0]} rows but batch[{STATE!r}] has {state.shape[0]}"
                )
        return state, history, action

    def _observation(self, state: torch.Tensor, history: torch.Tensor | None,
                     batch: Mapping[str, Any]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """``(N, width)`` observation part of the Q input and the opponent model's outputs (empty without one)."""
        parts = [self._obs_features(state, history)]
        extra: dict[str, torch.Tensor] = {}
        if self.opponent_model is not None:
            extra = self.opponent_model(state, history)
            parts.append(self.opponent_model.decision_features(extra).detach())
        for name, dim in self.net.input_blocks:
            block = batch.get(name)
            if block is None:  # evaluation and saved agents: the block is zero
                parts.append(state.new_zeros(state.shape[0], dim))
            else:
                block = block.to(state.dtype)
                _check_trailing_shape(name, block, (dim,))
                parts.append(block)
        return (parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1)), extra

    # --- forward ---------------------------------------------------------------------------------------------
    def q_from_rows(self, state: torch.Tensor, history: torch.Tensor | None, action: torch.Tensor,
                    batch: Mapping[str, Any] | None = None) -> torch.Tensor:
        """Q for row-aligned inputs: state (B, S), history (B, T, H) or None, action (B, A) -> (B,)."""
        return self._rows(state, history, action, batch or {})[0]

    def _rows(self, state, history, action, batch) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        if action.shape[0] != state.shape[0]:
            raise ValueError(
                f"row-aligned batch: {action.shape[0]} action rows but {state.shape[0]} state rows "
                f"(pass {OBS_INDEX!r} to score several actions per observation)"
            )
        obs, extra = self._observation(state, history, batch)
        return self._trunk(self.first_layer(torch.cat([obs, action], dim=-1))), extra

    def q_from_groups(
        self,
        state: torch.Tensor,
        history: torch.Tensor | None,
        action: torch.Tensor,
        obs_index: torch.Tensor,
        batch: Mapping[str, Any] | None = None,
    ) -> torch.Tensor:
        """Q for grouped inputs: U observations (state (U, S), history (U, T, H), input blocks (U, ...)), B actions
        (B, A) and obs_index (B,) naming each action's observation -> (B,). Encodes each observation once."""
        return self._groups(state, history, action, obs_index, batch or {})[0]

    def _groups(self, state, history, action, obs_index, batch) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        if obs_index.dim() != 1 or obs_index.shape[0] != action.shape[0]:
            raise ValueError(
                f"batch[{OBS_INDEX!r}] must have shape (B,) with B = {action.shape[0]} action rows, "
                f"got {tuple(obs_index.shape)}"
            )
        obs, extra = self._observation(state, history, batch)
        n_obs = obs.shape[1]
        w, b = self.first_layer.weight, self.first_layer.bias
        obs_part = nn.functional.linear(obs, w[:, :n_obs], b)
        act_part = nn.functional.linear(action, w[:, n_obs:])
        return self._trunk(obs_part.index_select(0, obs_index.long()) + act_part), extra

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        state, history, action = self._inputs(batch)
        if OBS_INDEX in batch:
            q, extra = self._groups(state, history, action, batch[OBS_INDEX], batch)
        else:
            q, extra = self._rows(state, history, action, batch)
        return {Q: q, **extra}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The learner's forward: :meth:`_forward`, under ``torch.autocast`` when ``train_precision`` is set, its
        floating outputs returned in float32 so that the losses are computed in float32."""
        if self.train_precision is None:
            return self._forward(batch, **kwargs)
        with torch.autocast(self.first_layer.weight.device.type, dtype=self.train_precision):
            out = self._forward(batch, **kwargs)
        return {key: value.float() if torch.is_tensor(value) and value.is_floating_point() else value
                for key, value in out.items()}

    def score(self, obs: torch.Tensor, actions: torch.Tensor, obs_index: torch.Tensor,
              blocks: Mapping[str, torch.Tensor] | None = None) -> torch.Tensor:
        """Scores B candidate actions of U observations at once, without gradients (the EnvRunner's call).

        obs (U, S + T*H) flat observations, actions (B, A), obs_index (B,), blocks name -> (U, size) -> Q (B,).
        """
        device = self.first_layer.weight.device
        with torch.no_grad():
            batch = {OBS: obs.to(device), ACTION: actions.to(device), OBS_INDEX: obs_index.to(device)}
            batch.update({k: v.to(device) for k, v in (blocks or {}).items()})
            return self._forward(batch)[Q]

    def q_values(
        self,
        state: torch.Tensor | np.ndarray,
        history: torch.Tensor | np.ndarray | None,
        actions: torch.Tensor | np.ndarray,
        blocks: Mapping[str, torch.Tensor | np.ndarray] | None = None,
    ) -> torch.Tensor:
        """Scores n candidate actions of ONE observation, without gradients.

        state (S,), history (T, H) (None for a module without history), actions (n, A), blocks the input blocks of
        the observation by name, (size,) each (absent: zeros, what a deployed agent reads) -> Q (n,).
        numpy arrays are accepted and moved to the module's device.
        """
        device = self.first_layer.weight.device
        batch = {
            STATE: torch.as_tensor(state, device=device).reshape(1, -1),
            ACTION: torch.as_tensor(actions, device=device),
        }
        if history is not None:
            batch[HISTORY] = torch.as_tensor(history, device=device).unsqueeze(0)
        n = batch[ACTION].shape[0]
        with torch.no_grad():
            state_t, history_t, action_t = self._inputs(batch)
            zeros = torch.zeros(n, dtype=torch.long, device=device)
            unknown = sorted(set(blocks or {}) - {name for name, _ in self.net.input_blocks})
            if unknown:
                raise ValueError(f"{type(self).__name__} has no input block(s) {unknown}; its blocks: "
                                 f"{[name for name, _ in self.net.input_blocks]}")
            extra = {k: torch.as_tensor(np.asarray(v), device=device).reshape(1, -1) for k, v in (blocks or {}).items()}
            return self.q_from_groups(state_t, history_t, action_t, zeros, extra)
