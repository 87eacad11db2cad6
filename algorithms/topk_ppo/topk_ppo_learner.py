"""Top-k PPO's learner: DanZero+'s PPO loss (eqs. 1-5) on RLlib's PPOTorchLearner, Adam, and the KL early stop.

DanZero+ (Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li 2024): the PPO of its Sec. III-D (eqs. 1-5), applied in Sec. IV-D
to the policy over the k candidates:

    eq. 1  L_clip = E[ min( r A, clip(r, 1 - eps, 1 + eps) A ) ],  r = pi(a|s) / pi_old(a|s)
    eq. 2  clip(x, x_min, x_max)
    eq. 3  L_p = -L_clip - c_e H(pi)
    eq. 4  L_v = E[ (V(s) - R)^2 ]
    eq. 5  L = L_p + c_v L_v

with Table V's eps = 0.2, weights (1, c_v = 0.5, c_e = 0.05), Adam at 1e-4. From the authors' learner code (where the
paper is silent): the ratio of the unclipped term is clamped to [0, 3], the value loss is 0.5 x MSE, Adam's epsilon is
1e-5, the global gradient norm is clipped to 10, and each batch is used for up to 20 gradient steps, stopping as soon
as the approximate KL ``mean(logp_old - logp)``, measured before a step, exceeds 0.015 (1.5 x their target 0.01); that
step is not taken. :func:`topk_ppo_loss` is the loss alone; the learner adds the stop, per module.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.algorithms.ppo.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.learner.learner import ENTROPY_KEY, POLICY_LOSS_KEY, VF_LOSS_KEY
from ray.rllib.utils.typing import ModuleID, ParamDict, TensorType

from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
    ACTION_DIST_INPUTS, ACTION_LOGP, ACTIONS, ADVANTAGES, EMBEDDINGS, VALUE_TARGETS)

# Metric names (per module).
APPROX_KL_KEY = "approx_kl"
CLIP_FRACTION_KEY = "clip_fraction"
KL_STOPPED_KEY = "kl_stopped"  # 1.0 once this iteration's passes stopped on the KL
TOTAL_LOSS_KEY = "topk_ppo_loss"
MEAN_VALUE_KEY = "mean_value"


def topk_ppo_loss(logits: torch.Tensor, actions: torch.Tensor, logp_old: torch.Tensor, advantages: torch.Tensor,
                  values: torch.Tensor, value_targets: torch.Tensor, *, clip_param: float = 0.2,
                  ratio_max: float = 3.0, vf_loss_coeff: float = 0.5, vf_scale: float = 0.5,
                  entropy_coeff: float = 0.05) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """DanZero+'s PPO loss (module docstring) of a batch: ``(total loss, metrics)``.

    ``logits`` (B, k) are the masked logits of the current policy, ``actions`` (B,) the slots taken, ``logp_old`` (B,)
    their log-probabilities under the policy that acted, ``advantages`` and ``value_targets`` (B,) from GAE,
    ``values`` (B,) the current value estimates.
    """
    dist = torch.distributions.Categorical(logits=logits)
    logp = dist.log_prob(actions.long())
    ratio = torch.exp(logp - logp_old)
    surrogate = torch.min(torch.clamp(ratio, 0.0, ratio_max) * advantages,                    # eq. 1, code's [0, 3]
                          torch.clamp(ratio, 1.0 - clip_param, 1.0 + clip_param) * advantages)  # eq. 2
    entropy = dist.entropy().mean()
    policy_loss = -surrogate.mean()                                                              # eq. 3, first term
    value_loss = vf_scale * torch.mean((values - value_targets) ** 2)                            # eq. 4 (x 0.5)
    total = policy_loss - entropy_coeff * entropy + vf_loss_coeff * value_loss                   # eqs. 3 and 5
    with torch.no_grad():
        metrics = {
            POLICY_LOSS_KEY: policy_loss.detach(), VF_LOSS_KEY: value_loss.detach(), ENTROPY_KEY: entropy.detach(),
            APPROX_KL_KEY: (logp_old - logp).mean(),
            CLIP_FRACTION_KEY: ((ratio > 1.0 + clip_param) | (ratio < 1.0 - clip_param)).float().mean(),
            TOTAL_LOSS_KEY: total.detach(), MEAN_VALUE_KEY: values.detach().mean(),
        }
    return total, metrics


class TopKPPOTorchLearner(PPOTorchLearner):
    """PPOTorchLearner with :func:`topk_ppo_loss`, Adam(eps) over the PPO network only (the candidate model stays
    frozen), and DanZero+'s early stop on the approximate KL: once a module's KL exceeds ``config.kl_stop`` its
    update is skipped for the rest of the iteration (:meth:`reset_kl_stop` starts an iteration)."""

    def build(self) -> None:
        super().build()
        self._kl_stopped: set[ModuleID] = set()

    def reset_kl_stop(self) -> None:
        """Start a new iteration: every module may take gradient steps again."""
        self._kl_stopped = set()

    def kl_stopped(self) -> set[ModuleID]:
        """The modules whose passes stopped on the KL in this iteration."""
        return set(self._kl_stopped)

    def configure_optimizers_for_module(self, module_id: ModuleID, config: PPOConfig = None) -> None:
        module = self._module[module_id]
        params = module.trainable_parameters() if hasattr(module, "trainable_parameters") else \
            self.get_parameters(module)
        self.register_optimizer(module_id=module_id, optimizer=torch.optim.Adam(params, eps=float(config.adam_eps)),
                                params=params, lr_or_lr_schedule=config.lr)

    def compute_loss_for_module(self, *, module_id: ModuleID, config: PPOConfig, batch: dict[str, Any],
                                fwd_out: dict[str, TensorType]) -> TensorType:
        logits = fwd_out[ACTION_DIST_INPUTS]
        if module_id in self._kl_stopped:
            return logits.new_zeros(())  # no graph: no gradient, no step
        module = self.module[module_id].unwrapped()
        values = module.compute_values(batch, embeddings=fwd_out.get(EMBEDDINGS))
        entropy_coeff = self.entropy_coeff_schedulers_per_module[module_id].get_current_value()
        total, metrics = topk_ppo_loss(
            logits, batch[ACTIONS], batch[ACTION_LOGP], batch[ADVANTAGES], values, batch[VALUE_TARGETS],
            clip_param=config.clip_param, ratio_max=config.ratio_max, vf_loss_coeff=config.vf_loss_coeff,
            vf_scale=config.vf_scale, entropy_coeff=entropy_coeff)
        stop = bool(config.kl_stop) and float(metrics[APPROX_KL_KEY]) > config.kl_stop
        metrics[KL_STOPPED_KEY] = torch.tensor(float(stop))
        self.metrics.log_dict(metrics, key=module_id, window=1)
        if stop:  # DanZero+: the step that would move past the KL bound is not taken
            self._kl_stopped.add(module_id)
            return logits.new_zeros(())
        return total

    def compute_gradients(self, loss_per_module: dict[ModuleID, TensorType], **kwargs) -> ParamDict:
        """As TorchLearner's, leaving out the parameters of modules that took no step (no gradient)."""
        grads = super().compute_gradients(loss_per_module, **kwargs)
        return {pid: g for pid, g in grads.items() if g is not None}
