"""RLlib's own PPO on cardrl's envs: a ``PPOConfig`` for any registered game with the action-masking module.

This is the way to use cardrl's envs with RLlib's built-in algorithms (this docstring documents it): register the
envs (:func:`cardrl.envs.rllib.register_cardrl_envs`: ``cardrl/<game>_v0``), turn off RLlib's env pre-check (it steps
with unmasked random actions), give every module id of the game's mapping (one per DouDiZhu role, one shared for Big2
and GuanDan) the :class:`~cardrl.algorithms.masked_ppo.masked_ppo_rl_module.MaskedActionEmbeddingModule`, and train
without the KL penalty (``use_kl_loss=False``; the module stores no per-step logits). The env's action mask is int8
(``env_config["action_mask_dtype"]``, unless given): the module reads it as booleans, and each stored step takes a
quarter of the float32 mask's memory (GuanDan: 135 KB instead of 540 KB). RLlib's generic
MultiAgentEnvRunner plays one turn-based game per env; ``episodes_to_numpy=False`` avoids its quadratic cost on long
multi-agent episodes (docs/architecture.md, "RLlib facts"). Example::

    config = masked_ppo_config("big2", train_batch_size=4000).env_runners(num_env_runners=2)
    algo = config.build_algo()
    algo.train()

Used as a baseline: the papers compare against policy-gradient agents, and DanZero+ argues a policy over GuanDan's
whole action space is impractical (Sec. IV-D, Table I); this is that experiment with RLlib's PPO.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import MaskedActionEmbeddingModule
from cardrl.algorithms.masked_ppo.settings import PPOSettings
from cardrl.algorithms.training.settings import field_default, option_problems
from cardrl.games.registry import get_game

__all__ = ["masked_ppo_config", "module_ids", "agent_to_module"]

_MODULE_OPTIONS = ("hidden_sizes", "embedding_dim")


def agent_to_module(game: str) -> dict[str, str]:
    """Env agent -> module id under the game's module mapping for its default features
    (:func:`~cardrl.algorithms.common.game_defaults.default_module_mapping`): the agent's own name, or ``"shared"``."""
    spec = get_game(game)
    per_agent = default_module_mapping(spec) == "per_agent"
    return {a: (a if per_agent else "shared") for a in spec.agents}


def module_ids(game: str) -> list[str]:
    return sorted(set(agent_to_module(game).values()))


def masked_ppo_config(game: str = "doudizhu", env_config: Mapping[str, Any] | None = None,
                      **settings: Any) -> PPOConfig:
    """RLlib's :class:`PPOConfig` training on ``cardrl/<game>_v0`` with the masked module (module docstring).

    ``env_config`` are the env's options (rule options, ``features=``, ``reward=``; ``action_mask_dtype``, "int8" unless
    given: :mod:`cardrl.envs.rllib`); ``settings`` override
    :class:`~cardrl.algorithms.masked_ppo.settings.PPOSettings` (RLlib's PPO defaults). Unknown settings, and values
    outside the bounds their PPOSettings field declares, raise ValueError naming what is allowed.
    """
    from cardrl.envs.rllib import register_cardrl_envs

    spec = get_game(game)
    allowed = {f.name: field_default(f) for f in fields(PPOSettings)}
    unknown = sorted(set(settings) - set(allowed))
    if unknown:
        raise ValueError(f"unknown PPO setting(s) {unknown}; allowed: {sorted(allowed)}")
    values = {**allowed, **settings}
    problems = option_problems(PPOSettings(**values), PPOSettings)
    if problems:
        raise ValueError("invalid PPO settings: " + "; ".join(problems))
    if (env_config or {}).get("bidding"):
        raise ValueError("the masked PPO baseline plays the card-play phase with a fixed landlord; bidding=True is "
                         "not supported")
    register_cardrl_envs()
    mapping = agent_to_module(game)
    model_config = {"hidden_sizes": tuple(values["hidden_sizes"]), "embedding_dim": int(values["embedding_dim"])}
    training = {k: v for k, v in values.items() if k not in _MODULE_OPTIONS and k != "num_envs_per_env_runner"}
    return (
        PPOConfig()
        .environment(f"cardrl/{spec.env_name}", env_config={"action_mask_dtype": "int8", **dict(env_config or {})},
                     disable_env_checking=True)
        .multi_agent(policies=set(mapping.values()),
                     policy_mapping_fn=lambda agent_id, episode=None, _m=mapping, **kw: _m[agent_id])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            mid: RLModuleSpec(module_class=MaskedActionEmbeddingModule, model_config=dict(model_config))
            for mid in set(mapping.values())}))
        .env_runners(num_envs_per_env_runner=int(values["num_envs_per_env_runner"]), episodes_to_numpy=False)
        .training(use_kl_loss=False, kl_coeff=0.0, **training)
    )
