"""Test helper: a Ray head node of a test's own (`ray start --head` on loopback, with a temp dir of its own), stopped
by killing only its own processes: `ray stop` would kill every Ray on the machine, the user's runs included. The
nodes' start-up and stop are cardrl.bench.local_cluster's (what `cardrl bench chaos --nodes` uses); submitting a
job is the tests' own."""

from __future__ import annotations

import subprocess
import time

from cardrl.bench.local_cluster import list_state, start_head, start_worker, stop_own_processes, token_env
from cardrl.bench.local_cluster import ray_cli as ray_bin

__all__ = ["ray_bin", "token_env", "start_head", "start_worker", "stop_own_processes", "list_state", "submit_job"]


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
