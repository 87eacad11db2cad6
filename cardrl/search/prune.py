"""ODMC action pruning (Luo & Tan 2024, section 4.3, eq. 2).

Of the legal moves a_1..a_l of the player to move, keep those whose minimum combination after the move is within
a slack of the best:

    K_i <= K_min + N/n + d,    K_min = min_i K_i,

N the average initial number of cards per player (DouDiZhu 54/3 = 18, Big2 13, GuanDan 108/4 = 27), n the fewest
cards any player holds, d the current round (1 for the first turn of each player, 2 for the second, ...). The slack
widens as the deal goes on and as someone nears the end, so pruning acts early and stops late (their Tables 6 and 7).

GuanDan (beyond the paper): K is :mod:`cardrl.search.guandan_mcs`'s exact search with wild cards; n counts the players
still holding cards (a deal goes on after a player goes out, and n = 0 would switch pruning off for the rest of the
deal); tribute and return decisions are never pruned. Its legal moves are guandan_v0 action ids (or ``Move`` values).

Guarantees (tests/test_mcs.py): the kept set is never empty (the move attaining K_min is kept), the move that
empties the hand (K = 0 = K_min) is never dropped, and pass is never dropped (K after a pass is K, and
K_min >= K - 1 <= K - 1 + slack with slack >= 1).
"""

from __future__ import annotations

from functools import lru_cache
from numbers import Real

import numpy as np

from cardrl.search.guandan_mcs import GuanDanMinCombinationSearch, pack_counts
from cardrl.search.mcs import MinCombinationSearch

# N of eq. (2): the average number of cards a player is dealt.
AVERAGE_INITIAL_CARDS = {"doudizhu": 54 / 3, "big2": 13.0, "guandan": 108 / 4}


@lru_cache(maxsize=None)
def _cached_search(game: str, table, kickers: str | None) -> MinCombinationSearch:
    return MinCombinationSearch(game, table, kickers)


def search_for(state) -> MinCombinationSearch:
    """The shared, memoising :class:`MinCombinationSearch` for a game state's move table (one per table)."""
    game = _game_name(state)
    return _cached_search(game, state.table, getattr(state, "kickers", None) if game == "doudizhu" else None)


def _game_name(state) -> str:
    name = getattr(state, "name", None)
    if name not in AVERAGE_INITIAL_CARDS:
        raise ValueError(f"prune_moves needs a DouDiZhu, Big2 or GuanDan game state, got {type(state).__name__}")
    return name


def _check_slack(slack, extra) -> None:
    if isinstance(slack, str):
        if slack != "paper":
            raise ValueError(f"slack must be 'paper' (N/n + d of eq. 2) or a number >= 0, got {slack!r}")
    elif isinstance(slack, bool) or not isinstance(slack, Real) or not slack >= 0:
        raise ValueError(f"slack must be 'paper' (N/n + d of eq. 2) or a number >= 0, got {slack!r}")
    if isinstance(extra, bool) or not isinstance(extra, Real) or not extra >= 0:
        raise ValueError(f"extra slack must be a number >= 0, got {extra!r}")


def prune_threshold(state, slack: str | float = "paper", extra: float = 0.0) -> float:
    """The allowed excess over K_min: ``N/n + d + extra`` (``slack="paper"``) or the number ``slack`` itself."""
    _check_slack(slack, extra)
    if slack != "paper":
        return float(slack)
    game = _game_name(state)
    cards_left = np.asarray(state.hands).reshape(len(state.hands), -1).sum(axis=1)
    holding = cards_left[cards_left > 0]
    fewest = max(int(holding.min()) if holding.size else 1, 1)  # n >= 1 in eq. 2
    num_players = len(cards_left)
    round_ = 1 + len(state.history) // num_players
    return AVERAGE_INITIAL_CARDS[game] / fewest + round_ + float(extra)


def prune_moves(state, legal_moves, *, slack: str | float = "paper", extra: float = 0.0,
                search: MinCombinationSearch | GuanDanMinCombinationSearch | None = None) -> np.ndarray:
    """Eq. (2): the legal moves whose K after the move is at most K_min + threshold (:func:`prune_threshold`).

    ``state`` is the game (DouDizhuGame, Big2Game or GuanDanGame) with the player to move; ``legal_moves`` its legal
    move ids (GuanDan: guandan_v0 action ids or ``Move`` values). Returns the kept moves in their original order.
    """
    threshold = prune_threshold(state, slack, extra)
    if _game_name(state) == "guandan":
        return _prune_guandan(state, legal_moves, threshold, search or guandan_search())
    legal = np.asarray(legal_moves, dtype=np.int64)
    if len(legal) <= 1:
        return legal
    search = search or search_for(state)
    after = search.k_after(state.hand_bits(state.current_player), legal)
    return legal[after <= after.min() + threshold]


@lru_cache(maxsize=None)
def guandan_search() -> GuanDanMinCombinationSearch:
    """The shared, memoising GuanDan search (K does not depend on the level: one cache serves all levels)."""
    return GuanDanMinCombinationSearch()


@lru_cache(maxsize=13)
def _packed_level_table(level: int) -> np.ndarray:
    from cardrl.envs.guandan_v0 import level_table
    table = level_table(level)
    return pack_counts(table.counts_of(np.arange(len(table))), level)


def _prune_guandan(game, legal_moves, threshold: float, search: GuanDanMinCombinationSearch):
    from cardrl.envs.guandan_v0 import NUM_SPECIAL
    from cardrl.games.guandan_moves import Category, Move
    if len(legal_moves) <= 1:
        return legal_moves
    level, hand = game.level, game.hands[game.current_player]
    if isinstance(legal_moves[0], Move):
        if any(m.category in (Category.TRIBUTE, Category.RETURN) for m in legal_moves):
            return legal_moves
        keys = pack_counts(np.stack([m.counts() for m in legal_moves]), level)
    else:
        legal_moves = np.asarray(legal_moves, dtype=np.int64)
        if legal_moves.min() < NUM_SPECIAL:  # tribute / return decisions
            return legal_moves
        keys = _packed_level_table(level)[legal_moves - NUM_SPECIAL]
    after = search.k_after_packed(int(pack_counts(hand, level)), keys)
    keep = after <= after.min() + threshold
    if isinstance(legal_moves, np.ndarray):
        return legal_moves[keep]
    return [m for m, k in zip(legal_moves, keep) if k]


class MCSPruner:
    """ODMC's pruning as a reusable callable ``pruner(state, legal) -> kept`` with fixed slack settings.

    Counts what it saw (``legal_seen``) and kept (``kept``), so a run can report its pruning ratio.
    """

    def __init__(self, slack: str | float = "paper", extra: float = 0.0):
        _check_slack(slack, extra)
        self.slack, self.extra = slack, float(extra)
        self.legal_seen = 0
        self.kept = 0

    def __call__(self, state, legal_moves) -> np.ndarray:
        kept = prune_moves(state, legal_moves, slack=self.slack, extra=self.extra)
        self.legal_seen += len(legal_moves)
        self.kept += len(kept)
        return kept

    @property
    def pruning_ratio(self) -> float:
        return 1.0 - self.kept / self.legal_seen if self.legal_seen else 0.0
