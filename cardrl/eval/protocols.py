"""Per-game tournament protocols: how a deal is replayed with sides swapped and how side A is scored.

A :class:`TournamentProtocol` names, for one game, the *arrangements* of a deal (which seats side A takes,
the rest taken by side B), builds the engine from the deal file's rule options, and reads side A's score and
win off the engine's payoffs. DouDiZhu is registered now (Luo & Tan 2024, Sec. 5.1: "agent A and B play as
Landlord and Peasants once, respectively"); Big2 (A in each of the four seats) and GuanDan (teams swapped)
register the same way when their engines exist.
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
    ``+-2 x 2^bombs``, the unit of DouZero's ``evaluate.py``); A wins when the same sum of ``"wp"`` payoffs
    is positive. ``options`` are the rule options with their defaults; ``make_game(**options)`` builds the engine.
    """

    game: str
    num_players: int
    arrangements: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    options: Mapping[str, Any]
    make_game: Callable[..., Any]
    check_options: Callable[[Mapping[str, Any]], None] = field(default=lambda options: None)

    def normalise_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full rule options (defaults filled in); unknown keys or unsupported values raise ValueError."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise ValueError(f"unknown {self.game} rule option(s) {unknown}; allowed: {sorted(self.options)}")
        full = {**self.options, **given}
        self.check_options(full)
        return full

    def seats_of_b(self, k: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s not in self.arrangements[k])

    def score_a(self, payoffs: np.ndarray, k: int) -> float:
        """Side A's points in a finished game of arrangement ``k`` (sum over A's seats)."""
        return float(sum(payoffs[s] for s in self.arrangements[k]))


def _doudizhu_game(**options):
    from cardrl.games.doudizhu import DouDizhuGame

    return DouDizhuGame(**options)


def _check_doudizhu(options: Mapping[str, Any]) -> None:
    if options["kickers"] not in ("douzero", "distinct"):
        raise ValueError(f"doudizhu kickers={options['kickers']!r}; allowed: 'douzero', 'distinct'")
    if options["bidding"]:
        raise ValueError("duplicate DouDiZhu tournaments swap a fixed landlord (DouZero's protocol); "
                         "bidding=True is not supported")


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
}


def protocol_for(game: str) -> TournamentProtocol:
    """The protocol of ``game``; ValueError naming the games that have one."""
    try:
        return PROTOCOLS[game]
    except KeyError:
        raise ValueError(f"no tournament protocol for game {game!r}; available: {sorted(PROTOCOLS)}") from None
