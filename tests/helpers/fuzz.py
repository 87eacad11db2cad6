"""What the fuzz tests (tests/fuzz/) share: their hypothesis settings, scaled for longer runs, and strategies for the
values a caller may wrongly pass (docs/operations.md, "Fuzzing").

``CARDRL_FUZZ_SCALE=N`` multiplies every fuzz test's number of examples by N (default 1: the quick default-suite
run); ``HYPOTHESIS_PROFILE=ci`` (tests/conftest.py) derandomizes them so a failure in CI reproduces.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

__all__ = ["fuzz_settings", "bad_action_values", "int_like", "bad_seeds", "good_seeds"]


def fuzz_settings(max_examples: int, **kwargs) -> settings:
    """Bounded examples (times ``CARDRL_FUZZ_SCALE``), no deadline (the machine is shared), no too-slow check."""
    scale = int(os.environ.get("CARDRL_FUZZ_SCALE", "1"))
    return settings(max_examples=max_examples * max(scale, 1), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], **kwargs)


def int_like(values: st.SearchStrategy[int]) -> st.SearchStrategy:
    """An int as Python's int or as a numpy integer of a dtype that holds it."""
    def typed(v: int):
        kinds = [int] + [t for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64)
                         if np.iinfo(t).min <= v <= np.iinfo(t).max]
        return st.sampled_from(kinds).map(lambda t: t(v))

    return values.flatmap(typed)


def bad_action_values() -> st.SearchStrategy:
    """Values that are not an int action id: strings, floats (NaN and inf too), bools, None, arrays, containers."""
    return st.one_of(
        st.text(max_size=6), st.binary(max_size=4), st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(), st.sampled_from([np.bool_(True), np.bool_(False)]), st.just(None),
        st.integers(0, 10).map(np.array), st.integers(0, 10).map(lambda v: np.array([v])),
        st.integers(0, 10).map(np.float32), st.integers(0, 10).map(float), st.integers(0, 10).map(complex),
        st.lists(st.integers(0, 10), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))


def good_seeds() -> st.SearchStrategy:
    """Seeds an env accepts: None, or a non-negative int of any size (Python or numpy)."""
    return st.one_of(st.just(None), int_like(st.integers(0, 2**64 - 1)), st.integers(2**64, 2**200))


def bad_seeds() -> st.SearchStrategy:
    """Seeds an env refuses: negative ints, floats, strings, bools, containers."""
    return st.one_of(int_like(st.integers(-2**70, -1)), st.floats(), st.text(max_size=4), st.booleans(),
                     st.sampled_from([np.bool_(True), np.float64(3.0), np.array(3), [1], (2,), b"1"]))
