"""Labels of auxiliary heads, read off the true state (the oracle's view): what opponent models learn to predict.

Luo & Tan 2024 (Sec. 4.2, Table 2): for every other player, which cards they hold and their minimum combination
count K. Players are *slots* in seat order relative to the player to label for: slot ``j`` is the ``j``-th seat after
it, as in Luo & Tan's unified features (their Table 14: four slots; the player's own slot 0 and the slots a game
lacks, DouDiZhu's fourth, carry no label). Hidden cards are *bits* "holds at least ``c`` cards of this group":

- DouDiZhu (suits do not matter): the 54-dim thermometer card vector of the hand, i.e. "at least ``c`` cards of
  rank ``r``" (13 ranks x 4 + the two jokers);
- Big2: the 54-dim card vector (one bit per card; the jokers' two bits always 0);
- GuanDan (two decks): per card kind "at least one" (54) then "two" (54), 108 bits.

K is the exact minimum combination count of the hand (:mod:`cardrl.search`), capped at ``k_classes - 1``.

DouZero+ (Zhao et al. 2022, Sec. IV-A): the next player's number of cards of each of the 15 ranks (0-4; jokers
0-1), see :func:`next_player_rank_counts`.

:func:`hidden_card_prior` is the baseline an opponent model must beat: the probability of each bit given only what
the player sees (the unseen cards and how many each other player holds), by the hypergeometric law;
:func:`hand_size_prior` the weaker one that knows only how many cards each other player holds.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import hypergeom

__all__ = ["OM_SLOTS", "card_bits", "card_label_dim", "k_classes", "hidden_card_labels", "min_combination_labels",
           "OpponentLabels", "next_player_rank_counts", "hidden_card_prior", "hand_size_prior", "card_groups"]

OM_SLOTS = 4  # Luo & Tan's unified layout: four players, seat-relative


def card_label_dim(game) -> int:
    """Bits per player of the hidden-card labels of ``game`` (54; 108 for two decks)."""
    return 54 if not game.suits_matter else 54 * int(game.deck.max())


def k_classes(game) -> int:
    """Classes of the K labels: 20 (Luo & Tan's K head) or, for larger hands (GuanDan's 27 cards), one per card."""
    game = game.copy() if game.phase is not None else game
    return max(20, int(game.reset(0).cards_left().max()))


def card_bits(game, cards: np.ndarray) -> np.ndarray:
    """``(..., 54)`` card counts (``cards_held()`` rows) -> ``(..., card_label_dim)`` 0/1 bits (module docstring)."""
    cards = np.asarray(cards)
    if not game.suits_matter:  # DouDiZhu: the card vector is already the rank thermometer
        return (cards > 0).astype(np.uint8)
    return np.concatenate([cards > b for b in range(int(game.deck.max()))], axis=-1).astype(np.uint8)


def _slots(game, seat: int, slots: int) -> list[int | None]:
    """The seat in each slot: slot 0 is ``seat`` itself (no label), ``None`` past the game's players."""
    n = game.num_players
    return [None if j == 0 or j >= n else (seat + j) % n for j in range(slots)]


def hidden_card_labels(game, seat: int, slots: int = OM_SLOTS) -> tuple[np.ndarray, np.ndarray]:
    """``(bits (slots, card_label_dim) uint8, mask (slots,) bool)``: the other players' hands as bits, by slot."""
    held = card_bits(game, game.cards_held())
    out = np.zeros((slots, card_label_dim(game)), dtype=np.uint8)
    mask = np.zeros(slots, dtype=bool)
    for j, other in enumerate(_slots(game, seat, slots)):
        if other is not None:
            out[j], mask[j] = held[other], True
    return out, mask


def min_combination_labels(game, seat: int, search, k_classes: int, slots: int = OM_SLOTS) -> np.ndarray:
    """``(slots,)`` int8: each other player's K (capped at ``k_classes - 1``), -1 where a slot has no label."""
    out = np.full(slots, -1, dtype=np.int8)
    level = getattr(game, "level", None)
    for j, other in enumerate(_slots(game, seat, slots)):
        if other is not None:
            out[j] = min(search.k_of_hand(game.hands[other], level), k_classes - 1)
    return out


class OpponentLabels:
    """Luo & Tan's labels of a seat, :func:`hidden_card_labels`' bits and :func:`min_combination_labels`' K, from a
    memo of each hand's: a hand changes only when its player moves, so an actor labelling every frame sees each hand
    many times, and its bits and K (a search) are computed the first time only. The memo holds at most ``max_hands``
    hands and then starts over. Returns the same values as the two functions."""

    def __init__(self, search, k_classes: int, slots: int = OM_SLOTS, max_hands: int = 200_000):
        self.search, self.k_classes, self.slots, self.max_hands = search, k_classes, slots, max_hands
        self._memo: dict[tuple, tuple[np.ndarray, int]] = {}

    def _hand(self, game, other: int) -> tuple[np.ndarray, int]:
        level = getattr(game, "level", None)
        key = (level, game.hands[other].tobytes())
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) >= self.max_hands:
                self._memo.clear()
            k = min(self.search.k_of_hand(game.hands[other], level), self.k_classes - 1)
            found = self._memo[key] = (card_bits(game, game.cards_held()[other]), k)
        return found

    def __call__(self, game, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(bits (slots, card_label_dim) uint8, K (slots,) int8)`` of the other players, by slot (zeros and -1 in
        the slots without a label)."""
        bits = np.zeros((self.slots, card_label_dim(game)), dtype=np.uint8)
        ks = np.full(self.slots, -1, dtype=np.int8)
        for j, other in enumerate(_slots(game, seat, self.slots)):
            if other is not None:
                bits[j], ks[j] = self._hand(game, other)
        return bits, ks


def next_player_rank_counts(game, seat: int) -> np.ndarray:
    """``(15,)`` int8: the next player's cards per rank (DouDiZhu's 3..2 then the two jokers), DouZero+'s target."""
    cards = game.cards_held()[(seat + 1) % game.num_players]
    return np.concatenate([cards[:52].reshape(13, 4).sum(axis=1), cards[52:]]).astype(np.int8)


def card_groups(game) -> tuple[np.ndarray, np.ndarray]:
    """For each hidden-card bit: ``(group, threshold)``: the bit is "at least ``threshold`` cards of ``group``"
    (DouDiZhu: groups are ranks, 0..12, and the jokers 13, 14; else card kinds 0..53)."""
    if not game.suits_matter:
        group = np.concatenate([np.repeat(np.arange(13), 4), [13, 14]])
        threshold = np.concatenate([np.tile(np.arange(1, 5), 13), [1, 1]])
    else:
        copies = int(game.deck.max())
        group = np.tile(np.arange(54), copies)
        threshold = np.repeat(np.arange(1, copies + 1), 54)
    return group, threshold


def hidden_card_prior(game, seat: int, slots: int = OM_SLOTS) -> np.ndarray:
    """``(slots, card_label_dim)`` probabilities of the hidden-card bits knowing only what ``seat`` sees: the
    unseen cards and each other player's number of cards (each other hand is a uniform draw from the unseen
    cards, so a group's count in it is hypergeometric). Zeros in slots without a label."""
    held = game.cards_held()
    return _draw_prior(game, seat, held.sum(axis=0) - held[seat], slots)


def hand_size_prior(game, seat: int, slots: int = OM_SLOTS) -> np.ndarray:
    """Like :func:`hidden_card_prior` but knowing only how many cards each other player holds, not which cards are
    seen: each other hand is a uniform draw from the whole deck. The weaker baseline of the two."""
    return _draw_prior(game, seat, np.asarray(game.deck), slots)


def _draw_prior(game, seat: int, pool_cards: np.ndarray, slots: int) -> np.ndarray:
    """Bit probabilities of each other hand as a uniform draw of its size from ``pool_cards`` (54 counts)."""
    held = game.cards_held()
    group, threshold = card_groups(game)
    pool = np.zeros(int(group.max()) + 1, dtype=np.int64)
    if not game.suits_matter:
        pool[:13] = pool_cards[:52].reshape(13, 4).sum(axis=1)
        pool[13:] = pool_cards[52:]
    else:
        pool[:] = pool_cards
    total = int(pool.sum())
    out = np.zeros((slots, len(group)))
    for j, other in enumerate(_slots(game, seat, slots)):
        if other is None or total == 0:
            continue
        out[j] = hypergeom.sf(threshold - 1, total, pool[group], int(held[other].sum()))
    return out
