"""Tournament protocols: how a deal is replayed with sides swapped and how side A is scored, per the registry.

A :class:`TournamentProtocol` is a game's :class:`~cardrl.games.registry.EvalProtocol` made ready to play: the
*arrangements* of a deal (which seats side A takes, the rest taken by side B), the engine built from the deal file's
rule options, and side A's score and win read off the engine's payoffs (Luo & Tan 2024, Sec. 5.1):

- DouDiZhu: "agent A and B play as Landlord and Peasants once, respectively" (2 arrangements);
- Big2: "agent A play from each of the four positions ..., while agent B play in the remaining positions"
  (4 arrangements: A in seat k, B in the other three, k = 0..3);
- DouDiZhu's whole game (bidding, ``protocol_for(game, whole_game=True)``): the roles are bid for, so the sides
  rotate over every split of the seats, A alone in seat k and A in the two seats other than k (6 arrangements):
  each agent bids from every position, first, second and third, alone and beside itself;
- GuanDan: each team (2 arrangements); a deal tournament plays single deals (``match=False``), whole matches are
  :mod:`cardrl.eval.guandan_matches`' job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardrl.games.registry import GameSpec, game_names, get_game

__all__ = ["TournamentProtocol", "protocol_for", "protocol_of_options", "bids"]


@dataclass(frozen=True)
class TournamentProtocol:
    """How one game's duplicate tournament is played (docs/architecture.md, layer 6; Luo & Tan 2024, Sec. 5.1).

    ``arrangements[k]`` is the tuple of seats side A takes in the k-th replay of a deal (B takes the others);
    ``labels[k]`` names it in tables. A's score of a game is the sum of the ``reward`` payoffs of the seats in
    ``scored[k]`` (DouDiZhu: the landlord's payoff when A is landlord, the two peasants' when A are the peasants,
    i.e. ``+-2 x 2^bombs``, the unit of DouZero's ``evaluate.py``; Big2: the card penalty payoff of A's one seat;
    GuanDan: one seat of A's team, whose points are the team's). A wins when the sum of its scored seats'
    ``win_reward`` payoffs is positive (``win_reward=None``: when A's score is positive).
    """

    spec: GameSpec
    arrangements: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    scored: tuple[tuple[int, ...], ...]
    reward: str | None
    win_reward: str | None
    required: Mapping[str, Any]

    @property
    def game(self) -> str:
        return self.spec.name

    @property
    def num_players(self) -> int:
        return self.spec.num_players

    @property
    def options(self) -> dict[str, Any]:
        """The rule options with their defaults (the protocol's required values in place)."""
        return {**self.spec.rule_options, **self.required}

    def normalise_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full rule options (defaults filled in); unknown keys, unsupported values or values that contradict
        the protocol raise ValueError."""
        given = dict(options or {})
        bidding = self.spec.protocol.bidding_option
        for key, value in self.required.items():
            if key in given and given[key] != value and key == bidding:
                how = "as the whole game (cardrl eval --bidding)" if given[key] else "with a fixed landlord"
                raise ValueError(f"{self.game} deals with {key}={given[key]!r} are evaluated {how}, not by this "
                                 f"protocol ({key}={value!r})")
            if key in given and given[key] != value:
                raise ValueError(f"duplicate {self.game} tournaments need {key}={value!r} (the protocol replays "
                                 f"single deals with sides swapped); got {key}={given[key]!r}")
        return self.spec.full_options({**given, **self.required})

    def make_game(self, **options: Any):
        return self.spec.make_engine(**options)

    def seats_of_b(self, k: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s not in self.arrangements[k])

    def score_a(self, payoffs: np.ndarray, k: int) -> float:
        """Side A's points in a finished game of arrangement ``k``."""
        return float(sum(payoffs[s] for s in self.scored[k]))

    def outcome(self, engine: Any, payoffs: np.ndarray, k: int) -> tuple[float, bool]:
        """(A's score, whether A won) of a finished game of arrangement ``k`` whose ``reward`` payoffs are
        ``payoffs``."""
        score = self.score_a(payoffs, k)
        if self.win_reward is None:
            return score, score > 0
        return score, self.score_a(engine.payoffs(self.win_reward), k) > 0


def protocol_for(game: str, whole_game: bool = False) -> TournamentProtocol:
    """The tournament protocol of a registered game; ``whole_game=True``: with the players bidding for their roles
    (the game's ``bidding_option`` on; module docstring). ValueError naming the games, or the games that bid."""
    spec = get_game(game)
    p = spec.protocol
    required = {**p.required_options, **p.deal_options}
    if not whole_game:
        return TournamentProtocol(spec=spec, arrangements=p.arrangements, labels=p.labels,
                                  scored=tuple(p.scored_seats(k) for k in range(len(p.arrangements))),
                                  reward=p.reward, win_reward=p.win_reward, required=required)
    if p.bidding_option is None:
        bidding = [g for g in game_names() if get_game(g).protocol.bidding_option is not None]
        raise ValueError(f"{spec.title} has no bidding (its roles are fixed); games with bidding: {', '.join(bidding)}")
    seats = range(spec.num_players)
    alone = tuple((k,) for k in seats)
    arrangements = alone + tuple(tuple(s for s in seats if s != k) for k in seats)
    labels = tuple(f"A seat {k}" for k in seats) + tuple(f"A seats {'+'.join(map(str, a))}"
                                                         for a in arrangements[len(alone):])
    return TournamentProtocol(spec=spec, arrangements=arrangements, labels=labels, scored=arrangements,
                              reward=p.reward, win_reward=p.win_reward, required={**required, p.bidding_option: True})


def bids(game: str, options: Mapping[str, Any] | None) -> bool:
    """Whether rule ``options`` of ``game`` have its players bid for their roles (its ``bidding_option`` on)."""
    option = get_game(game).protocol.bidding_option
    return option is not None and bool((options or {}).get(option, False))


def protocol_of_options(game: str, options: Mapping[str, Any] | None) -> TournamentProtocol:
    """The protocol that plays deals of these rule options: the whole game when they bid (:func:`bids`)."""
    return protocol_for(game, whole_game=bids(game, options))
