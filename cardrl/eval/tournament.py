"""Duplicate tournaments between two agents, and leagues of several (Luo & Tan 2024, Sec. 5.1 and Tables 4, 5
and 10; DouZero+, Zhao et al. 2022, Sec. V; DouZero's protocol).

Every deal of a :class:`~cardrl.eval.deals.DealSet` is replayed once per arrangement of the game's
:class:`~cardrl.eval.protocols.TournamentProtocol` (DouDiZhu: A as landlord against B as both peasants, then
B as landlord against A as peasants; Big2: A in each of the four seats against B in the other three). Metrics,
as the papers define them:

- **ADP** (average difference in points): side A's points per game, the base point 1 doubled by every bomb
  (DouDiZhu: ``+-2 x 2^bombs``, the team payoff, as DouZero's ``evaluate.py`` counts it; Big2: the card penalty
  payoff of A's seat, i.e. the cards the three others hold when A goes out, or minus A's cards left, "losing
  points" / EV as BigZero counts them, Luo & Tan 2024, Sec. 5.1). A deal's sample is
  the mean over its arrangements; ADP is the mean of the N samples with a 95% Student-t interval (scipy), as in
  the papers' "10,000 samples ... T-test".
- **WP** (winning percentage): games won by A / games played, with the same kind of interval over deals.
- Per arrangement (per seat) the same two metrics with their intervals, over the N games of that arrangement (the WP
  interval is the t-interval of the N wins, clipped to [0, 1]).

Agents are reset with the deal's seed before each game, so the result is a function of the deal file and the
agent specs alone: chunks of deals run as Ray tasks (``num_workers >= 1``) or in this process (0) and are
merged in deal order, giving identical numbers whatever the parallelism.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np

from cardrl.agents.base import Agent, play_game
from cardrl.eval.agents import AgentSpec, build_agent, parse_agent_spec
from cardrl.eval.deals import DealSet, check_hands, generate_deals, load_deals
from cardrl.eval.parallel import Progress, offset_progress, one_torch_thread, run_in_chunks
from cardrl.eval.protocols import TournamentProtocol, protocol_for
from cardrl.eval.stats import mean_interval

__all__ = ["ArrangementStats", "TournamentResult", "LeagueResult", "run_tournament", "run_league",
           "AgentArg", "SIDE_SEEDS"]

AgentArg = Union[str, AgentSpec, Agent]
SIDE_SEEDS = (1, 2)  # seeds of side A's and side B's agents when their spec gives none (e.g. plain "random")


@dataclass(frozen=True)
class ArrangementStats:
    """ADP and WP of side A in one arrangement of the deals (e.g. "A landlord"), over its N games, each with its 95%
    interval."""

    label: str
    adp: float
    adp_interval: tuple[float, float]
    wp: float
    wp_interval: tuple[float, float] = (float("nan"), float("nan"))


def _wp_interval(wins: np.ndarray) -> tuple[float, float]:
    """The 95% t-interval of a win rate from per-deal samples, clipped to [0, 1]."""
    lo, hi = mean_interval(np.asarray(wins, dtype=np.float64))
    return (max(lo, 0.0), min(hi, 1.0))


@dataclass(frozen=True, eq=False)
class TournamentResult:
    """Outcome of a duplicate tournament, A against B (module docstring for the metrics).

    ``scores (N, K)``: A's points in deal i, arrangement k; ``wins (N, K)``: whether A won that game.
    """

    game: str
    a: str
    b: str
    labels: tuple[str, ...]
    scores: np.ndarray
    wins: np.ndarray

    @property
    def deals(self) -> int:
        return int(self.scores.shape[0])

    @property
    def games(self) -> int:
        return int(self.scores.size)

    @property
    def pair_scores(self) -> np.ndarray:
        """One ADP sample per deal: the mean of A's points over the deal's arrangements."""
        return self.scores.mean(axis=1)

    @property
    def adp(self) -> float:
        return float(self.pair_scores.mean())

    @property
    def adp_interval(self) -> tuple[float, float]:
        return mean_interval(self.pair_scores)

    @property
    def wp(self) -> float:
        return float(self.wins.mean())

    @property
    def wp_interval(self) -> tuple[float, float]:
        return _wp_interval(self.wins.mean(axis=1))

    def arrangements(self) -> list[ArrangementStats]:
        """Per-seat breakdown: one :class:`ArrangementStats` per arrangement, ADP and WP with their intervals."""
        return [ArrangementStats(label, float(self.scores[:, k].mean()), mean_interval(self.scores[:, k]),
                                 float(self.wins[:, k].mean()), _wp_interval(self.wins[:, k]))
                for k, label in enumerate(self.labels)]

    def beats(self) -> bool:
        """A outperforms B: the ADP interval lies above zero (Luo & Tan 2024, Table 4 note)."""
        return self.adp_interval[0] > 0

    def negated(self) -> "TournamentResult":
        """The same tournament seen from B (scores negated, wins as B's wins)."""
        return TournamentResult(self.game, self.b, self.a, tuple(f"B{lab[1:]}" if lab.startswith("A ") else lab
                                                                  for lab in self.labels),
                                -self.scores, ~self.wins & (self.scores != 0))

    def table(self) -> str:
        """A markdown table: overall ADP and WP with 95% intervals, then one row per arrangement."""
        lo, hi = self.adp_interval
        wlo, whi = self.wp_interval
        rows = [f"{self.a} vs {self.b}: {self.game}, {self.deals} deals x {len(self.labels)} seat arrangements, "
                f"{self.games} games",
                "",
                "| side A | games | ADP mean | ADP 95% interval | WP | WP 95% interval |",
                "|---|---:|---:|---|---:|---|",
                f"| all | {self.games} | {self.adp:+.3f} | {lo:+.3f}, {hi:+.3f} | {self.wp:.3f} | "
                f"{wlo:.3f}, {whi:.3f} |"]
        for s in self.arrangements():
            slo, shi = s.adp_interval
            wlo, whi = s.wp_interval
            rows.append(f"| {s.label} | {self.deals} | {s.adp:+.3f} | {slo:+.3f}, {shi:+.3f} | {s.wp:.3f} | "
                        f"{wlo:.3f}, {whi:.3f} |")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.adp_interval
        return {"game": self.game, "a": self.a, "b": self.b, "deals": self.deals, "games": self.games,
                "adp": self.adp, "adp_low": lo, "adp_high": hi, "wp": self.wp, "wp_low": self.wp_interval[0],
                "wp_high": self.wp_interval[1],
                "arrangements": {s.label: {"adp": s.adp, "adp_low": s.adp_interval[0],
                                           "adp_high": s.adp_interval[1], "wp": s.wp, "wp_low": s.wp_interval[0],
                                           "wp_high": s.wp_interval[1]}
                                 for s in self.arrangements()}}


# ---- playing ---------------------------------------------------------------------------------------------------
def _resolve(agent: AgentArg, game: str, options: dict, seed: int) -> tuple[str, Agent, Any]:
    """(display name, built agent, what a Ray task rebuilds it from: the spec, or the agent itself)."""
    if isinstance(agent, Agent):
        return agent.name, agent, agent
    spec = agent if isinstance(agent, AgentSpec) else parse_agent_spec(agent)
    return spec.text, build_agent(spec, game, options, seed), (spec, seed)


_WORKER_AGENTS: dict[tuple, Agent] = {}  # per Ray worker process: agents built from specs, reused across chunks


def _rebuild(source: Any, game: str, options: dict, side: int) -> Agent:
    """The agent a Ray task plays with. Agents built from specs are cached in the worker process (loading a
    checkpoint takes seconds); reuse is safe because every agent is reset with the deal's seed before a game."""
    if isinstance(source, Agent):
        return source
    spec, seed = source
    key = (side, spec, seed, game, tuple(sorted(options.items())))
    if key not in _WORKER_AGENTS:
        if len(_WORKER_AGENTS) >= 8:
            _WORKER_AGENTS.clear()
        _WORKER_AGENTS[key] = build_agent(spec, game, options, seed)
    return _WORKER_AGENTS[key]


def _play_chunk(game: str, options: dict, a: Agent, b: Agent, seeds: np.ndarray, hands: np.ndarray,
                start: int) -> tuple[np.ndarray, np.ndarray]:
    """Play deals ``start .. start + len(seeds) - 1`` in every arrangement; A's (scores, wins), shape (n, K)."""
    protocol = protocol_for(game)
    engine = protocol.make_game(**options)
    k_count = len(protocol.arrangements)
    scores = np.zeros((len(seeds), k_count))
    wins = np.zeros((len(seeds), k_count), dtype=bool)
    with one_torch_thread():
        for i, seed in enumerate(seeds):
            check_hands(engine, int(seed), hands[i], start + i)
            for k, seats in enumerate(protocol.arrangements):
                agents = [a if s in seats else b for s in range(protocol.num_players)]
                payoffs = play_game(engine, agents, int(seed), reward=protocol.reward)
                scores[i, k], wins[i, k] = protocol.outcome(engine, payoffs, k)
    return scores, wins


def _play_chunk_task(game: str, options: dict, a_source: Any, b_source: Any, same: bool, seeds: np.ndarray,
                     hands: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray]:
    a = _rebuild(a_source, game, options, 0)
    b = a if same else _rebuild(b_source, game, options, 1)
    return _play_chunk(game, options, a, b, seeds, hands, start)


def _deal_set(deals: DealSet | str | Path | int, game: str, seed: int) -> DealSet:
    if isinstance(deals, DealSet):
        deals.check(game, limit=8)
        return deals
    if isinstance(deals, (str, Path)):
        return load_deals(deals, game)
    return generate_deals(game, deals, seed)


def run_tournament(a: AgentArg, b: AgentArg, deals: DealSet | str | Path | int, game: str = "doudizhu",
                   seed: int = 0, num_workers: int = 0, chunk_size: int | None = None, *,
                   progress: Progress | None = None) -> TournamentResult:
    """Duplicate tournament of ``a`` against ``b`` on ``deals`` (a DealSet, a deal-file path, or a number of
    deals to generate from ``seed``). Agents are spec strings (:mod:`cardrl.eval.agents`) or Agent objects.

    ``num_workers=0`` plays in this process; ``k >= 1`` runs chunks of ``chunk_size`` deals as Ray tasks, at
    most ``k`` at a time (Ray is started with 2 CPUs if it is not running), telling ``progress`` the deals done
    after each. Bad deal files, specs or checkpoints raise before any game is played. The result does not depend
    on ``num_workers``/``chunk_size``.
    """
    protocol: TournamentProtocol = protocol_for(game)
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
        raise ValueError(f"num_workers must be an int >= 0 (0: no Ray), got {num_workers!r}")
    deal_set = _deal_set(deals, game, seed)
    options = protocol.normalise_options(deal_set.options)
    a_name, a_agent, a_source = _resolve(a, game, options, SIDE_SEEDS[0])
    if b is a and isinstance(a, Agent):  # one Agent object on both sides: the very same player
        b_name, b_agent, b_source = a_name, a_agent, a_source
    else:
        b_name, b_agent, b_source = _resolve(b, game, options, SIDE_SEEDS[1])
    n = len(deal_set)
    if chunk_size is None:
        chunk_size = max(1, min(500, -(-n // max(1, 4 * num_workers))))
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if num_workers == 0:
        scores, wins = _play_chunk(game, options, a_agent, b_agent, deal_set.seeds, deal_set.hands, 0)
    else:
        same = b_source is a_source  # one Agent object on both sides
        scores, wins = run_in_chunks(_play_chunk_task, (game, options, a_source, b_source, same),
                                     (deal_set.seeds, deal_set.hands), (), num_workers, chunk_size, shared=(2, 3),
                                     with_start=True, progress=progress)
    return TournamentResult(game, a_name, b_name, protocol.labels, scores, wins)


# ---- leagues ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LeagueResult:
    """Round robin of several agents on the same deals, ranked as Luo & Tan 2024, Tables 4 and 5: by how many
    others an agent outperforms (ADP interval above zero), ties by the mean of its ADPs."""

    game: str
    names: tuple[str, ...]
    results: dict[tuple[int, int], TournamentResult]  # (i, j) -> i against j, for every i != j

    def beaten(self, i: int) -> int:
        return sum(1 for j in range(len(self.names)) if j != i and self.results[(i, j)].beats())

    def ranking(self) -> list[int]:
        def mean_adp(i: int) -> float:
            others = [self.results[(i, j)].adp for j in range(len(self.names)) if j != i]
            return float(np.mean(others)) if others else 0.0

        return sorted(range(len(self.names)), key=lambda i: (-self.beaten(i), -mean_adp(i), i))

    def markdown(self) -> str:
        order = self.ranking()
        deals = next(iter(self.results.values())).deals if self.results else 0
        head = "| Rank | A \\ B | beats | " + " | ".join(f"{self.names[j]} mean | interval" for j in order) + " |"
        rows = [f"{self.game} league on {deals} deals: row A's ADP against column B (95% t-interval); A "
                f"outperforms B if the interval lies above zero", "", head,
                "|---:|---|---:|" + "---:|---|" * len(order)]
        for rank, i in enumerate(order, 1):
            cells = []
            for j in order:
                if i == j:
                    cells.append("- | -")
                else:
                    r = self.results[(i, j)]
                    lo, hi = r.adp_interval
                    cells.append(f"{r.adp:+.3f} | {lo:+.3f}, {hi:+.3f}")
            rows.append(f"| {rank} | {self.names[i]} | {self.beaten(i)} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["rank", "a", "b", "deals", "adp_mean", "adp_low", "adp_high", "wp", "a_beats_b",
                         "a_beats_count"])
        for rank, i in enumerate(self.ranking(), 1):
            for j in self.ranking():
                if i != j:
                    r = self.results[(i, j)]
                    lo, hi = r.adp_interval
                    writer.writerow([rank, self.names[i], self.names[j], r.deals, f"{r.adp:.6f}", f"{lo:.6f}",
                                     f"{hi:.6f}", f"{r.wp:.6f}", int(r.beats()), self.beaten(i)])
        return out.getvalue()


def run_league(agents: Sequence[AgentArg], deals: DealSet | str | Path | int, game: str = "doudizhu",
               seed: int = 0, num_workers: int = 0, chunk_size: int | None = None, *,
               progress: Progress | None = None) -> LeagueResult:
    """Every pair of ``agents`` plays one duplicate tournament on the same deals (j against i is the negation of
    i against j). All specs are parsed and built before the first game."""
    if len(agents) < 2:
        raise ValueError(f"a league needs at least two agents, got {len(agents)}")
    protocol = protocol_for(game)
    deal_set = _deal_set(deals, game, seed)
    options = protocol.normalise_options(deal_set.options)
    names = []
    for agent in agents:  # validate every spec (and checkpoint) up front
        names.append(_resolve(agent, game, options, SIDE_SEEDS[0])[0])
    if len(set(names)) != len(names):
        raise ValueError(f"league agents must be distinct, got {names}")
    results: dict[tuple[int, int], TournamentResult] = {}
    n, pairs = len(deal_set), len(agents) * (len(agents) - 1) // 2
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            r = run_tournament(agents[i], agents[j], deal_set, game, seed, num_workers, chunk_size,
                               progress=offset_progress(progress, len(results) // 2 * n, pairs * n))
            results[(i, j)] = r
            results[(j, i)] = r.negated()
    return LeagueResult(game, tuple(names), results)
