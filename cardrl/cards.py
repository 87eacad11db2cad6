"""Cards shared by all three games.

A card *kind* is one of 54: 13 ranks x 4 suits, then the black and the red joker. Kind ``k < 52`` has
natural rank ``k // 4`` in the order ``3 4 5 6 7 8 9 T J Q K A 2`` and suit ``k % 4`` in the order
diamonds, clubs, hearts, spades; kind 52 is the black joker, 53 the red joker. The 54-dim card vector
(counts per kind) is the common currency of features and actions in every game (docs/rules.md, "Cards").

Games where suits do not matter (DouDiZhu) fill a rank's four slots from the lowest suit up, so a card
vector is the thermometer code of the rank counts that DouZero uses, and a set of cards is also a 54-bit
integer: a hand holds a move exactly when ``move_bits & ~hand_bits == 0``.
"""

from __future__ import annotations

import numpy as np

NUM_KINDS = 54
BLACK_JOKER = 52
RED_JOKER = 53
RANK_CHARS = "3456789TJQKA2"
SUIT_CHARS = "dchs"
SUIT_SYMBOLS = "\u2666\u2663\u2665\u2660"

# DouDiZhu-style rank indices (3..A = 0..11, 2 = 12, black joker = 13, red joker = 14).
NUM_RANKS_WITH_JOKERS = 15
RANK_JOKER_CHARS = RANK_CHARS + "BR"

# _THERMO_VECTORS[r, c]: the 54-dim vector of c cards of rank index r (0..14), lowest suits first.
_THERMO_VECTORS = np.zeros((NUM_RANKS_WITH_JOKERS, 5, NUM_KINDS), dtype=np.uint8)
for _r in range(13):
    for _c in range(5):
        _THERMO_VECTORS[_r, _c, _r * 4 : _r * 4 + _c] = 1
for _r, _kind in ((13, BLACK_JOKER), (14, RED_JOKER)):
    _THERMO_VECTORS[_r, 1:, _kind] = 1
_THERMO_VECTORS.setflags(write=False)

# _THERMO_BITS[r][c]: the same as a Python int bit set (bit k = kind k).
_THERMO_BITS = [[int(sum(1 << k for k in np.flatnonzero(_THERMO_VECTORS[r, c]))) for c in range(5)]
                for r in range(NUM_RANKS_WITH_JOKERS)]


def rank_counts_to_vector(counts: np.ndarray) -> np.ndarray:
    """Rank counts (15,) -> 54-dim 0/1 card vector, each rank filled from the lowest suit up."""
    counts = np.asarray(counts)
    vec = np.zeros(NUM_KINDS, dtype=np.uint8)
    vec[:52] = (np.arange(4) < counts[:13, None]).ravel()
    vec[52] = counts[13] > 0
    vec[53] = counts[14] > 0
    return vec


def rank_counts_to_bits(counts) -> int:
    """Rank counts (15,) -> the 54-bit integer of :func:`rank_counts_to_vector`."""
    bits = 0
    for r, c in enumerate(counts):
        if c:
            bits |= _THERMO_BITS[r][c]
    return bits


def vector_to_bits(vec: np.ndarray) -> int:
    """A 0/1 card vector (54,) -> bit set (bit k = kind k)."""
    return int.from_bytes(np.packbits(np.asarray(vec, dtype=np.uint8)[::-1]).tobytes(), "big") >> (
        (-len(vec)) % 8)


def vectors_to_bits(vecs: np.ndarray) -> np.ndarray:
    """(M, 54) 0/1 card vectors -> (M,) uint64 bit sets."""
    vecs = np.asarray(vecs, dtype=np.uint64)
    weights = np.left_shift(np.uint64(1), np.arange(vecs.shape[1], dtype=np.uint64))
    return (vecs * weights).sum(axis=1, dtype=np.uint64)


def rank_counts_to_string(counts, chars: str = RANK_JOKER_CHARS) -> str:
    """Rank counts -> RLCard-style string such as ``"33345"`` (ranks ascending)."""
    return "".join(ch * int(c) for ch, c in zip(chars, counts))


def string_to_rank_counts(text: str, chars: str = RANK_JOKER_CHARS) -> np.ndarray:
    """Inverse of :func:`rank_counts_to_string`; ``""`` and ``"pass"`` give all zeros."""
    counts = np.zeros(len(chars), dtype=np.int8)
    if text in ("", "pass"):
        return counts
    for ch in text:
        idx = chars.find(ch.upper())
        if idx < 0:
            raise ValueError(f"unknown card character {ch!r} in {text!r}; allowed: {chars}")
        counts[idx] += 1
    return counts
