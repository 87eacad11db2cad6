import os

import pytest
from hypothesis import settings

from helpers.local_ray import init_local_ray

os.environ.setdefault("OMP_NUM_THREADS", "1")

# Hypothesis profiles, chosen by HYPOTHESIS_PROFILE: "ci" (what .ci/run uses) draws the same examples on every run, so
# that a failure in CI reproduces; "default" draws new ones each run. Longer fuzzing: docs/operations.md, "Fuzzing".
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def ray_local():
    """A real local Ray on the 2 cores of the machine; started once and shared until a test needs it gone."""
    yield init_local_ray()


@pytest.fixture
def no_local_ray():
    """Shut the embedded Ray down (for tests that start a Ray cluster of their own)."""
    import ray

    ray.shutdown()
    yield


def pytest_sessionfinish(session, exitstatus):
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()
