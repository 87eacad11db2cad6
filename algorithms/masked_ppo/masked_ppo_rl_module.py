"""An action-masking RLModule with which RLlib's own PPO trains on cardrl's envs (all three games).

cardrl's RLlib envs (:mod:`cardrl.envs.rllib`, ``cardrl/<game>_v0``) observe RLlib's ``Dict(observations=Box(D),
action_mask=Box(0, 1, (N,)))`` (float32 by default; :func:`~cardrl.algorithms.masked_ppo.masked_ppo.masked_ppo_config`
asks for int8, a quarter of the memory per stored step) and act in ``Discrete(N)``: DouDiZhu N = 27,472, Big2 19,899, GuanDan 135,179. RLlib's
built-in modules cannot read that Dict, and a dense logits head over N actions is large: ``hidden x N`` weights (GuanDan:
35M at 256 hidden units), N logits per sample on the learner, and RLlib stores each sample's ``action_dist_inputs``
(540 KB a GuanDan step). DanZero+ (Zhao, Lu, Zhao, Zhou, Li 2024, Sec. IV-D, Table I) makes the same point about
policy-based methods on GuanDan.

Design: **a masked head over learned action embeddings, evaluated at the legal actions only.**

    logit(a | s) = <u(s), E[a]> + b[a]   for every legal a;   illegal a: the most negative float (probability 0)

with ``h = trunk(observations)`` (an MLP), ``u = W h`` (``embedding_dim``, default 64), ``E`` an ``N x embedding_dim``
table and ``b`` a bias per action: a low-rank dense head (GuanDan: 8.8M parameters at 64), computed by gathering the
rows of the legal actions (``action_mask.nonzero()``). The value head reads ``h``. It needs no game knowledge (the ids
are all it sees); the alternative, scoring legal moves by their card features as DMC does, needs each id's cards, which
for GuanDan depend on the deal's level (its ids are per level), i.e. on the game's encoding of the observation.

What RLlib's PPO needs of it, and how it is met:

- ``forward_train`` returns the dense masked logits as ``action_dist_inputs`` (B x N floats for the batch only; RLlib's
  ``TorchCategorical``, its logp and entropy, apply as for any Discrete space);
- ``forward_exploration`` / ``forward_inference`` sample (or take the argmax) themselves and return ``actions`` and
  ``action_logp``, so RLlib's ``GetActions`` passes through and no dense logits are stored per step; the
  ``action_dist_inputs`` they return is a (B, 1) placeholder, which PPO reads only for its KL penalty: **train with
  ``use_kl_loss=False``** (a KL request raises a clear error);
- ``compute_values`` (RLlib's ValueFunctionAPI) for PPO's GAE connector.

Masked envs need ``disable_env_checking=True`` (RLlib's pre-check steps with unmasked random actions).
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

OBSERVATIONS = "observations"  # RLlib's key (cardrl.envs.rllib)
LEGACY_OBSERVATION = "observation"  # the key of modules saved before the adapter followed RLlib: they still load
ACTION_MASK = "action_mask"
FLOAT_MIN = torch.finfo(torch.float32).min
DEFAULT_HIDDEN_SIZES = (256, 256)  # RLlib's default fcnet_hiddens
DEFAULT_EMBEDDING_DIM = 64
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


class NoStoredLogits(TorchCategorical):
    """The exploration distribution class: the runner stores no logits per step (module docstring), so PPO's KL
    penalty, which needs them, is refused with what to do instead."""

    def kl(self, other):
        raise ValueError("MaskedActionEmbeddingModule stores no action logits per step (a GuanDan step would need "
                         "540 KB); train RLlib's PPO with .training(use_kl_loss=False)")


class MaskedActionEmbeddingModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value for ``Dict(observations, action_mask)`` observations and a ``Discrete(N)`` action space
    (module docstring). A module saved with the older layout, ``Dict(observation, action_mask)``, rebuilds from its
    checkpoint and reads that key.

    model_config: ``hidden_sizes`` ((256, 256)), ``activation`` ("tanh" | "relu"; "tanh"), ``embedding_dim`` (64).
    """

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        obs_space = self.observation_space
        keys = set(getattr(obs_space, "spaces", None) or ())
        self.observation_key = OBSERVATIONS if OBSERVATIONS in keys else LEGACY_OBSERVATION
        if self.observation_key not in keys or ACTION_MASK not in keys:
            raise ValueError(f"MaskedActionEmbeddingModule needs Dict(observations, action_mask) observations (RLlib's "
                             f"convention: a cardrl env through cardrl.envs.rllib); got {obs_space}")
        if not hasattr(self.action_space, "n"):
            raise ValueError(f"MaskedActionEmbeddingModule needs a Discrete action space; got {self.action_space}")
        obs_dim = int(obs_space[self.observation_key].shape[0])
        num_actions = int(self.action_space.n)
        mask_dim = int(obs_space[ACTION_MASK].shape[0])
        if mask_dim != num_actions:
            raise ValueError(f"the action mask has {mask_dim} entries but the action space {num_actions} actions")
        hidden = tuple(cfg.get("hidden_sizes") or DEFAULT_HIDDEN_SIZES)
        activation = cfg.get("activation", "tanh")
        if activation not in ACTIVATIONS:
            raise ValueError(f"model_config['activation'] must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        dim = int(cfg.get("embedding_dim", DEFAULT_EMBEDDING_DIM))
        if dim < 1 or any(h < 1 for h in hidden):
            raise ValueError(f"hidden_sizes {hidden} and embedding_dim {dim} must be positive")
        layers: list[nn.Module] = []
        sizes = [obs_dim, *hidden]
        for i in range(len(hidden)):
            layers += [nn.Linear(sizes[i], sizes[i + 1]), ACTIVATIONS[activation]()]
        self.trunk = nn.Sequential(*layers)
        self.query = nn.Linear(sizes[-1], dim)
        self.action_embedding = nn.Embedding(num_actions, dim)
        nn.init.normal_(self.action_embedding.weight, std=dim ** -0.5)
        self.action_bias = nn.Parameter(torch.zeros(num_actions))
        self.vf = nn.Linear(sizes[-1], 1)

    # ---- the network ---------------------------------------------------------------------------------------------
    def _embed(self, batch: dict[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS][self.observation_key]
        return self.trunk(obs.to(self.query.weight.dtype))

    @staticmethod
    def _legal_entries(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(mask, rows, ids)``: the legal (row, action) pairs in row-major order. A row with no legal action (the
        final observation RLlib appends to each episode for the value bootstrap, outside the loss) gets action 0."""
        mask = mask.to(torch.bool)
        empty = ~mask.any(dim=-1)
        if empty.any():
            mask = mask.clone()
            mask[empty, 0] = True
        rows, ids = mask.nonzero(as_tuple=True)
        return mask, rows, ids

    def _scores(self, embeddings: torch.Tensor, rows: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """``<u(s), E[a]> + b[a]`` of the given (row, action) pairs only."""
        query = self.query(embeddings)
        return (query[rows] * self.action_embedding(ids)).sum(-1) + self.action_bias[ids]

    def masked_logits(self, embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Dense (B, N) logits: the legal actions' scores, the most negative float elsewhere (see
        :meth:`_legal_entries` for rows without a legal action)."""
        mask, rows, ids = self._legal_entries(mask)
        scores = self._scores(embeddings, rows, ids)
        logits = torch.full(mask.shape, FLOAT_MIN, dtype=scores.dtype, device=scores.device)
        return logits.index_put((rows, ids), scores)

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        embeddings = self._embed(batch)
        logits = self.masked_logits(embeddings, batch[Columns.OBS][ACTION_MASK])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: embeddings}

    def _act(self, batch: dict[str, Any], sample: bool) -> dict[str, Any]:
        """Sample (or take the most probable) legal action per row from the legal actions' scores alone: no dense
        (B, N) logits are built on the runners (GuanDan: N = 135,179)."""
        with torch.no_grad():
            embeddings = self._embed(batch)
            mask, rows, ids = self._legal_entries(batch[Columns.OBS][ACTION_MASK])
            scores = self._scores(embeddings, rows, ids)
            counts = mask.sum(dim=-1).tolist()
            actions, logps = [], []
            for row_scores, row_ids in zip(torch.split(scores, counts), torch.split(ids, counts)):
                logp = row_scores - torch.logsumexp(row_scores, dim=0)
                j = torch.multinomial(logp.exp(), 1)[0] if sample else torch.argmax(logp)
                actions.append(row_ids[j])
                logps.append(logp[j])
            return {Columns.ACTIONS: torch.stack(actions), Columns.ACTION_LOGP: torch.stack(logps),
                    Columns.ACTION_DIST_INPUTS: embeddings.new_zeros(len(counts), 1)}

    def _forward_exploration(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return self._act(batch, sample=True)

    def _forward_inference(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return self._act(batch, sample=False)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.vf(embeddings).squeeze(-1)

    def get_exploration_action_dist_cls(self):
        return NoStoredLogits

    def get_inference_action_dist_cls(self):
        return NoStoredLogits

    def get_train_action_dist_cls(self):
        return TorchCategorical
