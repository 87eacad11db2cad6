"""DanZero's GuanDan features (feature set ``danzero_v1``): the 513-dim state and the 54-dim action.

Source: Lu et al. 2023 (DanZero, Sec. IV-A, "The feature of the state is composed of a vector with 513
dimensions"), restated with index ranges in Zhao et al. 2024 (DanZero+, Sec. IV-A and Fig. 4). Card blocks use
the engine's 54-kind order (:mod:`cardrl.games.guandan.moves`: kind ``4 * rank + suit``, ranks ``2..A``, suits
``d c h s``, 52 black joker, 53 red joker) and hold *counts* 0, 1 or 2 per kind (DanZero's Fig. 3: "3 possible
values for each element ... the number of cards of the corresponding suits and points").

State layout (the DanZero+ index list, ends exclusive; the paper writes ``[462 - 501]`` and ``[501 - 513]``,
which only add up to 513 read as half-open ranges):

========  ====  ======================================================================================
slice     size  meaning (seat-relative; "down" = next seat to play, "mate" = partner, "up" = previous)
========  ====  ======================================================================================
0:54        54  own hand, counts per kind
54:108      54  cards not seen: every card not in the own hand and not played (the other hands together)
108:162     54  the last move, i.e. the move to beat (counts); all zero when this seat leads the trick
162:216     54  the partner's last action this deal: its cards; zero for a pass or before it has acted;
                all -1 once the partner has finished
216:300     84  cards left of down, mate, up: 3 one-hots of 28 (index = number of cards, 0..27)
300:462    162  cards played this deal by down, mate, up: 3 x 54 counts
462:501     39  levels: own team's, the opponents', the current deal's, 3 one-hots of 13 (index 0 = 2 .. 12 = A)
501:513     12  wild-card flags (below); all zero when the hand holds no wild card
========  ====  ======================================================================================

Wild-card flags. The papers say only "whether we have wild cards in hand and whether these cards can make up
Bombs, Straight Flushes, Straights, or other card types except Single and Joker Bomb". The 12 flags follow the
authors' client code (``proc_universal`` of the DanZero/DanZero+ GuanDan clients) in their slots, with *our
readings* (marked R) where that code is ambiguous or limited. ``w`` = wild cards held (1-2); "natural" counts
leave the wild cards out; "the line" is the ace-low sequence line ``A 2 3 ... K A``.

* [0] the hand holds a wild card.
* [1] a straight flush that uses a wild card can be played: some suit and 5-window of the line lacks at most
  ``w`` natural cards (the client: at most 1 missing in windows of 2..A; R: ace-low windows, ``w`` missing).
* [2..7] thermometer of ``m`` = the largest natural count of one rank: flags ``m >= 6, 5, 4, 3, 2, 1`` (with a
  wild these make a 7+/6/5/4-card bomb, a trio, a pair). R: the client counts distinct suits per rank, which
  caps ``m`` at 4 and leaves [2] and [3] always 0; counts are what the thresholds mean.
* [8] a straight that uses a wild card: some 5-window of the line lacks at most ``w`` ranks (client: a run of
  4+ ranks held).
* [9] a plate that uses a wild card: two adjacent ranks of the line lack at most ``w`` cards of two trios
  (client: adjacent counts (2, >=3) or (>=3, 2)).
* [10] a tube that uses a wild card: three adjacent ranks lack at most ``w`` cards of three pairs (client: one
  single among three adjacent ranks holding >= 2).
* [11] R: a three-with-two that uses a wild card: two different ranks lack at most ``w`` cards of a trio and a
  pair (a pair of identical jokers can be the pair). The client's last flag marks two adjacent pairs; we use the
  one card type the list above leaves out.

R: flags [1] and [8..11] mean exactly "the hand has a legal lead of that category whose cards include a wild
card" (when a natural combination exists, a wild can replace one of its cards); the tests check the fast kernel
against :func:`cardrl.games.guandan.moves.legal_moves` on random hands.

Other readings (R): a tribute receiver holds 28 cards until it has returned one (a decision of its own with
``tribute_decisions=True``); the cards-left one-hot shows that as 27. "Played cards" are those of this deal's
play phase (tribute and return cards move between hands and are not "played"); "the last move" of the papers is
the move that must be beaten (what the legal moves depend on), not the latest action (which may be a pass); the
partner's last action before it has acted is zero. The authors' client concatenates the blocks in another order
(hand, flags, unseen, last, mate's last, played, cards left, levels) and numbers cards in its own suit order; we
keep the papers' order and the engine's kinds.

Action (54): the counts of the cards a move puts down, a wild card counted at its own kind (the heart level
card), as DanZero does (the action list of the GuanDan server names physical cards). Two copies of a kind give a
2. Moves with the same cards but a different use (a wild as the 2 or the 7 of a straight, a same-suit run as a
straight or a straight flush) therefore share one encoding; :meth:`DanZeroFeatures.move_keys` returns the
(category, rank) pair that tells them apart, and they have distinct action ids in the PettingZoo env (whose move
tables key on cards, category and rank). Pass is all zero; the tribute
and return decisions (``tribute_decisions=True``) encode their one card.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from cardrl.features.base import FeatureEncoder, slice_blocks
from cardrl.games.guandan import GuanDanGame, GuanDanView
from cardrl.games.guandan.moves import NUM_KINDS, Move
from cardrl.games.guandan.table import moves_to_counts

__all__ = ["DanZeroFeatures", "SLICES", "STATE_DIM", "wild_flags"]

STATE_DIM = 513
SLICES = {
    "hand": slice(0, 54),
    "unseen": slice(54, 108),
    "last_move": slice(108, 162),
    "partner_last_move": slice(162, 216),
    "cards_left": slice(216, 300),
    "played": slice(300, 462),
    "levels": slice(462, 501),
    "wild_flags": slice(501, 513),
}
_LINE = np.array([12] + list(range(13)), dtype=np.int64)  # rank index at each position of the ace-low line


@njit(cache=True, nogil=True)
def _wild_flags_kernel(hand, level, line, flags):
    """Fills ``flags`` (12 int8, zeroed) for a hand holding wild cards; see the module docstring."""
    wild = 4 * level + 2
    w = hand[wild]
    flags[0] = 1
    per = np.zeros((13, 4), dtype=np.int64)
    for k in range(52):
        if k != wild:
            per[k // 4, k % 4] = hand[k]
    rc = per.sum(axis=1)
    # [1] straight flush: some suit and 5-window of the line lacks at most w cards
    for s in range(4):
        for start in range(10):
            miss = 0
            for p in range(start, start + 5):
                if per[line[p], s] == 0:
                    miss += 1
            if miss <= w:
                flags[1] = 1
    m = rc.max()
    for i in range(6):
        if m >= 6 - i:
            flags[2 + i] = 1
    for start in range(10):  # [8] straight
        miss = 0
        for p in range(start, start + 5):
            if rc[line[p]] == 0:
                miss += 1
        if miss <= w:
            flags[8] = 1
    for start in range(13):  # [9] plate: two trios
        miss = max(0, 3 - rc[line[start]]) + max(0, 3 - rc[line[start + 1]])
        if miss <= w:
            flags[9] = 1
    for start in range(12):  # [10] tube: three pairs
        miss = 0
        for p in range(start, start + 3):
            miss += max(0, 2 - rc[line[p]])
        if miss <= w:
            flags[10] = 1
    joker_pair = hand[52] == 2 or hand[53] == 2
    for t in range(13):  # [11] three-with-two
        tn = max(0, 3 - rc[t])
        if joker_pair and tn <= w:
            flags[11] = 1
        for q in range(13):
            if q != t:
                miss = tn + max(0, 2 - rc[q])
                if miss <= w:
                    flags[11] = 1
    return flags


def wild_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """The 12 wild-card flags of a 54-count ``hand`` at ``level`` (module docstring), int8 ``(12,)``."""
    flags = np.zeros(12, dtype=np.int8)
    if hand[4 * level + 2] == 0:
        return flags
    return _wild_flags_kernel(np.asarray(hand, dtype=np.int64), int(level), _LINE, flags)


def _partner_last(history, partner: int) -> Move | None:
    for seat, move in reversed(history):
        if seat == partner:
            return move
    return None


_NO_CARDS = np.zeros(0, dtype=np.int64)


def _cards_array(move: Move | None) -> np.ndarray:
    if move is None or not move.cards:
        return _NO_CARDS
    return np.array(move.cards, dtype=np.int64)


@njit(cache=True)
def _encode_game_kernel(out, seat, hands, played, last, mate, mate_finished, own_level, other_level, level, line,
                        flags):
    """:func:`_encode_kernel` from the four hands (the unseen cards and the cards left computed here)."""
    unseen = np.zeros(54, dtype=np.int64)
    cards_left = np.zeros(4, dtype=np.int64)
    for p in range(4):
        for k in range(54):
            cards_left[p] += hands[p, k]
            if p != seat:
                unseen[k] += hands[p, k]
    return _encode_kernel(out, seat, hands[seat], unseen, played, cards_left, last, mate, mate_finished, own_level,
                          other_level, level, line, flags)


@njit(cache=True)
def _encode_kernel(out, seat, hand, unseen, played, cards_left, last, mate, mate_finished, own_level, other_level,
                   level, line, flags):
    """The whole 513-dim state (:class:`DanZeroFeatures`) in one compiled pass (``out`` zeroed; ``last`` / ``mate``: the kinds of
    the move to beat and of the partner's last action, empty for none or a pass)."""
    for k in range(54):
        out[k] = hand[k]
        out[54 + k] = unseen[k]
    for k in last:
        out[108 + k] += 1.0
    if mate_finished:
        out[162:216] = -1.0
    else:
        for k in mate:
            out[162 + k] += 1.0
    for i in range(3):
        other = (seat + 1 + i) % 4
        out[216 + 28 * i + min(cards_left[other], 27)] = 1.0  # 28 only between a tribute and its return
        for k in range(54):
            out[300 + 54 * i + k] = played[other, k]
    out[462 + own_level] = 1.0
    out[475 + other_level] = 1.0
    out[488 + level] = 1.0
    if hand[4 * level + 2] > 0:
        _wild_flags_kernel(hand, level, line, flags)
        for i in range(12):
            out[501 + i] = flags[i]
    return out


def _move_and_level_args(seat: int, last_move, history, finished, team_levels, level: int) -> tuple:
    """The kernels' arguments after the cards: ``last, mate, mate_finished, own_level, other_level, level, line,
    flags`` (the move to beat and the partner's last action as card kinds, empty for none or a pass)."""
    partner = (seat + 2) % 4
    mate_finished = partner in finished
    mate = _NO_CARDS if mate_finished else _cards_array(_partner_last(history, partner))
    team = seat % 2
    return (_cards_array(last_move), mate, mate_finished, int(team_levels[team]), int(team_levels[1 - team]),
            int(level), _LINE, np.zeros(12, dtype=np.int8))


class DanZeroFeatures(FeatureEncoder):
    """DanZero's GuanDan features (Lu et al. 2023 Sec. IV-A; DanZero+ Sec. IV-A, Fig. 4), name ``danzero_v1``.

    ``encode(game, seat)`` / ``encode_view(view)`` give the 513-dim float32 state of the module docstring (no
    history block), ``action_features(source, ids)`` the ``(n, 54)`` action vectors of action ids (``source``: the
    engine or a view, at its level) and ``move_vectors(moves)`` those of ``Move`` values; the DanZero Q-network
    input is ``[state | action]`` (567 values). Only what the seat may see is read.
    """

    name = "danzero_v1"
    version = 1
    default_q_model = "mlp"  # DanZero's 4 x 512 tanh MLP (Lu et al. 2023, Fig. 4)
    opponent_models = ("luo_tan",)  # Luo & Tan's opponent model, beyond the paper (no history: an MLP on the state)
    history_shape = None
    obs_low = -1.0
    obs_high = 2.0
    STATE_DIM = STATE_DIM
    HISTORY_SHAPE = (0,)
    HISTORY_DIM = 0
    ACTION_DIM = NUM_KINDS
    SLICES = SLICES

    def state_dim(self, agent=None) -> int:
        """513 for every seat (the argument is accepted for interface parity with DouZeroFeatures)."""
        return STATE_DIM

    def state_blocks(self, agent=None) -> tuple[tuple[str, int, int], ...]:
        """The named blocks of :data:`SLICES`, the same for every seat."""
        return slice_blocks(SLICES)

    def obs_dim(self, agent=None) -> int:
        return STATE_DIM

    def _out(self, out: np.ndarray | None) -> np.ndarray:
        if out is None:
            return np.zeros(STATE_DIM, dtype=np.float32)
        if out.shape != (STATE_DIM,) or out.dtype != np.float32:
            raise ValueError(f"out must be float32 of shape ({STATE_DIM},), got {out.dtype} {out.shape}")
        out[:] = 0.0
        return out

    def encode(self, game: GuanDanGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The state of ``seat`` in ``game`` as float32 ``(513,)`` (``out``: a vector to fill in place)."""
        if game.phase is None:
            raise RuntimeError("the game has no deal yet: call reset(seed) first")
        if isinstance(seat, bool) or seat not in range(4):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return _encode_game_kernel(self._out(out), seat, game.hands, game.played,
                                   *_move_and_level_args(seat, game.last_move, game.history, game.finished,
                                                         game.team_levels, game.level))

    def encode_view(self, view: GuanDanView, out: np.ndarray | None = None) -> np.ndarray:
        """Same as :meth:`encode`, from a player's :class:`GuanDanView`."""
        return _encode_kernel(self._out(out), view.seat, np.asarray(view.hand), np.asarray(view.unseen),
                              np.asarray(view.played), np.asarray(view.cards_left, dtype=np.int64),
                              *_move_and_level_args(view.seat, view.last_move, view.history, view.finished,
                                                    view.team_levels, view.level))

    def move_vectors(self, moves: Sequence[Move]) -> np.ndarray:
        """``(n, 54)`` float32 card counts of ``moves`` (a list of :class:`Move`; pass: zeros)."""
        if not all(isinstance(m, Move) for m in moves):
            bad = next(m for m in moves if not isinstance(m, Move))
            raise TypeError(f"moves must be GuanDan Move values (game.legal_moves()), got {type(bad).__name__} "
                            f"{bad!r}")
        return moves_to_counts(moves, np.float32)

    @staticmethod
    def move_keys(moves: Sequence[Move]) -> np.ndarray:
        """``(n, 2)`` int8 ``(category, rank + 1)`` of ``moves``: what tells apart moves with the same cards."""
        return np.array([(int(m[0]), int(m[1]) + 1) for m in moves], dtype=np.int8).reshape(len(moves), 2)

    def blocks(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The named blocks of a state (or a batch ``(..., 513)``) as views."""
        obs = np.asarray(obs)
        if obs.ndim == 0 or obs.shape[-1] != STATE_DIM:
            raise ValueError(f"a danzero_v1 state has {STATE_DIM} values in its last axis, got shape {obs.shape}")
        return {name: obs[..., s] for name, s in SLICES.items()}


NUM_MOVE_CATEGORIES = 13  # Category.PASS .. Category.RETURN
NUM_MOVE_RANKS = 17  # Move.rank -1 (pass) .. 15 (red joker)


class DanZeroKeyedFeatures(DanZeroFeatures):
    """DanZero's features with an action vector that tells apart moves playing the same cards (``danzero_keyed_v1``).

    DanZero's 54-dim action vector gives the same features to the same cards used two ways (with a heart wild,
    straight 2-6 and straight 3-7 from one hand; a same-suit run as a straight or a straight flush), so a Q-network
    cannot prefer one. Here the action is ``[54 card counts | category one-hot (13) | rank one-hot (17)]`` (84
    values); the state is DanZero's 513. An option beyond the papers (register name ``"danzero_keyed"``); the
    default ``"danzero"`` keeps DanZero's 567-dim input.
    """

    name = "danzero_keyed_v1"
    version = 1
    action_dim = NUM_KINDS + NUM_MOVE_CATEGORIES + NUM_MOVE_RANKS
    ACTION_DIM = action_dim

    def action_features(self, source, ids) -> np.ndarray:
        """``(n, 84)`` float32: card counts, category and rank one-hots of action ids (``source``: engine or view)."""
        from cardrl.features.base import check_action_ids

        ids = check_action_ids(ids)
        keys = source.move_keys(ids)
        out = np.zeros((len(ids), self.action_dim), dtype=np.float32)
        out[:, :NUM_KINDS] = source.move_cards(ids)
        rows = np.arange(len(ids))
        out[rows, NUM_KINDS + keys[:, 0]] = 1.0
        out[rows, NUM_KINDS + NUM_MOVE_CATEGORIES + keys[:, 1] + 1] = 1.0
        return out
