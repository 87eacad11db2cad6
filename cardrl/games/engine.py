"""The interface every cardrl rules engine implements, and what the engines share (errors, input checks, replay).

An engine is one game of a registered card game (see :mod:`cardrl.games.registry`): a small value with no
gym, torch or Ray in it, cheap to copy and exactly replayable from ``(seed, actions)``. Every engine speaks in
*integer action ids*: ``legal_moves()`` returns the sorted ids the player to move may take, ``step(id)`` takes
one, ``move_cards(ids)`` gives their 54-dim card vectors and ``move_string(id)`` a readable name. The id space
is the game's (``num_actions`` ids): DouDiZhu's and Big2's move tables, GuanDan's per-level tables plus the
tribute and return decisions (docs/rules.md).

Bad input raises with a message naming what was wrong and what is allowed, and leaves the state unchanged:
:class:`IllegalMoveError` for a move that is not legal now, :class:`GameOverError` for a step after the end,
``TypeError`` for an action that is not an int, ``RuntimeError`` for a step before the first deal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Iterable, TypeVar

import numpy as np

from cardrl.games.move_table import MoveTable

__all__ = ["Engine", "IllegalMoveError", "GameOverError", "check_seed", "check_action_type", "table_move_reason"]

E = TypeVar("E", bound="Engine")


class IllegalMoveError(ValueError):
    """A move that is not legal in the current state (the state is left unchanged)."""


class GameOverError(RuntimeError):
    """A step after the game has ended."""


def check_seed(seed) -> int:
    """The seed as an int, or a TypeError/ValueError that says what a seed must be."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


def check_action_type(action) -> int:
    """The action as an int, or a TypeError naming its type (bools and floats are refused)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action must be an int move id, got {type(action).__name__} {action!r}")
    return int(action)


def table_move_reason(table: MoveTable, action: int, hand_bits: int, last_move: int | None, who: str,
                      hand_text: str, pretty: Callable[[str], str] = str) -> str | None:
    """Why ``action`` is not a legal play for a hand on ``last_move`` (``None``: leading), or ``None`` if it is.

    Checks, in order: the id range, pass while leading, the cards held, and whether it beats ``last_move``.
    ``pretty`` formats move strings in the message.
    """
    n = len(table)
    if not 0 <= action < n:
        return f"action {action} is out of range: move ids are 0..{n - 1}"
    if action == table.pass_id:
        return f"{who} leads and may not pass" if last_move is None else None
    move = pretty(table.strings[action])
    if int(table.bits[action]) & ~hand_bits:
        return f"{who} does not hold the cards of move {action} ({move}); hand is {hand_text}"
    if not table.beats(action, last_move):
        last = pretty(table.strings[last_move])
        return f"move {action} ({move}) does not beat the last move {last_move} ({last})"
    return None


class Engine(ABC):
    """A card game's rules as a state machine over integer action ids (module docstring).

    Subclasses set the class attributes, keep ``phase`` (``None`` before the first ``reset``, ``"over"`` at the
    end), ``current_player``, ``seed`` and ``actions`` (every action id of the game, for :meth:`replay`), and
    implement the abstract methods. Seats are ``0 .. num_players - 1`` in play order. What every engine shares is
    here: :meth:`view` and :meth:`oracle_view` build the game's ``view_class``, :meth:`copy` copies the state named
    by ``copied_arrays`` and ``copied_lists`` (an engine whose views or copies differ overrides them).
    """

    name: ClassVar[str]
    num_players: ClassVar[int]
    rewards: ClassVar[tuple[str, ...]]  # the payoff kinds; the first is the default
    deck: ClassVar[np.ndarray]  # (54,) counts of every card kind in the game's deck
    suits_matter: ClassVar[bool] = True  # False: only ranks matter, card vectors are per-rank thermometers
    # what a player sees, ``view_class(game, seat, oracle=...)`` (:meth:`view`), and the mutable state that
    # :meth:`copy` copies: the names of numpy arrays and of lists
    view_class: ClassVar[type]
    copied_arrays: ClassVar[tuple[str, ...]] = ()
    copied_lists: ClassVar[tuple[str, ...]] = ()

    phase: str | None
    current_player: int
    seed: int | None
    actions: list[int]

    def __init__(self) -> None:
        """No deal yet (``reset(seed)`` deals); a subclass takes its rule options and calls this first."""
        self.seed = None
        self.actions = []  # every action id of the game, for replay
        self.phase = None  # None until reset(seed) deals; "over" at the end

    # ---- the game --------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """The size of the action id space (ids are ``0 .. num_actions - 1``)."""

    @abstractmethod
    def reset(self: E, seed: int) -> E:
        """Deal with ``seed`` (a non-negative int) and return ``self``."""

    @abstractmethod
    def legal_moves(self) -> np.ndarray:
        """Sorted int64 ids of the legal actions of the player to move (empty once the game is over)."""

    @abstractmethod
    def step(self: E, action: int) -> E:
        """Apply a legal action id of the player to move; raise (changing nothing) otherwise."""

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @abstractmethod
    def payoffs(self, reward: str | None = None) -> np.ndarray:
        """Zero-sum payoff per seat (float64, ``(num_players,)``) of kind ``reward`` (``None``: ``rewards[0]``);
        all zeros before the end (GuanDan matches: the deals finished so far)."""

    @abstractmethod
    def payoff_bounds(self, reward: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each ``(num_players,)``: the least and most a seat can be paid for one scoring segment
        (a deal) with this engine's options; e.g. the range of returns ADMC clips its Q to."""

    # ---- what players see ------------------------------------------------------------------------------
    def view(self, seat: int) -> Any:
        """What ``seat`` sees: its own hand and everything public (copies; safe to keep)."""
        return self.view_class(self, self._check_seat(seat), oracle=False)

    def oracle_view(self, seat: int | None = None) -> Any:
        """Everything, every hand included (``seat`` defaults to the player to move), for oracle guiding and
        debugging."""
        return self.view_class(self, self.current_player if seat is None else self._check_seat(seat), oracle=True)

    # ---- moves and cards --------------------------------------------------------------------------------
    @abstractmethod
    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` card vectors (counts per kind) of action ids; decisions that play no card give zeros."""

    @abstractmethod
    def move_string(self, action: int) -> str:
        """A readable name of an action id (e.g. ``"33344"``, ``"pass"``)."""

    def move_strength(self, ids) -> np.ndarray:
        """A tie-break key per action id, higher for the stronger move, for argmax over moves whose features (and so
        Q-values) are equal. Default: all equal (the first of the tied moves is taken); GuanDan ranks a wild card's
        uses."""
        return np.zeros(len(np.asarray(ids).reshape(-1)), dtype=np.int64)

    @abstractmethod
    def cards_held(self) -> np.ndarray:
        """``(num_players, 54)`` card counts in each hand."""

    @abstractmethod
    def cards_played(self) -> np.ndarray:
        """``(num_players, 54)`` card counts each seat has played in the current deal."""

    def undealt_cards(self) -> np.ndarray:
        """``(54,)`` counts of cards in no hand and not played (DouDiZhu's bottom cards during bidding)."""
        return np.zeros(54, dtype=np.int64)

    def cards_left(self) -> np.ndarray:
        """Cards in each hand, ``(num_players,)`` int64."""
        return self.cards_held().sum(axis=1, dtype=np.int64)

    # ---- copies ----------------------------------------------------------------------------------------
    def copy(self: E) -> E:
        """An independent copy: the state arrays and lists named by ``copied_arrays`` and ``copied_lists`` are
        copied, everything else (read-only move tables, numbers, tuples) is shared."""
        new = object.__new__(type(self))
        state = new.__dict__  # filled in place: faster than setattr, and copies are on search's hot path
        state.update(self.__dict__)
        if self.phase is None:  # nothing dealt yet: the state fields do not exist
            return new
        for name in self.copied_arrays:
            state[name] = state[name].copy()
        for name in self.copied_lists:
            state[name] = list(state[name])
        return new

    @classmethod
    def replay(cls: type[E], seed: int, actions: Iterable[int], **options) -> E:
        """The state after dealing ``seed`` and applying ``actions`` (as recorded in ``game.actions``)."""
        game = cls(**options).reset(seed)
        for action in actions:
            game.step(action)
        return game

    @abstractmethod
    def render(self) -> str:
        """A readable text picture of the game."""

    # ---- shared checks -----------------------------------------------------------------------------------
    def is_legal(self, action: int) -> bool:
        """Whether int ``action`` is legal for the player to move (a non-int raises TypeError)."""
        self._require_deal()
        action = check_action_type(action)
        return bool(np.isin(action, self.legal_moves()))

    def _require_deal(self) -> None:
        if self.phase is None:
            raise RuntimeError("no deal yet: call reset(seed) first")

    def _require_running(self) -> None:
        self._require_deal()
        if self.phase == "over":
            raise GameOverError("the game is over; call reset(seed) to deal again")

    def _check_seat(self, seat) -> int:
        self._require_deal()
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not (
                0 <= seat < self.num_players):
            raise ValueError(f"seat must be an int 0..{self.num_players - 1}, got {seat!r}")
        return int(seat)

    def _check_reward(self, reward: str | None) -> str:
        if reward is None:
            return self.rewards[0]
        if reward not in self.rewards:
            raise ValueError(f"reward={reward!r} is unknown for {self.name}; allowed: {self.rewards}")
        return reward
