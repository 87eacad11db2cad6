"""The part of DMC's and top-k PPO's configs that is the same: defaults from a settings dataclass, the game they play,
RLlib's per-iteration minimums off, and which of ``training()``'s keywords are the algorithm's own.

Each algorithm keeps one options dataclass (``DMCSettings``, ``TopKPPOSettings``); its config class mixes in
:class:`CardGameConfig` beside RLlib's ``AlgorithmConfig`` (or ``PPOConfig``) and calls :meth:`CardGameConfig.
_set_up` from ``__init__``.
"""

from __future__ import annotations

import inspect
from dataclasses import fields

from cardrl.algorithms.common.policy_mapping import one_module_per_seat
from cardrl.algorithms.training.settings import field_default
from cardrl.games.registry import GameSpec, get_game

__all__ = ["CardGameConfig", "own_training_options"]


def own_training_options(settings: type, rllib_config: type, *, shadowed: tuple[str, ...] = ()) -> frozenset:
    """The options an algorithm's ``training()`` takes for itself: the fields of its settings dataclass passed to
    ``training()`` (section ``"training"``) that no ``training()`` of RLlib's ``rllib_config`` class (or its bases)
    has a keyword for, and the ``shadowed`` ones whose name RLlib uses for something else."""
    rllib = {name for cls in rllib_config.__mro__ if "training" in vars(cls)
             for name in inspect.signature(vars(cls)["training"]).parameters}
    return frozenset(f.name for f in fields(settings)
                     if f.metadata.get("section", "training") == "training" and f.name not in rllib) | set(shadowed)


class CardGameConfig:
    """Mixin of an RLlib config that trains on a registered card game (module docstring)."""

    game_name: str | None

    def _set_up(self, settings: type, env_runner_cls: type) -> None:
        """Every option at its settings default, gradients clipped by their global norm, the env runner, and no game
        yet (``policy_mapping_fn`` one module per seat until the game's mapping is known)."""
        self.env_runner_cls = env_runner_cls
        for f in fields(settings):
            setattr(self, f.name, field_default(f))
        self.grad_clip_by = "global_norm"
        self.game_name = None
        self.policy_mapping_fn = one_module_per_seat

    def _no_minimums_per_iteration(self) -> None:
        """An iteration is one ``training_step``: no minimum time or timesteps per iteration."""
        self.min_time_s_per_iteration = 0
        self.min_sample_timesteps_per_iteration = 0
        self.min_train_timesteps_per_iteration = 0

    @staticmethod
    def _take_own(kwargs: dict, own: frozenset) -> dict:
        """Remove and return the keywords in ``own`` (the rest go to RLlib's ``training()``)."""
        return {k: kwargs.pop(k) for k in list(kwargs) if k in own}

    @property
    def game_spec(self) -> GameSpec:
        return get_game(self.game_name)
