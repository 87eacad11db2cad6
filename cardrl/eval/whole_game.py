"""Duplicate tournaments of the whole game, bidding included (DouDiZhu with ``bidding=True``; docs/usage.md "The
whole game").

With bidding the landlord is not a seat, so the sides rotate over every split of the seats
(:func:`~cardrl.eval.protocols.protocol_for` with ``whole_game=True``): A alone in seat k against B in the other two,
and B alone in seat k against A, for k = 0, 1, 2 (6 games a deal). Each agent thus bids from every position, and the
luck of the deal cancels: two equal agents score exactly 0 on every deal, whatever the deal. A's score of a game is
the sum of its seats' ADP payoffs (bid x 2^bombs, x2 for the landlord: the multipliers of the bidding), the per-deal
sample the mean over the 6 games, ADP its mean with a 95% t-interval as in :mod:`cardrl.eval.tournament` (Luo & Tan
2024, Sec. 5.1); A wins a game when its seats' WP payoffs sum above 0 (holding the landlord and a peasant seat, when
the landlord wins).

Beside ADP, per agent (:class:`BiddingStats`): the landlord rate (of the seats it held, how many became the
landlord; 1/3 is an even share), its win rate and mean ADP as landlord and as peasant (per peasant seat), the mean
winning bid, and the redeal rate (games in which all passed at least once; the engine then re-deals from the deal's
seed). Agents that cannot bid (``Agent.bids`` False) are refused with the pairing that fixes it (``SPEC+bidder=rule``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardrl.agents.base import Agent, play_game
from cardrl.eval.agents import check_bids
from cardrl.eval.deals import DealSet, check_hands, generate_deals, load_deals
from cardrl.eval.parallel import Progress, offset_progress, one_torch_thread, run_in_chunks
from cardrl.eval.protocols import bids, protocol_for
from cardrl.eval.tournament import AgentArg, LeagueResult, SIDE_SEEDS, TournamentResult, _rebuild, _resolve

__all__ = ["BiddingStats", "WholeGameResult", "WholeLeagueResult", "run_whole_game", "run_whole_league",
           "bidding_table"]


def _ratio(count: int, total: int) -> float:
    return count / total if total else float("nan")


@dataclass(frozen=True)
class BiddingStats:
    """One agent's whole-game record (module docstring): counts and means over the games it played."""

    name: str
    games: int
    seats: int
    landlord_games: int
    landlord_wins: int
    landlord_adp: float
    mean_bid: float
    peasant_seats: int
    peasant_wins: int
    peasant_adp: float
    redeal_games: int

    @property
    def landlord_rate(self) -> float:
        return _ratio(self.landlord_games, self.seats)

    @property
    def landlord_win_rate(self) -> float:
        return _ratio(self.landlord_wins, self.landlord_games)

    @property
    def peasant_win_rate(self) -> float:
        return _ratio(self.peasant_wins, self.peasant_seats)

    @property
    def redeal_rate(self) -> float:
        return _ratio(self.redeal_games, self.games)

    def __add__(self, other: "BiddingStats") -> "BiddingStats":
        def mean(x: float, nx: int, y: float, ny: int) -> float:
            return (np.nan_to_num(x) * nx + np.nan_to_num(y) * ny) / (nx + ny) if nx + ny else float("nan")

        lg, pg = self.landlord_games + other.landlord_games, self.peasant_seats + other.peasant_seats
        return BiddingStats(self.name, self.games + other.games, self.seats + other.seats, lg,
                            self.landlord_wins + other.landlord_wins,
                            mean(self.landlord_adp, self.landlord_games, other.landlord_adp, other.landlord_games),
                            mean(self.mean_bid, self.landlord_games, other.mean_bid, other.landlord_games), pg,
                            self.peasant_wins + other.peasant_wins,
                            mean(self.peasant_adp, self.peasant_seats, other.peasant_adp, other.peasant_seats),
                            self.redeal_games + other.redeal_games)


def side_stats(name: str, mine: np.ndarray, landlord: np.ndarray, bid: np.ndarray, redeals: np.ndarray,
               payoffs: np.ndarray) -> BiddingStats:
    """The record of the side holding seats ``mine (N, K, P)`` (bool) in games with ``landlord (N, K)`` seats,
    winning ``bid (N, K)``, ``redeals (N, K)`` and ADP ``payoffs (N, K, P)``."""
    seat = np.arange(payoffs.shape[-1])
    is_landlord = seat == landlord[..., None]
    held_landlord = mine & is_landlord
    peasant = mine & ~is_landlord
    as_landlord = payoffs[held_landlord]
    as_peasant = payoffs[peasant]
    won_landlord = held_landlord.any(axis=-1)
    return BiddingStats(name, games=int(landlord.size), seats=int(mine.sum()),
                        landlord_games=int(held_landlord.sum()), landlord_wins=int((as_landlord > 0).sum()),
                        landlord_adp=float(as_landlord.mean()) if as_landlord.size else float("nan"),
                        mean_bid=float(bid[won_landlord].mean()) if won_landlord.any() else float("nan"),
                        peasant_seats=int(peasant.sum()), peasant_wins=int((as_peasant > 0).sum()),
                        peasant_adp=float(as_peasant.mean()) if as_peasant.size else float("nan"),
                        redeal_games=int((redeals > 0).sum()))


def bidding_table(stats: Sequence[BiddingStats]) -> str:
    """A markdown table of whole-game records, one row per agent."""
    rows = ["| agent | games | landlord rate (even: 0.333) | as landlord: games | win rate | ADP | mean bid | "
            "as peasant: seats | win rate | ADP | redeal rate |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in stats:
        rows.append(f"| {s.name} | {s.games} | {s.landlord_rate:.3f} | {s.landlord_games} | "
                    f"{s.landlord_win_rate:.3f} | {s.landlord_adp:+.3f} | {s.mean_bid:.2f} | {s.peasant_seats} | "
                    f"{s.peasant_win_rate:.3f} | {s.peasant_adp:+.3f} | {s.redeal_rate:.3f} |")
    return "\n".join(rows)


@dataclass(frozen=True, eq=False)
class WholeGameResult:
    """A whole-game duplicate tournament: ``tournament`` (ADP and WP over the 6 arrangements, as any tournament)
    and the games' ``landlord``, winning ``bid``, ``redeals`` (N, K) and ADP ``payoffs`` (N, K, players)."""

    tournament: TournamentResult
    arrangements: tuple[tuple[int, ...], ...]
    landlord: np.ndarray
    bid: np.ndarray
    redeals: np.ndarray
    payoffs: np.ndarray

    def side_mask(self, side: int) -> np.ndarray:
        """``(N, K, P)`` bool: the seats side ``side`` (0: A, 1: B) held in each game."""
        players = self.payoffs.shape[-1]
        a = np.array([[s in seats for s in range(players)] for seats in self.arrangements])
        mask = a if side == 0 else ~a
        return np.broadcast_to(mask, self.payoffs.shape)

    def stats(self, side: int) -> BiddingStats:
        name = self.tournament.a if side == 0 else self.tournament.b
        return side_stats(name, self.side_mask(side), self.landlord, self.bid, self.redeals, self.payoffs)

    def table(self) -> str:
        return (self.tournament.table() + "\n\nWhole game, per agent (ADP with the bidding's multipliers):\n\n"
                + bidding_table([self.stats(0), self.stats(1)]))


# ---- playing ---------------------------------------------------------------------------------------------------
def _play_chunk(game: str, options: dict, a: Agent, b: Agent, seeds: np.ndarray, hands: np.ndarray,
                start: int) -> tuple[np.ndarray, ...]:
    """Deals ``start ..`` in every whole-game arrangement: A's scores and wins, the landlord, bid and redeals
    ``(n, K)``, the ADP payoffs ``(n, K, P)``."""
    protocol = protocol_for(game, whole_game=True)
    engine = protocol.make_game(**options)
    n, k_count, players = len(seeds), len(protocol.arrangements), protocol.num_players
    scores, wins = np.zeros((n, k_count)), np.zeros((n, k_count), dtype=bool)
    landlord, bid, redeals = (np.zeros((n, k_count), dtype=np.int64) for _ in range(3))
    payoffs = np.zeros((n, k_count, players))
    with one_torch_thread():
        for i, seed in enumerate(seeds):
            check_hands(engine, int(seed), hands[i], start + i)
            for k, seats in enumerate(protocol.arrangements):
                agents = [a if s in seats else b for s in range(players)]
                payoffs[i, k] = play_game(engine, agents, int(seed), reward=protocol.reward)
                scores[i, k], wins[i, k] = protocol.outcome(engine, payoffs[i, k], k)
                landlord[i, k], bid[i, k], redeals[i, k] = engine.landlord, engine.bid, engine.redeals
    return scores, wins, landlord, bid, redeals, payoffs


def _play_chunk_task(game: str, options: dict, a_source, b_source, seeds: np.ndarray, hands: np.ndarray,
                     start: int) -> tuple[np.ndarray, ...]:
    return _play_chunk(game, options, _rebuild(a_source, game, options, 0), _rebuild(b_source, game, options, 1),
                       seeds, hands, start)


def whole_game_deals(deals: DealSet | str | Path | int, game: str, seed: int = 0) -> DealSet:
    """The deals of a whole-game tournament: a DealSet or deal file whose options bid, or ``deals`` new ones."""
    if isinstance(deals, (str, Path)):
        deals = load_deals(deals, game)
    elif not isinstance(deals, DealSet):
        option = protocol_for(game, whole_game=True).spec.protocol.bidding_option
        return generate_deals(game, deals, seed, **{option: True})
    deals.check(game, limit=8)
    if not bids(game, deals.options):
        raise ValueError(f"these {game} deals do not bid (options {deals.options}); a whole-game tournament needs "
                         f"deals generated with bidding (cardrl eval --bidding without --deal-file generates them)")
    return deals


def run_whole_game(a: AgentArg, b: AgentArg, deals: DealSet | str | Path | int, game: str = "doudizhu",
                   seed: int = 0, num_workers: int = 0, chunk_size: int | None = None, *,
                   progress: Progress | None = None) -> WholeGameResult:
    """Whole-game duplicate tournament of ``a`` against ``b`` (module docstring), as
    :func:`~cardrl.eval.tournament.run_tournament` plays the fixed-landlord one: the same arguments, the result
    independent of ``num_workers``/``chunk_size``. An agent that cannot bid raises ValueError before any game."""
    protocol = protocol_for(game, whole_game=True)
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
        raise ValueError(f"num_workers must be an int >= 0 (0: no Ray), got {num_workers!r}")
    deal_set = whole_game_deals(deals, game, seed)
    options = protocol.normalise_options(deal_set.options)
    a_name, a_agent, a_source = _resolve(a, game, options, SIDE_SEEDS[0])
    b_name, b_agent, b_source = _resolve(b, game, options, SIDE_SEEDS[1])
    check_bids(a_agent)
    check_bids(b_agent)
    n = len(deal_set)
    chunk_size = chunk_size if chunk_size is not None else max(1, min(200, -(-n // max(1, 4 * num_workers))))
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if num_workers == 0:
        arrays = _play_chunk(game, options, a_agent, b_agent, deal_set.seeds, deal_set.hands, 0)
    else:
        arrays = run_in_chunks(_play_chunk_task, (game, options, a_source, b_source), (deal_set.seeds, deal_set.hands),
                               (), num_workers, chunk_size, shared=(2, 3), with_start=True, progress=progress)
    scores, wins, landlord, bid, redeals, payoffs = arrays
    tournament = TournamentResult(game, a_name, b_name, protocol.labels, scores, wins)
    return WholeGameResult(tournament, protocol.arrangements, landlord, bid, redeals, payoffs)


@dataclass(frozen=True, eq=False)
class WholeLeagueResult:
    """A round robin of whole-game tournaments: ``league`` ranks by ADP as any league; ``stats`` per agent over all
    its games."""

    league: LeagueResult
    stats: tuple[BiddingStats, ...]

    def markdown(self) -> str:
        return (self.league.markdown() + "\n\nWhole game, per agent over all its games:\n\n"
                + bidding_table([self.stats[i] for i in self.league.ranking()]))


def run_whole_league(agents: Sequence[AgentArg], deals: DealSet | str | Path | int, game: str = "doudizhu",
                     seed: int = 0, num_workers: int = 0, chunk_size: int | None = None, *,
                     progress: Progress | None = None) -> WholeLeagueResult:
    """Every pair of ``agents`` plays one whole-game tournament on the same deals; every agent is built (and
    refused if it cannot bid) before the first game."""
    if len(agents) < 2:
        raise ValueError(f"a league needs at least two agents, got {len(agents)}")
    protocol = protocol_for(game, whole_game=True)
    deal_set = whole_game_deals(deals, game, seed)
    options = protocol.normalise_options(deal_set.options)
    names = [check_bids(_resolve(agent, game, options, SIDE_SEEDS[0])[1]).name for agent in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"league agents must be distinct, got {names}")
    results: dict[tuple[int, int], TournamentResult] = {}
    stats: list[BiddingStats | None] = [None] * len(agents)
    n, pairs = len(deal_set), len(agents) * (len(agents) - 1) // 2
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            r = run_whole_game(agents[i], agents[j], deal_set, game, seed, num_workers, chunk_size,
                               progress=offset_progress(progress, len(results) // 2 * n, pairs * n))
            results[(i, j)], results[(j, i)] = r.tournament, r.tournament.negated()
            for k, side in ((i, 0), (j, 1)):
                mine = r.stats(side)
                stats[k] = mine if stats[k] is None else stats[k] + mine
    return WholeLeagueResult(LeagueResult(game, tuple(names), results), tuple(stats))
