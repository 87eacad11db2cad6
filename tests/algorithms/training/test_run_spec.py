"""One typed run spec from every entry point (algorithms/training/run_spec.py): the Python API trains as the command
line does, a preset, a Tune trial and a benchmark variant build equal specs for equal settings, a run directory's
config.json is the spec, and a run directory written before the spec existed still resumes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cardrl.algorithms.dmc.settings import DMCSettings
from cardrl.algorithms.masked_ppo.settings import PPOSettings
from cardrl.algorithms.training import RunSpec, run_training
from cardrl.algorithms.training.settings import RunSettings
from cardrl.cli import main, parse_args, train_spec
from cardrl.run_dir import read_config, read_progress

# a run made with cardrl train before the spec existed (config.json holds the flat "args"): a 400-frame DMC run of
# `cardrl train doudizhu --stop-frames 400 --num-env-runners 0 --eval-every 0s --eval-deals 2 --checkpoint-every 3600s
# --lr 0.0003 --frames-per-update 200 --model mlp --hidden-sizes 8 --num-envs-per-env-runner 4
# --rollout-fragment-length 50`, with its checkpoint
RUN_BEFORE_SPEC = Path(__file__).resolve().parents[2] / "data" / "run_before_spec"

TINY = ["--stop-frames", "400", "--num-env-runners", "0", "--num-envs-per-env-runner", "4",
        "--rollout-fragment-length", "50", "--frames-per-update", "200", "--model", "mlp", "--hidden-sizes", "8",
        "--eval-every", "0", "--eval-deals", "2", "--lr", "0.0003"]


def test_the_python_api_trains_and_writes_the_config_json_of_the_same_command_line(ray_local, tmp_path):
    spec = RunSpec.build("doudizhu", stop_frames=400, num_env_runners=0, num_envs_per_env_runner=4,
                         rollout_fragment_length=50, frames_per_update=200, q_model="mlp", hidden_sizes=(8,),
                         eval_every=0.0, eval_deals=2, lr=3e-4, out=str(tmp_path / "python"))
    assert run_training(spec) == 0
    assert main(["train", "doudizhu", *TINY, "--out", str(tmp_path / "cli")]) == 0
    by_python, by_cli = read_config(tmp_path / "python"), read_config(tmp_path / "cli")
    for name, config in (("python", by_python), ("cli", by_cli)):  # the one difference: the run directory
        assert config["spec"]["run"].pop("out") == str(tmp_path / name)
        config["command"] = config["command"].replace(str(tmp_path / name), "OUT")
    assert by_python["spec"] == by_cli["spec"] and by_python["command"] == by_cli["command"]
    assert by_python["dmc"] == by_cli["dmc"] and by_python["env_config"] == by_cli["env_config"]
    assert read_progress(tmp_path / "python")[-1]["frames_trained"] >= 400


def test_a_spec_goes_through_its_command_line_and_its_json_unchanged():
    spec = RunSpec.build("guandan", prune="mcs", coach_beta=((0, 0.0), (100, 0.1)), hidden_sizes=(64, 32),
                         target_scale={"landlord": 0.5}, stop_time=90.0, eval_against=["random", "rule"],
                         match_bonus=True, seed=3)
    assert RunSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    flagged = spec.replace(coach_beta=DMCSettings.coach_beta, target_scale=None)  # options without a flag
    assert train_spec(parse_args(["train", *flagged.command().split()[2:]])) == flagged
    assert RunSpec.from_flags("guandan", flagged.flags()) == flagged
    assert spec.command().startswith("cardrl train guandan --algo dmc --stop-time 90s")


def test_a_preset_a_tune_trial_and_a_variant_build_equal_specs_for_equal_settings(tmp_path):
    from cardrl.algorithms.tune.settings import Sweep
    from cardrl.bench.learning import stage_spec

    out = tmp_path / "odmc" / "seed2"
    run = {"seed": 2, "stop_frames": 100_000, "eval_every": 0.0, "eval_every_frames": 50_000, "eval_deals": 10,
           "eval_against": ["random"], "checkpoint_every": 300.0, "num_env_runners": 1}
    by_variant = stage_spec("doudizhu", "odmc", 2, frames=100_000, eval_every_frames=50_000, eval_deals=10,
                            against=["random"], out=tmp_path)
    assert by_variant == RunSpec.build("doudizhu", prune="mcs", out=str(out), resume=True, **run)
    by_preset = RunSpec.from_preset("odmc", "doudizhu", flags=["--out", str(out), "--resume", "--seed", "2",
                                                                "--stop-frames", "100000", "--eval-every", "0",
                                                                "--eval-every-frames", "50000", "--eval-deals", "10",
                                                                "--checkpoint-every", "5m"])
    assert by_preset == by_variant
    by_cli = train_spec(parse_args(["train", "doudizhu", *by_variant.flags()]))
    assert by_cli == by_variant

    # a sweep's trial: the command line's run options, the space's values; the sweep keeps its own out, resume and
    # evaluation schedule, and evaluates against --metric-against
    tune = parse_args(["tune", "doudizhu", "--space", str(tmp_path / "space.json"), "--seed", "2", "--stop-frames",
                       "100000", "--eval-deals", "10", "--eval-every", "0"])
    trial = Sweep.from_values("doudizhu", vars(tune)).trial_spec({"prune": "mcs"})
    assert trial.settings == by_variant.settings
    assert trial.run == RunSettings(**{**run, "eval_every_frames": 0, "checkpoint_every": RunSettings.checkpoint_every})


def test_a_spec_refuses_what_does_not_apply_and_says_what_does():
    with pytest.raises(ValueError, match="unknown algorithm 'dqn'; the algorithms: dmc, topk-ppo, ppo"):
        RunSpec("doudizhu", "dqn")
    with pytest.raises(ValueError, match="option\\(s\\) prune do not apply to --algo ppo; its options: .*lr"):
        RunSpec.build("big2", "ppo", prune="mcs")
    with pytest.raises(ValueError, match="--resume applies to --algo dmc/topk-ppo only"):
        RunSpec.build("big2", "ppo", resume=True)
    with pytest.raises(ValueError, match="--algo ppo takes PPOSettings, not DMCSettings"):
        RunSpec("big2", "ppo", settings=DMCSettings())
    with pytest.raises(ValueError, match="game .chess. is unknown; available"):
        RunSpec("chess")
    with pytest.raises(ValueError, match="option\\(s\\) --prune \\(dmc\\) do not apply to --algo ppo"):
        RunSpec.from_flags("big2", ["--algo", "ppo", "--prune", "mcs"])
    with pytest.raises(ValueError, match="argument --stop-frames: .*not an int"):
        RunSpec.from_flags("big2", ["--stop-frames", "many"])
    spec = RunSpec("big2", "ppo", settings=PPOSettings(lr=0.01))
    assert spec.settings.lr == 0.01 and spec.run == RunSettings()


def test_a_run_directory_made_before_the_spec_resumes_with_its_own_options(ray_local, tmp_path, capsys):
    old = read_config(RUN_BEFORE_SPEC)
    assert "args" in old and "spec" not in old  # as the committed directory was written
    saved = RunSpec.from_dict(old)
    assert saved.settings.lr == 3e-4 and saved.settings.hidden_sizes == (8,) and saved.run.stop_frames == 400

    out = tmp_path / "run"
    shutil.copytree(RUN_BEFORE_SPEC, out)
    # the algorithm's options of a resumed run are the run's
    assert main(["train", "doudizhu", "--resume", "--out", str(out), "--lr", "0.01"]) == 2
    assert "was trained with lr=0.0003, not lr=0.01" in capsys.readouterr().err
    # the command names the directory and a new stop; the rest comes from its config.json
    assert main(["train", "doudizhu", "--resume", "--out", str(out), "--stop-frames", "800"]) == 0
    printed = capsys.readouterr().out
    assert "resumed from" in printed and "frames 400" in printed and "model mlp" in printed
    records = read_progress(out)
    assert records[0]["frames_trained"] == 400 and records[-1]["frames_trained"] >= 800
    now = read_config(out)
    resumed = RunSpec.from_dict(now)
    assert resumed.settings == saved.settings and resumed.run.stop_frames == 800 and resumed.run.resume
    assert Path(resumed.run.out) == out


def test_every_algorithm_has_a_driver_settings_and_its_run_options():
    from cardrl.algorithms.training.registry import ALGORITHMS, driver
    from cardrl.algorithms.training.run_spec import RUN_OPTIONS, SETTINGS, settings_class
    from cardrl.algorithms.training.settings import OPTIONAL_RUN_OPTIONS

    assert list(ALGORITHMS) == list(SETTINGS) == list(RUN_OPTIONS)
    for algo in ALGORITHMS:
        assert driver(algo).name == algo and RunSpec("big2", algo).settings == settings_class(algo)()
        assert RUN_OPTIONS[algo] <= set(OPTIONAL_RUN_OPTIONS)
