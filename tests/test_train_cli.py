"""`cardrl train` end to end (the README's main command, tiny), then `cardrl plot` on its run directory."""

import json

import pytest

from cardrl.cli import main
from cardrl.eval.plot import plot_run, read_progress


def test_train_cli_writes_progress_evaluations_checkpoint_and_plot(ray_local, tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["train", "doudizhu", "--algo", "dmc", "--stop-frames", "1200", "--num-env-runners", "0",
               "--num-envs-per-env-runner", "8", "--frames-per-update", "200", "--eval-every", "1s",
               "--eval-deals", "10", "--eval-against", "random", "rule", "--out", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0
    assert "training DMC on doudizhu" in printed and "learner on cpu" in printed
    assert "checkpoint written" in printed and "final ADP vs rule over 10 deals" in printed
    records = read_progress(out)
    assert records[-1]["frames_trained"] >= 1200
    evaluated = [r for r in records if r.get("eval")]
    assert evaluated and set(evaluated[-1]["eval"]) == {"random", "rule"}
    assert (out / "checkpoint" / "learner_group").is_dir()
    assert list((out / "tb").glob("events.out.tfevents.*"))

    # resume from the checkpoint: the frame counter continues
    rc = main(["train", "doudizhu", "--stop-frames", "1800", "--num-env-runners", "0", "--num-envs-per-env-runner",
               "8", "--frames-per-update", "200", "--eval-every", "0s", "--eval-deals", "5",
               "--restore", str(out / "checkpoint"), "--out", str(out)])
    assert rc == 0 and "restored from" in capsys.readouterr().out
    assert json.loads((out / "progress.jsonl").read_text().splitlines()[-1])["frames_trained"] >= 1800

    png = plot_run(out)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="progress.jsonl"):
        plot_run(tmp_path)
    (tmp_path / "progress.jsonl").write_text("{not json\n")
    with pytest.raises(ValueError, match="not a JSON record"):
        plot_run(tmp_path)


def test_train_cli_rejects_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["train", "chess"])
    assert "invalid choice: 'chess' (choose from 'doudizhu', 'big2', 'guandan')" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "doudizhu", "--stop-time", "ten minutes"])
    assert "is not a duration" in capsys.readouterr().err
