"""``cardrl tune GAME --space FILE``: a Ray Tune sweep over DMC's options, scheduled on the evaluation's ADP.

The space file (:mod:`cardrl.algorithms.tune.space`) is checked before Ray starts. Each trial
(:mod:`cardrl.algorithms.tune.trial`) trains on the shared run loop and reports each evaluation with a checkpoint.
The scheduler (ASHA, Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning"; or FIFO: every trial
to its end) ranks trials on that ADP, never on the training loss. Each trial asks for the algorithm's own resources
(RLlib's ``Algorithm.default_resource_request``: one CPU for the learner and sampling in the trial's process, one per
env runner), so a 2-core machine runs two trials at once with ``--num-env-runners 0``. A trial whose process dies (a
lost node, an OOM kill) is restarted up to ``--max-failures`` times from its last checkpoint: its frames, learner
state and elapsed training time come back, so ``--stop-frames`` and ``--stop-time`` count on from there. A sweep
whose driver died (a head node crash, Ctrl-C, a killed job) is continued by the same command with ``--resume``
(Tune's ``Tuner.restore``; :mod:`cardrl.algorithms.tune.resume`): unfinished trials go on from their last
checkpoint, finished ones are kept.

Output, in ``--out`` (default ``runs/tune_<game>``): the table of every trial's last evaluation against the swept
values (printed, ``results.json``, ``results.csv``), ``adp_vs_swept.png`` (the ADP with its interval against each
swept option) and the best trial's checkpoint, an RLlib algorithm checkpoint that the ``checkpoint:PATH`` agent spec
loads (``cardrl eval GAME --a checkpoint:PATH``). Tune's own records are in ``<out>/tune``, and the space and
options the sweep was started with in ``<out>/sweep.json`` (what ``--resume`` checks). docs/tune.md shows how
to sweep locally and on a cluster (``ray job submit``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from cardrl.algorithms.training.run_checks import stop_time_of
from cardrl.algorithms.training.registry import driver
from cardrl.algorithms.tune import resume as resuming
from cardrl.algorithms.tune.results import best_of, label, plot, rows_of, table, write_csv
from cardrl.algorithms.tune.settings import Sweep
from cardrl.algorithms.tune.space import SweepSpace, check_space, load_space

__all__ = ["run_tune", "check_tune"]


def _check_options(sweep: Sweep, space: SweepSpace) -> None:
    """Refuse, before Ray starts, the options that can not run."""
    from cardrl.eval.agents import build_agent
    from cardrl.games.registry import get_game

    tune, game = sweep.tune, sweep.base.game
    build_agent(tune.metric_against, game, get_game(game).full_options({}), seed=sweep.base.run.seed)  # a bad spec
    if tune.metric_oracle_block == "trained" and sweep.base.settings.oracle is None and "oracle" not in space.fixed \
            and "oracle" not in space.sweep:
        raise ValueError("--metric-oracle-block trained ranks oracle-guided trials on the score with their trained "
                         "oracle block: give --oracle (or fix or sweep oracle in the space file)")


def _prepare_out(sweep: Sweep, space: SweepSpace) -> tuple[Path, dict, bool]:
    """The sweep directory, the record of the sweep (this command's, or the one it resumes) and whether it
    resumes."""
    out = Path(sweep.tune.out or f"runs/tune_{sweep.base.game}").resolve()
    experiment = out / "tune"
    started = resuming.sweep_record(sweep, space)
    resumes = sweep.tune.resume and resuming.can_resume(experiment)
    if resumes:
        started = resuming.check_resume(out, started)
        print(f"--resume: continuing the sweep in {experiment} ({resuming.trial_statuses(experiment)})", flush=True)
    elif sweep.tune.resume:
        print(f"--resume: {experiment} has no sweep to continue; starting a fresh sweep", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    if not resumes:
        (out / resuming.SWEEP_RECORD).write_text(json.dumps(started, indent=1) + "\n")
    return out, started, resumes


def _scheduler(sweep: Sweep) -> Any:
    """ASHA on the trials' evaluations (its rungs counted in evaluations), or FIFO."""
    from ray.tune.schedulers import ASHAScheduler, FIFOScheduler

    tune, stop_time = sweep.tune, stop_time_of(sweep.base.run)
    if tune.eval_every and stop_time:
        max_t = max(1, math.ceil(stop_time / tune.eval_every))
    else:
        max_t = 100 if tune.eval_every else 1
    if tune.scheduler != "asha":
        return FIFOScheduler()
    return ASHAScheduler(time_attr="training_iteration", max_t=max_t, grace_period=min(tune.grace_evals, max_t),
                         reduction_factor=tune.reduction_factor)


def _tuner(sweep: Sweep, space: SweepSpace, out: Path, resources: Any, resumes: bool, score_name: str):
    """Tune's Tuner of the sweep: a new one, or the one restored from ``<out>/tune``."""
    from ray import tune

    from cardrl.algorithms.tune.trial import dmc_trial

    # Tune's own console tables and its checkpoint-sync warnings stay off: the callback prints each evaluation
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    os.environ.setdefault("TUNE_WARN_EXCESSIVE_EXPERIMENT_CHECKPOINT_SYNC_THRESHOLD_S", "0")
    trainable = tune.with_resources(tune.with_parameters(dmc_trial, sweep=sweep), resources)
    if resumes:
        # the scheduler, the search state, the failure config and the printer come back from Tune's own records;
        # they equal this command's, which check_resume made sure of. A trial that failed with no restart left gets
        # one more go from its checkpoint (its failures still count, so it is not retried again)
        return tune.Tuner.restore(str(out / "tune"), trainable=trainable, resume_unfinished=True,
                                  resume_errored=True)
    return tune.Tuner(
        trainable, param_space=space.param_space(),
        tune_config=tune.TuneConfig(metric="adp", mode="max", scheduler=_scheduler(sweep),
                                    num_samples=sweep.tune.num_samples or space.num_samples,
                                    max_concurrent_trials=sweep.tune.max_concurrent or None),
        run_config=tune.RunConfig(name="tune", storage_path=str(out), verbose=0,
                                  checkpoint_config=tune.CheckpointConfig(num_to_keep=1),
                                  failure_config=tune.FailureConfig(max_failures=sweep.tune.max_failures),
                                  callbacks=[_printer(score_name, sweep.tune.metric_against, list(space.sweep))]))


def _start(sweep: Sweep, space: SweepSpace, out: Path, checked: int, score_name: str) -> Any:
    """Start Ray, size a trial and say what the sweep is; returns the trial's resources."""
    import ray

    from cardrl.algorithms.tune.trial import trial_resources
    from cardrl.ray_start import start_ray

    run, tune = sweep.base.run, sweep.tune
    start_ray(max(os.cpu_count() or 2, run.learner_threads + run.num_env_runners))
    trial = sweep.trial_spec({})
    config = driver(trial.algo).build_config(trial, lambda _: None)
    config.reserve_runner_gpus()  # a trial's bundles hold its runners' GPU shares, as its algorithm will ask
    resources = trial_resources(config, tune.placement_strategy)
    per_trial = sum(b.get("CPU", 0) for b in resources.bundles)
    cluster_cpus = int(ray.cluster_resources().get("CPU", 0))
    if per_trial > cluster_cpus:
        main = resources.bundles[0].get("CPU", 0)
        raise ValueError(f"a trial needs {per_trial:g} CPUs ({main:g} for its driver and learner, --learner-threads "
                         f"{run.learner_threads}; the rest for --num-env-runners {run.num_env_runners} and any "
                         f"--num-learners); the Ray cluster has {cluster_cpus}")
    samples = tune.num_samples or space.num_samples
    trials = samples * math.prod(len(v) for d, v in space.sweep.values() if d == "grid")
    print(f"tuning DMC on {sweep.base.game}: {trials} trial(s) over {', '.join(space.sweep)} ({checked} config(s) "
          f"checked), "
          f"{per_trial:g} CPU(s) each, {cluster_cpus} in the cluster; scheduler {tune.scheduler} on {score_name} vs "
          f"{tune.metric_against}; sweep dir {out}", flush=True)
    return resources


def _write_results(grid: Any, sweep: Sweep, space: SweepSpace, out: Path, started: dict, resumes: bool,
                   spec: Any) -> tuple[list[dict], dict | None]:
    """results.json, results.csv and the plot; the table printed. Returns the rows and the best row."""
    names, score_name, tune = list(space.sweep), spec.protocol.score_name, sweep.tune
    rows = rows_of(grid, names, resuming.trial_states(out / "tune"))
    best = best_of(rows)
    record = {"game": spec.name, "space": space.path, "description": space.description, "fixed": space.fixed,
              "swept": {n: {"domain": d, "values": v} for n, (d, v) in space.sweep.items()},
              "metric": f"{score_name} vs {tune.metric_against}", "metric_oracle_block": tune.metric_oracle_block,
              "scheduler": tune.scheduler,
              "max_failures": tune.max_failures, "command": started["command"] or sweep.command,
              "resumed": resumes, "trials": rows, "best": best, "errors": [str(e) for e in grid.errors]}
    (out / "results.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    write_csv(out / "results.csv", rows, names)
    png = plot(out / "adp_vs_swept.png", rows, names, space, f"{score_name} vs {tune.metric_against}", spec.title)
    print(table(rows, names, score_name, tune.metric_against), flush=True)
    print(f"results: {out / 'results.json'}, {out / 'results.csv'}; plot: {png}", flush=True)
    return rows, best


def check_tune(sweep: Sweep) -> tuple[SweepSpace, int]:
    """What ``cardrl tune`` checks before Ray starts: the space file, the options, every combination's DMC config;
    returns the space and the number of configs checked. ValueError / FileNotFoundError naming what is wrong."""
    if sweep.tune.space is None:
        raise ValueError("a sweep needs a space file: give --space FILE (docs/tune.md)")
    space = load_space(sweep.tune.space)
    _check_options(sweep, space)
    return space, check_space(space, sweep.base)


def run_tune(sweep: Sweep) -> int:
    """``cardrl tune``: check the space, run the sweep on the local Ray or the cluster of ``RAY_ADDRESS``, write the
    table, the plot and the best checkpoint's path (module docstring). 0 when every trial ran, 1 otherwise."""
    from cardrl.games.registry import get_game

    spec = get_game(sweep.base.game)
    space, checked = check_tune(sweep)
    sweep = dataclasses.replace(sweep, fixed=dict(space.fixed), cwd=os.getcwd())
    out, started, resumes = _prepare_out(sweep, space)
    score_name = spec.protocol.score_name
    resources = _start(sweep, space, out, checked, score_name)
    grid = _tuner(sweep, space, out, resources, resumes, score_name).fit()
    rows, best = _write_results(grid, sweep, space, out, started, resumes, spec)
    names = list(space.sweep)
    if best is not None:
        print(f"best trial {best['trial']} ({', '.join(f'{n}={label(best[n])}' for n in names)}): {score_name} "
              f"{best['adp']:+.3f} [{best['adp_low']:+.3f}, {best['adp_high']:+.3f}]; checkpoint {best['checkpoint']}"
              f"\n  cardrl eval {spec.name} --a checkpoint:{best['checkpoint']} --b {sweep.tune.metric_against}",
              flush=True)
    for err in grid.errors:
        print(f"trial error: {err}", file=sys.stderr)
    unfinished = [r["trial"] for r in rows if r["status"] == "unfinished"]
    if unfinished:
        again = sweep.command or f"cardrl tune {spec.name} --space {space.path} --out {out}"
        print(f"the sweep stopped before trial(s) {', '.join(unfinished)} finished; continue it with:\n  "
              f"{again}{'' if sweep.tune.resume else ' --resume'}", flush=True)
    return 0 if not grid.errors and not unfinished and best is not None else 1


def _printer(score_name: str, against: str, names: list[str]) -> Any:
    """A Tune callback that prints one line per reported evaluation (Tune's own tables stay off) and one per failure
    of a trial's process. (A restored sweep runs the copy of it that Tune kept in ``tuner.pkl``, so it holds no
    state that the driver reads back.)"""
    from ray.tune import Callback

    class PrintEvaluations(Callback):
        def on_trial_result(self, iteration, trials, trial, result, **info):
            values = ", ".join(f"{n}={label(trial.config.get(n))}" for n in names)
            print(f"[{trial.trial_id}] {values} | eval {result.get('training_iteration')} | frames "
                  f"{result.get('frames_trained', 0):,} | {score_name} vs {against} {result['adp']:+.3f} "
                  f"[{result['adp_low']:+.3f}, {result['adp_high']:+.3f}]"
                  + (" | done" if result.get("final") else ""), flush=True)

        def on_trial_recover(self, iteration, trials, trial, **info):
            last = trial.latest_checkpoint_result
            since = (f"its checkpoint of eval {last.metrics.get('training_iteration')} (frames "
                     f"{last.metrics.get('frames_trained', 0):,}, {last.metrics.get('time_s', 0):,.0f}s trained)"
                     if last is not None and last.checkpoint is not None else "the start (no checkpoint yet)")
            limit = "unlimited" if trial.max_failures < 0 else trial.max_failures
            print(f"[{trial.trial_id}] failed (failure {trial.num_failures}, --max-failures {limit}): restarting "
                  f"from {since}; see {_error_file(trial)}", flush=True)

        def on_trial_error(self, iteration, trials, trial, **info):
            print(f"[{trial.trial_id}] failed (failure {trial.num_failures}, no restart left): see "
                  f"{_error_file(trial)}", flush=True)

    def _error_file(trial: Any) -> str:
        # the copy in the sweep directory (Tune syncs it from the driver's staging dir), not the one under /tmp/ray
        return str(Path(trial.path or trial.local_path) / "error.txt")

    return PrintEvaluations()
