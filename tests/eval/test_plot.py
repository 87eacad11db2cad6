"""`cardrl plot` reads for one evaluation and for a thousand records: the interval of a lone evaluation is visible,
the x-axes start at 0 and end past the last point, frame counts are written 12k / 3.4M, tick labels do not overlap,
the opponent model and the data path get their panels, and a missing run directory is one error line.

The long run is SYNTHETIC: :func:`synthetic_run` writes 1,000 records shaped like a DouDiZhu run's (throughput,
losses, evaluations, opponent-model losses, data age, memory), not measured ones; the real short run is
tests/eval/test_report.py's.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from matplotlib.container import ErrorbarContainer

from cardrl.cli import main
from cardrl.eval.plot import _figure, format_count, plot_run
from cardrl.run_dir import read_progress

PNG = b"\x89PNG\r\n\x1a\n"
MODULES = ("landlord", "landlord_down", "landlord_up")


def _write(run, records, config=None):
    run.mkdir(parents=True, exist_ok=True)
    (run / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if config is not None:
        (run / "config.json").write_text(json.dumps(config))
    return run


def synthetic_run(run, n: int = 1000, seed: int = 0):
    """SYNTHETIC progress of an n-iteration DouDiZhu run with Luo & Tan's opponent model (values invented to look
    like a real run's: ~2,400 frames/s, 3,200 frames per update, Q-losses decaying with noise, an evaluation every
    20 iterations whose ADP against random rises from -1 to about +1.5 and against rule from -1.5 to about +0.3, the
    driver's memory creeping up), then a final record with the evaluation as `cardrl train` writes it."""
    rng = np.random.default_rng(seed)

    def noisy(value: float, scale: float) -> float:
        return float(value + scale * rng.standard_normal())

    records, frames, reached = [], 0, {}
    for i in range(1, n + 1):
        frames += 3 * 3200
        t = i * 4.0
        progress = 1 - math.exp(-i / 300)
        record = {"time_s": t, "iteration": i, "frames_trained": frames,
                  "frames_per_s": round(2400 + 150 * rng.standard_normal() - 300 * math.exp(-i / 20), 1),
                  "episodes": i * 420, "deals": i * 420, "weight_lag": float(rng.uniform(0.5, 1.5)),
                  "losses": {m: float(abs(0.9 - 0.5 * progress + 0.15 * rng.standard_normal())) for m in MODULES},
                  "opponent_model": {m: {"om_card_logloss": noisy(0.65 - 0.2 * progress, 0.02),
                                         "om_card_accuracy": noisy(0.62 + 0.2 * progress, 0.02),
                                         "om_k_loss": noisy(1.9 - 0.9 * progress, 0.1),
                                         "om_k_accuracy": noisy(0.3 + 0.3 * progress, 0.03)} for m in MODULES},
                  "data_age_updates": float(rng.uniform(0.8, 1.6)), "data_age_s": float(rng.uniform(1, 3)),
                  "frames_dropped": 0.0, "buffer_frames": 19200.0, "buffer_mb": 22.5,
                  "driver_rss_mb": round(1400 + 0.3 * i + 5 * rng.standard_normal(), 1)}
        if i % 20 == 0 or i == n:
            record["eval"] = {}
            for spec, start, end in (("random", -1.0, 1.5), ("rule", -1.5, 0.3)):
                adp = start + (end - start) * progress + 0.1 * rng.standard_normal()
                record["eval"][spec] = {"landlord": adp - 0.3, "peasants": adp + 0.3, "adp": adp,
                                        "adp_low": adp - 0.25, "adp_high": adp + 0.25}
                if spec not in reached and adp - 0.25 > 0:
                    reached[spec] = {"time_s": t, "frames_trained": frames}
            record["reached_adp_above_0"] = dict(reached)
        records.append(record)
    records.append({**records[-1], "final": True})
    return _write(run, records, {"game": "doudizhu", "title": "DouDiZhu", "algo": "dmc", "args": {}})


def one_evaluation_run(run):
    """A run that stopped after one iteration: its only evaluation is the final one (as `--eval-every 0` writes)."""
    record = {"time_s": 3.2, "iteration": 1, "frames_trained": 1200, "frames_per_s": 420.0, "episodes": 27,
              "deals": 27, "weight_lag": 0.0, "losses": {m: 1.1 for m in MODULES}, "opponent_model": {},
              "data_age_updates": 0.0, "buffer_mb": 0.6, "driver_rss_mb": 840.0}
    final = {**record, "time_s": 4.0, "final": True, "reached_adp_above_0": {},
             "eval": {"random": {"landlord": -1.8, "peasants": 0.4, "adp": -0.7, "adp_low": -2.09,
                                 "adp_high": 0.69}}}
    return _write(run, [record, final], {"game": "doudizhu", "title": "DouDiZhu", "algo": "dmc", "args": {}})


def _tick_labels_overlap(fig) -> list[str]:
    """Pairs of visible x tick labels (of any axes) whose boxes intersect."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bad = []
    for ax in fig.axes:
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.get_xticklabels()
                 if t.get_visible() and t.get_text()]
        for (a, box_a), (b, box_b) in zip(boxes, boxes[1:]):
            if box_a.x1 > box_b.x0:
                bad.append(f"{ax.get_title()}: {a!r} / {b!r}")
    return bad


def _eval_axes(fig):
    return next(ax for ax in fig.axes if "evaluation" in ax.get_title())


def test_format_count():
    assert [format_count(x) for x in (0, 950, 1200, 12_000, 3_400_000, 25_600_000, 1.2e9)] == [
        "0", "950", "1.2k", "12k", "3.4M", "25.6M", "1.2G"]


def test_one_evaluation_is_a_visible_point_with_its_interval(tmp_path):
    run = one_evaluation_run(tmp_path / "short")
    fig = _figure(run)
    ax = _eval_axes(fig)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1  # the lone point has an error bar from -2.09 to +0.69
    lo, hi = ax.get_ylim()
    assert lo < -2.09 and hi > 0.69
    x0, x1 = ax.get_xlim()
    assert x0 == 0 and 1200 < x1 < 1400  # the run's whole span, the point inside it
    assert not _tick_labels_overlap(fig)
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "1k" in labels and not any("e" in label for label in labels)  # 1k, 1.25k; never 1e3 or 1000
    assert plot_run(run).read_bytes()[:8] == PNG


def test_a_thousand_records_read(tmp_path):
    run = synthetic_run(tmp_path / "long")
    assert len(read_progress(run)) == 1001
    fig = _figure(run)
    titles = [ax.get_title() for ax in fig.axes]
    assert any("evaluation" in t for t in titles) and "opponent model per module" in titles
    assert "data path" in titles and "Q-network loss per module" in titles and "throughput" in titles
    ax = _eval_axes(fig)
    assert not [c for c in ax.containers if isinstance(c, ErrorbarContainer)]  # 51 evaluations: bands, not bars
    assert ax.collections  # the bands
    assert {t.get_text()[-1] for t in ax.get_xticklabels() if t.get_text() not in ("", "0")} == {"M"}
    assert not _tick_labels_overlap(fig)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("ADP > 0 vs random from") for t in legend)
    out = plot_run(run, tmp_path / "long.png")
    assert out.read_bytes()[:8] == PNG


def test_a_match_game_says_points_per_deal_and_shows_match_win_rates(tmp_path):
    run = one_evaluation_run(tmp_path / "gd")
    records = read_progress(run)
    records[-1]["matches"] = {"random": {"matches": 5, "win_rate": 0.6, "win_rate_low": 0.3, "win_rate_high": 0.9}}
    _write(run, records, {"game": "guandan", "title": "GuanDan", "algo": "dmc", "args": {}})
    ax = _eval_axes(_figure(run))
    assert ax.get_ylabel().startswith("points per deal")
    assert any("final match win rate vs random: 0.60" in t.get_text() for t in ax.texts)


def test_the_trained_oracle_block_and_unpruned_scores_are_drawn_beside_the_headline(tmp_path):
    run = one_evaluation_run(tmp_path / "oracle")
    records = read_progress(run)
    ev = records[-1]["eval"]
    records[-1]["eval_oracle"] = {"label": "trained oracle block", "oracle_lambda": 1.0,
                                  "results": {spec: {**e, "adp": e["adp"] + 0.5} for spec, e in ev.items()}}
    records[-1]["eval_unpruned"] = {"label": "unpruned", "results": ev, "outside_kept": {"rate": 0.01}}
    _write(run, records, {"game": "doudizhu", "algo": "dmc", "args": {}})
    legend = [t.get_text() for t in _eval_axes(_figure(run)).get_legend().get_texts()]
    spec = next(iter(ev))
    assert f"vs {spec}, trained oracle block: last {ev[spec]['adp'] + 0.5:+.2f}" in legend
    assert any(t.startswith(f"vs {spec}, unpruned: last") for t in legend)


def test_missing_run_directory_is_one_error_line(tmp_path, capsys):
    assert main(["plot", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"cardrl plot: error: {tmp_path / 'nope'}: no such run directory"
    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "has no progress.jsonl" in err
    (tmp_path / "progress.jsonl").write_text("")
    assert main(["plot", str(tmp_path)]) == 2
    assert "is empty" in capsys.readouterr().err


def test_read_progress_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such run directory"):
        read_progress(tmp_path / "nope")
