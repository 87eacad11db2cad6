"""The candidate generator of top-k PPO: a frozen DMC network's k best legal moves, in Q order.

DanZero+ (Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li, "DanZero+: Dominating the GuanDan Game through Reinforcement
Learning", 2024), Sec. IV-D and Fig. 5: "The pre-trained model is used to filter out some actions with the highest
Q-values, forming a subset of candidate actions"; the PPO model's input is ``(s, a_1, ..., a_k)`` and "for states
with fewer than k legal actions (m < k) we set the dimensions of the remaining actions to -1", with "an additional
feature ... to identify legal actions" (our ``mask``).

Order. Candidates are sorted by Q, highest first. Ties are broken as DMC's greedy actor breaks them
(:func:`cardrl.agents.q_agent.greedy_index`): Q-values within its relative tolerance count as equal (moves with the
same action features get the same Q: a GuanDan wild card used two ways), and among equal Q-values the move of
higher ``strength`` (the engine's ``move_strength``) comes first, then the lower index. So candidate 0 is always the
move the DMC agent itself would play.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from cardrl.agents.q_agent import TIE_TOLERANCE

__all__ = ["topk_candidates", "candidate_block", "PAD_VALUE"]

PAD_VALUE = -1.0  # DanZero+: "a value distinct from any action encoding"


def topk_candidates(q: np.ndarray, k: int, strength: Callable[[], np.ndarray] | np.ndarray | None = None) -> np.ndarray:
    """Indices (into ``q``) of the ``min(k, len(q))`` best moves, best first (module docstring for the order).

    ``strength`` is the engine's ``move_strength`` of the same moves, or a function giving it (called only when
    Q-values tie inside the top ``k``).
    """
    q = np.asarray(q, dtype=np.float64).reshape(-1)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    if q.size == 0:
        raise ValueError("topk_candidates got no Q-values (no legal moves?)")
    order = np.argsort(-q, kind="stable")
    out: list[int] = []
    key = None
    i = 0
    while len(out) < k and i < len(order):
        head = q[order[i]]
        j = i + 1
        while j < len(order) and q[order[j]] >= head - TIE_TOLERANCE * max(1.0, abs(head)):
            j += 1
        group = order[i:j]
        if len(group) > 1 and strength is not None:
            if key is None:
                key = np.asarray(strength() if callable(strength) else strength).reshape(-1)
            group = group[np.lexsort((group, -key[group]))]  # stronger first, then the lower index
        elif len(group) > 1:
            group = np.sort(group)
        out.extend(int(g) for g in group[: k - len(out)])
        i = j
    return np.asarray(out, dtype=np.int64)


def candidate_block(action_features: np.ndarray, order: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(candidates (k, A) float32, mask (k,) bool)``: the action features of the moves ``order`` names, in that
    order, padded with -1 rows (mask False) up to ``k``."""
    action_features = np.asarray(action_features)
    out = np.full((k, action_features.shape[1]), PAD_VALUE, dtype=np.float32)
    out[: len(order)] = action_features[order]
    mask = np.zeros(k, dtype=bool)
    mask[: len(order)] = True
    return out, mask
