"""The processes of a ``cardrl train`` run, for ``cardrl bench chaos`` and ``cardrl bench soak``: launching the
driver in a process group of its own, on a local Ray of its own, and what the benchmarks do to and read from it.

:class:`TrainProcess` starts ``cardrl train`` (``python -m cardrl.cli train ...``) with one torch thread and
``RAY_TMPDIR`` set to a directory of the benchmark's, so that its embedded Ray neither joins another Ray on the
machine (``ray.init`` reads a running cluster's address from ``<RAY_TMPDIR>/ray``) nor leaves its session files
beside theirs. The driver's embedded Ray (GCS server, raylet, Ray's agents and workers: the env runners and, with
``--num-learners`` > 0, the learners) are its descendants: :func:`run_tree` lists them with their role
(:func:`role_of`, from the process title Ray gives its workers, ``ray::DMCEnvRunner.sample``, or the program's
name), :func:`env_runner_pids` finds the env runners to kill, :func:`rss_by_process` measures them and
:func:`object_store` asks ``ray memory --stats-only`` how much of the object store is in use.

psutil reads the processes (Linux and macOS).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import psutil

__all__ = ["TrainProcess", "role_of", "run_tree", "env_runner_pids", "rss_by_process", "shared_memory_mb",
           "gcs_address", "object_store", "parse_object_store"]

_RAY_TITLE = re.compile(r"^ray::(\w+)")


def role_of(cmdline: Sequence[str]) -> str:
    """A Ray process's role from its command line: ``env_runner`` (``ray::...EnvRunner...``), ``learner``
    (``ray::...Learner...``), ``idle_worker``, another actor's class name, or the program (``gcs_server``,
    ``raylet``, ``log_monitor``, ``dashboard_agent``, ...)."""
    if not cmdline:
        return "unknown"
    title = _RAY_TITLE.match(cmdline[0])
    if title:
        name = title.group(1)
        if "EnvRunner" in name:
            return "env_runner"
        if "Learner" in name:
            return "learner"
        return "idle_worker" if name == "IDLE" else name
    scripts = [a for a in cmdline if a.endswith(".py")]
    if scripts:
        path = Path(scripts[-1])
        return f"{path.parent.name}_{path.stem}" if path.stem == "agent" else path.stem
    return Path(cmdline[0]).name or "unknown"


def run_tree(driver_pid: int) -> list[tuple[psutil.Process, str]]:
    """The driver (role ``driver``) and its living descendants, each with its role; empty once the driver is
    gone."""
    try:
        driver = psutil.Process(driver_pid)
        procs = [driver, *driver.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
    tree = []
    for proc in procs:
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            tree.append((proc, "driver" if proc.pid == driver_pid else role_of(proc.cmdline())))
        except psutil.Error:
            continue
    return tree


def env_runner_pids(driver_pid: int) -> list[int]:
    """The pids of the run's env runners (``ray::...EnvRunner...`` below the driver)."""
    return [proc.pid for proc, role in run_tree(driver_pid) if role == "env_runner"]


def shared_memory_mb(pid: int) -> float | None:
    """The shared-memory pages in a process's resident set (``RssShmem`` of ``/proc/PID/status``), in MB: for Ray's
    processes, the pages of the object store (``/dev/shm``) the process has touched, which count in its RSS but
    are the object store's memory, not the process's own. None where the kernel does not say (not Linux)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssShmem:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_by_process(driver_pid: int) -> list[dict[str, Any]]:
    """Every process of the run: pid, role, resident set size in MB and the object-store pages in it
    (``shmem_mb``, :func:`shared_memory_mb`)."""
    rows = []
    for proc, role in run_tree(driver_pid):
        try:
            rows.append({"pid": proc.pid, "role": role, "rss_mb": proc.memory_info().rss / 2**20,
                         "shmem_mb": shared_memory_mb(proc.pid)})
        except psutil.Error:
            continue
    return rows


def gcs_address(driver_pid: int) -> str | None:
    """The run's GCS address, from a descendant's ``--gcs-address=`` argument (the raylet's)."""
    for proc, _ in run_tree(driver_pid):
        try:
            for arg in proc.cmdline():
                if arg.startswith("--gcs-address="):
                    return arg.split("=", 1)[1]
        except psutil.Error:
            continue
    return None


_PLASMA = re.compile(r"Plasma memory usage (\d+) MiB, (\d+) objects")


def parse_object_store(text: str) -> dict[str, int] | None:
    """``ray memory --stats-only``'s object store line as ``{"mb": ..., "objects": ...}``; None when absent."""
    match = _PLASMA.search(text)
    return {"mb": int(match.group(1)), "objects": int(match.group(2))} if match else None


def object_store(address: str, env: dict[str, str], timeout_s: float = 60.0) -> dict[str, int] | None:
    """The object store in use on the cluster at ``address`` (``ray memory --stats-only``, the ``ray`` beside this
    Python); None when it does not answer. A local Ray started by ``ray.init`` requires Ray's token (Ray 2.60's
    default, the token in ``~/.ray/auth_token``), which a client sends only with ``RAY_AUTH_MODE=token``: asked
    again so when the first try is refused."""
    ray_cli = Path(sys.executable).with_name("ray")
    command = [str(ray_cli) if ray_cli.exists() else "ray", "memory", "--stats-only", "--address", address]
    for mode in (env.get("RAY_AUTH_MODE"), "token"):
        try:
            done = subprocess.run(command, env={**env, **({"RAY_AUTH_MODE": mode} if mode else {})},
                                  capture_output=True, text=True, timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = parse_object_store(done.stdout + done.stderr)
        if found is not None or mode == "token":
            return found
    return None


class TrainProcess:
    """One ``cardrl train`` driver in a session of its own, its output appended to ``log``."""

    def __init__(self, argv: Sequence[str], log: Path, ray_tmpdir: Path, env: dict[str, str] | None = None):
        """``env``: the driver's environment (default: this process's, without RAY_ADDRESS: a local Ray of its own);
        a cluster's (:meth:`~cardrl.bench.local_cluster.LocalCluster.driver_env`, with RAY_ADDRESS) joins it."""
        ray_tmpdir.mkdir(parents=True, exist_ok=True)
        self.argv, self.log = list(argv), log
        self.env = {**(os.environ if env is None else env), "OMP_NUM_THREADS": "1", "RAY_TMPDIR": str(ray_tmpdir)}
        if env is None:
            self.env.pop("RAY_ADDRESS", None)
        with log.open("a") as out:
            out.write(f"\n$ cardrl {' '.join(self.argv)}\n")
            out.flush()
            self.proc = subprocess.Popen([sys.executable, "-m", "cardrl.cli", *self.argv], env=self.env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.log_start = log.stat().st_size

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def output(self) -> str:
        """What this driver printed so far."""
        with self.log.open("rb") as f:
            f.seek(self.log_start)
            return f.read().decode(errors="replace")

    def kill_driver(self, grace_s: float = 5.0) -> list[str]:
        """SIGKILL the driver alone, as a crash would; after ``grace_s`` kill what of its run is still alive (its
        process group) and return those processes' roles: what a dead driver leaves behind."""
        tree = run_tree(self.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        time.sleep(grace_s)
        left = []
        for proc, role in tree[1:]:
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    left.append(role)
            except psutil.Error:
                continue
        self.kill_group()
        return left

    def kill_group(self) -> None:
        """SIGKILL the driver's whole process group (its Ray included)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def stop(self, timeout_s: float = 60.0) -> int:
        """SIGINT the driver (a clean stop), then its group; returns its exit code."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGINT)
                self.proc.wait(timeout=timeout_s)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        self.kill_group()
        return self.proc.returncode
