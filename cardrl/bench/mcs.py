"""``cardrl bench mcs GAME``: the cost of Minimum Combination Search and of ODMC pruning (Luo & Tan 2024, eq. 1-2).

For any registered game with a search (``GameSpec.search``; single deals, ``spec.protocol.deal_options``):

* CPU us per K call (``search.k_of_hand``) on dealt hands, one row per hand size of the first deal (DouDiZhu: the
  landlord's 20 cards and a peasant's 17; Big2: 13; GuanDan: 27 at the deal's level, wild cards included), *cold*
  (the memo cleared before every call, untimed, so each call searches from scratch; mean and p99) and *warm*
  (:data:`WARM_HANDS` of the hands again, each solved once before the clock starts);
* CPU us per ``prune_moves`` call over the positions of random games (eq. 2 with the paper's slack), the cost
  pruning adds to a training step, with the mean legal-set size and the share pruned.

Hands are given to the search in the cheapest form it takes: the engine's card bit set where the engine has
``hand_bits`` (move-table games), else its 54-count vector (with the deal's ``level`` where the engine has one).
Every timed call is warmed up first (numba compiles the search). Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.bench.common import (call_times_us, format_ratio, header_lines, machine_description,
                                 timer_overhead_ns, us_per_call)
from cardrl.machine_load import load_1m
from cardrl.games.registry import GameSpec, game_names, get_game

__all__ = ["bench_mcs", "format_bench_mcs", "print_bench_mcs", "search_games", "dealt_hands", "WARM_HANDS",
           "PRUNE_STEPS"]

WARM_HANDS = 200  # few enough to stay in the memo
PRUNE_STEPS = 10_000


def search_games() -> tuple[str, ...]:
    """The registered games with a Minimum Combination Search."""
    return tuple(g for g in game_names() if get_game(g).search is not None)


def _spec_with_search(game: str | GameSpec) -> GameSpec:
    spec = get_game(game)
    if spec.search is None:
        raise ValueError(f"{spec.title} has no Minimum Combination Search; games with one: "
                         f"{', '.join(search_games())}")
    return spec


def dealt_hands(spec: GameSpec | str, deals: int) -> dict[str, list[tuple[Any, int | None]]]:
    """``label -> [(hand, level)]`` for deals ``0 .. deals - 1``: per distinct hand size of the first deal, the hand
    of the first seat dealt that many cards (label ``"20 cards (landlord)"``), in the search's cheapest form."""
    spec = get_game(spec)
    engine = spec.make_engine(**spec.protocol.deal_options).reset(0)
    seats: dict[int, int] = {}
    for seat, n in enumerate(engine.cards_held().sum(axis=1).tolist()):
        seats.setdefault(int(n), seat)
    labels = {f"{n} cards ({spec.agents[seat]})": seat for n, seat in sorted(seats.items(), reverse=True)}
    bits = callable(getattr(engine, "hand_bits", None))
    out: dict[str, list[tuple[Any, int | None]]] = {label: [] for label in labels}
    for seed in range(deals):
        engine.reset(seed)
        held = None if bits else engine.cards_held()
        level = getattr(engine, "level", None)
        for label, seat in labels.items():
            out[label].append((engine.hand_bits(seat) if bits else held[seat], level))
    return out


def _time_k(search, hands: list[tuple[Any, int | None]]) -> dict[str, float]:
    k = lambda h: search.k_of_hand(h[0], h[1])  # noqa: E731
    cold = call_times_us(k, hands, None, warmup=min(len(hands), 10), before=search.clear_cache)
    warm = hands[:WARM_HANDS]
    for h in warm:  # each solved once: the warm-up, and the memo the warm calls hit
        k(h)
    return {"cold_us": float(cold.mean()), "cold_p99_us": float(np.percentile(cold, 99)),
            "warm_us": us_per_call(k, warm, 0.0, warmup=False), "mean_k": float(np.mean([k(h) for h in hands]))}


def _prune_cost(spec: GameSpec, search, steps_wanted: int, seed: int = 0) -> dict[str, Any]:
    import time

    from cardrl.search.prune import prune_moves

    engine = spec.make_engine(**spec.protocol.deal_options)
    rng = np.random.default_rng(seed)
    clock, overhead = time.thread_time_ns, timer_overhead_ns()
    steps = legal_n = kept_n = games = 0
    prune_ns = 0
    warm = True
    while warm or steps < steps_wanted:
        engine.reset(10_000 + games)
        while not engine.is_over:
            legal = engine.legal_moves()
            t0 = clock()
            kept = prune_moves(engine, legal, search=search)
            dt = clock() - t0
            if not warm:  # the first game is the untimed warm-up
                prune_ns += max(dt - overhead, 0)
                steps += 1
                legal_n += len(legal)
                kept_n += len(kept)
            engine.step(int(legal[rng.integers(len(legal))]))
        if not warm:
            games += 1
        warm = False
    return {"prune_games": games, "prune_steps": steps, "prune_us_per_step": prune_ns / 1e3 / steps,
            "legal_per_step": legal_n / steps, "pruned_share": 1 - kept_n / legal_n}


def bench_mcs(game: str, deals: int = 2000, prune_steps: int = PRUNE_STEPS) -> dict[str, Any]:
    """Measure K calls on ``deals`` dealt hands per size and pruning over random games until ``prune_steps`` steps
    (whole games, at least one). Returns ``{"game", "title", "machine", "load_before", "deals", "calls": {label:
    {"cold_us", "cold_p99_us", "warm_us", "mean_k"}}, "prune_games", "prune_steps", "prune_us_per_step",
    "legal_per_step", "pruned_share"}``."""
    spec = _spec_with_search(game)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be an int >= 1, got {deals!r}")
    if isinstance(prune_steps, bool) or not isinstance(prune_steps, int) or prune_steps < 1:
        raise ValueError(f"prune_steps must be an int >= 1, got {prune_steps!r}")
    load = load_1m()
    search = spec.make_search(spec.make_engine(**spec.protocol.deal_options).reset(0))
    calls = {label: _time_k(search, hands) for label, hands in dealt_hands(spec, deals).items()}
    return {"game": spec.name, "title": spec.title, "machine": machine_description(), "load_before": load,
            "deals": deals, "calls": calls, **_prune_cost(spec, search, prune_steps)}


def format_bench_mcs(r: dict[str, Any]) -> str:
    """The result as text, the machine first."""
    lines = header_lines(f"{r['title']} Minimum Combination Search benchmark (cardrl bench mcs {r['game']}): "
                         f"K on {r['deals']:,} dealt hands per size, after a warm-up",
                         r["machine"], r.get("load_before"), "(CPU time of the benchmark thread per call)")
    for label, c in r["calls"].items():
        lines.append(f"  {label}: {c['cold_us']:,.1f} us/call cold (p99 {c['cold_p99_us']:,.1f}), "
                     f"{c['warm_us']:.2f} us/call warm (memoised, {format_ratio(c['cold_us'] / c['warm_us'])} "
                     f"faster); mean K {c['mean_k']:.2f}")
    lines.append(f"  prune_moves (eq. 2, paper slack): {r['prune_us_per_step']:,.1f} us per step over "
                 f"{r['prune_steps']:,} steps of {r['prune_games']:,} random games; {r['legal_per_step']:.2f} legal "
                 f"moves per step, {100 * r['pruned_share']:.2f}% pruned")
    return "\n".join(lines)


def print_bench_mcs(result: dict[str, Any]) -> None:
    print(format_bench_mcs(result), flush=True)
