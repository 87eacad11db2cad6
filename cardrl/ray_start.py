"""Ray start-up for cardrl's drivers (``cardrl train``, ``cardrl tune``): join the cluster named by ``RAY_ADDRESS``
(``ray job submit`` sets it), else start an embedded local Ray, quiet (no dashboard, workers' logs kept off the
driver's terminal). Nothing is done when Ray is already up (tests, notebooks, a Tune trial)."""

from __future__ import annotations

import os

__all__ = ["start_ray"]


def start_ray(num_cpus: int) -> None:
    """Start or join Ray: ``num_cpus`` is the embedded local Ray's size (ignored when joining a cluster)."""
    import ray

    if ray.is_initialized():
        return
    address = os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
