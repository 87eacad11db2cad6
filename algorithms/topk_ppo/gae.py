"""Generalized Advantage Estimation over one player's trajectory, with each deal's end as an episode boundary.

Schulman et al. 2016 (GAE), as DanZero+ (Zhao, Lu, Zhao, Zhou, Li 2024, Sec. III-D: "the advantage function ... is
estimated through GAE"; Table V: gamma 0.99, lambda 0.95) computes it on its actors:

    delta_t = r_t + gamma * V(s_{t+1}) * (1 - done_t) - V(s_t)
    A_t     = delta_t + gamma * lambda * (1 - done_t) * A_{t+1}
    R_t     = A_t + V(s_t)                      (the value target)

A trajectory is one player's own decisions (the other players' moves are part of its environment). Rewards come at
the end of a deal: ``r_t`` is 0 except on the player's last decision of the deal, which carries the deal's payoff
(GuanDan: DanZero's +-3/+-2/+-1, with the match bonus when configured), and ``done_t`` is 1 there. So a GuanDan match
is a chain of independent deal episodes for GAE, as in the authors' actor, which marks ``done`` at every deal's end.

Why not RLlib's ``GeneralAdvantageEstimation`` learner connector: it works on RLlib episodes collected by RLlib's
env runners, and the top-k runner plays many games in lock-step with its own batched forward passes (the DMC scoring
must run there); its samples are arrays, not episodes. The values are the runner's (the policy that acted), as on the
authors' actors.
"""

from __future__ import annotations

import numpy as np

__all__ = ["gae"]


def gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, gamma: float = 0.99,
        lambda_: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``(advantages, value_targets)`` (float32, ``(T,)``) of one trajectory (module docstring).

    ``dones[-1]`` must be 1: a trajectory handed to GAE ends at a deal's end (nothing is bootstrapped past it).
    """
    rewards = np.asarray(rewards, dtype=np.float64).reshape(-1)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    dones = np.asarray(dones, dtype=np.float64).reshape(-1)
    if not (len(rewards) == len(values) == len(dones)):
        raise ValueError(f"rewards, values and dones must have one entry per step; got {len(rewards)}, "
                         f"{len(values)}, {len(dones)}")
    if len(dones) and dones[-1] != 1:
        raise ValueError("the last step of a trajectory must be done (a deal's end); nothing is bootstrapped")
    advantages = np.zeros_like(rewards)
    last = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        next_value = values[t + 1] if t + 1 < len(values) else 0.0
        not_done = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * not_done - values[t]
        last = delta + gamma * lambda_ * not_done * last
        advantages[t] = last
    return advantages.astype(np.float32), (advantages + values).astype(np.float32)
