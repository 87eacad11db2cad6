"""A Ray cluster of several nodes on this machine, on loopback: a head from ``ray start --head`` and worker nodes from
``ray start --address``, each node with a temp dir and ports of its own (Ray takes one temp dir per node, and a
second node on one host collides with the first on default ports such as the dashboard agent's 52365). Used by
``cardrl bench chaos --nodes N`` (a worker node killed mid-run, then one added back) and by the multi-node tests.

Ray's token authentication is on (its default in the Ray cardrl pins): every node's ``ray start`` and every client
(a ``cardrl train`` driver joining through ``RAY_ADDRESS``, ``ray list``, ``ray job submit``) get
``RAY_AUTH_MODE=token`` and a token file of the cluster's own (``RAY_AUTH_TOKEN_PATH``), never the user's
``~/.ray/auth_token``.

A node's processes are those whose command line names its temp dir (its raylet, log monitor) and all their
descendants (Ray's workers, the env runners among them, and its agents are the raylet's children).
:meth:`LocalCluster.kill_node` SIGKILLs them all at once, as a machine that dies takes them; :meth:`LocalCluster.stop`
stops every process of the cluster's and nothing else: ``ray stop`` would stop every Ray on the machine, other
people's runs included.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import psutil

from cardrl.bench.run_processes import role_of

__all__ = ["free_port", "ray_cli", "token_env", "start_head", "start_worker", "list_state", "node_processes",
           "kill_processes", "stop_own_processes", "LocalCluster"]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cli() -> str:
    """The ``ray`` command beside this Python (else the one on PATH)."""
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.exists() else shutil.which("ray") or "ray"


def token_env(directory: Path, environ: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """(an environment with Ray's token authentication on for a cluster of one's own, its token): a fresh token in
    ``directory/auth_token`` named by RAY_AUTH_TOKEN_PATH, no RAY_ADDRESS and no inherited RAY_AUTH_TOKEN, one torch
    thread."""
    directory.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(32)
    path = directory / "auth_token"
    path.write_text(token)
    path.chmod(0o600)
    base = os.environ if environ is None else environ
    env = {k: v for k, v in base.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")}
    return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(path), "OMP_NUM_THREADS": "1"}, token


def _ports(*names: str) -> list[str]:
    return [f"--{name}={free_port()}" for name in names]


def start_head(temp_dir: Path, num_cpus: int = 2, env: dict | None = None) -> tuple[int, int]:
    """Start a head node on loopback with its own temp dir and ports; returns (GCS port, dashboard port)."""
    gcs, dashboard = free_port(), free_port()
    # Every port of its own: the defaults (e.g. the job agent's 52365) are taken when another Ray runs on this
    # machine, and the head then answers job submissions with "No available agent".
    agent_ports = _ports("dashboard-agent-listen-port", "dashboard-agent-grpc-port", "metrics-export-port",
                         "runtime-env-agent-port", "ray-client-server-port")
    _ray_start(["--head", f"--port={gcs}", "--node-ip-address=127.0.0.1", f"--num-cpus={num_cpus}",
                "--include-dashboard=true", "--dashboard-host=127.0.0.1", f"--dashboard-port={dashboard}",
                *agent_ports, f"--temp-dir={temp_dir}", "--disable-usage-stats"], env)
    return gcs, dashboard


def _ray_start(args: list[str], env: dict | None) -> None:
    """``ray start ARGS``; RuntimeError with the end of Ray's output when it fails."""
    done = subprocess.run([ray_cli(), "start", *args], env=env, capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        raise RuntimeError(f"`ray start {' '.join(args[:2])} ...` failed (exit {done.returncode}): "
                           + (done.stdout + done.stderr)[-2000:].strip())


def start_worker(gcs_port: int, temp_dir: Path, num_cpus: int = 1, env: dict | None = None) -> None:
    """Join a worker node to the head at ``127.0.0.1:gcs_port``: a raylet of its own on loopback with its own temp
    dir and a free port for everything it listens on, ``num_cpus`` logical CPUs. Several such nodes on one host make
    a multi-node cluster whose scheduling is real: an actor needing a CPU goes to a node with a free one."""
    ports = _ports("node-manager-port", "object-manager-port", "metrics-export-port", "dashboard-agent-listen-port",
                   "dashboard-agent-grpc-port", "runtime-env-agent-port")
    _ray_start([f"--address=127.0.0.1:{gcs_port}", "--node-ip-address=127.0.0.1", f"--num-cpus={num_cpus}", *ports,
                f"--temp-dir={temp_dir}", "--disable-usage-stats"], env)


def list_state(kind: str, address: str, env: dict, *filters: str) -> list[dict]:
    """``ray list KIND --address ADDRESS --format json`` in a process with ``env`` (a cluster with token
    authentication answers only a client holding its token); [] while the dashboard is not up yet."""
    args = [ray_cli(), "list", kind, "--address", address, "--format", "json", "--limit", "1000", "--detail"]
    for f in filters:
        args += ["--filter", f]
    listed = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        return []
    text = listed.stdout
    return json.loads(text[text.index("["):]) if "[" in text else []


def _names(cmdline: Sequence[str], text: str) -> bool:
    """Whether a command line contains ``text`` (a node's temp dir, or the stem every node's temp dir starts with:
    the nodes' dirs, ``<stem>_head`` and ``<stem>_w00`` to ``<stem>_w99``, are no prefix of one another)."""
    return text in " ".join(cmdline)


def node_processes(directory: Path) -> list[psutil.Process]:
    """The processes whose command line names ``directory`` (a node's temp dir, or a stem every node's temp dir
    starts with) and all their descendants, this process excepted."""
    roots, found = [], {}
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if proc.pid != os.getpid() and _names(proc.info["cmdline"] or (), str(directory)):
                roots.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    for root in roots:
        found[root.pid] = root
        try:
            for child in root.children(recursive=True):
                if child.pid != os.getpid():
                    found[child.pid] = child
        except psutil.NoSuchProcess:
            continue
    return list(found.values())


def kill_processes(procs: Sequence[psutil.Process], sig: int = signal.SIGKILL) -> list[str]:
    """Send ``sig`` to every process at once; returns the roles (:func:`~cardrl.bench.run_processes.role_of`) of
    those that were alive."""
    roles = []
    for proc in procs:
        try:
            role = role_of(proc.cmdline())
            proc.send_signal(sig)
            roles.append(role)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return roles


def stop_own_processes(directory: Path, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL, every process of :func:`node_processes` ``(directory)``, and nothing else."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        procs = node_processes(directory)
        kill_processes(procs, sig)
        deadline = time.time() + grace_s
        while procs and time.time() < deadline:
            procs = [p for p in procs if _alive(p)]
            time.sleep(0.2)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@dataclass
class LocalCluster:
    """A head and worker nodes on loopback under the temp-dir stem ``stem`` (``<stem>_head``, ``<stem>_w00``, ...).
    :meth:`start` brings it up; ``env`` is what a client needs (the token), :meth:`driver_env` what a driver that
    joins it needs (with ``RAY_ADDRESS``)."""

    stem: Path
    head_cpus: int = 0
    worker_cpus: int = 1
    env: dict[str, str] = field(default_factory=dict)
    gcs_port: int = 0
    dashboard_port: int = 0
    workers: list[Path] = field(default_factory=list)  # alive
    killed: list[Path] = field(default_factory=list)
    _added: int = 0

    @classmethod
    def start(cls, workers: int, head_cpus: int = 0, worker_cpus: int = 1, stem: Path | None = None,
              timeout_s: float = 180.0) -> "LocalCluster":
        """Start the head and ``workers`` worker nodes and wait until all are alive; on failure the cluster's
        processes are stopped and the error raised."""
        if workers < 1:
            raise ValueError(f"a cluster of several nodes needs at least 1 worker node, got {workers}")
        if head_cpus < 0 or worker_cpus < 1:
            raise ValueError(f"head CPUs must be >= 0 and worker CPUs >= 1, got {head_cpus} and {worker_cpus}")
        stem = Path(stem or tempfile.mkdtemp(prefix="cl", dir="/tmp")) / "n"  # short: Ray's sockets live below
        cluster = cls(stem=stem, head_cpus=head_cpus, worker_cpus=worker_cpus)
        try:
            cluster.env, _ = token_env(Path(f"{stem}_token"))
            cluster.gcs_port, cluster.dashboard_port = cluster._start_head()
            for _ in range(workers):
                cluster.add_worker()
            cluster.wait_for_nodes(1 + workers, timeout_s)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _start_head(self, attempts: int = 2) -> tuple[int, int]:
        """Start the head, again after a failed start (Ray gives a raylet 30 s to register with the GCS, which a
        loaded machine can miss); the last failure is raised."""
        for attempt in range(attempts):
            try:
                return start_head(self.head_dir, self.head_cpus, self.env)
            except (RuntimeError, subprocess.TimeoutExpired):
                stop_own_processes(self.head_dir)
                shutil.rmtree(self.head_dir, ignore_errors=True)
                if attempt + 1 == attempts:
                    raise
        raise ValueError(f"attempts must be >= 1, got {attempts}")

    @property
    def head_dir(self) -> Path:
        return Path(f"{self.stem}_head")

    @property
    def address(self) -> str:
        """The dashboard's address (``ray list``, ``ray job submit``)."""
        return f"http://127.0.0.1:{self.dashboard_port}"

    @property
    def gcs_address(self) -> str:
        return f"127.0.0.1:{self.gcs_port}"

    def driver_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) with the cluster's token and ``RAY_ADDRESS``: a
        ``cardrl train`` started with it joins the cluster, its driver on the head (Ray connects a driver to the head
        node among several nodes of one host)."""
        keep = {k: v for k, v in (os.environ if base is None else base).items()
                if k not in ("RAY_AUTH_TOKEN", "RAY_TMPDIR")}
        token = {k: self.env[k] for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH")}
        return {**keep, **token, "RAY_ADDRESS": self.gcs_address, "OMP_NUM_THREADS": "1"}

    def add_worker(self, attempts: int = 2) -> Path:
        """Start one more worker node (a fresh temp dir); returns its temp dir. A start that fails is cleaned up and
        tried again with a new temp dir, up to ``attempts`` times (Ray gives a raylet 30 s to register with the
        GCS, which a loaded machine can miss); the last failure is raised."""
        for attempt in range(attempts):
            directory = Path(f"{self.stem}_w{self._added:02d}")
            self._added += 1
            try:
                start_worker(self.gcs_port, directory, self.worker_cpus, self.env)
            except (RuntimeError, subprocess.TimeoutExpired):
                stop_own_processes(directory)
                shutil.rmtree(directory, ignore_errors=True)
                if attempt + 1 == attempts:
                    raise
                continue
            self.workers.append(directory)
            return directory
        raise ValueError(f"attempts must be >= 1, got {attempts}")

    def alive_nodes(self) -> list[dict]:
        """Ray's record of the cluster's alive nodes ([] while the dashboard does not answer)."""
        return [n for n in list_state("nodes", self.address, self.env) if n.get("state") == "ALIVE"]

    def wait_for_nodes(self, count: int, timeout_s: float = 180.0) -> list[dict]:
        """Wait until Ray counts ``count`` alive nodes; TimeoutError naming how many it saw."""
        deadline, nodes = time.time() + timeout_s, []
        while time.time() < deadline:
            nodes = self.alive_nodes()
            if len(nodes) == count:
                return nodes
            time.sleep(1)
        raise TimeoutError(f"the local cluster has {len(nodes)} alive node(s) after {timeout_s:g}s, not {count}")

    def roles_on(self, node: Path) -> list[str]:
        """The roles of a node's processes (``raylet``, ``env_runner``, ``idle_worker``, ...)."""
        roles = []
        for proc in node_processes(node):
            try:
                roles.append(role_of(proc.cmdline()))
            except psutil.Error:
                continue
        return roles

    def pids_of(self, role: str) -> list[int]:
        """The pids of the cluster's processes of ``role`` (e.g. ``env_runner``) on every node."""
        pids = []
        for proc in node_processes(self.stem):
            try:
                if role_of(proc.cmdline()) == role:
                    pids.append(proc.pid)
            except psutil.Error:
                continue
        return pids

    def worker_with(self, role: str) -> Path | None:
        """The first alive worker node running a process of ``role``; None when there is none."""
        return next((node for node in self.workers if role in self.roles_on(node)), None)

    def kill_node(self, node: Path) -> list[str]:
        """SIGKILL every process of a worker node at once (its raylet, agents and workers), as a machine that dies
        takes them; returns their roles. The node stays dead: Ray marks it so once its heartbeats stop."""
        if node not in self.workers:
            raise ValueError(f"{node} is not an alive worker node of this cluster (the head is not killed here)")
        roles = kill_processes(node_processes(node))
        self.workers.remove(node)
        self.killed.append(node)
        return roles

    def stop(self) -> None:
        """Stop every process of the cluster's, every node at once, and remove its temp dirs."""
        stop_own_processes(self.stem)
        for directory in [self.head_dir, *self.workers, *self.killed, Path(f"{self.stem}_token")]:
            shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(self.stem.parent, ignore_errors=True)
