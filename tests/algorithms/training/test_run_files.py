"""Every training driver writes the same run files (the run loop, cardrl/run_dir.py): `config.json` whose command line
parses back to the run's options, TensorBoard scalars in tb/, and a progress.jsonl that `cardrl report` and
`cardrl plot` read. Short real runs of top-k PPO and RLlib's masked PPO through `cardrl train` (the smallest settings
of tests/algorithms/topk_ppo/test_topk_ppo.py); DMC's run files are checked by tests/eval/test_report.py and
tests/algorithms/training/test_train_cli.py."""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import fields
from pathlib import Path

import pytest

from cardrl.algorithms.masked_ppo.settings import PPOSettings
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.training.settings import RunSettings
from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings
from cardrl.cli import main, parse_args, train_spec
from cardrl.eval.plot import plot_run
from cardrl.run_dir import log_scalars, read_progress

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def guandan_dmc_checkpoint(tmp_path_factory) -> str:
    """A GuanDan DMC checkpoint of one tiny iteration (as tests/algorithms/topk_ppo/test_topk_ppo.py's)."""
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig

    if not ray.is_initialized():  # as the ray_local fixture of conftest.py
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    config = (DMCConfig().game("guandan", match=False)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=100)
              .training(frames_per_update=128, hidden_sizes=[16]).debugging(seed=5))
    algo = config.build_algo()
    try:
        algo.train()
        return algo.save_to_path(str(tmp_path_factory.mktemp("dmc_guandan")))
    finally:
        algo.stop()


def _check_run_files(run, game: str, algo: str, settings: type, capsys) -> dict:
    config = json.loads((run / "config.json").read_text())
    assert {"game", "title", "algo", "agent_kind", "command", "spec", algo, "env_config", "rllib"} <= set(config)
    assert config["game"] == game and config["algo"] == algo and config["agent_kind"] == algo
    assert config["rllib"] and set(config[algo]) == {f.name for f in fields(settings)}

    # the command line parses back to the same spec, each algorithm taking its own defaults
    again = train_spec(parse_args(shlex.split(config["command"])[1:]))
    assert again == RunSpec.from_dict(config) and again.to_dict() == config["spec"]
    assert type(again.settings) is settings

    assert [p for p in (run / "tb").glob("events.out.tfevents.*") if p.stat().st_size > 0]
    records = read_progress(run)
    assert records[-1].get("final") is True and records[-1]["eval"] and records[-1]["frames_trained"] > 0
    assert all(r["frames_per_s"] >= 0 for r in records)

    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    assert capsys.readouterr().out.strip() == f"report written: {run / 'report.html'}"
    page = (run / "report.html").read_text()
    assert "data:image/png;base64," in page and "policy loss (last iteration)" in page
    assert shlex.quote(f"{algo}:{run / 'checkpoint'}") in page  # the command that evaluates its checkpoint
    assert f"{algo} settings as the algorithm resolved them" in page
    assert plot_run(run).read_bytes()[:8] == PNG
    return config


def test_topk_ppo_run_writes_config_tensorboard_and_reports(guandan_dmc_checkpoint, ray_local, tmp_path, capsys):
    run = tmp_path / "run"
    rc = main(["train", "guandan", "--algo", "topk-ppo", "--dmc-checkpoint", guandan_dmc_checkpoint,
               "--stop-frames", "60", "--train-batch-size", "60", "--hidden-sizes", "16", "--head-hidden", "8",
               "--num-epochs", "2", "--num-envs-per-env-runner", "2", "--num-env-runners", "0", "--eval-every", "0",
               "--eval-deals", "1", "--out", str(run)])
    assert rc == 0
    config = _check_run_files(run, "guandan", "topk-ppo", TopKPPOSettings, capsys)
    assert config["spec"]["settings"]["lr"] == 1e-4 and config["topk-ppo"]["hidden_sizes"] == [16]
    assert "--hidden-sizes 16" in config["command"] and "--lr" not in config["command"]


def test_masked_ppo_run_writes_config_tensorboard_and_reports(ray_local, tmp_path, capsys):
    run = tmp_path / "run"
    rc = main(["train", "big2", "--algo", "ppo", "--stop-frames", "40", "--train-batch-size", "40",
               "--minibatch-size", "40", "--num-epochs", "1", "--hidden-sizes", "16", "--embedding-dim", "4",
               "--num-env-runners", "0", "--eval-every", "0", "--eval-deals", "2", "--out", str(run)])
    assert rc == 0
    config = _check_run_files(run, "big2", "ppo", PPOSettings, capsys)
    assert config["spec"]["settings"]["lr"] == 5e-5  # PPO's default, not DMC's
    assert config["ppo"]["embedding_dim"] == 4 and config["ppo"]["train_batch_size"] == 40


class _Writer:
    def __init__(self):
        self.scalars: dict[str, tuple[float, int]] = {}

    def add_scalar(self, tag, value, step):
        self.scalars[tag] = (value, step)

    def flush(self):
        pass


def test_log_scalars_names_each_number_by_its_path():
    writer = _Writer()
    log_scalars(writer, {"time_s": 3.0, "iteration": 2, "frames_trained": 600, "frames_per_s": 200.0, "final": True,
                         "policy_loss": {"shared": 0.5}, "opponent_model": {"m": {"om_k_loss": 1.5}},
                         "eval": {"random": {"adp": 0.25, "per_deal": [1, 2]}},
                         "reached_adp_above_0": {"random": {"time_s": 3.0}}}, 600, "topk-ppo")
    assert writer.scalars == {"topk-ppo/frames_per_s": (200.0, 600), "policy_loss/shared": (0.5, 600),
                              "opponent_model/m/om_k_loss": (1.5, 600), "eval_vs_random/adp": (0.25, 600)}


def test_command_line_writes_what_differs_from_the_defaults():
    spec = RunSpec.build("big2", "ppo", stop_time=90.0, eval_against=["random"], gpu=True, lr=5e-5, hidden_sizes=[16])
    assert spec.command() == "cardrl train big2 --algo ppo --stop-time 90s --gpu --hidden-sizes 16"


# ---- the run loop on a stand-in algorithm (no Ray) -----------------------------------------------------------------
class _Algo:
    """What the run loop asks of an algorithm: train, save, and the run_info a checkpoint keeps."""

    def __init__(self):
        self.iteration, self.frames, self.run_info = 0, 0, {}

    def train(self) -> dict:
        self.iteration += 1
        self.frames += 100
        return {"training_iteration": self.iteration, "frames": self.frames}

    def save_to_path(self, path: str) -> str:
        Path(path).mkdir(parents=True)
        (Path(path) / "state.json").write_text(json.dumps({"frames": self.frames, "run_info": self.run_info}))
        return path


@pytest.fixture
def stand_in_spec(monkeypatch):
    """``make(evaluation, **options)``: the RunSpec of a stand-in algorithm (its driver registered for the test),
    on DouDiZhu with ``options``."""
    from cardrl.algorithms.training import registry, run_spec
    from cardrl.algorithms.training.driver import Driver

    def make(evaluation, **options) -> RunSpec:
        stand_in = Driver(name="stand-in", title="stand-in", agent_kind="stand-in",
                          build_config=lambda run_spec, say: None, describe=lambda *a: [],
                          progress=lambda result, run_spec: ({"frames_trained": result["frames"]},
                                                             f"frames {result['frames']}"),
                          evaluation=evaluation, frames_trained=lambda algo: algo.frames)
        monkeypatch.setitem(registry.ALGORITHMS, "stand-in", stand_in)  # resolve() returns what is not a string
        monkeypatch.setitem(run_spec.SETTINGS, "stand-in", PPOSettings)
        monkeypatch.setitem(run_spec.RUN_OPTIONS, "stand-in", frozenset({"eval_every_frames"}))
        return RunSpec.build("doudizhu", "stand-in", **options)

    return make


class _Evaluation:
    def baselines(self, config, args, specs):
        return list(specs)

    def evaluate(self, algo, args, baselines):
        return {"eval": {b: {"adp": 0.5, "adp_low": 0.1, "adp_high": 0.9} for b in baselines}}

    def line(self, record, args):
        return ""

    def report_final(self, algo, final, args, baselines):
        print(f"final at {final['frames_trained']}")


def test_the_run_loop_evaluates_at_frame_milestones_checkpoints_and_closes_with_a_final_record(tmp_path, capsys,
                                                                                              stand_in_spec):
    from cardrl.algorithms.training.loop import RunClock, RunFiles, run_loop

    spec = stand_in_spec(_Evaluation(), stop_frames=500, eval_every=0, eval_every_frames=200, checkpoint_every=3600)
    algo = _Algo()
    sink = RunFiles(tmp_path, spec, ["random"], "ADP")
    try:
        run_loop(algo, spec, ["random"], RunClock.begin(spec.run, {}, 0), sink, "ADP")
    finally:
        sink.close()
    printed = capsys.readouterr().out
    records = read_progress(tmp_path)
    assert [r["frames_trained"] for r in records] == [100, 200, 300, 400, 500, 500]
    assert [r.get("eval_frames") for r in records[:-1]] == [None, 200, None, 400, None]
    assert "ADP > 0 vs random reached at 0.0 min, 200 frames" in printed and "final at 500" in printed
    final = records[-1]
    assert final["final"] and final["eval"]["random"]["adp"] == 0.5 and all(r["frames_per_s"] >= 0 for r in records)
    assert final["reached_adp_above_0"] == {"random": {"time_s": records[1]["time_s"], "frames_trained": 200}}
    # one checkpoint, at the end, swapped in whole, with the clock the run loop keeps for a resume
    saved = json.loads((tmp_path / "checkpoint" / "state.json").read_text())
    assert saved["frames"] == 500 and saved["run_info"]["reached"] == final["reached_adp_above_0"]
    assert not (tmp_path / "checkpoint.tmp").exists() and not (tmp_path / "checkpoint.prev").exists()
    assert printed.count("checkpoint written") == 1


class _SlowEvaluation(_Evaluation):
    def evaluate(self, algo, args, baselines):
        time.sleep(0.3)
        return super().evaluate(algo, args, baselines)


def test_training_seconds_leave_out_every_evaluation_and_a_checkpoint_counts_them(tmp_path, stand_in_spec):
    """An evaluation record's train_s must not lose its own evaluation's seconds, and the clock a checkpoint keeps
    must count every evaluation already in its eval_time_s (else a resumed run's training time comes out short)."""
    from cardrl.algorithms.training.loop import RunClock, RunFiles, run_loop

    spec = stand_in_spec(_SlowEvaluation(), stop_frames=400, eval_every=0, eval_every_frames=100,
                         checkpoint_every=0)
    algo, sink = _Algo(), RunFiles(tmp_path, spec, ["random"], "ADP")
    try:
        run_loop(algo, spec, ["random"], RunClock.begin(spec.run, {}, 0), sink, "ADP")
    finally:
        sink.close()
    records = read_progress(tmp_path)
    assert all(0 <= r["train_s"] < 0.25 for r in records), [r["train_s"] for r in records]  # 1.2 s of evaluations
    assert records[-1]["time_s"] >= 1.2 and records[-1]["eval_time_s"] >= 1.2
    saved = json.loads((tmp_path / "checkpoint" / "state.json").read_text())["run_info"]
    assert 0 <= saved["time_s"] - saved["eval_time_s"] < 0.25


def test_a_resume_moves_the_records_after_its_checkpoint_aside(tmp_path):
    from cardrl.run_dir import DISCARDED, PROGRESS, trim_progress

    (tmp_path / PROGRESS).write_text("".join(json.dumps({"iteration": i}) + "\n" for i in (1, 2, 3)) + '{"iter')
    assert trim_progress(tmp_path, 2) == 2
    assert [r["iteration"] for r in read_progress(tmp_path)] == [1, 2]
    assert (tmp_path / DISCARDED).read_text().splitlines() == ['{"iteration": 3}', '{"iter']


def test_a_run_that_does_not_resume_moves_an_earlier_runs_records_aside(tmp_path, capsys):
    """A new run in a directory that holds an earlier run's records (``--resume`` with no complete checkpoint left,
    e.g. on a fresh machine, or a plain rerun) must not append to them: its curves would start with the old run's."""
    from cardrl.algorithms.training.loop import _restore
    from cardrl.run_dir import DISCARDED, PROGRESS

    old = "".join(json.dumps({"iteration": i, "frames_trained": 100 * i}) + "\n" for i in (1, 2))
    (tmp_path / PROGRESS).write_text(old)
    assert _restore(None, None, RunSettings(), tmp_path, None) == {}
    assert (tmp_path / PROGRESS).read_text() == "" and (tmp_path / DISCARDED).read_text() == old
    assert f"2 progress record(s) of an earlier run in {tmp_path} moved to {DISCARDED}" in capsys.readouterr().out
    assert _restore(None, None, RunSettings(), tmp_path, None) == {}  # nothing left to move: nothing said
    assert capsys.readouterr().out == ""
