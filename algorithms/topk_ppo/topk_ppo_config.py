"""Top-k PPO's config (DanZero+, Zhao et al. 2024, Sec. IV-D): RLlib's PPOConfig with the options of
:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`, the frozen DMC network read from ``dmc_checkpoint``
and one small check per group of options."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
from ray.rllib.algorithms.algorithm_config import NotProvided
from ray.rllib.algorithms.ppo.ppo import PPOConfig

from cardrl.algorithms.common.checkpoint_identity import layout_identity
from cardrl.algorithms.common.config import CardGameConfig, own_training_options
from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.algorithms.common.policy_mapping import MAPPINGS
from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings
from cardrl.algorithms.training.settings import option_problems
from cardrl.envs import make_env
from cardrl.games.registry import game_names, get_game

__all__ = ["TopKPPOConfigBase", "OWN_OPTIONS"]

# Top-k PPO's own options (the rest of TopKPPOSettings are RLlib's PPOConfig / AlgorithmConfig attributes).
OWN_OPTIONS = own_training_options(TopKPPOSettings, PPOConfig)


def _class_ref(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _fingerprint(states: dict[str, dict]) -> str:
    """A short hash of the candidate models' weights (what a checkpoint must agree on)."""
    digest = hashlib.sha1()
    for mid in sorted(states):
        for key in sorted(states[mid]):
            digest.update(f"{mid}/{key}".encode())
            digest.update(np.ascontiguousarray(np.asarray(states[mid][key], dtype=np.float32)).tobytes())
    return digest.hexdigest()[:16]


class TopKPPOConfigBase(CardGameConfig, PPOConfig):
    """Configuration of :class:`TopKPPO`; defaults and help of every option in
    :class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings` (DanZero+'s Table V).

    Example::

        config = (TopKPPOConfig().game("guandan")
                  .training(dmc_checkpoint="runs/dmc_guandan/checkpoint", k=2)
                  .env_runners(num_env_runners=1, num_envs_per_env_runner=32))
        algo = config.build_algo()
    """

    def __init__(self, algo_class=None):
        from cardrl.algorithms.topk_ppo.topk_ppo_env_runner import TopKPPOEnvRunner

        super().__init__(algo_class=algo_class)
        self._set_up(TopKPPOSettings, TopKPPOEnvRunner)
        self.use_kl_loss = False  # DanZero+ stops on the KL instead of penalising it
        self.kl_coeff = 0.0
        self.shuffle_batch_per_epoch = True
        self.rollout_fragment_length = "auto"  # the runners sample train_batch_size decisions between them
        self.num_env_runners = 0
        self._dmc_info: dict | None = None
        self.game(game_names()[0])
        self._no_minimums_per_iteration()

    # ---- builders -------------------------------------------------------------------------------------------------
    def game(self, name: str = NotProvided, **env_config) -> TopKPPOConfigBase:
        """Choose the game (a registered name) and its env options (rule options, ``reward=``, ``features=``). The
        registry gives the policy mapping (one policy per DouDiZhu role, one shared for Big2 and GuanDan)."""
        if name is not NotProvided:
            spec = get_game(name)
            self.game_name = spec.name
            if self.policy_mapping_fn in MAPPINGS.values():
                self.policy_mapping_fn = MAPPINGS[default_module_mapping(spec)]
            self._dmc_info = None
        if env_config:
            self.env_config = {**dict(self.env_config or {}), **env_config}
            self._dmc_info = None
        return self

    def training(self, **kwargs) -> TopKPPOConfigBase:
        """Top-k PPO's options (:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`) and RLlib's PPO ones
        (``lr``, ``gamma``, ``lambda_``, ``clip_param``, ``entropy_coeff``, ``num_epochs``, ...)."""
        own = self._take_own(kwargs, OWN_OPTIONS)
        super().training(**kwargs)
        for name, value in own.items():
            if value is not NotProvided:
                setattr(self, name, tuple(value) if name == "hidden_sizes" and value is not None else value)
                if name == "dmc_checkpoint":
                    self._dmc_info = None
        return self

    def rule_options(self) -> dict:
        spec = self.game_spec
        return spec.full_options({k: v for k, v in dict(self.env_config or {}).items() if k in spec.rule_options})

    def uses_level_a(self) -> bool:
        """Whether the policy reads the three level-A counters (DanZero+'s 516-dim state; GuanDan only)."""
        from cardrl.algorithms.topk_ppo.level_a import game_has_level_a

        if self.level_a_counters is None:
            return game_has_level_a(self.game_spec.engine_class)
        return bool(self.level_a_counters)

    # ---- the frozen DMC network ------------------------------------------------------------------------------------
    def dmc_info(self) -> dict:
        """What the config needs of ``dmc_checkpoint``: its features and, per policy module, the candidate model's
        class and model_config and the fingerprint of its weights (read once; the weights stay on disk). ValueError
        when the checkpoint is missing, not a DMC checkpoint, or of another game."""
        if self._dmc_info is not None:
            return self._dmc_info
        modules, features = self._load_dmc()
        info = {"features": features, "modules": {}}
        for mid, module in modules.items():
            info["modules"][mid] = {"module_class": _class_ref(type(module)), "model_config": dict(module.model_config)}
        info["fingerprint"] = _fingerprint({m: module.state_dict() for m, module in modules.items()})
        if not self._is_frozen:  # cached before the algorithm freezes (and copies) the config
            self._dmc_info = info
        return info

    def candidate_weights(self) -> dict[str, dict]:
        """Policy module id -> the state_dict of its frozen candidate model, read from ``dmc_checkpoint``."""
        return {mid: {k: v.detach().cpu().numpy() for k, v in m.state_dict().items()}
                for mid, m in self._load_dmc()[0].items()}

    def _load_dmc(self) -> tuple[dict, str]:
        from cardrl.algorithms.dmc.agent_loaders import checkpoint_features, load_checkpoint_modules
        from cardrl.algorithms.dmc.counters import read_checkpoint_counters

        spec = self.game_spec
        if not self.dmc_checkpoint:
            raise ValueError(f"top-k PPO needs dmc_checkpoint=PATH: a cardrl DMC checkpoint of {spec.name} whose "
                             f"Q-network proposes the candidates (train one with `cardrl train {spec.name} --algo dmc`)")
        path = Path(self.dmc_checkpoint)
        if not path.is_dir():
            raise ValueError(f"dmc_checkpoint={str(path)!r} does not exist (a cardrl DMC algorithm checkpoint "
                             f"directory is needed)")
        try:
            counters = read_checkpoint_counters(path)
        except ValueError as err:
            raise ValueError(f"dmc_checkpoint={str(path)!r} is not a cardrl DMC algorithm checkpoint: {err}") from None
        if not counters or "game" not in counters:
            raise ValueError(f"dmc_checkpoint={str(path)!r} is an RLlib checkpoint but not a cardrl DMC one (no DMC "
                             f"counters)")
        if counters["game"] != spec.env_name:
            raise ValueError(f"dmc_checkpoint={str(path)!r} is a DMC checkpoint of {counters['game']!r}; top-k PPO on "
                             f"{spec.name} needs a DMC checkpoint of {spec.env_name!r}")
        by_agent = load_checkpoint_modules(path, spec.name, self.rule_options())
        modules: dict[str, Any] = {}
        for agent, module in by_agent.items():
            mid = self.policy_mapping_fn(agent, None)
            if mid in modules and modules[mid] is not module:
                raise ValueError(f"policy module {mid!r} serves agents with different DMC networks in "
                                 f"{str(path)!r}; use the game's own module mapping")
            modules[mid] = module
        return modules, checkpoint_features(path) or spec.default_features

    def features_name(self) -> str:
        """The feature encoder the runners use: the DMC checkpoint's (the candidate model reads it)."""
        return (self.env_config or {}).get("features") or self.dmc_info()["features"]

    def make_env(self):
        """A raw AEC env of the game with the DMC checkpoint's features."""
        return make_env(self.game_name, **{**dict(self.env_config or {}), "features": self.features_name()})

    # ---- RLlib hooks ---------------------------------------------------------------------------------------------
    def get_default_learner_class(self):
        from cardrl.algorithms.topk_ppo.topk_ppo_learner import TopKPPOTorchLearner

        return TopKPPOTorchLearner

    def policy_model_configs(self) -> dict[str, dict]:
        """Policy module id -> its ``model_config`` (sizes from the features, the frozen DMC network inside)."""
        from cardrl.algorithms.topk_ppo.level_a import LEVEL_A_DIM

        info = self.dmc_info()
        features = get_game(self.game_name).make_features(self.features_name())
        out = {}
        for agent in self.game_spec.agents:
            mid = self.policy_mapping_fn(agent, None)
            history = None if features.history_shape is None else tuple(features.history_shape)
            out.setdefault(mid, {
                "state_dim": features.state_dim(agent), "history_shape": history,
                "extra_dim": LEVEL_A_DIM if self.uses_level_a() else 0, "k": int(self.k),
                "action_dim": features.action_dim, "hidden_sizes": tuple(self.hidden_sizes),
                "head_hidden": int(self.head_hidden), "lstm_hidden": int(self.lstm_hidden),
                "candidate_model": info["modules"][mid]})
        return out

    def get_multi_rl_module_spec(self, *, env=None, spaces=None, inference_only=False, **kwargs):
        """One :class:`~cardrl.algorithms.topk_ppo.topk_ppo_rl_module.TopKPolicyModule` per module id."""
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import TopKPolicyModule, parse_policy_config, policy_spaces

        specs = {}
        for mid, model_config in self.policy_model_configs().items():
            obs_space, action_space = policy_spaces(parse_policy_config(model_config))
            specs[mid] = RLModuleSpec(module_class=TopKPolicyModule, observation_space=obs_space,
                                      action_space=action_space, inference_only=inference_only,
                                      model_config=model_config)
        return MultiRLModuleSpec(rl_module_specs=specs)

    def validate(self) -> None:
        """Every option within the bounds its TopKPPOSettings field declares, then the DMC checkpoint and the options
        together, then RLlib's PPO checks; one ValueError names every problem."""
        errors = option_problems(self, TopKPPOSettings)
        if errors:
            raise ValueError("invalid top-k PPO config: " + "; ".join(errors))
        try:
            info = self.dmc_info()
        except ValueError as err:
            raise ValueError(f"invalid top-k PPO config: {err}") from None
        errors = [*self._problems_of_features(info), *self._problems_of_ppo_options(), *self._problems_of_game(),
                  *self._problems_of_resources()]
        if errors:
            raise ValueError("invalid top-k PPO config: " + "; ".join(errors))
        super().validate()

    def _problems_of_features(self, info: dict) -> list[str]:
        chosen = (self.env_config or {}).get("features")
        if chosen is not None and chosen != info["features"]:
            return [f"features={chosen!r} differ from the DMC checkpoint's {info['features']!r}: the candidate model "
                    f"reads its own features"]
        return []

    def _problems_of_ppo_options(self) -> list[str]:
        """The ratio clamp beyond the clip range, a minibatch within the batch."""
        errors = []
        if self.ratio_max <= 1.0 + self.clip_param:
            errors.append(f"ratio_max={self.ratio_max} must exceed 1 + clip_param ({1 + self.clip_param}): it bounds "
                          f"the unclipped ratio beyond the clip range")
        if self.minibatch_size is not None and self.minibatch_size > self.train_batch_size:
            errors.append(f"minibatch_size={self.minibatch_size!r} must be None (the whole batch) or an int in 1.."
                          f"{self.train_batch_size} (train_batch_size)")
        return errors

    def _problems_of_game(self) -> list[str]:
        from cardrl.algorithms.topk_ppo.level_a import game_has_level_a

        spec, errors = self.game_spec, []
        if self.level_a_counters and not game_has_level_a(spec.engine_class):
            errors.append(f"level_a_counters=True: {spec.name} has no level-A rule (GuanDan has)")
        if (self.env_config or {}).get("bidding"):
            errors.append("top-k PPO plays the card-play phase with a fixed landlord (as DMC); bidding=True is not "
                          "supported")
        return errors

    def _problems_of_resources(self) -> list[str]:
        errors = []
        if self.num_learners > 1:
            errors.append(f"num_learners={self.num_learners}: top-k PPO's KL early stop is decided per learner, so it "
                          f"runs with 0 (in the driver) or 1 learner")
        if self.num_gpus_per_learner > 0:
            import torch

            if torch.cuda.device_count() < self.num_gpus_per_learner:
                errors.append(f"num_gpus_per_learner={self.num_gpus_per_learner} but this machine has "
                              f"{torch.cuda.device_count()} GPU(s); use 0 for CPU")
        return errors

    def identity(self) -> dict:
        """What a checkpoint must agree on to be restored into an algorithm of this config."""
        info = self.dmc_info()
        return {"game": self.game_spec.env_name, "k": int(self.k), "features": self.features_name(),
                "hidden_sizes": list(self.hidden_sizes), "level_a_counters": self.uses_level_a(),
                "dmc_fingerprint": info["fingerprint"],
                **layout_identity(self.game_spec, self.env_config, self.features_name())}
