"""TensorFlow 1's RMSProp as a torch optimizer: DanZero's learner (``tf.train.RMSPropOptimizer``).

DanZero's and DanZero+'s DMC learner (the authors' public code, ``learner_n/agents/dqn/guandan_agent.py``) minimises
its loss with ``tf.train.RMSPropOptimizer(learning_rate=1e-3, epsilon=1e-5)``: TF1's defaults decay 0.9 and momentum
0, and TF1 starts the mean-square accumulator at ONES (``_create_slots``: ``init_ops.ones_initializer``). Its
update (``tf.raw_ops.ApplyRMSProp``)::

    ms  <- decay * ms + (1 - decay) * g^2
    mom <- momentum * mom + lr * g / sqrt(ms + epsilon)
    var <- var - mom

torch's ``RMSprop`` starts the accumulator at zero and adds eps outside the square root
(``g / (sqrt(v) + eps)``). At a steady gradient of 1e-3, TF1 (decay 0.9) against torch (alpha 0.99), eps 1e-5:
TF1's first step is lr x 1e-3 / sqrt(0.9 + 1e-7 + 1e-5) = 1.05e-3 lr, torch's lr x 1e-3 / (sqrt(1e-8) + 1e-5) =
9.1 lr, about 9,000 times larger; after 100 steps 0.16 lr against 1.24 lr, still about 8 times (the ones fade from
TF1's accumulator as 0.9^t, torch's mean square fills in from zero as 1 - 0.99^t).
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch

__all__ = ["TF1RMSprop", "DANZERO_OPTIMIZER_FLAGS"]

# ``cardrl train`` flags of DanZero's learner (DanZero+ Table IV: RMSProp, lr 1e-3; the authors' code: TF1's
# RMSPropOptimizer with epsilon 1e-5 and TF1's decay 0.9); the GuanDan experiment scripts start from these.
DANZERO_OPTIMIZER_FLAGS = ("--lr", "1e-3", "--optimizer", "rmsprop_tf1", "--rmsprop-alpha", "0.9", "--rmsprop-eps",
                           "1e-5")


class TF1RMSprop(torch.optim.Optimizer):
    """RMSProp with TF1's update (module docstring): the accumulator starts at ones, epsilon inside the square root,
    momentum applied to the scaled step. ``decay`` is TF1's name for torch's ``alpha``."""

    def __init__(self, params: Iterable[torch.nn.Parameter] | Iterable[dict], lr: float = 1e-3, decay: float = 0.9,
                 eps: float = 1e-10, momentum: float = 0.0):
        for name, value, ok, allowed in (("lr", lr, lr >= 0, ">= 0"), ("decay", decay, 0 <= decay < 1, "in [0, 1)"),
                                         ("eps", eps, eps >= 0, ">= 0"),
                                         ("momentum", momentum, momentum >= 0, ">= 0")):
            if not ok:
                raise ValueError(f"TF1RMSprop: {name}={value!r} must be {allowed}")
        super().__init__(params, dict(lr=lr, decay=decay, eps=eps, momentum=momentum))

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, decay, eps, momentum = group["lr"], group["decay"], group["eps"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("TF1RMSprop does not take sparse gradients")
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["ms"] = torch.ones_like(p, memory_format=torch.preserve_format)
                    if momentum > 0:
                        state["mom"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] += 1
                ms = state["ms"]
                ms.mul_(decay).addcmul_(p.grad, p.grad, value=1 - decay)
                scaled = p.grad / (ms + eps).sqrt_()
                if momentum > 0:
                    mom = state.setdefault("mom", torch.zeros_like(p))
                    mom.mul_(momentum).add_(scaled, alpha=lr)
                    p.sub_(mom)
                else:
                    p.add_(scaled, alpha=-lr)
        return loss
