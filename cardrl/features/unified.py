"""Luo & Tan's unified four-player features for DouDiZhu and Big2 (feature set ``luo_tan_v1``).

Luo & Tan 2024 (ODMC), Appendix C, Table 14 and Fig. 7; sizes from Sec. 4.2, Table 3: a 540-dim state
(10 blocks of 54), a 4 x 216 move history (the LSTM input; 540 + 4 x 128 LSTM outputs = the 1,052 state features
of Tables 2-3) and the 54-dim action. One layout serves every seat of both games, so a single network can play
all of them ("This proposed scheme enables a single model that can be applied to all players").

Card blocks are 54-dim card vectors: DouDiZhu uses the thermometer layout of :mod:`cardrl.cards` (rank ``r``'s
count ``c`` fills kinds ``4r .. 4r+c-1``; 52 black joker, 53 red joker: the paper's 4 x 13 + 1 x 2 matrices);
Big2 puts a 1 at card id ``4 * rank + suit`` and leaves 52, 53 at zero (the paper's "two additional zeros").

Exact layout of the state (``s`` = the encoded seat, "relative seat ``k``" = the ``k``-th seat after ``s`` in
play order, ``k = 0`` being ``s`` itself; ``n`` = 3 players for DouDiZhu, 4 for Big2)::

    [  0: 54]  own hand
    [ 54:108]  the union of the other players' hands (the cards ``s`` cannot see)
    [108:162]  who ``s`` is: identity [108:126] | camp [126:142] | cards left [142:162]   (a "player block")
    [162:216]  the move to beat (zeros when ``s`` leads: first move, or everyone else passed)
    [216:270]  player block of the seat that made the move to beat (zeros when ``s`` leads)
    [270:324]  cards played so far by relative seat 0 (``s``)
    [324:378]  ... by relative seat 1 (plays after ``s``)
    [378:432]  ... by relative seat 2
    [432:486]  ... by relative seat 3 (DouDiZhu: zeros)
    [486:540]  cards left per seat, one-hot at index ``cards - 1`` (all zeros for 0 cards):
               DouDiZhu: landlord [486:506] (20) | landlord_down [506:523] (17) | landlord_up [523:540] (17);
               Big2: relative seats 0, 1, 2, 3 at [486:499], [499:512], [512:525], [525:538] (13 each),
               [538:540] zeros.

A player block (54) is: identity, 2 bits (high, low) repeated 9 times (18 values, ``[hi, lo, hi, lo, ...]``);
camp, 1 bit repeated 16 times; that player's cards left as a 20-dim one-hot at ``cards - 1``. Identity is the
paper's: DouDiZhu 00 landlord, 01 landlord_down (peasant-down), 10 landlord_up (peasant-up); Big2 the seat
number 0..3 = 00 West, 01 South, 10 East, 11 North (seats in play order). Camp is 1 for the landlord and 0 for
a peasant; **Big2 (our definition; the paper defines camp for DouDiZhu only)**: camp is 1 for every seat,
reading the bit as "plays alone against all the others", which every Big2 player does, like the landlord.

History (4 x 216, flattened after the state): the last 4 rounds of play (12 moves in DouDiZhu, 16 in Big2,
passes included as zero vectors; bids are not moves), oldest round first, front-padded with zeros. A round is
``n`` consecutive moves starting with a move of ``s``; within a row of 216 the move of relative seat ``k`` sits
at ``[54k:54k+54]`` (DouDiZhu: ``[162:216]`` stays zero, the paper's zero "fourth player"). For the seat to move
this is exactly "the last 16 (12) moves, four per row" aligned on the end of the history, as DouZero aligns its
5 x 162 history; for a seat that is not to move the last row is the round in progress, filled up to the latest move.

Action (54): the move's card vector (pass: zeros), i.e. the move table's ``cards`` row.

Our reading of the terse paper text (Table 14 gives only the block contents and sizes): the order of the ten
blocks is Table 14's order; "the most recent action" is the move to beat (as in DouZero, a pass is never the
move to beat), and its player block is that of its author; played-card and cards-left blocks, and the history
columns, are in seat order *relative to the encoded player* (the paper says "1st..4th player"), except that
DouDiZhu's cards-left block must be in role order because its sizes are 20 / 17 / 17; a count of 0 cards (only
after the deal has ended) is all zeros; rows of the history are whole rounds as above. The identity bits, the
DouDiZhu camp bit and all block sizes are the paper's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.features.base import FeatureEncoder, slice_blocks
from cardrl.games.big2 import Big2Game, Big2View
from cardrl.games.doudizhu import DouDizhuGame, DouDizhuView

__all__ = ["UnifiedFeatures", "STATE_DIM", "HISTORY_SHAPE", "ACTION_DIM", "SLICES"]

STATE_DIM = 540
HISTORY_SHAPE = (4, 216)
HISTORY_DIM = 4 * 216
ACTION_DIM = 54
_ROUNDS = 4

# Named slices of the state (module docstring).
SLICES: dict[str, slice] = {
    "hand": slice(0, 54),
    "unseen": slice(54, 108),
    "self": slice(108, 162),
    "self_identity": slice(108, 126),
    "self_camp": slice(126, 142),
    "self_cards_left": slice(142, 162),
    "last_move": slice(162, 216),
    "last_mover": slice(216, 270),
    "last_mover_identity": slice(216, 234),
    "last_mover_camp": slice(234, 250),
    "last_mover_cards_left": slice(250, 270),
    "played_0": slice(270, 324),
    "played_1": slice(324, 378),
    "played_2": slice(378, 432),
    "played_3": slice(432, 486),
    "cards_left": slice(486, 540),
}


def _frozen(a) -> np.ndarray:
    a = np.asarray(a, dtype=np.int64)
    a.setflags(write=False)
    return a


_DDZ_LEFT_SIZES = _frozen([20, 17, 17])
_BIG2_LEFT_SIZES = _frozen([13, 13, 13, 13])
# Read-only lookup tables. Big2: identity = seat number (00 West, 01 South, 10 East, 11 North), camp 1 for every
# seat; DouDiZhu (indexed by the landlord's seat): identity = role index (00 landlord, 01 down, 10 up), camp 1 for
# the landlord. Cards-left block order: Big2 relative seats (indexed by the encoded seat), DouDiZhu role order.
_BIG2_IDENTITY = _frozen(range(4))
_BIG2_CAMP = _frozen([1, 1, 1, 1])
_BIG2_LEFT_SEATS = _frozen([[(s + k) % 4 for k in range(4)] for s in range(4)])
_DDZ_IDENTITY = _frozen([[(s - ll) % 3 for s in range(3)] for ll in range(3)])
_DDZ_CAMP = _frozen([[int(s == ll) for s in range(3)] for ll in range(3)])
_DDZ_LEFT_SEATS = _frozen([[(ll + k) % 3 for k in range(3)] for ll in range(3)])


class UnifiedFeatures(FeatureEncoder):
    """Luo & Tan 2024's unified features (Appendix C, Table 14, Fig. 7), name ``luo_tan_v1``, for Big2 and DouDiZhu.

    ``encode(game, seat)`` returns ``[state (540) | history (4 x 216) flattened]`` as one float32 vector of
    1,404 values for every seat of both games; ``split`` cuts it (or a batch) back into state and history;
    ``action_features`` gives the 54-dim card vectors of moves. The exact layout is in the module docstring
    (and :data:`SLICES`). Only what the seat may see is read: its own hand, the union of the other hands,
    played cards, cards left and the public move history.
    """

    name = "luo_tan_v1"
    version = 1
    default_q_model = "luo_tan"  # their decision model (Luo & Tan 2024, Table 3)
    opponent_models = ("luo_tan",)  # their opponent model (Table 2)
    history_shape = HISTORY_SHAPE
    STATE_DIM = STATE_DIM
    HISTORY_SHAPE = HISTORY_SHAPE
    HISTORY_DIM = HISTORY_DIM
    ACTION_DIM = ACTION_DIM
    OBS_DIM = STATE_DIM + HISTORY_DIM

    # ---- dimensions ---------------------------------------------------------------------------
    def state_dim(self, agent: str | None = None) -> int:
        """540 for every agent of every game (the layout is shared by all seats)."""
        return STATE_DIM

    def state_blocks(self, agent: str | None = None) -> tuple[tuple[str, int, int], ...]:
        """The named blocks of :data:`SLICES`, the same for every agent."""
        return slice_blocks(SLICES)

    def obs_dim(self, agent: str | None = None) -> int:
        """``540 + 864`` = 1,404 (state + the flattened 4 x 216 history) for every agent."""
        return self.OBS_DIM

    # ---- encoding -----------------------------------------------------------------------------
    def encode(self, game: Big2Game | DouDizhuGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Features of ``seat`` in ``game`` (a dealt :class:`Big2Game` or :class:`DouDizhuGame` past bidding).

        ``out`` (optional) is a float32 ``(1404,)`` vector to fill in place (overwritten and returned).
        """
        if isinstance(game, Big2Game):
            if game.phase is None:
                raise RuntimeError("no deal yet: call reset(seed) first")
            seat = _check_seat(seat, 4)
            return _encode_big2(game.table, seat, game.hands, None, game.played, None, game.history,
                                game.history_seats, game.last_move, game.last_mover, out)
        if isinstance(game, DouDizhuGame):
            if game.phase is None:
                raise RuntimeError("no deal yet: call reset(seed) first")
            if game.landlord < 0:
                raise ValueError("unified features need the roles: the DouDiZhu game is still bidding")
            seat = _check_seat(seat, 3)
            return _encode_ddz(game.table, seat, game.landlord, game.hands, None, game.played, None,
                               game.history, game.history_seats, game.last_move, game.last_mover, out)
        raise TypeError(f"unified features encode a Big2Game or a DouDizhuGame, got {type(game).__name__}")

    def encode_view(self, view: Big2View | DouDizhuView, out: np.ndarray | None = None) -> np.ndarray:
        """Same as :meth:`encode`, from a player's view."""
        if isinstance(view, Big2View):
            table = view.table
            return _encode_big2(table, view.seat, view.hand, view.unseen, view.played, view.cards_left,
                                view.history, view.history_seats, view.last_move, view.last_mover, out)
        if isinstance(view, DouDizhuView):
            if view.landlord < 0:
                raise ValueError("unified features need the roles: the view is from the bidding phase")
            return _encode_ddz(view.table, view.seat, view.landlord, view.hand, view.unseen, view.played,
                               view.cards_left, view.history, view.history_seats, view.last_move,
                               view.last_mover, out)
        raise TypeError(f"unified features encode a Big2View or a DouDizhuView, got {type(view).__name__}")

    def split(self, obs: np.ndarray, agent: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``obs (..., 1404)`` -> ``(state (..., 540), history (..., 4, 216))`` (views, no copy)."""
        return super().split(obs, agent)


def _check_seat(seat, n: int) -> int:
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be an int 0..{n - 1}, got {seat!r}")
    return int(seat)


def _prepare_out(out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return np.zeros(STATE_DIM + HISTORY_DIM, dtype=np.float32)
    if not isinstance(out, np.ndarray) or out.shape != (STATE_DIM + HISTORY_DIM,) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({STATE_DIM + HISTORY_DIM},), got "
                         f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
    out[:] = 0.0
    return out


def _history_tail(history, history_seats, n: int) -> tuple[np.ndarray, int]:
    """The last ``4n`` moves (int64) and the seat of the latest mover (0 when there is no move yet)."""
    if not history:
        return np.zeros(0, dtype=np.int64), 0
    return np.asarray(history[-_ROUNDS * n:], dtype=np.int64), int(history_seats[-1])


def _encode_big2(table, seat, hand, unseen, played, cards_left, history, history_seats, last_move, last_mover,
                 out):
    """``unseen is None``: ``hand`` holds every seat's hand (4, 54) (a game); else the seat's own (a view)."""
    return _encode(table, False, 4, seat, hand, unseen, played, cards_left, history, history_seats, last_move,
                   last_mover, _BIG2_IDENTITY, _BIG2_CAMP, _BIG2_LEFT_SIZES, _BIG2_LEFT_SEATS[seat], out)


def _encode_ddz(table, seat, landlord, hand, unseen, played, cards_left, history, history_seats, last_move,
                last_mover, out):
    """As :func:`_encode_big2`, with rank counts (3, 15) / (15,)."""
    return _encode(table, True, 3, seat, hand, unseen, played, cards_left, history, history_seats, last_move,
                   last_mover, _DDZ_IDENTITY[landlord], _DDZ_CAMP[landlord], _DDZ_LEFT_SIZES,
                   _DDZ_LEFT_SEATS[landlord], out)


def _encode(table, counts_mode, n, seat, hand, unseen, played, cards_left, history, history_seats, last_move,
            last_mover, identity, camp, left_sizes, left_seats, out):
    out = _prepare_out(out)
    tail, last_seat = _history_tail(history, history_seats, n)
    last_move = -1 if last_move is None else int(last_move)
    last_mover = -1 if last_mover is None else int(last_mover)
    if unseen is None:  # a game: every hand is given; the kernel derives the unseen cards and the counts
        _fill_from_hands(out, table.cards, counts_mode, n, seat, hand, played, identity, camp, last_move,
                         last_mover, tail, last_seat, left_sizes, left_seats)
    else:
        _fill(out, table.cards, counts_mode, n, seat, hand, unseen, played, np.asarray(cards_left, dtype=np.int64),
              identity, camp, last_move, last_mover, tail, last_seat, left_sizes, left_seats)
    return out


# ---- compiled kernels (the encoding runs at every step of training and evaluation) -----------------------------
@njit(cache=True, nogil=True)
def _put_cards(out, base, cards, counts_mode):
    """A hand: rank counts (DouDiZhu, thermometer) or a 54-dim card vector (Big2)."""
    if counts_mode:
        for rank in range(13):
            for j in range(cards[rank]):
                out[base + 4 * rank + j] = 1.0
        if cards[13]:
            out[base + 52] = 1.0
        if cards[14]:
            out[base + 53] = 1.0
    else:
        for k in range(54):
            if cards[k]:
                out[base + k] = 1.0


@njit(cache=True, nogil=True)
def _put_move(out, base, table_cards, move):
    for k in range(54):
        out[base + k] = table_cards[move, k]


@njit(cache=True, nogil=True)
def _put_player(out, base, identity, camp, left):
    hi = (identity >> 1) & 1
    lo = identity & 1
    for i in range(9):
        out[base + 2 * i] = hi
        out[base + 2 * i + 1] = lo
    for i in range(16):
        out[base + 18 + i] = camp
    if left > 0:
        out[base + 34 + left - 1] = 1.0


@njit(cache=True, nogil=True)
def _fill_from_hands(out, table_cards, counts_mode, n, seat, hands, played, identity, camp, last_move, last_mover,
                     tail, last_seat, left_sizes, left_seats):
    """:func:`_fill` from every seat's hand: the unseen cards are the other hands, the counts their sums."""
    k = hands.shape[1]
    unseen = np.zeros(k, dtype=np.int64)
    left = np.zeros(n, dtype=np.int64)
    for s in range(n):
        for j in range(k):
            left[s] += hands[s, j]
            if s != seat:
                unseen[j] += hands[s, j]
    _fill(out, table_cards, counts_mode, n, seat, hands[seat], unseen, played, left, identity, camp, last_move,
          last_mover, tail, last_seat, left_sizes, left_seats)


@njit(cache=True, nogil=True)
def _fill(out, table_cards, counts_mode, n, seat, hand, unseen, played, left, identity, camp, last_move,
          last_mover, tail, last_seat, left_sizes, left_seats):
    _put_cards(out, 0, hand, counts_mode)
    _put_cards(out, 54, unseen, counts_mode)
    _put_player(out, 108, identity[seat], camp[seat], left[seat])
    if last_move >= 0:
        _put_move(out, 162, table_cards, last_move)
        _put_player(out, 216, identity[last_mover], camp[last_mover], left[last_mover])
    for k in range(n):
        _put_cards(out, 270 + 54 * k, played[(seat + k) % n], counts_mode)
    base = 486
    for i in range(len(left_sizes)):
        c = left[left_seats[i]]
        if c > 0:
            out[base + c - 1] = 1.0
        base += left_sizes[i]
    # history: the latest move sits in the last row at its mover's relative seat; earlier moves go back one
    # slot each (play is strictly cyclic), so each row is one round starting with ``seat``'s move.
    m = len(tail)
    last_slot = (_ROUNDS - 1) * n + (last_seat - seat) % n
    for j in range(m):
        slot = last_slot - j
        if slot < 0:
            break
        _put_move(out, 540 + 216 * (slot // n) + 54 * (slot % n), table_cards, tail[m - 1 - j])
