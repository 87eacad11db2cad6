"""What a coach network reads of a deal and learns from it (DouZero+, Zhao et al. 2022, Sec. IV-B).

:func:`initial_hands` encodes the hands as they are dealt: per seat the card kinds it holds, one entry per card
(DouZero+'s coach embeds each card and pools per seat), padded with :data:`PAD` to the largest hand of the game.
:func:`rank_ids` reads each card as DouZero+'s coach does: its rank as DouZero's card value (3..14 for 3..A, 17 for
the 2, 20 and 30 for the black and red joker; the authors' ``Embedding(31, 256)`` is indexed by these), suits and
copies dropped, padded with :data:`RANK_PAD`.
:func:`winning_side` is the label: which side of the game's evaluation protocol won the first scoring segment (a
deal): DouDiZhu's landlord or peasants, Big2's seat, GuanDan's team.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PAD", "RANK_PAD", "RANK_IDS", "initial_hands", "rank_ids", "max_hand", "winning_side"]

PAD = 54  # the padding card kind (kinds are 0..53)
RANK_PAD = 0  # the padding rank id (DouZero's card values start at 3)
RANK_IDS = 31  # rank ids 0..30: DouZero's card values, the size of DouZero+'s coach embedding
# card kind (cardrl's 54: rank x 4 for 3..2, then the black and red joker; cardrl/cards.py) -> DouZero's card value;
# the last entry maps PAD to RANK_PAD
_KIND_TO_RANK_ID = np.array([v for v in (*range(3, 15), 17) for _ in range(4)] + [20, 30, RANK_PAD], dtype=np.int16)


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


def rank_ids(kinds: np.ndarray) -> np.ndarray:
    """Card kinds (padded with :data:`PAD`, e.g. :func:`initial_hands`) -> DouZero's card values (padded with
    :data:`RANK_PAD`), int16 of the same shape: what DouZero+'s coach embeds."""
    kinds = np.asarray(kinds)
    if kinds.size and (kinds.min() < 0 or kinds.max() > PAD):
        raise ValueError(f"card kinds must lie in 0..{PAD} ({PAD}: padding); got {kinds.min()}..{kinds.max()}")
    return _KIND_TO_RANK_ID[kinds]


def winning_side(payoffs: np.ndarray, scored: tuple[tuple[int, ...], ...]) -> int | None:
    """The index of the side whose scored seats gained the most in ``payoffs`` (None when no side did strictly)."""
    totals = np.array([sum(payoffs[s] for s in seats) for seats in scored])
    best = np.flatnonzero(totals == totals.max())
    return int(best[0]) if len(best) == 1 and totals.max() > 0 else None
