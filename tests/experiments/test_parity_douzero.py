"""experiments/parity_douzero.py carried across machines by its json files alone: the training step skips a run
whose checkpoints are all recorded, the evaluation says which networks are missing instead of failing, and the report
reads the kept results (synthetic files; the real trainers run for hours); DouZero's trainer
(experiments/douzero_trainer.py) saves once per checkpoint and resumes from its model.tar."""

from __future__ import annotations

import json

import numpy as np

from experiments import douzero_trainer as trainer
from experiments import parity_douzero as parity


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


def _log(path, frames):
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = "".join(f"{i},0.0,{f},0.5\n" for i, f in enumerate(frames))
    path.write_text("# _tick,_time,frames,loss_landlord\n" + rows)


def test_douzeros_save_interval_saves_once_per_checkpoint_and_otherwise_every_few_minutes(tmp_path):
    weights = tmp_path / "parity"
    trainer.DouZeroFlags.weights, trainer.DouZeroFlags.pending = weights, [250_000, 500_000]
    flags = trainer.DouZeroFlags()
    _log(weights / "logs.csv", [3_200, 249_600])
    assert flags.save_interval == trainer.SAVE_MINUTES  # before the first checkpoint: only the model.tar's saves
    _log(weights / "logs.csv", [3_200, 249_600, 252_800])
    assert flags.save_interval == 0.0 and flags.save_interval == 0.0  # save now, until the networks are on disk
    (weights / "landlord_up_weights_252800.ckpt").write_bytes(b"")
    assert flags.save_interval == trainer.SAVE_MINUTES and trainer.DouZeroFlags.pending == [500_000]


def test_a_resumed_douzero_run_forgets_the_log_lines_after_its_model_tar(tmp_path):
    logs = tmp_path / "logs.csv"
    _log(logs, [3_200, 6_400, 9_600, 12_800])
    logs.write_text(logs.read_text() + "13,0.0,16")  # a line cut short by the kill
    trainer.cut_log(logs, 6_400)
    assert trainer.logged_frames(logs) == 6_400 and len(logs.read_text().splitlines()) == 3


def test_an_unreadable_model_tar_means_the_douzero_run_starts_over(tmp_path):
    assert trainer.resumable_frames(tmp_path) is None
    (tmp_path / "model.tar").write_bytes(b"cut short")
    assert trainer.resumable_frames(tmp_path) is None
    trainer.stop_orphan(tmp_path / "trainer.pid")  # no earlier attempt: nothing to stop
    (tmp_path / "trainer.pid").write_text("999999999")  # an attempt whose process is gone
    trainer.stop_orphan(tmp_path / "trainer.pid")


def test_the_report_gives_each_runs_first_checkpoint_above_0_and_the_median(tmp_path):
    for seed, adps in ((1, (-1.0, 0.8, 1.0)), (2, (0.7, 0.9, 1.0)), (3, (-1.0, -1.0, -0.8))):
        for frames, adp in zip((250_000, 500_000, 1_000_000), adps):
            _kept_checkpoint(tmp_path, "ours", seed, frames, frames, adp)
    text = parity.report(tmp_path, 20, 7)
    # intervals are adp +- 0.5: above 0 from 0.7 on; seed 3 never, its last interval [-1.3, -0.3] below 0
    assert "| ours | random | s1 0.50M; s2 0.25M; s3 not yet | 0.50M | 1 of 3 |" in text
