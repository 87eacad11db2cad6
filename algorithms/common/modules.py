"""The learner's current RLModules, as the env runners and players get them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

__all__ = ["learner_module_state", "modules_by_agent", "modules_by_id"]


def learner_module_state(learner_group) -> dict:
    """The inference-only state of the learner's MultiRLModule (works with local, remote and GPU learners)."""
    return learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                   inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]


def _current_modules(config, learner_group):
    multi = config.get_multi_rl_module_spec(inference_only=True).build()
    multi.set_state(learner_module_state(learner_group))
    multi.foreach_module(lambda mid, m: m.eval())
    return multi


def modules_by_agent(config, learner_group, agents: Iterable[str]) -> dict[str, Any]:
    """CPU copies (eval mode) of the learner's current modules, keyed by env agent."""
    multi = _current_modules(config, learner_group)
    return {agent: multi[config.policy_mapping_fn(agent, None)] for agent in agents}


def modules_by_id(config, learner_group, module_ids: Iterable[str]) -> dict[str, Any]:
    """CPU copies (eval mode) of the learner's current modules ``module_ids`` (e.g. the bidding networks, which no
    env agent maps to), keyed by module id."""
    multi = _current_modules(config, learner_group)
    return {module_id: multi[module_id] for module_id in module_ids}
