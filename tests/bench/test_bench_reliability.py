"""The arithmetic of ``cardrl bench chaos`` and ``cardrl bench soak`` (cardrl/bench/reliability.py): the fault
schedule, progress records as first seen across a --resume, time to recover, the stall detector, least-squares
growth and its projection; and the pure parts of the two commands (process roles, ``ray memory``'s line, the fault
outcomes, the strength comparison, the soak's series)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardrl.bench.chaos import compare_strength, fault_outcomes
from cardrl.bench.chaos_run import parse_resumed
from cardrl.bench.reliability import (Observation, ProgressWatch, fault_plan, growth, least_squares, longest_stall,
                                      new_records, stalled_for, time_to_recover)
from cardrl.bench.run_processes import parse_object_store, role_of
from cardrl.bench.soak import format_soak, in_training, summarise_soak


# ---- the schedule --------------------------------------------------------------------------------------------------
def test_fault_plan_puts_runner_kills_on_multiples_and_driver_faults_at_their_times():
    plan = fault_plan(3600, 300, [1200, 2400], 1800)
    assert [t for t, k in plan if k == "runner"] == [300 * k for k in range(1, 12)]  # 3600 itself is the end
    assert [(t, k) for t, k in plan if k != "runner"] == [(1200, "driver"), (1800, "checkpoint"), (2400, "driver")]
    assert [t for t, _ in plan] == sorted(t for t, _ in plan)
    assert fault_plan(60) == []


@pytest.mark.parametrize("kwargs, match", [
    (dict(duration_s=0), "--duration must be > 0"),
    (dict(duration_s=60, kill_runner_every_s=0), "--kill-runner-every must be > 0"),
    (dict(duration_s=60, kill_driver_at_s=[60]), "--kill-driver-at 60s is outside the run"),
    (dict(duration_s=60, interrupt_checkpoint_at_s=-1), "--interrupt-checkpoint-at -1s is outside the run"),
    (dict(duration_s=60, kill_driver_at_s=[30], interrupt_checkpoint_at_s=30), "two driver faults at the same"),
])
def test_fault_plan_refuses_impossible_schedules(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fault_plan(**kwargs)


# ---- records as first seen ----------------------------------------------------------------------------------------
def _rec(iteration, frames, **more):
    return {"iteration": iteration, "frames_trained": frames, **more}


def test_new_records_after_a_resume_moved_records_aside():
    seen = [_rec(1, 100), _rec(2, 200), _rec(3, 300)]
    assert new_records(seen, seen + [_rec(4, 400)]) == (3, [_rec(4, 400)])
    # --resume from iteration 2's checkpoint: iteration 3 moved aside, a new iteration 3 with the same frames
    resumed = [_rec(1, 100), _rec(2, 200), _rec(3, 300, time_s=9.0)]
    assert new_records(seen, resumed) == (2, [_rec(3, 300, time_s=9.0)])
    assert new_records(seen, seen[:2]) == (2, [])


def test_progress_watch_stamps_each_record_once_and_marks_rises(tmp_path):
    path = tmp_path / "progress.jsonl"
    watch = ProgressWatch(tmp_path)
    assert watch.poll(0.0) == [] and watch.frames == 0  # no file yet
    path.write_text("".join(json.dumps(r) + "\n" for r in [_rec(1, 100), _rec(2, 200, env_runner_restarts=1)])
                    + '{"cut sh')
    first = watch.poll(1.0)
    assert [(o.t, o.frames, o.rose, o.restarts) for o in first] == [(1.0, 100, True, 0), (1.0, 200, True, 1)]
    assert watch.poll(2.0) == []
    path.write_text(json.dumps(_rec(1, 100)) + "\n" + json.dumps(_rec(2, 150)) + "\n"
                    + json.dumps({**_rec(2, 150), "final": True}) + "\n")  # resumed, then the final record
    again = watch.poll(3.0)
    assert [(o.frames, o.rose) for o in again] == [(150, True), (150, False)]
    assert watch.frames == 150 and len(watch.observations) == 4


# ---- recovery and stalls --------------------------------------------------------------------------------------------
def _obs(*pairs):
    out, before = [], None
    for t, frames in pairs:
        out.append(Observation(t, frames, before is None or frames > before))
        before = frames
    return out


def test_time_to_recover_is_the_first_record_above_the_frames_it_went_on_from():
    series = _obs((10, 1000), (20, 2000), (30, 3000), (70, 2500), (80, 3500))  # driver killed at 35, resumed at 2000
    assert time_to_recover(series, 35, 2000) == 35  # the resumed driver's first record, at 70
    assert time_to_recover(series, 35, 3000) == 45  # back above the frames at the kill
    assert time_to_recover(series, 12, 1000) == 8
    assert time_to_recover(series, 80, 3500) is None


def test_stall_detector_counts_from_the_last_rise_or_the_start():
    series = _obs((10, 1000), (20, 2000), (25, 2000), (90, 3000))
    assert stalled_for(series, 24) == 4
    assert stalled_for(series, 80) == 60  # 25's record did not rise
    assert stalled_for([], 50) == 50 and stalled_for([], 50, start=20) == 30
    assert longest_stall(series, 100) == 70
    assert longest_stall([], 40) == 40


@given(st.lists(st.tuples(st.floats(0, 1e4), st.integers(0, 10**6)), min_size=1, max_size=30))
def test_longest_stall_bounds_every_stall(pairs):
    series = _obs(*sorted(pairs))
    end = max(t for t, _ in pairs) + 1
    longest = longest_stall(series, end)
    assert all(stalled_for(series, now) <= longest + 1e-9 for now in [o.t for o in series] + [end])


# ---- growth ---------------------------------------------------------------------------------------------------------
@given(st.floats(-100, 100), st.floats(1, 1e4), st.lists(st.floats(0, 1e5), min_size=2, max_size=20, unique=True))
def test_least_squares_recovers_a_line(slope, intercept, xs):
    ys = [intercept + slope * x for x in xs]
    if max(xs) - min(xs) < 1e-3:
        return
    got_slope, got_intercept = least_squares(xs, ys)
    assert got_slope == pytest.approx(slope, rel=1e-6, abs=1e-6)
    assert got_intercept == pytest.approx(intercept, rel=1e-6, abs=1e-3)


def test_growth_in_mb_per_hour_projected_to_a_day():
    t = [0, 600, 1200, 1800, 2400, 3000, 3600]
    mb = [1000 + 2 * k for k in range(7)]  # 2 MB per 10 minutes: 12 MB/h
    g = growth(t, mb)
    assert g["slope_mb_per_h"] == pytest.approx(12)
    assert g["projected_24h_mb"] == pytest.approx(1000 + 12 * 24)
    assert g["pct_per_h"] == pytest.approx(100 * 12 / 1006)
    assert growth([0, 60], [500, 500])["pct_per_h"] == 0
    with pytest.raises(ValueError, match="2 or more distinct"):
        growth([5], [1])


def test_soak_summary_leaves_out_the_warmup_and_gives_the_slope_per_deals():
    samples = [{"t": t, "deals": 100 * t, "rss_by_role": {"driver": 900 + (200 if t < 100 else t / 60),
                                                           **({"env_runner": 700.0} if t >= 200 else {})},
                "rss_total_mb": 0.0, "object_store_mb": 3, "buffer_mb": None} for t in range(0, 3601, 60)]
    summary = summarise_soak(samples, warmup_s=120)
    assert summary["rss driver"]["slope_mb_per_h"] == pytest.approx(60)  # the warm-up's 1,100 MB left out
    assert summary["rss driver"]["slope_mb_per_10k_deals"] == pytest.approx(10_000 / 6000)
    assert summary["rss env_runner"]["slope_mb_per_h"] == pytest.approx(0)
    assert summary["object store"]["pct_per_h"] == 0 and "buffers" not in summary
    assert not any(name.startswith("private ") for name in summary)  # no object-store pages recorded


def test_soak_summary_separates_the_object_store_pages_from_a_process_own_memory():
    """The raylet touches more of the store's pages as objects of varied sizes come and go: its RSS grows, its own
    memory does not; a role whose pages stay under 1 MB gets no private row."""
    samples = [{"t": t, "deals": 10 * t, "rss_by_role": {"raylet": 30 + t / 360, "driver": 900.0},
                "shmem_by_role": {"raylet": t / 360, "driver": 0.5}, "rss_total_mb": 0.0, "object_store_mb": None,
                "buffer_mb": None} for t in range(0, 3601, 60)]
    summary = summarise_soak(samples, warmup_s=0)
    assert summary["rss raylet"]["slope_mb_per_h"] == pytest.approx(10)
    assert summary["private raylet"]["slope_mb_per_h"] == pytest.approx(0, abs=1e-9)
    assert summary["private raylet"]["mean_mb"] == pytest.approx(30)
    assert "private driver" not in summary
    md = format_soak({"game": "g", "command": "c", "machine": "m", "load_before": 0.0, "date": "d",
                      "samples": samples, "every_s": 60, "warmup_s": 0, "frames": 1, "deals": 1, "summary": summary,
                      "failures": []})
    assert "| private raylet | 61 | 30.0 | 30.0 | +0.00 | +0.00 |" in md and "| rss raylet |" in md


# ---- the commands' pure parts ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cmdline, role", [
    (["ray::DMCEnvRunner.sample"], "env_runner"), (["ray::DMCEnvRunner"], "env_runner"),
    (["ray::DMCLearner.update"], "learner"), (["ray::IDLE"], "idle_worker"),
    (["ray::DashboardAgent"], "DashboardAgent"),
    (["/x/ray/core/src/ray/gcs/gcs_server", "--gcs_server_port=0"], "gcs_server"),
    (["/x/ray/core/src/ray/raylet/raylet", "--gcs-address=1.2.3.4:5"], "raylet"),
    (["python", "-u", "/x/ray/_private/log_monitor.py", "--x"], "log_monitor"),
    (["python", "-u", "/x/ray/dashboard/agent.py"], "dashboard_agent"), ([], "unknown"),
])
def test_role_of_a_ray_process(cmdline, role):
    assert role_of(cmdline) == role


def test_parse_object_store_and_resumed_lines():
    text = "--- Aggregate object store stats across all nodes ---\nPlasma memory usage 12 MiB, 7 objects, 0.1% full"
    assert parse_object_store(text) == {"mb": 12, "objects": 7}
    assert parse_object_store("Authentication required") is None
    assert parse_resumed("x\nresumed from /r/checkpoint: iteration 12, frames 38,400, 90s trained\n") == \
        ("/r/checkpoint", 38400)
    assert parse_resumed("--resume: /r has no complete checkpoint; starting a fresh run") == ("", 0)
    assert parse_resumed("building the algorithm") is None


def test_fault_outcomes_and_strength_comparison():
    obs = [Observation(10, 1000, True), Observation(20, 2000, True, restarts=1), Observation(60, 1500, True, 1),
           Observation(70, 2600, True, 1)]
    faults = [{"kind": "runner", "t": 15, "frames_at": 1000, "base_frames": 1000, "restarts_at": 0},
              {"kind": "driver", "t": 25, "frames_at": 2000, "base_frames": 1200, "restarts_at": 1}]
    runner, driver = fault_outcomes(faults, obs)
    assert runner["recover_s"] == 5 and runner["runner_back_s"] == 5
    assert driver["recover_s"] == 35 and driver["frames_lost"] == 800
    ev = lambda adp, lo, hi: {"adp": adp, "adp_low": lo, "adp_high": hi}  # noqa: E731
    cmp = compare_strength({"eval": {"random": ev(0.5, 0.3, 0.7)}},
                           {"eval": {"random": ev(0.6, 0.45, 0.75), "rule": ev(-0.2, -0.4, 0.0)}})
    assert cmp["random"]["difference"] == pytest.approx(-0.1) and cmp["random"]["inside"]
    assert "chaos" not in cmp["rule"]


def test_fault_plan_places_node_kills_and_refuses_one_outside_the_run():
    assert fault_plan(600, kill_node_at_s=[300, 90]) == [(90, "node"), (300, "node")]
    assert fault_plan(600, 250, kill_node_at_s=[90]) == [(90, "node"), (250, "runner"), (500, "runner")]
    with pytest.raises(ValueError, match=r"--kill-node-at 600s is outside the run"):
        fault_plan(600, kill_node_at_s=[600])


def test_a_node_kill_outcome_from_the_records_until_the_next_fault():
    """A worker node killed at 100 s (frames 5,000; 2 runners, 3 requests lost before): frames rise on the other
    runner at 104 s with 1 runner healthy, the new node is up 30 s after the kill and the runner restarts 12 s later;
    the requests lost are counted up to the next fault, not beyond."""
    o = lambda t, frames, restarts=0, lost=3, healthy=2: Observation(t, frames, True, restarts, lost,  # noqa: E731
                                                                     healthy=healthy)
    obs = [o(90, 4000), o(100, 5000), o(104, 5400, lost=4, healthy=1), o(120, 6000, lost=4, healthy=1),
           o(142, 7000, restarts=1, lost=4), o(210, 9000, restarts=1, lost=5, healthy=1)]
    faults = [{"kind": "node", "t": 100.5, "frames_at": 5000, "base_frames": 5000, "restarts_at": 0,
               "samples_lost_at": 3, "healthy_at": 2, "node_added_s": 30.0, "node": "n_w00", "killed": ["raylet"]},
              {"kind": "node", "t": 200.0, "frames_at": 8800, "base_frames": 8800, "restarts_at": 1,
               "samples_lost_at": 4, "healthy_at": 2, "node": "n_w01", "killed": ["raylet"]}]
    first, second = fault_outcomes(faults, obs)
    assert first["recover_s"] == pytest.approx(3.5) and first["runner_back_s"] == pytest.approx(41.5)
    assert first["runner_back_after_node_s"] == pytest.approx(11.5)
    assert first["frames_lost"] == 0 and first["requests_lost"] == 1 and first["fewest_healthy"] == 1
    # no node added for the second (the run ended first): no restart, one request lost, frames rose
    assert second["runner_back_s"] is None and second["runner_back_after_node_s"] is None
    assert second["requests_lost"] == 1 and second["recover_s"] == pytest.approx(10.0)
    # a learner whose state went back would show: frames below those at the kill
    (went_back,) = fault_outcomes([{**faults[0], "frames_at": 7500}], obs[:5])
    assert went_back["frames_lost"] == 7500 - 5400


def test_a_record_the_dying_driver_wrote_counts_before_the_fault(tmp_path, monkeypatch):
    """Regression: the run loop writes an iteration's record, then its checkpoint; a driver killed during that write
    had its last record stamped after the fault, and the torn checkpoint's recovery read 5.7 s."""
    from cardrl.bench.chaos_run import WatchedRun

    path = tmp_path / "progress.jsonl"
    path.write_text(json.dumps(_rec(1, 100)) + "\n")

    class DyingDriver:
        def kill_driver(self):
            return []

    run = WatchedRun(["train"], tmp_path, plan=[(1.0, "checkpoint")], say=lambda *a, **k: None)
    monkeypatch.setattr(run, "_launch", lambda resume: None)
    run.ray_tmpdir.rmdir()
    run.t0, run.driver, run._launched_at = time.time() - 1.0, DyingDriver(), 0.0
    run.watch.poll(0.5)
    with path.open("a") as f:  # written by the driver just before the kill, not yet polled
        f.write(json.dumps(_rec(2, 200)) + "\n")
    fault = {"kind": "checkpoint"}
    run._kill_and_resume(fault)
    run.watch.poll(run._now())  # the loop's next poll, the new driver not yet training
    assert fault["frames_at"] == 200
    assert time_to_recover(run.watch.observations, fault["t"], 100) is None  # no record after the fault yet


def test_a_soak_samples_only_a_run_in_training():
    """Regression: the soak's 45 s run took its last sample while shutting down (only the driver and two Ray
    daemons left, no object store), which bent every slope."""
    running = {"driver", "gcs_server", "raylet", "env_runner", "DashboardAgent"}
    assert in_training(running, _rec(5, 500))
    assert not in_training({"driver", "dashboard", "log_monitor", "monitor"}, _rec(5, 500))
    assert not in_training(running, {**_rec(5, 500), "final": True})
