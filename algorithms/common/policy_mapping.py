"""Which RLModule plays each seat: one per seat, named like it (DouZero's one network per position), or one shared by
every seat, which tells seats apart by the identity bits of its features (Luo & Tan 2024's unified features, DanZero
and DanZero+: "they all utilize the same model").

``policy_mapping_fn`` of DMC and top-k PPO is one of the two functions here; :data:`MAPPINGS` names them as the
``module_mapping`` option does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["one_module_per_seat", "one_shared_module", "MAPPINGS", "SHARED", "agent_to_module"]

SHARED = "shared"  # the module id of the one shared module


def one_module_per_seat(agent_id, episode=None, *args, **kwargs) -> str:
    """Policy mapping of DouZero: every seat has its own module, named like the seat."""
    return agent_id


def one_shared_module(agent_id, episode=None, *args, **kwargs) -> str:
    """Policy mapping of Luo & Tan (Big2), DanZero and DanZero+ (GuanDan): one module for every seat."""
    return SHARED


MAPPINGS: dict[str, Callable[..., str]] = {"per_agent": one_module_per_seat, "shared": one_shared_module}


def agent_to_module(policy_mapping_fn: Callable[..., str], agents: Iterable[str]) -> dict[str, str]:
    """Env agent -> the id of the module that plays it."""
    return {agent: policy_mapping_fn(agent, None) for agent in agents}
