import os
import tempfile

import pytest
from hypothesis import settings

from helpers.local_ray import init_local_ray

os.environ.setdefault("OMP_NUM_THREADS", "1")
# The checkpoints the tests load are their own: trusted (tests/test_checkpoint_trust.py unsets this), and the record of
# those they produce kept out of the user's home (cardrl/checkpoint_trust.py)
os.environ.setdefault("CARDRL_TRUST_CHECKPOINTS", "1")
os.environ.setdefault("CARDRL_STATE_DIR", tempfile.mkdtemp(prefix="cardrl-test-state-"))

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


# Under CI's deadline the slow tests run in this order of their paths' beginnings (the rest between): what the open
# issues must show in a browser first, the benchmarks' end-to-end output checks last, so that a deadline that cuts
# the tail cuts the least telling ones.
_CI_FIRST, _CI_LAST = ("tests/web/",), ("tests/bench/",)


def _ci_rank(item) -> int:
    path = item.nodeid
    return 0 if path.startswith(_CI_FIRST) else 2 if path.startswith(_CI_LAST) else 1


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CARDRL_TEST_DEADLINE"):
        items.sort(key=_ci_rank)  # stable: file order within each rank


def pytest_runtest_setup(item):
    """CI's time budget (.ci/run sets ``CARDRL_TEST_DEADLINE``, a Unix time): a slow test that would start after it is
    skipped, saying so, so that the whole CI run stays within its hour; without the variable every test runs."""
    deadline = os.environ.get("CARDRL_TEST_DEADLINE")
    if deadline and item.get_closest_marker("slow") is not None:
        import time

        if time.time() > float(deadline):
            pytest.skip(f"CI time budget: slow tests start only until {float(deadline):.0f} (CARDRL_TEST_DEADLINE)")
