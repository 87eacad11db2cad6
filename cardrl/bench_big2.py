"""Environment speed benchmark for Big2 (``cardrl bench env big2``): engine, unified features, PettingZoo env.

One call of :func:`bench_env_big2` measures, on this machine and in one process:

* random play through the bare engine (:class:`~cardrl.games.big2.Big2Game`), the engine plus Luo & Tan's
  unified features (:class:`~cardrl.features.unified.UnifiedFeatures` ``encode`` for the player to move at every
  step), and the PettingZoo env ``cardrl.envs.big2_v0`` (observation with features and action mask at every
  step); games/s and steps/s;
* the unified encoding alone, in microseconds per call, on positions sampled from random play;
* legal-move generation on leads (the player to move may play anything) of 13, 10 and 5 cards, in microseconds
  per call, on fixed random hands (DESIGN.md, layer 2).

No peer exists on PyPI for Big2 (none of douzero, rlcard or open_spiel implements it, and no Big2 package is on
PyPI), so only cardrl is measured. A step is one action of a player (passes included); every player picks
uniformly random legal moves. Rates are per CPU-second of the process, as in :mod:`cardrl.bench`.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from cardrl.bench import _machine, _rate_loop, _us_per_call, play_rate_lines, random_env_play, random_game_play
from cardrl.games.big2 import HAND_SIZE, Big2Game

__all__ = ["bench_env_big2", "format_bench_env_big2", "main_bench_env_big2", "BIG2_LEAD_SIZES", "NO_PEER"]

BIG2_LEAD_SIZES = (13, 10, 5)
NO_PEER = ("no Big2 peer exists on PyPI (douzero, rlcard and open_spiel have no Big2; no Big2 package is "
           "published): cardrl only")
_HANDS_PER_SIZE = 200
_POSITIONS = 300


def big2_lead_hands(num_cards: int, count: int = _HANDS_PER_SIZE, seed: int = 0) -> list[int]:
    """``count`` random hands of ``num_cards`` cards as 52-bit card sets."""
    if not 1 <= num_cards <= HAND_SIZE:
        raise ValueError(f"a Big2 hand has 1..{HAND_SIZE} cards, got num_cards={num_cards}")
    rng = np.random.default_rng([seed, num_cards])
    return [sum(1 << int(c) for c in rng.choice(52, num_cards, replace=False)) for _ in range(count)]


def _engine(seconds: float, features: bool) -> dict[str, Any]:
    encode = None
    if features:
        from cardrl.features.unified import UnifiedFeatures

        encode = UnifiedFeatures().encode
    return _rate_loop(random_game_play(Big2Game(), encode), seconds)


def _env(seconds: float) -> dict[str, Any]:
    from cardrl.envs import big2_v0

    return _rate_loop(random_env_play(big2_v0.env()), seconds)


def _positions(count: int, seed: int = 0) -> list[tuple[Big2Game, int]]:
    """``count`` (game, seat to move) positions from random play, spread over whole deals."""
    rng = np.random.default_rng(seed)
    out: list[tuple[Big2Game, int]] = []
    deal = 0
    while len(out) < count:
        game = Big2Game().reset(deal)
        deal += 1
        while not game.is_over and len(out) < count:
            if rng.random() < 0.3:
                out.append((game.copy(), game.current_player))
            legal = game.legal_moves()
            game.step(int(legal[rng.integers(len(legal))]))
    return out


def bench_env_big2(seconds: float = 3.0) -> dict[str, Any]:
    """Measure Big2 environment speeds (module docstring); ``seconds`` per measurement.

    Returns ``{"seconds", "machine", "ours": {"engine", "features", "env": rates, "encode_us": float,
    "movegen_us": {cards: us}, "lead_moves": {cards: mean count}}, "peers": {}, "summary": [NO_PEER]}``.
    """
    if not seconds > 0:
        raise ValueError(f"seconds must be > 0 (time spent per measurement), got {seconds!r}")
    from cardrl.features.unified import UnifiedFeatures

    encode = UnifiedFeatures().encode
    table = Big2Game().table
    hands = {n: big2_lead_hands(n) for n in BIG2_LEAD_SIZES}

    def leads(bits: int) -> np.ndarray:  # what Big2Game.legal_moves does for a leader (after the first move)
        return table.legal_moves(bits, None)

    ours: dict[str, Any] = {
        "engine": _engine(seconds, features=False),
        "features": _engine(seconds, features=True),
        "env": _env(seconds),
        "encode_us": _us_per_call(lambda p: encode(p[0], p[1]), _positions(_POSITIONS), seconds),
        "movegen_us": {n: _us_per_call(leads, h, seconds / len(hands)) for n, h in hands.items()},
        "lead_moves": {n: float(np.mean([len(leads(b)) for b in h])) for n, h in hands.items()},
    }
    return {"seconds": seconds, "machine": _machine(), "ours": ours, "peers": {}, "summary": [NO_PEER]}


def format_bench_env_big2(result: dict[str, Any]) -> str:
    """The Big2 benchmark result as a text table, ending with the no-peer line."""
    ours = result["ours"]
    lines = play_rate_lines("Big2", result, "random play", "games/s",
                            {"engine": "cardrl Big2Game, no features",
                             "features": "cardrl Big2Game + unified features",
                             "env": "cardrl big2_v0 PettingZoo env (features + mask)"}, "{:,.1f}")
    lines += ["", f"{'unified features (luo_tan_v1) encode, us/call':<50}{ours['encode_us']:>10.1f}", "",
              f"{'lead move generation, us/call (moves)':<50}"
              + "".join(f"{f'{n} cards':>16}" for n in BIG2_LEAD_SIZES)]
    cells = [f"{ours['movegen_us'][n]:,.1f} ({ours['lead_moves'][n]:,.0f})" for n in BIG2_LEAD_SIZES]
    lines.append(f"{'cardrl MoveTable.legal_moves':<50}" + "".join(f"{c:>16}" for c in cells))
    lines += ["", *result["summary"]]
    return "\n".join(lines)


def main_bench_env_big2(args: argparse.Namespace) -> int:
    """``cardrl bench env big2 [--seconds N]``: runs and prints; returns 0 (``--no-peers`` changes nothing)."""
    print(format_bench_env_big2(bench_env_big2(seconds=float(args.seconds))), flush=True)
    return 0
