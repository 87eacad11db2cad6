"""Big2 as a PettingZoo AEC environment (RULES.md "Big2"; Luo & Tan 2024, Appendix B and C).

Agents ``west``, ``south``, ``east``, ``north`` are the engine's seats 0, 1, 2, 3 in play order (the names are
those of Luo & Tan's identity bits: 00 West, 01 South, 10 East, 11 North). The holder of the 3 of diamonds
moves first, so any agent may open.

Observation: ``Dict(observation=Box(0, 1, (1404,), float32), action_mask=Box(0, 1, (19899,), int8))``, where
``observation`` is Luo & Tan's unified encoding ``[state 540 | history 4 x 216 flattened]``
(:class:`cardrl.features.unified.UnifiedFeatures`, whose ``split`` recovers the parts; Table 14) and
``action_mask`` marks the legal move ids (all zeros for an agent that is not to move).
Actions: ``Discrete(19899)`` ids of the Big2 move table (``env.unwrapped.table.strings[id]`` names a move,
e.g. ``"3d4c5h6s7d"``; the last id is pass).
Rewards: at the end of the deal every agent gets its zero-sum payoff (each loser ``-cards left`` times the
``penalty_multipliers`` factor, the winner the sum); 0 before.

Options (constructor keywords, passed on to :class:`~cardrl.games.big2.Big2Game`): ``straight_order``
(``"bigzero"`` default, or ``"low"``), ``open_with_three_diamonds`` (default True), ``penalty_multipliers``
(``{cards: factor}`` or None), and ``render_mode`` (None or ``"ansi"``: hands with suit symbols).

An illegal or out-of-range action, a wrong action type, a step after the deal is over, a bad seed or bad options
raise an error that says what was wrong and what is allowed; the state is unchanged.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from pettingzoo import AECEnv

from cardrl.envs.doudizhu_v0 import OrderEnforcing
from cardrl.envs.turns import DeclaredSpaces, check_action_int, leave_if_done, masked_spaces, settle_rewards
from cardrl.features.unified import UnifiedFeatures
from cardrl.games.big2 import NUM_PLAYERS, Big2Game, IllegalMoveError
from cardrl.games.common import check_seed

AGENTS = ("west", "south", "east", "north")  # seats 0..3 in play order

__all__ = ["AGENTS", "env", "raw_env", "OrderEnforcing"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's order-enforcing checks (:class:`~cardrl.envs.doudizhu_v0.OrderEnforcing`)."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(DeclaredSpaces, AECEnv):  # noqa: N801 (PettingZoo naming convention)
    """Big2 AEC env over :class:`~cardrl.games.big2.Big2Game` with Luo & Tan's unified features (Table 14);
    see the module docstring."""

    metadata = {"render_modes": ["ansi"], "name": "big2_v0", "is_parallelizable": False}

    def __init__(self, straight_order: str = "bigzero", open_with_three_diamonds: bool = True,
                 penalty_multipliers: Mapping[int, float] | None = None, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, 'ansi'")
        self.render_mode = render_mode
        self.game = Big2Game(straight_order=straight_order, open_with_three_diamonds=open_with_three_diamonds,
                             penalty_multipliers=penalty_multipliers)
        self.table = self.game.table
        self.features = UnifiedFeatures()
        self.num_actions = self.game.num_moves
        self.possible_agents = list(AGENTS)
        self._seat_of = {a: s for s, a in enumerate(AGENTS)}
        self.observation_spaces, self.action_spaces = masked_spaces(
            {a: self.features.obs_dim(a) for a in self.possible_agents}, self.num_actions)
        self._seed_rng: np.random.Generator | None = None
        self._legal: np.ndarray | None = None

    # ---- seats and agents --------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        try:
            return self._seat_of[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {list(AGENTS)}") from None

    def legal_moves(self) -> np.ndarray:
        """Legal move ids of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_moves()
        return self._legal

    def action_features(self, action_ids) -> np.ndarray:
        """(n, 54) uint8 card vectors of the given move ids (the unified action features; pass: zeros)."""
        return self.table.cards[np.asarray(action_ids, dtype=np.intp)]

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` without building the action mask (the DMC runner's fast path)."""
        return self.features.encode(self.game, self._seat(agent))

    # ---- AEC API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand; ``seed`` (a non-negative int) makes the sequence of deals reproducible.

        ``options`` (None or a dict) is accepted and ignored, as PettingZoo's API expects: game options are
        constructor keywords (module docstring).
        """
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"reset options must be None or a dict (they are ignored: game options such as "
                            f"straight_order go to env(...) / raw_env(...)), got {type(options).__name__} "
                            f"{options!r}")
        if seed is not None:
            rng = np.random.default_rng(check_seed(seed))
        else:
            rng = self._seed_rng if self._seed_rng is not None else np.random.default_rng()
        self.game.reset(int(rng.integers(2**63 - 1)))
        self._seed_rng = rng
        self._legal = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"seat": self._seat_of[a]} for a in self.agents}
        self.agent_selection = AGENTS[self.game.current_player]

    def observe(self, agent: str) -> dict:
        seat = self._seat(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self.legal_moves()] = 1
        return {"observation": self.features.encode(self.game, seat), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if leave_if_done(self, action):
            return
        action = check_action_int(agent, action, self.num_actions)
        try:
            self.game.step(action)
        except IllegalMoveError as err:
            raise IllegalMoveError(f"{agent}: {err}") from None
        self._legal = None
        settle_rewards(self, agent, self.game.payoffs if self.game.is_over else None, self._seat_of.__getitem__)
        self.agent_selection = AGENTS[self.game.current_player]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The deal as text with suit symbols (render_mode ``"ansi"``), seats named by agent; None otherwise."""
        if self.render_mode is None:
            return None
        text = self.game.render()
        for seat in range(NUM_PLAYERS):
            text = text.replace(f"seat {seat}", AGENTS[seat])
        return text

    def close(self) -> None:
        pass
