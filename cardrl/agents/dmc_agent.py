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

__all__ = ["DMCAgent", "check_modules_fit"]


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
