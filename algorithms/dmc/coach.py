"""The coach network: which deals are worth playing (DouZero+, Zhao et al. 2022, "DouZero+: Improving DouDizhu AI
by Opponent Modeling and Coach-guided Learning", Sec. IV-B, V-C, Fig. 4 and 7; details from the authors' public code).

Many deals are decided by the cards dealt. A coach network reads the three initial hands and predicts the
landlord's probability of winning; the actors deal again whenever it is below beta or above 1 - beta, so the
networks learn from balanced deals. Beta follows a schedule in learner steps (frames trained / 3,200): 0 up to 20k,
then 0.10, 0.15, 0.20, 0.25 for each further 20k, capped at 0.30 after 100k (their upper limit). The coach trains
alongside the Q-networks on the self-play outcomes of the accepted deals (so on a selected sample, as theirs),
with cross-entropy and Adam (lr 1e-4, 128 games a batch).

- :class:`CoachModule`: per seat an embedding of each card (256) mean-pooled over the hand, three 128-unit ReLU
  layers; the seats' 128-dim codes concatenated -> 256 -> 128 -> 64 -> one logit per *side*. What a card is
  (``card_ids``): ``"ranks"`` (default), as the authors' code: its rank as DouZero's card value
  (:func:`~cardrl.features.deals.rank_ids`), each seat with an ``Embedding(31, 256)`` of its own; or ``"kinds"``
  (cardrl's earlier form): each of the 54 card kinds (DouDiZhu: rank x copy; Big2, GuanDan: rank x suit), one
  ``Embedding(55, 256)`` for every seat. Ranks drop the suits, which the paper's DouDiZhu does not have and Big2
  and GuanDan do. Sides are the game's
  evaluation arrangements (:mod:`cardrl.eval.protocols`): DouDiZhu landlord / peasants (two logits, whose softmax
  is their one sigmoid: the same model), beyond the paper Big2's four seats and GuanDan's two teams (of the first
  deal of a match).
- :func:`rejects`: a deal is dealt again when one side's predicted probability exceeds ``1 - beta`` (two sides:
  ``P < beta`` or ``P > 1 - beta``, the paper's rule).
- :func:`coach_loss`: cross-entropy of the winning side, and as metrics the accuracy and the Brier score
  ``sum_k (p_k - y_k)^2 / 2`` (for two sides the usual ``(P - y)^2``), computed on each batch before the update, i.e.
  on games the coach has not trained on.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib.resources import files
from types import MappingProxyType
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from cardrl.features.deals import PAD, RANK_IDS, RANK_PAD, rank_ids
from cardrl.games.registry import resolve

__all__ = ["COACH", "COACH_HANDS", "CARD_IDS", "COACH_SIDE", "COACH_LOGITS", "CoachModule", "rejects", "coach_loss",
           "coach_module_spec", "coach_encoders"]

COACH = "coach"  # the module id in the MultiRLModule
COACH_HANDS = "coach_hands"  # (B, seats, width) int16 card ids (rank ids or kinds: CoachModule.card_ids), padded
CARD_IDS = ("ranks", "kinds")
COACH_SIDE = "coach_side"  # (B,) int8 the side that won
COACH_LOGITS = "coach_logits"


def rejects(probs: np.ndarray, beta: float) -> bool:
    """Whether a deal with predicted side probabilities ``probs`` is dealt again: one side above ``1 - beta``."""
    return beta > 0 and float(np.max(probs)) > 1.0 - beta


@functools.cache
def coach_encoders() -> Mapping[str, str]:
    """Game name -> the ``"module:function"`` through which the coach reads its dealt games: DMC's per-game choice,
    kept as data in ``coach_games.json`` beside this module."""
    text = files(__package__).joinpath("coach_games.json").read_text()
    return MappingProxyType(dict(json.loads(text)["coach_encoders"]))


def coach_hands(spec, engine, width: int) -> np.ndarray:
    """The dealt game as the coach reads it (:func:`coach_encoders`); ValueError if the game has no encoder."""
    encoder = coach_encoders().get(spec.name)
    if encoder is None:
        raise ValueError(f"{spec.name} has no coach encoder (coach_games.json in cardrl.algorithms.dmc)")
    return resolve(encoder)(engine, width)

class CoachModule(TorchRLModule):
    """The coach (module docstring). model_config: ``seats``, ``width`` (cards per hand, padded), ``sides``,
    ``card_ids`` (``"ranks"``, the default, or ``"kinds"``)."""

    def setup(self) -> None:
        cfg = self.model_config
        self.seats, self.width, self.sides = int(cfg["seats"]), int(cfg["width"]), int(cfg["sides"])
        self.card_ids = cfg.get("card_ids", "ranks")
        if self.card_ids not in CARD_IDS:
            raise ValueError(f"the coach's card_ids={self.card_ids!r} is unknown; allowed: {CARD_IDS}")
        if self.card_ids == "ranks":  # DouZero+: each seat an embedding of its own over rank ids
            self.pad = RANK_PAD
            self.embeds = nn.ModuleList(nn.Embedding(RANK_IDS, 256, padding_idx=RANK_PAD) for _ in range(self.seats))
        else:  # one embedding of the 54 card kinds for every seat
            self.pad = PAD
            self.embed = nn.Embedding(PAD + 1, 256, padding_idx=PAD)
        self.per_seat = nn.ModuleList(nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                                                    nn.Linear(128, 128), nn.ReLU()) for _ in range(self.seats))
        self.head = nn.Sequential(nn.Linear(128 * self.seats, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                                  nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, self.sides))

    def encode_deal(self, spec, engine) -> np.ndarray:
        """``(seats, width)`` int16: the dealt hands of ``engine`` (a game of ``spec``, the game's registry entry) as
        this coach reads them."""
        kinds = coach_hands(spec, engine, self.width)
        return rank_ids(kinds) if self.card_ids == "ranks" else kinds

    def embedded(self, hands: torch.Tensor) -> torch.Tensor:
        """``(B, seats, width)`` card ids -> ``(B, seats, width, 256)``: each seat's own embedding (ranks) or the
        shared one (kinds)."""
        if self.card_ids == "ranks":
            return torch.stack([embed(hands[:, s]) for s, embed in enumerate(self.embeds)], dim=1)
        return self.embed(hands)

    def logits(self, hands: torch.Tensor) -> torch.Tensor:
        """``(B, seats, width)`` card ids (:meth:`encode_deal`) -> ``(B, sides)`` logits."""
        hands = hands.long()
        held = (hands != self.pad).float()
        pooled = (self.embedded(hands) * held[..., None]).sum(2) / held.sum(2, keepdim=True).clamp(min=1.0)
        codes = torch.cat([net(pooled[:, s]) for s, net in enumerate(self.per_seat)], dim=-1)
        return self.head(codes)

    def probabilities(self, hands: np.ndarray) -> np.ndarray:
        """``(seats, width)`` or a batch of them -> side probabilities, without gradients."""
        x = torch.as_tensor(np.asarray(hands)).reshape(-1, self.seats, self.width)
        with torch.no_grad():
            return torch.softmax(self.logits(x), -1).numpy().reshape(*np.shape(hands)[:-2], self.sides)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {COACH_LOGITS: self.logits(batch[COACH_HANDS])}


def coach_module_spec(seats: int, width: int, sides: int, inference_only: bool = False,
                      card_ids: str = "ranks") -> RLModuleSpec:
    """The coach's module spec; ``card_ids``: ``"ranks"`` (DouZero+) or ``"kinds"`` (:class:`CoachModule`)."""
    if card_ids not in CARD_IDS:
        raise ValueError(f"the coach's card_ids={card_ids!r} is unknown; allowed: {CARD_IDS}")
    obs = gym.spaces.Box(0, RANK_IDS - 1 if card_ids == "ranks" else PAD, (seats, width), np.int16)
    return RLModuleSpec(module_class=CoachModule, observation_space=obs, action_space=gym.spaces.Discrete(sides),
                        inference_only=inference_only,
                        model_config={"seats": seats, "width": width, "sides": sides, "card_ids": card_ids})


def coach_loss(logits: torch.Tensor, side: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Cross-entropy of the winning side; the accuracy and the Brier score (module docstring) as metrics."""
    target = side.long()
    loss = nn.functional.cross_entropy(logits, target)
    with torch.no_grad():
        p = torch.softmax(logits, -1)
        y = nn.functional.one_hot(target, logits.shape[-1]).to(p.dtype)
        metrics = {"coach_loss": loss.detach(), "coach_brier": ((p - y) ** 2).sum(-1).mean() / 2,
                   "coach_accuracy": (p.argmax(-1) == target).float().mean()}
    return loss, metrics
