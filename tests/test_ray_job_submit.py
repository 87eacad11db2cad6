"""`ray job submit` against a real `ray start --head` on loopback runs a DMC training job to its checkpoint."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ray_head(no_local_ray, tmp_path):
    """A Ray head node of its own (not the tests' embedded Ray), stopped afterwards."""
    ray_bin = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
    gcs, dashboard = _free_port(), _free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "OMP_NUM_THREADS": "1"}
    temp_dir = Path("/tmp") / f"cardrl_ray_{os.getpid()}"
    subprocess.run([ray_bin, "start", "--head", f"--port={gcs}", "--node-ip-address=127.0.0.1", "--num-cpus=2",
                    "--include-dashboard=true", "--dashboard-host=127.0.0.1", f"--dashboard-port={dashboard}",
                    f"--temp-dir={temp_dir}", "--disable-usage-stats"],
                   check=True, env=env, capture_output=True, timeout=180)
    try:
        yield ray_bin, f"http://127.0.0.1:{dashboard}", env
    finally:
        subprocess.run([ray_bin, "stop", "--force"], env=env, capture_output=True, timeout=120)


@pytest.mark.timeout(600)
def test_ray_job_submit_runs_dmc_training(ray_head, tmp_path):
    ray_bin, address, env = ray_head
    out = tmp_path / "run"
    for _ in range(60):  # the job server comes up a little after `ray start` returns
        ok = subprocess.run([ray_bin, "job", "list", "--address", address], env=env, capture_output=True)
        if ok.returncode == 0:
            break
        time.sleep(1)
    job = subprocess.run(
        [ray_bin, "job", "submit", "--address", address, "--working-dir", str(ROOT / "experiments"), "--",
         sys.executable, "dmc_doudizhu.py", "--stop-frames", "1000", "--num-env-runners", "1",
         "--num-envs-per-env-runner", "8", "--frames-per-update", "200", "--eval-every", "0", "--eval-deals", "20",
         "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=540)
    log = job.stdout + job.stderr
    assert job.returncode == 0, log[-4000:]
    assert "succeeded" in log, log[-4000:]
    assert "training DMC on doudizhu" in log and "checkpoint written" in log, log[-4000:]
    assert (out / "checkpoint" / "learner_group").is_dir()
    assert (out / "progress.jsonl").read_text().count("\n") >= 1
