"""A run on shared storage outlives its head (docs/operations.md, "Storage that a new head can read"): head A, a
``cardrl train`` process with a local Ray of its own, writes its run to a directory both heads read (here a directory
of the test; on a cluster an NFS mount) and is killed with its Ray; head B, another process with a fresh Ray, its own
working directory, temp directory and record of the checkpoints its machine produced, resumes the run with
``--resume``: counters and records go on, and it warns that the checkpoint it loads was not produced on its machine.
``--out`` given as a URI is refused before anything starts."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from cardrl.checkpoint_trust import TRUST_ENV
from helpers.ray_head import stop_own_processes

TRAIN = ["train", "doudizhu", "--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--frames-per-update", "128",
         "--hidden-sizes", "32", "32", "--model", "mlp", "--eval-every", "0", "--eval-deals", "2", "--seed", "5"]


def _head(name: str, tmp_path: Path) -> tuple[dict, Path, Path]:
    """(the environment, working directory and Ray temp directory of a head machine of its own): no RAY_ADDRESS (a
    fresh local Ray), a record of its own, no trust from the environment."""
    ray_tmp = Path(tempfile.mkdtemp(prefix=f"h{name}", dir="/tmp"))  # short: Ray's socket paths are bounded
    home = tmp_path / f"head_{name}"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", TRUST_ENV)}
    env.update({"RAY_TMPDIR": str(ray_tmp), "CARDRL_STATE_DIR": str(home / "state"), "OMP_NUM_THREADS": "1"})
    return env, home, ray_tmp


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines() if line.strip()]


def _run_head_a_until_a_checkpoint(out: Path, env: dict, home: Path) -> None:
    log = (home / "train.log").open("w")
    head = subprocess.Popen([sys.executable, "-m", "cardrl.cli", *TRAIN, "--out", str(out), "--checkpoint-every", "1s",
                             "--stop-time", "10m"], env=env, cwd=home, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.time() + 240
        while (home / "train.log").read_text().count("checkpoint written") < 2:
            assert head.poll() is None and time.time() < deadline, (home / "train.log").read_text()[-3000:]
            time.sleep(0.5)
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # the head dies: its driver and its Ray
        head.wait()
        log.close()


@pytest.mark.slow  # two heads, each starting a Ray of its own: about 1-2 minutes here
def test_a_second_head_resumes_a_run_another_wrote(tmp_path):
    from cardrl.algorithms.dmc.checkpointing import MANIFEST, verify_checkpoint
    from cardrl.run_dir import latest_checkpoint

    out = tmp_path / "shared" / "run"
    env_a, home_a, ray_a = _head("a", tmp_path)
    env_b, home_b, ray_b = _head("b", tmp_path)
    try:
        _run_head_a_until_a_checkpoint(out, env_a, home_a)
        stop_own_processes(ray_a)  # whatever of head A's Ray outlived the kill
        checkpoint = latest_checkpoint(out, verify_checkpoint)
        saved = json.loads((checkpoint / MANIFEST).read_text())["info"]
        resumed = subprocess.run([sys.executable, "-m", "cardrl.cli", "train", "doudizhu", "--out", str(out),
                                  "--resume", "--stop-frames", str(saved["frames_trained"] + 400)],
                                 env=env_b, cwd=home_b, capture_output=True, text=True, timeout=400)
    finally:
        for ray_tmp in (ray_a, ray_b):
            stop_own_processes(ray_tmp)
            shutil.rmtree(ray_tmp, ignore_errors=True)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert f"resumed from {checkpoint}: iteration {saved['training_iteration']}" in resumed.stdout
    assert "--resume: " + str(checkpoint) + " is an RLlib checkpoint (a pickle) that this machine did not produce" \
        in resumed.stderr  # head B's machine did not write it: said, and loaded (it resumes its own run)
    records = _records(out)
    iterations = [r["iteration"] for r in records if not r.get("final")]
    assert iterations == sorted(set(iterations)), iterations
    after = [r for r in records if r["iteration"] > saved["training_iteration"] and not r.get("final")]
    assert after and after[0]["iteration"] == saved["training_iteration"] + 1
    assert after[0]["frames_trained"] > saved["frames_trained"]
    assert records[-1]["final"] and records[-1]["frames_trained"] >= saved["frames_trained"] + 400
    assert (out / "checkpoint" / MANIFEST).is_file() and not (home_b / "runs").exists()  # all of it on the shared out


def test_out_as_a_uri_is_refused_before_anything_starts(capsys):
    from cardrl.cli import main

    with pytest.raises(SystemExit):
        main(["train", "doudizhu", "--out", "s3://bucket/runs/long"])
    said = capsys.readouterr().err
    assert "argument --out: 's3://bucket/runs/long' is a URI; cardrl reads and writes files on a filesystem path" in said
    with pytest.raises(SystemExit):
        main(["eval", "doudizhu", "--a", "checkpoint:gs://bucket/ckpt", "--b", "random"])
    assert "'gs://bucket/ckpt' is a URI" in capsys.readouterr().err
    from cardrl.algorithms.training.run_spec import RunSpec

    with pytest.raises(ValueError, match="out='s3://b/run' must be a non-empty filesystem path \\(not a URI\\)"):
        RunSpec.build("doudizhu", out="s3://b/run")
