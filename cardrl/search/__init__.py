"""Search: Minimum Combination Search and ODMC pruning (Luo & Tan 2024, sections 4.1 and 4.3)."""

from __future__ import annotations

import numpy as np

from cardrl.search.greedy import MCSGreedyAgent
from cardrl.search.guandan_mcs import GuanDanMinCombinationSearch
from cardrl.search.mcs import FixedMove, MinCombinationSearch, fixed_table
from cardrl.search.prune import MCSPruner, prune_moves, prune_threshold, search_for

__all__ = ["FixedMove", "GuanDanMinCombinationSearch", "MCSGreedyAgent", "MCSPruner", "MinCombinationSearch", "fixed_table", "min_combinations",
           "prune_moves", "prune_threshold", "search_for"]


def min_combinations(game, hand, level: int | None = None) -> int:
    """K of eq. (1): the fewest moves that empty ``hand``.

    ``game`` is a game name (``"doudizhu"``, ``"big2"``, ``"guandan"``) or a game state (its move table and kicker
    rule, or its level, are used); ``hand`` a card bit set (int), DouDiZhu rank counts (15,), a 54-dim card vector,
    or a DouDiZhu hand string such as ``"33344456"``. GuanDan hands are 54-count vectors or card strings such as
    ``"3d 4d 5c 6s 2h"``, and need the ``level`` (0..12 for 2..A; a GuanDan state gives its own) for the wild card.
    """
    from cardrl.cards import string_to_rank_counts, rank_counts_to_bits, vector_to_bits
    if getattr(game, "name", game) == "guandan":
        return _guandan_k(game, hand, level)
    if level is not None:
        raise ValueError("level is a GuanDan argument; DouDiZhu and Big2 hands have no level")
    if isinstance(game, str):
        if game not in ("doudizhu", "big2"):
            raise ValueError(f"no minimum combination search for game {game!r}; known: doudizhu, big2, guandan")
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


def _guandan_k(game, hand, level: int | None) -> int:
    from cardrl.games.guandan_moves import hand_from_string
    from cardrl.search.prune import guandan_search
    if not isinstance(game, str):
        if level is not None and level != game.level:
            raise ValueError(f"level {level} contradicts the game state's level {game.level}")
        level = game.level
    if level is None:
        raise ValueError("GuanDan needs the level (0..12 for 2..A) to know the wild card")
    counts = hand_from_string(hand) if isinstance(hand, str) else np.asarray(hand)
    return guandan_search().k(counts, level)
