"""DMC survives failures, on a real local Ray: a dead env runner is restarted and handed the current weights, a killed
driver's run goes on with --resume, checkpoints are swapped in atomically and incomplete ones refused, and two
learners update as one (docs/operations.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.training.learners import set_learner_threads
from helpers.dmc_configs import small_dmc_config

ROLES = ("landlord", "landlord_down", "landlord_up")


small_config = partial(small_dmc_config, q_model="mlp", hidden_sizes=(32, 32))


def _runner_pids(algo) -> list[int]:
    return algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(), local_env_runner=False)


# ---- 1. a dead env runner ------------------------------------------------------------------------------------------
def test_dead_env_runner_is_restarted_with_current_weights_and_training_goes_on(ray_local):
    assert DMCConfig().restart_failed_env_runners  # on by default
    algo = small_config(num_env_runners=1).build_algo()
    try:
        result = algo.train()
        assert result["env_runner_restarts"] == 0 and result["env_runners_healthy"] == 1
        [pid] = _runner_pids(algo)
        seq_before = algo.counters.weights_seq_no
        os.kill(pid, signal.SIGKILL)  # the runner dies with a sample request in flight
        frames = [result["frames_trained"]]
        # the driver trains on while Ray restarts the runner (it samples itself while no remote sample comes); the
        # death is seen when the request in flight fails, the restart at the next iteration after Ray brought it back
        deadline = time.monotonic() + 60
        while (result["env_runner_restarts"] == 0 and time.monotonic() < deadline) or len(frames) < 3:
            result = algo.train()
            frames.append(result["frames_trained"])
        assert all(b > a for a, b in zip(frames, frames[1:])), frames
        assert result["env_runner_restarts"] == 1 and result["env_runners_healthy"] == 1
        # what was lost: the one request in flight (max_requests_in_flight_per_env_runner=1)
        assert result["env_runner_samples_lost"] == 1
        [new_pid] = _runner_pids(algo)
        assert new_pid != pid
        # the restarted runner was synced by DMC.restore_env_runners: the learner's weights (sequence number > the
        # dead runner's) and a seed of its own (seed, frames trained, restarts), not the original runner's deals
        seq, entropy = algo.env_runner_group.foreach_env_runner(
            lambda r: (r._weights_seq_no, list(r._rng.bit_generator.seed_seq.entropy)), local_env_runner=False)[0]
        assert seq >= seq_before > 0
        assert entropy[0] == 3 and entropy[2] == 1 and entropy[-1] == 1  # seed, ..., restarts, worker index
        assert result["weight_lag"] <= 2
    finally:
        algo.stop()


def test_all_runners_dead_without_restart_fails_with_a_clear_message(ray_local):
    algo = small_config(num_env_runners=1).fault_tolerance(restart_failed_env_runners=False,
                                                           ignore_env_runner_failures=True).build_algo()
    try:
        algo.train()
        [pid] = _runner_pids(algo)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60  # the death is seen when the request in flight fails (seconds, not steps)
        with pytest.raises(RuntimeError, match="restart_failed_env_runners is False"):
            while time.monotonic() < deadline:
                algo.train()
    finally:
        algo.stop()


# ---- 3. atomic checkpoints, incomplete ones refused -----------------------------------------------------------------
def test_incomplete_checkpoints_are_refused_naming_what_is_missing(ray_local, tmp_path):
    from cardrl.algorithms.dmc.checkpointing import MANIFEST
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_agent
    from cardrl.run_dir import save_checkpoint

    algo = small_config().build_algo()
    try:
        algo.train()
        run_info = {"time_s": 12.5, "reached": {"random": {"time_s": 10.0, "frames_trained": 384}}}
        algo.run_info = dict(run_info)
        path = save_checkpoint(algo, tmp_path)
        assert path == tmp_path / "checkpoint" and (path / MANIFEST).is_file()
        assert not (tmp_path / "checkpoint.tmp").exists() and not (tmp_path / "checkpoint.prev").exists()
        manifest = json.loads((path / MANIFEST).read_text())
        assert manifest["info"]["frames_trained"] == algo.frames_trained
        assert "learner_group/learner/rl_module/landlord/module_state.pkl" in manifest["files"]
        algo.train()
        save_checkpoint(algo, tmp_path)  # written over: still one complete checkpoint
        assert json.loads((path / MANIFEST).read_text())["info"]["frames_trained"] == algo.frames_trained

        module_file = "learner_group/learner/rl_module/landlord_up/module_state.pkl"
        for name, damage in (("deleted", lambda f: f.unlink()),
                             ("truncated", lambda f: f.write_bytes(f.read_bytes()[:100]))):
            broken = tmp_path / name
            save_checkpoint(algo, broken)
            damage(broken / "checkpoint" / module_file)
            word = "missing" if name == "deleted" else "truncated or changed"
            with pytest.raises(ValueError, match=f"incomplete or corrupt: {word} {module_file}"):
                algo.restore_from_path(str(broken / "checkpoint"))
            with pytest.raises(ValueError, match=f"incomplete or corrupt: {word} {module_file}"):
                load_checkpoint_agent(str(broken / "checkpoint"), "doudizhu", {}, None)
        # no completion marker and a missing file: named too
        (tmp_path / "deleted" / "checkpoint" / MANIFEST).unlink()
        with pytest.raises(ValueError, match=f"missing {module_file}"):
            algo.restore_from_path(str(tmp_path / "deleted" / "checkpoint"))
        # the complete one loads, into the algorithm and as an agent; the driver's run info comes back, and the
        # runners are reseeded from (seed, frames trained, runner index) so that the deals are not replayed
        algo.run_info = {}
        algo.restore_from_path(str(path))
        assert algo.run_info == run_info
        frames = json.loads((path / MANIFEST).read_text())["info"]["frames_trained"]
        assert list(algo.env_runner._rng.bit_generator.seed_seq.entropy) == [3, frames, 0]
        agent = load_checkpoint_agent(str(path), "doudizhu", {}, None)
        assert agent is not None
    finally:
        algo.stop()


# ---- 2. a killed driver, --resume -----------------------------------------------------------------------------------
def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines() if line.strip()]


def _train_command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "cardrl.cli", "train", "doudizhu", "--num-env-runners", "0",
            "--num-envs-per-env-runner", "8", "--frames-per-update", "128", "--hidden-sizes", "32", "32", "--model",
            "mlp", "--rollout-fragment-length", "100", "--eval-every", "0", "--eval-deals", "4",
            "--oracle", "1.0:0.0:20000", "--seed", "5", "--out", str(out), *extra]


def test_killed_driver_resumes_from_its_last_complete_checkpoint(ray_local, tmp_path):
    """Both drivers join the test's Ray (RAY_ADDRESS, as under a cluster) rather than start one each: the kill -9
    takes the first driver and its job's workers, not the Ray it ran on."""
    from cardrl.algorithms.common.checkpoint_state import read_checkpoint_state
    from cardrl.algorithms.dmc.checkpointing import MANIFEST, verify_checkpoint
    from cardrl.algorithms.dmc.counters import read_checkpoint_counters
    from cardrl.run_dir import latest_checkpoint

    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "RAY_ADDRESS": ray_local.get_runtime_context().gcs_address}
    log = (tmp_path / "first.log").open("w")
    first = subprocess.Popen(_train_command(out, "--checkpoint-every", "1s", "--stop-time", "10m"), env=env,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 150
        while time.time() < deadline:  # until two checkpoints were written (the second swapped over the first)
            if (out / "checkpoint" / MANIFEST).is_file() and len(_records(out)) >= 4 and \
                    (tmp_path / "first.log").read_text().count("checkpoint written") >= 2:
                break
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            time.sleep(0.5)
        else:
            pytest.fail("no checkpoint within 150 s: " + (tmp_path / "first.log").read_text()[-2000:])
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the driver dies at once, no clean-up
        first.wait()
        log.close()
    ckpt = latest_checkpoint(out, verify_checkpoint)  # checkpoint, or checkpoint.prev if the kill came during the swap
    assert ckpt is not None
    saved = json.loads((ckpt / MANIFEST).read_text())["info"]
    assert saved == {**read_checkpoint_counters(ckpt), "training_iteration": saved["training_iteration"]}
    run_info = read_checkpoint_state(ckpt)["dmc_run"]  # what train.py keeps for the resume: its clock, milestones
    assert run_info["time_s"] > 0 and run_info["reached"] == {}
    # a crash mid-write: a partial checkpoint.tmp (no completion marker) must not be used
    partial = out / "checkpoint.tmp"
    partial.mkdir(exist_ok=True)
    (partial / "algorithm_state.pkl").write_bytes(b"cut short")

    resumed = subprocess.run(_train_command(out, "--resume", "--checkpoint-every", "10m", "--stop-frames",
                                            str(saved["frames_trained"] + 600)),
                             env=env, capture_output=True, text=True, timeout=240)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert f"resumed from {ckpt}" in resumed.stdout
    records = _records(out)
    iterations = [r["iteration"] for r in records if not r.get("final")]
    # the records after the checkpoint (lost with the driver) were moved aside: iterations go on, none repeated
    assert iterations == sorted(iterations) and len(set(iterations)) == len(iterations), iterations
    first_resumed = next(r for r in records if r["frames_trained"] > saved["frames_trained"])
    assert first_resumed["frames_trained"] > saved["frames_trained"]
    assert first_resumed["iteration"] == saved["training_iteration"] + 1
    assert first_resumed["time_s"] >= run_info["time_s"]  # the clock goes on
    assert first_resumed["time_s"] >= max(r["time_s"] for r in records if r["iteration"] < first_resumed["iteration"])
    assert first_resumed["episodes"] > saved["episodes"]
    # the oracle schedule goes on from the frames trained: 1 - frames / 20000
    lam = first_resumed["oracle_lambda"]
    assert lam < 1.0 - saved["frames_trained"] / 20000 + 1e-9
    assert lam == pytest.approx(1.0 - first_resumed["frames_trained"] / 20000, abs=1e-6)
    assert records[-1]["final"] and records[-1]["frames_trained"] >= saved["frames_trained"] + 600
    assert not (out / "checkpoint.tmp").exists()  # the partial one was cleared by the next write


def test_resume_options_are_checked(tmp_path, capsys):
    from cardrl.cli import main

    rc = main(["train", "doudizhu", "--resume", "--restore", str(tmp_path), "--out", str(tmp_path)])
    assert rc == 2
    assert "--resume continues the run in --out from its latest checkpoint, --restore starts a run from the " \
           "checkpoint it names: give one of them, not both" in capsys.readouterr().err
    assert main(["train", "doudizhu", "--algo", "ppo", "--resume", "--out", str(tmp_path)]) == 2
    assert ("--resume applies to --algo dmc/topk-ppo only; --algo ppo starts from a checkpoint"
            in capsys.readouterr().err)


def test_resume_without_checkpoint_starts_fresh_and_refuses_another_network(ray_local, tmp_path, capsys):
    from cardrl.cli import main

    out = tmp_path / "run"
    common = ["train", "doudizhu", "--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--frames-per-update",
              "128", "--hidden-sizes", "32", "32", "--stop-frames", "300", "--eval-every", "0", "--eval-deals", "2",
              "--out", str(out), "--resume"]
    assert main([*common, "--model", "mlp"]) == 0
    printed = capsys.readouterr().out
    assert "has no complete checkpoint; starting a fresh run" in printed
    assert (out / "checkpoint").is_dir()
    assert main([*common, "--model", "douzero_lstm"]) == 2
    # the run's config.json says what it was trained with, before its checkpoint is read
    assert "was trained with q_model='mlp', not q_model='douzero_lstm'" in capsys.readouterr().err


# ---- 4. several learners --------------------------------------------------------------------------------------------
def _batch(algo):
    """One batch of every Q-module, as DMC.training_step builds it."""
    from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch

    while not all(len(algo._buffers[m]) >= algo._batch_sizes[m] for m in ROLES):
        for result in algo._collect():
            algo._ingest(result)
    taken = {m: algo._buffers[m].take(algo._batch_sizes[m], algo.counters.weights_seq_no) for m in ROLES}
    return MultiAgentBatch({m: SampleBatch(t.columns) for m, t in taken.items()},
                           env_steps=sum(algo._batch_sizes.values()))


def _weights(algo) -> dict[str, np.ndarray]:
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    state = algo.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                         inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
    return {f"{m}.{k}": np.asarray(v) for m, s in state.items() for k, v in s.items()}


def test_two_learners_update_as_one(ray_local):
    """RLlib gives each of 2 learners half of every module's rows and averages their gradients (torch DDP): with
    equal halves that is the gradient of the whole batch's mean loss, so the update is one learner's."""
    from ray.rllib.core import COMPONENT_LEARNER

    one = small_config().build_algo()
    two = small_config().learners(num_learners=2).build_algo()
    try:
        assert set_learner_threads(two, 1) == [1, 1]  # --learner-threads reaches each learner actor
        batch = _batch(one)
        state = one.learner_group.get_state(components=COMPONENT_LEARNER)
        two.learner_group.set_state(state)  # same weights and optimizer state
        start = _weights(two)
        for key, value in _weights(one).items():
            np.testing.assert_array_equal(start[key], value)
        for _ in range(2):  # two RMSprop steps on the same batch
            one.learner_group.update(batch=batch)
            two.learner_group.update(batch=batch)
        after_one, after_two = _weights(one), _weights(two)
        moved = max(float(np.abs(after_one[k] - start[k]).max()) for k in start)
        assert moved > 1e-4  # the update did something
        for key in after_one:
            np.testing.assert_allclose(after_two[key], after_one[key], rtol=0, atol=1e-6, err_msg=key)
        # the control: one learner on half the batch (what a learner without the all-reduce would do) lands elsewhere
        from ray.rllib.utils.minibatch_utils import ShardBatchIterator

        one.learner_group.set_state(state)
        half = next(iter(ShardBatchIterator(batch, num_shards=2)))
        for _ in range(2):
            one.learner_group.update(batch=half)
        after_half = _weights(one)
        assert max(float(np.abs(after_half[k] - after_two[k]).max()) for k in start) > 1e-4
        # and training runs end to end with 2 learners
        result = two.train()
        assert all(np.isfinite(result["learners"][m]["q_loss"]) for m in ROLES)
    finally:
        one.stop()
        two.stop()
    with pytest.raises(ValueError, match="frames_per_update=129 must be a multiple of num_learners=2"):
        small_config().training(frames_per_update=129).learners(num_learners=2).validate()
