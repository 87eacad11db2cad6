"""ODMC action pruning (Luo & Tan 2024, section 4.3, eq. 2).

Of the legal moves a_1..a_l of the player to move, keep those whose minimum combination after the move is within
a slack of the best:

    K_i <= K_min + N/n + d,    K_min = min_i K_i,

N the average initial number of cards per player (DouDiZhu 54/3 = 18, Big2 13), n the fewest cards any player
holds, d the current round (1 for the first turn of each player, 2 for the second, ...). The slack widens as the
deal goes on and as someone nears the end, so pruning acts early and stops late (their Tables 6 and 7).

Guarantees (tests/test_mcs.py): the kept set is never empty (the move attaining K_min is kept), the move that
empties the hand (K = 0 = K_min) is never dropped, and pass is never dropped (K after a pass is K, and
K_min >= K - 1 <= K - 1 + slack with slack >= 1).
"""

from __future__ import annotations

from functools import lru_cache
from numbers import Real

import numpy as np

from cardrl.search.mcs import MinCombinationSearch

# N of eq. (2): the average number of cards a player is dealt.
AVERAGE_INITIAL_CARDS = {"doudizhu": 54 / 3, "big2": 13.0}


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
        raise ValueError(f"prune_moves needs a DouDiZhu or Big2 game state, got {type(state).__name__}")
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
    fewest = max(int(cards_left.min()), 1)  # n >= 1 in eq. 2
    num_players = len(cards_left)
    round_ = 1 + len(state.history) // num_players
    return AVERAGE_INITIAL_CARDS[game] / fewest + round_ + float(extra)


def prune_moves(state, legal_moves, *, slack: str | float = "paper", extra: float = 0.0,
                search: MinCombinationSearch | None = None) -> np.ndarray:
    """Eq. (2): the legal moves whose K after the move is at most K_min + threshold (:func:`prune_threshold`).

    ``state`` is the game (DouDizhuGame or Big2Game) with the player to move; ``legal_moves`` its legal move ids.
    Returns the kept ids in their original order.
    """
    threshold = prune_threshold(state, slack, extra)
    legal = np.asarray(legal_moves, dtype=np.int64)
    if len(legal) <= 1:
        return legal
    search = search or search_for(state)
    after = search.k_after(state.hand_bits(state.current_player), legal)
    return legal[after <= after.min() + threshold]


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
