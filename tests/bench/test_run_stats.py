"""Run-level statistics (cardrl.bench.run_stats) against values computed by hand on small sets of runs."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.bench.run_stats import (improvement, mean_over_runs, probability_of_improvement, runs_needed,
                                    time_to_threshold, verdict)


def test_the_mean_of_two_runs_has_the_bootstrap_interval_from_one_to_the_other():
    # resampling two runs gives the means a, (a+b)/2, b with probabilities 1/4, 1/2, 1/4: the 2.5th percentile is
    # a and the 97.5th is b
    m = mean_over_runs([1.0, 3.0])
    assert (m["mean"], m["low"], m["high"], m["runs"]) == (2.0, 1.0, 3.0, 2)
    assert m["iqm"] == 2.0


def test_one_run_has_no_spread_to_bootstrap():
    assert mean_over_runs([0.7]) == {"mean": 0.7, "low": 0.7, "high": 0.7, "iqm": 0.7, "runs": 1}


def test_the_interquartile_mean_leaves_a_quarter_out_at_each_end():
    m = mean_over_runs([0.0, 1.0, 2.0, 3.0, 100.0])
    assert m["iqm"] == pytest.approx(2.0) and m["mean"] == pytest.approx(21.2)
    assert m["low"] < m["mean"] < m["high"]


def test_intervals_are_the_same_each_time_and_leave_numpys_global_generator_alone():
    np.random.seed(5)
    expected_next = np.random.rand()
    np.random.seed(5)
    first = mean_over_runs([0.17, -0.5, 0.9, 0.3, 0.1])
    assert np.random.rand() == expected_next
    assert mean_over_runs([0.17, -0.5, 0.9, 0.3, 0.1]) == first


def test_bad_scores_are_refused():
    with pytest.raises(ValueError, match="no runs"):
        mean_over_runs([])
    with pytest.raises(ValueError, match="not a finite number"):
        mean_over_runs([1.0, float("nan")])


def test_probability_of_improvement_counts_run_pairs_with_ties_as_half():
    x, y = np.array([[1.0], [2.0], [3.0]]), np.array([[0.0], [2.0], [4.0]])
    # pairs x > y: (1,0) (2,0) (3,0) (3,2) = 4, tie (2,2) = 0.5, of 9
    assert probability_of_improvement(x, y) == pytest.approx(4.5 / 9)


def test_probability_of_improvement_is_rliables():
    from rliable import metrics

    rng = np.random.default_rng(1)
    for _ in range(20):
        x = rng.integers(0, 4, (int(rng.integers(2, 7)), 1)).astype(float)
        y = rng.integers(0, 4, (int(rng.integers(2, 7)), 1)).astype(float)
        assert probability_of_improvement(x, y) == pytest.approx(metrics.probability_of_improvement(x, y))


def test_runs_that_all_beat_the_others_are_ahead():
    c = improvement([2.0, 2.1, 2.2, 2.3, 2.4], [1.0, 1.1, 1.2, 1.3, 1.4])
    assert (c["probability"], c["probability_low"], c["probability_high"]) == (1.0, 1.0, 1.0)
    assert c["difference"] == pytest.approx(1.0) and c["difference_low"] > 0.8 and c["difference_high"] < 1.2
    assert verdict(c) == "ahead" and c["runs"] == (5, 5) and c["welch_p"] < 1e-5
    assert verdict(improvement([1.0, 1.1, 1.2], [2.0, 2.1, 2.2])) == "behind"


def test_overlapping_runs_are_not_apart_and_say_how_many_runs_would_decide():
    x, y = [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]
    c = improvement(x, y)
    assert c["probability"] == pytest.approx(2 / 9)  # pairs x > y: (3,2); ties (2,2) (3,3): 1 + 1 = 2 of 9
    assert c["difference"] == pytest.approx(-1.0) and verdict(c) == "not apart"
    # sd 1 on both sides, difference 1: 2 (1.95996 + 0.84162)^2 = 15.70, so 16 runs each
    assert runs_needed(x, y) == 16
    assert runs_needed([1.0], y) is None and runs_needed(x, x) is None


def test_a_side_with_one_run_gets_no_verdict():
    assert verdict(improvement([5.0], [1.0, 2.0])) == "one run on a side"
    assert verdict(improvement([5.0], [1.0])) == "one run each"


def test_time_to_threshold_counts_runs_that_never_got_there_as_last():
    assert time_to_threshold([300, None, 100]) == {"median": 300, "low": 100, "high": 300, "reached": 2, "runs": 3}
    assert time_to_threshold([None, None, 100])["median"] is None
    assert time_to_threshold([100, 300])["median"] == 200
    assert time_to_threshold([100, None])["median"] is None
    assert time_to_threshold([]) == {"median": None, "low": None, "high": None, "reached": 0, "runs": 0}
