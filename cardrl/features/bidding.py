"""What DouDiZhu's bidding decisions read, and what card play reads of the bidding (AlphaDou, "AlphaDou: High-Performance
End-to-End Doudizhu AI Integrating Bidding", 2024, Sec. 3: the bidding network and the card-play features carrying the
bid; docs/bidding.md).

- :func:`bid_state`: a bidding decision's observation, 72 values: the bidder's 17-card hand as a 54-dim card vector,
  the bids so far by turn order (3 positions x 5: not yet / pass / 1 / 2 / 3) and the bidder's position in the turn
  order (one-hot 3; AlphaDou trains one network per position, and the position lets one shared network tell them
  apart).
- :func:`bid_action_features`: the candidate bid as a one-hot of 4 (pass, 1, 2, 3): the action vector the bidding
  Q-network scores.
- :func:`bid_block`: the card-play Q-networks' input block (docs/architecture.md, extension point a), 18 values: what
  each role bid (landlord, landlord_down, landlord_up; 5 each: did not bid / pass / 1 / 2 / 3) and the final bid
  (one-hot of 1, 2, 3). A game without bidding reads bid 1 and no bids (the fixed landlord of DouZero's setting).

Each has a form over the engine (``game``, a seat) and one over a player's view (``view``), which must agree: the
agents read views, the DMC env runner reads the engine.
"""

from __future__ import annotations

import numpy as np

from cardrl.cards import rank_counts_to_vector

__all__ = ["BID_STATE_DIM", "BID_ACTION_DIM", "BID_BLOCK", "BID_BLOCK_DIM", "BID_CHOICES", "bid_state",
           "bid_state_of_game", "bid_state_of_view", "bid_action_features", "bid_block", "bid_block_of_game",
           "bid_block_of_view", "first_bidder", "bid_module_id", "BID_MODULE_PREFIX"]

PLAYERS = 3
BID_CHOICES = 4  # pass, 1, 2, 3
_BID_SLOTS = 1 + BID_CHOICES  # not yet, pass, 1, 2, 3
BID_STATE_DIM = 54 + PLAYERS * _BID_SLOTS + PLAYERS
BID_ACTION_DIM = BID_CHOICES
BID_BLOCK = "bid"  # the card-play input block's name (batch column)
BID_BLOCK_DIM = PLAYERS * _BID_SLOTS + 3
BID_MODULE_PREFIX = "bid"


def bid_module_id(position: int, per_position: bool) -> str:
    """The module of the bidding decision at ``position`` (0 first bidder, 1, 2) in the turn order: ``bid_0`` ..
    ``bid_2`` (AlphaDou's three bidding positions) or ``bid`` (one shared network)."""
    return f"{BID_MODULE_PREFIX}_{position}" if per_position else BID_MODULE_PREFIX


def _bid_slots(bids) -> np.ndarray:
    """(3, 5) one-hots of the bids by turn order: column 0 = not yet, then pass, 1, 2, 3."""
    out = np.zeros((PLAYERS, _BID_SLOTS), dtype=np.uint8)
    for position in range(PLAYERS):
        out[position, 1 + int(bids[position]) if position < len(bids) else 0] = 1
    return out


def bid_state(hand_counts: np.ndarray, bids) -> np.ndarray:
    """``(72,)`` uint8: [hand card vector 54 | bids so far by turn order 3 x 5 | own position one-hot 3]. The bidder's
    position is the number of bids made before it."""
    position = len(bids)
    if position >= PLAYERS:
        raise ValueError(f"a bidding decision comes before the third bid; got bids {list(bids)}")
    out = np.zeros(BID_STATE_DIM, dtype=np.uint8)
    out[:54] = rank_counts_to_vector(np.asarray(hand_counts))
    out[54:54 + PLAYERS * _BID_SLOTS] = _bid_slots(bids).reshape(-1)
    out[54 + PLAYERS * _BID_SLOTS + position] = 1
    return out


def bid_state_of_game(game, seat: int) -> np.ndarray:
    """:func:`bid_state` of ``seat`` in a DouDiZhu engine that is bidding."""
    return bid_state(game.hands[seat], game.bids)


def bid_state_of_view(view) -> np.ndarray:
    """:func:`bid_state` of a bidding-phase view (``view.hand``, ``view.bids``)."""
    return bid_state(view.hand, view.bids)


def bid_action_features(bids) -> np.ndarray:
    """``(n, 4)`` uint8 one-hots of candidate bids 0 (pass) .. 3."""
    bids = np.asarray(bids, dtype=np.int64).reshape(-1)
    if bids.size and (bids.min() < 0 or bids.max() >= BID_CHOICES):
        raise ValueError(f"bids are 0 (pass) .. 3; got {bids.tolist()}")
    out = np.zeros((len(bids), BID_CHOICES), dtype=np.uint8)
    out[np.arange(len(bids)), bids] = 1
    return out


def first_bidder(bids, landlord: int) -> int:
    """The seat that bid first, from the final deal's bids and the landlord: the highest bid is the last non-pass one,
    and its bidder became the landlord."""
    last = max(i for i, b in enumerate(bids) if b)
    return (landlord - last) % PLAYERS


def bid_block(bids, landlord: int, bid: int) -> np.ndarray:
    """``(18,)`` uint8: what each role bid (landlord, landlord_down, landlord_up; 5 each: did not bid / pass / 1 / 2
    / 3), then the final bid one-hot (1, 2, 3). ``bids`` in turn order (empty without bidding)."""
    if not 1 <= int(bid) <= 3:
        raise ValueError(f"the final bid is 1, 2 or 3; got {bid!r}")
    roles = np.zeros((PLAYERS, _BID_SLOTS), dtype=np.uint8)
    roles[:, 0] = 1
    if len(bids):
        first = first_bidder(bids, landlord)
        for position, b in enumerate(bids):
            role = (first + position - landlord) % PLAYERS
            roles[role] = 0
            roles[role, 1 + int(b)] = 1
    out = np.zeros(BID_BLOCK_DIM, dtype=np.uint8)
    out[:PLAYERS * _BID_SLOTS] = roles.reshape(-1)
    out[PLAYERS * _BID_SLOTS + int(bid) - 1] = 1
    return out


def bid_block_of_game(game) -> np.ndarray:
    """:func:`bid_block` of a DouDiZhu engine past bidding (the same for every seat: it is public)."""
    return bid_block(game.bids, game.landlord, game.bid)


def bid_block_of_view(view) -> np.ndarray:
    """:func:`bid_block` of a card-play view (``view.bids``, ``view.landlord``; the final bid is the highest)."""
    return bid_block(view.bids, view.landlord, max(view.bids, default=1) or 1)
