"""``cardrl export`` (docs/export.md) on a tiny DouDiZhu DMC checkpoint (DouZero's three networks, hidden size 32,
seeded): the ``onnx:`` and ``weights:`` agents choose the checkpoint agent's moves on seeded positions (int8: most of
them); the agent file names what an agent needs; a ``weights:`` agent loads with no pickle and no Ray, an ``onnx:``
agent without torch; the command's one-line errors. The 1,000-position round trips of all three games with trained
networks: test_export_round_trips.py (slow)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
from helpers.agreement import agreement
from helpers.no_pickle import GUARD, NO_RAY
from helpers.tiny_checkpoint import save_doudizhu_checkpoint

GAME = "doudizhu"
FORMATS = {"onnx": ("onnx", False), "int8": ("onnx", True), "weights": ("safetensors", False)}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{"checkpoint": path, "onnx": dir, "int8": dir, "weights": dir} of the tiny checkpoint."""
    from cardrl.algorithms.export import export_checkpoint

    root = tmp_path_factory.mktemp("export")
    out = {"checkpoint": str(save_doudizhu_checkpoint(root / "checkpoint"))}
    for name, (fmt, int8) in FORMATS.items():
        out[name] = str(root / name)
        export_checkpoint(out["checkpoint"], out[name], fmt, int8=int8)
    return out


def test_exported_agents_choose_the_checkpoints_moves(exported):
    agents = {"checkpoint": build_agent(f"checkpoint:{exported['checkpoint']}", GAME),
              "onnx": build_agent(f"onnx:{exported['onnx']}", GAME),
              "int8": build_agent(f"onnx:{exported['int8']}", GAME),
              "weights": build_agent(f"weights:{exported['weights']}", GAME)}
    rates, _ = agreement(agents, "checkpoint", GAME, {}, 200)
    assert rates["onnx"] == 1.0 and rates["weights"] == 1.0
    assert rates["int8"] >= 0.8, rates


def test_the_agent_file_names_what_the_agent_needs(exported):
    record = json.loads((Path(exported["weights"]) / "cardrl_agent.json").read_text())
    spec = get_game(GAME)
    assert record["game"] == GAME and record["format"] == "safetensors" and record["format_version"] == 1
    assert record["modules"] == {agent: agent for agent in spec.agents} and set(record["networks"]) == set(spec.agents)
    assert record["feature_layout"]["encoder"] == spec.make_features(record["features"]).name
    assert record["num_actions"] == spec.make_engine().num_actions and record["cardrl_version"]
    assert record["rule_options"] == json.loads(json.dumps(spec.full_options({}), default=str))
    assert {net["kind"] for net in record["networks"].values()} == {"douzero_lstm"}
    assert all(net["check_max_abs_diff"] == 0.0 for net in record["networks"].values())  # same parameters, arithmetic
    onnx = json.loads((Path(exported["int8"]) / "cardrl_agent.json").read_text())
    assert onnx["precision"] == "int8" and onnx["networks"]["landlord"]["file"] == "landlord.int8.onnx"
    sizes = {name: sum(f.stat().st_size for f in Path(exported[name]).glob("*.onnx")) for name in ("onnx", "int8")}
    assert sizes["int8"] < sizes["onnx"] / 2


_NO_PICKLE = GUARD + """
import numpy as np
from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
game, spec = sys.argv[1], sys.argv[2]
agent = build_agent(spec, game, {})
engine = get_game(game).make_engine()
engine.reset(7)
while not engine.is_over:
    engine.step(agent.act(engine.view(engine.current_player), engine.legal_moves()))
""" + NO_RAY + """print("played", len(engine.actions))
"""


def test_a_weights_agent_loads_and_plays_with_no_pickle_and_no_ray(exported):
    """The ``weights:`` agent reads JSON and safetensors only: with pickle and torch.load made to fail (but for numba's
    cache of this machine's compiled kernels), in a fresh interpreter, it loads and plays a deal, and Ray is never
    imported."""
    done = subprocess.run([sys.executable, "-c", _NO_PICKLE, GAME, f"weights:{exported['weights']}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("played")


def test_an_onnx_agent_plays_without_torch_or_ray(exported):
    code = _NO_PICKLE.replace("import torch\ntorch.load = guard(torch.load)\n", "") + \
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    done = subprocess.run([sys.executable, "-c", code, GAME, f"onnx:{exported['onnx']}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_export_command_line(exported, tmp_path, capsys):
    from cardrl.cli import main

    checkpoint = exported["checkpoint"]
    out = tmp_path / "export"
    assert main(["export", checkpoint, "--format", "onnx", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "doudizhu 3 network(s) as float32 onnx" in said and "onnx:" in said
    cases = [  # (arguments, what the one-line error says)
        ([checkpoint, "--format", "onnx", "--out", str(out)], "is not empty"),
        ([checkpoint, "--format", "safetensors", "--int8", "--out", str(tmp_path / "x")], "--int8 applies to"),
        ([str(tmp_path / "missing"), "--format", "onnx", "--out", str(tmp_path / "y")], "does not exist"),
        ([exported["onnx"], "--format", "onnx", "--out", str(tmp_path / "z")], "not an algorithm checkpoint"),
        ([checkpoint, "--format", "onnx", "--out", str(Path(checkpoint) / "inside")], "inside the checkpoint"),
    ]
    for args, message in cases:
        assert main(["export", *args]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert main(["export", checkpoint, "--format", "onnx", "--out", str(out), "--force"]) == 0
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "algorithm_state.pkl").write_bytes(b"not a pickle")
    assert main(["export", str(corrupt), "--format", "onnx", "--out", str(tmp_path / "w")]) == 2
    assert "corrupt" in capsys.readouterr().err


def test_exported_specs_refuse_what_does_not_fit(exported, tmp_path):
    onnx_dir, weights_dir = exported["onnx"], exported["weights"]
    with pytest.raises(ValueError, match="holds 'onnx' files: load it as onnx:"):
        build_agent(f"weights:{onnx_dir}", GAME)
    with pytest.raises(ValueError, match="plays 'doudizhu', not 'big2'"):
        build_agent(f"onnx:{onnx_dir}", "big2")
    with pytest.raises(ValueError, match="was exported for 27472 actions"):
        build_agent(f"onnx:{onnx_dir}", GAME, {"kickers": "distinct"})
    with pytest.raises(FileNotFoundError, match="no cardrl_agent.json"):
        build_agent(f"onnx:{tmp_path}", GAME)
    broken = tmp_path / "broken"
    broken.mkdir()
    for file in Path(weights_dir).iterdir():
        (broken / file.name).write_bytes(file.read_bytes()[:100] if file.suffix == ".safetensors" else file.read_bytes())
    with pytest.raises(ValueError, match="is not a safetensors file"):
        build_agent(f"weights:{broken}", GAME)
    record = json.loads((Path(weights_dir) / "cardrl_agent.json").read_text())
    record["networks"]["landlord"]["hidden_sizes"] = [64]
    other = tmp_path / "other"
    other.mkdir()
    for file in Path(weights_dir).iterdir():
        (other / file.name).write_bytes(file.read_bytes())
    (other / "cardrl_agent.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match="do not fit the douzero_lstm network"):
        build_agent(f"weights:{other}", GAME)


def test_an_onnx_agent_goes_to_ray_workers_and_plays_as_in_this_process(exported, ray_local):
    """``cardrl eval --workers N`` sends the agent to Ray tasks: an onnxruntime session cannot be pickled, so the
    network travels as its model's bytes and builds its session there; the tournament's result does not depend on
    where it was played."""
    import pickle

    from cardrl.eval.tournament import run_tournament

    agent = build_agent(f"onnx:{exported['int8']}", GAME)
    copy = pickle.loads(pickle.dumps(agent))
    game = get_game(GAME).engine_class().reset(4)
    view, legal = game.view(game.current_player), game.legal_moves()
    assert copy.act(view, legal) == agent.act(view, legal)
    here = run_tournament(agent, "random", 6, GAME, seed=2, num_workers=0)
    there = run_tournament(agent, "random", 6, GAME, seed=2, num_workers=1, chunk_size=3)
    assert there.scores.tolist() == here.scores.tolist()
