"""``cardrl bench mcs``: the cost of Minimum Combination Search and of ODMC pruning (Luo & Tan 2024, eq. 1-2).

Figures printed:

* us per ``min_combinations`` call on dealt hands (DouDiZhu: the landlord's 20 cards and a peasant's 17; Big2: 13;
  GuanDan: 27 cards at a random level, wild cards included),
  *cold* (the memo cleared before every hand, so each call searches from scratch) and *warm* (200 of the hands
  again, each solved once before the clock starts);
* us per ``prune_moves`` call over the positions of random games, the cost pruning adds to a training step, with the
  mean legal-set size and the share pruned.

Speed is measured here, never asserted in tests (the README's benchmark table quotes these figures).
"""

from __future__ import annotations

import argparse
import time
from typing import Sequence

import numpy as np

from cardrl.search.mcs import MinCombinationSearch


def _game(name: str):
    if name == "doudizhu":
        from cardrl.games.doudizhu import DouDizhuGame
        return DouDizhuGame()
    if name == "big2":
        from cardrl.games.big2 import Big2Game
        return Big2Game()
    raise ValueError(f"no MCS benchmark for game {name!r}; available: doudizhu, big2, guandan")


def time_calls(search: MinCombinationSearch, hands: list[int], cold: bool) -> float:
    """Mean microseconds per ``search.k`` over ``hands``; ``cold`` clears the memo before each hand."""
    search.k(hands[0])  # compile
    if not cold:  # warm: every hand solved once before the clock starts (few enough hands to stay in the memo)
        hands = hands[:200]
        for h in hands:
            search.k(h)
    start = time.perf_counter()
    for h in hands:
        if cold:
            search.clear_cache()
        search.k(h)
    return 1e6 * (time.perf_counter() - start) / len(hands)


def bench_mcs(game_name: str = "doudizhu", deals: int = 2000, prune_games: int = 300) -> dict:
    if game_name == "guandan":
        return bench_mcs_guandan(deals, max(1, prune_games // 10))
    from cardrl.search.prune import prune_moves, search_for

    game = _game(game_name)
    search = MinCombinationSearch(game_name, game.table, getattr(game, "kickers", None))
    seats = {"doudizhu": {"20 cards (landlord)": 0, "17 cards (peasant)": 1}, "big2": {"13 cards": 0}}[game_name]
    calls = {}
    for label, seat in seats.items():
        hands = [game.reset(seed).hand_bits(seat) for seed in range(deals)]
        calls[label] = {"cold_us": time_calls(search, hands, cold=True), "warm_us": time_calls(search, hands, False),
                        "mean_k": float(np.mean([search.k(h) for h in hands]))}
    rng = np.random.default_rng(0)
    shared = search_for(game)
    steps = legal_n = kept_n = 0
    prune_s = 0.0
    for seed in range(prune_games):
        game.reset(10_000 + seed)
        while not game.is_over:
            legal = game.legal_moves()
            t = time.perf_counter()
            kept = prune_moves(game, legal, search=shared)
            prune_s += time.perf_counter() - t
            steps += 1
            legal_n += len(legal)
            kept_n += len(kept)
            game.step(int(rng.choice(legal)))
    return {"game": game_name, "deals": deals, "calls": calls, "prune_steps": steps,
            "prune_us_per_step": 1e6 * prune_s / steps, "legal_per_step": legal_n / steps,
            "pruned_share": 1 - kept_n / legal_n}


def bench_mcs_guandan(deals: int = 2000, prune_deals: int = 30) -> dict:
    """GuanDan: K of dealt 27-card hands (level drawn per hand), and pruning over random single-deal play."""
    from cardrl.envs.guandan_v0 import raw_env
    from cardrl.games.guandan import deal_cards
    from cardrl.search.guandan_mcs import GuanDanMinCombinationSearch
    from cardrl.search.prune import prune_moves

    rng = np.random.default_rng(0)
    hands = [(deal_cards(seed, 0)[0][seed % 4], int(rng.integers(13))) for seed in range(deals)]
    search = GuanDanMinCombinationSearch()
    search.k(*hands[0])  # compile
    timing = {}
    for label, cold in (("cold_us", True), ("warm_us", False)):
        timed = hands if cold else hands[:200]  # warm: few enough hands to stay in the memo
        if not cold:
            for hand, level in timed:
                search.k(hand, level)
        start = time.perf_counter()
        for hand, level in timed:
            if cold:
                search.clear_cache()
            search.k(hand, level)
        timing[label] = 1e6 * (time.perf_counter() - start) / len(timed)
    timing["mean_k"] = float(np.mean([search.k(h, lv) for h, lv in hands]))
    env = raw_env(match=False)
    steps = legal_n = kept_n = 0
    prune_s = 0.0
    for deal in range(prune_deals):
        env.reset(seed=10_000 + deal)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = env.legal_moves()
            t = time.perf_counter()
            kept = prune_moves(env.game, legal)
            prune_s += time.perf_counter() - t
            steps += 1
            legal_n += len(legal)
            kept_n += len(kept)
            env.step(int(rng.choice(legal)))
    return {"game": "guandan", "deals": deals, "calls": {"27 cards": timing}, "prune_steps": steps,
            "prune_us_per_step": 1e6 * prune_s / steps, "legal_per_step": legal_n / steps,
            "pruned_share": 1 - kept_n / legal_n}


def format_bench_mcs(r: dict) -> str:
    lines = [f"cardrl bench mcs {r['game']}: min_combinations on {r['deals']:,} dealt hands"]
    for label, c in r["calls"].items():
        lines.append(f"  {label}: {c['cold_us']:.1f} us/call cold, {c['warm_us']:.2f} us/call warm (memoised); "
                     f"mean K {c['mean_k']:.2f}")
    lines.append(f"  prune_moves (eq. 2, paper slack): {r['prune_us_per_step']:.1f} us per step over "
                 f"{r['prune_steps']:,} steps of random games; {r['legal_per_step']:.2f} legal moves per step, "
                 f"{100 * r['pruned_share']:.2f}% pruned")
    return "\n".join(lines)


def main_bench_mcs(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    if args is None or not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="cardrl bench mcs")
        parser.add_argument("game", nargs="?", default="doudizhu")
        parser.add_argument("--deals", type=int, default=2000)
        args = parser.parse_args(args)
    deals = int(getattr(args, "deals", 2000))
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    print(format_bench_mcs(bench_mcs(args.game, deals)))
    return 0
