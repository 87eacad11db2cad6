"""DouDiZhu as a PettingZoo AEC environment (docs/rules.md "DouDiZhu"; DouZero's features, Zha et al. 2021).

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

from cardrl.cards import rank_counts_to_vector
from cardrl.envs.card_game import CardGameEnv
from cardrl.envs.turns import OrderEnforcing
from cardrl.games.doudizhu import ROLES

__all__ = ["env", "raw_env", "SEATS"]

SEATS = ("player_0", "player_1", "player_2")
_BID_BLOCK = 1 + 3 + 54 + 15


def env(**kwargs) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing checks (see :class:`~cardrl.envs.turns.OrderEnforcing`)."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """DouDiZhu AEC env over :class:`~cardrl.games.doudizhu.DouDizhuGame`; see the module docstring."""

    game_name = "doudizhu"
    metadata = {"render_modes": ["ansi"], "name": "doudizhu_v0", "is_parallelizable": False}

    def __init__(self, reward: str = "adp", bidding: bool = False, kickers: str = "douzero",
                 spring: bool = False, render_mode: str | None = None, features: str = "douzero"):
        self.bidding = bool(bidding)
        super().__init__(features=features, reward=reward, render_mode=render_mode, kickers=kickers,
                         bidding=bidding, spring=spring)
        self.table = self.game.table

    # ---- what differs from the generic env: seats as agents and the bid block when bidding ----------------
    def _agent_names(self) -> tuple[str, ...]:
        return SEATS if self.bidding else ROLES  # without bidding the landlord is seat 0

    def _obs_dim(self, agent: str) -> int:
        if self.bidding:
            return _BID_BLOCK + self.features.obs_dim("landlord_down")
        return self.features.obs_dim(agent)

    def _info(self, agent: str) -> dict:
        seat = self._seat(agent)
        return {"seat": seat, "role": self.game.role(seat) if self.game.landlord >= 0 else None}

    def _after_step(self, agent: str) -> None:
        super()._after_step(agent)
        if self.bidding and self.infos[agent]["role"] is None and self.game.landlord >= 0:
            self.infos = {a: self._info(a) for a in self.agents}  # roles are known once bidding ends

    def _encode(self, seat: int) -> np.ndarray:
        if not self.bidding:
            return self.features.encode(self.game, seat)
        out = np.zeros(self.observation_spaces[self.possible_agents[seat]]["observation"].shape, dtype=np.float32)
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
