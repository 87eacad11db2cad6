"""`ray job submit` against a real `ray start --head` on loopback, with Ray's token authentication on (the head reads
its token from the file RAY_AUTH_TOKEN_PATH names, the submitting client from RAY_AUTH_TOKEN), runs a DMC training
job to its checkpoint; the job's driver joins the cluster (RAY_ADDRESS, set by Ray) and says so. A client without the
token is refused."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.ray_head import ray_bin as find_ray_bin
from helpers.ray_head import start_head, stop_own_processes, token_env

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def ray_head(no_local_ray, tmp_path):
    """A Ray head node of its own with token authentication (not the tests' embedded Ray), stopped afterwards (its
    processes only); yields (ray CLI, dashboard address, the submitting client's environment, its environment
    without the token)."""
    env, token = token_env(tmp_path / "head")
    client = {**{k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN_PATH"}, "RAY_AUTH_TOKEN": token}
    no_token = {k: v for k, v in client.items() if not k.startswith("RAY_AUTH")}
    temp_dir = Path("/tmp") / f"cardrl_ray_{os.getpid()}_{time.time_ns() % 10**6}"
    try:
        _, dashboard = start_head(temp_dir, env=env)
        yield find_ray_bin(), f"http://127.0.0.1:{dashboard}", client, no_token
    finally:
        stop_own_processes(temp_dir)


@pytest.mark.slow  # a Ray head of its own and a job's DMC run: 1.5 minutes of the default suite's 15
@pytest.mark.timeout(600)
def test_ray_job_submit_runs_dmc_training(ray_head, tmp_path):
    ray_bin, address, env, no_token = ray_head
    out = tmp_path / "run"
    for _ in range(60):  # the job server comes up a little after `ray start` returns
        ok = subprocess.run([ray_bin, "job", "list", "--address", address], env=env, capture_output=True)
        if ok.returncode == 0:
            break
        time.sleep(1)
    refused = subprocess.run([ray_bin, "job", "list", "--address", address], env=no_token, capture_output=True,
                             text=True)
    assert refused.returncode != 0 and "authentication" in (refused.stdout + refused.stderr).lower(), refused
    for _ in range(30):  # the head's job agent may come up later still: Ray answers "No available agent"
        job = subprocess.run(
            [ray_bin, "job", "submit", "--address", address, "--working-dir", str(ROOT / "experiments"), "--",
             sys.executable, "-m", "cardrl.cli", "train", "--preset", "dmc_doudizhu", "--stop-frames", "1000", "--num-env-runners", "1",
             "--num-envs-per-env-runner", "8", "--frames-per-update", "200", "--eval-every", "0", "--eval-deals",
             "20", "--out", str(out)],
            env=env, capture_output=True, text=True, timeout=540)
        log = job.stdout + job.stderr
        if "No available agent" not in log:
            break
        time.sleep(2)
    assert job.returncode == 0, log[-4000:]
    assert "succeeded" in log, log[-4000:]
    assert "training DMC on doudizhu" in log and "checkpoint written" in log, log[-4000:]
    assert "Ray: joined the cluster at" in log and f"dashboard {address}" in log, log[-4000:]
    assert (out / "checkpoint" / "learner_group").is_dir()
    assert (out / "progress.jsonl").read_text().count("\n") >= 1
