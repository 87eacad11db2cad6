"""DanZero+'s PPO network over the k candidates of a frozen DMC network, as an RLlib TorchRLModule.

DanZero+ (Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li 2024), Sec. IV-D and Fig. 5: "a neural network composed of multiple
layers of MLP featuring two output branches"; the input is ``(s, a_1, ..., a_k)``, the output ``(logits(a_1), ...,
logits(a_k), V(s))``; Table V: tanh, "512,512,512,256". Read with the authors' code: a shared trunk of 4 x 512 and
256 tanh layers, a policy head 256 -> 128 -> k and a value head 256 -> 128 -> 1 (tanh between), every linear layer
orthogonally initialised (gain 1, bias 0), and the logits of the slots that hold no legal move set to -1e8 (their
probability is exactly 0).

Input, per decision (batch columns below):

- ``obs``: the game's flat observation ``[state | history]`` (the features the DMC network reads);
- ``extra_state``: extra state inputs (GuanDan: the three level-A counters, :mod:`.level_a`; width 0 elsewhere);
- ``candidates`` ``(k, A)``: the action features of the k candidates in Q order, padded with -1;
- ``candidate_mask`` ``(k,)``: which slots hold a legal move.

Games with a move history (DouDiZhu, Big2): an LSTM of its own (``lstm_hidden``, DouZero's 128) reads the history and
its last output joins the state, as in the DMC networks (our reading: the paper has GuanDan's history-free features
only; a trainable LSTM keeps the PPO network independent of which DMC network proposes the moves).

The frozen DMC Q-network travels inside the module as ``candidate_model`` (``requires_grad`` off, outside the
optimizer): it is in every checkpoint of the module, so a saved policy is a complete player
(``RLModule.from_checkpoint``), and the runners receive it with the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from cardrl.games.registry import resolve

# Batch columns (RLlib's names where RLlib has one).
OBS = Columns.OBS  # "obs"
EXTRA_STATE = "extra_state"
CANDIDATES = "candidates"
CANDIDATE_MASK = "candidate_mask"
ACTIONS = Columns.ACTIONS  # the chosen slot, 0 .. k-1
ACTION_LOGP = Columns.ACTION_LOGP
ACTION_DIST_INPUTS = Columns.ACTION_DIST_INPUTS  # the masked logits (B, k)
VF_PREDS = Columns.VF_PREDS
EMBEDDINGS = Columns.EMBEDDINGS
ADVANTAGES = "advantages"
VALUE_TARGETS = "value_targets"

MASKED_LOGIT = -1e8  # DanZero+: logits of illegal slots


@dataclass(frozen=True)
class PolicyNetConfig:
    """The validated ``model_config`` of :class:`TopKPolicyModule`."""

    state_dim: int
    history_shape: tuple[int, int] | None
    extra_dim: int
    k: int
    action_dim: int
    hidden_sizes: tuple[int, ...]
    head_hidden: int
    lstm_hidden: int

    @property
    def obs_dim(self) -> int:
        return self.state_dim + (0 if self.history_shape is None else int(np.prod(self.history_shape)))


def _positive(cfg: Mapping[str, Any], key: str, default: Any = None, allow_zero: bool = False) -> int:
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (0 if allow_zero else 1):
        raise ValueError(f"model_config[{key!r}] must be an int >= {0 if allow_zero else 1}, got {value!r}")
    return int(value)


def parse_policy_config(model_config: Mapping[str, Any] | None) -> PolicyNetConfig:
    """Checks the keys of a :class:`TopKPolicyModule` ``model_config``; ValueError naming what is allowed."""
    cfg = dict(model_config or {})
    history = cfg.get("history_shape")
    if history is not None:
        if len(tuple(history)) != 2:
            raise ValueError(f"model_config['history_shape'] must be (T, H) or None, got {history!r}")
        history = (int(history[0]), int(history[1]))
    hidden = tuple(cfg.get("hidden_sizes") or (512, 512, 512, 512, 256))
    if not hidden or any(isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1 for h in hidden):
        raise ValueError(f"model_config['hidden_sizes'] must be positive ints, got {hidden!r}")
    return PolicyNetConfig(state_dim=_positive(cfg, "state_dim"), history_shape=history,
                           extra_dim=_positive(cfg, "extra_dim", 0, allow_zero=True), k=_positive(cfg, "k"),
                           action_dim=_positive(cfg, "action_dim"), hidden_sizes=tuple(int(h) for h in hidden),
                           head_hidden=_positive(cfg, "head_hidden", 128), lstm_hidden=_positive(cfg, "lstm_hidden", 128))


def orthogonal_init(module: nn.Module, gain: float = 1.0) -> None:
    """Orthogonal weights and zero biases for every linear layer (DanZero+ code: ``orthogonal_init(layer, gain=1.0)``)."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)


def _mlp(sizes: list[int], last_activation: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if last_activation or i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class TopKPolicyModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value over k candidates (module docstring). Action space: ``Discrete(k)`` (the slot).

    model_config: ``state_dim``, ``history_shape`` ((T, H) or None), ``extra_dim``, ``k``, ``action_dim`` (required);
    ``hidden_sizes`` ((512,) * 4 + (256,)), ``head_hidden`` (128), ``lstm_hidden`` (128); ``candidate_model``: None or
    ``{"module_class": "package.module:Class", "model_config": {...}}``, the frozen DMC Q-module.
    """

    def setup(self) -> None:
        self.net = parse_policy_config(self.model_config)
        net = self.net
        self.lstm = None
        width = net.state_dim + net.extra_dim + net.k * net.action_dim
        if net.history_shape is not None:
            self.lstm = nn.LSTM(net.history_shape[1], net.lstm_hidden, batch_first=True)
            width += net.lstm_hidden
        self.trunk = _mlp([width, *net.hidden_sizes], last_activation=True)
        self.pi = _mlp([net.hidden_sizes[-1], net.head_hidden, net.k], last_activation=False)
        self.vf = _mlp([net.hidden_sizes[-1], net.head_hidden, 1], last_activation=False)
        for part in (self.trunk, self.pi, self.vf):
            orthogonal_init(part)
        self.candidate_model = None
        spec = (self.model_config or {}).get("candidate_model")
        if spec is not None:
            self.candidate_model = candidate_module_spec(spec).build()
            self.candidate_model.requires_grad_(False)
            self.candidate_model.eval()

    # ---- the network ---------------------------------------------------------------------------------------------
    def _embed(self, batch: Mapping[str, Any]) -> torch.Tensor:
        net = self.net
        dtype = self.trunk[0].weight.dtype
        obs = batch[OBS].to(dtype)
        if obs.dim() != 2 or obs.shape[1] != net.obs_dim:
            raise ValueError(f"batch[{OBS!r}] must have shape (B, {net.obs_dim}) = state {net.state_dim} + history "
                             f"{net.history_shape}, got {tuple(obs.shape)}")
        candidates = batch[CANDIDATES].to(dtype)
        if tuple(candidates.shape[1:]) != (net.k, net.action_dim):
            raise ValueError(f"batch[{CANDIDATES!r}] must have shape (B, {net.k}, {net.action_dim}), got "
                             f"{tuple(candidates.shape)}")
        parts = [obs[:, : net.state_dim]]
        if net.extra_dim:
            extra = batch[EXTRA_STATE].to(dtype)
            if tuple(extra.shape[1:]) != (net.extra_dim,):
                raise ValueError(f"batch[{EXTRA_STATE!r}] must have shape (B, {net.extra_dim}), got "
                                 f"{tuple(extra.shape)}")
            parts.append(extra)
        if self.lstm is not None:
            history = obs[:, net.state_dim:].reshape(obs.shape[0], *net.history_shape)
            out, _ = self.lstm(history)
            parts.append(out[:, -1, :])
        parts.append(candidates.flatten(1))
        return self.trunk(torch.cat(parts, dim=-1))

    def masked_logits(self, embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The policy head's logits with every slot that holds no legal move set to -1e8."""
        mask = mask.to(torch.bool)
        if tuple(mask.shape[1:]) != (self.net.k,):
            raise ValueError(f"batch[{CANDIDATE_MASK!r}] must have shape (B, {self.net.k}), got {tuple(mask.shape)}")
        return self.pi(embeddings).masked_fill(~mask, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {ACTION_DIST_INPUTS: self.masked_logits(embeddings, batch[CANDIDATE_MASK]), EMBEDDINGS: embeddings}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.vf(embeddings).squeeze(-1)

    def trainable_parameters(self) -> list[nn.Parameter]:
        """The PPO network's parameters (the frozen candidate model's are left out)."""
        return [p for name, p in self.named_parameters() if not name.startswith("candidate_model.")]


def candidate_module_spec(spec: Mapping[str, Any]) -> RLModuleSpec:
    """The RLModuleSpec of a frozen candidate model described as ``{"module_class", "model_config"}``."""
    if not isinstance(spec, Mapping) or "module_class" not in spec:
        raise ValueError(f"model_config['candidate_model'] must be None or a mapping with 'module_class' and "
                         f"'model_config', got {spec!r}")
    cls = resolve(spec["module_class"])
    config = dict(spec.get("model_config") or {})
    box = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)  # informational only: the Q-modules read model_config
    return RLModuleSpec(module_class=cls, observation_space=box, action_space=box, model_config=config,
                        inference_only=True)


def policy_spaces(net: PolicyNetConfig) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
    """Informational spaces of a policy module: its batch columns, and the slot as a Discrete(k) action."""
    obs = gym.spaces.Dict({
        OBS: gym.spaces.Box(-np.inf, np.inf, (net.obs_dim,), np.float32),
        EXTRA_STATE: gym.spaces.Box(-np.inf, np.inf, (net.extra_dim,), np.float32),
        CANDIDATES: gym.spaces.Box(-np.inf, np.inf, (net.k, net.action_dim), np.float32),
        CANDIDATE_MASK: gym.spaces.MultiBinary(net.k),
    })
    return obs, gym.spaces.Discrete(net.k)
