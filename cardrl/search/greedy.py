"""The ``mcs-greedy`` agent: play the legal move that leaves the fewest moves to empty the hand.

Minimum Combination Search (Luo & Tan 2024, eq. 1) used as a policy: among the legal moves choose the one with the
smallest K after the move; ties go to the lowest main rank (pass counts as below every rank, so a follower that
cannot lower K passes), then to the move that sheds the most cards. A strong, cheap, deterministic baseline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.agents.base import Agent
from cardrl.cards import rank_counts_to_bits
from cardrl.search.mcs import MinCombinationSearch


class MCSGreedyAgent(Agent):
    """Greedy minimum-combination player (module docstring) for DouDiZhu (``game="doudizhu"``) and Big2."""

    def __init__(self, game: str = "doudizhu", kickers: str = "douzero", table=None):
        if game == "doudizhu":
            from cardrl.games.doudizhu_moves import doudizhu_move_table
            table = table or doudizhu_move_table(kickers)
        elif game == "big2":
            from cardrl.games.big2_moves import big2_move_table
            table = table or big2_move_table()
        else:
            raise ValueError(f"mcs-greedy plays doudizhu or big2, not {game!r}")
        self.game = game
        self.table = table
        self.search = MinCombinationSearch(game, table, kickers if game == "doudizhu" else None)
        self.name = "mcs-greedy"
        size = self.table.cards.sum(axis=1).astype(np.int64)
        # sort key per move: (main rank, -cards); pass has rank -1
        self._rank = self.table.rank.astype(np.int64)
        self._size = size

    def _hand_bits(self, view: Any) -> int:
        if self.game == "doudizhu":
            return rank_counts_to_bits(view.hand)
        return int(view.hand_bits)

    def act(self, view: Any, legal_moves: np.ndarray) -> int:
        legal = np.asarray(legal_moves, dtype=np.int64)
        if len(legal) == 1:
            return int(legal[0])
        after = self.search.k_after(self._hand_bits(view), legal)
        best = legal[after == after.min()]
        order = np.lexsort((-self._size[best], self._rank[best]))
        return int(best[order[0]])
