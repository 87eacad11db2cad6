"""`cardrl tune --resume`: a sweep whose driver died (its process group killed, as a crashed head node or a killed job
would leave it) is continued by the same command with ``--resume``: Tune restores the sweep from ``<out>/tune``, the
unfinished trial goes on from its last persisted checkpoint (frames and evaluation numbers count on), and
results.json covers every trial. A ``--resume`` whose space or options differ from the sweep's is refused before Ray
starts. The sweep runs as a subprocess with its own local Ray; only its own processes are killed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers.sweep_process import EVAL, descendants, evals, kill_tree, lr_space, start_sweep, title, wait_for

from cardrl.algorithms.tune.resume import SWEEP_RECORD, check_resume, sweep_record
from cardrl.algorithms.tune.space import load_space
from cardrl.cli import build_parser, main, parse_args, tune_sweep

STOP_FRAMES = 4000
OPTIONS = ("--stop-frames", str(STOP_FRAMES), "--num-env-runners", "0", "--num-envs-per-env-runner", "4",
           "--rollout-fragment-length", "100", "--frames-per-update", "100", "--eval-every", "2s", "--eval-deals",
           "10", "--metric-against", "random", "--scheduler", "fifo", "--resume")
CONTINUING = re.compile(r"^--resume: continuing the sweep in (\S+) \(1 trial\(s\): 1 to continue\)$", re.M)


def _persisted_checkpoint(experiment: Path) -> tuple[int, int, str] | None:
    """(eval, frames, path) of the trial's latest checkpoint in Tune's saved experiment state, the one a restore
    starts from; None before Tune has saved one."""
    import ray.cloudpickle

    states = sorted(experiment.glob("experiment_state-*.json"), key=lambda p: p.stat().st_mtime)
    if not states:
        return None
    try:
        (trial, meta), = [[json.loads(part) for part in t] for t in json.loads(states[-1].read_text())["trial_data"]]
    except (ValueError, KeyError):  # caught mid-write
        return None
    manager = ray.cloudpickle.loads(bytes.fromhex(meta["checkpoint_manager"]["value"]))
    if not manager.best_checkpoint_results:
        return None
    latest = manager.latest_checkpoint_result
    return (int(latest.metrics["training_iteration"]), int(latest.metrics["frames_trained"]),
            latest.checkpoint.path)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_sweep_whose_driver_died_is_resumed_from_its_checkpoints(tmp_path):
    started = time.time()
    # --resume from the first run on, as a job script that is simply run again would give it; a session of its own:
    # the kill takes the driver's process group, no one else's
    proc, out, log, cmd, env = start_sweep(tmp_path, *OPTIONS, new_session=True)
    try:
        wait_for("a second evaluation", lambda: len(evals(log.read_text())) >= 2, proc, log)
        wait_for("a persisted checkpoint of eval 2 or later", lambda: (_persisted_checkpoint(out / "tune") or (0,))[0]
                 >= 2, proc, log)
        ours = descendants(proc.pid)  # Ray's processes outlive the driver; collect them while it lives
        os.killpg(proc.pid, signal.SIGKILL)
        killed_at = time.time() - started
    finally:
        kill_tree(proc, ours if "ours" in locals() else None)
    deadline = time.time() + 30
    while any(title(pid) for pid in ours) and time.time() < deadline:  # a zombie's title is "" too
        time.sleep(0.1)
    assert not [title(pid) for pid in ours if title(pid)], "processes of the killed sweep outlived it"
    first = log.read_text()
    before = evals(first)
    assert "--resume: " + str(out / "tune") + " has no sweep to continue; starting a fresh sweep" in first, first
    restored_eval, restored_frames, restored_path = _persisted_checkpoint(out / "tune")
    assert Path(restored_path).is_dir() and (restored_eval, restored_frames) in before, (restored_path, before)
    assert not (out / "results.json").exists()

    resumed_at = time.time()
    again = subprocess.run(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=420, start_new_session=True)
    finished_at = time.time()
    text = again.stdout
    print(f"first run: killed {killed_at:.1f}s in, after evals {before} (persisted: eval {restored_eval}, frames "
          f"{restored_frames}); resumed run: {finished_at - resumed_at:.1f}s; total {finished_at - started:.1f}s\n"
          + text)
    assert again.returncode == 0, text
    assert CONTINUING.search(text) and CONTINUING.search(text)[1] == str(out / "tune"), text
    after = evals(text)
    # the trial went on from the checkpoint Tune had persisted: evaluation numbers and frames count on from there
    assert after and all(frames > restored_frames for _, frames in after), (restored_frames, after)
    assert [i for i, _ in after] == list(range(restored_eval + 1, restored_eval + 1 + len(after))), after
    assert after[-1][1] >= STOP_FRAMES and "| done" in [line for line in text.splitlines() if EVAL.match(line)][-1]

    record = json.loads((out / "results.json").read_text())
    (row,) = record["trials"]
    assert row["status"] == "completed" and row["frames_trained"] == after[-1][1], row
    assert row["evaluations"] == after[-1][0] and Path(row["checkpoint"]).is_dir(), row
    assert record["resumed"] is True and record["errors"] == [] and record["best"]["trial"] == row["trial"]
    assert record["command"].startswith("cardrl tune doudizhu --space ") and " --resume " in record["command"]
    assert (out / "results.csv").read_text().count("\n") == 2 and (out / "adp_vs_swept.png").stat().st_size > 1000
    # Tune's record of the trial holds the reports of both runs, the clock counting on across the restore
    trial_dir = Path(row["checkpoint"]).parent
    reports = [json.loads(line) for line in (trial_dir / "result.json").read_text().splitlines()]
    times = [r["time_s"] for r in reports if r["training_iteration"] > restored_eval]
    restored_time = next(r["time_s"] for r in reports if r["training_iteration"] == restored_eval)
    assert times and times[0] > restored_time and times == sorted(times), (restored_time, times)


# ---- refusals, before Ray starts ---------------------------------------------------------------------------------
def _started_sweep(tmp_path: Path, sweep: dict, *options: str) -> tuple[Path, list[str]]:
    """A sweep directory as a driver that died leaves it (Tune's state files; their content is not read before the
    check) with the record of the command ``cardrl tune doudizhu --space S --out DIR *options``."""
    space = lr_space(tmp_path, sweep)
    out = tmp_path / "sweep"
    argv = ["tune", "doudizhu", "--space", str(space), "--out", str(out), *options]
    sweep = tune_sweep(parse_args(argv))
    (out / "tune").mkdir(parents=True)
    (out / "tune" / "tuner.pkl").write_bytes(b"")
    (out / "tune" / "experiment_state-2026-01-01_00-00-00.json").write_text("{}")
    (out / SWEEP_RECORD).write_text(json.dumps(sweep_record(sweep, load_space(space))))
    return space, argv


def test_resume_refuses_another_space(tmp_path, capsys):
    space, argv = _started_sweep(tmp_path, {"lr": {"grid": [1e-4, 1e-3]}})
    space.write_text(json.dumps({"sweep": {"lr": {"grid": [1e-4, 3e-4]}}}))
    assert main([*argv, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"--resume: --space {space} is not the space the sweep in {tmp_path / 'sweep'} was started with" in err
    assert 'sweep {"lr": ["grid", [0.0001, 0.0003]]} (was {"lr": ["grid", [0.0001, 0.001]]})' in err, err


def test_resume_refuses_other_options_naming_them(tmp_path, capsys):
    _, argv = _started_sweep(tmp_path, {"lr": {"grid": [1e-4]}}, "--stop-frames", "4000")
    assert main([*argv[:-2], "--stop-frames", "5000", "--scheduler", "fifo", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "--resume continues the sweep in" in err and "with the options it was started with (cardrl tune " in err
    assert "these differ: --scheduler fifo (was asha), --stop-frames 5000 (was 4000)" in err, err


def test_resume_refuses_a_sweep_without_its_record(tmp_path, capsys):
    _, argv = _started_sweep(tmp_path, {"lr": {"grid": [1e-4]}})
    (tmp_path / "sweep" / SWEEP_RECORD).unlink()
    assert main([*argv, "--resume"]) == 2
    assert "is missing, so this command can not be checked against it" in capsys.readouterr().err


def test_resume_accepts_the_same_space_under_another_path(tmp_path):
    space, argv = _started_sweep(tmp_path, {"lr": {"grid": [1e-4]}})
    moved = tmp_path / "moved.json"
    moved.write_text(space.read_text())
    argv[argv.index(str(space))] = str(moved)
    sweep = tune_sweep(parse_args([*argv, "--resume", "--verbose"]))
    record = check_resume(tmp_path / "sweep", sweep_record(sweep, load_space(moved)))
    assert record["space"] == str(space)


def test_a_sweep_takes_no_restore(tmp_path, capsys):
    """``--restore`` (start from a named checkpoint) is not a ``cardrl tune`` option, so it can not contradict
    ``--resume``; each trial of a resumed sweep restores from its own checkpoint."""
    space = lr_space(tmp_path)
    with pytest.raises(SystemExit):
        main(["tune", "doudizhu", "--space", str(space), "--resume", "--restore", str(tmp_path)])
    assert "unrecognized arguments: --restore" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tune", "doudizhu", "--help"])
    assert "--resume" in (help_text := capsys.readouterr().out) and "continue the sweep in --out" in help_text
