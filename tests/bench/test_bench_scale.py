"""``cardrl bench scale``: the scaling model's report (machine on top, every measured term, the assumptions named,
one prediction per cluster and learner, the runner counts measured or skipped) from a real run with tiny durations,
and the model's consistency: predictions are the smallest of their terms, sampling grows with the CPUs, a GPU learner
never predicts less than a CPU one, and the saturation point is where the runners outpace the learner. No speed is
asserted."""

from __future__ import annotations

import math

import pytest

from cardrl.bench import scale, scale_model
from cardrl.cli import build_parser, main

CLUSTERS = (4, 16, 64, 160)
TERMS = ("r1", "learner", "bytes_per_frame", "s_out", "s_in", "weight_bytes", "t_pub", "t_put", "t_get", "t_set")


@pytest.fixture(scope="module")
def result():
    return scale.bench_scale("doudizhu", seconds=0.2, frames_per_update=64, clusters=CLUSTERS, runners=[],
                             broadcast_repeats=2)


def test_every_term_is_measured(result):
    m = result["measured"]
    for key in TERMS:
        assert m[key] > 0 and math.isfinite(m[key]), key
    assert m["frames_per_update"] == 64 and m["modules"] == 3  # one Q-network per DouDiZhu seat
    assert m["fragment"] >= 1 and m["runner_frames"] >= m["fragment"]
    assert m["weight_bytes"] > 1e5 and 100 < m["bytes_per_frame"] < 1e5
    assert m["t_put"] <= m["t_pub"] * (1 + 1e-9)  # the put is part of the publication
    assert result["assumed"]["gpu_speedup"] in (None, scale_model.DEFAULT_GPU_SPEEDUP)


def test_report_structure(result):
    lines = result["table"].splitlines()
    assert lines[0].startswith("cardrl bench scale doudizhu: ")
    assert lines[1].startswith("machine: ") and " cores, Python " in lines[1] and "torch " in lines[1]
    text = result["table"]
    for symbol in ("r1", "L", "b", "s_out", "s_in", "W", "t_pub", "t_get", "t_set"):
        assert any(line.split()[:1] == [symbol] for line in lines), symbol
    assert "ASSUMED" in text or "measured (the learner ran on the GPU)" in text
    assert "docs/scaling.md" in text and "none measured (--runners none)" in text
    head = next(i for i, line in enumerate(lines) if line.startswith("predicted frames trained per second"))
    rows = [line.split() for line in lines[head + 2: head + 2 + len(result["predictions"])]]
    assert [int(r[0]) for r in rows] == [p["cpus"] for p in result["predictions"]]
    assert {r[1] for r in rows} <= {"CPU", "GPU"} and all(r[7] in ("sampling", "learner", "network") for r in rows)


def test_predictions_are_consistent(result):
    preds = result["predictions"]
    kinds = sorted({p["gpu"] for p in preds})
    assert len(preds) == len(CLUSTERS) * len(kinds)
    for gpu in kinds:
        rows = [p for p in preds if p["gpu"] == gpu]
        assert [p["cpus"] for p in rows] == list(CLUSTERS)
        assert [p["runners"] for p in rows] == [c - 1 for c in CLUSTERS]
        sampling = [p["sampling"] for p in rows]
        assert sampling == sorted(sampling) and len(set(sampling)) == len(sampling)  # more CPUs, more sampling
        assert len({round(p["learner"], 6) for p in rows}) == 1  # the learner does not depend on the cluster
        one_node = [p["predicted"] for p in rows if math.isinf(p["network"])]
        assert one_node == sorted(one_node)  # on one node more CPUs never predict less
        for p in rows:
            terms = {k: p[k] for k in ("sampling", "learner", "network")}
            assert p["predicted"] == min(terms.values()) and p["bound"] == min(terms, key=terms.get)
            assert p["predicted"] <= p["learner"] and p["predicted"] <= p["sampling"]
            assert p["saturation_runners"] * p["runner_rate"] >= p["learner"] * (1 - 1e-9)
            assert (p["saturation_runners"] - 1) * p["runner_rate"] < p["learner"]
            assert p["saturation_cpus"] == p["saturation_runners"] + 1
    if len(kinds) == 2:
        for cpu, gpu in zip([p for p in preds if not p["gpu"]], [p for p in preds if p["gpu"]]):
            assert gpu["learner"] >= cpu["learner"] and gpu["predicted"] >= cpu["predicted"] * (1 - 1e-9)


def _terms(**over) -> dict:
    m = {"r1": 1000.0, "learner": 3000.0, "learner_on_gpu": False, "fragment": 800, "frames_per_update": 3200,
         "modules": 3, "s_out": 1e-6, "s_in": 2e-6, "t_pub": 0.05, "t_get": 0.001, "t_set": 0.004,
         "bytes_per_frame": 1300.0, "weight_bytes": 18e6}
    return {**m, **over}


def test_model_terms_move_the_right_way():
    m = _terms()
    assert scale_model.runner_rate(1000.0, 800, 0, 0, 0) == pytest.approx(1000.0)
    assert scale_model.runner_rate(1000.0, 800, 0, 0.1, 0) < scale_model.runner_rate(1000.0, 800, 0, 0.01, 0)
    assert scale_model.learner_rate(3000.0, 0, 0, 3200, speedup=10) == pytest.approx(30000.0)
    assert scale_model.learner_rate(3000.0, 1e-5, 0.05, 9600, speedup=30) < 30 * 3000
    assert math.isinf(scale_model.network_cap(16, 15, 16, 1300, 18e6, 9600, 10))
    caps = [scale_model.network_cap(c, c - 1, 16, 1300, 18e6, 9600, 10) for c in (32, 64, 160)]
    assert caps == sorted(caps, reverse=True)  # more nodes: more weight copies out of the learner's node
    fast = scale_model.predict(_terms(learner=1e9), 64, gpu=False)
    assert fast["bound"] == "sampling"
    slow = scale_model.predict(_terms(r1=1e9), 4, gpu=False)
    assert slow["bound"] == "learner" and slow["saturation_runners"] == 1
    assert scale_model.predict(m, 16, gpu=True)["learner"] > scale_model.predict(m, 16, gpu=False)["learner"]
    assert scale_model.predict_here(m, 1, 2) == pytest.approx(min(scale_model.predict(m, 2, gpu=False)["sampling"],
                                                            scale_model.predict(m, 2, gpu=False)["learner"]))
    assert scale_model.predict_here(m, 4, 2) < scale_model.predict_here(m, 1, 2) * 4  # 5 processes on 2 cores
    with pytest.raises(ValueError, match="no CPU left for a runner"):
        scale_model.predict(m, 1, gpu=False)


def test_runner_counts_and_flags(capsys):
    assert scale_model.default_runner_counts(2) == [1]
    assert scale_model.default_runner_counts(8) == [1, 2, 4]
    assert scale_model.default_runner_counts(160) == [1, 2, 4, 8, 16, 32, 64, 128]
    assert scale_model.parse_counts("1, 2,4", "--runners") == [1, 2, 4]
    assert scale_model.parse_counts("none", "--runners") == []
    for bad in ("1,x", "-2", "0,1"):
        with pytest.raises(ValueError, match="comma-separated positive ints"):
            scale_model.parse_counts(bad, "--runners")
    args = build_parser().parse_args(["bench", "scale", "doudizhu", "--gpu-speedup", "12", "--runners", "1,2"])
    assert (args.target, args.game, args.gpu_speedup, args.runners) == ("scale", "doudizhu", 12.0, "1,2")
    for bad, message in ((["--runners", "two"], "--runners takes comma-separated positive ints"),
                         (["--clusters", "1,16"], "every cluster needs more CPUs than the learner's 1"),
                         (["--seconds", "0"], "argument --seconds: '0' is not a finite number > 0"),
                         (["--frames-per-update", "0"], "argument --frames-per-update: 0 is below 1")):
        try:  # refused before anything is measured: by the check, or by argparse
            code = main(["bench", "scale", "doudizhu", *bad])
        except SystemExit as exit_:
            code = exit_.code
        assert code == 2, bad
        assert f"cardrl bench scale: error: {message}" in capsys.readouterr().err, bad
