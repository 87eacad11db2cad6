"""DouZero's per-seat observation features for DouDiZhu (feature set ``douzero_v1``).

Implements the state, history and action features of DouZero (Zha et al., ICML 2021, Tables 4 and 5 of
arXiv:2106.06135; restated in Zhao et al. 2022, DouZero+, Sec. III "DouZero"), laid out exactly as the reference
implementation ``douzero.env.env.get_obs`` (``x_no_action`` and ``z``) so that DouZero's public checkpoints
read our features unchanged. Every card block is the 54-dim thermometer card vector of :mod:`cardrl.cards`
(rank ``r``'s count ``c`` fills kinds ``4r .. 4r+c-1``; 52 black joker, 53 red joker).

Landlord state (319) = hand 54 | other hands (unseen) 54 | last move 54 | landlord_up played 54 |
landlord_down played 54 | landlord_up cards left one-hot 17 | landlord_down cards left one-hot 17 | bombs one-hot 15.

Peasant state (430) = hand 54 | other hands 54 | landlord played 54 | teammate played 54 | last move 54 |
landlord's last move 54 | teammate's last move 54 | landlord cards left one-hot 20 | teammate cards left one-hot 17 |
bombs one-hot 15.

History (5 x 162) = the last 15 moves of the play phase (passes are all-zero rows), oldest first, front-padded
with zero rows, three moves per row. Action (54) = the move's card vector.

"Last move" is DouZero's: the latest move if it was not a pass, else the one before it (a pass, hence zeros,
after two passes). A player's "last move" is that player's latest action, a pass included (zeros before it has
acted). "Cards left" one-hots put ``n`` cards at index ``n - 1``, as DouZero's ``_get_one_hot_array`` does
(which sends 0 cards, only seen after the game ended, to the last slot).

The model input of DouZero is ``x = [state | action]`` (373 / 484 values) plus the history ``z``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.features.base import FeatureEncoder
from cardrl.games.doudizhu import ROLES, DouDizhuGame, DouDizhuView
from cardrl.games.move_table import MoveTable

__all__ = ["DouZeroFeatures"]

_NUM_KINDS = 54
_HISTORY_MOVES = 15

def _role_index(role: str) -> int:
    try:
        return ROLES.index(role)
    except ValueError:
        raise ValueError(f"unknown role {role!r}; roles are {ROLES}") from None


def _last_move(history: list[int] | tuple[int, ...], pass_id: int) -> int:
    """DouZero's ``get_last_move``: the latest move, or the one before it when the latest was a pass."""
    if not history:
        return pass_id
    if history[-1] != pass_id:
        return history[-1]
    return history[-2] if len(history) >= 2 else pass_id


def _last_move_of(history: list[int] | tuple[int, ...], role_idx: int, pass_id: int) -> int:
    """The latest action (pass included) of the role ``role_idx``; play is cyclic from the landlord (index 0)."""
    i = len(history) - 1 - ((len(history) - 1 - role_idx) % 3)
    return history[i] if i >= 0 else pass_id


class DouZeroFeatures(FeatureEncoder):
    """DouZero's per-seat features (Zha et al. 2021, Tables 4-5; DouZero+ Sec. III), name ``douzero_v1``.

    ``encode(game, seat)`` returns ``[state | history.ravel()]`` as one float32 vector of ``obs_dim(role)``
    values (1129 for the landlord, 1240 for a peasant); ``split`` cuts it (or a batch of them) back into
    DouZero's ``x_no_action`` and ``z``; ``action_features`` gives the 54-dim action vectors. The layout is
    that of ``douzero.env.env.get_obs`` value for value (see the module docstring).
    Only what the seat may see is read: its own hand, the union of the other hands, played cards, cards left,
    the public move history and the bomb count.
    """

    name = "douzero_v1"
    version = 1
    default_q_model = "douzero_lstm"  # DouZero's network (Zha et al. 2021, Fig. 3)
    opponent_models = ("douzero_plus",)  # DouZero+ reads DouZero's features (Zhao et al. 2022, Sec. IV-A)
    history_shape = (5, 162)
    HISTORY_SHAPE = history_shape
    HISTORY_DIM = 5 * 162
    ACTION_DIM = _NUM_KINDS
    STATE_DIMS = {"landlord": 319, "landlord_down": 430, "landlord_up": 430}
    # the state blocks of each role, in order (_fill_landlord, _fill_peasant)
    BLOCKS = {"landlord": (("hand", 54), ("unseen", 54), ("last_move", 54), ("up_played", 54), ("down_played", 54),
                           ("up_left", 17), ("down_left", 17), ("bombs", 15)),
              "peasant": (("hand", 54), ("unseen", 54), ("landlord_played", 54), ("mate_played", 54),
                          ("last_move", 54), ("landlord_last_move", 54), ("mate_last_move", 54),
                          ("landlord_left", 20), ("mate_left", 17), ("bombs", 15))}

    # ---- dimensions ---------------------------------------------------------------------------
    def state_dim(self, role: str | None = None) -> int:
        """319 for ``"landlord"``, 430 for ``"landlord_down"`` / ``"landlord_up"``."""
        _role_index(role)
        return self.STATE_DIMS[role]

    def state_blocks(self, role: str | None = None) -> tuple[tuple[str, int, int], ...]:
        """The state blocks of ``role`` (:attr:`BLOCKS`) as ``(name, start, stop)``."""
        _role_index(role)
        blocks, start = [], 0
        for name, size in self.BLOCKS["landlord" if role == "landlord" else "peasant"]:
            blocks.append((name, start, start + size))
            start += size
        return tuple(blocks)

    def obs_dim(self, role: str | None = None) -> int:
        """``state_dim(role) + 810`` (the flattened 5 x 162 history)."""
        return self.state_dim(role) + self.HISTORY_DIM

    # ---- encoding -----------------------------------------------------------------------------
    def encode(self, game: DouDizhuGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Features of ``seat`` in ``game`` for its role ``game.role(seat)``: float32 ``(obs_dim(role),)``.

        ``out`` (optional) is a float32 vector of that size to fill in place (it is overwritten and returned).
        """
        if game.landlord < 0:
            raise ValueError("DouZero features need the roles: the game is still bidding (no landlord yet)")
        if not 0 <= seat < 3:
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        hands = game.hands
        my = hands[seat]
        other = hands[(seat + 1) % 3] + hands[(seat + 2) % 3]
        return _encode(game.table, (seat - game.landlord) % 3, game.landlord, my, other, game.played,
                       hands.sum(axis=1), game.history, game.bomb_count, out)

    def encode_view(self, view: DouDizhuView, out: np.ndarray | None = None) -> np.ndarray:
        """Same as :meth:`encode`, from a player's :class:`DouDizhuView`."""
        if view.landlord < 0:
            raise ValueError("DouZero features need the roles: the view is from the bidding phase")
        return _encode(view.table, (view.seat - view.landlord) % 3, view.landlord, view.hand, view.unseen,
                       view.played, view.cards_left, view.history, view.bomb_count, out)

    def split(self, obs: np.ndarray, role: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``obs (..., obs_dim(role))`` -> ``(state (..., state_dim), history (..., 5, 162))`` (views, no copy)."""
        return super().split(obs, role)


def _encode(table: MoveTable, r: int, landlord: int, my: np.ndarray, other: np.ndarray, played: np.ndarray,
            cards_left: np.ndarray, history, bomb_count: int, out: np.ndarray | None) -> np.ndarray:
    """The feature vector of role index ``r`` (0 landlord, 1 landlord_down, 2 landlord_up); see the module doc."""
    sd = 319 if r == 0 else 430
    if out is None:
        out = np.zeros(sd + 810, dtype=np.float32)
    else:
        if out.shape != (sd + 810,) or out.dtype != np.float32:
            raise ValueError(f"out must be float32 of shape ({sd + 810},) for {ROLES[r]}, got {out.dtype} "
                             f"{out.shape}")
        out[:] = 0.0
    pass_id = table.pass_id
    seat_of = (landlord, (landlord + 1) % 3, (landlord + 2) % 3)  # seat of each role index
    recent = np.asarray(history[-_HISTORY_MOVES:], dtype=np.int64)
    last = _last_move(history, pass_id)
    if r == 0:
        _fill_landlord(out, table.cards, my, other, played[seat_of[2]], played[seat_of[1]], last,
                       int(cards_left[seat_of[2]]), int(cards_left[seat_of[1]]), bomb_count, recent)
    else:
        t = 3 - r  # the teammate's role index
        _fill_peasant(out, table.cards, my, other, played[landlord], played[seat_of[t]], last,
                      _last_move_of(history, 0, pass_id), _last_move_of(history, t, pass_id),
                      int(cards_left[landlord]), int(cards_left[seat_of[t]]), bomb_count, recent)
    return out


# The two kernels below write DouZero's blocks in the order of the module docstring (compiled with numba: the
# encoding runs at every step of training and evaluation).
@njit(cache=True, nogil=True)
def _put_counts(out, base, counts):
    for rank in range(13):
        for j in range(counts[rank]):
            out[base + 4 * rank + j] = 1.0
    if counts[13]:
        out[base + 52] = 1.0
    if counts[14]:
        out[base + 53] = 1.0


@njit(cache=True, nogil=True)
def _put_move(out, base, cards, move):
    for k in range(54):
        out[base + k] = cards[move, k]


@njit(cache=True, nogil=True)
def _put_history(out, base, cards, recent):
    start = base + 54 * (15 - len(recent))
    for i in range(len(recent)):
        _put_move(out, start + 54 * i, cards, recent[i])


@njit(cache=True, nogil=True)
def _fill_landlord(out, cards, my, other, up_played, down_played, last, up_left, down_left, bombs, recent):
    _put_counts(out, 0, my)
    _put_counts(out, 54, other)
    _put_move(out, 108, cards, last)
    _put_counts(out, 162, up_played)
    _put_counts(out, 216, down_played)
    out[270 + (up_left - 1) % 17] = 1.0
    out[287 + (down_left - 1) % 17] = 1.0
    out[304 + bombs] = 1.0
    _put_history(out, 319, cards, recent)


@njit(cache=True, nogil=True)
def _fill_peasant(out, cards, my, other, landlord_played, mate_played, last, landlord_last, mate_last,
                  landlord_left, mate_left, bombs, recent):
    _put_counts(out, 0, my)
    _put_counts(out, 54, other)
    _put_counts(out, 108, landlord_played)
    _put_counts(out, 162, mate_played)
    _put_move(out, 216, cards, last)
    _put_move(out, 270, cards, landlord_last)
    _put_move(out, 324, cards, mate_last)
    out[378 + (landlord_left - 1) % 20] = 1.0
    out[398 + (mate_left - 1) % 17] = 1.0
    out[415 + bombs] = 1.0
    _put_history(out, 430, cards, recent)
