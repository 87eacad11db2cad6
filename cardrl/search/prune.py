"""ODMC action pruning (Luo & Tan 2024, section 4.3, eq. 2).

Of the legal moves a_1..a_l of the player to move, keep those whose minimum combination after the move is within
a slack of the best:

    K_i <= K_min + N/n + d,    K_min = min_i K_i,

N the average initial number of cards per player (``GameSpec.average_initial_cards``: DouDiZhu 54/3 = 18, Big2 13,
GuanDan 108/4 = 27), n the fewest cards any player still holding cards holds, d the current round (1 for the first
turn of each player, 2 for the second, ...). The slack widens as the deal goes on and as someone nears the end, so
pruning acts early and stops late (their Tables 6 and 7). The game's K comes from the registry's search
(:mod:`cardrl.search.mcs`; GuanDan, beyond the paper: :mod:`cardrl.search.guandan_mcs`'s exact search with wild cards).

Only card play is pruned (``state.phase == "play"``): DouDiZhu's bids and GuanDan's tribute and return decisions
pass through. n counts the players still holding cards (a GuanDan deal goes on after a player goes out, and n = 0
would switch pruning off for the rest of the deal).

Guarantees (tests/search/test_mcs.py): the kept set is never empty (the move attaining K_min is kept), the move that
empties the hand (K = 0 = K_min) is never dropped, and pass is never dropped (K after a pass is K, and
K_min >= K - 1 <= K - 1 + slack with slack >= 1).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from cardrl.games.registry import GameSpec, get_game

__all__ = ["prune_moves", "prune_threshold", "prune_view_moves", "MCSPruner", "MCSViewPruner", "check_slack",
           "search_for"]


def _spec(state) -> GameSpec:
    name = getattr(state, "name", None)
    try:
        spec = get_game(name) if isinstance(name, str) else None
    except ValueError:
        spec = None
    if spec is None or spec.search is None:
        raise ValueError(f"ODMC pruning needs the state of a game with Minimum Combination Search, got "
                         f"{type(state).__name__}")
    return spec


def search_for(state):
    """The shared, memoising Minimum Combination Search of a game state's move set (the registry's)."""
    return _spec(state).make_search(state)


def check_slack(slack, extra) -> None:
    """ValueError unless ``slack`` is "paper" or a number >= 0 and ``extra`` a number >= 0."""
    if isinstance(slack, str):
        if slack != "paper":
            raise ValueError(f"slack must be 'paper' (N/n + d of eq. 2) or a number >= 0, got {slack!r}")
    elif isinstance(slack, bool) or not isinstance(slack, Real) or not slack >= 0:
        raise ValueError(f"slack must be 'paper' (N/n + d of eq. 2) or a number >= 0, got {slack!r}")
    if isinstance(extra, bool) or not isinstance(extra, Real) or not extra >= 0:
        raise ValueError(f"extra slack must be a number >= 0, got {extra!r}")


def prune_threshold(state, slack: str | float = "paper", extra: float = 0.0) -> float:
    """The allowed excess over K_min: ``N/n + d + extra`` (``slack="paper"``) or the number ``slack`` itself."""
    check_slack(slack, extra)
    if slack != "paper":
        return float(slack)
    return _paper_threshold(_spec(state).average_initial_cards, state.cards_left(), len(state.history), extra)


def _paper_threshold(average_initial_cards: float, cards_left: np.ndarray, moves_made: int, extra: float) -> float:
    """N/n + d + extra of eq. 2 from what every player sees: the cards each hand holds and the moves made so far."""
    cards_left = np.asarray(cards_left)
    holding = cards_left[cards_left > 0]
    fewest = max(int(holding.min()) if holding.size else 1, 1)  # n >= 1 in eq. 2
    round_ = 1 + moves_made // len(cards_left)
    return average_initial_cards / fewest + round_ + float(extra)


def prune_moves(state, legal_moves, *, slack: str | float = "paper", extra: float = 0.0,
                search=None) -> np.ndarray:
    """Eq. (2): the legal action ids whose K after the move is at most K_min + threshold (:func:`prune_threshold`).

    ``state`` is the engine with the player to move; ``legal_moves`` its legal action ids. Returns the kept ids in
    their original order (all of them outside card play).
    """
    threshold = prune_threshold(state, slack, extra)
    legal = np.asarray(legal_moves, dtype=np.int64)
    if len(legal) <= 1 or state.phase != "play":
        return legal
    search = search or search_for(state)
    after = search.k_after_state(state, legal)
    return legal[after <= after.min() + threshold]


class _CountingPruner:
    """A pruner with fixed slack settings that counts what it saw (``legal_seen``) and kept (``kept``), so a run can
    report its pruning ratio; subclasses say what they prune from (``_prune``)."""

    def __init__(self, slack: str | float = "paper", extra: float = 0.0):
        check_slack(slack, extra)
        self.slack, self.extra = slack, float(extra)
        self.legal_seen = 0
        self.kept = 0

    def _prune(self, position, legal_moves) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, position, legal_moves) -> np.ndarray:
        kept = self._prune(position, legal_moves)
        self.legal_seen += len(legal_moves)
        self.kept += len(kept)
        return kept

    @property
    def pruning_ratio(self) -> float:
        return 1.0 - self.kept / self.legal_seen if self.legal_seen else 0.0


class MCSPruner(_CountingPruner):
    """ODMC's pruning as a reusable callable ``pruner(state, legal) -> kept`` (the engine's state, as the actor
    sees it in training) with fixed slack settings, counting what it saw and kept."""

    def _prune(self, state, legal_moves) -> np.ndarray:
        return prune_moves(state, legal_moves, slack=self.slack, extra=self.extra)


def prune_view_moves(view, legal_moves, *, game: str, search, slack: str | float = "paper",
                     extra: float = 0.0) -> np.ndarray:
    """:func:`prune_moves` from a player's ``view`` (``game.view(seat)`` of the player to move): eq. 2 reads only what
    that player sees (its own hand, every hand's size, the moves made), so an agent prunes exactly as the ODMC actor
    did in training. ``game`` is the registered game's name, ``search`` its search of the deal's move set
    (``GameSpec.make_search``)."""
    check_slack(slack, extra)
    legal = np.asarray(legal_moves, dtype=np.int64)
    if len(legal) <= 1 or view.phase != "play":
        return legal
    if slack == "paper":
        threshold = _paper_threshold(get_game(game).average_initial_cards, view.cards_left, len(view.history), extra)
    else:
        threshold = float(slack)
    after = search.k_after_view(view, legal)
    return legal[after <= after.min() + threshold]


class MCSViewPruner(_CountingPruner):
    """ODMC's pruning for an agent: ``pruner(view, legal) -> kept`` (:func:`prune_view_moves`) for a registered game
    and its rule options, with fixed slack settings; counts what it saw and kept as :class:`MCSPruner` does."""

    def __init__(self, game: str, options=None, slack: str | float = "paper", extra: float = 0.0):
        super().__init__(slack, extra)
        spec = get_game(game)
        if spec.search is None:
            raise ValueError(f"ODMC pruning needs a game with Minimum Combination Search; {spec.name} has none")
        self.game = spec.name
        self.search = spec.make_search(spec.make_engine(**spec.full_options(options)))

    def _prune(self, view, legal_moves) -> np.ndarray:
        return prune_view_moves(view, legal_moves, game=self.game, search=self.search, slack=self.slack,
                                extra=self.extra)
