"""What a coach network reads of a deal and learns from it (DouZero+, Zhao et al. 2022, Sec. IV-B).

:func:`initial_hands` encodes the hands as they are dealt: per seat the card kinds it holds, one entry per card
(DouZero+'s coach embeds each card and pools per seat), padded with :data:`PAD` to the largest hand of the game.
:func:`winning_side` is the label: which side of the game's evaluation protocol won the first scoring segment (a
deal): DouDiZhu's landlord or peasants, Big2's seat, GuanDan's team.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PAD", "initial_hands", "max_hand", "winning_side"]

PAD = 54  # the padding card kind (kinds are 0..53)


def max_hand(game) -> int:
    """The largest hand a seat is dealt in ``game`` (DouDiZhu: the landlord's 20)."""
    game = game.copy() if game.phase is not None else game
    return int(game.reset(0).cards_left().max())


def initial_hands(game, width: int) -> np.ndarray:
    """``(seats, width)`` int16: each seat's card kinds, a kind repeated per copy held, then :data:`PAD`."""
    held = game.cards_held()
    out = np.full((len(held), width), PAD, dtype=np.int16)
    for seat, cards in enumerate(held):
        kinds = np.repeat(np.arange(54), cards)
        out[seat, :len(kinds)] = kinds
    return out


def winning_side(payoffs: np.ndarray, scored: tuple[tuple[int, ...], ...]) -> int | None:
    """The index of the side whose scored seats gained the most in ``payoffs`` (None when no side did strictly)."""
    totals = np.array([sum(payoffs[s] for s in seats) for seats in scored])
    best = np.flatnonzero(totals == totals.max())
    return int(best[0]) if len(best) == 1 and totals.max() > 0 else None
