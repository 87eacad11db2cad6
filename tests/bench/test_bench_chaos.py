"""``cardrl bench chaos`` and ``cardrl bench soak`` end to end on real ``cardrl train`` drivers and their own local
Ray (slow): a chaos run with one env runner killed and the driver killed and resumed, whose frames rise after each;
a soak of a minute with its samples, slopes and plot. The arithmetic is tested in test_bench_reliability.py."""

from __future__ import annotations

import json
import sys

import pytest

from cardrl.bench.cli import main_bench

pytestmark = pytest.mark.slow


def test_chaos_run_recovers_from_a_runner_kill_and_a_driver_kill(tmp_path):
    code = main_bench(["chaos", "doudizhu", "--frames", "40000", "--duration", "30s", "--kill-runner-every", "20s",
                       "--kill-driver-at", "25s", "--checkpoint-every", "5s", "--eval-deals", "10", "--against",
                       "random", "--stall-bound", "4m", "--out", str(tmp_path)])
    report = json.loads((tmp_path / "chaos.json").read_text())
    assert code == 0 and report["passed"], report["failures"]
    runner, driver = report["chaos"]["faults"]
    assert (runner["kind"], driver["kind"]) == ("runner", "driver") and not report["chaos"]["not_applied"]
    assert runner["recover_s"] is not None and driver["recover_s"] is not None  # frames rose after each
    assert driver["recover_s"] < 240 and runner["recover_s"] < 240
    # the resume went on from the newest complete checkpoint, which the dead driver had written
    assert driver["resumed_from"] == driver["expected_checkpoint"] and driver["base_frames"] > 0
    chaos = report["chaos"]
    assert chaos["driver_launches"] == 2 and chaos["frames"] >= 40000
    frames = [f for _, f in chaos["series"]]
    assert max(frames) >= 40000
    assert report["strength"] == {}  # --frames: no undisturbed run to compare with
    md = (tmp_path / "chaos.md").read_text()
    assert "| 1 | runner |" in md and "| 2 | driver |" in md and "verdict: passed" in md


def test_soak_samples_every_process_and_reports_slopes(tmp_path):
    code = main_bench(["soak", "doudizhu", "--duration", "40s", "--every", "10s", "--warmup", "0", "--out",
                       str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "soak.json").read_text())
    assert len(report["samples"]) >= 2
    roles = set().union(*(s["rss_by_role"] for s in report["samples"]))
    assert {"driver", "env_runner", "raylet", "gcs_server"} <= roles
    assert all(s["object_store_mb"] is not None for s in report["samples"])  # ray memory answered
    assert all({"gcs_server", "raylet"} <= set(s["rss_by_role"]) for s in report["samples"])  # none at shutdown
    if sys.platform == "linux":  # the object-store pages in each RSS, from /proc/PID/status
        assert all(s["shmem_by_role"]["raylet"] >= 0 for s in report["samples"])
    driver = report["summary"]["rss driver"]
    assert driver["samples"] >= 2 and driver["mean_mb"] > 100 and "slope_mb_per_h" in driver
    assert (tmp_path / "soak.png").stat().st_size > 1000
    assert "| rss env_runner |" in (tmp_path / "soak.md").read_text()
