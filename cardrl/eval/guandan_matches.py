"""Whole-match GuanDan evaluation with teams swapped (DanZero, Lu et al. 2023, Sec. V-B, and DanZero+, Zhao et al.
2024, Sec. V-B: "two agents belonging to one team ... employ our model, while the opposing team utilizes a
baseline", 1,000 games (matches) per pair, win rate of matches).

Each seeded match is played twice: agent A as team 0 (seats 0 and 2) against B as team 1 (seats 1 and 3), then
A as team 1 against B as team 0, with the same match seed, so both arrangements see the same deal sequence
wherever their levels and tributes agree (the deal cards depend only on the match seed and the deal index, see
:func:`cardrl.games.guandan.deal_cards`). Per seeded match (one *pair* of games) the samples are:

- **match win rate of A**: the mean over the two games of "A's team won the match" (0, 0.5 or 1);
- **DanZero points per deal of A**: the mean over the two games of A's total DanZero points (+3/+2/+1 per deal
  won, the negative per deal lost; RULES.md "GuanDan" rewards) divided by the game's number of deals;
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
from cardrl.eval.stats import mean_interval
from cardrl.games.guandan import GuanDanGame

__all__ = ["GuanDanMatchResult", "run_guandan_matches", "match_seeds", "ARRANGEMENTS"]

ARRANGEMENTS = ("A team 0 (seats 0, 2)", "A team 1 (seats 1, 3)")
_A_SEATS = ((0, 2), (1, 3))
_MAX_SEED = 2 ** 62


def match_seeds(seed: int, num_matches: int) -> np.ndarray:
    """The match seeds of an evaluation: the first ``num_matches`` draws of ``default_rng(seed)`` (a longer run
    with the same ``seed`` starts with the same matches)."""
    return np.random.default_rng(seed).integers(0, _MAX_SEED, size=num_matches, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class GuanDanMatchResult:
    """Outcome of ``num_matches`` seeded matches of A against B, each played with teams swapped (module docstring).

    Arrays are (N, 2): match i, arrangement k (k = 0: A is team 0; k = 1: A is team 1). ``wins``: A's team won
    the match; ``decided``: the match had a winner (False only when cut by ``max_deals``); ``points``: A's total
    DanZero points in the match; ``deals``: the number of deals played.
    """

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

    def arrangement_win_rates(self) -> tuple[float, float]:
        """A's match win rate as team 0 and as team 1."""
        return (float(self.wins[:, 0].mean()), float(self.wins[:, 1].mean()))

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
        rows = [f"{self.a} vs {self.b}: GuanDan, {self.matches} seeded matches x 2 (teams swapped), "
                f"{self.games} games{cut}", "",
                "| metric (side A) | mean | 95% interval |", "|---|---:|---|",
                f"| match win rate | {self.win_rate:.3f} | {wlo:.3f}, {whi:.3f} |",
                f"| match win rate, Clopper-Pearson over games | {self.win_rate:.3f} | {elo:.3f}, {ehi:.3f} |",
                f"| DanZero points per deal | {self.points_per_deal:+.3f} | {plo:+.3f}, {phi:+.3f} |",
                f"| deals per match | {self.deals_per_match:.2f} | {dlo:.2f}, {dhi:.2f} |"]
        for label, rate in zip(ARRANGEMENTS, self.arrangement_win_rates()):
            rows.append(f"| match win rate, {label} | {rate:.3f} | |")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        wlo, whi = self.win_rate_interval
        plo, phi = self.points_per_deal_interval
        dlo, dhi = self.deals_per_match_interval
        return {"game": "guandan", "a": self.a, "b": self.b, "matches": self.matches, "games": self.games,
                "win_rate": self.win_rate, "win_rate_low": wlo, "win_rate_high": whi,
                "win_rate_exact_interval": list(self.win_rate_exact_interval),
                "points_per_deal": self.points_per_deal, "points_per_deal_low": plo, "points_per_deal_high": phi,
                "deals_per_match": self.deals_per_match, "deals_per_match_low": dlo, "deals_per_match_high": dhi,
                "undecided": self.undecided, "max_deals": self.max_deals,
                "arrangement_win_rates": dict(zip(ARRANGEMENTS, self.arrangement_win_rates()))}


# ---- playing ---------------------------------------------------------------------------------------------------
def _play_chunk(a: Agent, b: Agent, seeds: np.ndarray, options: Mapping[str, Any]) -> tuple[np.ndarray, ...]:
    """Play each match seed in both arrangements: A's (wins, decided, points, deals), each (n, 2)."""
    game = GuanDanGame(**options)
    n = len(seeds)
    wins = np.zeros((n, 2), dtype=bool)
    decided = np.zeros((n, 2), dtype=bool)
    points = np.zeros((n, 2))
    deals = np.zeros((n, 2), dtype=np.int64)
    for i, seed in enumerate(seeds):
        for k, seats in enumerate(_A_SEATS):
            agents = [a if s in seats else b for s in range(4)]
            payoffs = play_game(game, agents, int(seed))
            team_a = seats[0] % 2
            wins[i, k] = game.match_winner == team_a
            decided[i, k] = game.match_winner is not None
            points[i, k] = float(payoffs[seats[0]])
            deals[i, k] = len(game.deal_results)
    return wins, decided, points, deals


def _run_on_ray(a: Agent, b: Agent, seeds: np.ndarray, options: dict, num_workers: int,
                chunk_size: int) -> tuple[np.ndarray, ...]:
    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    task = ray.remote(num_cpus=1)(_play_chunk)
    a_ref = ray.put(a)
    b_ref = a_ref if b is a else ray.put(b)
    pending = [(lo, min(len(seeds), lo + chunk_size)) for lo in range(0, len(seeds), chunk_size)]
    results: dict[int, tuple[np.ndarray, ...]] = {}
    running: dict[Any, int] = {}
    while pending or running:
        while pending and len(running) < num_workers:
            lo, hi = pending.pop(0)
            running[task.remote(a_ref, b_ref, seeds[lo:hi], options)] = lo
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            results[running.pop(ref)] = ray.get(ref)
    order = sorted(results)
    return tuple(np.concatenate([results[lo][j] for lo in order]) for j in range(4))


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def run_guandan_matches(a: Agent, b: Agent, num_matches: int, seed: int, max_deals: int | None = None,
                        num_workers: int = 0, *, chunk_size: int | None = None,
                        options: Mapping[str, Any] | None = None) -> GuanDanMatchResult:
    """Play ``num_matches`` seeded matches of agent ``a`` against agent ``b``, each twice with teams swapped
    (module docstring), and return A's match win rate, DanZero points per deal and deals per match.

    ``max_deals`` cuts every match after that many deals (None: play until a team wins). ``options`` are further
    :class:`~cardrl.games.guandan.GuanDanGame` options (e.g. ``{"tribute_decisions": True}``; ``match`` must stay
    True). ``num_workers=0`` plays in this process; ``k >= 1`` runs chunks of ``chunk_size`` matches as Ray
    tasks, at most ``k`` at a time (Ray is started with 2 CPUs if it is not running); the numbers do not depend
    on ``num_workers`` or ``chunk_size``. Bad arguments raise before any game is played.
    """
    for name, agent in (("a", a), ("b", b)):
        if not isinstance(agent, Agent):
            raise TypeError(f"{name} must be an Agent (cardrl.agents), got {type(agent).__name__} {agent!r}")
    num_matches = _check_int("num_matches", num_matches, 1)
    seed = _check_int("seed", seed, 0)
    num_workers = _check_int("num_workers", num_workers, 0)
    if max_deals is not None:
        max_deals = _check_int("max_deals", max_deals, 1)
    opts = dict(options or {})
    if "max_deals" in opts:
        raise ValueError("pass max_deals as the argument of run_guandan_matches, not inside options")
    if not opts.get("match", True):
        raise ValueError("run_guandan_matches evaluates whole matches: options must not set match=False")
    opts["max_deals"] = max_deals
    try:
        GuanDanGame(**opts)  # bad options fail here, before any game
    except TypeError as err:
        allowed = ("a_level_attempts", "return_level_card", "match_bonus", "tribute_decisions")
        raise ValueError(f"unknown GuanDan option in {sorted(options or {})}: {err}; allowed: {allowed}") from None
    seeds = match_seeds(seed, num_matches)
    if chunk_size is None:
        chunk_size = max(1, -(-num_matches // max(1, 4 * num_workers)))
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    if num_workers == 0:
        wins, decided, points, deals = _play_chunk(a, b, seeds, opts)
    else:
        wins, decided, points, deals = _run_on_ray(a, b, seeds, opts, num_workers, chunk_size)
    return GuanDanMatchResult(a.name, b.name, seeds, wins, decided, points, deals, max_deals)
