"""One ``cardrl tune`` trial: a Tune function trainable on the shared run loop (:mod:`cardrl.algorithms.training.loop`).

It builds the algorithm with the trial's option values over the command line's, trains it until the stop rule and
evaluates the greedy networks against the ``--metric-against`` baseline on the same seeded deals every
``--eval-every`` and at the end (sides swapped, ADP with its 95% t-interval; points per deal where the game's episode
is a match), reporting each evaluation to Tune with an algorithm checkpoint (:class:`TuneReports`), recorded as
produced on this machine like ``cardrl train``'s (:mod:`cardrl.checkpoint_trust`: the best trial's checkpoint loads
without a warning). The agent is evaluated as it plays deployed: an ODMC trial with its pruning, an oracle trial
with a zero oracle block; ``--metric-oracle-block trained`` ranks oracle trials on the score with the block they are
trained on, and every report of an oracle trial whose lambda is above 0 carries both, labelled (``adp_zero_block``,
``adp_trained_block``, ``metric_label``). A trial Tune restarts (``--max-failures``) resumes from its last checkpoint: its frames and its
elapsed training time (the checkpoint's ``run_info``) go on, and so do the stop rule and ``time_s``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from cardrl.algorithms.training.learners import set_learner_threads
from cardrl.algorithms.training.loop import RunClock, run_loop
from cardrl.algorithms.training.registry import driver
from cardrl.algorithms.tune.settings import Sweep, TuneSettings
from cardrl.run_dir import record_as_produced

__all__ = ["dmc_trial", "trial_resources", "TuneReports"]


def trial_resources(config: Any, strategy: str) -> Any:
    """The bundles of one trial: RLlib's own (as ``Algorithm.default_resource_request`` builds them: the main
    process with a local learner, one per env runner, one per remote learner), placed by ``strategy``."""
    from ray.rllib.algorithms.utils import _get_env_runner_bundles, _get_learner_bundles, _get_main_process_bundle
    from ray.tune import PlacementGroupFactory

    bundles = [_get_main_process_bundle(config), *_get_env_runner_bundles(config), *_get_learner_bundles(config)]
    return PlacementGroupFactory([{k: v for k, v in b.items() if v} or {"CPU": 0} for b in bundles],
                                 strategy=strategy)


def _metrics(record: dict, tune: TuneSettings, done: bool) -> dict[str, Any]:
    """The report of one evaluation: the metric (against ``--metric-against``, with the zero or the trained oracle
    block) with its interval and sides, both blocks' scores of an oracle trial, frames, deals, time."""
    from cardrl.eval.lockstep import SCORE_FIELDS

    ev = record["eval"][tune.metric_against]
    label = record.get("eval_label", "")
    extra = {}
    if "eval_oracle" in record:
        trained = record["eval_oracle"]["results"][tune.metric_against]
        extra = {"adp_zero_block": ev["adp"], "adp_trained_block": trained["adp"],
                 "oracle_lambda": record["eval_oracle"]["oracle_lambda"]}
        if tune.metric_oracle_block == "trained":
            ev, label = trained, record["eval_oracle"]["label"]
    return {"adp": ev["adp"], "adp_low": ev["adp_low"], "adp_high": ev["adp_high"],
            "sides": {k: v for k, v in ev.items() if k not in SCORE_FIELDS},
            **extra, **({"metric_label": label} if label else {}),
            "frames_trained": record["frames_trained"], "deals": int(record.get("deals", 0)),
            "time_s": record["time_s"], "final": bool(done)}


class TuneReports:
    """The run loop's sink in a trial: each evaluation (the last iteration's included) is reported to Tune with a
    checkpoint; ``where`` (the trial's node and its env runners') joins every report."""

    evaluate_at_end = True

    def __init__(self, tune: TuneSettings, where: dict[str, str]):
        self.tune, self.where = tune, where

    def iteration(self, algo: Any, record: dict, line: str, done: bool, clock: RunClock) -> None:
        from ray import tune

        if "eval" not in record:
            return
        algo.run_info = clock.run_info(clock.elapsed())
        with tempfile.TemporaryDirectory(prefix="cardrl_tune_") as tmp:
            algo.save_to_path(tmp)
            # trusted as cardrl train's are: Tune copies the files as they are into the trial's directory, so the
            # copy has this fingerprint and `checkpoint:PATH` loads it on this machine without the pickle warning
            record_as_produced(Path(tmp), f"{tune.get_context().get_trial_dir()} (training iteration "
                                          f"{record.get('iteration')})")
            tune.report({**_metrics(record, self.tune, done), **self.where},
                        checkpoint=tune.Checkpoint.from_directory(tmp))

    def finish(self, algo: Any, record: dict, clock: RunClock) -> None:
        pass


def _where(algo: Any, config: Any) -> dict[str, str]:
    """Where the trial runs: its own node and each env runner's (a cluster's placement, docs/tune.md); one string,
    as Tune's TensorBoard logger takes no lists."""
    import ray

    runners = algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                       local_env_runner=False) if config.num_env_runners else []
    return {"node_id": ray.get_runtime_context().get_node_id(), "runner_node_ids": ",".join(runners)}


def dmc_trial(values: dict[str, Any], sweep: Sweep) -> None:
    """One trial (a Tune function trainable): the algorithm of ``sweep``'s trial spec with the trial's option
    ``values`` (module docstring)."""
    from ray import tune

    from cardrl.games.registry import get_game

    # Tune starts a trial in its own directory: relative paths (a checkpoint:PATH baseline) mean what they meant on
    # the command line, where that directory exists on the trial's node
    if sweep.cwd and os.path.isdir(sweep.cwd):
        os.chdir(sweep.cwd)
    run_spec = sweep.trial_spec(values)
    own = driver(run_spec.algo)
    config = own.build_config(run_spec, print)
    algo = config.build_algo()
    try:
        set_learner_threads(algo, run_spec.run.learner_threads)
        start_ckpt = tune.get_checkpoint()
        if start_ckpt is not None:
            with start_ckpt.as_directory() as path:
                algo.restore_from_path(path)  # the algorithm's counters and run_info (time_s) come back with it
        baselines = own.evaluation.baselines(config, run_spec, list(run_spec.run.eval_against))
        run_info = dict(getattr(algo, "run_info", None) or {})
        clock = RunClock.begin(run_spec.run, run_info, own.frames_trained(algo))
        run_loop(algo, run_spec, baselines, clock, TuneReports(sweep.tune, _where(algo, config)),
                 get_game(run_spec.game).protocol.score_name)
    finally:
        algo.stop()
