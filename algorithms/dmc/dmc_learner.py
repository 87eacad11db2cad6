"""The Deep Monte-Carlo learner on RLlib's new API stack (TorchLearner on a LearnerGroup).

DMC (Zha et al. 2021, Sec. 4 and Alg. 1; Luo & Tan 2024, Alg. 1) regresses Q(s, a) on the Monte-Carlo return
of the episode: loss = mean over the batch of (Q(s, a) - G)^2, one Q-network per role, each updated from its own
rows. The optimizer is DouZero's: RMSprop (lr 1e-4, alpha 0.99, eps 1e-5, momentum 0) with the gradients of each
module clipped to global norm 40 (``douzero/dmc/arguments.py``; ``nn.utils.clip_grad_norm_`` per position).

Config attributes read (the DMC AlgorithmConfig provides them):
``lr`` (float or RLlib lr schedule), ``rmsprop_alpha``, ``rmsprop_eps``, optional ``rmsprop_momentum`` (0.0),
and RLlib's own ``grad_clip`` / ``grad_clip_by`` (DMC: 40.0 / "global_norm"), which the base Learner's
``postprocess_gradients_for_module`` applies per module and logs as ``gradients_default_optimizer_global_norm``
(the norm before clipping).

Train batch per module id (see ``dmc_rl_module``): ``state``, ``history``, ``action`` and ``target`` (B,), the
return G of the acting player, and ``actor_q`` (B,), the actor's Q of the chosen move (used by DanZero's
actor-Q clip, ``config.actor_q_clip``). Logged per module: ``q_loss``, ``mean_q``, ``mean_target`` (plus RLlib's
``total_loss``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from ray.rllib.core.learner.torch.torch_learner import TorchLearner
from ray.rllib.utils.typing import ModuleID, TensorType

from cardrl.algorithms.dmc.dmc_rl_module import Q, TARGET

ACTOR_Q = "actor_q"  # the Q the actor computed for the chosen move (DanZero's clip)

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

Q_LOSS_KEY = "q_loss"
MEAN_Q_KEY = "mean_q"
MEAN_TARGET_KEY = "mean_target"


def _required_attr(config: "AlgorithmConfig", name: str, example: str) -> Any:
    if not hasattr(config, name):
        raise AttributeError(
            f"DMCTorchLearner needs config.{name} ({example}); {type(config).__name__} has no such attribute"
        )
    return getattr(config, name)


def make_rmsprop(params: list[torch.nn.Parameter], config: "AlgorithmConfig") -> torch.optim.RMSprop:
    """DouZero's optimizer from a config: RMSprop(alpha=config.rmsprop_alpha, eps=config.rmsprop_eps,
    momentum=config.rmsprop_momentum or 0). The learning rate is set (and scheduled) by the Learner from
    ``config.lr``."""
    return torch.optim.RMSprop(
        params,
        alpha=float(_required_attr(config, "rmsprop_alpha", "DouZero: 0.99")),
        eps=float(_required_attr(config, "rmsprop_eps", "DouZero: 1e-5")),
        momentum=float(getattr(config, "rmsprop_momentum", 0.0)),
    )


def actor_q_clipped_loss(q: torch.Tensor, target: torch.Tensor, actor_q: torch.Tensor, clip: float) -> torch.Tensor:
    """DanZero's learner preprocessing (Lu et al. 2023, section IV-B2, eqs. 1-3) in our own reading: not DanZero's
    published form. DanZero's public code regresses a clipped ratio clip(Q_old / Q, 0.35, 1.65) onto the return
    (likely a bug), DanZero+ turned the clip off, and OADMCDou's ratio clip (eq. 2-5) is the coherent published
    form (docs/papers.md, "Readings").

    The paper's text describes the preprocessing (the actor's Q(s, a), the learner's Q(s, a), a clip with
    hyperparameter lambda, "removing samples with a large distribution difference against the model on the learner
    side") but its equations are not in the text we have. We implement it as value clipping around the actor's
    estimate: ``Q_c = Q_actor + clip(Q - Q_actor, -lambda, lambda)`` and the loss
    ``mean(max((Q - G)^2, (Q_c - G)^2))``, so a sample stops pulling the network once the learner has moved more
    than lambda away from the value the actor acted on (stale samples of a lagging actor lose their effect).
    """
    target = target.to(q.dtype)
    actor_q = actor_q.to(q.dtype)
    clipped = actor_q + torch.clamp(q - actor_q, -clip, clip)
    return torch.mean(torch.maximum((q - target) ** 2, (clipped - target) ** 2))


def dmc_mse_loss(q: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error between Q(s, a) (B,) and the Monte-Carlo returns (B,)."""
    if q.shape != target.shape:
        raise ValueError(f"Q has shape {tuple(q.shape)} but the targets {tuple(target.shape)}; both must be (B,)")
    return torch.mean((q - target.to(q.dtype)) ** 2)


class DMCTorchLearner(TorchLearner):
    """Deep Monte-Carlo learner (Zha et al. 2021, Sec. 4; Luo & Tan 2024, Alg. 1): per-module MSE between
    Q(s, a) and the Monte-Carlo return, RMSprop, global-norm gradient clipping (DouZero's settings)."""

    def configure_optimizers_for_module(self, module_id: ModuleID, config: "AlgorithmConfig" = None) -> None:
        """One RMSprop per module (DouZero keeps one optimizer per position); lr from ``config.lr``."""
        params = self.get_parameters(self._module[module_id])
        self.register_optimizer(
            module_id=module_id,
            optimizer=make_rmsprop(params, config),
            params=params,
            lr_or_lr_schedule=config.lr,
        )

    def compute_loss_for_module(
        self,
        *,
        module_id: ModuleID,
        config: "AlgorithmConfig",
        batch: dict[str, Any],
        fwd_out: dict[str, TensorType],
    ) -> TensorType:
        """DMC loss of one module: mean over its rows of (Q(s, a) - target)^2."""
        if TARGET not in batch:
            raise KeyError(f"DMC train batch of module {module_id!r} lacks {TARGET!r}; it has {sorted(batch)}")
        q = fwd_out[Q]
        target = batch[TARGET]
        clip = getattr(config, "actor_q_clip", None)
        if clip is not None:
            if ACTOR_Q not in batch:
                raise KeyError(f"actor_q_clip is set but the batch of module {module_id!r} lacks {ACTOR_Q!r}")
            loss = actor_q_clipped_loss(q, target, batch[ACTOR_Q], float(clip))
        else:
            loss = dmc_mse_loss(q, target)
        self.metrics.log_dict(
            {
                Q_LOSS_KEY: loss.detach(),
                MEAN_Q_KEY: q.detach().mean(),
                MEAN_TARGET_KEY: target.detach().to(q.dtype).mean(),
            },
            key=module_id,
            window=1,
        )
        return loss
