"""DanZero's 567 network inputs as the authors' GuanDan client lays them out (``danzero_client_v1``), for a DanZero
Q-network trained by that code (an ONNX file a user supplies: ``onnx:MODEL.onnx``, docs/export.md).

cardrl's ``danzero`` features (:mod:`cardrl.features.danzero`) follow the papers' block order and the engine's card
kinds; the authors' client (``prepare`` of the DanZero / DanZero+ actors) concatenates the same kinds of blocks in
another order, numbers the 54 kinds in its own suit order and differs in a few readings. This encoder gives the
client's vector from a player's view:

=========  ====  ==============================================  =================================================
client     size  block                                           cardrl ``danzero`` (the papers' order)
=========  ====  ==============================================  =================================================
0:54         54  own hand                                        0:54, kinds permuted
54:66        12  wild-card flags, the client's own rules         501:513 (cardrl's readings differ: below)
66:120       54  cards the others hold                           54:108, kinds permuted
120:174      54  the latest action (below)                       108:162 is the move to beat (below)
174:228      54  partner's last action; -1 none yet or finished  162:216 (cardrl: 0 before the partner acted)
228:390     162  cards played by down, partner, up               300:462, kinds permuted
390:474      84  cards left of down, partner, up (one-hot 28)    216:300
474:513      39  levels: own team, opponents, this deal          462:501
513:567      54  the action's cards                              the action vector, kinds permuted
=========  ====  ==============================================  =================================================

Card order, two of them (:data:`CARD_ORDERS`). The client numbers a kind ``13 * suit + rank`` over suits hearts,
spades, clubs, diamonds (``H2`` = 0 .. ``DA`` = 51, ``SB`` the black joker 52, ``HR`` the red joker 53).

- ``danzero_client``: the authors' client (``card2array``) writes a count vector column-major, so position
  ``4 * rank + s`` holds suit ``s`` of (H, S, C, D); cardrl's kind ``4 * rank + s`` counts suits (d, c, h, s). So within
  each rank the client's positions (H, S, C, D) take cardrl's (h, s, c, d), and the jokers stay (:data:`CLIENT_KINDS`).
- ``danlm``: DanLM's reproduction of DanZero (its public int8 ONNX models) writes position ``13 * suit + rank``, the
  card number itself (:data:`DANLM_KINDS`), as its first-layer weights read; its model plays far better this way
  than the client's way (docs/export.md, "DanZero-format models").

Every block of 54 (hand, others' cards, actions, played cards) uses the one order; the wild-card flags are the
client's, computed from the cards whatever the order.

The latest action. The client keeps every action of the deal in order (a pass is empty) and shows the last one, all
-1 before the first action of the deal; after a player has finished, it inserts a -1 entry for that player after the
seat before it acts. Read from the view: -1 when nothing has been played yet; else the last entry of the history
when it was played by the seat before this one (up); -1 when up has finished; else the last entry (a pass: zeros).
cardrl's ``danzero`` shows the move to beat instead (zeros when leading).

Wild-card flags follow the client's ``proc_universal`` (the hand without the heart level card): [0] a wild card
held; [1] a suit with at most one of five consecutive ranks missing, windows 2-6 .. 9-K; [2..7] a thermometer of the
most suits held of one rank (so [2] and [3], six and five, are never set); [8] the run of held ranks that ends at the
ace is 4 or longer; [9] two adjacent ranks held in 2 and 3+ suits (either order); [10] three adjacent ranks held in
(1, 2+, 2+) suits, in any position of the single; [11] two adjacent ranks held in 2 suits each (and not [9]'s case).

Checked against a model of the client replayed on seeded random deals (tests/features/test_danzero_client.py): the
513 values agree exactly at every decision (10,677 decisions of 80 deals at four levels). Two cases could still
differ, neither seen: where the client inserts an empty entry for a seat skipped when the partner of a finished
player takes the lead (jie feng) with two players out, and a played-cards block whose recorded actions are one -1
entry (the client makes it all -1; a player who has played no card cannot have finished). Tribute and return are
not the network's decisions in the client (it plays them by rule); here they are scored like any move.
"""

from __future__ import annotations

import numpy as np

from cardrl.features.base import FeatureEncoder, check_action_ids
from cardrl.features.danzero import SLICES, STATE_DIM, DanZeroFeatures

__all__ = ["DanZeroClientFeatures", "CLIENT_KINDS", "DANLM_KINDS", "CARD_ORDERS", "CLIENT_SLICES",
           "client_wild_flags", "INPUT_DIM"]

_CLIENT_SUITS = (2, 3, 1, 0)  # the client's suits H, S, C, D as cardrl's suit index (d, c, h, s)
# position i of the client's 54-vector holds cardrl's kind CLIENT_KINDS[i]: per rank (H, S, C, D) <- (h, s, c, d)
CLIENT_KINDS = np.array([4 * rank + suit for rank in range(13) for suit in _CLIENT_SUITS] + [52, 53], dtype=np.int64)
# DanLM's: position 13 * suit + rank, per suit H, S, C, D the ranks 2..A
DANLM_KINDS = np.array([4 * rank + suit for suit in _CLIENT_SUITS for rank in range(13)] + [52, 53], dtype=np.int64)
CARD_ORDERS = {"danzero_client": CLIENT_KINDS, "danlm": DANLM_KINDS}
CLIENT_SLICES = {"hand": slice(0, 54), "wild_flags": slice(54, 66), "unseen": slice(66, 120),
                 "latest_action": slice(120, 174), "partner_last_action": slice(174, 228),
                 "played": slice(228, 390), "cards_left": slice(390, 474), "levels": slice(474, 513)}
INPUT_DIM = STATE_DIM + 54  # 567: [state | action], one row per legal move


def client_wild_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """The client's 12 wild-card flags (module docstring) of a 54-count ``hand`` in the client's order."""
    flags = np.zeros(12, dtype=np.float32)
    wild = 4 * level  # the heart of the level rank: suit 0 of the client's order
    if hand[wild] == 0:
        return flags
    flags[0] = 1
    held = np.asarray(hand[:52], dtype=np.int64).reshape(13, 4).copy()  # [rank, suit]
    held[level, 0] = 0
    flags[1] = any(np.count_nonzero(held[start:start + 5, suit] == 0) <= 1 for suit in range(4) for start in range(8))
    suits = np.count_nonzero(held, axis=1)
    most = int(suits.max())
    flags[2 + max(0, 6 - most):8] = 1 if most else 0
    if most == 0:
        flags[7] = 1
    run = 0
    for rank in range(13):
        run = run + 1 if suits[rank] else 0
        if suits[rank] and rank >= 1:
            pair = suits[rank - 1], suits[rank]
            if (pair[1] == 2 and pair[0] >= 3) or (pair[1] >= 3 and pair[0] == 2):
                flags[9] = 1
            elif pair == (2, 2):
                flags[11] = 1
        if suits[rank] and rank >= 2:
            three = suits[rank - 2:rank + 1]
            if sorted(three.tolist())[0] == 1 and np.count_nonzero(three >= 2) == 2:
                flags[10] = 1
    flags[8] = run >= 4
    return flags


class DanZeroClientFeatures(FeatureEncoder):
    """DanZero's 513-value state and 54-value action in the authors' client layout (module docstring), with the
    card order ``card_order`` (a key of :data:`CARD_ORDERS`), from a :class:`~cardrl.games.guandan.GuanDanView`. Not
    a registered encoder: the ``onnx:`` agent of a DanZero-format model uses it (docs/export.md)."""

    version = 1
    history_shape = None
    action_dim = 54
    obs_low = -1.0
    obs_high = 2.0

    def __init__(self, card_order: str = "danzero_client"):
        if card_order not in CARD_ORDERS:
            raise ValueError(f"card order {card_order!r}; DanZero-format card orders: {', '.join(CARD_ORDERS)}")
        self.card_order, self._kinds = card_order, CARD_ORDERS[card_order]
        self.name = f"{card_order}_v1"
        self._papers = DanZeroFeatures()

    def _in_order(self, counts: np.ndarray) -> np.ndarray:
        return np.asarray(counts)[..., self._kinds]

    def state_dim(self, agent=None) -> int:
        return STATE_DIM

    def encode(self, game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        return self.encode_view(game.view(seat), out)

    def encode_view(self, view, out: np.ndarray | None = None) -> np.ndarray:
        papers = self._papers.encode_view(view)
        state = np.zeros(STATE_DIM, dtype=np.float32) if out is None else out
        hand = papers[SLICES["hand"]]
        state[CLIENT_SLICES["hand"]] = self._in_order(hand)
        state[CLIENT_SLICES["wild_flags"]] = client_wild_flags(hand[CLIENT_KINDS], int(view.level))
        state[CLIENT_SLICES["unseen"]] = self._in_order(papers[SLICES["unseen"]])
        state[CLIENT_SLICES["latest_action"]] = self._latest_action(view)
        state[CLIENT_SLICES["partner_last_action"]] = self._partner_last(view)
        state[CLIENT_SLICES["played"]] = self._in_order(papers[SLICES["played"]].reshape(3, 54)).reshape(-1)
        state[CLIENT_SLICES["cards_left"]] = papers[SLICES["cards_left"]]
        state[CLIENT_SLICES["levels"]] = papers[SLICES["levels"]]
        return state

    def _cards(self, move) -> np.ndarray:
        counts = np.zeros(54, dtype=np.float32)
        np.add.at(counts, np.asarray(move.cards, dtype=np.int64), 1.0)
        return self._in_order(counts)

    def _latest_action(self, view) -> np.ndarray:
        up = (view.seat + 3) % 4
        if not view.history:
            return np.full(54, -1.0, dtype=np.float32)
        seat, move = view.history[-1]
        if seat != up and up in view.finished:
            return np.full(54, -1.0, dtype=np.float32)
        return self._cards(move)

    def _partner_last(self, view) -> np.ndarray:
        partner = (view.seat + 2) % 4
        last = next((move for seat, move in reversed(view.history) if seat == partner), None)
        if last is None or partner in view.finished:
            return np.full(54, -1.0, dtype=np.float32)
        return self._cards(last)

    def action_features(self, source, ids) -> np.ndarray:
        """``(n, 54)`` float32: the cards of each move (a wild card at its own kind, as the client's action list names
        physical cards) in the client's order."""
        return self._in_order(source.move_cards(check_action_ids(ids)).astype(np.float32))

    def rows(self, view, ids) -> np.ndarray:
        """``(n, 567)`` float32: the client's ``x_batch``, the state repeated beside each move's action."""
        actions = self.action_features(view, ids)
        return np.hstack([np.broadcast_to(self.encode_view(view), (len(actions), STATE_DIM)), actions])
