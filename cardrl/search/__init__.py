"""Search: Minimum Combination Search and ODMC pruning (Luo & Tan 2024, sections 4.1 and 4.3)."""

from __future__ import annotations

import numpy as np

from cardrl.search.greedy import MCSGreedyAgent
from cardrl.search.mcs import FixedMove, MinCombinationSearch, fixed_table
from cardrl.search.prune import MCSPruner, prune_moves, prune_threshold, search_for

__all__ = ["FixedMove", "MCSGreedyAgent", "MCSPruner", "MinCombinationSearch", "fixed_table", "min_combinations",
           "prune_moves", "prune_threshold", "search_for"]


def min_combinations(game, hand) -> int:
    """K of eq. (1): the fewest moves that empty ``hand``.

    ``game`` is a game name (``"doudizhu"``, ``"big2"``) or a game state (its move table and kicker rule are used);
    ``hand`` a card bit set (int), DouDiZhu rank counts (15,), a 54-dim card vector, or a DouDiZhu hand string such as
    ``"33344456"``.
    """
    from cardrl.cards import string_to_rank_counts, rank_counts_to_bits, vector_to_bits
    if isinstance(game, str):
        if game not in ("doudizhu", "big2"):
            raise ValueError(f"no minimum combination search for game {game!r}; known: doudizhu, big2")
        from cardrl.search.prune import _cached_search
        if game == "doudizhu":
            from cardrl.games.doudizhu_moves import doudizhu_move_table
            search = _cached_search("doudizhu", doudizhu_move_table("douzero"), "douzero")
        else:
            from cardrl.games.big2_moves import big2_move_table
            search = _cached_search("big2", big2_move_table(), None)
        name = game
    else:
        search = search_for(game)
        name = game.name
    if isinstance(hand, str):
        if name != "doudizhu":
            raise ValueError("hand strings are DouDiZhu rank strings; give Big2 hands as a bit set or card vector")
        counts = string_to_rank_counts(hand)
        if (counts[:13] > 4).any() or (counts[13:] > 1).any():
            raise ValueError(f"hand {hand!r} holds more cards of a rank than the deck has")
        bits = rank_counts_to_bits(counts)
    elif isinstance(hand, (int, np.integer)):
        bits = int(hand)
    else:
        arr = np.asarray(hand)
        if arr.shape == (15,) and name == "doudizhu":
            bits = rank_counts_to_bits(arr)
        elif arr.shape == (54,):
            bits = vector_to_bits(arr)
        else:
            raise ValueError(f"hand must be a bit set, rank counts (15,) or a 54-dim card vector, got shape {arr.shape}")
    return search.k(bits)
