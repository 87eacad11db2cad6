"""Where the rule bidder's thresholds come from (cardrl.agents.doudizhu_bidder): the landlord's result by hand strength.

For every seeded deal and every seat, the seat's 17 dealt cards are scored with ``hand_strength``; then the deal is
played with that seat as the landlord at bid 1 (it takes the bottom cards) and the rule agent in all three seats.
Printed per strength: hands, the landlord's win rate and its mean ADP per bid point (``+-2 x 2^bombs``), each with a
95% t-interval, and the bid the current thresholds give. Bidding pays where the mean ADP is above zero.

    python experiments/bidder_thresholds.py --deals 3000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def landlord_results(deals: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(strength, landlord won, landlord ADP per bid point) of every (deal, seat) hand: ``3 * deals`` rows."""
    from cardrl.agents import DouDizhuRuleAgent
    from cardrl.agents.doudizhu_bidder import hand_strength
    from cardrl.games.doudizhu import DouDizhuGame

    game, agent = DouDizhuGame(bidding=True), DouDizhuRuleAgent()
    seeds = np.random.default_rng(seed).integers(0, 2**62, size=deals, dtype=np.int64)
    rows = []
    start = time.perf_counter()
    for i, deal_seed in enumerate(seeds):
        for seat in range(3):
            game.reset(int(deal_seed))
            strength = hand_strength(game.hands[seat])
            while game.phase == "bid":  # everyone before `seat` passes, `seat` bids 1, the rest pass
                game.step(game.num_moves + (1 if game.current_player == seat else 0))
            while not game.is_over:
                game.step(agent.act(game.view(game.current_player), game.legal_moves()))
            payoff = float(game.payoffs("adp")[game.landlord])
            rows.append((strength, payoff > 0, payoff))
        if (i + 1) % 200 == 0 or i + 1 == deals:
            rate = (i + 1) / (time.perf_counter() - start)
            print(f"  {i + 1}/{deals} deals, {rate:.1f} deals/s, ETA {(deals - i - 1) / rate:.0f} s", file=sys.stderr)
    strength, won, adp = (np.array(col) for col in zip(*rows))
    return strength, won.astype(bool), adp


def _interval(x: np.ndarray) -> str:
    from cardrl.eval.stats import mean_interval

    if len(x) < 2:
        return "-"
    lo, hi = mean_interval(x.astype(np.float64))
    return f"{lo:+.3f}, {hi:+.3f}"


def table(strength: np.ndarray, won: np.ndarray, adp: np.ndarray) -> str:
    """The markdown table printed by this script (one row per strength, the tail above 16 merged)."""
    from cardrl.agents.doudizhu_bidder import THRESHOLDS

    rows = ["| strength | hands | landlord win rate | interval | landlord ADP per bid point | interval | bid |",
            "|---:|---:|---:|---|---:|---|---:|"]
    top = 16
    for s in range(0, top + 1):
        pick = strength >= s if s == top else strength == s
        if not pick.any():
            continue
        label = f">= {s}" if s == top else str(s)
        rows.append(f"| {label} | {int(pick.sum())} | {won[pick].mean():.3f} | {_interval(won[pick])} | "
                    f"{adp[pick].mean():+.3f} | {_interval(adp[pick])} | {sum(s >= t for t in THRESHOLDS)} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="seeded deals (3 hands each) (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal seeds (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be >= 1, got {args.deals}")
    strength, won, adp = landlord_results(args.deals, args.seed)
    print(f"rule agent in all seats, the hand's holder landlord at bid 1: {len(strength)} hands of {args.deals} "
          f"deals (seed {args.seed})\n")
    print(table(strength, won, adp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
