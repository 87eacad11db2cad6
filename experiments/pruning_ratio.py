"""Luo & Tan (2024) Tables 6 and 7: how much ODMC's pruning rule (eq. 2) removes, by slack N/n + d.

For every card play of many deals, count the legal moves and those kept by ``K_i <= K_min + t`` for each slack t in
2..7, and print the pruning ratio ``1 - kept / legal`` beside the paper's figures. One pass over the plays serves
all rows (the paper sampled 1,000,000 plays per row). Plays come from a policy of choice (default: uniformly random
legal moves; the paper does not say which policy generated its plays); ``random-kept`` plays uniformly among the moves
that row's slack keeps (an ODMC actor before it has learned anything), one pass per row.

    python experiments/pruning_ratio.py --game doudizhu --plays 1000000
    python experiments/pruning_ratio.py --game big2 --plays 200000 --policy mcs-greedy
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

# (slack, valid actions, actions after MCS, pruning ratio %) as printed in the paper.
PAPER_TABLES = {
    "doudizhu": ("Table 6", [(2, 8_760_469, 7_206_362, 17.74), (3, 8_813_328, 7_532_752, 14.53),
                             (4, 8_758_687, 7_813_625, 10.79), (5, 8_773_557, 8_239_247, 6.09),
                             (6, 8_822_645, 8_516_499, 3.47), (7, 8_668_932, 8_655_062, 0.16)]),
    "big2": ("Table 7", [(2, 6_583_647, 5_738_965, 12.83), (3, 6_594_792, 5_941_248, 9.91),
                         (4, 6_578_073, 6_176_810, 6.10), (5, 6_569_788, 6_388_461, 2.76),
                         (6, 6_603_255, 6_564_956, 0.58), (7, 6_597_609, 6_595_629, 0.03)]),
}
SLACKS = (2, 3, 4, 5, 6, 7)


def _make_game(game: str, kickers: str):
    if game == "doudizhu":
        from cardrl.games.doudizhu import DouDizhuGame
        return DouDizhuGame(kickers=kickers)
    from cardrl.games.big2 import Big2Game
    return Big2Game()


def _make_policy(name: str, game: str, kickers: str, seed: int):
    if name == "random":
        from cardrl.agents import RandomAgent
        return RandomAgent(seed=seed)
    if name == "mcs-greedy":
        from cardrl.agents import MCSGreedyAgent
        return MCSGreedyAgent.for_game(game, {"kickers": kickers} if game == "doudizhu" else {})
    raise ValueError(f"policy {name!r} is unknown; allowed: random, mcs-greedy")


def measure(game: str = "doudizhu", plays: int = 100_000, policy: str = "random", kickers: str = "douzero",
            seed: int = 0) -> dict:
    """Legal and kept move totals per slack over ``plays`` card plays (whole deals, the last one completed)."""
    if policy == "random-kept":
        return _measure_random_kept(game, plays, kickers, seed)
    result = _measure_one_pass(game, plays, policy, kickers, seed)
    result["legal"] = [result["legal"]] * len(SLACKS)
    return result


def _measure_random_kept(game: str, plays: int, kickers: str, seed: int) -> dict:
    from cardrl.search.prune import search_for

    state = _make_game(game, kickers)
    search = search_for(state)
    rng = np.random.default_rng(seed)
    legal_rows, kept_rows, deals = [], [], 0
    start = time.perf_counter()
    for slack in SLACKS:
        legal_total = kept = done = 0
        while done < plays:
            state.reset(seed + deals)
            deals += 1
            while not state.is_over:
                legal = state.legal_moves()
                after = search.k_after(state.hand_bits(state.current_player), legal)
                keep = legal[after <= after.min() + slack]
                legal_total += len(legal)
                kept += len(keep)
                done += 1
                state.step(int(keep[rng.integers(len(keep))]))
        legal_rows.append(legal_total)
        kept_rows.append(kept)
    return {"game": game, "policy": "random-kept", "plays": plays, "deals": deals, "legal": legal_rows,
            "kept": kept_rows, "seconds": time.perf_counter() - start}


def _measure_one_pass(game: str, plays: int, policy: str, kickers: str, seed: int) -> dict:
    from cardrl.search.prune import search_for

    state = _make_game(game, kickers)
    agent = _make_policy(policy, game, kickers, seed)
    search = None
    legal_total = 0
    kept = np.zeros(len(SLACKS), dtype=np.int64)
    slacks = np.array(SLACKS)
    done = deals = 0
    start = time.perf_counter()
    while done < plays:
        state.reset(seed + deals)
        agent.reset(seed + deals)
        deals += 1
        search = search or search_for(state)
        while not state.is_over:
            legal = state.legal_moves()
            after = search.k_after(state.hand_bits(state.current_player), legal)
            excess = after - after.min()
            legal_total += len(legal)
            kept += (excess[None, :] <= slacks[:, None]).sum(axis=1)
            state.step(agent.act(state.view(state.current_player), legal))
            done += 1
    return {"game": game, "policy": policy, "plays": done, "deals": deals, "legal": legal_total,
            "kept": kept.tolist(), "seconds": time.perf_counter() - start}


def report(result: dict) -> str:
    name, rows = PAPER_TABLES[result["game"]]
    lines = [f"{result['game']}: {result['plays']:,} card plays in {result['deals']:,} deals, policy "
             f"{result['policy']}, {result['seconds']:.0f} s; legal moves per play "
             f"{result['legal'][0] / result['plays']:.2f} (paper {rows[0][1] / 1e6:.2f})",
             f"| N/n + d | legal | kept | pruning ratio | paper ({name}) | difference |",
             "|---:|---:|---:|---:|---:|---:|"]
    for (slack, _, _, paper), kept, legal in zip(rows, result["kept"], result["legal"]):
        ratio = 100.0 * (1.0 - kept / legal)
        lines.append(f"| {slack} | {legal:,} | {kept:,} | {ratio:.2f}% | {paper:.2f}% | "
                     f"{ratio - paper:+.2f} pp |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(PAPER_TABLES), default="doudizhu")
    parser.add_argument("--plays", type=int, default=100_000)
    parser.add_argument("--policy", default="random", help="random | mcs-greedy | random-kept")
    parser.add_argument("--kickers", default="douzero", help="DouDiZhu move table: douzero | distinct")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.plays < 1:
        parser.error("--plays must be >= 1")
    print(report(measure(args.game, args.plays, args.policy, args.kickers, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
