"""`cardrl train --deterministic`: two runs of one seed write the same progress records, but for their timing fields
(cardrl.run_dir.TIMING_FIELDS), and end with the same weights, the second one while a busy process competes for the
cores and writing checkpoints by the clock (and, marked slow, in a process of its own: another Python hash seed,
fresh torch state). What would make a run depend on the clock is refused, naming the option and what is allowed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest
import torch

from cardrl.cli import check_command_line, main
from cardrl.run_dir import TIMING_FIELDS, read_progress, without_timing

# small: DouDiZhu's three networks each updated a few times, evaluations at two frame milestones, the final one
RUN = ["train", "doudizhu", "--deterministic", "--seed", "3", "--stop-frames", "1200", "--num-env-runners", "1",
       "--num-envs-per-env-runner", "4", "--rollout-fragment-length", "100", "--frames-per-update", "100",
       "--hidden-sizes", "16", "--eval-every", "0", "--eval-every-frames", "600", "--eval-deals", "2"]


def _weights(run) -> dict:
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules

    return {agent: module.state_dict() for agent, module in load_checkpoint_modules(run / "checkpoint",
                                                                                    "doudizhu").items()}


class _BusyCore:
    """A process spinning a core while the run trains: the machine's load changes every timing."""

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


def _train_here(argv: list[str], ray, capsys) -> str:
    capsys.readouterr()
    with _BusyCore():
        assert main(argv) == 0
    return capsys.readouterr().out


def _train_elsewhere(argv: list[str], ray, capsys) -> str:
    """``cardrl train`` in a process of its own (another Python hash seed, fresh torch state) on the tests' Ray."""
    env = {"RAY_AUTH_MODE": "token",  # what the tests' local Ray turned on, unless the environment turned it off
           **os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address, "OMP_NUM_THREADS": "1",
           "PYTHONHASHSEED": "random"}
    with _BusyCore():
        done = subprocess.run([sys.executable, "-m", "cardrl.cli", *argv], env=env, capture_output=True, text=True,
                              timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("train_again", [_train_here, pytest.param(_train_elsewhere, marks=pytest.mark.slow)],
                         ids=["same_process", "own_process"])
def test_two_deterministic_runs_of_one_seed_write_the_same_records_and_weights(train_again, ray_local, tmp_path,
                                                                               capsys):
    """The second run beside a busy core, writing checkpoints by the clock; in this process, or (slow) in one of its
    own."""
    first, second = tmp_path / "first", tmp_path / "second"
    assert main([*RUN, "--out", str(first)]) == 0
    printed = train_again([*RUN, "--out", str(second), "--checkpoint-every", "0.1s"], ray_local, capsys)
    assert "deterministic: sampling and updates take turns" in printed
    assert printed.count("checkpoint written") >= 2  # checkpoints by the clock, which change nothing

    records, again = read_progress(first), read_progress(second)
    assert len(records) >= 6 and records[-1]["final"] and records[-1]["frames_trained"] >= 1200
    assert [r["eval_frames"] for r in records[:-1] if "eval_frames" in r] == [600, 1200]  # the milestones' evaluations
    updates = Counter(m for r in records[:-1] for m in r["losses"])  # the iterations that updated each network
    assert set(updates) == {"landlord", "landlord_down", "landlord_up"} and min(updates.values()) >= 2
    assert [without_timing(r) for r in records] == [without_timing(r) for r in again]
    assert [r["time_s"] for r in records] != [r["time_s"] for r in again]  # the clock did differ
    assert not any(k in without_timing(r) for r in records for k in TIMING_FIELDS)

    weights, weights_again = _weights(first), _weights(second)
    assert set(weights) == {"landlord", "landlord_down", "landlord_up"}
    for agent, state in weights.items():
        assert state.keys() == weights_again[agent].keys()
        assert all(torch.equal(state[k], weights_again[agent][k]) for k in state), agent


@pytest.mark.parametrize("flags, said", [
    ([], "without --stop-frames the run stops by the clock (after 10m): give --stop-frames N; --eval-every's "
         "default (3m) evaluates by the clock: give --eval-every 0 (and --eval-every-frames N to evaluate at frame "
         "milestones)"),
    (["--stop-time", "5m", "--eval-every", "0"], "--stop-time 300s stops by the clock: stop by frames with "
                                                 "--stop-frames N"),
    (["--stop-frames", "1000", "--eval-every", "1m"], "--eval-every 60s evaluates by the clock: give --eval-every 0"),
    (["--stop-frames", "1000", "--eval-every", "0", "--learner-threads", "2"],
     "--learner-threads 2: a deterministic learner computes with one torch thread, give --learner-threads 1"),
    (["--stop-frames", "1000", "--eval-every", "0", "--driver-sample-frames", "50"],
     "--driver-sample-frames=50 with --deterministic=True: a deterministic run samples on the env runners only"),
])
def test_what_would_depend_on_the_clock_is_refused_naming_the_option(flags, said, capsys):
    assert check_command_line(["train", "doudizhu", "--deterministic", *flags]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    if "driver-sample-frames" not in said:
        assert "--deterministic fixes the run by its seed, so it takes nothing that depends on the clock" in err


def test_what_a_deterministic_run_takes_is_accepted_and_other_algorithms_refuse_it(capsys):
    ok = ["train", "doudizhu", "--deterministic", "--stop-frames", "1000", "--eval-every", "0"]
    assert check_command_line(ok) == 0
    assert check_command_line([*ok, "--eval-every-frames", "500", "--checkpoint-every", "1m",
                               "--driver-sample-frames", "0"]) == 0
    assert check_command_line(["train", "big2", "--algo", "ppo", "--deterministic"]) == 2
    assert "--deterministic applies to --algo dmc only; --algo ppo has no deterministic mode" in capsys.readouterr().err


def test_without_timing_drops_the_timing_fields_at_every_depth():
    record = {"time_s": 31.5, "iteration": 2, "frames_per_s": 812.0, "data_age_s": 0.4, "driver_rss_mb": 900.1,
              "eval": {"random": {"adp": 0.5}}, "reached_adp_above_0": {"random": {"time_s": 30.0,
                                                                                  "frames_trained": 600}},
              "runs": [{"train_s": 1.0, "frames_trained": 5}]}
    assert without_timing(record) == {"iteration": 2, "eval": {"random": {"adp": 0.5}},
                                      "reached_adp_above_0": {"random": {"frames_trained": 600}},
                                      "runs": [{"frames_trained": 5}]}
    assert {"time_s", "train_s", "eval_time_s", "frames_per_s", "data_age_s"} <= TIMING_FIELDS
