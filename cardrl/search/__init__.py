"""Search: Minimum Combination Search and ODMC pruning (Luo & Tan 2024, sections 4.1 and 4.3).

Each game with a search names its factory in the registry (``GameSpec.search``); every search offers the same
calls: ``k_of_hand``, ``k_after_state``, ``k_after_view`` and ``greedy_keys`` (the ``mcs-greedy`` agent,
:mod:`cardrl.agents.mcs_greedy`, plays by them).
"""

from __future__ import annotations

from typing import Any

from cardrl.search.guandan_mcs import GuanDanMinCombinationSearch
from cardrl.search.mcs import FixedMove, MCSRules, MinCombinationSearch, fixed_table
from cardrl.search.prune import (MCSPruner, MCSViewPruner, check_slack, prune_moves, prune_threshold,
                                 prune_view_moves, search_for)

__all__ = ["FixedMove", "GuanDanMinCombinationSearch", "MCSPruner", "MCSRules", "MCSViewPruner",
           "MinCombinationSearch", "check_slack", "fixed_table", "min_combinations", "prune_moves", "prune_threshold",
           "prune_view_moves", "search_for"]


def min_combinations(game: Any, hand: Any, level: Any = None) -> int:
    """K of eq. (1): the fewest moves that empty ``hand``.

    ``game`` is a registered game's name (its default rule options) or a game state (its move set and, for GuanDan,
    its level). ``hand`` is what the game's search reads: a card bit set, a 54-dim card vector, DouDiZhu rank counts
    (15,) or a rank string such as ``"33344456"``; GuanDan hands are 54-count vectors or card strings such as
    ``"3d 4d 5c 6s 2h"`` and need the ``level`` (a rank, ``"2"`` .. ``"A"`` or a GuanDan ``Rank``; a GuanDan state
    gives its own) for the wild card.
    """
    from cardrl.games.registry import get_game

    if isinstance(game, str):
        spec = get_game(game)
        state = spec.make_engine()
    else:
        spec, state = get_game(game.name), game
        state_level = getattr(game, "level", None)
        if state_level is not None:
            if level is not None and _same_level(level) != state_level:
                raise ValueError(f"level {level} contradicts the game state's level {state_level}")
            level = state_level
    return spec.make_search(state).k_of_hand(hand, level)


def _same_level(level: Any):
    """A GuanDan level as a ``Rank`` (to compare with a state's)."""
    from cardrl.games.guandan.moves import parse_level

    return parse_level(level)
