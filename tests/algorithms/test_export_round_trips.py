"""Export round trips of all three games (docs/export.md): a tiny DMC checkpoint of each (hidden size 16, trained two
iterations on a local Ray: DouZero's LSTM networks per DouDiZhu role, Luo & Tan's shared network for Big2, DanZero's
shared MLP for GuanDan) exported as fp32 ONNX, int8 ONNX and safetensors; on 1,000 seeded positions per game (decisions
with two or more legal moves from seeded games of random moves) the ``onnx:`` and ``weights:`` agents choose the
checkpoint agent's move every time. int8 may order close Q-values differently: its agreement rate is printed (with
the files' sizes, the load times and the time per move) and must stay above 0.8. About two minutes: slow."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cardrl.eval.agents import build_agent
from helpers.agreement import agreement

pytestmark = pytest.mark.slow

GAMES = {"doudizhu": {}, "big2": {}, "guandan": {"match": False}}
POSITIONS = 1000
FORMATS = {"onnx": ("onnx", False), "int8": ("onnx", True), "weights": ("safetensors", False)}


def _train(game: str, options: dict, path: Path) -> str:
    from cardrl.algorithms.dmc.dmc import DMCConfig

    config = (DMCConfig().game(game, **options)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16]).debugging(seed=3))
    algo = config.build_algo()
    try:
        for _ in range(2):
            algo.train()
        return algo.save_to_path(str(path))
    finally:
        algo.stop()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """game -> {"checkpoint": path, "onnx": dir, "int8": dir, "weights": dir}."""
    from cardrl.algorithms.export import export_checkpoint
    from helpers.local_ray import init_local_ray

    init_local_ray()
    root = tmp_path_factory.mktemp("round_trips")
    out = {}
    for game, options in GAMES.items():
        dirs = {"checkpoint": _train(game, options, root / f"{game}_checkpoint")}
        for name, (fmt, int8) in FORMATS.items():
            dirs[name] = str(root / f"{game}_{name}")
            export_checkpoint(dirs["checkpoint"], dirs[name], fmt, int8=int8)
        out[game] = dirs
    return out


@pytest.mark.parametrize("game", GAMES)
def test_exported_agents_choose_the_checkpoints_moves_on_1000_positions(exported, game):
    options, files = GAMES[game], exported[game]
    agents, loads = {}, {}
    for name, kind in (("checkpoint", "checkpoint"), ("onnx", "onnx"), ("int8", "onnx"), ("weights", "weights")):
        started = time.perf_counter()
        agents[name] = build_agent(f"{kind}:{files[name]}", game, options)
        loads[name] = time.perf_counter() - started
    rates, ms = agreement(agents, "checkpoint", game, options, POSITIONS)
    sizes = {name: sum(f.stat().st_size for f in Path(files[name]).iterdir() if f.suffix in (".onnx", ".safetensors"))
             for name in FORMATS}
    print(f"\n{game}: agreement with the checkpoint on {POSITIONS} positions: "
          + ", ".join(f"{name} {rates[name]:.3f}" for name in FORMATS)
          + "; bytes: " + ", ".join(f"{name} {size:,}" for name, size in sizes.items())
          + "; load s: " + ", ".join(f"{name} {s:.3f}" for name, s in loads.items())
          + "; ms per move: " + ", ".join(f"{name} {t:.2f}" for name, t in ms.items()))
    assert rates["onnx"] == 1.0 and rates["weights"] == 1.0
    assert rates["int8"] >= 0.8
    assert sizes["int8"] < sizes["onnx"] / 2
