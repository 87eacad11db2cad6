"""What every rules engine shares (DESIGN.md layer 2; RULES.md): errors, input checks, replay, and the
reasons a move-table move is illegal.

An engine holds a :class:`~cardrl.games.move_table.MoveTable` as ``table``; its actions are move ids.
Bad input raises with a message naming what was wrong and what is allowed, and leaves the state unchanged.
"""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

import numpy as np

from cardrl.games.move_table import MoveTable

G = TypeVar("G", bound="TableGameMixin")


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


class TableGameMixin:
    """Shared engine behaviour (RULES.md, every game): the deal check and ``replay``. Subclasses set ``phase`` (``None`` before
    ``reset``) and implement ``reset(seed)`` and ``step(action)``."""

    phase: str | None

    def _require_deal(self) -> None:
        if self.phase is None:
            raise RuntimeError("no deal yet: call reset(seed) first")

    @classmethod
    def replay(cls: type[G], seed: int, actions: Iterable[int], **options) -> G:
        """The state after dealing ``seed`` and applying ``actions`` (as recorded in ``game.actions``)."""
        game = cls(**options).reset(seed)
        for action in actions:
            game.step(action)
        return game
