"""Whole-match evaluation with teams swapped, for games whose episode is a match (``EvalProtocol.unit ==
"match"``: GuanDan; DanZero, Lu et al. 2023, Sec. V-B, and DanZero+, Zhao et al. 2024, Sec. V-B: "two agents
belonging to one team ... employ our model, while the opposing team utilizes a baseline", 1,000 games (matches)
per pair, win rate of matches).

Each seeded match is played once per arrangement of the game's protocol: agent A as team 0 (GuanDan: seats 0 and 2)
against B as team 1 (seats 1 and 3), then A as team 1 against B as team 0, with the same match seed, so both
arrangements see the same deal sequence wherever their levels and tributes agree (GuanDan's deal cards depend only
on the match seed and the deal index, see :func:`cardrl.games.guandan.deal_cards`). The engine says who won
(``match_winner_seats()``) and how many deals were played (``deals_played``). Per seeded match (one *pair* of
games) the samples are:

- **match win rate of A**: the mean over the two games of "A's team won the match" (0, 0.5 or 1);
- **points per deal of A**: the mean over the two games of A's total points (GuanDan: DanZero's +3/+2/+1 per deal
  won, the negative per deal lost; docs/rules.md "GuanDan") divided by the game's number of deals;
- **deals per match**: the mean number of deals of the two games.

Each metric is the mean of its N pair samples with a 95% Student-t interval (:func:`cardrl.eval.stats.mean_interval`,
as the other tournaments here); the win rate also gets a Clopper-Pearson interval over the 2N games, which stays
informative when one side wins every game (the t-interval then collapses to a point). A match cut by
``max_deals`` without a winner counts as not won by either side.

Agents are reset with the match seed before each game (:func:`cardrl.agents.base.play_game`), so results are a
function of the agents, ``seed`` and the game options only: chunks of matches run as Ray tasks
(``num_workers >= 1``) or in this process (0) and are merged in match order with identical numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy import stats

from cardrl.agents.base import Agent, play_game
from cardrl.eval.parallel import Progress
from cardrl.eval.protocols import protocol_for
from cardrl.eval.stats import mean_interval

__all__ = ["MatchResult", "run_matches", "match_seeds"]

_MAX_SEED = 2 ** 62


def match_seeds(seed: int, num_matches: int) -> np.ndarray:
    """The match seeds of an evaluation: the first ``num_matches`` draws of ``default_rng(seed)`` (a longer run
    with the same ``seed`` starts with the same matches)."""
    return np.random.default_rng(seed).integers(0, _MAX_SEED, size=num_matches, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class MatchResult:
    """Outcome of ``num_matches`` seeded matches of A against B, each played with teams swapped (module docstring).

    Arrays are (N, 2): match i, arrangement k (k = 0: A is team 0; k = 1: A is team 1). ``wins``: A's team won
    the match; ``decided``: the match had a winner (False only when cut by ``max_deals``); ``points``: A's total
    points in the match; ``deals``: the number of deals played; ``labels`` name the arrangements.
    """

    game: str
    labels: tuple[str, ...]
    a: str
    b: str
    seeds: np.ndarray
    wins: np.ndarray
    decided: np.ndarray
    points: np.ndarray
    deals: np.ndarray
    max_deals: int | None = None

    @property
    def matches(self) -> int:
        return int(self.seeds.shape[0])

    @property
    def games(self) -> int:
        return int(self.wins.size)

    # -- per-pair samples --
    @property
    def win_samples(self) -> np.ndarray:
        return self.wins.mean(axis=1)

    @property
    def points_per_deal_samples(self) -> np.ndarray:
        return (self.points / self.deals).mean(axis=1)

    # -- metrics --
    @property
    def win_rate(self) -> float:
        return float(self.win_samples.mean())

    @property
    def win_rate_interval(self) -> tuple[float, float]:
        lo, hi = mean_interval(self.win_samples)
        return (max(lo, 0.0), min(hi, 1.0))

    @property
    def win_rate_exact_interval(self) -> tuple[float, float]:
        """Clopper-Pearson 95% interval of A's match win rate over all games (treated as independent); unlike the
        t-interval it does not collapse to a point when A wins (or loses) every game."""
        won, n = int(self.wins.sum()), self.games
        lo = float(stats.beta.ppf(0.025, won, n - won + 1)) if won > 0 else 0.0
        hi = float(stats.beta.ppf(0.975, won + 1, n - won)) if won < n else 1.0
        return (lo, hi)

    @property
    def points_per_deal(self) -> float:
        return float(self.points_per_deal_samples.mean())

    @property
    def points_per_deal_interval(self) -> tuple[float, float]:
        return mean_interval(self.points_per_deal_samples)

    @property
    def deals_per_match(self) -> float:
        return float(self.deals.mean())

    @property
    def deals_per_match_interval(self) -> tuple[float, float]:
        return mean_interval(self.deals.mean(axis=1))

    @property
    def undecided(self) -> int:
        """Games cut by ``max_deals`` without a match winner."""
        return int((~self.decided).sum())

    def arrangement_win_rates(self) -> tuple[float, ...]:
        """A's match win rate in each arrangement (GuanDan: as team 0 and as team 1)."""
        return tuple(float(self.wins[:, k].mean()) for k in range(self.wins.shape[1]))

    def beats(self) -> bool:
        """A is the stronger: both match win-rate intervals (t over pairs, Clopper-Pearson over games) lie above
        one half."""
        return min(self.win_rate_interval[0], self.win_rate_exact_interval[0]) > 0.5

    def table(self) -> str:
        """A markdown table of the three metrics with their 95% intervals, and the per-arrangement win rates."""
        wlo, whi = self.win_rate_interval
        elo, ehi = self.win_rate_exact_interval
        plo, phi = self.points_per_deal_interval
        dlo, dhi = self.deals_per_match_interval
        cut = f", max {self.max_deals} deals per match ({self.undecided} games undecided)" if self.max_deals else ""
        from cardrl.games.registry import get_game

        rows = [f"{self.a} vs {self.b}: {get_game(self.game).title}, {self.matches} seeded matches x "
                f"{len(self.labels)} (teams swapped), "
                f"{self.games} games{cut}", "",
                "| metric (side A) | mean | 95% interval |", "|---|---:|---|",
                f"| match win rate | {self.win_rate:.3f} | {wlo:.3f}, {whi:.3f} |",
                f"| match win rate, Clopper-Pearson over games | {self.win_rate:.3f} | {elo:.3f}, {ehi:.3f} |",
                f"| points per deal | {self.points_per_deal:+.3f} | {plo:+.3f}, {phi:+.3f} |",
                f"| deals per match | {self.deals_per_match:.2f} | {dlo:.2f}, {dhi:.2f} |"]
        for label, rate in zip(self.labels, self.arrangement_win_rates()):
            rows.append(f"| match win rate, {label} | {rate:.3f} | |")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        wlo, whi = self.win_rate_interval
        plo, phi = self.points_per_deal_interval
        dlo, dhi = self.deals_per_match_interval
        return {"game": self.game, "a": self.a, "b": self.b, "matches": self.matches, "games": self.games,
                "win_rate": self.win_rate, "win_rate_low": wlo, "win_rate_high": whi,
                "win_rate_exact_interval": list(self.win_rate_exact_interval),
                "points_per_deal": self.points_per_deal, "points_per_deal_low": plo, "points_per_deal_high": phi,
                "deals_per_match": self.deals_per_match, "deals_per_match_low": dlo, "deals_per_match_high": dhi,
                "undecided": self.undecided, "max_deals": self.max_deals,
                "arrangement_win_rates": dict(zip(self.labels, self.arrangement_win_rates()))}


# ---- playing ---------------------------------------------------------------------------------------------------
def _play_chunk(game: str, a: Agent, b: Agent, seeds: np.ndarray,
                options: Mapping[str, Any]) -> tuple[np.ndarray, ...]:
    """Play each match seed in every arrangement: A's (wins, decided, points, deals), each (n, K)."""
    protocol = protocol_for(game)
    engine = protocol.make_game(**options)
    n, k_count = len(seeds), len(protocol.arrangements)
    wins = np.zeros((n, k_count), dtype=bool)
    decided = np.zeros((n, k_count), dtype=bool)
    points = np.zeros((n, k_count))
    deals = np.zeros((n, k_count), dtype=np.int64)
    for i, seed in enumerate(seeds):
        for k, seats in enumerate(protocol.arrangements):
            agents = [a if s in seats else b for s in range(protocol.num_players)]
            payoffs = play_game(engine, agents, int(seed), reward=protocol.reward)
            winners = engine.match_winner_seats()
            wins[i, k] = seats[0] in winners
            decided[i, k] = bool(winners)
            points[i, k] = protocol.score_a(payoffs, k)
            deals[i, k] = engine.deals_played
    return wins, decided, points, deals


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def run_matches(a: Agent, b: Agent, num_matches: int, seed: int, game: str, max_deals: int | None = None,
                num_workers: int = 0, *, chunk_size: int | None = None,
                options: Mapping[str, Any] | None = None, progress: Progress | None = None) -> MatchResult:
    """Play ``num_matches`` seeded matches of agent ``a`` against agent ``b`` of ``game`` (a game whose protocol's
    unit is the match), each once per arrangement with teams swapped (module docstring), and return A's match win
    rate, points per deal and deals per match.

    ``max_deals`` cuts every match after that many deals (None: play until a team wins). ``options`` are further
    rule options (e.g. GuanDan's ``{"tribute_decisions": True}``; the options that make a game one deal are
    refused). ``num_workers=0`` plays in this process; ``k >= 1`` runs chunks of ``chunk_size`` matches as Ray
    tasks, at most ``k`` at a time (Ray is started with 2 CPUs if it is not running); the numbers do not depend
    on ``num_workers`` or ``chunk_size``; ``progress`` is told the matches done after each chunk. Bad arguments
    raise before any game is played.
    """
    from cardrl.eval.parallel import run_in_chunks

    for name, agent in (("a", a), ("b", b)):
        if not isinstance(agent, Agent):
            raise TypeError(f"{name} must be an Agent (cardrl.agents), got {type(agent).__name__} {agent!r}")
    protocol = protocol_for(game)
    if protocol.spec.protocol.unit != "match":
        raise ValueError(f"{game} is evaluated in single deals (cardrl.eval.tournament), not in matches")
    num_matches = _check_int("num_matches", num_matches, 1)
    seed = _check_int("seed", seed, 0)
    num_workers = _check_int("num_workers", num_workers, 0)
    if max_deals is not None:
        max_deals = _check_int("max_deals", max_deals, 1)
    opts = dict(options or {})
    if "max_deals" in opts:
        raise ValueError("pass max_deals as the argument of run_matches, not inside options")
    for key, value in protocol.spec.protocol.deal_options.items():
        if key in opts and opts[key] == value:
            raise ValueError(f"run_matches evaluates whole matches: options must not set {key}={value!r}")
    opts = protocol.spec.full_options({**opts, "max_deals": max_deals})  # bad options fail here, before any game
    seeds = match_seeds(seed, num_matches)
    if chunk_size is None:
        chunk_size = max(1, -(-num_matches // max(1, 4 * num_workers)))
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    wins, decided, points, deals = run_in_chunks(_play_chunk, (game, a, b), (seeds,), (opts,), num_workers,
                                                 chunk_size, shared=(1, 2), progress=progress)
    return MatchResult(game, protocol.labels, a.name, b.name, seeds, wins, decided, points, deals, max_deals)
