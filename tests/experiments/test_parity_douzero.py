"""experiments/parity_douzero.py carried across machines by its json files alone: the training step skips a run
whose checkpoints are all recorded, the evaluation says which networks are missing instead of failing, and the report
reads the kept results (synthetic files; the real trainers run for hours)."""

from __future__ import annotations

import json

import numpy as np

from cardrl.experiments import parity_douzero as parity


def _kept_checkpoint(out, trainer, seed, frames, reached, adp):
    folder = parity.run_dir(out, trainer, seed) / str(frames)
    folder.mkdir(parents=True)
    (folder / "reached.json").write_text(json.dumps({"frames": reached, "seconds": 60.0}))
    per_deal = list(np.random.default_rng(seed).normal(adp, 1.0, 40))
    result = {b: {"adp": float(np.mean(per_deal)), "adp_low": adp - 0.5, "adp_high": adp + 0.5, "per_deal": per_deal}
              for b in parity.BASELINES}
    (folder / "eval_20_7.json").write_text(json.dumps(result))
    return folder


def test_kept_results_skip_training_and_evaluation_and_make_the_report(tmp_path, capsys):
    for trainer, adp in (("ours", 0.5), ("douzero", 0.25)):
        _kept_checkpoint(tmp_path, trainer, 1, 250_000, 251_200, adp)
    parity.train_ours(tmp_path, 1, 250_000, [250_000])  # every checkpoint recorded: nothing trained, no Ray started
    parity.train_douzero(tmp_path, 1, 250_000, [250_000])
    assert "ours seed 1: every checkpoint is there" in capsys.readouterr().out
    # a checkpoint recorded but never evaluated with these deals, its networks left on the machine that trained it
    (parity.run_dir(tmp_path, "ours", 1) / "500000").mkdir()
    (parity.run_dir(tmp_path, "ours", 1) / "500000" / "reached.json").write_text('{"frames": 500800, "seconds": 1}')
    parity.evaluate(tmp_path, 20, 7)
    printed = capsys.readouterr().out
    assert "ours_seed1/500000: not evaluated with 20 deals, seed 7" in printed and "landlord_up" in printed
    assert not (parity.run_dir(tmp_path, "ours", 1) / "500000" / "eval_20_7.json").exists()
    text = parity.report(tmp_path, 20, 7)
    assert "| 0.25M | ours | s1 " in text and "| 0.25M | douzero | s1 " in text and "@0.25M" in text
    assert (tmp_path / "report_20_7.md").read_text() == text + "\n"
