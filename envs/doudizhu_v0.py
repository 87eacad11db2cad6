"""DouDiZhu as a PettingZoo AEC environment (RULES.md "DouDiZhu"; DouZero's features, Zha et al. 2021).

Agents ``landlord``, ``landlord_down``, ``landlord_up`` in play order (the landlord is fixed, as in DouZero,
DouZero+ and OADMCDou). With ``bidding=True`` the landlord is decided by one round of bids, so the agents are
seats ``player_0``, ``player_1``, ``player_2`` and ``info["role"]`` says who became what.

Observation: ``Dict(observation=Box, action_mask=Box(int8))``. Without bidding ``observation`` is DouZero's
per-seat encoding ``[state | history]``: state 319 (landlord) or 430 (peasants), history 5x162 flattened
(``cardrl.features.douzero.DouZeroFeatures.split`` recovers the parts). With bidding every seat gets the same
layout: ``[in_bidding(1) | role one-hot(3) | own hand(54) | bids(3x5, from own seat on: none/pass/1/2/3) |
DouZero state padded to 430 | history 810]``.
``features="unified"`` swaps in Luo & Tan's unified four-player encoding (``cardrl.features.unified``, their
Table 14): 540 + 4x216 = 1404 values for every agent (with bidding: the bid block, then those 1404).
Actions: ``Discrete(27472)`` ids of the move table (``env.unwrapped.table.strings[id]`` names a move),
plus 4 bid actions (pass, 1, 2, 3) at the end when ``bidding=True``.
Rewards: at the end of the deal every agent gets its zero-sum payoff (``reward="adp"``: landlord +-2 x base,
peasants -+base, base = bid x 2^bombs; ``"wp"``: +-2 / -+1).

An illegal or out-of-range action, a wrong action type, or a step after the deal is over raises an error that
says what was wrong and what is allowed; the state is unchanged.
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardrl.cards import rank_counts_to_vector
from cardrl.features.douzero import DouZeroFeatures
from cardrl.features.unified import UnifiedFeatures
from cardrl.envs.turns import DeclaredSpaces, check_action_int, leave_if_done, masked_spaces, settle_rewards
from cardrl.games.doudizhu import REWARDS, ROLES, DouDizhuGame, IllegalMoveError, check_seed

SEATS = ("player_0", "player_1", "player_2")
_BID_BLOCK = 1 + 3 + 54 + 15
FEATURES = {"douzero": DouZeroFeatures, "unified": UnifiedFeatures}


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's order-enforcing checks (see :class:`OrderEnforcing`)."""
    return OrderEnforcing(raw_env(**kwargs))


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct access to the attributes read at every step.

    The stock wrapper forwards every attribute through ``__getattr__``, about 8 lookups and 10 us per step; here
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

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)


class raw_env(DeclaredSpaces, AECEnv):  # noqa: N801 (PettingZoo naming convention)
    """DouDiZhu AEC env over :class:`~cardrl.games.doudizhu.DouDizhuGame`; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "name": "doudizhu_v0", "is_parallelizable": False}

    def __init__(self, reward: str = "adp", bidding: bool = False, kickers: str = "douzero",
                 spring: bool = False, render_mode: str | None = None, features: str = "douzero"):
        super().__init__()
        if features not in FEATURES:
            raise ValueError(f"features={features!r} is unknown; allowed: {sorted(FEATURES)}")
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r} is unknown; allowed: {REWARDS}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, 'ansi'")
        self.reward = reward
        self.bidding = bool(bidding)
        self.render_mode = render_mode
        self.game = DouDizhuGame(kickers=kickers, bidding=bidding, spring=spring)
        self.table = self.game.table
        self.features = FEATURES[features]()
        self.num_actions = self.game.num_moves + (4 if self.bidding else 0)
        self.possible_agents = list(SEATS if self.bidding else ROLES)
        if self.bidding:
            obs_dims = {a: _BID_BLOCK + self.features.obs_dim("landlord_down") for a in self.possible_agents}
        else:
            obs_dims = {a: self.features.obs_dim(a) for a in self.possible_agents}
        self.observation_spaces, self.action_spaces = masked_spaces(obs_dims, self.num_actions)
        self._seed_rng: np.random.Generator | None = None
        self._legal: np.ndarray | None = None

    # ---- seats and agents --------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        if self.bidding:
            return SEATS.index(agent)
        return ROLES.index(agent)  # landlord is seat 0 without bidding

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def legal_moves(self) -> np.ndarray:
        """Legal action ids of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_moves()
        return self._legal

    def action_features(self, action_ids: np.ndarray) -> np.ndarray:
        """(n, 54) card vectors of the given move ids (DouZero's action features); bids are all zero."""
        ids = np.asarray(action_ids)
        out = np.zeros((len(ids), 54), dtype=np.uint8)
        moves = ids < self.game.num_moves
        out[moves] = self.table.cards[ids[moves]]
        return out

    # ---- AEC API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        elif self._seed_rng is None:
            self._seed_rng = np.random.default_rng()
        self.game.reset(int(self._seed_rng.integers(2**63 - 1)))
        self._legal = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self._agent(self.game.current_player)

    def _info(self, agent: str) -> dict:
        seat = self._seat(agent)
        return {"seat": seat, "role": self.game.role(seat) if self.game.landlord >= 0 else None}

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` without building the action mask (the DMC runner's fast path)."""
        return self._encode(self._seat(agent))

    def observe(self, agent: str) -> dict:
        seat = self._seat(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self.legal_moves()] = 1
        return {"observation": self._encode(seat), "action_mask": mask}

    def _encode(self, seat: int) -> np.ndarray:
        if not self.bidding:
            return self.features.encode(self.game, seat)
        out = np.zeros(self.observation_spaces[self._agent(seat)]["observation"].shape, dtype=np.float32)
        game = self.game
        out[0] = game.phase == "bid"
        out[4:58] = rank_counts_to_vector(game.hands[seat])
        first = getattr(game, "first_bidder", 0)
        for i, bid in enumerate(game.bids):
            rel = ((first + i) - seat) % 3
            out[58 + rel * 5 + 1 + bid] = 1.0
        for rel in range(3):
            if out[58 + rel * 5: 63 + rel * 5].sum() == 0:
                out[58 + rel * 5] = 1.0  # has not bid (yet)
        if game.landlord >= 0:
            role = game.role(seat)
            out[1 + ROLES.index(role)] = 1.0
            enc = self.features.encode(game, seat)
            state_dim = self.features.state_dim(role)
            out[_BID_BLOCK:_BID_BLOCK + state_dim] = enc[:state_dim]
            out[-enc.size + state_dim:] = enc[state_dim:]
        return out

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
        settle_rewards(self, agent, (lambda: self.game.payoffs(self.reward)) if self.game.is_over else None,
                       self._seat)
        if self.bidding and self.infos[agent]["role"] is None and self.game.landlord >= 0:
            self.infos = {a: self._info(a) for a in self.agents}  # roles are known once bidding ends
        self.agent_selection = self._agent(self.game.current_player)
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.game.render()

    def close(self) -> None:
        pass
