"""Q-networks for Deep Monte-Carlo (DMC) as RLlib (new API stack) TorchRLModules.

Three networks score a (state, action) pair with one scalar Q-value:

- :class:`DouZeroQModule`: DouZero's network (Zha et al. 2021, Sec. 4.1 and Fig. 3; restated in DouZero+,
  Zhao et al. 2022, Sec. III, and in Luo & Tan 2024, Sec. 3): an LSTM over the last moves (history), its last
  output concatenated with [state | action], an MLP of 5 x 512 ReLU layers and a linear output.
  Parameter names and shapes are those of ``douzero.dmc.models.LandlordLstmModel`` / ``FarmerLstmModel``
  (``lstm``, ``dense1`` .. ``dense6``), so a DouZero state_dict loads with ``load_state_dict`` directly.
- :class:`MLPQModule`: a plain MLP over [state | flattened history | action] (DanZero, Lu et al. 2023, Sec. IV-A
  and Fig. 4: 4 x 512 tanh layers over the 513-dim state and the 54-dim action).
- :class:`LuoTanQModule`: Luo & Tan's decision model (Luo & Tan 2024, Table 3): an LSTM whose four outputs all join
  the state, then 1024-512-512-512-512 ReLU layers.

Each may carry an opponent model whose detached predictions join the Q input and extra input blocks (the oracle
block), see :class:`~cardrl.algorithms.dmc.q_module.DMCQModule`.

Their base, the batch format and the model_config they read: :mod:`~cardrl.algorithms.dmc.q_module`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from torch import nn

from cardrl.algorithms.dmc.q_module import (  # noqa: F401 (re-exported: the batch keys and sizes are imported from here)
    ACTION, ACTIVATIONS, DANZERO_HIDDEN_SIZES, DOUZERO_HIDDEN_SIZES, DOUZERO_LSTM_HIDDEN, DOUZERO_ROLE_DIMS, HISTORY,
    LUO_TAN_HIDDEN_SIZES, OBS, OBS_INDEX, Q, STATE, TARGET, DMCQModule, QNetConfig, RoleDims, parse_q_model_config)


class DouZeroQModule(DMCQModule):
    """DouZero's Q-network (Zha et al. 2021, Fig. 3; DouZero+ Zhao et al. 2022 Sec. III; Luo & Tan Alg. 1).

    Q(s, a) = dense6(relu(dense5(...relu(dense1([LSTM(history)[-1] | state | action]))))): an LSTM
    H -> 128 over the (T, H) = (5, 162) history whose last output joins the state (319 landlord / 430
    peasants) and the action (54), then 5 x 512 ReLU layers and a linear output. Submodule names and shapes
    equal ``douzero.dmc.models.LandlordLstmModel`` / ``FarmerLstmModel``, so their state_dicts (and the public
    DouZero checkpoints) load with ``load_state_dict``.

    model_config: ``state_dim``, ``history_shape``, ``action_dim`` (required); ``lstm_hidden`` (128),
    ``hidden_sizes`` ((512,) * 5). See the module docstring for the batch format; output ``{"q": (B,)}``.
    """

    def setup(self) -> None:
        self.net = parse_q_model_config(self.model_config, default_hidden_sizes=DOUZERO_HIDDEN_SIZES,
                                        default_activation="relu", history_required=True)
        assert self.net.history_shape is not None
        history_width = self.net.history_shape[1]
        self.lstm = nn.LSTM(history_width, self.net.lstm_hidden, batch_first=True)
        extras = self._setup_extras()
        sizes = [self.net.lstm_hidden + self.net.state_dim + extras + self.net.action_dim, *self.net.hidden_sizes, 1]
        for i in range(len(sizes) - 1):
            setattr(self, f"dense{i + 1}", nn.Linear(sizes[i], sizes[i + 1]))
        self._num_dense = len(sizes) - 1

    @property
    def first_layer(self) -> nn.Linear:
        return self.dense1

    def _obs_features(self, state: torch.Tensor, history: torch.Tensor | None) -> torch.Tensor:
        lstm_out, _ = self.lstm(history)
        return torch.cat([lstm_out[:, -1, :], state], dim=-1)

    def _trunk(self, pre_activation: torch.Tensor) -> torch.Tensor:
        x = torch.relu(pre_activation)
        for i in range(2, self._num_dense):
            x = torch.relu(getattr(self, f"dense{i}")(x))
        return getattr(self, f"dense{self._num_dense}")(x).squeeze(-1)


class _LayerStackQModule(DMCQModule):
    """A Q-network whose trunk is ``layers`` (the first over [observation | action]) and a linear ``head``, with one
    activation after every layer but the head."""

    def _build_layers(self, first_width: int, activation) -> None:
        sizes = [first_width, *self.net.hidden_sizes]
        self.layers = nn.ModuleList(nn.Linear(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1))
        self.head = nn.Linear(sizes[-1], 1)
        self._activation = activation

    @property
    def first_layer(self) -> nn.Linear:
        return self.layers[0]

    def _trunk(self, pre_activation: torch.Tensor) -> torch.Tensor:
        x = self._activation(pre_activation)
        for layer in self.layers[1:]:
            x = self._activation(layer(x))
        return self.head(x).squeeze(-1)


class MLPQModule(_LayerStackQModule):
    """Plain MLP Q-network (DanZero, Lu et al. 2023, Sec. IV-A, Fig. 4): Q(s, a) = head(act(... act(
    layers[0]([state | flattened history | action])))) with 4 x 512 tanh hidden layers by default.

    model_config: ``state_dim``, ``action_dim`` (required), ``history_shape`` ((T, H) or None/absent for no
    history, as in DanZero's 513-dim state); ``hidden_sizes`` ((512,) * 4), ``activation`` ("tanh" | "relu").
    See the module docstring for the batch format; output ``{"q": (B,)}``.
    """

    def setup(self) -> None:
        self.net = parse_q_model_config(self.model_config, default_hidden_sizes=DANZERO_HIDDEN_SIZES,
                                        default_activation="tanh", history_required=False)
        history_size = 0 if self.net.history_shape is None else int(np.prod(self.net.history_shape))
        extras = self._setup_extras()
        self._build_layers(self.net.state_dim + history_size + extras + self.net.action_dim,
                           ACTIVATIONS[self.net.activation])

    def _obs_features(self, state: torch.Tensor, history: torch.Tensor | None) -> torch.Tensor:
        if history is None:
            return state
        return torch.cat([state, history.flatten(1)], dim=-1)


class LuoTanQModule(_LayerStackQModule):
    """Luo & Tan's decision model (Luo & Tan 2024, Sec. 4.2, Table 3, Fig. 2(a)): an LSTM 216 -> 128 over the
    4 x 216 history whose four outputs all join the state (540 + 4 x 128 = the 1,052 "state features"), then, with
    the opponent model's 296 predictions and the 54-dim action (1,402 inputs), an MLP 1024-512-512-512-512 of ReLU
    layers and a linear output. Without an opponent model the first layer takes 1,106 inputs.

    model_config: ``state_dim``, ``history_shape``, ``action_dim`` (required); ``lstm_hidden`` (128),
    ``hidden_sizes`` ((1024, 512, 512, 512, 512)).
    """

    def setup(self) -> None:
        self.net = parse_q_model_config(self.model_config, default_hidden_sizes=LUO_TAN_HIDDEN_SIZES,
                                        default_activation="relu", history_required=True)
        steps, width = self.net.history_shape
        self.lstm = nn.LSTM(width, self.net.lstm_hidden, batch_first=True)
        extras = self._setup_extras()
        self._build_layers(self.net.state_dim + steps * self.net.lstm_hidden + extras + self.net.action_dim,
                           torch.relu)  # always ReLU, as Table 3

    def _obs_features(self, state: torch.Tensor, history: torch.Tensor | None) -> torch.Tensor:
        out, _ = self.lstm(history)
        return torch.cat([state, out.flatten(1)], dim=-1)


Q_MODULE_CLASSES: dict[str, type[DMCQModule]] = {"douzero_lstm": DouZeroQModule, "mlp": MLPQModule,
                                                 "luo_tan": LuoTanQModule}


def role_spaces(dims: RoleDims) -> tuple[gym.spaces.Dict, gym.spaces.Box]:
    """Informational spaces of a role's module: Dict(state, [history]) observations, Box action features."""
    obs = {STATE: gym.spaces.Box(-np.inf, np.inf, (dims.state_dim,), np.float32)}
    if dims.history_shape is not None:
        obs[HISTORY] = gym.spaces.Box(-np.inf, np.inf, tuple(dims.history_shape), np.float32)
    return gym.spaces.Dict(obs), gym.spaces.Box(-np.inf, np.inf, (dims.action_dim,), np.float32)


def dmc_module_spec(
    model: str,
    roles: Mapping[str, RoleDims | tuple[int, tuple[int, int] | None, int]],
    model_config: Mapping[str, Any] | None = None,
    *,
    inference_only: bool = False,
) -> MultiRLModuleSpec:
    """One Q-module per role (module id = role name), all of the class named by ``model``.

    Args:
        model: "douzero_lstm" (:class:`DouZeroQModule`), "luo_tan" (:class:`LuoTanQModule`) or "mlp"
            (:class:`MLPQModule`).
        roles: role -> RoleDims(state_dim, history_shape, action_dim), e.g. :data:`DOUZERO_ROLE_DIMS`.
        model_config: extra keys shared by all roles (``hidden_sizes``, ``activation``, ``lstm_hidden``).
        inference_only: build flag for EnvRunner copies (the modules are the same either way).
    """
    if model not in Q_MODULE_CLASSES:
        raise ValueError(f"unknown DMC model {model!r}; allowed: {sorted(Q_MODULE_CLASSES)}")
    if not roles:
        raise ValueError("dmc_module_spec needs at least one role, e.g. DOUZERO_ROLE_DIMS")
    specs = {}
    for role, raw in roles.items():
        dims = RoleDims(*raw)
        obs_space, action_space = role_spaces(dims)
        config = {
            **dict(model_config or {}),
            "state_dim": dims.state_dim,
            "history_shape": None if dims.history_shape is None else tuple(dims.history_shape),
            "action_dim": dims.action_dim,
        }
        specs[role] = RLModuleSpec(
            module_class=Q_MODULE_CLASSES[model],
            observation_space=obs_space,
            action_space=action_space,
            inference_only=inference_only,
            model_config=config,
        )
    return MultiRLModuleSpec(rl_module_specs=specs)
