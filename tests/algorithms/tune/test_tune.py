"""`cardrl tune`: space files are checked before anything runs (unknown options, domains and values that do not
apply are refused naming what is allowed, through DMCConfig.validate()); every sweep preset's space applies to
its game; and a real two-trial Ray Tune sweep runs on the 2-CPU local Ray (sampling in each trial's process),
ranked on the evaluation's ADP, writing the table, results.json/CSV, the plot and a best checkpoint that the
``checkpoint:`` agent spec loads."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from cardrl.algorithms.tune.space import SpaceError, check_space, load_space
from cardrl.cli import build_parser, main, parse_args, tune_sweep
from cardrl.presets import presets

ROOT = Path(__file__).resolve().parents[3]
SWEEPS = [p for p in presets().values() if p.space]  # the sweep presets (cardrl/preset_table.py)


def _space(tmp_path: Path, content) -> Path:
    path = tmp_path / "space.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def _check(path: Path, game: str = "doudizhu") -> int:
    return check_space(load_space(path), tune_sweep(parse_args(["tune", game, "--space", str(path)])).base)


@pytest.mark.parametrize("content, message", [
    ({"sweep": {"lrr": {"grid": [1e-4]}}}, r"sweep.lrr: unknown DMC option 'lrr'; options: .*actor_q_clip, .*lr, "),
    ({"sweep": {"lr": {"normal": [0, 1]}}}, r"unknown domain 'normal'; domains: grid, choice, uniform, loguniform, "
                                            r"randint"),
    ({"sweep": {"lr": {"grid": ["fast"]}}}, r"sweep.lr.grid: lr is a number, got 'fast'"),
    ({"sweep": {"epsilon": {"loguniform": [0, 0.1]}}}, r"loguniform: low 0.0 must be > 0"),
    ({"sweep": {"lr": {"loguniform": [0, 1e-3]}}}, r"sweep.lr.loguniform: '0' is not a finite number > 0"),
    ({"sweep": {"frames_per_update": {"grid": [1.5]}}}, r"frames_per_update is an int, got 1.5"),
    ({"fixed": {"q_clip": "admc"}, "sweep": {"admc_gamma": {"grid": [0.2, 1.5]}}},
     r"sweep.admc_gamma.grid: '1.5' is not a number in \(0, 1\)"),
    ({"sweep": {"q_model": {"grid": ["resnet"]}}}, r"q_model='resnet' is not one of \['douzero_lstm', 'luo_tan', "
                                                   r"'mlp'\]"),
    ({"sweep": {"prune_slack": {"uniform": [1, 3]}}}, r"uniform needs a number option; prune_slack is not one"),
    ({"sweep": {"stop_time": {"grid": ["1m"]}}}, r"stop_time is a run option, the same for every trial: give it on "
                                                 r"the command line \(--stop-time\)"),
    ({"sweep": {}}, r"sweep must name at least one option"),
    ({"sweep": {"lr": {"grid": [1e-4]}}, "trials": 3}, r"unknown key\(s\) \['trials'\]; allowed: description, fixed, "
                                                       r"sweep, num_samples"),
    ({"fixed": {"lr": 1e-4}, "sweep": {"lr": {"grid": [1e-3]}}}, r"lr is given twice"),
    ("{not json", r"is not JSON"),
])
def test_a_bad_space_file_is_refused_naming_what_is_allowed(tmp_path, content, message):
    with pytest.raises(SpaceError, match=message):
        _check(_space(tmp_path, content))


@pytest.mark.parametrize("content, message", [
    ({"sweep": {"prune_extra": {"grid": [0, 1]}}}, r"\(prune_extra=1.0\): invalid DMC config: prune_slack/prune_extra "
                                                   r"are set but prune is None"),
    ({"sweep": {"admc_gamma": {"uniform": [0.1, 0.3]}}}, r"admc_gamma/admc_q_floor are set but q_clip is not 'admc'"),
    ({"sweep": {"oracle": {"grid": ["1:0"]}}}, r"an oracle schedule is START:END:FRAMES"),
])
def test_values_that_do_not_apply_are_refused_by_the_dmc_config(tmp_path, content, message):
    with pytest.raises(SpaceError, match=r"does not apply to doudizhu .*" + message):
        _check(_space(tmp_path, content))


def test_the_command_refuses_a_bad_space_before_starting_ray(tmp_path, capsys):
    assert main(["tune", "doudizhu", "--space", str(_space(tmp_path, {"sweep": {"prune_extra": {"grid": [1]}}}))]) == 2
    assert "cardrl tune: error: space file" in capsys.readouterr().err
    assert main(["tune", "doudizhu", "--space", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    space = _space(tmp_path, {"sweep": {"lr": {"grid": [1e-4]}}})
    assert main(["tune", "doudizhu", "--space", str(space), "--metric-against", "grandmaster"]) == 2
    assert "grandmaster" in capsys.readouterr().err


@pytest.mark.parametrize("preset", SWEEPS, ids=[p.name for p in SWEEPS])
def test_every_experiment_space_applies_to_its_game(preset):
    assert _check(ROOT / "cardrl" / "spaces" / preset.space, preset.game) >= 1


@pytest.mark.slow  # a whole sweep: 2 minutes of the default suite's 15
@pytest.mark.timeout(600)
def test_two_trial_sweep_runs_on_two_cpus(ray_local, tmp_path, capsys, monkeypatch):
    """Two trials at once on the 2-CPU local Ray (one CPU each: sampling in the trial's process), ranked on ADP
    against the random agent; the best trial's checkpoint loads as a ``checkpoint:`` agent, and without the
    untrusted-checkpoint warning: the trial recorded it as produced on this machine, as cardrl train does."""
    import warnings

    from cardrl.checkpoint_trust import TRUST_ENV, UntrustedCheckpointWarning, produced_here
    from cardrl.eval.agents import build_agent

    space = _space(tmp_path, {"description": "two learning rates", "sweep": {"lr": {"grid": [1e-4, 1e-3]}}})
    out = tmp_path / "sweep"
    started = time.time()
    rc = main(["tune", "doudizhu", "--space", str(space), "--stop-frames", "300", "--num-env-runners", "0",
               "--num-envs-per-env-runner", "4", "--rollout-fragment-length", "100", "--frames-per-update", "100",
               "--eval-every", "0", "--eval-deals", "10", "--metric-against", "random", "--out", str(out)])
    text = capsys.readouterr().out
    print(f"sweep: {time.time() - started:.1f}s\n{text}")
    assert rc == 0, text
    assert "2 trial(s) over lr" in text and "1 CPU(s) each" in text
    assert "ADP vs random" in text and "95% interval" in text and "best trial" in text
    record = json.loads((out / "results.json").read_text())
    trials = record["trials"]
    assert sorted(t["lr"] for t in trials) == [1e-4, 1e-3]
    assert all(t["status"] == "completed" and t["frames_trained"] >= 300 for t in trials)
    assert all(t["adp_low"] <= t["adp"] <= t["adp_high"] for t in trials)
    assert record["metric"] == "ADP vs random" and record["swept"] == {"lr": {"domain": "grid",
                                                                               "values": [1e-4, 1e-3]}}
    best = record["best"]
    assert best["adp"] == max(t["adp"] for t in trials)
    assert (out / "results.csv").read_text().splitlines()[0].startswith("trial,lr,adp,adp_low,adp_high")
    assert (out / "adp_vs_swept.png").stat().st_size > 1000
    # a user's environment: only checkpoints produced here load without a warning
    monkeypatch.delenv(TRUST_ENV, raising=False)
    assert all(produced_here(Path(t["checkpoint"])) for t in trials), trials
    with warnings.catch_warnings():
        warnings.simplefilter("error", UntrustedCheckpointWarning)
        agent = build_agent(f"checkpoint:{best['checkpoint']}", "doudizhu")
    assert agent is not None


def test_a_trial_larger_than_the_cluster_is_refused_with_its_learner_threads(ray_local, tmp_path, capsys):
    """--learner-threads T makes the trial's own bundle T CPUs (RLlib's main-process bundle): on the 2-CPU local
    Ray a trial of 3 is refused before any trial starts, with where the CPUs go."""
    space = _space(tmp_path, {"sweep": {"lr": {"grid": [1e-4]}}})
    assert main(["tune", "doudizhu", "--space", str(space), "--learner-threads", "3", "--num-env-runners", "0",
                 "--stop-frames", "300", "--out", str(tmp_path / "sweep")]) == 2
    assert re.search(r"a trial needs 3 CPUs \(3 for its driver and learner, --learner-threads 3; .*the Ray cluster "
                     r"has 2$", capsys.readouterr().err.strip())
