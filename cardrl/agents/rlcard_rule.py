"""RLCard's DouDiZhu rule agent (``rlcard.models.load("doudizhu-rule-v1")``) as a cardrl agent: the "RLCard"
baseline of Luo & Tan 2024 (Tables 8 and 10) and of DouZero's evaluation.

The agent reads RLCard's raw observation: the hand as a rank string, the trace of ``(player, move)`` pairs with
``"pass"``, the legal moves as strings, and who is the landlord and who it is. cardrl's DouDiZhu move strings are
RLCard's (the same 27,472-move list, docs/rules.md), so the view translates directly and the chosen string maps back
to a move id. RLCard's agent draws from numpy's global random generator when it can neither follow nor pass
safely; this wrapper seeds that draw from its own generator (reset with each deal's seed) and restores numpy's
global state after the call, so the agent is reproducible deal by deal and leaves no trace in the caller's numpy.
Needs the ``rlcard`` package (``pip install cardrl[peers]``).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.cards import rank_counts_to_string
from cardrl.games.doudizhu import DouDizhuView
from cardrl.games.doudizhu.moves import doudizhu_move_table

__all__ = ["RLCardRuleAgent"]


class RLCardRuleAgent(Agent):
    """RLCard's ``DouDizhuRuleAgentV1`` behind cardrl's agent interface (module docstring); DouZero's move set only."""

    name = "rlcard"

    def __init__(self, seed: int = 0):
        try:
            from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
        except ImportError as err:
            raise ImportError("the 'rlcard' agent needs RLCard: pip install 'cardrl[peers]' (or rlcard==1.2.0)") from err
        self.agent = DouDizhuRuleAgentV1()
        self.table = doudizhu_move_table("douzero")
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    @classmethod
    def from_rule_options(cls, options: Mapping[str, Any]) -> "RLCardRuleAgent":
        """The agent for a DouDiZhu game with these rule options (RLCard plays DouZero's move set only)."""
        if options.get("kickers", "douzero") != "douzero":
            raise ValueError(f"RLCard's rule agent plays DouZero's move set (kickers='douzero'); the game uses "
                             f"kickers={options.get('kickers')!r}")
        return cls()

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, int(seed)])

    def raw_observation(self, view: DouDizhuView, legal_moves: np.ndarray) -> dict:
        """RLCard's raw observation of the player of ``view`` (the keys its rule agent reads)."""
        strings = self.table.strings
        trace = [(int(seat), strings[move]) for seat, move in zip(view.history_seats, view.history)]
        return {"current_hand": rank_counts_to_string(view.hand), "trace": trace,
                "actions": [strings[int(m)] for m in legal_moves], "landlord": int(view.landlord),
                "self": int(view.seat)}

    def act(self, view: DouDizhuView, legal_moves) -> int:
        legal = legal_ids(self, legal_moves)
        if view.landlord < 0:
            raise ValueError("RLCard's rule agent plays the card-play phase only (the view is from bidding)")
        state = {"raw_obs": self.raw_observation(view, legal)}
        saved = np.random.get_state()
        np.random.seed(int(self.rng.integers(2**32)))
        try:
            choice = self.agent.step(state)
        finally:
            np.random.set_state(saved)
        action = self.table.id_of(str(choice))
        if action not in legal:
            raise ValueError(f"RLCard's rule agent chose {choice!r}, which is not legal here (legal: "
                             f"{[self.table.strings[int(m)] for m in legal[:10]]}...)")
        return int(action)
