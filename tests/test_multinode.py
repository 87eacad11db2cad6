"""A 3-node Ray cluster on loopback (a head from `ray start --head` and two `ray start --address` worker nodes, each
with its own temp dir and ports, 1 logical CPU each) runs, through `ray job submit`,

(a) a short DMC training run whose 3 env runners land on 3 different nodes: each runner needs a CPU and each node
    has one, so Ray's scheduler must spread them (read back from Ray's state API: every DMCEnvRunner actor's node);
    the run's checkpoint is complete and loads as an agent;
(b) a two-trial `cardrl tune` sweep (one CPU per trial: sampling in each trial's process): both trials report an
    evaluation, and the best trial's checkpoint exists and loads as an agent.

Ray's token authentication is on (its default in the Ray we pin): every node's `ray start` and the submitting client
get RAY_AUTH_MODE=token and the token file (RAY_AUTH_TOKEN_PATH); each node's Ray workers inherit both from their
raylet, so env runners on the worker nodes join the cluster with it (docs/operations.md, "Token authentication").

Only this test's processes are stopped afterwards (`ray stop` would stop every Ray on the machine)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from helpers.ray_head import list_state, start_head, start_worker, stop_own_processes, submit_job, token_env

WORKERS = 2


def _cardrl() -> str:
    return shutil.which("cardrl") or str(Path(sys.executable).with_name("cardrl"))


@pytest.fixture(scope="module")
def cluster():
    """(dashboard address, node ids, env) of a 3-node cluster of this module's own."""
    import ray

    ray.shutdown()  # the tests' embedded Ray is not needed here
    stem = f"/tmp/cardrl_mn_{os.getpid()}_{time.time_ns() % 10**6}"
    env, _ = token_env(Path(f"{stem}_token"))
    dirs = [Path(f"{stem}_head"), *(Path(f"{stem}_w{i}") for i in range(WORKERS))]
    started = time.time()
    try:
        gcs, dashboard = start_head(dirs[0], num_cpus=1, env=env)
        for d in dirs[1:]:
            start_worker(gcs, d, num_cpus=1, env=env)
        address = f"http://127.0.0.1:{dashboard}"
        nodes = []
        for _ in range(120):
            nodes = [n for n in list_state("nodes", address, env) if n["state"] == "ALIVE"]
            if len(nodes) == 1 + WORKERS:
                break
            time.sleep(1)
        assert len(nodes) == 1 + WORKERS, nodes
        print(f"3-node cluster up in {time.time() - started:.1f}s", flush=True)
        yield address, {n["node_id"] for n in nodes}, env
    finally:
        stop_own_processes(Path(stem))  # every node's processes at once: their temp dirs all start with the stem
        for d in [*dirs, Path(f"{stem}_token")]:
            shutil.rmtree(d, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_dmc_env_runners_spread_over_three_nodes(cluster, tmp_path):
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules

    address, node_ids, env = cluster
    out = tmp_path / "run"
    started = time.time()
    rc, log = submit_job(address, [_cardrl(), "train", "doudizhu", "--stop-frames", "600", "--num-env-runners", "3",
                                   "--num-envs-per-env-runner", "4", "--rollout-fragment-length", "100",
                                   "--frames-per-update", "300", "--eval-every", "0", "--eval-deals", "10",
                                   "--out", str(out)], env)
    print(f"training job: {time.time() - started:.1f}s", flush=True)
    assert rc == 0 and "succeeded" in log, log[-4000:]
    assert "3 env runner(s)" in log and "checkpoint written" in log, log[-4000:]
    runners = list_state("actors", address, env, "class_name=DMCEnvRunner")
    placed = {a["actor_id"]: a["node_id"] for a in runners}
    print(f"env runner -> node: {placed}", flush=True)
    assert len(placed) == 3 and set(placed.values()) == node_ids, placed  # one runner per node
    modules = load_checkpoint_modules(out / "checkpoint", "doudizhu")
    assert set(modules) == {"landlord", "landlord_down", "landlord_up"}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_trial_sweep_submitted_to_the_cluster(cluster, tmp_path):
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules

    address, node_ids, env = cluster
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"sweep": {"lr": {"grid": [1e-4, 1e-3]}}}))
    out = tmp_path / "sweep"
    started = time.time()
    rc, log = submit_job(address, [_cardrl(), "tune", "doudizhu", "--space", str(space), "--stop-frames", "300",
                                   "--num-env-runners", "0", "--num-envs-per-env-runner", "4",
                                   "--rollout-fragment-length", "100", "--frames-per-update", "100",
                                   "--eval-every", "0", "--eval-deals", "10", "--scheduler", "fifo",
                                   "--out", str(out)], env)
    print(f"tune job: {time.time() - started:.1f}s", flush=True)
    assert rc == 0 and "succeeded" in log, log[-4000:]
    record = json.loads((out / "results.json").read_text())
    trials = record["trials"]
    assert len(trials) == 2 and {t["lr"] for t in trials} == {1e-4, 1e-3}, trials
    assert all(t["status"] == "completed" and t["frames_trained"] >= 300 and t["adp"] is not None for t in trials)
    assert {t["node_id"] for t in trials} <= node_ids
    print(f"trial -> node: {[(t['lr'], t['node_id']) for t in trials]}", flush=True)
    best = record["best"]
    assert best["checkpoint"] and Path(best["checkpoint"]).is_dir() and "best trial" in log
    assert load_checkpoint_modules(best["checkpoint"], "doudizhu")
    assert (out / "adp_vs_swept.png").is_file() and (out / "results.csv").is_file()
