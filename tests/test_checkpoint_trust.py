"""Files from strangers (docs/operations.md, "Security"; cardrl/checkpoint_trust.py): an RLlib checkpoint this machine
did not produce is warned about before it is loaded, since loading it runs its code (a planted pickle shows the
warning comes first and is true); ``--trust-checkpoint`` and ``CARDRL_TRUST_CHECKPOINTS=1`` silence it; a checkpoint
recorded as produced here loads without it, wherever it is copied, until a byte of it changes; ``weights:`` and
``onnx:`` agents load and play with pickles planted beside them and in their place, and nothing is ever unpickled."""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from cardrl.checkpoint_trust import (TRUST_ENV, UntrustedCheckpointWarning, checkpoint_fingerprint, produced_here,
                                     record_produced, trusting)
from cardrl.eval.agents import build_agent
from helpers.pickle_payload import payload, payload_checkpoint, plant
from helpers.tiny_checkpoint import save_doudizhu_checkpoint

GAME = "doudizhu"


@pytest.fixture
def untrusting(monkeypatch, tmp_path):
    """The environment of a user: no CARDRL_TRUST_CHECKPOINTS, and a record of this machine's of its own."""
    monkeypatch.delenv(TRUST_ENV, raising=False)
    monkeypatch.setenv("CARDRL_STATE_DIR", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A tiny DMC checkpoint and its exports: {"checkpoint": dir, "weights": dir, "onnx": dir}."""
    from cardrl.algorithms.export import export_checkpoint

    root = tmp_path_factory.mktemp("strangers")
    out = {"checkpoint": save_doudizhu_checkpoint(root / "checkpoint")}
    for kind, fmt in (("weights", "safetensors"), ("onnx", "onnx")):
        out[kind] = root / kind
        export_checkpoint(out["checkpoint"], out[kind], fmt)
    return out


def _untrusted_warnings(call) -> list[str]:
    """The untrusted-checkpoint warnings ``call()`` gives, as a user sees them (Python's default: each once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, UntrustedCheckpointWarning)]


def test_a_strangers_checkpoint_is_warned_about_before_its_code_runs(untrusting, tmp_path):
    marker = tmp_path / "code_ran"
    stranger = payload_checkpoint(tmp_path / "downloaded", marker)
    with warnings.catch_warnings():  # as an error, the warning stops the load: it comes before any unpickling
        warnings.simplefilter("error", UntrustedCheckpointWarning)
        with pytest.raises(UntrustedCheckpointWarning) as caught:
            build_agent(f"checkpoint:{stranger}", GAME)
    assert not marker.exists()
    said = str(caught.value)
    assert said.startswith(f"agent spec 'checkpoint:{stranger}': {stranger} is an RLlib checkpoint (a pickle) that "
                           f"this machine did not produce") and "loading it runs any code it carries" in said
    assert "weights:DIR or onnx:DIR" in said and "--trust-checkpoint (or CARDRL_TRUST_CHECKPOINTS=1)" in said
    with pytest.warns(UntrustedCheckpointWarning), pytest.raises(ValueError, match="not a cardrl DMC one"):
        build_agent(f"checkpoint:{stranger}", GAME)
    assert marker.exists()  # and the warning was right: loading it ran its code


def test_trust_checkpoint_and_the_environment_silence_the_warning(untrusting, exported, tmp_path, monkeypatch,
                                                                  capsys):
    from cardrl.cli import main

    copy = shutil.copytree(exported["checkpoint"], tmp_path / "from_a_friend")
    command = ["eval", GAME, "--a", f"checkpoint:{copy}", "--b", "random", "--deals", "2", "--workers", "0"]
    [said] = _untrusted_warnings(lambda: main(command))
    assert said.startswith(f"agent spec 'checkpoint:{copy}'")
    assert _untrusted_warnings(lambda: main([*command, "--trust-checkpoint"])) == []
    assert "ADP" in capsys.readouterr().out  # the tournament ran with the trusted agent
    assert TRUST_ENV not in __import__("os").environ  # --trust-checkpoint held for that command only
    with trusting(True):
        assert _untrusted_warnings(lambda: build_agent(f"checkpoint:{copy}", GAME)) == []
    monkeypatch.setenv(TRUST_ENV, "1")
    assert _untrusted_warnings(lambda: build_agent(f"checkpoint:{copy}", GAME)) == []


def test_a_checkpoint_produced_here_loads_without_warning_until_it_changes(untrusting, exported, tmp_path):
    mine = shutil.copytree(exported["checkpoint"], tmp_path / "mine")
    fingerprint = record_produced(mine)
    assert produced_here(mine) and fingerprint == checkpoint_fingerprint(mine)
    moved = shutil.copytree(mine, tmp_path / "elsewhere" / "checkpoint")  # the record is of contents, not paths
    for path in (mine, moved):
        assert _untrusted_warnings(lambda: build_agent(f"checkpoint:{path}", GAME)) == []
    state = moved / "algorithm_state.pkl"
    state.write_bytes(state.read_bytes() + b"\0")  # one byte more: not what this machine wrote
    assert not produced_here(moved)
    assert len(_untrusted_warnings(lambda: build_agent(f"checkpoint:{moved}", GAME))) == 1
    # the data kinds never warn: DouZero's torch files are read with weights_only
    assert _untrusted_warnings(lambda: build_agent(f"weights:{exported['weights']}", GAME)) == []


def _play_a_deal(agent) -> int:
    from cardrl.games.registry import get_game

    engine = get_game(GAME).make_engine()
    engine.reset(7)
    while not engine.is_over:
        engine.step(agent.act(engine.view(engine.current_player), engine.legal_moves()))
    return len(engine.actions)


@pytest.mark.parametrize("kind", ["weights", "onnx"])
def test_exported_agents_never_unpickle_what_is_planted_beside_them(untrusting, exported, tmp_path, kind):
    marker = tmp_path / "code_ran"
    directory = shutil.copytree(exported[kind], tmp_path / kind)
    plant(directory, marker, names=("algorithm_state.pkl", "class_and_ctor_args.pkl", "landlord.pkl", "landlord.pt",
                                    "learner_group/learner/rl_module/landlord/module_state.pkl", "data.pkl"))
    assert _untrusted_warnings(lambda: _play_a_deal(build_agent(f"{kind}:{directory}", GAME))) == []
    assert not marker.exists()
    # a network file that is itself the pickle is refused as what it is not, unread
    network = directory / ("landlord.safetensors" if kind == "weights" else "landlord.onnx")
    network.write_bytes(payload(marker))
    with pytest.raises(ValueError, match="is not a safetensors file" if kind == "weights" else "is not an ONNX model"):
        build_agent(f"{kind}:{directory}", GAME)
    assert not marker.exists()


_AUDITED = """
import sys
found = []
def audit(event, args):  # every class a pickle names is looked up through this event, whatever unpickler reads it
    if event == "pickle.find_class":
        frame, names = sys._getframe(1), []
        while frame is not None:
            names.append(frame.f_globals.get("__name__", ""))
            frame = frame.f_back
        if not any(n.startswith("numba") for n in names):  # numba's cache of this machine's compiled kernels
            found.append(args)
sys.addaudithook(audit)
from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
agent = build_agent(sys.argv[1], "doudizhu", {})
engine = get_game("doudizhu").make_engine()
engine.reset(7)
while not engine.is_over:
    engine.step(agent.act(engine.view(engine.current_player), engine.legal_moves()))
assert not found, f"unpickled: {found}"
import os, pickle
assert not os.path.exists(sys.argv[3]), "a planted pickle ran"
print("played", len(engine.actions), "with nothing unpickled")
pickle.loads(open(sys.argv[2], "rb").read())  # the control: the hook does see a pickle loaded
assert found and os.path.exists(sys.argv[3])
print("the control was seen")
"""


@pytest.mark.slow  # a fresh interpreter importing torch: 10-30 s here
@pytest.mark.parametrize("kind", ["weights", "onnx"])
def test_exported_agents_load_and_play_with_no_unpickling_at_all(exported, tmp_path, kind):
    """In a fresh interpreter, Python's audit hook sees every class lookup of every unpickler (pickle's, torch's):
    none while a ``weights:`` or ``onnx:`` agent with pickles planted beside it loads and plays a deal; then, as the
    control, one planted pickle loaded by hand is seen."""
    marker = tmp_path / "code_ran"
    directory = shutil.copytree(exported[kind], tmp_path / kind)
    [planted, *_] = plant(directory, marker)
    done = subprocess.run([sys.executable, "-c", _AUDITED, f"{kind}:{directory}", str(planted), str(marker)],
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-2000:]
    assert "with nothing unpickled" in done.stdout and "the control was seen" in done.stdout
