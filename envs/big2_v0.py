"""Big2 as a PettingZoo AEC environment (docs/rules.md "Big2"; Luo & Tan 2024, Appendix B and C).

Agents ``west``, ``south``, ``east``, ``north`` are the engine's seats 0, 1, 2, 3 in play order (the names are
those of Luo & Tan's identity bits: 00 West, 01 South, 10 East, 11 North). The holder of the 3 of diamonds
moves first, so any agent may open.

Observation: ``Dict(observation=Box(0, 1, (1404,), float32), action_mask=Box(0, 1, (19899,), int8))``, where
``observation`` is Luo & Tan's unified encoding ``[state 540 | history 4 x 216 flattened]``
(:class:`cardrl.features.unified.UnifiedFeatures`, whose ``split`` recovers the parts; Table 14) and
``action_mask`` marks the legal move ids (all zeros for an agent that is not to move).
Actions: ``Discrete(19899)`` ids of the Big2 move table (``env.unwrapped.table.strings[id]`` names a move,
e.g. ``"3d4c5h6s7d"``; the last id is pass).
Rewards: at the end of the deal every agent gets its zero-sum payoff (each loser ``-cards left`` times the
``penalty_multipliers`` factor, the winner the sum); 0 before.

Options (constructor keywords, passed on to :class:`~cardrl.games.big2.Big2Game`): ``straight_order``
(``"bigzero"`` default, or ``"low"``), ``open_with_three_diamonds`` (default True), ``penalty_multipliers``
(``{cards: factor}`` or None), ``render_mode`` (None or ``"ansi"``: hands with suit symbols), and as every cardrl
env ``features`` (``"unified"``) and ``reward`` (``"cards"``).

An illegal or out-of-range action, a wrong action type, a step after the deal is over, a bad seed or bad options
raise an error that says what was wrong and what is allowed; the state is unchanged.
"""

from __future__ import annotations

from typing import Mapping

from cardrl.envs.card_game import CardGameEnv
from cardrl.envs.turns import OrderEnforcing
from cardrl.games.big2 import AGENTS, NUM_PLAYERS

__all__ = ["env", "raw_env"]


def env(**kwargs) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing checks (:class:`~cardrl.envs.turns.OrderEnforcing`)."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """Big2 AEC env over :class:`~cardrl.games.big2.Big2Game` with Luo & Tan's unified features (Table 14);
    see the module docstring."""

    game_name = "big2"
    metadata = {"render_modes": ["ansi"], "name": "big2_v0", "is_parallelizable": False}

    def __init__(self, straight_order: str = "bigzero", open_with_three_diamonds: bool = True,
                 penalty_multipliers: Mapping[int, float] | None = None, render_mode: str | None = None,
                 features: str = "unified", reward: str = "cards"):
        super().__init__(features=features, reward=reward, render_mode=render_mode, straight_order=straight_order,
                         open_with_three_diamonds=open_with_three_diamonds, penalty_multipliers=penalty_multipliers)
        self.table = self.game.table

    def render(self) -> str | None:
        """The deal as text with suit symbols (render_mode ``"ansi"``), seats named by agent; None otherwise."""
        if self.render_mode is None:
            return None
        text = self.game.render()
        for seat in range(NUM_PLAYERS):
            text = text.replace(f"seat {seat}", AGENTS[seat])
        return text
