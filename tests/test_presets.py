"""Presets (cardrl/presets.py, the table in cardrl/preset_table.py): ``--preset NAME`` expands to the preset's game,
algorithm, flags and run directory where it stands, a later flag wins, errors name what exists; every preset is a
valid command line; the table agrees with the algorithms' constants and with docs/presets.md; one real tiny run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.cli import build_parser, main
from cardrl.presets import PresetError, expand, expand_preset, get_preset, presets, presets_markdown, variants

ROOT = Path(__file__).resolve().parents[1]


def test_a_preset_expands_to_its_game_algorithm_flags_and_run_directory():
    assert expand(["train", "--preset", "odmc_doudizhu", "--stop-time", "1h"]) == [
        "train", "doudizhu", "--algo", "dmc", "--prune", "mcs", "--out", "runs/odmc_doudizhu", "--stop-time", "1h"]
    assert expand(["train", "--preset=om_big2"]) == expand(["train", "big2", "--preset", "om_big2"]) == [
        "train", "big2", "--algo", "dmc", "--opponent-model", "luo_tan", "--out", "runs/om_big2"]
    assert expand(["train", "doudizhu", "--stop-time", "1h"]) == ["train", "doudizhu", "--stop-time", "1h"]
    assert expand(["eval", "doudizhu", "--preset", "x"]) == ["eval", "doudizhu", "--preset", "x"]  # train, tune only


def test_the_flag_given_last_wins_as_argparse_keeps_it():
    after = build_parser().parse_args(expand(["train", "--preset", "danzero_guandan", "--lr", "1e-4", "--out", "o"]))
    assert after.lr == 1e-4 and after.out.endswith("/o") and after.optimizer == "rmsprop_tf1"
    before = build_parser().parse_args(expand(["train", "--lr", "1e-4", "--preset", "danzero_guandan"]))
    assert before.lr == 1e-3 and before.out.endswith("runs/danzero_guandan")
    shorter = build_parser().parse_args(expand(["train", "--preset", "oadmcdou_doudizhu", "--oracle", "1:0:600"]))
    assert shorter.oracle == "1:0:600" and shorter.q_clip == "admc"


def test_errors_name_what_exists():
    with pytest.raises(PresetError, match=r"unknown preset 'odmc_dou'; presets: dmc_doudizhu, odmc_doudizhu, .*"
                                          r"tune_oracle_length"):
        expand(["train", "--preset", "odmc_dou"])
    with pytest.raises(PresetError, match="preset odmc_doudizhu trains doudizhu, the command line names big2"):
        expand(["train", "big2", "--preset", "odmc_doudizhu"])
    with pytest.raises(PresetError, match="more than once"):
        expand(["train", "--preset", "om_big2", "--preset", "odmc_big2"])
    with pytest.raises(PresetError, match="needs a name"):
        expand(["train", "--preset"])
    with pytest.raises(PresetError, match="is a Tune sweep: cardrl tune --preset tune_lr"):
        expand(["train", "--preset", "tune_lr"])
    with pytest.raises(PresetError, match="trains --algo topk-ppo; cardrl tune sweeps DMC options only"):
        expand(["tune", "--preset", "topk_ppo_guandan_k2", "--space", "s.json"])


def test_a_preset_of_any_game_takes_the_game_from_the_command_line():
    assert expand(["train", "big2", "--preset", "odmc", "--seed", "2"]) == [
        "train", "big2", "--algo", "dmc", "--prune", "mcs", "--out", "runs/odmc_big2", "--seed", "2"]
    oracle = expand(["train", "doudizhu", "--preset", "oadmcdou"])
    assert oracle[oracle.index("--oracle") + 1] == "1:0:2004738120"  # run alone: OADMCDou's 20 days
    with pytest.raises(PresetError, match="applies to any of doudizhu, big2, guandan: name the game"):
        expand(["train", "--preset", "odmc"])
    with pytest.raises(PresetError, match="preset danzero does not apply to doudizhu; it applies to guandan"):
        expand(["train", "doudizhu", "--preset", "danzero"])


def test_tune_presets_are_the_sweeps_and_dmc_presets_with_a_space(tmp_path):
    argv = expand(["tune", "--preset", "tune_odmc_slack", "--stop-time", "20m"])
    space = argv[argv.index("--space") + 1]
    assert argv[:2] == ["tune", "doudizhu"] and argv[-4:] == ["--out", "runs/tune_odmc_slack", "--stop-time", "20m"]
    assert Path(space).is_file() and Path(space).name == "odmc_slack.json"
    assert expand(["tune", "--preset", "odmc_big2", "--space", "s.json"]) == [
        "tune", "big2", "--prune", "mcs", "--out", "runs/tune_odmc_big2", "--space", "s.json"]


@pytest.mark.parametrize("name", [n for n, p in presets().items() if p.game is not None])
def test_every_preset_is_a_valid_command_line(name, tmp_path):
    """Each training preset parses, and a DMC one builds a valid DMC config; each sweep's space applies to its
    game."""
    from cardrl.cli import parse_args, train_spec, tune_sweep

    preset = get_preset(name)
    args = parse_args(expand([preset.command, "--preset", name, "--out", str(tmp_path)]))
    args.argv = []
    assert args.game == preset.game
    if preset.space:
        from cardrl.algorithms.tune.space import check_space, load_space

        assert check_space(load_space(args.space), tune_sweep(args).base) >= 1
    elif preset.algo == "dmc":
        from cardrl.algorithms.dmc.train import build_config

        spec = train_spec(args)
        assert spec == RunSpec.from_preset(name, flags=["--out", str(tmp_path)])
        build_config(spec, say=lambda *a: None).validate()
    else:
        assert args.algo == preset.algo


def test_the_table_says_where_each_row_is_from_and_agrees_with_the_algorithms():
    from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
    from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE, OADMCDOU_ORACLE_FRAMES
    from cardrl import preset_table as table

    assert table.DANZERO_OPTIMIZER == DANZERO_OPTIMIZER_FLAGS
    assert table.OADMCDOU_ORACLE == OADMCDOU_ORACLE and table.PAPER_ORACLE_FRAMES == OADMCDOU_ORACLE_FRAMES
    assert all(p.paper and p.reproduces for p in presets().values())
    assert all(p.expected for p in presets().values() if p.reproduces.startswith(("Table", "Fig.")) and not p.variant)
    assert list(variants()) == ["dmc", "dmc_fast", "dmc_bf16", "dmc_centred", "odmc", "om", "omodmc", "omodmc_bf16",
                                "admc", "oadmcdou", "oracledou", "perfectdou", "unified", "unified_fast",
                                "unified_bf16", "douzero_plus_om", "coach", "danzero", "topk_ppo"]


def test_docs_show_the_table_as_it_is():
    assert presets_markdown() in (ROOT / "docs" / "presets.md").read_text()


def test_list_presets_prints_the_table_and_a_bad_name_exits_like_argparse(capsys):
    with pytest.raises(SystemExit) as listed:
        main(["train", "--list-presets"])
    out = capsys.readouterr().out
    assert listed.value.code == 0 and "odmc_doudizhu" in out and "tune_lr" not in out
    with pytest.raises(SystemExit) as bad:
        main(["train", "--preset", "nope"])
    assert bad.value.code == 2 and "cardrl train: error: unknown preset 'nope'" in capsys.readouterr().err
    given = ["train", "doudizhu", "--stop-time", "1h"]
    assert expand_preset(given) is given and expand_preset(["plot", "runs/x"]) == ["plot", "runs/x"]


def test_presets_work_from_an_installed_package_outside_the_checkout(tmp_path):
    code = ("from cardrl.presets import expand; from pathlib import Path; "
            "argv = expand(['tune', '--preset', 'tune_lr']); assert Path(argv[argv.index('--space') + 1]).is_file(); "
            "print(expand(['train', '--preset', 'odmc_doudizhu'])[1])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "doudizhu"


def test_a_preset_trains_for_real_through_the_cli(ray_local, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc = main(["train", "--preset", "odmc_big2", "--stop-frames", "200", "--num-env-runners", "0",
               "--num-envs-per-env-runner", "4", "--frames-per-update", "100", "--hidden-sizes", "16",
               "--eval-every", "0", "--eval-deals", "2", "--eval-against", "random"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert (tmp_path / "runs" / "odmc_big2" / "checkpoint").is_dir()
