"""The three level-A counters that DanZero+'s PPO model reads beside DanZero's 513 state features (516 in all).

DanZero+ (Zhao, Lu, Zhao, Zhou, Li 2024), Sec. IV-D: "the PPO model shares the same state input configuration as the
DMC model"; the paper gives no more. The authors' PPO actor builds a 516-dim state: the 513 DMC features and three
counters ``count_A``, ``count_A_self``, ``count_A_oppo`` that its GuanDan client increments at the start of each deal
whose current / own / opponents' level is A, and clears when the match ends. Those counters exist because of the
level-A rule (docs/rules.md "GuanDan"): a team must win a deal played at its own level A (partner not last) to win
the match, and after ``a_level_attempts`` (3) failed attempts it goes back to level 2. (In the client the test
compares the server's level field with the number 14, while the same client reads those fields as rank strings
elsewhere; if the field is a string there too, the three inputs are always 0 in the published runs. We cannot tell.)

Our reading (R), from the engine's own state of that rule, seat-relative like the other features:

* ``[0]`` the failed attempts of the player's own team at its level A so far (``GuanDanGame.a_failures``; 0 .. 2),
* ``[1]`` the same for the opponents,
* ``[2]`` whose attempt the current deal is: +1 if it is played at the player's own team's level A, -1 if at the
  opponents' level A, 0 otherwise (a single deal, ``match=False``, is always 0).

They count what decides the match (attempts left), where the client's counters count deals. The values are small
integers, exact in the int8 samples of the runner.

A player does not see ``a_failures`` in its view, but it follows from the sequence of deals it has played:
:class:`LevelATracker` rebuilds the counters from the views of one seat (what an agent sees), and the tests check it
against the engine along whole matches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.games.guandan import LEVEL_A, GuanDanGame, team_of

__all__ = ["LEVEL_A_DIM", "level_a_counters", "LevelATracker", "game_has_level_a"]

LEVEL_A_DIM = 3


def game_has_level_a(engine_class: type) -> bool:
    """Whether an engine class plays GuanDan's level-A rule (the counters apply to it)."""
    return isinstance(engine_class, type) and issubclass(engine_class, GuanDanGame)


def _counters(team: int, failures, level_team: int | None, team_levels) -> np.ndarray:
    out = np.zeros(LEVEL_A_DIM, dtype=np.int8)
    out[0], out[1] = failures[team], failures[1 - team]
    if level_team is not None and team_levels[level_team] == LEVEL_A:
        out[2] = 1 if level_team == team else -1
    return out


def level_a_counters(game: GuanDanGame, seat: int) -> np.ndarray:
    """The three counters (int8 ``(3,)``) of ``seat`` in a running GuanDan game, read from the engine."""
    return _counters(team_of(seat), game.a_failures, game.level_team, game.team_levels)


class LevelATracker:
    """The counters of one seat from its successive views (``GuanDanView``): what an agent computes.

    ``update(view)`` must see at least one view of every deal of a match, from the first (deal index 0); a new match
    (the deal index going back to 0) starts afresh. ``a_level_attempts`` is the rule option of the same name (3;
    ``None``: a team is never sent back).
    """

    def __init__(self, a_level_attempts: int | None = 3):
        self.a_level_attempts = a_level_attempts
        self.reset()

    def reset(self) -> None:
        self._deal: int | None = None
        self._failures = [0, 0]
        self._level_team: int | None = None
        self._team_levels: tuple[int, int] = (0, 0)

    def update(self, view: Any) -> np.ndarray:
        deal = int(view.deal_index)
        if self._deal is None or deal < self._deal or (deal == 0 and self._deal != 0):
            if deal != 0:
                raise ValueError(f"LevelATracker first saw deal {deal} of a match; it must see every deal from the "
                                 f"first (deal 0) to count the level-A attempts")
            self.reset()
        elif deal == self._deal + 1:
            previous = self._level_team
            if previous is not None and self._team_levels[previous] == LEVEL_A:  # that attempt failed: play went on
                self._failures[previous] += 1
                if self.a_level_attempts is not None and self._failures[previous] >= self.a_level_attempts:
                    self._failures[previous] = 0  # sent back to level 2
        elif deal != self._deal:
            raise ValueError(f"LevelATracker saw deal {self._deal} and then deal {deal}: it must see every deal of a "
                             f"match to count the level-A attempts")
        self._deal = deal
        self._level_team = view.level_team
        self._team_levels = tuple(view.team_levels)
        return _counters(int(view.team), self._failures, self._level_team, self._team_levels)
