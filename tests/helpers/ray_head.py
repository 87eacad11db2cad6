"""Test helper: a Ray head node of a test's own (`ray start --head` on loopback, with a temp dir of its own), stopped
by killing only its own processes: `ray stop` would kill every Ray on the machine, the user's runs included."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers.ports import free_port


def ray_bin() -> str:
    return shutil.which("ray") or str(Path(sys.executable).with_name("ray"))


def token_env(directory: Path) -> tuple[dict, str]:
    """(an environment with Ray's token authentication on for a cluster of the test's own, its token): a fresh token
    in a file of ``directory`` named by RAY_AUTH_TOKEN_PATH (never the user's ~/.ray/auth_token), no RAY_ADDRESS and
    no inherited RAY_AUTH_TOKEN, one torch thread."""
    import secrets

    directory.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(32)
    path = directory / "auth_token"
    path.write_text(token)
    path.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")}
    return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(path), "OMP_NUM_THREADS": "1"}, token


def start_head(temp_dir: Path, num_cpus: int = 2, env: dict | None = None) -> tuple[int, int]:
    """Start the head; returns (GCS port, dashboard port)."""
    gcs, dashboard = free_port(), free_port()
    # Every port of its own: the defaults (e.g. the job agent's 52365) are taken when another Ray runs on this
    # machine, and the head then answers job submissions with "No available agent".
    agent_ports = [f"--{name}={free_port()}" for name in (
        "dashboard-agent-listen-port", "dashboard-agent-grpc-port", "metrics-export-port", "runtime-env-agent-port",
        "ray-client-server-port")]
    subprocess.run([ray_bin(), "start", "--head", f"--port={gcs}", "--node-ip-address=127.0.0.1",
                    f"--num-cpus={num_cpus}", "--include-dashboard=true", "--dashboard-host=127.0.0.1",
                    f"--dashboard-port={dashboard}", *agent_ports, f"--temp-dir={temp_dir}",
                    "--disable-usage-stats"],
                   check=True, env=env, capture_output=True, timeout=180)
    return gcs, dashboard


def stop_own_processes(temp_dir: Path, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL, every process whose command line names ``temp_dir`` (the head's raylet, GCS,
    dashboard and workers), and nothing else."""
    import psutil

    def own():
        found = []
        for proc in psutil.process_iter(["pid", "cmdline"]):
            try:
                if proc.pid != os.getpid() and str(temp_dir) in " ".join(proc.info["cmdline"] or ()):
                    found.append(proc)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return found

    for sig in (signal.SIGTERM, signal.SIGKILL):
        procs = own()
        for proc in procs:
            try:
                proc.send_signal(sig)
            except psutil.NoSuchProcess:
                pass
        deadline = time.time() + grace_s
        while procs and time.time() < deadline:
            procs = [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
            time.sleep(0.2)


def start_worker(gcs_port: int, temp_dir: Path, num_cpus: int = 1, env: dict | None = None) -> None:
    """Join a worker node to the head at ``127.0.0.1:gcs_port``: a raylet of its own on loopback with its own temp
    dir (Ray takes one per node) and a free port for everything it listens on (the dashboard agent's default 52365
    is the head's), ``num_cpus`` logical CPUs. Several such nodes on one host make a multi-node cluster whose
    scheduling is real: an actor needing a CPU goes to a node with a free one."""
    ports = [f"--{name}={free_port()}" for name in (
        "node-manager-port", "object-manager-port", "metrics-export-port", "dashboard-agent-listen-port",
        "dashboard-agent-grpc-port", "runtime-env-agent-port")]
    subprocess.run([ray_bin(), "start", f"--address=127.0.0.1:{gcs_port}", "--node-ip-address=127.0.0.1",
                    f"--num-cpus={num_cpus}", *ports, f"--temp-dir={temp_dir}", "--disable-usage-stats"],
                   check=True, env=env, capture_output=True, timeout=180)


def list_state(kind: str, address: str, env: dict, *filters: str) -> list[dict]:
    """``ray list KIND --address ADDRESS --format json`` in a process with ``env`` (a cluster with token
    authentication answers only a client holding its token: the test process's own Ray settings are not it); [] while
    the dashboard is not up yet."""
    args = [ray_bin(), "list", kind, "--address", address, "--format", "json", "--limit", "1000", "--detail"]
    for f in filters:
        args += ["--filter", f]
    listed = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        return []
    import json

    text = listed.stdout
    return json.loads(text[text.index("["):]) if "[" in text else []


def submit_job(address: str, entrypoint: list[str], env: dict, timeout: float = 540.0,
               working_dir: str | None = None) -> tuple[int, str]:
    """``ray job submit --address ADDRESS -- ENTRYPOINT``, waiting for its end; (return code, its output). Waits for
    the job server first, and submits again while Ray answers "No available agent" (the head's job agent comes up a
    little after `ray start` returns)."""
    for _ in range(60):
        listed = subprocess.run([ray_bin(), "job", "list", "--address", address], env=env, capture_output=True)
        if listed.returncode == 0:
            break
        time.sleep(1)
    extra = ["--working-dir", working_dir] if working_dir else []
    for _ in range(30):
        job = subprocess.run([ray_bin(), "job", "submit", "--address", address, *extra, "--", *entrypoint],
                             env=env, capture_output=True, text=True, timeout=timeout)
        log = job.stdout + job.stderr
        if "No available agent" not in log:
            break
        time.sleep(2)
    return job.returncode, log
