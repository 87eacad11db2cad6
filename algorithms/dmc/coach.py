"""The coach network: which deals are worth playing (DouZero+, Zhao et al. 2022, "DouZero+: Improving DouDizhu AI
by Opponent Modeling and Coach-guided Learning", Sec. IV-B, V-C, Fig. 4 and 7; details from the authors' public code).

Many deals are decided by the cards dealt. A coach network reads the three initial hands and predicts the
landlord's probability of winning; the actors deal again whenever it is below beta or above 1 - beta, so the
networks learn from balanced deals. Beta follows a schedule in learner steps (frames trained / 3,200): 0 up to 20k,
then 0.10, 0.15, 0.20, 0.25 for each further 20k, capped at 0.30 after 100k (their upper limit). The coach trains
alongside the Q-networks on the self-play outcomes of the accepted deals (so on a selected sample, as theirs),
with cross-entropy and Adam (lr 1e-4, 128 games a batch).

- :class:`CoachModule`: per seat an embedding of each card (256) mean-pooled over the hand, three 128-unit ReLU
  layers; the seats' 128-dim codes concatenated -> 256 -> 128 -> 64 -> one logit per *side*. Sides are the game's
  evaluation arrangements (:mod:`cardrl.eval.protocols`): DouDiZhu landlord / peasants (two logits, whose softmax
  is their one sigmoid: the same model), beyond the paper Big2's four seats and GuanDan's two teams (of the first
  deal of a match).
- :func:`rejects`: a deal is dealt again when one side's predicted probability exceeds ``1 - beta`` (two sides:
  ``P < beta`` or ``P > 1 - beta``, the paper's rule).
- :func:`coach_loss`: cross-entropy of the winning side, and as metrics the accuracy and the Brier score
  ``sum_k (p_k - y_k)^2 / 2`` (for two sides the usual ``(P - y)^2``), computed on each batch before the update, i.e.
  on games the coach has not trained on.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from cardrl.algorithms.dmc.schedules import DOUZERO_PLUS_BETA, BetaSchedule
from cardrl.features.deals import PAD

__all__ = ["COACH", "COACH_HANDS", "COACH_SIDE", "COACH_LOGITS", "CoachModule", "BetaSchedule", "rejects",
           "coach_loss", "coach_module_spec", "DOUZERO_PLUS_BETA"]

COACH = "coach"  # the module id in the MultiRLModule
COACH_HANDS = "coach_hands"  # (B, seats, width) int16 card kinds, PAD-padded
COACH_SIDE = "coach_side"  # (B,) int8 the side that won
COACH_LOGITS = "coach_logits"


def rejects(probs: np.ndarray, beta: float) -> bool:
    """Whether a deal with predicted side probabilities ``probs`` is dealt again: one side above ``1 - beta``."""
    return beta > 0 and float(np.max(probs)) > 1.0 - beta


class CoachModule(TorchRLModule):
    """The coach (module docstring). model_config: ``seats``, ``width`` (cards per hand, padded), ``sides``."""

    def setup(self) -> None:
        cfg = self.model_config
        self.seats, self.width, self.sides = int(cfg["seats"]), int(cfg["width"]), int(cfg["sides"])
        self.embed = nn.Embedding(PAD + 1, 256, padding_idx=PAD)
        self.per_seat = nn.ModuleList(nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                                                    nn.Linear(128, 128), nn.ReLU()) for _ in range(self.seats))
        self.head = nn.Sequential(nn.Linear(128 * self.seats, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                                  nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, self.sides))

    def logits(self, hands: torch.Tensor) -> torch.Tensor:
        """``(B, seats, width)`` card kinds -> ``(B, sides)`` logits."""
        hands = hands.long()
        held = (hands != PAD).float()
        pooled = (self.embed(hands) * held[..., None]).sum(2) / held.sum(2, keepdim=True).clamp(min=1.0)
        codes = torch.cat([net(pooled[:, s]) for s, net in enumerate(self.per_seat)], dim=-1)
        return self.head(codes)

    def probabilities(self, hands: np.ndarray) -> np.ndarray:
        """``(seats, width)`` or a batch of them -> side probabilities, without gradients."""
        x = torch.as_tensor(np.asarray(hands)).reshape(-1, self.seats, self.width)
        with torch.no_grad():
            return torch.softmax(self.logits(x), -1).numpy().reshape(*np.shape(hands)[:-2], self.sides)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {COACH_LOGITS: self.logits(batch[COACH_HANDS])}


def coach_module_spec(seats: int, width: int, sides: int, inference_only: bool = False) -> RLModuleSpec:
    obs = gym.spaces.Box(0, PAD, (seats, width), np.int16)
    return RLModuleSpec(module_class=CoachModule, observation_space=obs, action_space=gym.spaces.Discrete(sides),
                        inference_only=inference_only, model_config={"seats": seats, "width": width, "sides": sides})


def coach_loss(logits: torch.Tensor, side: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Cross-entropy of the winning side; the accuracy and the Brier score (module docstring) as metrics."""
    target = side.long()
    loss = nn.functional.cross_entropy(logits, target)
    with torch.no_grad():
        p = torch.softmax(logits, -1)
        y = nn.functional.one_hot(target, logits.shape[-1]).to(p.dtype)
        metrics = {"coach_loss": loss.detach(), "coach_brier": ((p - y) ** 2).sum(-1).mean() / 2,
                   "coach_accuracy": (p.argmax(-1) == target).float().mean()}
    return loss, metrics
