"""Top-k PPO (DanZero+) as an RLlib ``Algorithm`` on the new API stack: a frozen DMC network proposes its k best
legal moves, and PPO learns to choose among them.

DanZero+ (Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li, "DanZero+: Dominating the GuanDan Game through Reinforcement
Learning", 2024), Sec. IV-D, Fig. 5, Table I: a policy over GuanDan's whole action space is infeasible on the learner
(the batch would have to span every legal move of every state), so "the pre-trained model [DMC] is used to filter out
some actions with the highest Q-values", and PPO selects among those k. Table V (k = 2) gives the defaults
(:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`); Table III compares k = 2, 3, 5. The same algorithm
runs on DouDiZhu and Big2 with their own DMC checkpoints (no paper tried these).

One iteration (:meth:`TopKPPO.training_step`), synchronous as PPO is:

1. the newest weights go to every :class:`~cardrl.algorithms.topk_ppo.topk_ppo_env_runner.TopKPPOEnvRunner` with its
   sample request; together they return ``train_batch_size`` decisions with their GAE advantages (deals that end
   later are kept for the next iteration, so a few samples are one update old: their stored log-probabilities make
   the ratio exact, as on the authors' asynchronous actors);
2. :class:`~cardrl.algorithms.topk_ppo.topk_ppo_learner.TopKPPOTorchLearner` takes up to ``num_epochs`` gradient steps
   per module over the batch (whole-batch steps by default), stopping a module once its approximate KL exceeds
   ``kl_stop``.

The config reuses RLlib's PPOConfig (``lr``, ``gamma``, ``lambda_``, ``clip_param``, ``vf_loss_coeff``,
``entropy_coeff``, ``num_epochs``, ``minibatch_size``, ``train_batch_size``, ``grad_clip``) and the learner RLlib's
PPOTorchLearner (its entropy schedule); the GAE is computed on the runners (see :mod:`.gae` for why RLlib's GAE
connector does not fit). The frozen DMC network is read from ``dmc_checkpoint`` (a cardrl DMC algorithm checkpoint of
the same game; another game's is refused), rides inside each policy module (``candidate_model``) and so in every
checkpoint of this algorithm.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import deque
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import ray
from ray.rllib.algorithms.algorithm_config import NotProvided
from ray.rllib.algorithms.ppo.ppo import PPO, PPOConfig
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from cardrl.algorithms.dmc.settings import field_default
from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings
from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
    ACTION_LOGP, ACTIONS, ADVANTAGES, CANDIDATE_MASK, CANDIDATES, EXTRA_STATE, OBS, VALUE_TARGETS)
from cardrl.envs import make_env
from cardrl.games.registry import GameSpec, game_names, get_game

__all__ = ["TopKPPOConfig", "TopKPPO", "one_module_per_seat", "one_shared_module"]

COUNTERS = "topk_ppo_counters"
# Top-k PPO's own options (the rest of TopKPPOSettings are RLlib's PPOConfig / AlgorithmConfig attributes).
_OWN_OPTIONS = ("dmc_checkpoint", "k", "adam_eps", "ratio_max", "vf_scale", "kl_stop", "hidden_sizes", "head_hidden",
                "lstm_hidden", "level_a_counters")
_TRAIN_COLUMNS = (OBS, EXTRA_STATE, CANDIDATES, CANDIDATE_MASK, ACTIONS, ACTION_LOGP, ADVANTAGES, VALUE_TARGETS)


def one_module_per_seat(agent_id, episode=None, *args, **kwargs) -> str:
    """One policy per seat, named like it (DouDiZhu's roles, as DouZero's one network per position)."""
    return agent_id


def one_shared_module(agent_id, episode=None, *args, **kwargs) -> str:
    """One policy for every seat (DanZero+: "they all utilize the same model")."""
    return "shared"


MAPPINGS = {"per_agent": one_module_per_seat, "shared": one_shared_module}


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


class TopKPPOConfig(PPOConfig):
    """Configuration of :class:`TopKPPO`; defaults and help of every option in
    :class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings` (DanZero+'s Table V).

    Example::

        config = (TopKPPOConfig().game("guandan")
                  .training(dmc_checkpoint="runs/dmc_guandan/checkpoint", k=2)
                  .env_runners(num_env_runners=1, num_envs_per_env_runner=32))
        algo = config.build_algo()
    """

    def __init__(self, algo_class=None):
        super().__init__(algo_class=algo_class or TopKPPO)
        from cardrl.algorithms.topk_ppo.topk_ppo_env_runner import TopKPPOEnvRunner

        self.env_runner_cls = TopKPPOEnvRunner
        for f in fields(TopKPPOSettings):
            setattr(self, f.name, field_default(f))
        self.grad_clip_by = "global_norm"
        self.use_kl_loss = False  # DanZero+ stops on the KL instead of penalising it
        self.kl_coeff = 0.0
        self.shuffle_batch_per_epoch = True
        self.rollout_fragment_length = "auto"  # the runners sample train_batch_size decisions between them
        self.num_env_runners = 0
        self.game_name = None
        self.policy_mapping_fn = one_module_per_seat
        self._dmc_info: dict | None = None
        self.game(game_names()[0])
        self.min_time_s_per_iteration = 0
        self.min_sample_timesteps_per_iteration = 0
        self.min_train_timesteps_per_iteration = 0

    # ---- builders -------------------------------------------------------------------------------------------------
    def game(self, name: str = NotProvided, **env_config) -> "TopKPPOConfig":
        """Choose the game (a registered name) and its env options (rule options, ``reward=``, ``features=``). The
        registry gives the policy mapping (one policy per DouDiZhu role, one shared for Big2 and GuanDan)."""
        if name is not NotProvided:
            spec = get_game(name)
            self.game_name = spec.name
            if self.policy_mapping_fn in MAPPINGS.values():
                self.policy_mapping_fn = MAPPINGS[spec.module_mapping]
            self._dmc_info = None
        if env_config:
            self.env_config = {**dict(self.env_config or {}), **env_config}
            self._dmc_info = None
        return self

    def training(self, **kwargs) -> "TopKPPOConfig":
        """Top-k PPO's options (:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`) and RLlib's PPO ones
        (``lr``, ``gamma``, ``lambda_``, ``clip_param``, ``entropy_coeff``, ``num_epochs``, ...)."""
        own = {k: kwargs.pop(k) for k in list(kwargs) if k in _OWN_OPTIONS}
        super().training(**kwargs)
        for name, value in own.items():
            if value is not NotProvided:
                setattr(self, name, tuple(value) if name == "hidden_sizes" and value is not None else value)
                if name == "dmc_checkpoint":
                    self._dmc_info = None
        return self

    @property
    def game_spec(self) -> GameSpec:
        return get_game(self.game_name)

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
        from cardrl.algorithms.dmc.checkpoints import checkpoint_features, load_checkpoint_modules
        from cardrl.algorithms.dmc.dmc import read_checkpoint_counters

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
        errors = []
        spec = self.game_spec
        try:
            info = self.dmc_info()
        except ValueError as err:
            raise ValueError(f"invalid top-k PPO config: {err}") from None
        chosen = (self.env_config or {}).get("features")
        if chosen is not None and chosen != info["features"]:
            errors.append(f"features={chosen!r} differ from the DMC checkpoint's {info['features']!r}: the candidate "
                          f"model reads its own features")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            errors.append(f"k={self.k!r} must be an int >= 1 (DanZero+: 2, 3 or 5)")
        for name, low, high in (("gamma", 0.0, 1.0), ("lambda_", 0.0, 1.0)):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not low <= value <= high:
                errors.append(f"{name}={value!r} must lie in [{low}, {high}]")
        for name in ("clip_param", "ratio_max", "adam_eps", "lr", "grad_clip"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                errors.append(f"{name}={value!r} must be a number > 0")
        for name in ("vf_loss_coeff", "vf_scale", "entropy_coeff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                errors.append(f"{name}={value!r} must be a number >= 0")
        if not errors and self.ratio_max <= 1.0 + self.clip_param:
            errors.append(f"ratio_max={self.ratio_max} must exceed 1 + clip_param ({1 + self.clip_param}): it bounds "
                          f"the unclipped ratio beyond the clip range")
        if self.kl_stop is not None and (isinstance(self.kl_stop, bool) or not isinstance(self.kl_stop, (int, float))
                                         or self.kl_stop < 0):
            errors.append(f"kl_stop={self.kl_stop!r} must be None or 0 (no early stop) or a number > 0 (DanZero+: "
                          f"0.015)")
        if isinstance(self.num_epochs, bool) or not isinstance(self.num_epochs, int) or self.num_epochs < 1:
            errors.append(f"num_epochs={self.num_epochs!r} must be an int >= 1")
        if isinstance(self.train_batch_size, bool) or not isinstance(self.train_batch_size, int) \
                or self.train_batch_size < 1:
            errors.append(f"train_batch_size={self.train_batch_size!r} must be an int >= 1")
        elif self.minibatch_size is not None and not (isinstance(self.minibatch_size, int)
                                                      and 1 <= self.minibatch_size <= self.train_batch_size):
            errors.append(f"minibatch_size={self.minibatch_size!r} must be None (the whole batch) or an int in 1.."
                          f"{self.train_batch_size} (train_batch_size)")
        from cardrl.algorithms.topk_ppo.level_a import game_has_level_a

        if self.level_a_counters and not game_has_level_a(spec.engine_class):
            errors.append(f"level_a_counters=True: {spec.name} has no level-A rule (GuanDan has)")
        if self.num_envs_per_env_runner < 1:
            errors.append(f"num_envs_per_env_runner={self.num_envs_per_env_runner} must be >= 1")
        if self.num_learners > 1:
            errors.append(f"num_learners={self.num_learners}: top-k PPO's KL early stop is decided per learner, so it "
                          f"runs with 0 (in the driver) or 1 learner")
        if (self.env_config or {}).get("bidding"):
            errors.append("top-k PPO plays the card-play phase with a fixed landlord (as DMC); bidding=True is not "
                          "supported")
        if self.num_gpus_per_learner > 0:
            import torch

            if torch.cuda.device_count() < self.num_gpus_per_learner:
                errors.append(f"num_gpus_per_learner={self.num_gpus_per_learner} but this machine has "
                              f"{torch.cuda.device_count()} GPU(s); use 0 for CPU")
        if errors:
            raise ValueError("invalid top-k PPO config: " + "; ".join(errors))
        super().validate()

    def identity(self) -> dict:
        """What a checkpoint must agree on to be restored into an algorithm of this config."""
        info = self.dmc_info()
        return {"game": self.game_spec.env_name, "k": int(self.k), "features": self.features_name(),
                "hidden_sizes": list(self.hidden_sizes), "level_a_counters": self.uses_level_a(),
                "dmc_fingerprint": info["fingerprint"]}


class TopKPPO(PPO):
    """Top-k PPO (see the module docstring; DanZero+, Zhao et al. 2024, Sec. IV-D)."""

    @classmethod
    def get_default_config(cls) -> TopKPPOConfig:
        return TopKPPOConfig()

    def setup(self, config) -> None:
        super().setup(config)
        weights = self.config.candidate_weights()

        def load(learner, weights=weights):
            import torch

            for mid, state in weights.items():
                learner.module[mid].candidate_model.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
            return True

        _on_learners(self.learner_group, load)
        self._module_ids = sorted(self.config.policy_model_configs())
        self._weights_seq_no = 1
        self._frames_sampled = 0
        self._frames_trained = 0
        self._episodes = 0
        self._start = time.time()
        self._sample_seconds = 0.0
        self._scoring_seconds = 0.0
        self._policy_seconds = 0.0
        self._recent_returns: deque = deque(maxlen=1000)

    # ---- sampling ------------------------------------------------------------------------------------------------
    def _weights(self):
        state = self.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                             inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
        return ray.put(state) if self.env_runner_group.num_remote_env_runners() else state

    def _sample(self) -> list[dict]:
        kwargs = {"weights": self._weights(), "weights_seq_no": self._weights_seq_no}
        remote = self.env_runner_group.num_remote_env_runners()
        if remote == 0:
            return [self.env_runner.sample(num_frames=self.config.train_batch_size, **kwargs)]
        per_runner = math.ceil(self.config.train_batch_size / remote)
        return self.env_runner_group.foreach_env_runner("sample", local_env_runner=False,
                                                        kwargs={"num_frames": per_runner, **kwargs})

    # ---- one iteration -------------------------------------------------------------------------------------------
    def training_step(self) -> None:
        cfg = self.config
        results = self._sample()
        columns: dict[str, dict[str, list]] = {}
        for result in results:
            for mid, cols in result["batch"].items():
                for key in _TRAIN_COLUMNS:
                    columns.setdefault(mid, {}).setdefault(key, []).append(cols[key])
            self._frames_sampled += result["frames"]
            self._episodes += len(result["episodes"])
            self._recent_returns.extend(result["episodes"])
            self._sample_seconds += result["seconds"]
            self._scoring_seconds += result["scoring_seconds"]
            self._policy_seconds += result["policy_seconds"]
        batches = {mid: SampleBatch({k: np.concatenate(v) for k, v in cols.items()}) for mid, cols in columns.items()}
        frames = sum(len(b) for b in batches.values())

        _on_learners(self.learner_group, lambda learner: learner.reset_kl_stop())
        active = set(batches)
        steps = dict.fromkeys(batches, 0)
        for _ in range(cfg.num_epochs):
            learner_results = self.learner_group.update(
                batch=MultiAgentBatch({m: batches[m] for m in sorted(active)}, env_steps=frames),
                minibatch_size=cfg.minibatch_size, num_epochs=1,
                shuffle_batch_per_epoch=cfg.minibatch_size is not None and cfg.shuffle_batch_per_epoch,
                timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: self._frames_sampled})
            self.metrics.aggregate(learner_results, key=LEARNER_RESULTS)
            stopped = set().union(*_on_learners(self.learner_group, lambda learner: learner.kl_stopped()))
            for m in active - stopped:
                steps[m] += 1
            active -= stopped
            if not active:
                break
        self._frames_trained += frames
        self._weights_seq_no += 1
        self._log_metrics(steps)

    def _log_metrics(self, steps: dict) -> None:
        elapsed = max(time.time() - self._start, 1e-9)
        values = {"frames_sampled": self._frames_sampled, "frames_trained": self._frames_trained,
                  "episodes": self._episodes, "frames_per_s": self._frames_sampled / elapsed,
                  "sampling_frames_per_s": self._frames_sampled / max(self._sample_seconds, 1e-9),
                  "candidate_scoring_share": self._scoring_seconds / max(self._sample_seconds, 1e-9),
                  "policy_forward_share": self._policy_seconds / max(self._sample_seconds, 1e-9)}
        for key, value in values.items():
            self.metrics.log_value(key, value, reduce=None, window=1)
        for mid, n in steps.items():
            self.metrics.log_value(("epochs_taken", mid), n, reduce=None, window=1)
        if self._recent_returns:
            for agent in self._recent_returns[0]:
                mean = float(np.mean([r[agent] for r in self._recent_returns]))
                self.metrics.log_value((ENV_RUNNER_RESULTS, "mean_return", agent), mean, reduce=None, window=1)

    # ---- play ----------------------------------------------------------------------------------------------------
    def policy_modules(self) -> dict:
        """CPU copies of the current policy modules (frozen DMC inside), keyed by env agent."""
        multi = self.config.get_multi_rl_module_spec(inference_only=True).build()
        state = self.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                             inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
        multi.set_state(state)
        multi.foreach_module(lambda mid, m: m.eval())
        return {agent: multi[self.config.policy_mapping_fn(agent, None)] for agent in self.config.game_spec.agents}

    def agent(self, greedy: bool = False, seed: int = 0):
        """A :class:`~cardrl.algorithms.topk_ppo.agent.TopKPPOAgent` playing the current policy."""
        from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent

        return TopKPPOAgent(self.policy_modules(), self.config.game_name, features=self.config.features_name(),
                            options=self.config.rule_options(), greedy=greedy, seed=seed)

    # ---- checkpoints ---------------------------------------------------------------------------------------------
    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = super().get_state(components, not_components=not_components, **kwargs)
        state[COUNTERS] = {"frames_sampled": self._frames_sampled, "frames_trained": self._frames_trained,
                           "episodes": self._episodes, "weights_seq_no": self._weights_seq_no,
                           **self.config.identity()}
        return state

    def _check_identity(self, counters: dict | None, where: str) -> None:
        if not counters:
            raise ValueError(f"{where} is not a cardrl top-k PPO checkpoint (it has no top-k PPO state)")
        diffs = [f"{k}: checkpoint has {counters.get(k)!r}, this config has {v!r}"
                 for k, v in self.config.identity().items() if counters.get(k) != v]
        if diffs:
            raise ValueError(f"{where} does not match this top-k PPO config (" + "; ".join(diffs) + ")")

    def restore_from_path(self, path, *args, **kwargs):
        """Restore a checkpoint after checking its game, k, features, network and frozen DMC network."""
        if kwargs.get("component") is None:
            self._check_identity(read_counters(path), f"checkpoint {path}")
        return super().restore_from_path(path, *args, **kwargs)

    def set_state(self, state) -> None:
        counters = state.get(COUNTERS)
        if counters is not None:
            self._check_identity(counters, "the given state")
        super().set_state(state)
        if counters:
            self._frames_sampled = counters["frames_sampled"]
            self._frames_trained = counters["frames_trained"]
            self._episodes = counters["episodes"]
            self._weights_seq_no = counters["weights_seq_no"]


def _on_learners(learner_group, fn) -> list:
    """``fn(learner)`` on every learner (the local one or the remote ones); their results."""
    return [r.get() for r in learner_group.foreach_learner(fn)]


def read_counters(path) -> dict | None:
    """The top-k PPO counters and identity saved in an algorithm checkpoint directory (None if it has none)."""
    import pickle

    from ray.rllib.algorithms.algorithm import Algorithm

    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {path} does not exist")
    state_file = root / f"{Algorithm.STATE_FILE_NAME}.pkl"
    if not state_file.is_file():
        raise ValueError(f"{path} is not an RLlib algorithm checkpoint (it has no {state_file.name})")
    try:
        with state_file.open("rb") as f:
            state = pickle.load(f)
    except Exception as err:  # a truncated or foreign file
        raise ValueError(f"checkpoint {path} is corrupt: {state_file} could not be read ({err})") from None
    return state.get(COUNTERS) if isinstance(state, dict) else None
