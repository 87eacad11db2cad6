"""The Deep Monte-Carlo learner on RLlib's new API stack (TorchLearner on a LearnerGroup).

DMC (Zha et al. 2021, Sec. 4 and Alg. 1; Luo & Tan 2024, Alg. 1) regresses Q(s, a) on the Monte-Carlo return
of the episode: loss = mean over the batch of (Q(s, a) - G)^2, one Q-network per role, each updated from its own
rows. The optimizer is DouZero's: RMSprop (lr 1e-4, alpha 0.99, eps 1e-5, momentum 0) with the gradients of each
module clipped to global norm 40 (``douzero/dmc/arguments.py``; ``nn.utils.clip_grad_norm_`` per position).

Config attributes read (the DMC AlgorithmConfig provides them):
``lr`` (float or RLlib lr schedule), ``optimizer`` (``"rmsprop"``: torch's, DouZero's; ``"rmsprop_tf1"``: TF1's,
DanZero's learner, :mod:`cardrl.algorithms.dmc.optimizers`), ``rmsprop_alpha``, ``rmsprop_eps``, optional
``rmsprop_momentum`` (0.0),
and RLlib's own ``grad_clip`` / ``grad_clip_by`` (DMC: 40.0 / "global_norm"), which the base Learner's
``postprocess_gradients_for_module`` applies per module and logs as ``gradients_default_optimizer_global_norm``
(the norm before clipping).

Train batch per module id (see ``dmc_rl_module``): ``state``, ``history``, ``action`` and ``target`` (B,), the
return G of the acting player, and ``actor_q`` (B,), the actor's Q of the chosen move (ADMC's Q_old,
``config.q_clip="admc"``), plus the labels of any auxiliary head. The loss of a module is its Q loss
(:meth:`DMCTorchLearner.q_loss`) plus its auxiliary losses (the opponent model); the coach module (DouZero+) has its
own loss and optimizer. Logged per module: ``q_loss``, ``mean_q``, ``mean_target`` (plus RLlib's ``total_loss``),
the opponent model's and the coach's metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from ray.rllib.core.learner.torch.torch_learner import TorchLearner
from ray.rllib.utils.typing import ModuleID, TensorType

from cardrl.algorithms.dmc.admc import admc_loss, range_clipped_loss
from cardrl.algorithms.dmc.coach import COACH, COACH_LOGITS, COACH_SIDE, coach_loss
from cardrl.algorithms.dmc.opponent_model import opponent_model_loss
from cardrl.algorithms.dmc.optimizers import TF1RMSprop
from cardrl.algorithms.dmc.q_module import Q, TARGET, DMCQModule

ACTOR_Q = "actor_q"  # the Q the actor computed for the chosen move (ADMC's Q_old, OADMCDou eq. 2)

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


def make_rmsprop(params: list[torch.nn.Parameter], config: "AlgorithmConfig") -> torch.optim.Optimizer:
    """The Q-networks' optimizer from a config: DouZero's torch RMSprop(alpha=config.rmsprop_alpha,
    eps=config.rmsprop_eps, momentum=config.rmsprop_momentum or 0), or with ``config.optimizer="rmsprop_tf1"``
    DanZero's TF1 RMSProp (:class:`~cardrl.algorithms.dmc.optimizers.TF1RMSprop`, decay = ``rmsprop_alpha``). The
    learning rate is set (and scheduled) by the Learner from ``config.lr``."""
    if getattr(config, "optimizer", "rmsprop") == "rmsprop_corrected":
        # Adam without momentum is RMSprop whose mean square is bias-corrected: the first steps are not up to
        # 1 / sqrt(1 - alpha) = 10 times larger than later ones (docs/learning.md, "The dip")
        if float(getattr(config, "rmsprop_momentum", 0.0)):
            raise ValueError("optimizer='rmsprop_corrected' has no momentum; rmsprop_momentum must be 0")
        return torch.optim.Adam(params, betas=(0.0, float(_required_attr(config, "rmsprop_alpha", "0.99"))),
                                eps=float(_required_attr(config, "rmsprop_eps", "1e-5")))
    if getattr(config, "optimizer", "rmsprop") == "rmsprop_tf1":
        return TF1RMSprop(params, decay=float(_required_attr(config, "rmsprop_alpha", "DanZero: 0.9")),
                          eps=float(_required_attr(config, "rmsprop_eps", "DanZero: 1e-5")),
                          momentum=float(getattr(config, "rmsprop_momentum", 0.0)))
    return torch.optim.RMSprop(
        params,
        alpha=float(_required_attr(config, "rmsprop_alpha", "DouZero: 0.99")),
        eps=float(_required_attr(config, "rmsprop_eps", "DouZero: 1e-5")),
        momentum=float(getattr(config, "rmsprop_momentum", 0.0)),
    )


def dmc_mse_loss(q: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error between Q(s, a) (B,) and the Monte-Carlo returns (B,)."""
    if q.shape != target.shape:
        raise ValueError(f"Q has shape {tuple(q.shape)} but the targets {tuple(target.shape)}; both must be (B,)")
    return torch.mean((q - target.to(q.dtype)) ** 2)


class DMCTorchLearner(TorchLearner):
    """Deep Monte-Carlo learner (Zha et al. 2021, Sec. 4; Luo & Tan 2024, Alg. 1): per-module MSE between
    Q(s, a) and the Monte-Carlo return, RMSprop, global-norm gradient clipping (DouZero's settings)."""

    def build(self) -> None:
        """RLlib's build; with ``deterministic`` (cardrl train --deterministic) first torch's deterministic kernels and
        one thread in this learner's process, so that an update's result depends on its batch alone; with
        ``learner_precision="bfloat16"`` the Q-modules' training forward under autocast (their ``train_precision``)."""
        if getattr(self.config, "deterministic", False):
            torch.use_deterministic_algorithms(True)
            torch.set_num_threads(1)
        super().build()
        if getattr(self.config, "learner_precision", "float32") == "bfloat16":
            self.module.foreach_module(lambda _mid, module: setattr(module, "train_precision", torch.bfloat16)
                                       if isinstance(module, DMCQModule) else None)

    def _log_metrics(self, batch) -> None:
        # An update of the coach alone trains on games, not frames (DMC.training_step gives it env_steps=0): RLlib's
        # Prometheus counters of env steps have nothing to count then, and would warn at every such update.
        if batch.env_steps() > 0:
            super()._log_metrics(batch)

    def postprocess_gradients_for_module(self, *, module_id: ModuleID, config: "AlgorithmConfig" = None,
                                         module_gradients_dict: dict) -> dict:
        """RLlib's clipping (``grad_clip`` by global norm over the module's gradients), except for a Q-module with
        an opponent model and ``om_grad_clip="separate"`` (the default): the Q network's and the opponent model's
        gradients are each clipped to global norm ``grad_clip`` on their own, as DouZero+'s code clips each
        network's (:func:`clip_grad_groups`); their norms before clipping are logged as
        ``gradients_q_global_norm`` and ``gradients_opponent_model_global_norm``."""
        module = self.module[module_id]
        module = module.unwrapped() if hasattr(module, "unwrapped") else module
        om = getattr(module, "opponent_model", None)
        if (module_id == COACH or om is None or getattr(config, "om_grad_clip", "separate") != "separate"
                or not config.grad_clip or config.grad_clip_by != "global_norm"):
            return super().postprocess_gradients_for_module(module_id=module_id, config=config,
                                                            module_gradients_dict=module_gradients_dict)
        om_params = {id(p) for p in om.parameters()}
        grads = dict(module_gradients_dict)
        groups = {"q": [k for k in grads if id(k) not in om_params],
                  "opponent_model": [k for k in grads if id(k) in om_params]}
        norms = clip_grad_groups(grads, list(groups.values()), float(config.grad_clip))
        for name, norm in zip(groups, norms):
            self.metrics.log_value(key=(module_id, f"gradients_{name}_global_norm"), value=norm, window=1)
        return grads

    def configure_optimizers_for_module(self, module_id: ModuleID, config: "AlgorithmConfig" = None) -> None:
        """One RMSprop per Q-module (DouZero keeps one optimizer per position); lr from ``config.lr``. The coach
        (DouZero+) has its own Adam (``config.coach_lr``)."""
        params = self.get_parameters(self._module[module_id])
        if module_id == COACH:
            self.register_optimizer(module_id=module_id, optimizer=torch.optim.Adam(params), params=params,
                                    lr_or_lr_schedule=config.coach_lr)
            return
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
        """DMC loss of one module: the Q loss (mean over its rows of (Q(s, a) - target)^2, or its clipped form) plus
        the weighted loss of each auxiliary head the config turns on (an opponent model)."""
        if module_id == COACH:  # DouZero+'s coach: which side wins the dealt hands
            loss, metrics = coach_loss(fwd_out[COACH_LOGITS], batch[COACH_SIDE])
            self.metrics.log_dict(metrics, key=module_id, window=1)
            return loss
        if TARGET not in batch:
            raise KeyError(f"DMC train batch of module {module_id!r} lacks {TARGET!r}; it has {sorted(batch)}")
        q, target = fwd_out[Q], batch[TARGET]
        q_loss = self.q_loss(module_id, config, batch, q)
        total = q_loss
        om = getattr(config, "opponent_model", None)
        if om is not None:
            om_loss, om_metrics = opponent_model_loss(om, fwd_out, batch, config.om_card_weight, config.om_k_weight)
            total = total + config.om_loss_weight * om_loss
            self.metrics.log_dict(om_metrics, key=module_id, window=1)
        self.metrics.log_dict({Q_LOSS_KEY: q_loss.detach(), MEAN_Q_KEY: q.detach().mean(),
                               MEAN_TARGET_KEY: target.detach().to(q.dtype).mean()}, key=module_id, window=1)
        return total

    def q_loss(self, module_id: ModuleID, config: "AlgorithmConfig", batch: dict[str, Any],
               q: torch.Tensor) -> torch.Tensor:
        """The Q loss the config selects (``q_clip``): DouZero's MSE (None), OADMCDou's ADMC (``"admc"``, eq. 2-5:
        the learner's Q clipped around the actor's, then to the reward range) or the reward-range clip alone
        (``"range"``, eq. 4-5)."""
        clip = getattr(config, "q_clip", None)
        if clip is None:
            return dmc_mse_loss(q, batch[TARGET])
        r_min, r_max = self._reward_bounds(module_id, config)
        if clip == "range":
            return range_clipped_loss(q, batch[TARGET], r_min, r_max)
        if ACTOR_Q not in batch:
            raise KeyError(f"q_clip='admc' needs the actor's Q, but the batch of module {module_id!r} lacks "
                           f"{ACTOR_Q!r}")
        return admc_loss(q, batch[TARGET], batch[ACTOR_Q], float(config.admc_gamma), r_min, r_max,
                         float(config.admc_q_floor))

    def _reward_bounds(self, module_id: ModuleID, config: "AlgorithmConfig") -> tuple[float, float]:
        cache = self.__dict__.setdefault("_bounds", {})
        if module_id not in cache:
            cache[module_id] = config.reward_bounds(module_id)
        return cache[module_id]


def clip_grad_groups(grads: dict, groups: list[list], max_norm: float) -> list[torch.Tensor]:
    """Clip each group of gradients to global norm ``max_norm`` on its own, in place in ``grads`` (parameter ref ->
    gradient; ``None`` gradients are skipped), with RLlib's own global-norm clipping per group
    (``g <- g * min(1, max_norm / (||group|| + 1e-6))``, as ``torch.nn.utils.clip_grad_norm_``). Returns each group's
    norm before clipping."""
    from ray.rllib.utils.torch_utils import clip_gradients

    if not max_norm > 0:
        raise ValueError(f"max_norm={max_norm!r} must be > 0")
    norms = []
    for group in groups:
        present = {k: grads[k] for k in group if grads.get(k) is not None}
        norms.append(clip_gradients(present, grad_clip=max_norm, grad_clip_by="global_norm") if present
                     else torch.tensor(0.0))
    return norms
