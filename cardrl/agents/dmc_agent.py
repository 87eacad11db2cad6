"""An :class:`~cardrl.agents.base.Agent` over DMC Q-networks: DouZero's greedy policy at evaluation time
(Zha et al. 2021, Sec. 4: the move with the highest Q(s, a); Luo & Tan 2024, Algorithm 1 with epsilon = 0).

It reads only the player's view: ``DouZeroFeatures().encode_view(view, table)`` gives the observation, ``split``
cuts it into state and history, and the role's Q-module scores every legal move's 54-dim action vector. torch
is imported when the agent acts, not when this module is imported (the cardrl core imports without torch/Ray).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardrl.agents.base import Agent
from cardrl.features.douzero import DouZeroFeatures
from cardrl.games.doudizhu import ROLES, DouDizhuView
from cardrl.games.doudizhu_moves import doudizhu_move_table

__all__ = ["DMCAgent", "SharedDMCAgent", "check_modules_fit"]


def check_modules_fit(modules: Mapping[str, Any], features: DouZeroFeatures, where: str) -> None:
    """ValueError unless there is a module for every DouDiZhu role whose input sizes match ``features``."""
    missing = [r for r in ROLES if r not in modules]
    if missing:
        raise ValueError(f"{where}: no Q-module for role(s) {missing}; a DouDiZhu agent needs one per role {ROLES}")
    for role in ROLES:
        net = getattr(modules[role], "net", None)
        if net is None:
            raise ValueError(f"{where}: the module for {role} is not a cardrl DMC Q-module "
                             f"({type(modules[role]).__name__})")
        want = (features.state_dim(role), tuple(features.HISTORY_SHAPE), features.ACTION_DIM)
        have = (net.state_dim, None if net.history_shape is None else tuple(net.history_shape), net.action_dim)
        if have != want:
            raise ValueError(f"{where}: the {role} module takes (state, history, action) = {have}, but DouDiZhu's "
                             f"{features.name} features for {role} are {want}: the checkpoint is not a DouDiZhu "
                             f"DMC checkpoint for these features")


class DMCAgent(Agent):
    """Greedy DMC player for DouDiZhu: ``argmax_a Q_role(s, a)`` over the legal moves (DouZero, Zha et al. 2021,
    Sec. 4.1; the evaluation policy of DouZero+, Zhao et al. 2022, and Luo & Tan 2024).

    ``modules`` maps each role (``landlord``, ``landlord_down``, ``landlord_up``) to a DMC Q-module (anything with
    ``q_values(state, history, actions)``, e.g. ``DouZeroQModule``). Ties go to the lowest move id (torch's
    argmax returns the first maximum). Deterministic given the view. ``kickers`` names the game's move table.
    """

    name = "dmc"

    def __init__(self, modules: Mapping[str, Any], kickers: str = "douzero", name: str | None = None):
        self.features = DouZeroFeatures()
        check_modules_fit(modules, self.features, "DMCAgent")
        self.modules = dict(modules)
        self.table = doudizhu_move_table(kickers)
        if name is not None:
            self.name = name
        for module in self.modules.values():
            if hasattr(module, "eval"):
                module.eval()

    def q_values(self, view: DouDizhuView, legal_moves: np.ndarray) -> np.ndarray:
        """Q of each legal move (float32 ``(n,)``) for the player of ``view``."""
        if view.landlord < 0:
            raise ValueError("DMCAgent plays the card-play phase only: the view is from the bidding phase")
        role = ROLES[(view.seat - view.landlord) % 3]
        obs = self.features.encode_view(view, self.table)
        state, history = self.features.split(obs, role)
        actions = self.features.action_features(self.table, np.asarray(legal_moves))
        return self.modules[role].q_values(state, history, actions).cpu().numpy()

    def act(self, view: DouDizhuView, legal_moves: np.ndarray) -> int:
        legal = np.asarray(legal_moves)
        if len(legal) == 0:
            raise ValueError("DMCAgent.act got no legal moves (is the game over?)")
        if len(legal) == 1:
            return int(legal[0])
        return int(legal[int(np.argmax(self.q_values(view, legal)))])


class SharedDMCAgent(Agent):
    """Greedy player over ONE DMC Q-network shared by every seat: Big2 (Luo & Tan 2024's unified features, Table 14;
    BigZero's setting) and GuanDan (DanZero's 513-dim features, Lu et al. 2023). ``argmax_a Q(s, a)`` over the legal
    moves; ties go to the first legal move. The seat's identity is in the features, so one module serves all seats.

    ``game`` is ``"big2"`` or ``"guandan"``; ``module`` a DMC Q-module (``q_values(state, history, actions)``).
    Legal moves are Big2 move ids, or GuanDan ``Move`` values (what ``GuanDanGame.legal_moves()`` gives).
    """

    name = "dmc"

    def __init__(self, module: Any, game: str, straight_order: str = "bigzero", name: str | None = None):
        if game == "big2":
            from cardrl.features.unified import UnifiedFeatures
            from cardrl.games.big2_moves import big2_move_table

            self.features = UnifiedFeatures()
            self.table = big2_move_table(straight_order)
            want = (self.features.state_dim(None), tuple(self.features.HISTORY_SHAPE), self.features.ACTION_DIM)
        elif game == "guandan":
            from cardrl.features.danzero import DanZeroFeatures

            self.features = DanZeroFeatures()
            self.table = None
            want = (self.features.state_dim(None), None, self.features.ACTION_DIM)
        else:
            raise ValueError(f"SharedDMCAgent plays big2 or guandan, not {game!r} (DouDiZhu: DMCAgent)")
        net = getattr(module, "net", None)
        if net is None:
            raise ValueError(f"SharedDMCAgent needs a cardrl DMC Q-module, got {type(module).__name__}")
        have = (net.state_dim, None if net.history_shape is None else tuple(net.history_shape), net.action_dim)
        if have != want:
            raise ValueError(f"the Q-module takes (state, history, action) = {have}, but {game}'s "
                             f"{self.features.name} features are {want}: not a {game} DMC checkpoint")
        self.game = game
        self.module = module
        if hasattr(module, "eval"):
            module.eval()
        if name is not None:
            self.name = name

    def q_values(self, view: Any, legal_moves) -> np.ndarray:
        if self.game == "big2":
            state, history = self.features.split(self.features.encode_view(view, self.table))
            actions = self.features.action_features(self.table, np.asarray(legal_moves))
        else:
            state, history = self.features.encode_view(view), None
            actions = self.features.action_features(list(legal_moves))
        return self.module.q_values(state, history, actions).cpu().numpy()

    def act(self, view: Any, legal_moves) -> Any:
        if len(legal_moves) == 0:
            raise ValueError("SharedDMCAgent.act got no legal moves (is the game over?)")
        best = 0 if len(legal_moves) == 1 else int(np.argmax(self.q_values(view, legal_moves)))
        move = legal_moves[best]
        return int(move) if isinstance(move, (int, np.integer)) else move
