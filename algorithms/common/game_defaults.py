"""The per-game defaults of cardrl's algorithms, derived from the game's own data rather than kept per game.

- :func:`default_module_mapping`: one network per seat when the seats' states differ in size under the features
  (DouZero's DouDiZhu features: the landlord's 319 values, a peasant's 430), else one network shared by every seat,
  which tells seats apart by the identity bits of its features (Luo & Tan's unified features, Big2, GuanDan).
- :func:`target_scales`: every seat's Monte-Carlo targets on one scale, that of the seat whose payoffs reach least:
  DouDiZhu's landlord, who wins or pays twice what a peasant does, gets 0.5 (DouZero's targets).
"""

from __future__ import annotations

import numpy as np

from cardrl.games.registry import GameSpec

__all__ = ["default_module_mapping", "shared_network_features", "target_scales"]


def default_module_mapping(spec: GameSpec, features: str | None = None) -> str:
    """``"per_agent"`` or ``"shared"`` for a game's feature encoder (default: the game's first; an unknown name
    raises ValueError naming the game's encoders)."""
    encoder = spec.make_features(features)
    sizes = {encoder.state_dim(agent) for agent in spec.agents}
    return "shared" if len(sizes) == 1 else "per_agent"


def shared_network_features(spec: GameSpec) -> list[str]:
    """The game's feature encoders whose state has one size for every seat (one shared network can play them)."""
    return [name for name in spec.features if default_module_mapping(spec, name) == "shared"]


def target_scales(env) -> dict[str, float]:
    """Agent -> factor from its zero-sum payoff to its target, for the agents whose factor is not 1: the smallest
    reach of any seat's payoff (``payoff_bounds`` under the env's reward) over the agent's own."""
    low, high = env.game.payoff_bounds(env.reward)
    reach = np.maximum(np.abs(np.asarray(low, dtype=np.float64)), np.abs(np.asarray(high, dtype=np.float64)))
    smallest = float(reach.min())
    return {agent: smallest / float(reach[seat]) for seat, agent in enumerate(env.possible_agents)
            if reach[seat] != smallest}
