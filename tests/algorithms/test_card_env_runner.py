"""cardrl's env runners are called without a task-event record per call (the soak's gcs_server growth)."""

from __future__ import annotations

import ray
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
from cardrl.algorithms.topk_ppo.topk_ppo_env_runner import TopKPPOEnvRunner
from helpers.dmc_configs import small_dmc_config


def test_rllibs_call_into_a_runner_leaves_no_task_event_record():
    """RLlib wraps the runner class with ``ray.remote`` and calls it through ``apply``: Ray reads the method's
    ``enable_task_events`` from the class, so every call of the sampling loop is kept out of the GCS's task events;
    the runner's other methods keep Ray's default."""
    for cls in (DMCEnvRunner, TopKPPOEnvRunner):
        meta = ray.remote(num_cpus=1)(cls).__ray_metadata__.method_meta
        assert meta.enable_task_events.get("apply") is False, cls.__name__
        assert meta.enable_task_events.get("sample", True) is not False, cls.__name__


def test_a_remote_runner_samples_through_apply(ray_local):
    """The overridden ``apply`` still runs RLlib's calls on a remote runner (here: a sample of 50 frames)."""
    actor = ray.remote(num_cpus=0)(DMCEnvRunner).remote(config=small_dmc_config(0, seed=5), worker_index=1)
    try:
        frames = ray.get(actor.apply.remote(lambda runner: runner.sample(num_frames=50)["frames"]), timeout=120)
        assert frames >= 50
    finally:
        ray.kill(actor)
