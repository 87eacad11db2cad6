"""A top-k PPO policy as a cardrl :class:`~cardrl.agents.base.Agent`: what ``cardrl eval`` plays for ``topk-ppo:PATH``.

Per decision (DanZero+, Zhao, Lu, Zhao, Zhou, Li 2024, Sec. IV-D): the view's features, the frozen DMC network's Q of
every legal move, the k best in Q order (ties as DMC breaks them), then the policy's masked distribution over those k.
By default the agent samples from it, as the authors' evaluation clients do (``model.step`` samples); ``greedy=True``
plays the most probable candidate. A single legal move is played without asking the networks. For GuanDan the three
level-A counters are rebuilt from the seat's successive views (:class:`~cardrl.algorithms.topk_ppo.level_a.LevelATracker`),
so the agent must see a match from its first deal. Sampling is reproducible: ``reset(seed)`` reseeds it.

:meth:`TopKPPOAgent.move_values` (game records and ``cardrl serve``'s hints, docs/records.md) gives the policy's
probabilities of the candidates without side effects on play: it draws no random number and follows the level-A
counters of the views it is given on trackers of its own, so asking for values never changes a later move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.algorithms.topk_ppo.candidates import candidate_block, topk_candidates
from cardrl.algorithms.topk_ppo.level_a import LEVEL_A_DIM, LevelATracker
from cardrl.games.registry import get_game

__all__ = ["TopKPPOAgent"]


class TopKPPOAgent(Agent):
    """Plays top-k PPO policy modules (module docstring). ``modules`` maps each of the game's agent names to a
    :class:`~cardrl.algorithms.topk_ppo.topk_ppo_rl_module.TopKPolicyModule` holding its frozen candidate model."""

    name = "topk-ppo"
    value_kind = "prob"  # what move_values gives: the policy's probability of each candidate

    def __init__(self, modules: Mapping[str, Any], game: str, features: str | None = None,
                 options: Mapping[str, Any] | None = None, greedy: bool = False, seed: int = 0,
                 name: str | None = None):
        spec = get_game(game)
        self.game = spec.name
        self.features = spec.make_features(features)
        self.options = spec.full_options(options)
        missing = [a for a in spec.agents if a not in modules]
        if missing:
            raise ValueError(f"TopKPPOAgent: no policy module for {missing}; the game's agents are {list(spec.agents)}")
        for agent in spec.agents:
            net = getattr(modules[agent], "net", None)
            if net is None or getattr(modules[agent], "candidate_model", None) is None:
                raise ValueError(f"TopKPPOAgent: the module for {agent} is not a top-k PPO policy module with its "
                                 f"candidate model ({type(modules[agent]).__name__})")
            history = None if self.features.history_shape is None else tuple(self.features.history_shape)
            want = (self.features.state_dim(agent), history, self.features.action_dim)
            have = (net.state_dim, net.history_shape, net.action_dim)
            if have != want:
                raise ValueError(f"TopKPPOAgent: the {agent} policy reads (state, history, action) = {have}, but the "
                                 f"{self.features.name} features for {agent} are {want}")
            if net.extra_dim not in (0, LEVEL_A_DIM):
                raise ValueError(f"TopKPPOAgent: the {agent} policy reads {net.extra_dim} extra state values; known: "
                                 f"0 or the {LEVEL_A_DIM} level-A counters")
        self.modules = dict(modules)
        for module in self.modules.values():
            module.eval()
        self.greedy = bool(greedy)
        if name is not None:
            self.name = name
        self.reset(seed)

    def reset(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self._trackers: dict[int, LevelATracker] = {}  # the counters of the seats it plays
        self._value_trackers: dict[int, LevelATracker] = {}  # those of the views move_values is asked about

    def _extra(self, module, view, trackers: dict[int, LevelATracker] | None = None) -> np.ndarray:
        if module.net.extra_dim == 0:
            return np.zeros(0, dtype=np.float32)
        trackers = self._trackers if trackers is None else trackers
        tracker = trackers.setdefault(view.seat, LevelATracker(self.options.get("a_level_attempts", 3)))
        return tracker.update(view).astype(np.float32)

    def move_values(self, view: Any, legal_moves) -> tuple[np.ndarray, np.ndarray]:
        """``(candidate ids, probabilities)`` as :meth:`policy`, with no effect on the agent's moves (module
        docstring): the values' own level-A trackers, no sampling."""
        return self.policy(view, legal_ids(self, legal_moves), self._value_trackers)

    def policy(self, view: Any, legal_moves,
               trackers: dict[int, LevelATracker] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(candidate ids (m,), probabilities (m,))``: the DMC's m = min(k, n) best legal moves in Q order and the
        policy's probability of each (a view with one legal move included). ``trackers``: the level-A trackers to
        follow (default: those of the seats the agent plays)."""
        import torch

        from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
            ACTION_DIST_INPUTS, CANDIDATE_MASK, CANDIDATES, EXTRA_STATE, OBS)

        legal = np.asarray(legal_moves, dtype=np.int64)
        agent = view.role
        module = self.modules[agent]
        extra = self._extra(module, view, trackers)
        obs = self.features.encode_view(view)
        state, history = self.features.split(obs, agent)
        feats = self.features.action_features(view, legal)
        q = module.candidate_model.q_values(state, history, feats).cpu().numpy()
        strength = getattr(view, "move_strength", None)
        order = topk_candidates(q, module.net.k, strength and (lambda: strength(legal)))
        cands, mask = candidate_block(feats, order, module.net.k)
        batch = {OBS: torch.from_numpy(obs[None].astype(np.float32)), EXTRA_STATE: torch.from_numpy(extra[None]),
                 CANDIDATES: torch.from_numpy(cands[None]), CANDIDATE_MASK: torch.from_numpy(mask[None])}
        logits = module.forward_inference(batch)[ACTION_DIST_INPUTS][0]
        probs = torch.softmax(logits.double(), dim=-1).numpy()[: len(order)]
        return legal[order], probs / probs.sum()

    def act(self, view: Any, legal_moves) -> int:
        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            module = self.modules[view.role]
            self._extra(module, view)  # the tracker must see every deal
            return int(legal[0])
        ids, probs = self.policy(view, legal)
        slot = int(np.argmax(probs)) if self.greedy else int(self._rng.choice(len(ids), p=probs))
        return int(ids[slot])
