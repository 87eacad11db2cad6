"""Oracle guiding: the other players' hands as an input block of the Q-network, faded from 1 to 0 during training.

OADMCDou (Luo et al. 2024, "Enhanced DouDiZhu Card Game Strategy Using Oracle Guiding and Adaptive Deep Monte Carlo
Method", Sec. 4.1, eq. 1): ``a = argmax_a Q([s, lambda f_p(s)], a)``, where f_p(s) are the other players' private
cards; lambda decreases linearly from 1 to 0 (over their first 20 of 30 days), then training goes on with lambda = 0,
and the deployed agent sees f_p = 0. The Oracle agent thus turns into a standard one.

- The block (:func:`oracle_block`) is each other player's hand as a 54-dim card vector, seat-relative (the next
  player first): DouDiZhu 2 x 54 (per-rank thermometer vectors), Big2 3 x 54, GuanDan 3 x 54 (counts 0-2). It enters
  the Q-network as the input block ``"oracle"`` (docs/architecture.md, extension point a); a batch without it (the
  evaluation, every saved agent) reads zeros.
- :class:`~cardrl.algorithms.dmc.schedules.OracleSchedule`: lambda goes linearly from ``start`` to ``end`` between ``frames_start`` and
  ``frames_end`` frames trained, and stays at ``end`` after (OADMCDou: 1 -> 0, then 0). A fixed lambda of 1 is their
  "PerfectDou" ablation. The schedule is a function of the frames trained, so a restored run resumes it where it
  stopped.
- Two readings of lambda: ``"scale"`` (default, the paper's equation: the block is lambda x the hands) and
  ``"bernoulli"`` (lambda as the probability of showing the hands, per observation, else zeros), the dropout reading
  suggested by the paper calling lambda "the dropout coefficient".
"""

from __future__ import annotations

import numpy as np

__all__ = ["ORACLE", "oracle_block", "oracle_block_of_view", "oracle_dim", "apply_lambda", "ORACLE_MODES"]

ORACLE = "oracle"  # the input block's name (batch column)
ORACLE_MODES = ("scale", "bernoulli")


def oracle_dim(num_players: int) -> int:
    return 54 * (num_players - 1)


def oracle_block(game, seat: int) -> np.ndarray:
    """``((players - 1) * 54,)`` uint8: the other players' hands as card vectors, the next seat first (f_p(s))."""
    held = game.cards_held()
    n = len(held)
    return np.concatenate([held[(seat + j) % n] for j in range(1, n)]).astype(np.uint8)


def oracle_block_of_view(view) -> np.ndarray:
    """:func:`oracle_block` from an oracle view (``game.oracle_view(seat)``, whose ``hands`` holds every hand): what an
    agent that is fed the block reads. DouDiZhu's views hold hands as rank counts, turned into the same per-rank
    thermometer card vectors as the engine's ``cards_held``."""
    from cardrl.cards import rank_counts_to_vector

    hands = getattr(view, "hands", None)
    if hands is None:
        raise ValueError(f"the oracle block needs every player's hand: pass game.oracle_view(seat), not game.view(seat) "
                         f"({type(view).__name__} without hands)")
    hands = np.asarray(hands)
    held = hands if hands.shape[-1] == 54 else np.stack([rank_counts_to_vector(h) for h in hands])
    n, seat = len(held), int(view.seat)
    return np.concatenate([held[(seat + j) % n] for j in range(1, n)]).astype(np.uint8)


def apply_lambda(block: np.ndarray, lam: float, mode: str, rng: np.random.Generator) -> np.ndarray:
    """The block as the Q-network sees it: ``lam x block`` ("scale") or the block with probability ``lam``, else zeros
    ("bernoulli"); float16 (exact for counts, 11 bits for lambda)."""
    if mode == "scale":
        return (block * np.float16(lam)).astype(np.float16)
    return (block if rng.random() < lam else np.zeros_like(block)).astype(np.float16)
