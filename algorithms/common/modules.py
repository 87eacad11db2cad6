"""The learner's current RLModules, as the env runners and players get them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

__all__ = ["learner_module_state", "modules_by_agent"]


def learner_module_state(learner_group) -> dict:
    """The inference-only state of the learner's MultiRLModule (works with local, remote and GPU learners)."""
    return learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                   inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]


def modules_by_agent(config, learner_group, agents: Iterable[str]) -> dict[str, Any]:
    """CPU copies (eval mode) of the learner's current modules, keyed by env agent."""
    multi = config.get_multi_rl_module_spec(inference_only=True).build()
    multi.set_state(learner_module_state(learner_group))
    multi.foreach_module(lambda mid, m: m.eval())
    return {agent: multi[config.policy_mapping_fn(agent, None)] for agent in agents}
