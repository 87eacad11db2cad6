"""A ``cardrl tune`` sweep run as a subprocess with a local Ray of its own, and the process-tree helpers that find
(and stop) only that subprocess's processes, never another Ray on the machine."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

EVAL = re.compile(r"^\[(\w+)\] lr=\S+ \| eval (\d+) \| frames ([\d,]+) \|")


def evals(text: str) -> list[tuple[int, int]]:
    """(eval index, frames) of each printed evaluation line (a one-option ``lr`` sweep's)."""
    return [(int(m[2]), int(m[3].replace(",", ""))) for m in map(EVAL.match, text.splitlines()) if m]


def tune_command(space: Path, out: Path, *options: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of ``cardrl tune doudizhu --space SPACE ... --out OUT``: a local Ray of its
    own (no ``RAY_ADDRESS``), unbuffered output."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONUNBUFFERED"] = "1"
    cmd = [sys.executable, "-c", "import sys; from cardrl.cli import console_main; sys.exit(console_main())",
           "tune", "doudizhu", "--space", str(space), *options, "--out", str(out)]
    return cmd, env


def lr_space(folder: Path, sweep: dict | None = None) -> Path:
    """``folder/space.json``: a sweep over ``sweep`` (default one learning rate, 1e-4)."""
    space = folder / "space.json"
    space.write_text(json.dumps({"sweep": sweep or {"lr": {"grid": [1e-4]}}}))
    return space


def start_sweep(folder: Path, *options: str, new_session: bool = False
                ) -> tuple[subprocess.Popen, Path, Path, list[str], dict[str, str]]:
    """Start ``cardrl tune doudizhu`` over :func:`lr_space` with ``options``, output in ``folder/sweep``, its log in
    ``folder/tune.log`` (``new_session``: a process group of its own). Returns the process, the sweep dir, the log,
    the command and its environment."""
    out, log = folder / "sweep", folder / "tune.log"
    cmd, env = tune_command(lr_space(folder), out, *options)
    with log.open("w") as sink:
        proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=new_session)
    return proc, out, log, cmd, env


def wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen, log: Path, timeout: float = 240.0) -> None:
    """Poll ``ready`` until it holds; AssertionError with the log when the sweep ends first or ``timeout`` passes."""
    deadline = time.time() + timeout
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(f"the sweep ended (rc {proc.returncode}) before {what}:\n{log.read_text()}")
        if time.time() > deadline:
            raise AssertionError(f"no {what} after {timeout:.0f}s:\n{log.read_text()}")
        time.sleep(0.1)


def descendants(pid: int) -> list[int]:
    """The pids below ``pid`` in the process tree (from /proc: each process's parent)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    out, frontier = [], [pid]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier]
        out += children
        frontier = children
    return out


def title(pid: int) -> str:
    """The process's command name (a Ray worker's title, e.g. ``ray::ImplicitFunc``), "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""


def trial_actors(proc: subprocess.Popen) -> list[int]:
    """The Tune function-trainable actors (``ray::ImplicitFunc``) of the subprocess's own Ray: its descendants."""
    return [p for p in descendants(proc.pid) if title(p).startswith("ray::ImplicitFunc")]


def kill_tree(proc: subprocess.Popen, ours: list[int] | None = None) -> None:
    """SIGKILL the subprocess and ``ours`` (default: its descendants now). Ray's processes that the driver started
    outlive it, reparented away from its tree, so collect them before the driver dies."""
    ours = descendants(proc.pid) if ours is None else ours
    proc.kill()
    for pid in ours:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()
