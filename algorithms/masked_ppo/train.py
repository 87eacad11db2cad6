"""``cardrl train GAME --algo ppo``: RLlib's own PPO with the action-masking module on ``cardrl/<game>_v0``, as the run
loop (:mod:`cardrl.algorithms.training.loop`) drives it.

The options are :class:`~cardrl.algorithms.masked_ppo.settings.PPOSettings` (RLlib's PPO defaults; flags named as
another algorithm's, ``--lr`` or ``--hidden-sizes``, take PPO's defaults); the agent is evaluated in duplicate
tournaments (:class:`~cardrl.algorithms.training.agent_evaluation.AgentEvaluation`).
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
    """RLlib's PPOConfig of a run of ``--algo ppo``."""
    from cardrl.algorithms.masked_ppo.masked_ppo import masked_ppo_config

    return (masked_ppo_config(run_spec.game, env_config_of(run_spec), **run_spec.settings_values())
            .env_runners(num_env_runners=run_spec.run.num_env_runners)
            .learners(**learner_resources(run_spec.run))
            .debugging(seed=run_spec.run.seed))


def progress(result: dict, run_spec: RunSpec) -> tuple[dict, str]:
    learners = {m: s for m, s in result.get("learners", {}).items() if isinstance(s, dict) and "policy_loss" in s}
    runners = result.get("env_runners", {})
    frames = int(runners.get("num_env_steps_sampled_lifetime", 0) or 0)  # all trained on, within the iteration
    record = {"frames_trained": frames, "episodes": int(runners.get("num_episodes_lifetime", 0) or 0),
              "policy_loss": {m: float(s["policy_loss"]) for m, s in learners.items()},
              "vf_loss": {m: float(s.get("vf_loss", 0)) for m, s in learners.items()},
              "entropy": {m: float(s.get("entropy", 0)) for m, s in learners.items()}}
    line = (f"steps {frames:,} | episodes {record['episodes']:,} | pi loss "
            + ", ".join(f"{m} {v:+.3f}" for m, v in sorted(record["policy_loss"].items())))
    return record, line


def make_agent(algo: Any, run_spec: RunSpec):
    """The greedy masked-PPO agent of ``algo``'s current modules."""
    from cardrl.algorithms.masked_ppo.agent_loaders import MaskedPPOAgent
    from cardrl.algorithms.masked_ppo.masked_ppo import agent_to_module

    return MaskedPPOAgent({a: algo.get_module(m) for a, m in agent_to_module(run_spec.game).items()}, run_spec.game,
                          features=(algo.config.env_config or {}).get("features"))


def describe(algo: Any, config: Any, run_spec: RunSpec, out: Path) -> list[str]:
    return [f"training RLlib's PPO (masked action-embedding module) on {run_spec.game}: "
            f"{run_spec.run.num_env_runners} env "
            f"runner(s), run dir {out}"]


DRIVER = Driver(name="ppo", title="RLlib's PPO", agent_kind="ppo", build_config=build_config,
                describe=describe, progress=progress, evaluation=AgentEvaluation(make_agent))
