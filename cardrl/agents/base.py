"""The agent interface shared by every game (docs/architecture.md, layer 5 "Agents").

An :class:`Agent` picks a move from what one player sees: ``act(view, legal_moves) -> action id``, where ``view``
is ``game.view(seat)`` (e.g. a :class:`~cardrl.games.doudizhu.DouDizhuView`) and ``legal_moves`` is
``game.legal_moves()`` (the engine's sorted action ids; a caller may pass a subset, e.g. ODMC's kept moves). ``reset(seed)`` is called at the start of each
deal with the deal's seed, so that stochastic agents are reproducible deal by deal whatever order deals are
played in. Environments, evaluation and the CLI all drive agents through :func:`play_game` or the same two
calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np

from cardrl.games.engine import Engine

__all__ = ["Agent", "agent_view", "legal_ids", "play_game"]


class Agent(ABC):
    """A player: maps a player's view and its legal moves to one of those moves.

    Subclasses set ``name`` and implement :meth:`act`; :meth:`reset` is optional. An agent must return one of
    the ids in ``legal_moves`` and must not mutate its arguments.
    """

    name: str = "agent"
    # True for an agent that reads every hand (an oracle-guided Q-network fed its trained oracle block): it is handed
    # game.oracle_view(seat) instead of game.view(seat) (agent_view). Never for an agent judged as a real player.
    sees_hidden_cards: bool = False
    # True for an agent that can play the bidding phase of a game that bids (DouDiZhu with bidding=True): the random
    # and rule agents, and checkpoint agents whose checkpoint learned bidding. An agent that plays only with a fixed
    # landlord keeps False; it plays the whole game paired with a bidder (cardrl.agents.with_bidder).
    bids: bool = False

    def reset(self, seed: int) -> None:
        """Called at the start of each deal with the deal's seed (default: nothing to do)."""

    @abstractmethod
    def act(self, view: Any, legal_moves: np.ndarray) -> int:
        """The chosen action id, one of ``legal_moves`` (``view`` is ``game.view(seat)``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def legal_ids(agent: Agent, legal_moves) -> np.ndarray:
    """``legal_moves`` as an int64 array, refusing an empty one (``act`` after the end of a game) with the agent's
    name; callers return ``legal[0]`` themselves when it is the only move."""
    legal = np.asarray(legal_moves, dtype=np.int64)
    if len(legal) == 0:
        raise ValueError(f"{type(agent).__name__}.act got no legal moves (is the game over?)")
    return legal


def agent_view(agent: Agent, game: Engine, seat: int) -> Any:
    """What ``agent`` is handed at ``seat``: ``game.view(seat)``, or ``game.oracle_view(seat)`` (every hand) for an
    agent that ``sees_hidden_cards``."""
    return game.oracle_view(seat) if agent.sees_hidden_cards else game.view(seat)


AgentsArg = Union[Mapping[int, Agent], Sequence[Agent]]


def _agent_for(agents: AgentsArg, seat: int) -> Agent:
    try:
        return agents[seat]
    except (KeyError, IndexError):
        raise ValueError(f"no agent for seat {seat}: pass a dict seat -> Agent or a list with one agent per "
                         f"seat (got {len(agents)} agents)") from None


def play_game(game: Engine, agents: AgentsArg, seed: int, reward: str | None = None) -> np.ndarray:
    """Deal ``seed`` on ``game`` and play it to the end; returns ``game.payoffs(reward)`` (one value per seat;
    ``reward=None``: the game's default payoff, e.g. DouDiZhu's ADP, Big2's card penalties, GuanDan's DanZero points).

    ``agents`` maps seats to agents (a dict, or a list indexed by seat). Each distinct agent is reset once with
    ``seed`` before the deal. A move outside ``legal_moves`` raises ``ValueError`` naming the agent.
    """
    game.reset(seed)
    seen: set[int] = set()
    for agent in (agents.values() if isinstance(agents, Mapping) else agents):
        if id(agent) not in seen:
            seen.add(id(agent))
            agent.reset(seed)
    while not game.is_over:
        seat = game.current_player
        agent = _agent_for(agents, seat)
        legal = game.legal_moves()
        action = agent.act(agent_view(agent, game, seat), legal)
        try:
            game.step(action)
        except (ValueError, TypeError) as err:  # IllegalMoveError is a ValueError
            raise ValueError(f"agent {agent.name!r} at seat {seat} returned an illegal action {action!r}: "
                             f"{err}") from err
    return game.payoffs(reward)
