"""``cardrl train GAME --algo topk-ppo --dmc-checkpoint PATH --k 2``: top-k PPO's part of the run loop
(:mod:`cardrl.algorithms.training.loop`).

Top-k PPO supplies its config (:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`; flags named as
another algorithm's, ``--lr`` or ``--hidden-sizes``, take top-k PPO's defaults), its progress fields (throughput as
sampled frames per second and the share of the runners' time spent scoring candidates with the frozen DMC network)
and its agent, evaluated in duplicate tournaments on the deals a DMC run of the same seed evaluates on
(:class:`~cardrl.algorithms.training.agent_evaluation.AgentEvaluation`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardrl.algorithms.training.agent_evaluation import AgentEvaluation
from cardrl.algorithms.training.driver import Driver
from cardrl.algorithms.training.env_options import env_config_of
from cardrl.algorithms.training.learners import learner_resources
from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["DRIVER", "build_config"]


def build_config(run_spec: RunSpec, say=print):
    """The TopKPPOConfig of a run of ``--algo topk-ppo``, validated (a missing or foreign DMC
    checkpoint fails here, before Ray starts)."""
    from cardrl.algorithms.topk_ppo.topk_ppo import TopKPPOConfig

    settings = run_spec.settings_values()
    envs = settings.pop("num_envs_per_env_runner")
    if settings.get("kl_stop") == 0:
        settings["kl_stop"] = None
    config = (TopKPPOConfig().game(run_spec.game, **env_config_of(run_spec))
              .env_runners(num_env_runners=run_spec.run.num_env_runners, num_envs_per_env_runner=envs)
              .training(**settings)
              .learners(**learner_resources(run_spec.run))
              .debugging(seed=run_spec.run.seed))
    config.validate()
    return config


def progress(result: dict, run_spec: RunSpec) -> tuple[dict, str]:
    learners = {m: s for m, s in result.get("learners", {}).items() if isinstance(s, dict) and "policy_loss" in s}
    losses = {m: float(s["policy_loss"]) for m, s in learners.items()}
    # PPO trains on every frame it samples, within the iteration
    record = {"frames_trained": int(result.get("frames_sampled", 0)),
              "frames_per_s": float(result.get("frames_per_s", 0)),
              "candidate_scoring_share": float(result.get("candidate_scoring_share", 0)),
              "episodes": int(result.get("episodes", 0)),
              "policy_loss": losses, "entropy": {m: float(s.get("entropy", 0)) for m, s in learners.items()},
              "approx_kl": {m: float(s.get("approx_kl", 0)) for m, s in learners.items()},
              "epochs_taken": {m: float(v) for m, v in dict(result.get("epochs_taken", {})).items()}}
    line = (f"frames {record['frames_trained']:,} ({record['frames_per_s']:,.0f}/s, scoring "
            f"{100 * record['candidate_scoring_share']:.0f}%) | episodes {record['episodes']:,} | pi loss "
            + ", ".join(f"{m} {v:+.3f}" for m, v in sorted(losses.items())) + " | epochs "
            + ", ".join(f"{m} {v:.0f}" for m, v in sorted(record["epochs_taken"].items())))
    return record, line


def describe(algo: Any, config: Any, run_spec: RunSpec, out: Path) -> list[str]:
    return [f"training top-k PPO (k={config.k}) on {run_spec.game}: {run_spec.run.num_env_runners} env runner(s) x "
            f"{config.num_envs_per_env_runner} games, candidates from {config.dmc_checkpoint}, run dir {out}"]


DRIVER = Driver(
    name="topk-ppo", title="top-k PPO", agent_kind="topk-ppo", build_config=build_config,
    describe=describe, progress=progress,
    evaluation=AgentEvaluation(lambda algo, run_spec: algo.agent(seed=run_spec.run.seed + 7)),
    frames_trained=lambda algo: int(getattr(algo, "_frames_sampled", 0) or 0))
