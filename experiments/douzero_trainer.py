"""DouZero's own trainer (the ``douzero`` package) for experiments/parity_douzero.py: one run to a frame count in a
child process of its own, saving the three networks once after each checkpoint frame count, resumable after a kill.

DouZero's trainer saves by time; here its save interval is driven by the frames it has logged (:class:`DouZeroFlags`),
so it saves at the first check (every 5 s, about 2,000 frames) after each checkpoint frame count. It also saves its
``model.tar`` every :data:`SAVE_MINUTES`, from which an interrupted run goes on (DouZero's own ``--load_model``).
:func:`run` starts and watches the child, ``python experiments/douzero_trainer.py --savedir DIR --seed S --frames F
--checkpoints C ... [--resume]``, which imports nothing of experiments/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SAVE_MINUTES = 10.0  # DouZero's trainer saves its model.tar this often: an interrupted run resumes from it
XPID = "parity"  # DouZero's experiment id: its files go to SAVEDIR/parity
CHILD = Path(__file__).name.encode()  # in the child's command line: how a trainer left running is recognised


def saved_frames(weights: Path) -> list[int]:
    """Frame counts at which DouZero's trainer saved the three networks (``landlord_up`` is written last)."""
    return sorted({int(p.stem.rsplit("_", 1)[1]) for p in weights.glob("landlord_up_weights_*.ckpt")})


class DouZeroFlags(argparse.Namespace):
    """DouZero's flags, whose ``save_interval`` (minutes; its trainer reads it every 5 s) is 0, save now, once the
    frames its trainer logged passed the next checkpoint not saved yet (``pending``, in the trainer's process only),
    else ``SAVE_MINUTES``: its ``model.tar`` (networks, optimisers, frames), from which an interrupted run resumes."""

    pending: list[int] = []
    weights: Path | None = None

    @property
    def save_interval(self):
        weights = DouZeroFlags.weights
        pending = DouZeroFlags.pending
        while pending and weights is not None and saved_frames(weights)[-1:] >= [pending[0]]:
            pending.pop(0)
        if pending and logged_frames(weights / "logs.csv" if weights else None) >= pending[0]:
            return 0.0
        return SAVE_MINUTES

    @save_interval.setter
    def save_interval(self, value):
        pass


def train_in_this_process(savedir: str, seed: int, frames: int, checkpoints: list[int], resume: bool) -> None:
    """Body of the child process: DouZero's ``train(flags)`` with its save interval driven by logged frames, resumed
    from its ``model.tar`` (its own ``--load_model``) when ``resume``."""
    import git
    import torch

    from douzero.dmc import file_writer
    from douzero.dmc.arguments import parser
    from douzero.dmc.dmc import train

    def no_repository(*args, **kwargs):
        raise git.InvalidGitRepositoryError("not recorded")

    # DouZero's log writer records the git branch of the working directory, and fails on a detached HEAD (a CI
    # checkout, a git worktree); the branch says nothing about DouZero's run.
    file_writer.git = argparse.Namespace(Repo=no_repository, InvalidGitRepositoryError=git.InvalidGitRepositoryError)
    torch.manual_seed(seed)
    np.random.seed(seed)
    DouZeroFlags.weights = Path(savedir) / XPID
    DouZeroFlags.pending = sorted(checkpoints)
    flags = parser.parse_args(["--actor_device_cpu", "--training_device", "cpu", "--num_actors", "1",
                               "--xpid", XPID, "--savedir", savedir, "--total_frames", str(frames + 200_000)]
                              + (["--load_model"] if resume else []), namespace=DouZeroFlags())
    train(flags)


# ---- DouZero's logs.csv and model.tar ------------------------------------------------------------------------------
def _log_columns(first_line: str) -> list[str]:
    """The columns of DouZero's logs.csv, from its first line: "# frames,..."."""
    return first_line.strip().lstrip("# ").split(",")


def _line_frames(line: str, columns: list[str]) -> int | None:
    """The frame count of one logs.csv line, or None for a line cut short or not a record."""
    parts = line.split(",")
    col = columns.index("frames")
    return int(parts[col]) if len(parts) == len(columns) and parts[col].strip().isdigit() else None


def logged_frames(logs: Path | None) -> int:
    """The last frame count DouZero's trainer logged (its logs.csv: one line per learner step)."""
    if logs is None or not logs.is_file():
        return 0
    with logs.open("rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 4096))
        lines = f.read().decode(errors="ignore").splitlines()
    columns = _log_columns(logs.open().readline())
    if "frames" not in columns:
        return 0
    for line in reversed(lines):
        if (frames := _line_frames(line, columns)) is not None:
            return frames
    return 0


def resumable_frames(weights: Path) -> int | None:
    """The frames of DouZero's ``model.tar`` in ``weights``, or None where there is none or it does not load (a run
    killed while saving it): that run starts over."""
    import torch

    try:
        return int(torch.load(weights / "model.tar", map_location="cpu", weights_only=False)["frames"])
    except Exception:  # noqa: BLE001 - any unreadable file means: start over
        return None


def cut_log(logs: Path, frames: int) -> None:
    """Drop the lines DouZero's trainer logged after the ``model.tar`` it resumes from (it appends to the file, and
    the save interval reads its last line)."""
    if not logs.is_file():
        return
    lines = logs.read_text().splitlines()
    columns = _log_columns(lines[0])
    kept = [lines[0]] + [line for line in lines[1:] if (f := _line_frames(line, columns)) is not None and f <= frames]
    logs.write_text("\n".join(kept) + "\n")


# ---- the child process, watched from the parent ---------------------------------------------------------------------
def stop_orphan(pid_file: Path) -> None:
    """Stop the DouZero trainer an earlier attempt left running (its process group outlives a killed parent)."""
    if not pid_file.is_file():
        return
    pid = int(pid_file.read_text())
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return
    if CHILD in cmdline:
        print(f"stopping DouZero's trainer left running by an earlier attempt (pid {pid})", flush=True)
        os.killpg(pid, signal.SIGKILL)
        time.sleep(1)


def _start_or_resume(root: Path, savedir: Path, label: str) -> tuple[int | None, dict]:
    """Where the run in ``root`` starts: the frames of the ``model.tar`` it resumes from (its log cut there) and the
    timing of its earlier attempts, or None and a fresh ``savedir``."""
    weights = savedir / XPID
    timing_file = root / "timing.json"
    resumed = resumable_frames(weights) if timing_file.is_file() else None
    if resumed is None:
        shutil.rmtree(savedir, ignore_errors=True)
        savedir.mkdir(parents=True)
        return None, {"seconds_before": 0.0, "saved": {}}
    cut_log(weights / "logs.csv", resumed)
    timing = json.loads(timing_file.read_text())
    print(f"{label}: resuming DouZero's trainer from its model.tar at {resumed:,} frames "
          f"({timing['seconds_before'] / 60:.0f} min trained before)", flush=True)
    return resumed, timing


def _record_timing(timing: dict, weights: Path, start: float, timing_file: Path) -> None:
    """Add the training seconds at each newly saved frame count to ``timing`` and write it, with this attempt's
    seconds so far counted in ``seconds_before`` on disk (what the next attempt starts from)."""
    for f in saved_frames(weights):
        if str(f) not in timing["saved"]:
            mtime = (weights / f"landlord_up_weights_{f}.ckpt").stat().st_mtime
            timing["saved"][str(f)] = timing["seconds_before"] + max(0.0, mtime - start)
    timing_file.write_text(json.dumps({**timing, "seconds_before": timing["seconds_before"] + time.time() - start}))


def _stop(proc: subprocess.Popen) -> None:
    """Stop the child's process group (DouZero's actors with it): SIGTERM, then SIGKILL after 30 s."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run(root: Path, seed: int, frames: int, todo: list[int], label: str) -> tuple[Path, list[int], dict[str, float]]:
    """DouZero's trainer to ``frames`` in ``root/trainer``, until the networks are saved at or after every frame
    count of ``todo``; resumable: an interrupted run goes on from its last ``model.tar`` (at most ``SAVE_MINUTES`` of
    training lost; DouZero's replay buffers, a few batches, are refilled by the restored networks), and
    ``root/timing.json`` adds up the training seconds of every attempt. Returns the folder of the saved networks,
    the frame counts saved, and the training seconds at each (by frame count as text)."""
    savedir = (root / "trainer").resolve()
    weights = savedir / XPID
    stop_orphan(root / "trainer.pid")
    resumed, timing = _start_or_resume(root, savedir, label)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--savedir", str(savedir), "--seed", str(seed),
           "--frames", str(frames), "--checkpoints", *map(str, todo)] + (["--resume"] if resumed is not None else [])
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    start = time.time()
    # DouZero's trainer does not exit by itself once done (its actor processes keep it alive): stop it when every
    # checkpoint is on disk.
    with (root / "trainer.log").open("a") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        (root / "trainer.pid").write_text(str(proc.pid))
        try:
            while proc.poll() is None and saved_frames(weights)[-1:] < [max(todo)]:
                _record_timing(timing, weights, start, root / "timing.json")
                time.sleep(10)
            time.sleep(10)  # let the last weight files be written
        finally:
            _stop(proc)
            _record_timing(timing, weights, start, root / "timing.json")
    saved = saved_frames(weights)
    if not saved or saved[-1] < max(todo):
        raise RuntimeError(f"DouZero's trainer stopped (exit {proc.returncode}) before {max(todo)} frames; see "
                           f"{root / 'trainer.log'}")
    return weights, saved, timing["saved"]


def main(argv: list[str] | None = None) -> int:
    """The child process (started by :func:`run`)."""
    parser = argparse.ArgumentParser(description="DouZero's trainer, as experiments/parity_douzero.py runs it")
    parser.add_argument("--savedir", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--frames", type=int, required=True)
    parser.add_argument("--checkpoints", type=int, nargs="+", required=True)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    train_in_this_process(args.savedir, args.seed, args.frames, args.checkpoints, args.resume)
    return 0


if __name__ == "__main__":
    sys.exit(main())
