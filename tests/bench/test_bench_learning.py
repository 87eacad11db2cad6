"""``cardrl bench learning``: the figures over runs on synthetic runs, reading a run's progress, keeping runs, the
variants' flags; one real end-to-end run (slow). The statistics themselves: tests/bench/test_run_stats.py."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

from cardrl.bench.learning import VARIANTS, stage_spec, stages, train_argv, variant_flags, variants_for
from cardrl.bench.learning_format import format_learning
from cardrl.bench.learning_report import compare, first_above_zero, read_run, summarise, training_seconds


def test_first_above_zero_is_the_first_interval_above_zero_in_frames():
    curve = [{"frames": 300, "minutes": 3.0, "adp_low": 0.2}, {"frames": 100, "minutes": 1.0, "adp_low": -0.5},
             {"frames": 200, "minutes": 2.0, "adp_low": 0.0}, {"frames": 400, "minutes": 4.0, "adp_low": -0.1}]
    assert first_above_zero(curve) == {"frames": 300, "minutes": 3.0}  # 0.0 is not above 0; a later dip is ignored
    assert first_above_zero([{"frames": 100, "adp_low": -0.01}, {"frames": 200, "adp_low": -2.0}]) is None
    assert first_above_zero([]) is None


def _ev(adp, sd=1.0, deals=100):
    half = 1.984 * sd / math.sqrt(deals)
    return {"adp": adp, "adp_low": adp - half, "adp_high": adp + half, "deals": deals, "adp_sd": sd}


def _run(evals, train_s, machine="m"):
    return {"evals": {m: {"train_s": t, "results": r} for m, (t, r) in evals.items()}, "frames": max(evals),
            "train_s": train_s, "frames_per_s": max(evals) / train_s, "done": True, "matches": None,
            "machine": machine}


def test_summarise_takes_runs_as_the_unit_and_times_each_run():
    passes = {"landlord": {"decisions": 10, "passed": 9}, "peasants": {"decisions": 10, "passed": 1}}
    runs = {"dmc": {
        1: _run({100: (60, {"random": {**_ev(-0.5), "passes": passes}}), 200: (120, {"random": _ev(0.5)})}, 120),
        2: _run({100: (30, {"random": {**_ev(0.5), "passes": {"landlord": {"decisions": 30, "passed": 3}}}}),
                 200: (90, {"random": _ev(1.0)})}, 90)}}
    s = summarise(runs, ["random"])["dmc"]
    points = s["by_frames"]["random"]
    assert [p["frames"] for p in points] == [100, 200] and [p["runs"] for p in points] == [2, 2]
    # the mean of the two runs' scores, with the bootstrap interval of two runs: from one's score to the other's
    assert (points[0]["mean"], points[0]["low"], points[0]["high"]) == (pytest.approx(0.0), -0.5, 0.5)
    assert points[1]["mean"] == pytest.approx(0.75) and points[1]["scores"] == {1: 0.5, 2: 1.0}
    assert points[0]["minutes"] == pytest.approx(0.75)  # the median of 1.0 and 0.5 training minutes
    assert points[0]["pass_rate"] == {"landlord": pytest.approx(12 / 40), "peasants": pytest.approx(0.1)}
    assert s["reached"]["random"] == {1: {"frames": 200, "minutes": 2.0}, 2: {"frames": 100, "minutes": 0.5}}
    assert s["to_threshold"]["random"]["frames"] == {"median": 150, "low": 100, "high": 200, "reached": 2, "runs": 2}
    assert s["to_threshold"]["random"]["minutes"]["m"]["median"] == pytest.approx(1.25)
    # by minutes on their one machine: run 1 trained 2 minutes, run 2 1.5, so the 1-minute mark alone has both
    # (each run's last evaluation within it: run 1's at 1.0 min, run 2's at 0.5 min)
    by_minutes = s["by_minutes"]["random"]["m"]
    assert [p["minutes"] for p in by_minutes] == [1] and by_minutes[0]["scores"] == {1: -0.5, 2: 0.5}
    assert s["frames_per_s"] == pytest.approx((200 / 120 + 200 / 90) / 2)
    assert s["seeds"][1]["final"]["random"]["adp"] == 0.5
    text = format_learning({"dmc": s}, {}, game="doudizhu", against=["random"], frames=200, reference="dmc",
                           command="c", machine="m", date="d")
    assert "| dmc | 2 (2) |" in text and "+0.75 [+0.50, +1.00] at 200 (2)" in text
    assert "| 100 | 30% | 10% |" in text  # the pass rates, counted over the runs


def test_minutes_are_compared_only_between_runs_on_one_machine():
    runs = {"a": {0: _run({100: (60, {"random": _ev(0.1)})}, 130, "fast"),
                  1: _run({100: (180, {"random": _ev(0.3)})}, 200, "slow")}}
    by_minutes = summarise(runs, ["random"])["a"]["by_minutes"]["random"]
    assert set(by_minutes) == {"fast", "slow"}
    assert [p["minutes"] for p in by_minutes["fast"]] == [1, 2] and by_minutes["fast"][0]["runs"] == 1
    assert [p["minutes"] for p in by_minutes["slow"]] == [3]  # no evaluation within 1 or 2 minutes; 5 not trained


def test_deal_pooled_intervals_apart_need_not_be_run_level_differences():
    """Three runs a variant, each scored on 300 deals: pooled over deals the two variants' intervals are apart
    (the old report's reading), but the runs of each spread so widely that, runs as the unit, they are not."""
    import math

    a, b = [-0.5, 0.2, 0.8], [-0.1, 0.6, 1.2]
    deals, sd = 300, 1.5

    def pooled(means):  # the mean and 95% interval of the 900 pooled deals, between-run spread included
        mean = sum(means) / 3
        squares = sum((deals - 1) * sd * sd + deals * (m - mean) ** 2 for m in means)
        half = 1.96 * math.sqrt(squares / (3 * deals - 1) / (3 * deals))
        return mean - half, mean + half

    assert pooled(a)[1] < pooled(b)[0]  # apart over deals
    runs = {name: {s: _run({100: (60, {"random": _ev(m, sd, deals)})}, 60) for s, m in enumerate(means)}
            for name, means in (("a", a), ("b", b))}
    summary = summarise(runs, ["random"])
    row = compare(summary, "a")["b"]["random"]["by_frames"][0]
    # b over a: -0.1 beats -0.5; 0.6 beats -0.5 and 0.2; 1.2 beats all three: 6 pairs of 9
    assert row["verdict"] == "not apart" and row["probability"] == pytest.approx(6 / 9)
    assert row["difference"] == pytest.approx(0.4) and row["difference_low"] < 0 < row["difference_high"]
    assert row["runs_needed"] > 5
    with pytest.raises(ValueError, match="reference variant 'c'"):
        compare(summary, "c")


def test_read_run_takes_milestones_training_time_and_the_final_record(tmp_path):
    records = [
        {"time_s": 10, "frames_trained": 9_600, "eval_time_s": 0},
        {"time_s": 25, "frames_trained": 10_400, "eval_frames": 10_000, "eval": {"random": _ev(-0.2)},
         "eval_time_s": 5.0},
        {"time_s": 40, "frames_trained": 20_800, "eval_frames": 20_000, "eval": {"random": _ev(0.3)},
         "eval_time_s": 9.0},
        {"time_s": 40, "frames_trained": 20_800, "eval_frames": 20_000, "eval": {"random": _ev(0.3)},
         "eval_time_s": 9.0, "final": True},
    ]
    (tmp_path / "progress.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n{\"cut")
    run = read_run(tmp_path, 20_000)
    assert sorted(run["evals"]) == [10_000, 20_000]
    # records without train_s: an evaluation record's time_s was taken before its evaluation (the 5 s of it)
    assert run["evals"][10_000]["train_s"] == 25.0 and run["evals"][10_000]["frames_trained"] == 10_400
    assert run["evals"][20_000]["train_s"] == 31.0  # the final record's: its time_s and eval_time_s both at the end
    assert run["done"] and run["frames"] == 20_800 and run["frames_per_s"] == pytest.approx(20_800 / 31)
    assert not read_run(tmp_path, 40_000)["done"]
    assert read_run(tmp_path / "missing", 1)["evals"] == {}


def _finished_run(directory, frames, train_s_per_frame=0.001):
    """A synthetic run directory of ``cardrl train``: an iteration record every 100 frames, an evaluation every
    ``frames // 2``, a final record; its config.json."""
    directory.mkdir(parents=True)
    records = []
    for n, trained in enumerate(range(100, frames + 1, 100), 1):
        record = {"iteration": n, "frames_trained": trained, "train_s": trained * train_s_per_frame,
                  "time_s": trained * train_s_per_frame, "eval_time_s": 0.0}
        if trained % (frames // 2) == 0:
            record.update(eval_frames=trained, eval={"random": _ev(trained / frames)})
        records.append(record)
    records.append({**records[-1], "final": True})
    (directory / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (directory / "config.json").write_text(json.dumps({"game": "doudizhu"}))
    return records


def test_kept_runs_hold_their_evaluations_and_count_as_finished_on_a_fresh_machine(tmp_path):
    """--keep: a finished run's evaluation records and config go to the kept directory, read back as the run itself
    reads; a benchmark whose runs are all kept trains nothing more and writes its report there too."""
    from cardrl.bench.learning import keep_run, read_benchmark_run, run_learning

    out, keep = tmp_path / "runs", tmp_path / "docs"
    records = _finished_run(out / "dmc" / "seed0", 1_000)
    kept = keep_run(out / "dmc" / "seed0", keep / "dmc" / "seed0")
    kept_records = [json.loads(line) for line in (kept / "progress.jsonl").read_text().splitlines()]
    assert [r["frames_trained"] for r in kept_records] == [500, 1_000, 1_000] and kept_records[-1]["final"]
    assert (kept / "config.json").read_text() == '{"game": "doudizhu"}'
    assert read_run(kept, 1_000) == read_run(out / "dmc" / "seed0", 1_000)  # all the report reads, 3 of 11 records
    assert len(records) == 11
    # a run unfinished in --out (its checkpoint lost with the old machine) but finished in --keep is the kept one
    _finished_run(out / "dmc" / "seed1", 1_000)
    keep_run(out / "dmc" / "seed1", keep / "dmc" / "seed1")
    (out / "dmc" / "seed1" / "progress.jsonl").write_text(json.dumps({"iteration": 1, "frames_trained": 100}) + "\n")
    assert read_benchmark_run(out, keep, "dmc", 1, 1_000)["done"]
    assert not read_benchmark_run(out, None, "dmc", 1, 1_000)["done"]
    assert not read_benchmark_run(out, keep, "dmc", 1, 2_000)["done"]  # a larger budget: not finished anywhere
    # seed 2 finished in --out before --keep was given: kept at the start; nothing is left to train
    _finished_run(out / "dmc" / "seed2", 1_000)
    said: list[str] = []
    figures = run_learning("doudizhu", ["dmc"], [0, 1, 2], frames=1_000, eval_every_frames=500, eval_deals=10,
                           against=["random"], out=out, keep=keep, say=lambda *a, **k: said.append(a[0]))
    assert (keep / "dmc" / "seed2" / "progress.jsonl").is_file() and any("0 run(s) to go" in line for line in said)
    assert all(figures["variants"]["dmc"]["seeds"][s]["done"] for s in (0, 1, 2))
    assert {p.name for p in keep.iterdir()} >= {"learning.md", "results.json", "learning.png"}
    with pytest.raises(ValueError, match="only a finished run is kept"):
        keep_run(out / "dmc" / "seed1", tmp_path / "elsewhere")


def test_a_run_that_continues_another_variants_is_its_two_stages_joined(tmp_path):
    """topk_ppo: dmc to half the budget in start/, then top-k PPO for the rest; read (and kept) as one run whose
    milestones, frames and seconds go on from the first stage's."""
    from cardrl.bench.learning import _keep_finished, read_benchmark_run

    out, keep = tmp_path / "runs", tmp_path / "docs"
    run = out / "topk_ppo" / "seed0"
    _finished_run(run / "start", 1_000, train_s_per_frame=0.002)
    first = read_benchmark_run(out, None, "topk_ppo", 0, 2_000)
    assert not first["done"] and sorted(first["evals"]) == [500, 1_000] and first["frames"] == 1_000
    shutil.rmtree(run)  # the stages in order: the first one's directory sits inside the run's
    _finished_run(run, 1_000)
    _finished_run(run / "start", 1_000, train_s_per_frame=0.002)
    joined = read_benchmark_run(out, None, "topk_ppo", 0, 2_000)
    assert joined["done"] and sorted(joined["evals"]) == [500, 1_000, 1_500, 2_000]
    assert joined["evals"][1_500]["frames_trained"] == 1_500 and joined["evals"][1_500]["train_s"] == pytest.approx(2.5)
    assert joined["frames"] == 2_000 and joined["frames_per_s"] == pytest.approx(2_000 / 3.0)
    assert joined["evals"][2_000]["results"] == read_run(run, 1_000)["evals"][1_000]["results"]
    _keep_finished(out, keep, ["topk_ppo"], [0], 2_000, say=lambda *a, **k: None)
    assert read_benchmark_run(keep, None, "topk_ppo", 0, 2_000) == joined
    shutil.rmtree(out)
    assert read_benchmark_run(out, keep, "topk_ppo", 0, 2_000) == joined  # a fresh machine: the kept stages


def test_keep_is_refused_where_it_is_the_benchmarks_own_out(tmp_path):
    from cardrl.bench.cli import main_bench

    with pytest.raises(ValueError, match="--keep .* is the benchmark's own --out"):
        main_bench(["learning", "doudizhu", "--frames", "1000", "--eval-every-frames", "500", "--out", str(tmp_path),
                    "--keep", str(tmp_path / ".")])


def test_training_seconds_prefer_the_record_s_own_and_leave_every_evaluation_out():
    assert training_seconds({"time_s": 50, "eval_time_s": 20, "train_s": 30.0}, 0.0) == 30.0
    assert training_seconds({"time_s": 50, "eval_time_s": 20}, 5.0) == 30.0  # no evaluation in it: its own total
    assert training_seconds({"time_s": 50, "eval_time_s": 20, "eval": {}}, 5.0) == 45.0  # its evaluation came after
    assert training_seconds({"time_s": 50, "eval_time_s": 20, "eval": {}, "final": True}, 5.0) == 30.0


def test_variants_apply_where_they_can_and_say_so_where_they_cannot():
    assert "danzero" in variants_for("guandan") and "danzero" not in variants_for("doudizhu")
    assert "douzero_plus_om" not in variants_for("big2")
    assert set(variants_for("doudizhu")) >= {"dmc", "odmc", "omodmc", "oadmcdou", "dmc_centred", "coach"}
    assert variant_flags("oadmcdou", "doudizhu", 3_000_000)[:2] == ["--oracle", "1:0:2000000"]  # 20 of 30 days
    with pytest.raises(ValueError, match="does not apply to doudizhu"):
        variant_flags("danzero", "doudizhu", 1)
    with pytest.raises(ValueError, match="unknown variant"):
        variant_flags("dqn", "doudizhu", 1)
    assert all(v.paper and v.reproduces for v in VARIANTS.values())  # each names its paper and what it is


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_every_variants_command_line_is_a_valid_cardrl_train(game, tmp_path):
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.cli import parse_args, train_spec

    for variant in variants_for(game):
        for i, stage in enumerate(stages(variant, 100_000)):
            argv = train_argv(game, variant, 1, frames=100_000, eval_every_frames=50_000, eval_deals=10,
                              against=["random"], out=tmp_path, stage=i)
            spec = train_spec(parse_args(argv))  # the child's command line gives back the stage
            assert spec == stage_spec(game, variant, 1, frames=100_000, eval_every_frames=50_000, eval_deals=10,
                                      against=["random"], out=tmp_path, stage=i)
            run = spec.run
            assert run.resume and run.stop_frames == stage.frames and run.eval_every == 0
            assert run.out == str(tmp_path / variant / "seed1" / stage.subdir).rstrip("/")
            continued = i < len(stages(variant, 100_000)) - 1  # a GuanDan stage another continues plays no matches
            assert run.final_matches == (0 if continued and game == "guandan" else None)
        if VARIANTS[variant].algo == "topk-ppo":  # over the first stage's DMC (its config: tests/algorithms/topk_ppo)
            assert spec.algo == "topk-ppo" and spec.settings.dmc_checkpoint == str(
                tmp_path / variant / "seed1" / "start" / "checkpoint")
            assert [(s.variant, s.frames, s.offset) for s in stages(variant, 100_000)] == [
                ("dmc", 50_000, 0), ("topk_ppo", 50_000, 50_000)]
            continue
        notes = []
        config = build_config(spec, say=notes.append)
        config.validate()  # the flags make a valid DMC config
        if variant in ("om", "omodmc") and game == "doudizhu":  # Luo & Tan's model reads the unified features
            assert config.env_config["features"] == "unified" and config.policy_mapping_fn("landlord") == "shared"


def test_cli_refuses_contradictory_budgets(tmp_path):
    from cardrl.bench.cli import main_bench

    with pytest.raises(ValueError, match="more than --frames"):
        main_bench(["learning", "doudizhu", "--frames", "1000", "--eval-every-frames", "2000", "--out", str(tmp_path)])
    with pytest.raises(ValueError, match="does not apply"):
        main_bench(["learning", "big2", "--variants", "danzero", "--frames", "1000", "--eval-every-frames", "500",
                    "--out", str(tmp_path)])


@pytest.mark.slow
def test_bench_learning_runs_end_to_end_and_resumes_with_nothing_left(tmp_path):
    argv = [sys.executable, "-m", "cardrl.cli", "bench", "learning", "doudizhu", "--variants", "dmc", "odmc",
            "--seeds", "2", "--frames", "12000", "--eval-every-frames", "6000", "--eval-deals", "10", "--against",
            "random", "--out", str(tmp_path), "--keep", str(tmp_path / "kept")]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())
    for variant in ("dmc", "odmc"):
        seeds = results["variants"][variant]["seeds"]
        assert sorted(seeds) == ["1", "2"] and all(s["done"] for s in seeds.values())
        assert [p["frames"] for p in results["variants"][variant]["by_frames"]["random"]] == [6000, 12000]
        assert all(p["runs"] == 2 for p in results["variants"][variant]["by_frames"]["random"])
    assert results["reference"] == "dmc" and "odmc" in results["comparisons"]
    assert (tmp_path / "learning.png").stat().st_size > 0 and "| odmc |" in (tmp_path / "learning.md").read_text()
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "0 run(s) to go" in again.stdout
    # a fresh machine: the run directories are gone, the kept runs (committed) are not; nothing is trained again
    for variant in ("dmc", "odmc"):
        shutil.rmtree(tmp_path / variant)
    fresh = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0 and "0 run(s) to go" in fresh.stdout, fresh.stdout[-3000:] + fresh.stderr[-3000:]
    assert json.loads((tmp_path / "kept" / "results.json").read_text())["variants"] == results["variants"]


@pytest.mark.slow
def test_bench_learning_runs_top_k_ppo_over_its_own_dmc_and_trains_the_dmc_again_where_only_its_records_are_kept(
        tmp_path):
    argv = [sys.executable, "-m", "cardrl.cli", "bench", "learning", "doudizhu", "--variants", "topk_ppo",
            "--seeds", "1", "--frames", "8000", "--eval-every-frames", "4000", "--eval-deals", "10", "--against",
            "random", "--out", str(tmp_path), "--keep", str(tmp_path / "kept")]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "stage 1/2: dmc to 4,000 frames" in first.stdout and "stage 2/2: topk_ppo to 4,000 frames" in first.stdout
    run = tmp_path / "topk_ppo" / "seed1"
    assert json.loads((run / "config.json").read_text())["spec"]["settings"]["dmc_checkpoint"] == str(
        run / "start" / "checkpoint")
    results = json.loads((tmp_path / "results.json").read_text())["variants"]["topk_ppo"]
    assert results["seeds"]["1"]["done"] and [p["frames"] for p in results["by_frames"]["random"]] == [4000, 8000]
    # a fresh machine where the top-k PPO stage was not finished: its DMC's checkpoint is gone with the old machine,
    # so the DMC stage is trained again before top-k PPO starts from it
    shutil.rmtree(run)
    (tmp_path / "kept" / "topk_ppo" / "seed1" / "progress.jsonl").unlink()
    again = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "dmc to 4,000 frames again in" in again.stdout and "stage 2/2" in again.stdout
    assert json.loads((tmp_path / "results.json").read_text())["variants"]["topk_ppo"]["seeds"]["1"]["done"]


def test_eval_every_frames_is_refused_where_the_algorithm_evaluates_by_the_clock(capsys):
    from cardrl.cli import main

    assert main(["train", "doudizhu", "--algo", "ppo", "--eval-every-frames", "1000"]) == 2
    assert "--eval-every-frames applies to --algo dmc/topk-ppo only" in capsys.readouterr().err


def test_a_run_is_stopped_at_the_deadline_by_sigint_even_where_the_benchmark_ignores_it():
    """A benchmark started with ``nohup ... &`` has SIGINT ignored; its run must still take the deadline's SIGINT
    (here a run that would sleep a minute stops at once, with SIGINT's exit status)."""
    import signal
    import time

    from cardrl.bench.learning import _run_child

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        began = time.time()
        code = _run_child([sys.executable, "-c", "import time; time.sleep(60)"], deadline=time.time())
    finally:
        signal.signal(signal.SIGINT, before)
    assert code == -signal.SIGINT and time.time() - began < 30


def test_a_run_marked_loaded_is_its_own_machine_and_a_restarted_segment_is_dropped(tmp_path):
    from cardrl.bench.learning_report import LOADED, MACHINE, _machine_of

    segment = {"machine": "Intel Xeon, 2 cores", "started": "t0", "frames_at_start": 0, "load_before": 0.5}
    restarted = {**segment, "started": "t1", "loaded_during": "a test suite beside it"}
    (tmp_path / MACHINE).write_text(json.dumps({"segments": [segment, restarted]}))
    assert _machine_of(tmp_path, []) == "Intel Xeon, 2 cores" + LOADED
    resumed = {**segment, "started": "t2", "frames_at_start": 400}
    (tmp_path / MACHINE).write_text(json.dumps({"segments": [segment, resumed]}))
    assert _machine_of(tmp_path, []) == "Intel Xeon, 2 cores"


def test_a_segment_is_loaded_when_its_records_median_load_passes_the_mark(tmp_path):
    from cardrl.bench.learning_report import LOADED, LOADED_PER_CORE, MACHINE, _machine_of, read_run, segment_loaded

    segment = {"machine": "Intel Xeon, 2 cores", "started": "t0", "frames_at_start": 0, "load_before": 0.5}
    mark = LOADED_PER_CORE * 2
    assert not segment_loaded(segment, [])  # no load recorded: only what is said by hand counts
    assert not segment_loaded(segment, [mark - 1, mark + 5, mark - 0.5])  # the median, not one busy minute
    assert segment_loaded(segment, [mark + 1, mark + 2, 1.0])
    assert segment_loaded({**segment, "cpus": 1}, [LOADED_PER_CORE + 0.1])  # the cores recorded win over the text
    # a run idle up to 400 frames, then resumed beside other work: the second segment alone is loaded
    resumed = {**segment, "started": "t1", "frames_at_start": 400}
    (tmp_path / MACHINE).write_text(json.dumps({"segments": [segment, resumed]}))
    records = [{"frames_trained": f, "train_s": f / 100, "load_1m": load}
               for f, load in ((200, 2.0), (400, 2.2), (600, mark + 3), (800, mark + 4))]
    (tmp_path / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _machine_of(tmp_path, [(r["frames_trained"], r["load_1m"]) for r in records]) == (
        "mixed: Intel Xeon, 2 cores; Intel Xeon, 2 cores" + LOADED)
    assert read_run(tmp_path, 800)["machine"].endswith(LOADED)
