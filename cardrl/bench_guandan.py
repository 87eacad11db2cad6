"""Environment speed benchmark for GuanDan (``cardrl bench env guandan``): engine, DanZero features, PettingZoo env.

One call of :func:`bench_env_guandan` measures, on this machine and in one process:

* random play of single deals (``match=False``, level 2) through the bare engine
  (:class:`~cardrl.games.guandan.GuanDanGame`), the engine plus DanZero's features
  (:class:`~cardrl.features.danzero.DanZeroFeatures` ``encode`` for the player to move at every step), and the
  PettingZoo env ``cardrl.envs.guandan_v0`` (513-dim observation and 135,179-id action mask at every step);
  deals/s and steps/s;
* the DanZero encoding alone, in microseconds per call, on positions sampled from random play;
* legal-move generation on 27-card leads (random hands at random levels, the player to move may play anything),
  mean and p99 CPU microseconds per call, and the mean legal-set size.

No GuanDan peer exists on PyPI (douzero, rlcard and open_spiel have no GuanDan; the DanZero authors' engine is a
competition server, not a package), so only cardrl is measured. A step is one action of a player (passes
included); every player picks uniformly random legal moves. Rates are per CPU-second of the process, as in
:mod:`cardrl.bench`.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from cardrl.bench import _machine, _rate_loop, _us_per_call, play_rate_lines, random_env_play, random_game_play
from cardrl.games.guandan import GuanDanGame, deal_cards
from cardrl.games.guandan_moves import legal_moves

__all__ = ["bench_env_guandan", "format_bench_env_guandan", "main_bench_env_guandan", "NO_PEER"]

NO_PEER = ("no GuanDan peer exists on PyPI (douzero, rlcard and open_spiel have no GuanDan; DanZero's engine is a "
           "competition server, not a package): cardrl only")
_LEAD_HANDS = 200
_POSITIONS = 200


def guandan_lead_hands(count: int = _LEAD_HANDS, seed: int = 0) -> list[tuple[np.ndarray, int]]:
    """``count`` random 27-card hands (54 counts) with a random level each, the same on every run."""
    rng = np.random.default_rng(seed)
    return [(deal_cards(seed, i)[0][int(rng.integers(4))], int(rng.integers(13))) for i in range(count)]


def _engine(seconds: float, features: bool) -> dict[str, Any]:
    encode = None
    if features:
        from cardrl.features.danzero import DanZeroFeatures, wild_flags

        encode = DanZeroFeatures().encode
        wild_flags(np.full(54, 1, dtype=np.int8), 0)  # compile the numba kernel outside the timed loop
    return _rate_loop(random_game_play(GuanDanGame(match=False), encode), seconds)


def _env(seconds: float) -> dict[str, Any]:
    from cardrl.envs import guandan_v0

    guandan_v0.level_table(0)  # built once per process (~1-2 s), not part of the rate
    return _rate_loop(random_env_play(guandan_v0.env(match=False)), seconds)


def _positions(count: int, seed: int = 0) -> list[tuple[GuanDanGame, int]]:
    """``count`` (game, seat to move) positions from random play, spread over whole deals."""
    rng = np.random.default_rng(seed)
    out: list[tuple[GuanDanGame, int]] = []
    deal = 0
    while len(out) < count:
        game = GuanDanGame(match=False).reset(deal)
        deal += 1
        while not game.is_over and len(out) < count:
            if rng.random() < 0.2:
                out.append((game.copy(), game.current_player))
            game.step(int(rng.integers(len(game.legal_moves()))))
    return out


def _lead_timings(hands: list[tuple[np.ndarray, int]], seconds: float) -> dict[str, float]:
    """Per-call CPU microseconds (``time.thread_time``, so that other processes on the cores do not count) of
    ``legal_moves(hand, None, level)``: mean, p99, and the mean and max legal-set sizes."""
    times: list[float] = []
    sizes: list[int] = []
    start = time.perf_counter()
    while True:
        for hand, level in hands:
            t0 = time.thread_time()
            moves = legal_moves(hand, None, level)
            times.append(time.thread_time() - t0)
            sizes.append(len(moves))
        if time.perf_counter() - start >= seconds:
            break
    us = 1e6 * np.asarray(times)
    return {"mean_us": float(us.mean()), "p99_us": float(np.percentile(us, 99)), "moves": float(np.mean(sizes)),
            "max_moves": float(np.max(sizes)), "calls": float(len(us))}


def bench_env_guandan(seconds: float = 3.0) -> dict[str, Any]:
    """Measure GuanDan environment speeds (module docstring); ``seconds`` per measurement.

    Returns ``{"seconds", "machine", "ours": {"engine", "features", "env": rates, "encode_us": float,
    "lead27": {"mean_us", "p99_us", "moves", "max_moves", "calls"}}, "peers": {}, "summary": [NO_PEER]}``.
    """
    if not seconds > 0:
        raise ValueError(f"seconds must be > 0 (time spent per measurement), got {seconds!r}")
    from cardrl.features.danzero import DanZeroFeatures

    encode = DanZeroFeatures().encode
    ours: dict[str, Any] = {
        "engine": _engine(seconds, features=False),
        "features": _engine(seconds, features=True),
        "env": _env(seconds),
        "encode_us": _us_per_call(lambda p: encode(p[0], p[1]), _positions(_POSITIONS), seconds),
        "lead27": _lead_timings(guandan_lead_hands(), seconds),
    }
    return {"seconds": seconds, "machine": _machine(), "ours": ours, "peers": {}, "summary": [NO_PEER]}


def format_bench_env_guandan(result: dict[str, Any]) -> str:
    """The GuanDan benchmark result as a text table, ending with the no-peer line."""
    ours = result["ours"]
    lines = play_rate_lines("GuanDan", result, "random play, single deals", "deals/s",
                            {"engine": "cardrl GuanDanGame, no features",
                             "features": "cardrl GuanDanGame + DanZero features",
                             "env": "cardrl guandan_v0 PettingZoo env (features + mask)"}, "{:,.2f}")
    lead = ours["lead27"]
    lines += ["", f"{'DanZero features (danzero_v1) encode, us/call':<50}{ours['encode_us']:>10.1f}", "",
              f"{'legal moves on 27-card leads (random levels)':<50}{'mean us':>10}{'p99 us':>11}{'moves':>9}",
              f"{'cardrl guandan_moves.legal_moves':<50}{lead['mean_us']:>10,.0f}{lead['p99_us']:>11,.0f}"
              f"{lead['moves']:>9,.0f}", "", *result["summary"]]
    return "\n".join(lines)


def main_bench_env_guandan(args: argparse.Namespace) -> int:
    """``cardrl bench env guandan [--seconds N]``: runs and prints; returns 0 (``--no-peers`` changes nothing)."""
    print(format_bench_env_guandan(bench_env_guandan(seconds=float(args.seconds))), flush=True)
    return 0
