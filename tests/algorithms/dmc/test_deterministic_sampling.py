"""DMC's deterministic mode (``deterministic``, `cardrl train --deterministic`) at the level of one `_collect` and of
the config: one request to each healthy remote runner, replies ingested in the runners' order whatever order they
arrive in, no driver sampling; the default mode unchanged (requests kept in flight, the driver sampling while it
waits). Fakes stand for the runner group; the real runs are tests/algorithms/training/test_deterministic_runs.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cardrl.algorithms.dmc.counters import DMCCounters
from cardrl.algorithms.dmc.dmc_sampling import SAMPLE_TAG, DMCSampling


class FakeGroup:
    """Remote runners ``ids`` whose replies come back in ``arrival`` order, one per fetch (none on the first)."""

    def __init__(self, ids, arrival, dies=()):
        self.ids, self.arrival, self.dies = list(ids), list(arrival), set(dies)
        self.sent: list[int] = []
        self.pending: list[int] = []
        self.fetches = 0

    def num_remote_env_runners(self):
        return len(self.ids)

    def healthy_env_runner_ids(self):
        return [r for r in self.ids if not (r in self.dies and self.fetches > 1)]

    def foreach_env_runner_async(self, func, tag, kwargs, remote_worker_ids):
        assert func == "sample" and tag == SAMPLE_TAG and kwargs["weights_seq_no"] == 7
        self.sent += remote_worker_ids
        self.pending += remote_worker_ids
        return 1

    def fetch_ready_async_reqs(self, tags, timeout_seconds):
        self.fetches += 1
        if self.fetches == 1:
            return []
        for r in self.arrival:
            if r in self.pending and r not in self.dies:
                self.pending.remove(r)
                return [(r, {"from": r})]
        return []


class FakeLocalRunner:
    def __init__(self):
        self.calls = []

    def sample(self, **kwargs):
        self.calls.append(kwargs)
        return {"from": "driver"}


class Sampler(DMCSampling):
    def __init__(self, group, deterministic):
        self.config = SimpleNamespace(deterministic=deterministic, driver_sample_frames=200,
                                      schedule_values=lambda frames: {})
        self.env_runner_group, self.env_runner = group, FakeLocalRunner()
        self.counters, self._in_flight = DMCCounters(weights_seq_no=7), {}

    def _weights(self):
        return "weights"


def test_deterministic_collect_sends_one_request_per_runner_and_returns_them_in_the_runners_order():
    group = FakeGroup([1, 2, 3], arrival=[3, 1, 2])
    sampler = Sampler(group, deterministic=True)
    assert sampler._collect() == [{"from": 1}, {"from": 2}, {"from": 3}]
    assert group.sent == [1, 2, 3] and not sampler.env_runner.calls  # the driver sampled nothing
    assert sampler._in_flight == {1: 0, 2: 0, 3: 0}


def test_deterministic_collect_counts_the_request_of_a_runner_that_died_as_lost():
    group = FakeGroup([1, 2], arrival=[2, 1], dies={1})
    sampler = Sampler(group, deterministic=True)
    assert sampler._collect() == [{"from": 2}]
    assert sampler.counters.env_runner_samples_lost == 1 and 1 not in sampler._in_flight


def test_without_deterministic_the_driver_samples_while_it_waits_and_replies_come_as_they_arrive():
    """The default mode is unchanged: the first fetch finds nothing ready, so the driver plays driver_sample_frames
    itself, and what it returns is what was ready, in the order it came."""
    group = FakeGroup([1, 2], arrival=[2, 1])
    sampler = Sampler(group, deterministic=False)
    assert sampler._collect() == [{"from": "driver"}, {"from": 2}]  # runner 2's reply came first
    assert sampler.env_runner.calls[0]["num_frames"] == 200
    assert group.sent == [1, 2, 1, 2]  # every runner handed a new request each round: requests kept in flight


def test_deterministic_collect_without_remote_runners_samples_on_the_local_one():
    group = FakeGroup([], arrival=[])
    sampler = Sampler(group, deterministic=True)
    assert sampler._collect() == [{"from": "driver"}]
    assert "num_frames" not in sampler.env_runner.calls[0]  # a whole rollout fragment


def test_a_deterministic_config_needs_a_seed_and_refuses_driver_sampling():
    from cardrl.algorithms.dmc.dmc import DMCConfig

    def problems(**training):
        config = DMCConfig().game("doudizhu").training(deterministic=True, **training).debugging(seed=3)
        return config

    problems().validate()
    problems(driver_sample_frames=0).validate()  # what the mode does anyway
    with pytest.raises(ValueError, match=r"driver_sample_frames=50 with deterministic=True: a deterministic run "
                                         r"samples on the env runners only"):
        problems(driver_sample_frames=50).validate()
    with pytest.raises(ValueError, match=r"deterministic=True fixes a run by its seed, but seed is None"):
        DMCConfig().game("doudizhu").training(deterministic=True).validate()
    assert DMCConfig().deterministic is False
