"""Per-game tournament protocols: how a deal is replayed with sides swapped and how side A is scored.

A :class:`TournamentProtocol` names, for one game, the *arrangements* of a deal (which seats side A takes,
the rest taken by side B), builds the engine from the deal file's rule options, and reads side A's score and
win off the engine's payoffs. Registered (Luo & Tan 2024, Sec. 5.1):

- DouDiZhu: "agent A and B play as Landlord and Peasants once, respectively" (2 arrangements);
- Big2: "agent A play from each of the four positions ..., while agent B play in the remaining positions"
  (4 arrangements: A in seat k, B in the other three, k = 0..3).

GuanDan (teams swapped) registers the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TournamentProtocol", "PROTOCOLS", "protocol_for"]


@dataclass(frozen=True)
class TournamentProtocol:
    """How one game's duplicate tournament is played (DESIGN.md layer 6; Luo & Tan 2024, Sec. 5.1).

    ``arrangements[k]`` is the tuple of seats side A takes in the k-th replay of a deal (B takes the others);
    ``labels[k]`` names it in tables. A's ADP score of a game is the sum of the ``"adp"`` payoffs of A's seats
    (DouDiZhu: the landlord's payoff when A is landlord, the two peasants' when A are the peasants, i.e.
    ``+-2 x 2^bombs``, the unit of DouZero's ``evaluate.py``; Big2: the card penalty payoff of A's one seat).
    ``reward`` is what ``engine.payoffs`` is asked for (None: its default); A wins when the sum of its seats'
    ``win_reward`` payoffs is positive (``win_reward=None``: when A's score is positive). ``options`` are the
    rule options with their defaults; ``make_game(**options)`` builds the engine. ``check_options(full)``
    raises ValueError on an unsupported value and may return the options in canonical (JSON- and
    hash-friendly) form.
    """

    game: str
    num_players: int
    arrangements: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    options: Mapping[str, Any]
    make_game: Callable[..., Any]
    check_options: Callable[[dict[str, Any]], dict[str, Any] | None] = field(default=lambda options: None)
    reward: str | None = "adp"
    win_reward: str | None = "wp"

    def normalise_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full rule options (defaults filled in); unknown keys or unsupported values raise ValueError."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise ValueError(f"unknown {self.game} rule option(s) {unknown}; allowed: {sorted(self.options)}")
        full = {**self.options, **given}
        canonical = self.check_options(full)
        return full if canonical is None else dict(canonical)

    def seats_of_b(self, k: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s not in self.arrangements[k])

    def score_a(self, payoffs: np.ndarray, k: int) -> float:
        """Side A's points in a finished game of arrangement ``k`` (sum over A's seats)."""
        return float(sum(payoffs[s] for s in self.arrangements[k]))

    def outcome(self, engine: Any, payoffs: np.ndarray, k: int) -> tuple[float, bool]:
        """(A's score, whether A won) of a finished game of arrangement ``k`` whose ``reward`` payoffs are
        ``payoffs``."""
        score = self.score_a(payoffs, k)
        if self.win_reward is None:
            return score, score > 0
        return score, self.score_a(engine.payoffs(self.win_reward), k) > 0


def _doudizhu_game(**options):
    from cardrl.games.doudizhu import DouDizhuGame

    return DouDizhuGame(**options)


def _check_doudizhu(options: Mapping[str, Any]) -> None:
    if options["kickers"] not in ("douzero", "distinct"):
        raise ValueError(f"doudizhu kickers={options['kickers']!r}; allowed: 'douzero', 'distinct'")
    if options["bidding"]:
        raise ValueError("duplicate DouDiZhu tournaments swap a fixed landlord (DouZero's protocol); "
                         "bidding=True is not supported")


def _big2_game(**options):
    from cardrl.games.big2 import Big2Game

    penalties = options.get("penalty_multipliers")
    return Big2Game(**{**options, "penalty_multipliers": None if penalties is None else dict(penalties)})


def _check_big2(options: dict[str, Any]) -> dict[str, Any]:
    """Big2 rule options checked; ``penalty_multipliers`` as sorted ``((cards, factor), ...)`` or None (a dict,
    also one read back from JSON with string keys, or a list of pairs is accepted)."""
    from cardrl.games.big2 import check_penalty_multipliers
    from cardrl.games.big2_moves import STRAIGHT_ORDERS

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


PROTOCOLS: dict[str, TournamentProtocol] = {
    "doudizhu": TournamentProtocol(
        game="doudizhu",
        num_players=3,
        arrangements=((0,), (1, 2)),
        labels=("A landlord", "A peasants"),
        options={"kickers": "douzero", "bidding": False, "spring": False},
        make_game=_doudizhu_game,
        check_options=_check_doudizhu,
    ),
    "big2": TournamentProtocol(
        game="big2",
        num_players=4,
        arrangements=((0,), (1,), (2,), (3,)),
        labels=("A seat 0", "A seat 1", "A seat 2", "A seat 3"),
        options={"straight_order": "bigzero", "open_with_three_diamonds": True, "penalty_multipliers": None},
        make_game=_big2_game,
        check_options=_check_big2,
        reward=None,
        win_reward=None,
    ),
}


def protocol_for(game: str) -> TournamentProtocol:
    """The protocol of ``game``; ValueError naming the games that have one."""
    try:
        return PROTOCOLS[game]
    except KeyError:
        raise ValueError(f"no tournament protocol for game {game!r}; available: {sorted(PROTOCOLS)}") from None
