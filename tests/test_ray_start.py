"""Which Ray a cardrl command uses (cardrl/ray_start.py): its own local Ray unless a cluster is asked for, even when
Ray's record of the last `ray start --head` on this machine (``ray_current_cluster`` in Ray's temp dir) names a head
that is dead (a stale record) or alive; the cluster of RAY_ADDRESS when asked, joined without the options Ray refuses
there, with token authentication; one line saying which; a clear, quick refusal when the cluster can not be joined;
the local Ray's workers at the driver's priority.

Ray reads the record from ``$RAY_TMPDIR/ray/ray_current_cluster`` (default /tmp/ray), so each test points
RAY_TMPDIR at a short directory of its own (Ray's socket paths must stay under 108 characters) and never touches the
machine's /tmp/ray."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers.ray_head import start_head, stop_own_processes, token_env

_NO_RAY_ENV = ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_TMPDIR")


@pytest.fixture
def ray_tmpdir(monkeypatch):
    """A short temp dir of the test's own as RAY_TMPDIR, no RAY_ADDRESS; removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="crs", dir="/tmp"))
    monkeypatch.setenv("RAY_TMPDIR", str(root))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def dead_port():
    """A port nothing listens on for the test's length: bound on every address and never listened on, so that
    connections are refused and no other process (another Ray on this machine) can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        yield held.getsockname()[1]


def _stale_record(root: Path, port: int) -> int:
    """Ray's record of a head that is gone: ``root/ray/ray_current_cluster`` naming ``port`` on loopback."""
    (root / "ray").mkdir(parents=True, exist_ok=True)
    (root / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{port}")
    return port


def test_stale_record_of_a_dead_head_starts_a_local_ray(no_local_ray, ray_tmpdir, dead_port):
    import ray
    from ray._private.services import canonicalize_bootstrap_address

    from cardrl.ray_start import start_ray

    port = _stale_record(ray_tmpdir, dead_port)
    # the condition of the bug: a bare ray.init() would join the record's dead head and refuse num_cpus
    assert canonicalize_bootstrap_address(None).endswith(f":{port}")
    lines: list[str] = []
    try:
        assert start_ray(1, say=lines.append) == "local"
        assert ray.cluster_resources()["CPU"] == 1  # the size asked for: a Ray of its own
        # its workers at the driver's priority (Ray's default: 15 steps nicer; docs/performance.md, "Priority")
        assert ray.get(ray.remote(lambda: os.nice(0)).remote()) == os.nice(0)
    finally:
        ray.shutdown()
    assert len(lines) == 1 and lines[0].startswith("Ray: started a local Ray") and "RAY_ADDRESS" in lines[0], lines


# Not "auto" with the stale record: Ray 2.60's "auto" joins any one Ray running on the machine before the record
# (services.get_ray_address_from_environment), so the outcome would depend on other people's clusters here.
@pytest.mark.parametrize("address", ["127.0.0.1:{port}"])
def test_a_cluster_that_does_not_answer_is_refused_at_once(no_local_ray, ray_tmpdir, dead_port, monkeypatch, address):
    import ray

    from cardrl.ray_start import RayAddressError, start_ray

    port = _stale_record(ray_tmpdir, dead_port)
    monkeypatch.setenv("RAY_ADDRESS", address.format(port=port))
    started = time.time()
    with pytest.raises(RayAddressError) as refused:
        start_ray(1, say=pytest.fail)
    said = str(refused.value)
    assert time.time() - started < 20  # Ray itself retries a dead GCS address for minutes
    assert f"RAY_ADDRESS={address.format(port=port)}" in said and f":{port}" in said and "unset RAY_ADDRESS" in said
    assert not ray.is_initialized()


@pytest.mark.parametrize("given, env, wanted", [
    (None, None, None), (None, "", None), (None, "local", None), (None, "10.0.0.1:6379", "10.0.0.1:6379"),
    ("local", "10.0.0.1:6379", None), ("auto", None, "auto"), ("10.0.0.2:1", "10.0.0.1:6379", "10.0.0.2:1")])
def test_the_cluster_asked_for(monkeypatch, given, env, wanted):
    from cardrl.ray_start import _asked_for

    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert _asked_for(given)[0] == wanted


def _run(code_or_argv: str | list[str], env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    argv = code_or_argv if isinstance(code_or_argv, list) else ["-c", code_or_argv]
    return subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, timeout=timeout)


_JOIN = "from cardrl.ray_start import start_ray; start_ray(1)"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_live_head_on_this_machine(no_local_ray, tmp_path):
    """A live `ray start --head` (token authentication on) recorded in RAY_TMPDIR: `cardrl train` without
    RAY_ADDRESS trains on a local Ray of its own; RAY_ADDRESS (host:port, or auto) with the token joins the head and
    says so; without the token the join is refused naming the token settings."""
    root = Path(tempfile.mkdtemp(prefix="crh", dir="/tmp"))
    env, token = token_env(root / "token")
    try:
        gcs, dashboard = start_head(root / "ray", num_cpus=1, env=env)
        assert (root / "ray" / "ray_current_cluster").read_text().strip().endswith(f":{gcs}")
        user = {k: v for k, v in os.environ.items() if k not in _NO_RAY_ENV} | {"RAY_TMPDIR": str(root),
                                                                                  "OMP_NUM_THREADS": "1"}
        out = tmp_path / "run"
        trained = _run(["-m", "cardrl.cli", "train", "doudizhu", "--stop-frames", "300", "--num-env-runners", "0",
                        "--num-envs-per-env-runner", "4", "--rollout-fragment-length", "100", "--frames-per-update",
                        "100", "--eval-every", "0", "--eval-deals", "4", "--out", str(out)], user)
        assert trained.returncode == 0, trained.stderr[-3000:]
        assert "Ray: started a local Ray" in trained.stdout and (out / "checkpoint").is_dir(), trained.stdout[-3000:]
        client = user | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}
        for address in (f"127.0.0.1:{gcs}", "auto"):
            joined = _run(_JOIN, client | {"RAY_ADDRESS": address}, timeout=120)
            assert joined.returncode == 0, joined.stderr[-3000:]
            assert "Ray: joined the cluster at " in joined.stdout and f":{gcs} (RAY_ADDRESS={address}; 1 CPUs; " \
                f"dashboard http://127.0.0.1:{dashboard})" in joined.stdout, joined.stdout
        refused = _run(_JOIN, user | {"RAY_ADDRESS": f"127.0.0.1:{gcs}"}, timeout=180)
        assert refused.returncode != 0 and "RayAddressError" in refused.stderr, refused.stderr[-3000:]
        assert "RAY_AUTH_MODE=token" in refused.stderr and "RAY_AUTH_TOKEN" in refused.stderr, refused.stderr[-3000:]
    finally:
        stop_own_processes(root)
        shutil.rmtree(root, ignore_errors=True)
