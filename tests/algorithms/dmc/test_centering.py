"""Centred DMC targets (``target_baseline="seat_mean"``): the running mean by hand, the actor's stored targets, and
the options that contradict it."""

from __future__ import annotations

from collections import defaultdict

import pytest

from cardrl.algorithms.dmc.centering import SeatReturnMean


def test_seat_return_mean_by_hand():
    mean = SeatReturnMean(0.5)
    assert mean.baseline("landlord") == 0.0
    assert mean.centre("landlord", 1.0) == 1.0  # nothing seen: baseline 0
    # m1 = 0.5 * 1 = 0.5, corrected by 1 - 0.5^1: baseline 1.0
    assert mean.baseline("landlord") == pytest.approx(1.0)
    assert mean.centre("landlord", -1.0) == pytest.approx(-2.0)
    # m2 = 0.5 * 0.5 + 0.5 * -1 = -0.25, corrected by 1 - 0.5^2 = 0.75: -1/3
    assert mean.baseline("landlord") == pytest.approx(-1 / 3)
    assert mean.centre("landlord", 2.0) == pytest.approx(2 + 1 / 3)
    assert mean.baseline("landlord_up") == 0.0  # seats apart
    assert set(mean.baselines()) == {"landlord"}


def test_seat_return_mean_converges_to_the_mean_return():
    import numpy as np

    rng = np.random.default_rng(0)
    mean = SeatReturnMean(0.01)
    for g in rng.choice([-1.0, 1.0], p=[0.7, 0.3], size=3000):
        mean.centre("landlord", float(g))
    assert mean.baseline("landlord") == pytest.approx(-0.4, abs=0.12)


@pytest.mark.parametrize("rate", [0, -0.1, 1.5, True, "0.1"])
def test_seat_return_mean_refuses_bad_rates(rate):
    with pytest.raises(ValueError, match="target_baseline_rate"):
        SeatReturnMean(rate)


def test_the_actor_stores_centred_targets_per_seat():
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

    config = (DMCConfig().game("doudizhu")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=100)
              .training(frames_per_update=128, target_baseline="seat_mean", target_baseline_rate=0.2, epsilon=1.0)
              .debugging(seed=3))
    runner = DMCEnvRunner(config=config, worker_index=1)
    expected: dict[str, SeatReturnMean] = defaultdict(lambda: SeatReturnMean(0.2))
    out = defaultdict(lambda: defaultdict(list))
    targets: dict[str, list] = defaultdict(list)
    original = runner.target_baseline.centre

    def centre(seat, target):  # the same arithmetic, replayed beside the runner's own
        targets[seat].append(expected[seat].centre(seat, target))
        return original(seat, target)

    runner.target_baseline.centre = centre
    while min(len(targets[s]) for s in ("landlord", "landlord_down", "landlord_up")) < 6:
        runner._tick(out)
    stored = {mid: [float(t[0]) for t in cols["target"]] for mid, cols in out.items()}
    for seat in ("landlord", "landlord_down", "landlord_up"):
        assert stored[seat] == pytest.approx(targets[seat][:len(stored[seat])])
    assert runner.sample(num_frames=50)["target_baselines"].keys() == {"landlord", "landlord_down", "landlord_up"}
    runner.stop()


def test_centred_targets_refuse_a_reward_range_clip_and_a_lone_rate():
    from cardrl.algorithms.dmc.dmc import DMCConfig

    DMCConfig().game("doudizhu").training(target_baseline="seat_mean").validate()
    with pytest.raises(ValueError, match="reward range"):
        DMCConfig().game("doudizhu").training(target_baseline="seat_mean", q_clip="range").validate()
    with pytest.raises(ValueError, match="target_baseline_rate is set but target_baseline is not"):
        DMCConfig().game("doudizhu").training(target_baseline_rate=0.05).validate()
    with pytest.raises(ValueError, match="unknown"):
        DMCConfig().game("doudizhu").training(target_baseline="median").validate()
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        DMCConfig().game("doudizhu").training(target_baseline="seat_mean", target_baseline_rate=2.0).validate()
