"""experiments/parity_douzero.py resumes DouZero's own trainer (the ``douzero`` package, a real run) after the run
was killed with its trainer: it goes on from the trainer's model.tar instead of frame 0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments import douzero_trainer as trainer
from experiments import parity_douzero as parity

pytestmark = pytest.mark.slow


def test_a_killed_douzero_run_resumes_from_its_model_tar(tmp_path):
    cmd = [sys.executable, parity.__file__, "train", "--trainer", "douzero", "--seeds", "1", "--frames", "40000",
           "--checkpoints", "20000", "40000", "--out", str(tmp_path)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    root = parity.run_dir(tmp_path, "douzero", 1)
    weights = root / "trainer" / "parity"
    first = subprocess.Popen(cmd, env=env, start_new_session=True)
    deadline = time.time() + 600
    while not [f for f in trainer.saved_frames(weights) if f >= 20_000] and time.time() < deadline:
        assert first.poll() is None, "the parity run stopped before its first checkpoint"
        time.sleep(1)
    time.sleep(2)
    first_checkpoint = min(f for f in trainer.saved_frames(weights) if f >= 20_000)
    os.killpg(first.pid, signal.SIGKILL)  # the parity run dies; DouZero's trainer, in its own group, lives on
    first.wait()
    assert not (root / "20000" / "reached.json").exists()

    second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "stopping DouZero's trainer left running by an earlier attempt" in second.stdout
    resumed = int(second.stdout.split("model.tar at ")[1].split(" frames")[0].replace(",", ""))
    assert resumed >= first_checkpoint  # not from frame 0
    reached = [json.loads((root / str(c) / "reached.json").read_text()) for c in (20_000, 40_000)]
    assert reached[0]["frames"] == first_checkpoint and reached[1]["frames"] >= 40_000
    assert 0 < reached[0]["seconds"] < reached[1]["seconds"]
    assert "Resuming preempted job" in (root / "trainer.log").read_text()
    cmdline = Path(f"/proc/{(root / 'trainer.pid').read_text()}/cmdline")
    assert not cmdline.exists() or trainer.CHILD not in cmdline.read_bytes()  # the resumed trainer was stopped
