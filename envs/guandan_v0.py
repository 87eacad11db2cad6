"""GuanDan as a PettingZoo AEC environment (docs/rules.md "GuanDan"; DanZero's features and rewards, Lu et al. 2023).

Agents ``player_0`` .. ``player_3`` are the seats in play order; teams sit opposite (``player_0`` & ``player_2``,
``player_1`` & ``player_3``). One episode is a whole match (``match=True``, DanZero's episode; ``max_deals``
cuts it short, reported as a truncation) or a single deal at ``level`` (``match=False``). A level is a rank: ``"2"``
.. ``"A"`` (``"T"`` or ``"10"``) or a :class:`~cardrl.games.guandan.moves.Rank`; a plain int is refused as ambiguous
(it used to be a rank index: ``level=2`` was the 4s).

Observation: ``Dict(observation=Box(513), action_mask=Box(int8, N))``; ``observation`` is DanZero's 513-dim
state (:mod:`cardrl.features.danzero`, ``danzero_v1``) of the observing seat.

Action space: ``Discrete(135,179)``: ids ``0..53`` are the tribute decisions (the card kind given), ``54..107`` the
return decisions (``tribute_decisions=True`` only), and ``108 + i`` is move ``i`` of the *current level's* move table
(pass is ``i = 0``); why the ids are per level, and what the tables cost, is in :mod:`cardrl.games.guandan.table`.
A move's id depends on the level (which the observation carries); ids past a smaller level's table are never legal.
The dense mask is 135 KB of int8 per observation (``np.flatnonzero(mask.view(bool))`` reads the legal ids).
``legal_moves()`` gives the legal ids, ``legal_move_values()`` the engine's ``Move`` values in the same order,
``action_features(ids)`` their 54-dim DanZero action vectors, ``move_of(id)`` the ``Move`` of an id.

Tribute and return: by default the engine's DanZero+ heuristics decide them as each deal starts; with
``tribute_decisions=True`` the payer / receiver is the agent to move and chooses among the legal tribute /
return ids.

Rewards (DanZero): when a deal ends each agent gets its team's deal points (+3 / +2 / +1 to the first
finisher's team when the partner finishes 2nd / 3rd / 4th, the negative to the other; 0 for a win at the own
level A with the partner last); with ``match_bonus=True`` the +-1 per deal of a won match is paid when the match
ends. Rewards are zero-sum by team, and an agent's rewards over the episode sum to ``game.payoffs()``.

An illegal or out-of-range action, a wrong action type, or a step after the episode is over raises an error
that says what was wrong and what is allowed; the state is unchanged. Bad options raise at construction.
"""

from __future__ import annotations

import numpy as np

from cardrl.envs.card_game import CardGameEnv
from cardrl.envs.turns import OrderEnforcing
from cardrl.games.guandan import team_of
from cardrl.games.guandan.moves import Move, Rank
from cardrl.games.guandan.table import LevelMoveTable, level_table

SEATS = ("player_0", "player_1", "player_2", "player_3")

__all__ = ["env", "raw_env", "SEATS"]


def env(**kwargs) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing checks."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """GuanDan AEC env over :class:`~cardrl.games.guandan.GuanDanGame`; see the module docstring."""

    game_name = "guandan"
    episode_word = "episode"
    metadata = {"render_modes": ["ansi"], "name": "guandan_v0", "is_parallelizable": False}

    def __init__(self, match: bool = True, level: Rank | str = "2", max_deals: int | None = None,
                 a_level_attempts: int | None = 3, match_bonus: bool = False, tribute_decisions: bool = False,
                 return_level_card: bool = False, render_mode: str | None = None, features: str = "danzero",
                 reward: str = "danzero"):
        super().__init__(features=features, reward=reward, render_mode=render_mode, match=match, level=level,
                         max_deals=max_deals, a_level_attempts=a_level_attempts, match_bonus=match_bonus,
                         tribute_decisions=tribute_decisions, return_level_card=return_level_card)

    # ---- moves and ids -----------------------------------------------------------------------
    @property
    def table(self) -> LevelMoveTable:
        """The move table of the level the current deal is played at."""
        return level_table(self.game.level)

    def legal_move_values(self) -> list[Move]:
        """The engine's legal ``Move`` values of the agent to move (same order as :meth:`legal_moves`)."""
        return self.game.legal_move_values()

    def move_of(self, action: int) -> Move:
        """The ``Move`` an action id stands for at the current level."""
        return self.game.move_of(action)

    # ---- what differs from the generic env: rewards per deal, truncation by max_deals ------------------------
    def _info(self, agent: str) -> dict:
        seat = self._seat(agent)
        return {"seat": seat, "team": team_of(seat)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed, options)
        self._paid = np.zeros(4)
        self._deals_paid = 0

    def _after_step(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        if len(game.deal_rewards) != self._deals_paid or game.is_over:
            payoffs = game.payoffs()
            delta = payoffs - self._paid
            self._paid = payoffs
            self._deals_paid = len(game.deal_rewards)
            for a in self.agents:
                self.rewards[a] = float(delta[self._seat(a)])
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        if game.is_over:
            cut = game.match and game.match_winner is None  # max_deals reached without a winner
            for a in self.agents:
                if cut:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True

    @property
    def deals_done(self) -> int:
        """Deals finished in this episode (DMC labels each deal's frames with that deal's points)."""
        return len(self.game.deal_rewards) if self.game.phase is not None else 0

    @property
    def segments_done(self) -> int:
        """A scoring segment is a deal (DanZero labels each deal's samples with that deal's points)."""
        return self.deals_done

    def segment_payoffs(self, k: int) -> np.ndarray:
        """Deal ``k``'s points per seat; with ``match_bonus`` and the match won, the +-1 bonus included."""
        return self.game.deal_rewards[k]

    @property
    def segment_payoffs_final(self) -> bool:
        """Without the match bonus a deal's points are final when it ends; with it, when the match ends (DanZero+
        adds +-1 to every deal of a finished match)."""
        return not self.game.match_bonus or self.game.is_over

    @property
    def segment_bonus(self) -> np.ndarray:
        """Per seat, DanZero+'s +1 / -1 for the won / lost match, included in every deal's ``segment_payoffs`` once
        the match is won (zeros without ``match_bonus``, while the match runs, or when ``max_deals`` cut it)."""
        game = self.game
        if not game.match_bonus or game.match_winner is None:
            return np.zeros(len(self.possible_agents))
        return np.array([1.0 if team_of(s) == game.match_winner else -1.0 for s in range(len(self.possible_agents))])
