"""DouZero's own trainer as ``cardrl bench train`` runs it (:mod:`cardrl.bench.train`, whose module docstring says
what is measured): ``python -m cardrl.bench.train_douzero`` calls ``douzero.dmc.dmc.train(flags)`` with
``--actor_device_cpu --training_device cpu --disable_checkpoint`` and otherwise DouZero's defaults (batch 32, unroll
100, 4 learner threads per position); it trains forever, so :func:`bench_douzero` kills its process group once the
timed window is over and reads its frame counter from the ``logs.csv`` its ``FileWriter`` appends after every update
(time and frames), cross-checked against the ``After N frames: @ X fps`` lines it logs every 5 s.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardrl.bench.common import package_version
from cardrl.bench.train_rates import SETUP_TIMEOUT_S, child_env, rate_fields, tail_text, update_rate, updates_total

__all__ = ["bench_douzero", "parse_douzero_log", "read_douzero_csv", "logged_in_window", "DOUZERO_NUM_ACTORS",
           "DOUZERO_FRAMES_PER_UPDATE"]

# One actor fills one core, its learner threads share the other: on a 2-core machine a second actor adds no frames/s
# and a slower setup (docs/benchmarks.md).
DOUZERO_NUM_ACTORS = 1
DOUZERO_FRAMES_PER_UPDATE = 100 * 32  # DouZero's default unroll_length * batch_size
# [INFO:1234 dmc:248 2024-01-02 03:04:05,678] After 9600 (L:3200 U:3200 D:3200) frames: @ 640.0 fps (avg@ ...
_DOUZERO_AFTER = re.compile(
    r"\[INFO:(?P<pid>\d+) \w+:\d+ (?P<asctime>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(?P<ms>\d{3})\] "
    r"After (?P<frames>\d+) \(L:(?P<L>\d+) U:(?P<U>\d+) D:(?P<D>\d+)\) frames: "
    r"@ (?P<fps>[-\d.]+) fps \(avg@ (?P<fps_avg>[-\d.]+) fps\)")



def parse_douzero_log(text: str) -> list[dict[str, float]]:
    """The ``After N (L:.. U:.. D:..) frames: @ X fps (avg@ Y fps)`` lines DouZero's ``train`` logs to stderr every
    5 s, as dicts: ``time`` (epoch seconds, from the local-time stamp), ``frames`` (its counter then), ``L``/``U``/
    ``D`` (per position), ``fps`` (over the last 5 s) and ``fps_avg`` (its mean of up to 24 such values)."""
    lines = []
    for match in _DOUZERO_AFTER.finditer(text):
        stamp = time.mktime(time.strptime(match["asctime"], "%Y-%m-%d %H:%M:%S")) + int(match["ms"]) / 1000
        lines.append({"time": stamp, "frames": int(match["frames"]), "L": int(match["L"]), "U": int(match["U"]),
                      "D": int(match["D"]), "fps": float(match["fps"]), "fps_avg": float(match["fps_avg"])})
    return lines


def read_douzero_csv(path: str | os.PathLike, frames_per_update: int = DOUZERO_FRAMES_PER_UPDATE,
                     ) -> list[tuple[float, str, int]]:
    """DouZero's updates ``(time, position, frames)`` from the ``logs.csv`` its ``FileWriter`` appends to.

    Its first line is ``# _tick,_time,frames,...``; each row is written right after one update of one position
    (``frames`` is the counter before that update adds ``frames_per_update``), with the latest loss of every
    position. The row does not name the position: it is the one whose ``loss_<position>`` changed from the row
    before (all start at 0), "unknown" when not exactly one did. A last line cut short by the kill is dropped.
    """
    with open(path, newline="") as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()  # written in part when the trainer was killed
    header = lines[0] if lines else ""
    if not header.startswith("# "):
        raise ValueError(f"{path} is not a DouZero logs.csv (first line {header[:40]!r}, expected '# _tick,...')")
    fields = header[2:].strip().split(",")
    loss_keys = [k for k in fields if k.startswith("loss_")]
    previous = {k: "0" for k in loss_keys}
    updates = []
    for row in csv.DictReader(lines[1:], fieldnames=fields):
        if None in row.values() or None in row:
            continue
        try:
            t, _ = float(row["_time"]), int(row["frames"])
        except (TypeError, ValueError):
            continue
        changed = [k for k in loss_keys if row[k] != previous[k]]
        previous.update({k: row[k] for k in loss_keys})
        updates.append((t, changed[0][len("loss_"):] if len(changed) == 1 else "unknown", frames_per_update))
    return sorted(updates)



def _douzero_flags(savedir: str, num_actors: int) -> list[str]:
    return ["--actor_device_cpu", "--training_device", "cpu", "--num_actors", str(num_actors),
            "--savedir", savedir, "--xpid", "bench", "--disable_checkpoint"]


def _run_douzero_here(savedir: str, num_actors: int) -> None:
    """Body of the ``--_douzero`` child: DouZero's own trainer with its own flags; runs until killed."""
    from douzero.dmc.arguments import parser
    from douzero.dmc.dmc import train

    train(parser.parse_args(_douzero_flags(savedir, num_actors)))


def _kill_group(proc: subprocess.Popen) -> None:
    """End the child we started and the actor processes it spawned: its own process group (it leads a session)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass
    try:  # spawned actors may outlive the leader, or the leader may ignore SIGTERM
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def bench_douzero(seconds: float, num_actors: int = DOUZERO_NUM_ACTORS) -> dict[str, Any]:
    """DouZero 1.1.0's trainer on the CPU for ``seconds`` after its first update, in a child process (module doc).

    Raises ImportError when ``douzero`` (or GitPython, which ``douzero.dmc`` imports) is missing.
    """
    import douzero.dmc.dmc  # noqa: F401  (fail here, with the import error, rather than in the child)

    if num_actors < 1:
        raise ValueError(f"num_actors must be >= 1, got {num_actors}")
    with tempfile.TemporaryDirectory(prefix="cardrl_bench_douzero_") as tmp:
        csv_path = Path(tmp, "bench", "logs.csv")
        log_path = Path(tmp, "stderr.log")
        launched = time.time()
        with open(log_path, "w") as log, open(os.devnull, "w") as devnull:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cardrl.bench.train_douzero", "--savedir", tmp,
                 "--douzero-actors", str(num_actors)],
                env=child_env(), cwd=tmp, stdout=devnull, stderr=log, start_new_session=True)
            try:
                t0 = _wait_first_update(proc, csv_path, log_path, launched)
                while time.time() < t0 + seconds + 0.5 and proc.poll() is None:
                    time.sleep(0.2)
            finally:
                _kill_group(proc)
        log_text = log_path.read_text(errors="replace")
        if proc.returncode not in (-signal.SIGTERM, -signal.SIGKILL):
            raise RuntimeError(f"DouZero's trainer exited by itself (code {proc.returncode}):\n{tail_text(log_text)}")
        updates = read_douzero_csv(csv_path)
    rate = update_rate(updates, seconds)
    logged = logged_in_window(parse_douzero_log(log_text), t0, t0 + seconds)
    return {
        **rate_fields(rate), "setup_s": t0 - launched, "frames_trained": rate["frames"],
        "frames_trained_total": updates_total(u for u in updates if u[0] <= t0 + seconds),
        "logged_fps_mean": (sum(line["fps"] for line in logged) / len(logged)) if logged else math.nan,
        "logged_lines": len(logged), "version": package_version("douzero"),
        "settings": {"num_actors": num_actors, "actor_device": "cpu", "training_device": "cpu",
                     "batch_size": 32, "unroll_length": 100, "num_threads": 4},
    }


def logged_in_window(lines: list[dict[str, float]], start: float, end: float) -> list[dict[str, float]]:
    """DouZero's 5 s log lines whose whole interval (from the line before) lies in ``[start, end]``."""
    return [line for before, line in zip(lines, lines[1:]) if before["time"] >= start and line["time"] <= end]


def _wait_first_update(proc: subprocess.Popen, csv_path: Path, log_path: Path, launched: float) -> float:
    """Epoch time of DouZero's first finished update (first data row of its logs.csv)."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"DouZero's trainer died during setup (exit {proc.returncode}):\n"
                               f"{tail_text(log_path.read_text(errors='replace'))}")
        try:
            updates = read_douzero_csv(csv_path) if csv_path.exists() else []
        except ValueError:  # caught between its creation and its header line
            updates = []
        if updates:
            return updates[0][0]
        if time.time() - launched > SETUP_TIMEOUT_S:
            raise RuntimeError(f"DouZero's trainer made no update within {SETUP_TIMEOUT_S:.0f} s of its launch:\n"
                               f"{tail_text(log_path.read_text(errors='replace'))}")
        time.sleep(0.2)



def _main(argv: Sequence[str] | None = None) -> int:
    """The child: ``python -m cardrl.bench.train_douzero --savedir DIR [--douzero-actors N]``."""
    child = argparse.ArgumentParser(prog="python -m cardrl.bench.train_douzero")
    child.add_argument("--savedir", required=True)
    child.add_argument("--douzero-actors", type=int, default=DOUZERO_NUM_ACTORS)
    args = child.parse_args(argv)
    _run_douzero_here(args.savedir, args.douzero_actors)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
