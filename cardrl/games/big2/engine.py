"""The Big2 rules engine (docs/rules.md "Big2"; Luo & Tan 2024, Appendix B): a small, cheaply copied value.

Four seats 0..3 in play order, 13 cards each from one 52-card deck. The holder of the 3 of diamonds leads
the first trick; with ``open_with_three_diamonds=True`` (default) that first move must contain it (BigZero,
the papers' benchmark, does not force it: ``False``). The leader may not pass; after three passes in a row
the last player who played leads. The first to empty their hand wins.

Payoffs are zero-sum: each loser pays one point per card left, times ``penalty_multipliers`` (a dict
``{threshold: factor}``: ``{10: 2, 13: 3}`` doubles 10-12 cards and triples 13; default none), and the
winner gains the sum.

Moves are ids into :func:`~cardrl.games.big2.moves.big2_move_table` (see there for the move strings and
the ``straight_order`` option). Hands are 54-dim card vectors (``4 * rank + suit``) and card bit sets.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from cardrl.cards import NUM_KINDS
from cardrl.games.big2.moves import (
    NUM_CARDS,
    THREE_OF_DIAMONDS,
    big2_move_table,
    bits_to_cards,
    cards_to_string,
    pretty_cards,
)
from cardrl.games.engine import Engine, IllegalMoveError, check_action_type, check_seed, table_move_reason

NUM_PLAYERS = 4
HAND_SIZE = 13
AGENTS = ("west", "south", "east", "north")  # seats 0..3 in play order: Luo & Tan's identity bits 00, 01, 10, 11
_THREE_D_BIT = 1 << THREE_OF_DIAMONDS
REWARDS = ("cards",)  # losers pay their cards left (times the penalty multipliers), the winner gains the sum
_DECK_VECTOR = np.array([1] * NUM_CARDS + [0, 0], dtype=np.int64)
_DECK_VECTOR.setflags(write=False)

__all__ = ["Big2Game", "Big2View", "NUM_PLAYERS", "HAND_SIZE", "check_penalty_multipliers", "REWARDS"]


def check_penalty_multipliers(multipliers: Mapping[int, float] | None) -> tuple[tuple[int, float], ...]:
    """``{threshold: factor}`` -> sorted ``((threshold, factor), ...)``, or a clear error.

    A loser with ``n`` cards pays ``n x factor`` of the largest threshold ``<= n`` (factor 1 below them all).
    """
    if multipliers is None:
        return ()
    if isinstance(multipliers, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in multipliers):
        multipliers = dict(multipliers)  # the normalised form of normalise_options
    if not isinstance(multipliers, Mapping):
        raise TypeError(f"penalty_multipliers must be a dict {{cards: factor}} such as {{10: 2, 13: 3}} or None, "
                        f"got {type(multipliers).__name__} {multipliers!r}")
    out = []
    for threshold, factor in multipliers.items():
        if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) or not (
                1 <= threshold <= HAND_SIZE):
            raise ValueError(f"penalty_multipliers: threshold {threshold!r} must be an int number of cards "
                             f"1..{HAND_SIZE}")
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)) or not (
                factor > 0):
            raise ValueError(f"penalty_multipliers: factor {factor!r} for {threshold} cards must be a positive "
                             f"number")
        out.append((int(threshold), float(factor)))
    return tuple(sorted(out))


def normalise_options(options: dict) -> dict:
    """Big2's rule options checked; ``penalty_multipliers`` as sorted ``((cards, factor), ...)`` or None (a dict,
    also one read back from JSON with string keys, or a list of pairs is accepted)."""
    from cardrl.games.big2.moves import STRAIGHT_ORDERS

    if options["straight_order"] not in STRAIGHT_ORDERS:
        raise ValueError(f"big2 straight_order={options['straight_order']!r}; allowed: {STRAIGHT_ORDERS}")
    if not isinstance(options["open_with_three_diamonds"], (bool, np.bool_)):
        raise ValueError(f"big2 open_with_three_diamonds={options['open_with_three_diamonds']!r}; allowed: True, "
                         f"False")
    penalties = options["penalty_multipliers"]
    if penalties is not None:
        pairs = penalties.items() if isinstance(penalties, Mapping) else penalties
        try:
            as_dict = {int(t) if isinstance(t, str) and t.isdigit() else t: f for t, f in pairs}
        except (TypeError, ValueError):
            raise ValueError(f"big2 penalty_multipliers={penalties!r}; allowed: None or {{cards: factor}} such as "
                             f"{{10: 2, 13: 3}}") from None
        try:
            penalties = check_penalty_multipliers(as_dict) or None
        except TypeError as err:
            raise ValueError(str(err)) from None
    return {**options, "open_with_three_diamonds": bool(options["open_with_three_diamonds"]),
            "penalty_multipliers": penalties}


class Big2View:
    """A player's view of a :class:`Big2Game` (copied values; ``oracle=True`` adds every hand), with what the
    features of Luo & Tan 2024 (Appendix C, Table 14) and BigZero are built from.

    ``hand`` is the 54-dim card vector of the seat's hand and ``hand_bits`` the same as a bit set;
    ``cards_left`` per seat; ``history`` / ``history_seats`` the moves in order and ``plays`` the same as
    ``(seat, move)`` pairs; ``played`` (4, 54) the cards each seat has played; ``unseen`` the cards in the
    other hands together; ``last_move`` / ``last_mover`` the move to beat (``None`` when leading);
    ``legal`` the legal move ids when ``seat`` is to move (else an empty array); ``role`` the seat's agent name;
    ``table`` the game's (shared, read-only) move table.
    """

    __slots__ = ("seat", "role", "table", "phase", "current_player", "hand", "hand_bits", "cards_left", "history", "history_seats",
                 "plays", "played", "unseen", "last_move", "last_mover", "must_contain_three_of_diamonds", "legal",
                 "winner", "hands")

    def __init__(self, game: Big2Game, seat: int, oracle: bool):
        self.seat = seat
        self.role = AGENTS[seat]
        self.table = game.table
        self.phase = game.phase
        self.current_player = game.current_player
        self.hand = game.hands[seat].copy()
        self.hand_bits = game.bits[seat]
        self.cards_left = game.cards_left()
        self.history = tuple(game.history)
        self.history_seats = tuple(game.history_seats)
        self.plays = tuple(zip(self.history_seats, self.history))
        self.played = game.played.copy()
        self.unseen = game.hands.sum(axis=0, dtype=np.uint8) - self.hand
        self.last_move = game.last_move
        self.last_mover = game.last_mover
        self.must_contain_three_of_diamonds = game.must_contain_three_of_diamonds
        self.legal = game.legal_moves() if seat == game.current_player else np.zeros(0, dtype=np.int64)
        self.winner = game.winner
        self.hands = game.hands.copy() if oracle else None

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` uint8 card vectors of move ids (pass: zeros)."""
        return self.table.cards[_check_ids(ids, len(self.table))]


class Big2Game(Engine):
    """One deal of Big2 (module docstring; Luo & Tan 2024, Appendix B and Table 13).

    ``reset(seed)`` deals; ``legal_moves()``, ``step(move)``, ``current_player``, ``is_over`` and ``payoffs()``
    play it; ``view(seat)`` / ``oracle_view()`` expose what a player (or an oracle) sees; ``copy()`` is cheap and
    ``replay(seed, actions, **options)`` rebuilds a state exactly.
    """

    name = "big2"
    num_players = NUM_PLAYERS
    rewards = REWARDS
    deck = _DECK_VECTOR
    view_class, copied_arrays, copied_lists = Big2View, ("hands", "played"), ("bits", "actions", "history",
                                                                             "history_seats")

    def __init__(self, straight_order: str = "bigzero", open_with_three_diamonds: bool = True,
                 penalty_multipliers: Mapping[int, float] | None = None):
        super().__init__()
        if not isinstance(open_with_three_diamonds, (bool, np.bool_)):
            raise TypeError(f"open_with_three_diamonds must be a bool, got {open_with_three_diamonds!r}")
        self.table = big2_move_table(straight_order)
        self.straight_order = straight_order
        self.open_with_three_diamonds = bool(open_with_three_diamonds)
        self.penalty_multipliers = check_penalty_multipliers(penalty_multipliers)
        self.num_moves = len(self.table)

    # ---- setup -------------------------------------------------------------------------------
    def reset(self, seed: int) -> "Big2Game":
        """Deal with ``seed`` (a non-negative int); the holder of the 3 of diamonds is to move."""
        self.seed = check_seed(seed)
        order = np.random.default_rng(self.seed).permutation(NUM_CARDS)
        self.hands = np.zeros((NUM_PLAYERS, NUM_KINDS), dtype=np.uint8)
        for seat in range(NUM_PLAYERS):
            self.hands[seat, order[seat * HAND_SIZE:(seat + 1) * HAND_SIZE]] = 1
        self.bits = [_vector_bits(self.hands[seat]) for seat in range(NUM_PLAYERS)]
        self.played = np.zeros((NUM_PLAYERS, NUM_KINDS), dtype=np.uint8)
        self.actions = []
        self.history: list[int] = []  # move ids, passes included
        self.history_seats: list[int] = []
        self.last_move: int | None = None  # the move to beat; None when the player to move leads
        self.last_mover: int | None = None
        self.winner: int | None = None
        self.first_player = next(s for s in range(NUM_PLAYERS) if self.bits[s] & _THREE_D_BIT)
        self.current_player = self.first_player
        self.phase = "play"
        return self

    # ---- queries -----------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.num_moves

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` uint8 card vectors of move ids (pass: zeros)."""
        return self.table.cards[_check_ids(ids, self.num_moves)]

    def move_string(self, action: int) -> str:
        return self.table.strings[int(_check_ids([action], self.num_moves)[0])]

    def cards_held(self) -> np.ndarray:
        return self.hands.astype(np.int64)

    def cards_played(self) -> np.ndarray:
        return self.played.astype(np.int64)

    def hand_bits(self, seat: int) -> int:
        """The seat's hand as a 52-bit card set (bit ``c`` = card id ``c``)."""
        return self.bits[seat]

    @property
    def must_contain_three_of_diamonds(self) -> bool:
        """Whether the move to make is the opening one that must contain the 3 of diamonds."""
        return self.open_with_three_diamonds and not self.history and self.phase == "play"

    def legal_moves(self) -> np.ndarray:
        """Sorted ids of the legal moves of the player to move (empty once the game is over)."""
        self._require_deal()
        if self.phase != "play":
            return np.zeros(0, dtype=np.int64)
        legal = self.table.legal_moves(self.bits[self.current_player], self.last_move)
        if self.must_contain_three_of_diamonds:
            legal = legal[(self.table.bits[legal] & np.uint64(_THREE_D_BIT)) != 0]
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int id) is legal for the player to move; a non-int raises TypeError."""
        self._require_deal()
        action = check_action_type(action)
        return self.phase == "play" and self._illegal_reason(action) is None

    def _illegal_reason(self, action: int) -> str | None:
        seat = self.current_player
        reason = table_move_reason(self.table, action, self.bits[seat], self.last_move, f"seat {seat}",
                                   cards_to_string(bits_to_cards(self.bits[seat])))
        if reason is None and self.must_contain_three_of_diamonds and not (
                int(self.table.bits[action]) & _THREE_D_BIT):
            reason = (f"move {action} ({self.table.strings[action]}) is the first move of the deal and must "
                      f"contain the 3 of diamonds (3d)")
        return reason

    def min_combination_rules(self) -> tuple:
        """What Minimum Combination Search needs of this move set: (fixed moves, variable categories, thermometer
        hands, jokers in the deck) (see :mod:`cardrl.search.mcs`)."""
        from cardrl.games.big2.moves import MCS_FIXED_MOVES, MCS_VARIABLE_CATEGORIES

        return (MCS_FIXED_MOVES, tuple(int(c) for c in MCS_VARIABLE_CATEGORIES), False, False)

    # ---- transitions -------------------------------------------------------------------------
    def step(self, action: int) -> "Big2Game":
        """Apply a legal move of the player to move. Raises (and changes nothing) otherwise."""
        self._require_running()
        action = check_action_type(action)
        reason = self._illegal_reason(action)
        if reason is not None:
            raise IllegalMoveError(reason)
        seat = self.current_player
        self.actions.append(action)
        self.history.append(action)
        self.history_seats.append(seat)
        if action != self.table.pass_id:
            cards = self.table.cards[action]
            self.hands[seat] -= cards
            self.played[seat] += cards
            self.bits[seat] &= ~int(self.table.bits[action])
            self.last_move, self.last_mover = action, seat
            if not self.bits[seat]:
                self.winner = seat
                self.phase = "over"
                return self
        nxt = (seat + 1) % NUM_PLAYERS
        if nxt == self.last_mover:  # three passes in a row: the last player to play leads
            self.last_move = None
        self.current_player = nxt
        return self

    # ---- results -----------------------------------------------------------------------------
    def penalty(self, cards: int) -> float:
        """What a loser with ``cards`` cards left pays: ``cards x`` the factor of ``penalty_multipliers``."""
        factor = 1.0
        for threshold, f in self.penalty_multipliers:
            if cards >= threshold:
                factor = f
        return cards * factor

    def payoffs(self, reward: str | None = None) -> np.ndarray:
        """Zero-sum payoff per seat (module docstring; the one reward kind is "cards"); all zeros while the game
        runs."""
        self._check_reward(reward)
        out = np.zeros(NUM_PLAYERS, dtype=np.float64)
        if self.winner is None:
            return out
        left = self.cards_left()
        for seat in range(NUM_PLAYERS):
            if seat != self.winner:
                out[seat] = -self.penalty(int(left[seat]))
        out[self.winner] = -out.sum()
        return out

    def payoff_bounds(self, reward: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """A loser pays at most 13 cards times the largest multiplier; the winner gains at most three such losses."""
        self._check_reward(reward)
        worst = self.penalty(HAND_SIZE)
        return np.full(NUM_PLAYERS, -worst), np.full(NUM_PLAYERS, 3 * worst)

    def render(self, color: bool = False) -> str:
        """A text picture of the deal (render mode "ansi"): hands with suit symbols, the trick, recent moves.

        ``color=True`` adds ANSI red to diamonds and hearts.
        """
        if self.phase is None:
            return "no deal yet"
        lines = []
        for seat in range(NUM_PLAYERS):
            mark = "*" if seat == self.current_player and not self.is_over else " "
            hand = pretty_cards(bits_to_cards(self.bits[seat]), color) or "-"
            lines.append(f"{mark} seat {seat} [{bin(self.bits[seat]).count('1'):2d}] {hand}")
        last = "(lead)" if self.last_move is None else self._pretty(self.last_move, color)
        by = "" if self.last_move is None else f" by seat {self.last_mover}"
        lines.append(f"to beat: {last}{by}")
        recent = [f"seat {s}: {self._pretty(m, color)}" for s, m in zip(self.history_seats[-8:], self.history[-8:])]
        lines.append("recent: " + (" | ".join(recent) if recent else "-"))
        if self.is_over:
            lines.append(f"over: seat {self.winner} wins, payoffs {self.payoffs().tolist()}")
        return "\n".join(lines)

    def _pretty(self, move: int, color: bool) -> str:
        if move == self.table.pass_id:
            return "pass"
        return pretty_cards(np.flatnonzero(self.table.cards[move]), color)


def _check_ids(ids, n: int) -> np.ndarray:
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise ValueError(f"move ids are 0..{n - 1}; got min {ids.min()} max {ids.max()}")
    return ids


def _vector_bits(vec: np.ndarray) -> int:
    return sum(1 << int(c) for c in np.flatnonzero(vec))
