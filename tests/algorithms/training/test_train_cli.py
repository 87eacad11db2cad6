"""`cardrl train` end to end (the README's main command, tiny), then `cardrl plot` on its run directory."""

import json

import pytest

from cardrl.cli import main
from cardrl.eval.plot import plot_run
from cardrl.run_dir import read_progress


def test_train_cli_writes_progress_evaluations_checkpoint_and_plot(ray_local, tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["train", "doudizhu", "--preset", "unified_fast", "--stop-frames", "1200",  # the README's first command
               "--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--frames-per-update", "200",
               "--eval-every", "1s", "--eval-deals", "10", "--eval-against", "random", "rule", "--out", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0
    assert "--sample-requests-in-flight 6 has no effect with --num-env-runners 0" in printed
    assert "training DMC on doudizhu" in printed and "learner on cpu (1 torch thread)" in printed
    assert "checkpoint written" in printed and "final ADP vs rule over 10 deals" in printed
    records = read_progress(out)
    assert records[-1]["frames_trained"] >= 1200
    evaluated = [r for r in records if r.get("eval")]
    assert evaluated and set(evaluated[-1]["eval"]) == {"random", "rule"}
    assert (out / "checkpoint" / "learner_group").is_dir()
    assert list((out / "tb").glob("events.out.tfevents.*"))

    # resume from the checkpoint: the frame counter continues
    rc = main(["train", "doudizhu", "--preset", "unified_fast", "--stop-frames", "1800", "--num-env-runners", "0",
               "--num-envs-per-env-runner", "8", "--frames-per-update", "200", "--eval-every", "0s",
               "--eval-deals", "5", "--restore", str(out / "checkpoint"), "--out", str(out)])
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


def _train_args(*flags: str):
    from cardrl.cli import build_parser, train_spec

    return train_spec(build_parser().parse_args(["train", *flags]))


def test_an_opponent_model_picks_the_one_encoder_that_feeds_it_and_says_so():
    """`cardrl train doudizhu --opponent-model luo_tan` was refused because DouDiZhu's default features are
    DouZero's; exactly one DouDiZhu encoder (the unified one) feeds Luo & Tan's model, so it is chosen, in one line."""
    from cardrl.algorithms.dmc.train import build_config

    said = []
    config = build_config(_train_args("doudizhu", "--opponent-model", "luo_tan"), say=said.append)
    config.validate()
    assert config.env_config["features"] == "unified"
    assert said == ["--opponent-model luo_tan reads unified features, not doudizhu's default douzero: training "
                    "with --features unified"]
    # the default encoder already feeds DouZero+'s model, and an explicit --features is never overridden
    said.clear()
    assert "features" not in build_config(_train_args("doudizhu", "--opponent-model", "douzero_plus"),
                                          say=said.append).env_config
    explicit = build_config(_train_args("doudizhu", "--opponent-model", "luo_tan", "--features", "douzero"),
                            say=said.append)
    assert said == [] and explicit.env_config["features"] == "douzero"
    with pytest.raises(ValueError, match=r"does not read doudizhu's douzero_v1 features; it reads, by game, the "
                       r"features \(--features\): doudizhu: unified; big2: unified; guandan: danzero, danzero_keyed"):
        explicit.validate()


def test_an_opponent_model_several_encoders_feed_names_the_flag_and_its_values():
    from cardrl.algorithms.dmc.train import pick_features

    reads = {"plain": (), "unified": ("luo_tan",), "unified_keyed": ("luo_tan",)}
    with pytest.raises(ValueError, match=r"choose one with --features \(unified, unified_keyed\)"):
        pick_features("somegame", "plain", reads, None, "luo_tan")
    assert pick_features("somegame", "plain", reads, "unified_keyed", "luo_tan") == ("unified_keyed", None)
    assert pick_features("somegame", "plain", reads, None, "douzero_plus") == (None, None)  # validate() refuses it


def test_a_config_error_names_the_flags_a_command_line_user_typed():
    from cardrl.algorithms.dmc.settings import DMCSettings
    from cardrl.algorithms.training.settings import with_flags

    said = with_flags("q_model='x' and frames_per_update=3 with bid_frames_per_update=5 and num_learners=2; seed",
                      DMCSettings)
    assert said == "--model='x' and --frames-per-update=3 with --bid-frames-per-update=5 and --num-learners=2; seed"
