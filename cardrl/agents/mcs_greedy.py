"""The ``mcs-greedy`` agent: play the legal move that leaves the fewest moves to empty the hand.

Minimum Combination Search (Luo & Tan 2024, eq. 1) used as a policy: among the legal moves choose the one with the
smallest K after the move; ties are broken by the game's search (``greedy_keys``): DouDiZhu and Big2 the lowest main
rank (pass counts as below every rank, so a follower that cannot lower K passes), then the move that sheds the most
cards; GuanDan (beyond the paper, exact K with wild cards) a non-bomb before a bomb, then pass, then the lowest
power, then the most cards, and tribute and return cards the one whose loss leaves the least K, then the lowest
power. A strong, cheap, deterministic baseline for every game with a search in the registry.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from cardrl.agents.base import Agent, legal_ids

__all__ = ["MCSGreedyAgent"]


class MCSGreedyAgent(Agent):
    """Greedy minimum-combination player (module docstring) over a game's search (``GameSpec.make_search``).

    ``MCSGreedyAgent.for_game("big2", options)`` builds it for a registered game; ``search`` is any object with
    ``k_after_view(view, ids)`` and ``greedy_keys(view, ids)``.
    """

    name = "mcs-greedy"

    def __init__(self, search: Any):
        self.search = search

    @classmethod
    def for_game(cls, game: str = "doudizhu", options: Mapping[str, Any] | None = None) -> "MCSGreedyAgent":
        """The agent for a registered game and its rule options (the search of that move set)."""
        from cardrl.games.registry import get_game

        spec = get_game(game)
        return cls(spec.make_search(spec.make_engine(**spec.full_options(options))))

    def act(self, view: Any, legal_moves) -> int:
        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            return int(legal[0])
        after = self.search.k_after_view(view, legal)
        best = np.flatnonzero(after == after.min())
        keys = self.search.greedy_keys(view, legal[best])
        return int(legal[best[np.lexsort(tuple(reversed(keys)))[0]]])
