"""experiments/seed_variation.py on synthetic repeats: where their losses first differ, their spread per milestone
against one run's deal-level half-width, the data-path means, and the kept records."""

from __future__ import annotations

import json

import pytest

from experiments import seed_variation as sv


def _ev(adp: float, half: float = 0.2) -> dict:
    return {"adp": adp, "adp_low": adp - half, "adp_high": adp + half, "deals": 300}


def _repeat(directory, losses, scores, age_s):
    directory.mkdir(parents=True)
    records = [{"iteration": i + 1, "frames_trained": 100 * (i + 1), "train_s": float(i + 1), "losses": loss,
                "data_age_s": age_s, "data_age_updates": 1.2, "weight_lag": 0.1, "frames_dropped": 0}
               for i, loss in enumerate(losses)]
    records[-1].update(eval_frames=100 * len(losses), eval={"random": _ev(scores)})
    records.append({**records[-1], "final": True})
    (directory / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return directory


def test_repeats_are_compared_milestone_by_milestone(tmp_path):
    a = _repeat(tmp_path / "a", [{"x": 1.0}, {"x": 2.0}, {"x": 3.0}], 0.5, 1.0)
    b = _repeat(tmp_path / "b", [{"x": 1.0}, {"x": 2.5}, {"x": 3.0}], 0.1, 3.0)
    runs = {"a": sv.read_repeat(a), "b": sv.read_repeat(b)}
    assert sv.first_difference(runs) == 2
    assert runs["a"]["means"]["data_age_s"] == pytest.approx(1.0) and runs["b"]["means"]["data_age_s"] == 3.0
    assert runs["a"]["frames"] == 300 and runs["a"]["dropped_share"] == 0.0
    text, figures = sv.report(runs)
    assert figures["spread"]["random"][300] == {"spread": pytest.approx(0.4), "half_width": pytest.approx(0.2)}
    assert "| 0.0M | 0.40 / 0.20 |" in text and "First iteration whose losses differ between the repeats: 2" in text
    assert sv.first_difference({"a": runs["a"], "same": sv.read_repeat(a)}) is None


def test_the_command_keeps_each_repeats_evaluations(tmp_path):
    _repeat(tmp_path / "a", [{"x": 1.0}], 0.5, 1.0)
    _repeat(tmp_path / "b", [{"x": 1.0}], 0.4, 1.0)
    out = tmp_path / "out"
    assert sv.main(["--run", f"a={tmp_path / 'a'}", "--run", f"b={tmp_path / 'b'}", "--out", str(out)]) == 0
    assert (out / "seed_variation.md").is_file() and (out / "a" / "progress.jsonl").is_file()
    assert json.loads((out / "seed_variation.json").read_text())["first_loss_difference"] is None
    with pytest.raises(SystemExit):
        sv.main(["--run", "nodirectory", "--out", str(out)])
