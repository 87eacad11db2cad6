"""`cardrl tune --max-failures`: a trial whose process is killed (kill -9, as a lost node or an OOM kill would) is
restarted by Tune from its last checkpoint and finishes the sweep: frames and the trial's clock go on from the
checkpoint instead of starting over. The sweep runs as a subprocess with its own local Ray; only that Ray's trial
actor is killed (found among the subprocess's descendants), never another Ray on the machine."""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest
from helpers.sweep_process import EVAL, evals, kill_tree, lr_space, start_sweep, title, trial_actors, wait_for

RESTART = re.compile(r"^\[(\w+)\] failed \(failure 1, --max-failures 2\): restarting from its checkpoint of eval (\d+) "
                     r"\(frames ([\d,]+), ")
STOP_FRAMES = 4000


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_killed_trial_is_restarted_from_its_checkpoint(tmp_path):
    started = time.time()
    proc, out, log, _, _ = start_sweep(tmp_path, "--stop-frames", str(STOP_FRAMES), "--num-env-runners", "0",
                                       "--num-envs-per-env-runner", "4", "--rollout-fragment-length", "100",
                                       "--frames-per-update", "100", "--eval-every", "1s", "--eval-deals", "10",
                                       "--metric-against", "random", "--scheduler", "fifo")
    try:
        # Tune registers an evaluation's checkpoint after the line is printed; with num_to_keep=1 it then deletes
        # the one before. So once eval 2 is printed and checkpoint_000000 is gone, eval 2's checkpoint is the
        # trial's: a kill from then on restarts from eval 2 or later, never from the start.
        wait_for("a second evaluation", lambda: len(evals(log.read_text())) >= 2, proc, log)
        trial_dir = next((out / "tune").glob("dmc_trial_*"))
        wait_for("eval 2's checkpoint registered", lambda: (trial_dir / "checkpoint_000001").is_dir()
                 and not (trial_dir / "checkpoint_000000").exists(), proc, log)
        actors = trial_actors(proc)
        assert len(actors) == 1, [title(a) for a in actors]
        os.kill(actors[0], signal.SIGKILL)
        killed_at = time.time()
        before = evals(log.read_text())
        proc.wait(timeout=420)
        elapsed = time.time() - started
    finally:
        if proc.poll() is None:  # a failed wait: stop the sweep and its Ray, which are ours alone
            kill_tree(proc)
    text = log.read_text()
    lines = text.splitlines()
    restart_at = next((i for i, line in enumerate(lines) if RESTART.match(line)), None)
    around = [line for line in lines if EVAL.match(line) or RESTART.match(line)]
    print(f"sweep: {elapsed:.1f}s, killed the trial {killed_at - started:.1f}s in, after evals {before}\n"
          + "\n".join(around))
    assert proc.returncode == 0, text
    assert restart_at is not None, text
    restored_eval, restored_frames = (int(g.replace(",", "")) for g in RESTART.match(lines[restart_at]).groups()[1:])
    # the checkpoint Tune restored is the newest it held at the kill: eval 2's, or a later one printed before it
    assert (restored_eval, restored_frames) in before and restored_eval >= 2 and restored_frames > 0, before
    after = evals("\n".join(lines[restart_at:]))
    assert after and all(frames > restored_frames for _, frames in after), after  # resumed, not from 0
    assert [i for i, _ in after] == list(range(restored_eval + 1, restored_eval + 1 + len(after))), after
    assert after[-1][1] >= STOP_FRAMES and "| done" in next(line for line in reversed(lines) if EVAL.match(line))

    record = json.loads((out / "results.json").read_text())
    (row,) = record["trials"]
    assert row["status"] == "completed" and row["restarts"] == 1, row
    assert row["frames_trained"] == after[-1][1] and row["evaluations"] == after[-1][0], row
    assert record["max_failures"] == 2 and record["errors"] == [], record
    assert (trial_dir / "error.txt").read_text().startswith("Failure # 1")
    state = json.loads(next((out / "tune").glob("experiment_state-*.json")).read_text())
    (trial, meta), = [[json.loads(part) for part in t] for t in state["trial_data"]]
    assert trial["status"] == "TERMINATED" and meta["num_failures"] == 1 and trial["max_failures"] == 2
    # the trial's clock went on from the checkpoint: time_s of the first evaluation after the restart is past the
    # restored one's (Tune's result.json has every report, the ones lost with the killed process included)
    times = [json.loads(line)["time_s"] for line in (trial_dir / "result.json").read_text().splitlines()]
    assert times[-len(after)] > times[restored_eval - 1] and times[-len(after):] == sorted(times[-len(after):])


def test_max_failures_is_an_int_of_at_least_minus_one(tmp_path, capsys):
    from cardrl.cli import build_parser, main

    space = lr_space(tmp_path)
    assert build_parser().parse_args(["tune", "doudizhu", "--space", str(space)]).max_failures == 2
    with pytest.raises(SystemExit):  # the option's declared bound, checked as it is parsed, before Ray starts
        main(["tune", "doudizhu", "--space", str(space), "--max-failures", "-2"])
    assert "argument --max-failures: -2 is below -1; give an int >= -1 (-1: unlimited, 0: never restart)" \
        in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tune", "doudizhu", "--space", str(space), "--max-failures", "two"])
    assert "argument --max-failures: 'two' is not an int; give an int >= -1" in capsys.readouterr().err


def test_the_results_table_and_csv_count_each_trials_restarts(tmp_path):
    from cardrl.algorithms.tune.results import table, write_csv

    rows = [{"trial": f"t{n}", "lr": lr, "adp": adp, "adp_low": adp - 0.5, "adp_high": adp + 0.5,
             "frames_trained": 4000, "time_s": 9.0, "evaluations": 5, "status": "completed", "restarts": restarts,
             "checkpoint": f"/sweep/t{n}"} for n, (lr, adp, restarts) in enumerate([(1e-4, 0.2, 0), (1e-3, 0.4, 2)])]
    lines = table(rows, ["lr"], "ADP", "random").splitlines()
    assert lines[0].split()[-2:] == ["status", "restarts"]
    assert [line.split()[0] for line in lines[2:]] == ["t1", "t0"]  # best first
    assert [line.split()[-1] for line in lines[2:]] == ["2", "0"]
    write_csv(tmp_path / "results.csv", rows, ["lr"])
    header, *body = (tmp_path / "results.csv").read_text().splitlines()
    at = header.split(",").index("restarts")
    assert [line.split(",")[at] for line in body] == ["0", "2"]
