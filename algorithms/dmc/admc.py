"""Adaptive Deep Monte-Carlo (ADMC): the Q loss clipped around the actor's Q and to the game's reward range.

OADMCDou (Luo et al. 2024, "Enhanced DouDiZhu Card Game Strategy Using Oracle Guiding and Adaptive Deep Monte Carlo
Method", Sec. 4.2, eq. 2-5). The actor stores Q_old, its Q of the chosen move when it acted; the learner regresses

    Q_p = clip(Q / Q_old, 1 - gamma, 1 + gamma) * Q_old          (eq. 2, 3)
    Q^  = clip(Q_p, r_min, r_max)                               (eq. 4)
    loss = mean((r - Q^)^2)                                     (eq. 5)

so a sample moves the network at most a fraction gamma away from the value the actor acted on, and never outside
the range of returns the game can pay. The paper gives neither gamma nor r_min, r_max.

Our readings (docs/papers.md, "Readings"):

- ``gamma`` defaults to 0.2 (PPO's ratio clip, the form eq. 2 borrows); DanZero's "range of clip Q" lambda 0.65 is
  this option with ``admc_gamma=0.65`` (DanZero's public code regresses a clipped ratio onto the return).
- For Q_old != 0, eq. 2 is exactly "clamp Q to the interval between (1 - gamma) Q_old and (1 + gamma) Q_old" (for a
  negative Q_old the bounds swap; a Q of the other sign than Q_old falls outside and is clamped to (1 - gamma) Q_old,
  as the ratio, then negative, is clipped to 1 - gamma). We compute it in that form, which needs no division.
- Q_old near 0: the ratio is meaningless and the interval collapses (at initialisation every Q_old is about 0, and
  eq. 2 taken literally would freeze learning). The interval's half-width is therefore at least
  ``gamma * q_floor`` (``q_floor`` = 1, one unit of the game's reward, by default): for |Q_old| >= q_floor this is
  eq. 2 exactly.
- r_min, r_max: the smallest and largest DMC target the module's agents can get (the engine's payoff bounds times
  the agents' target scales); ``q_clip="range"`` uses eq. 4 alone (Q^ = clip(Q, r_min, r_max)).

Gradients flow through Q where it lies inside both intervals, and are zero where a clip binds (torch.clamp's
gradient), as in PPO's clipped objective.
"""

from __future__ import annotations

import torch

__all__ = ["admc_clipped_q", "admc_loss", "range_clipped_loss", "Q_CLIPS", "DEFAULT_GAMMA"]

Q_CLIPS = ("admc", "range")
DEFAULT_GAMMA = 0.2


def admc_clipped_q(q: torch.Tensor, q_old: torch.Tensor, gamma: float, q_floor: float = 1.0) -> torch.Tensor:
    """Eq. 2-3: ``clip(Q / Q_old, 1 - gamma, 1 + gamma) * Q_old``, as a clamp of Q to the interval around Q_old whose
    half-width is ``gamma * max(|Q_old|, q_floor)`` (module docstring)."""
    q_old = q_old.to(q.dtype)
    half = gamma * torch.clamp(q_old.abs(), min=q_floor)
    return torch.clamp(q, q_old - half, q_old + half)


def admc_loss(q: torch.Tensor, target: torch.Tensor, q_old: torch.Tensor, gamma: float, r_min: float, r_max: float,
              q_floor: float = 1.0) -> torch.Tensor:
    """Eq. 2-5: the mean squared error between the returns and ``clip(Q_p, r_min, r_max)``."""
    q_hat = torch.clamp(admc_clipped_q(q, q_old, gamma, q_floor), r_min, r_max)
    return torch.mean((target.to(q.dtype) - q_hat) ** 2)


def range_clipped_loss(q: torch.Tensor, target: torch.Tensor, r_min: float, r_max: float) -> torch.Tensor:
    """Eq. 4-5 alone: the mean squared error between the returns and ``clip(Q, r_min, r_max)``."""
    return torch.mean((target.to(q.dtype) - torch.clamp(q, r_min, r_max)) ** 2)
