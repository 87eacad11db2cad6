"""Ray start-up for every cardrl command that needs Ray (``cardrl train``, ``cardrl tune``, parallel evaluation, the
benchmarks): join the cluster the user asked for (``RAY_ADDRESS``, which ``ray job submit`` sets), else start a local
Ray of the command's own, quiet (no dashboard, workers' logs kept off the driver's terminal), and say in one line
which it did. Nothing is done when Ray is already up (tests, notebooks, a Tune trial).

The local Ray is started with ``address="local"``: a bare ``ray.init()`` would instead join the cluster recorded in
Ray's ``ray_current_cluster`` file by the last ``ray start --head`` on this machine (still running, or dead and never
``ray stop``-ped), and refuse the local Ray's size ("When connecting to an existing cluster, num_cpus and num_gpus
must not be provided"). docs/operations.md, "Which Ray a command uses".

The local Ray's workers run at the command's own priority (Ray's ``worker_niceness`` 0; Ray's default starts them 15
steps nicer than the driver). DMC's env runners are Ray workers and its learner runs in the driver: with Ray's default,
on a shared machine the runners (half of the work) yield to every other process while the learner does not, and a
run started with ``nice`` could not be given a priority at all (docs/performance.md, "Priority").
"""

from __future__ import annotations

import os
from typing import Callable

__all__ = ["start_ray", "RayAddressError", "LOCAL", "CLUSTER"]

LOCAL, CLUSTER = "local", "cluster"


class RayAddressError(ValueError):
    """The cluster asked for can not be joined: nothing answers there, or it refuses this client's authentication
    (a ValueError, so the CLI reports it as a bad option with exit status 2)."""


def start_ray(num_cpus: int, address: str | None = None, *, say: Callable[[str], None] | None = None) -> str | None:
    """Start or join Ray and say which in one line; returns ``"local"``, ``"cluster"``, or None when Ray was already
    up. ``address``: a cluster to join (``host:port``, ``auto``, ``ray://...``), or ``"local"`` for a local Ray
    whatever ``RAY_ADDRESS`` says (benchmarks); None: ``RAY_ADDRESS`` if set and non-empty, else local.
    ``num_cpus`` is the local Ray's size (a cluster has its own). RayAddressError, naming the address and where it
    came from, when the cluster does not answer or refuses this client's authentication."""
    import ray

    if ray.is_initialized():
        return None
    say = say or (lambda line: print(line, flush=True))
    wanted, source = _asked_for(address)
    if wanted is None:
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _system_config={"worker_niceness": 0})
        say(f"Ray: started a local Ray of this command's own ({num_cpus} CPUs, no dashboard); set RAY_ADDRESS to "
            f"join a cluster instead")
        return LOCAL
    context = _join(ray, wanted, source)
    dashboard = context.dashboard_url or ""
    if dashboard and "://" not in dashboard:
        dashboard = "http://" + dashboard
    cpus = int(ray.cluster_resources().get("CPU", 0))
    say(f"Ray: joined the cluster at {context.address_info.get('gcs_address', wanted)} ({source}; {cpus} CPUs; "
        f"dashboard {dashboard or 'not running'})")
    return CLUSTER


def _asked_for(address: str | None) -> tuple[str | None, str]:
    """(the cluster address to join or None for a local Ray, where it came from)."""
    if address == LOCAL:
        return None, "local"
    if address:
        return address, f"address {address}"
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env != LOCAL:
        return env, f"RAY_ADDRESS={env}"
    return None, "local"


def _join(ray, address: str, source: str):
    """``ray.init`` on the cluster, with none of the options Ray refuses when joining; its failures explained."""
    from ray.exceptions import AuthenticationError

    try:
        _probe(address)
    except ConnectionError as error:
        raise RayAddressError(
            f"no Ray cluster answers at {address} ({source}): {error}. Start it (`ray start --head`), correct the "
            f"address, or unset RAY_ADDRESS to run on a local Ray of this command's own; 'auto' joins the one Ray "
            f"running on this machine, else the cluster recorded by the last `ray start --head` here, which may have "
            f"died without `ray stop`"
        ) from None
    try:
        return ray.init(address=address)
    except (AuthenticationError, ConnectionError) as error:
        said = f"{error}: {error.__cause__}" if error.__cause__ else str(error)
        raise RayAddressError(
            f"the Ray cluster at {address} ({source}) answers but could not be joined ({said}). A head with token "
            f"authentication (Ray's default) refuses a client without its token: set RAY_AUTH_MODE=token and give "
            f"the token as RAY_AUTH_TOKEN, a file named by RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token "
            f"(docs/operations.md, \"Token authentication\")") from None


def _probe(address: str, timeout_s: float = 5.0) -> None:
    """ConnectionError at once when nothing listens at the cluster's GCS address (Ray itself would retry for
    minutes); ``auto`` is first resolved the way ``ray.init`` resolves it. ``ray://`` client addresses are left to
    Ray."""
    import socket

    from ray._private.services import canonicalize_bootstrap_address

    if address.startswith("ray://"):
        return
    resolved = canonicalize_bootstrap_address(address) if address == "auto" else address
    if resolved is None:
        raise ConnectionError("no cluster is recorded or running on this machine")
    host, _, port = resolved.rpartition(":")
    if not host or not port.isdigit():
        raise ConnectionError(f"{resolved!r} is not host:port")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise ConnectionError(f"nothing listens at {resolved} ({error.strerror or error})") from None
