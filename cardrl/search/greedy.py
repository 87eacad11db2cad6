"""The ``mcs-greedy`` agent: play the legal move that leaves the fewest moves to empty the hand.

Minimum Combination Search (Luo & Tan 2024, eq. 1) used as a policy: among the legal moves choose the one with the
smallest K after the move; ties go to the lowest main rank (pass counts as below every rank, so a follower that
cannot lower K passes), then to the move that sheds the most cards. A strong, cheap, deterministic baseline.

GuanDan (beyond the paper): K is the exact wild-card search of :mod:`cardrl.search.guandan_mcs`; among the moves of
least K a non-bomb comes before a bomb, then pass, then the lowest power, then the most cards. Tribute and return
cards are chosen the same way (the card whose loss leaves the least K, then the lowest power).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.agents.base import Agent
from cardrl.cards import rank_counts_to_bits
from cardrl.games.guandan_moves import BLACK_JOKER, RED_JOKER, Category, Move, power
from cardrl.search.guandan_mcs import GuanDanMinCombinationSearch
from cardrl.search.mcs import MinCombinationSearch


class MCSGreedyAgent(Agent):
    """Greedy minimum-combination player (module docstring) for DouDiZhu (``game="doudizhu"``), Big2 and GuanDan."""

    def __init__(self, game: str = "doudizhu", kickers: str = "douzero", table=None):
        self.game = game
        self.name = "mcs-greedy"
        if game == "guandan":
            self.search = GuanDanMinCombinationSearch()
            return
        if game == "doudizhu":
            from cardrl.games.doudizhu_moves import doudizhu_move_table
            table = table or doudizhu_move_table(kickers)
        elif game == "big2":
            from cardrl.games.big2_moves import big2_move_table
            table = table or big2_move_table()
        else:
            raise ValueError(f"mcs-greedy plays doudizhu, big2 or guandan, not {game!r}")
        self.table = table
        self.search = MinCombinationSearch(game, table, kickers if game == "doudizhu" else None)
        size = self.table.cards.sum(axis=1).astype(np.int64)
        # sort key per move: (main rank, -cards); pass has rank -1
        self._rank = self.table.rank.astype(np.int64)
        self._size = size

    def _hand_bits(self, view: Any) -> int:
        if self.game == "doudizhu":
            return rank_counts_to_bits(view.hand)
        return int(view.hand_bits)

    def act(self, view: Any, legal_moves):
        if self.game == "guandan":
            return self._act_guandan(view, legal_moves)
        legal = np.asarray(legal_moves, dtype=np.int64)
        if len(legal) == 1:
            return int(legal[0])
        after = self.search.k_after(self._hand_bits(view), legal)
        best = legal[after == after.min()]
        order = np.lexsort((-self._size[best], self._rank[best]))
        return int(best[order[0]])

    def _act_guandan(self, view: Any, legal_moves: list[Move]) -> Move:
        if len(legal_moves) == 0:
            raise ValueError("MCSGreedyAgent.act got no legal moves (is the game over?)")
        if len(legal_moves) == 1:
            return legal_moves[0]
        counts = np.stack([m.counts() for m in legal_moves])
        after = self.search.k_after(view.hand, view.level, counts)

        def key(i: int):
            m = legal_moves[i]
            if m.category in (Category.TRIBUTE, Category.RETURN):
                k = m.cards[0]
                return (after[i], 14 if k == BLACK_JOKER else 15 if k == RED_JOKER else power(k // 4, view.level), k)
            rank_power = -1 if m.is_pass else (power(m.rank, view.level) if m.rank <= 12 else m.rank)
            return (after[i], m.is_bomb, rank_power, -len(m.cards))

        return legal_moves[min(range(len(legal_moves)), key=key)]
