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

(c) first, on a 3-node cluster of its own (`cardrl bench chaos --nodes 3`: a head of 0 CPUs, two worker nodes of 1 CPU,
    the driver joining the head): a DMC run with 2 env runners, one per worker node, whose worker node running a
    runner is killed whole (raylet, agents, workers) mid-run; frames rise again on the other runner, a new worker node
    joins, RLlib restarts the lost runner there (restart_failed_env_runners, DMC's default) and the run ends with a
    final complete checkpoint. It runs before (a) and (b), so that their module's cluster is not up beside its own.

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
@pytest.mark.timeout(900)
def test_a_killed_worker_node_is_survived_and_its_runner_restarted_on_a_new_node(tmp_path):
    from cardrl.bench.chaos_run import MARKER, checkpoint_frames
    from cardrl.bench.cli import main_bench
    from cardrl.bench.local_cluster import node_processes

    frames = 80_000
    started = time.time()
    code = main_bench(["chaos", "doudizhu", "--nodes", "3", "--num-env-runners", "2", "--frames", str(frames),
                       "--duration", "10m", "--kill-node-at", "10s", "--add-node-after", "5s", "--checkpoint-every",
                       "10s", "--eval-deals", "10", "--against", "random", "--stall-bound", "4m", "--out",
                       str(tmp_path)])
    report = json.loads((tmp_path / "chaos.json").read_text())
    print(f"chaos run on a 3-node cluster: {time.time() - started:.1f}s\n{(tmp_path / 'chaos.md').read_text()}")
    assert code == 0 and report["passed"], report["failures"]
    (node,) = report["chaos"]["faults"]
    assert node["kind"] == "node" and {"raylet", "env_runner"} <= set(node["killed"]), node
    assert node["recover_s"] is not None and node["frames_lost"] == 0, node  # frames rose on; none went back
    assert node["node_added_s"] is not None and node.get("node_added"), node
    assert node["runner_back_s"] is not None and node["runner_back_s"] > node["node_added_s"], node
    chaos = report["chaos"]
    assert chaos["restarts"] >= 1 and chaos["frames"] >= frames, chaos
    path, saved = checkpoint_frames(tmp_path / "chaos")
    assert path is not None and (path / MARKER).is_file() and saved == chaos["frames"], (path, saved)
    assert "| 1 | node |" in (tmp_path / "chaos.md").read_text()
    cluster_dir = Path(chaos["cluster_dir"])  # stopped afterwards, every node's processes and files
    assert not node_processes(cluster_dir) and not cluster_dir.exists()


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
