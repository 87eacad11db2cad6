"""An :class:`~cardrl.agents.base.Agent` over Q-networks: DMC's greedy policy at evaluation time (Zha et al. 2021,
Sec. 4: the move with the highest Q(s, a); Luo & Tan 2024, Algorithm 1 with epsilon = 0).

It reads only the player's view: the game's feature encoder (``encode_view``, ``split``, ``action_features``) gives
the observation and the action vectors, and the Q-network of the view's agent (``view.role``: DouDiZhu's role, the
seat's agent name in the other games) scores every legal move. Any module with ``q_values(state, history, actions)``
and a ``net`` describing its input sizes plays (cardrl's DMC Q-modules do). torch is needed only when the agent acts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.features.base import FeatureEncoder
from cardrl.games.registry import get_game

__all__ = ["QAgent", "check_modules_fit", "greedy_index"]

TIE_TOLERANCE = 1e-6  # relative: Q-values this close count as equal (moves with equal features)


def greedy_index(q: np.ndarray, strength: Callable[[], np.ndarray] | np.ndarray | None = None) -> int:
    """The index of the highest Q. Among (near-)equal maxima, e.g. moves whose features are identical (a GuanDan
    wild card used two ways), the one of highest ``strength`` (the engine's ``move_strength`` of the candidates,
    or a function giving it, called only when there is a tie); then the first."""
    q = np.asarray(q)
    best = int(np.argmax(q))
    if strength is None:
        return best
    tied = np.flatnonzero(q >= q[best] - TIE_TOLERANCE * max(1.0, abs(float(q[best]))))
    if len(tied) == 1:
        return best
    key = np.asarray(strength() if callable(strength) else strength)
    return int(tied[np.argmax(key[tied])])


def _numpy(q) -> np.ndarray:
    """Q-values as float32 numpy: a torch module's tensor (bfloat16 under autocast included), or an exported network's
    array (:mod:`cardrl.agents.exported`)."""
    return q.detach().cpu().float().numpy() if hasattr(q, "cpu") else np.asarray(q, dtype=np.float32)


def check_modules_fit(modules: Mapping[str, Any], features: FeatureEncoder, agents: tuple[str, ...],
                      where: str) -> None:
    """ValueError unless there is a Q-module for every agent whose input sizes match ``features``."""
    missing = [a for a in agents if a not in modules]
    if missing:
        raise ValueError(f"{where}: no Q-module for {missing}; the game's agents are {list(agents)}")
    for agent in agents:
        net = getattr(modules[agent], "net", None)
        if net is None:
            raise ValueError(f"{where}: the module for {agent} is not a cardrl DMC Q-module "
                             f"({type(modules[agent]).__name__})")
        history = None if features.history_shape is None else tuple(features.history_shape)
        want = (features.state_dim(agent), history, features.action_dim)
        have = (net.state_dim, None if net.history_shape is None else tuple(net.history_shape), net.action_dim)
        if have != want:
            raise ValueError(f"{where}: the {agent} module takes (state, history, action) = {have}, but the "
                             f"{features.name} features for {agent} are {want}: the checkpoint does not fit this "
                             f"game and feature encoder")


class QAgent(Agent):
    """Greedy Q-network player for any registered game: ``argmax_a Q_agent(s, a)`` over the legal moves.

    ``modules`` maps each of the game's agent names to a Q-module (DouDiZhu: one per role; Big2 and GuanDan: the same
    shared module for every seat); ``features`` names the game's encoder (default: the game's) or is one (an exported
    agent's: :mod:`cardrl.agents.exported`). Deterministic given the view; ties go to the stronger move (the view's
    ``move_strength``), then the first (:func:`greedy_index`).

    Played the way it was trained: ``move_filter(view, legal) -> kept`` chooses among the kept moves only (ODMC's
    pruning, Luo & Tan 2024 eq. 2: :class:`~cardrl.search.prune.MCSViewPruner`); ``input_blocks(view) -> {name:
    array}`` feeds the Q-network's input blocks (an oracle-guided network's trained block, lambda x the other hands:
    the agent then ``sees_hidden_cards`` and is handed oracle views, :func:`~cardrl.agents.base.agent_view`).
    Without them the blocks are zeros, what a deployed agent reads.

    ``bid_modules`` (the bidding Q-networks of a whole-game checkpoint, by module id: ``bid_0`` .. ``bid_2`` or one
    ``bid``) make it play the whole game of DouDiZhu (AlphaDou; docs/bidding.md): it ``bids``, choosing the bid of
    highest Q over :func:`~cardrl.features.bidding.bid_state`, and its card-play networks read the input block of who
    bid what (:func:`~cardrl.features.bidding.bid_block_of_view`). Without them ``bids`` is False.
    """

    name = "dmc"
    value_kind = "q"  # what move_values gives (game records, cardrl serve's hints)

    def __init__(self, modules: Mapping[str, Any], game: str = "doudizhu",
                 features: str | FeatureEncoder | None = None, name: str | None = None,
                 move_filter: Callable[[Any, np.ndarray], np.ndarray] | None = None,
                 input_blocks: Callable[[Any], Mapping[str, np.ndarray]] | None = None,
                 bid_modules: Mapping[str, Any] | None = None):
        self.move_filter = move_filter
        self.input_blocks = input_blocks
        self.sees_hidden_cards = input_blocks is not None
        spec = get_game(game)
        self.game = spec.name
        self.features = features if isinstance(features, FeatureEncoder) else spec.make_features(features)
        check_modules_fit(modules, self.features, spec.agents, type(self).__name__)
        self.modules = dict(modules)
        if name is not None:
            self.name = name
        self.bid_modules = dict(bid_modules or {})
        self.bids = bool(self.bid_modules)
        for module in (*self.modules.values(), *self.bid_modules.values()):
            if hasattr(module, "eval"):
                module.eval()

    def _blocks(self, view: Any) -> Mapping[str, np.ndarray] | None:
        blocks = dict(self.input_blocks(view)) if self.input_blocks is not None else {}
        if self.bids:
            from cardrl.features.bidding import BID_BLOCK, bid_block_of_view

            blocks[BID_BLOCK] = bid_block_of_view(view)
        return blocks or None

    def bid_q_values(self, view: Any, legal_moves) -> np.ndarray:
        """Q of each legal bid (float32 ``(n,)``) for the bidder of a bidding-phase ``view``."""
        from cardrl.features.bidding import bid_action_features, bid_module_id, bid_state_of_view

        if not self.bids:
            raise ValueError(f"{type(self).__name__} {self.name!r} has no bidding networks (its checkpoint was "
                             f"trained with a fixed landlord): it plays the card-play phase only")
        per_position = bid_module_id(0, True) in self.bid_modules
        module = self.bid_modules[bid_module_id(len(view.bids), per_position)]
        actions = bid_action_features(np.asarray(legal_moves, dtype=np.int64) - view.num_moves)
        return module.q_values(bid_state_of_view(view), None, actions).cpu().numpy()

    def q_values(self, view: Any, legal_moves) -> np.ndarray:
        """Q of each legal move (float32 ``(n,)``) for the player of ``view``."""
        if getattr(view, "phase", None) == "bid":
            return self.bid_q_values(view, legal_moves)
        agent = view.role
        if agent is None:
            raise ValueError(f"{type(self).__name__} plays the card-play phase only: the view has no role yet "
                             f"(bidding)")
        state, history = self.features.split(self.features.encode_view(view), agent)
        actions = self.features.action_features(view, np.asarray(legal_moves, dtype=np.int64))
        blocks = self._blocks(view)
        if blocks is None:
            return _numpy(self.modules[agent].q_values(state, history, actions))
        return _numpy(self.modules[agent].q_values(state, history, actions, blocks))

    def move_values(self, view: Any, legal_moves) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, Q)`` of the moves the agent chooses among (the legal moves its ``move_filter`` keeps; every legal
        bid)."""
        legal = legal_ids(self, legal_moves)
        if self.move_filter is not None and len(legal) > 1 and getattr(view, "phase", None) != "bid":
            legal = np.asarray(self.move_filter(view, legal), dtype=np.int64)
        return legal, self.q_values(view, legal)

    def act(self, view: Any, legal_moves) -> int:
        legal = legal_ids(self, legal_moves)
        if getattr(view, "phase", None) == "bid":  # a bid: never pruned; the first of equal Q-values (pass first)
            return int(legal[int(np.argmax(self.q_values(view, legal)))])
        if self.move_filter is not None and len(legal) > 1:
            legal = np.asarray(self.move_filter(view, legal), dtype=np.int64)
        if len(legal) == 1:
            return int(legal[0])
        strength = getattr(view, "move_strength", None)
        return int(legal[greedy_index(self.q_values(view, legal), strength and (lambda: strength(legal)))])
