"""What the card-game AEC envs share: PettingZoo's turn protocol around an engine (one place, not three).

* :func:`leave_if_done`: the AEC rule for a finished agent (only ``step(None)`` is allowed; it leaves) and the
  error for a step after every agent has left;
* :func:`check_action_int`: an action must be a plain int (bools and floats are refused with what is allowed);
* :func:`settle_rewards`: after a move, the rewards of every live agent (the engine's payoffs when the episode
  ends, else 0) and their termination flags;
* :func:`masked_spaces` and :class:`DeclaredSpaces`: the spaces declared up front, ``Dict(observation, action_mask)``
  per agent and ``Discrete(num_actions)``;
* :class:`OrderEnforcing`: PettingZoo's order-enforcing wrapper without its per-step attribute forwarding cost, and
  with a step before ``reset()`` or after the end an error (PettingZoo's asserts or warns).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from gymnasium import spaces
from pettingzoo.utils import wrappers

from cardrl.games.engine import GameOverError


def masked_spaces(obs_dims: dict[str, int], num_actions: int, low: float = 0.0,
                  high: float = 1.0) -> tuple[dict[str, spaces.Space], dict[str, spaces.Space]]:
    """Observation spaces ``Dict(observation: Box(low, high, (dim,)), action_mask: Box(0, 1, (num_actions,), int8))``
    and action spaces ``Discrete(num_actions)`` for agents -> observation size."""
    observation = {a: spaces.Dict({"observation": spaces.Box(low, high, (dim,), np.float32),
                                   "action_mask": spaces.Box(0, 1, (num_actions,), np.int8)})
                   for a, dim in obs_dims.items()}
    return observation, {a: spaces.Discrete(num_actions) for a in obs_dims}


class DeclaredSpaces:
    """Mixin (before ``AECEnv``): the per-agent spaces come from ``observation_spaces`` / ``action_spaces``."""

    observation_spaces: dict
    action_spaces: dict

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]


def leave_if_done(env, action, episode: str = "deal") -> bool:
    """Handle a step by an agent whose episode is over; True when the step was consumed (the agent left)."""
    agent = env.agent_selection
    if env.terminations.get(agent) or env.truncations.get(agent):
        if action is not None:
            raise GameOverError(f"the {episode} is over: {agent} may only step(None) to leave it (got {action!r}); "
                                f"call reset() to play again")
        env._was_dead_step(action)
        return True
    if not env.agents:
        raise GameOverError(f"the {episode} is over and every agent has left it; call reset() to play again")
    return False


def check_action_int(agent: str | None, action, num_actions: int, what: str = "a move id") -> int:
    """The action (of ``agent``, if one is named) as an int, or TypeError naming the allowed range."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        subject = f"{agent}'s action" if agent else "an action"
        raise TypeError(f"{subject} must be an int in Discrete({num_actions}) ({what} 0..{num_actions - 1}), "
                        f"got {type(action).__name__} {action!r}")
    return int(action)


def settle_rewards(env, agent: str, payoffs: Callable[[], np.ndarray] | None, seat_of: Callable[[str], int]) -> None:
    """After ``agent`` moved: every live agent's reward is its payoff when ``payoffs`` is given (the episode
    ended; they terminate), else 0; then PettingZoo's cumulative rewards are updated by the caller."""
    env._cumulative_rewards[agent] = 0.0
    if payoffs is not None:
        values = payoffs()
        for a in env.agents:
            env.rewards[a] = float(values[seat_of(a)])
            env.terminations[a] = True
    else:
        for a in env.agents:
            env.rewards[a] = 0.0


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct access to the attributes read at every step.

    The stock wrapper forwards every attribute through ``__getattr__``, several lookups per step; here
    ``last()`` and the per-step attributes go straight to the env once it has been reset (before that they raise
    as PettingZoo's wrapper does).
    """

    def _forward(name):  # noqa: N805 (a helper run at class creation)
        def get(self):
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)

        return property(get)

    agents = _forward("agents")
    agent_selection = _forward("agent_selection")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    _cumulative_rewards = _forward("_cumulative_rewards")
    del _forward

    def step(self, action) -> None:
        """PettingZoo's wrapper asserts on a step before ``reset()`` and only warns about (and ignores) a step once
        every agent has left; here they are the env's errors: RuntimeError and GameOverError, naming what to do."""
        if not self._has_reset:
            raise RuntimeError(f"no deal yet: call reset(seed) before step({action!r})")
        if not self.env.agents:
            self._has_updated = True
            self.env.step(action)  # raises GameOverError naming what to do
            return
        super().step(action)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)
