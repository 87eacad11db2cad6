"""Duplicate-deal DouDiZhu evaluation (Luo & Tan 2024, section 5.1; DouZero's evaluation protocol).

Each seeded deal is played twice with sides swapped: A as landlord against B as both peasants, then B as
landlord against A as peasants. Scores are per side in DouZero's units (the landlord side's payoff is the
landlord's payoff / 2, the peasant side's is one peasant's payoff), so a deal pair's score for A is the mean of
A's two side scores, and ADP is its mean over deals with a 95% t-interval. WP counts wins the same way.
Playing an agent against itself gives exactly 0 per deal pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from cardrl.agents.base import Agent, play_game
from cardrl.games.doudizhu import DouDizhuGame


@dataclass(frozen=True)
class DuplicateResult:
    """ADP and WP of side A against side B over duplicate deals (per-deal-pair scores kept for tests)."""

    deals: int
    adp: float
    adp_interval: tuple[float, float]
    wp: float
    adp_as_landlord: float
    adp_as_peasants: float
    pair_scores: np.ndarray

    def line(self, a: str, b: str) -> str:
        lo, hi = self.adp_interval
        return (f"{a} vs {b} over {self.deals} deals x 2 (sides swapped): ADP {self.adp:+.3f} "
                f"[95% CI {lo:+.3f}, {hi:+.3f}], WP {self.wp:.3f}; as landlord {self.adp_as_landlord:+.3f}, "
                f"as peasants {self.adp_as_peasants:+.3f}")


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval of the mean (degenerate at the mean when every value is equal)."""
    values = np.asarray(values, dtype=np.float64)
    mean = float(values.mean())
    sem = float(stats.sem(values)) if len(values) > 1 else 0.0
    if sem == 0.0:
        return (mean, mean)
    half = float(stats.t.ppf((1 + confidence) / 2, len(values) - 1)) * sem
    return (mean - half, mean + half)


def duplicate_doudizhu(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                       game: DouDizhuGame | None = None) -> DuplicateResult:
    """Play ``deals`` seeded deals twice each with sides swapped; scores are side A's (module docstring)."""
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    game = game or DouDizhuGame()
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, 2**62, size=deals)
    as_landlord = np.zeros(deals)
    as_peasants = np.zeros(deals)
    wins = np.zeros(deals)
    for i, s in enumerate(seeds):
        p = play_game(game, [agent_a, agent_b, agent_b], int(s))
        as_landlord[i] = p[0] / 2.0
        wins[i] += p[0] > 0
        p = play_game(game, [agent_b, agent_a, agent_a], int(s))
        as_peasants[i] = p[1]
        wins[i] += p[1] > 0
    pair = (as_landlord + as_peasants) / 2.0
    return DuplicateResult(deals=deals, adp=float(pair.mean()), adp_interval=mean_interval(pair),
                           wp=float(wins.sum() / (2 * deals)), adp_as_landlord=float(as_landlord.mean()),
                           adp_as_peasants=float(as_peasants.mean()), pair_scores=pair)


def make_agent(spec: str, seed: int = 0) -> Agent:
    """An agent from a spec string: ``random`` or ``rule`` (checkpoints come with the evaluation issue)."""
    from cardrl.agents import DouDizhuRuleAgent, RandomAgent

    if spec == "random":
        return RandomAgent(seed)
    if spec == "rule":
        return DouDizhuRuleAgent()
    raise ValueError(f"agent spec {spec!r} does not parse; allowed: random, rule")


def main_play(args) -> int:
    a, b = make_agent(args.a, args.seed), make_agent(args.b, args.seed + 1)
    result = duplicate_doudizhu(a, b, args.deals, seed=args.seed)
    print(result.line(args.a, args.b))
    return 0
