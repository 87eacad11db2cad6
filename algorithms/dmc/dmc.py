"""Deep Monte-Carlo (DouZero) as an RLlib ``Algorithm`` on the new API stack.

DouZero (Zha et al. 2021), restated in DouZero+ (Zhao et al. 2022, "DouZero+: Improving DouDizhu AI by Opponent
Modeling and Coach-guided Learning", section III) and Luo & Tan 2024 (Algorithm 1): actors play whole games
epsilon-greedily (epsilon 0.01) with Q(s, a); every chosen (s, a) is labelled with the player's final return G;
learners minimise (Q(s, a) - G)^2 with RMSprop (lr 1e-4, alpha 0.99, eps 1e-5) and gradient clipping 40. One network
per DouDiZhu seat with DouZero's features, as DouZero; one shared network with seat identity in the features for
Luo & Tan's unified features ("a single model that can be applied to all players", their Appendix C), Big2 and
GuanDan (``module_mapping`` chooses either).

Data flow (docs/architecture.md): :class:`~cardrl.algorithms.dmc.dmc_env_runner.DMCEnvRunner` actors play many games
at once and return compact per-module samples; the driver keeps one sample request in flight per runner, each
carrying the newest weights, so sampling and learning overlap and a runner's weights lag the learner by at most the
updates made while one request ran (reported as ``weight_lag``). Each module is updated as soon as its own bounded
buffer holds a batch, on its newest frames (:mod:`cardrl.algorithms.dmc.buffers`); the age of what each update trains
on (``data_age_updates``, ``data_age_s``), the frames dropped (``frames_dropped``) and the buffers' size
(``buffer_frames``, ``buffer_mb``) are reported every iteration.

Fault tolerance (docs/operations.md): an env runner that dies is restarted by Ray (``restart_failed_env_runners``,
on by default) and brought back by :meth:`DMC.restore_env_runners` with the learner's current weights and a fresh
seed; what is lost is that runner's sample request in flight and its unfinished games (``env_runner_samples_lost``
counts the requests, ``env_runner_restarts`` the restarts, ``env_runners_healthy`` the runners sampling now).
Checkpoints written by :meth:`DMC.save_to_path` end with a completion marker (``cardrl_checkpoint.json``, listing
every file and its size) that :meth:`DMC.restore_from_path` checks. The frame buffers are not saved: a restored
run starts with empty buffers (at most ``buffer_frames`` frames per module sampled but not trained are lost), and
its runners are reseeded from (seed, frames trained) so that it does not replay the deals of the run it continues.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import fields

import numpy as np
import ray
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig, NotProvided
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    LEARNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
)

from cardrl.algorithms.dmc.buffers import FrameBuffer
from cardrl.algorithms.dmc.centering import TARGET_BASELINES
from cardrl.algorithms.dmc.coach import COACH
from cardrl.algorithms.dmc.settings import (COACH_INPUTS, OM_GRAD_CLIPS, OPPONENT_MODELS, OPTIMIZERS, Q_MODELS,
                                            DMCSettings, field_default)
from cardrl.envs import make_env
from cardrl.games.registry import GameSpec, game_names, get_game

MODELS = Q_MODELS
SAMPLE_TAG = "dmc_sample"  # the tag of DMC's sample requests to remote env runners
# DMC's own options (the rest of DMCSettings are RLlib's: lr, grad_clip, num_envs_per_env_runner, ...).
_DMC_TRAINING_OPTIONS = ("epsilon", "q_model", "frames_per_update", "optimizer", "rmsprop_alpha",
                         "rmsprop_eps", "updates_per_iteration", "target_scale", "hidden_sizes", "prune", "prune_slack",
                         "prune_extra", "actor_q_clip", "buffer_frames", "opponent_model", "om_loss_weight",
                         "om_card_weight", "om_k_weight", "q_clip", "admc_gamma", "admc_q_floor", "oracle",
                         "oracle_mode", "coach", "coach_beta", "coach_step_frames", "coach_lr", "coach_batch",
                         "gpu_inference", "actor_precision", "driver_sample_frames", "module_mapping", "om_grad_clip",
                         "coach_input", "target_baseline", "target_baseline_rate")


def one_module_per_seat(agent_id, episode=None, *args, **kwargs) -> str:
    """Policy mapping of DouZero: every seat has its own Q-network, named like the seat."""
    return agent_id


def one_shared_module(agent_id, episode=None, *args, **kwargs) -> str:
    """Policy mapping of Luo & Tan (Big2) and DanZero (GuanDan): one Q-network for every seat, which tells seats
    apart by the identity bits in its features."""
    return "shared"


MAPPINGS = {"per_agent": one_module_per_seat, "shared": one_shared_module}


class DMCConfig(AlgorithmConfig):
    """Configuration of :class:`DMC`. Defaults and help of every option: :class:`~cardrl.algorithms.dmc.settings.
    DMCSettings` (DouZero's hyperparameters); per-game defaults (module mapping, Q-network, targets) come from the
    game registry.

    Example::

        config = (DMCConfig().game("doudizhu", reward="adp")
                  .env_runners(num_env_runners=1, num_envs_per_env_runner=32)
                  .training(q_model="douzero_lstm", frames_per_update=3200))
        algo = config.build_algo()
    """

    def __init__(self, algo_class=None):
        super().__init__(algo_class=algo_class or DMC)
        from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

        self.env_runner_cls = DMCEnvRunner
        for f in fields(DMCSettings):
            setattr(self, f.name, field_default(f))
        self.grad_clip_by = "global_norm"
        self._q_model_chosen = False
        self.game_name = None
        self.policy_mapping_fn = one_module_per_seat
        self.game(game_names()[0])  # until .game() names one: the first registered game (DouZero's DouDiZhu)
        self.min_time_s_per_iteration = 0
        self.min_sample_timesteps_per_iteration = 0
        self.min_train_timesteps_per_iteration = 0
        # A dead env runner is restarted by Ray and handed sample requests again (DMC.restore_env_runners); RLlib's
        # default too, set here so that DMC does not depend on it. Turn off with .fault_tolerance(
        # restart_failed_env_runners=False): a runner's death then ends training with its error.
        self.restart_failed_env_runners = True

    # ---- builders ------------------------------------------------------------------------------
    def game(self, name: str = NotProvided, **env_config) -> "DMCConfig":
        """Choose the game (a registered name, e.g. ``"doudizhu"``) and its env options (e.g. ``reward="wp"``).

        The game's registry entry gives the defaults the user has not chosen: the policy mapping (one Q-network per
        DouDiZhu seat with DouZero's features, one shared network with Luo & Tan's unified features and for Big2
        and GuanDan; :meth:`resolved_module_mapping`) and the Q-network (DouZero's LSTM where the
        features have a history, else DanZero's MLP)."""
        if name is not NotProvided:
            spec = get_game(name)
            self.game_name = spec.name
            if not self._q_model_chosen:  # the network made for the features
                self.q_model = spec.make_features(dict(self.env_config or {}).get("features")).default_q_model
        if env_config:
            self.env_config = {**dict(self.env_config or {}), **env_config}
            if not self._q_model_chosen and "features" in env_config:
                self.q_model = self.game_spec.make_features(env_config["features"]).default_q_model
        self._apply_module_mapping()
        return self

    def resolved_module_mapping(self) -> str:
        """``"shared"`` or ``"per_agent"``: ``module_mapping`` if set, else the game's default for the features (one
        network per DouDiZhu seat with DouZero's features; one shared network with Luo & Tan's unified features,
        whose identity and camp bits tell seats apart, and in Big2 and GuanDan)."""
        if self.module_mapping is not None:
            return self.module_mapping
        return self.game_spec.default_module_mapping((self.env_config or {}).get("features"))

    def _apply_module_mapping(self) -> None:
        """Set ``policy_mapping_fn`` from :meth:`resolved_module_mapping` unless the user gave one of their own."""
        if self.policy_mapping_fn in MAPPINGS.values() and self.module_mapping in (None, *MAPPINGS):
            self.policy_mapping_fn = MAPPINGS[self.resolved_module_mapping()]

    def training(self, **kwargs) -> "DMCConfig":
        """DMC's options (:class:`~cardrl.algorithms.dmc.settings.DMCSettings` lists them with their meaning) and
        RLlib's own (``lr``, ``grad_clip``, ...). ``prune="mcs"`` turns DMC into ODMC (Luo & Tan 2024, section
        4.3): the actor scores and picks only the legal moves kept by eq. 2 (``prune_slack="paper"`` is N/n + d,
        plus ``prune_extra``; a number fixes the slack). ``q_clip="admc"`` is OADMCDou's ADMC (eq. 2-5),
        ``oracle="1.0:0.0:FRAMES"`` their oracle guiding (eq. 1), ``coach=True`` DouZero+'s coach network.
        ``actor_q_clip=lambda`` is deprecated: it means ``q_clip="admc", admc_gamma=lambda``."""
        own = {k: kwargs.pop(k) for k in list(kwargs) if k in _DMC_TRAINING_OPTIONS}
        super().training(**kwargs)
        if own.get("q_model", NotProvided) is not NotProvided:
            self._q_model_chosen = True
        clip = own.pop("actor_q_clip", NotProvided)
        if clip is not NotProvided and clip is not None:
            import warnings

            warnings.warn(f"actor_q_clip={clip!r} is deprecated: it now means q_clip='admc', admc_gamma={clip!r} "
                          f"(OADMCDou's ratio clip, the form of DanZero's code); pass those instead",
                          DeprecationWarning, stacklevel=2)
            own.setdefault("q_clip", "admc")
            own.setdefault("admc_gamma", clip)
        if isinstance(own.get("oracle"), str):
            from cardrl.algorithms.dmc.schedules import parse_oracle

            own["oracle"] = parse_oracle(own["oracle"])
        for name, value in own.items():
            if value is not NotProvided:
                setattr(self, name, value)
        self._apply_module_mapping()
        return self

    def beta_schedule(self):
        """The coach's beta by frames trained (DouZero+'s unless ``coach_beta`` gives the points)."""
        from cardrl.algorithms.dmc.schedules import DOUZERO_PLUS_BETA, BetaSchedule

        points = DOUZERO_PLUS_BETA if self.coach_beta is None else tuple(tuple(p) for p in self.coach_beta)
        return BetaSchedule(points, self.coach_step_frames)

    def schedule_values(self, frames_trained: int) -> dict[str, float]:
        """The scheduled values the env runners act with at ``frames_trained``: oracle lambda, coach beta."""
        return {"oracle_lambda": self.oracle.value(frames_trained) if self.oracle is not None else 0.0,
                "coach_beta": self.beta_schedule().value(frames_trained) if self.coach else 0.0}

    def reward_bounds(self, module_id: str) -> tuple[float, float]:
        """(r_min, r_max): the smallest and largest DMC target of a module's agents in one scoring segment (ADMC's
        reward range, OADMCDou eq. 4): the engine's payoff bounds times the agents' target scales."""
        env_ = self.make_env()
        low, high = env_.game.payoff_bounds(env_.reward)
        scales = self.target_scales()
        seats = [s for s, a in enumerate(env_.possible_agents) if self.policy_mapping_fn(a, None) == module_id]
        if not seats:
            raise ValueError(f"no agent of {self.game_name} maps to module {module_id!r}")
        bounds = [(low[s] * scales.get(env_.possible_agents[s], 1.0), high[s] * scales.get(env_.possible_agents[s],
                                                                                          1.0)) for s in seats]
        return float(min(b[0] for b in bounds)), float(max(b[1] for b in bounds))

    @property
    def game_spec(self) -> GameSpec:
        return get_game(self.game_name)

    @property
    def game_agents(self) -> list[str]:
        return list(self.make_env().possible_agents)

    def make_env(self):
        """A raw AEC env of the configured game and env options (what the env runners play)."""
        return make_env(self.game_name, **dict(self.env_config or {}))

    def buffer_capacity(self) -> int:
        """Frames each module's buffer holds at most (``buffer_frames``, default twice ``frames_per_update``)."""
        return int(self.buffer_frames) if self.buffer_frames is not None else 2 * int(self.frames_per_update)

    def _problems_of_paper_options(self, spec) -> list[str]:
        """What contradicts itself or does not apply among ADMC, oracle guiding and the coach."""
        from cardrl.algorithms.dmc.schedules import OracleSchedule

        errors = []
        if self.q_clip not in (None, "admc", "range"):
            errors.append(f"q_clip={self.q_clip!r} is unknown; allowed: None, 'admc' (OADMCDou eq. 2-5), 'range' "
                          f"(eq. 4 alone)")
        for name, value in (("admc_gamma", self.admc_gamma), ("admc_q_floor", self.admc_q_floor)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                errors.append(f"{name}={value!r} must be a number > 0")
        if isinstance(self.admc_gamma, (int, float)) and not isinstance(self.admc_gamma, bool) \
                and self.admc_gamma >= 1:
            errors.append(f"admc_gamma={self.admc_gamma!r} must be < 1: the clip keeps Q/Q_old in [1 - gamma, "
                          f"1 + gamma], which must not reach 0")
        if self.target_baseline not in (None, *TARGET_BASELINES):
            errors.append(f"target_baseline={self.target_baseline!r} is unknown; allowed: None, "
                          + ", ".join(repr(b) for b in TARGET_BASELINES))
        elif self.target_baseline is not None and self.q_clip is not None:
            errors.append(f"target_baseline={self.target_baseline!r} centres the targets, but q_clip="
                          f"{self.q_clip!r} clips Q to the game's reward range, which centred targets leave: use one "
                          f"of them")
        if self.target_baseline is None and self._any_set("target_baseline_rate"):
            errors.append("target_baseline_rate is set but target_baseline is not")
        elif not (isinstance(self.target_baseline_rate, (int, float)) and not isinstance(self.target_baseline_rate,
                                                                                            bool)
                  and 0 < self.target_baseline_rate <= 1):
            errors.append(f"target_baseline_rate={self.target_baseline_rate!r} must be a number in (0, 1]")
        if self.q_clip != "admc" and (self.admc_gamma, self.admc_q_floor) != (0.2, 1.0):
            errors.append("admc_gamma/admc_q_floor are set but q_clip is not 'admc'")
        if self.oracle is not None:
            if not isinstance(self.oracle, OracleSchedule):
                errors.append(f"oracle={self.oracle!r} must be None, an OracleSchedule or 'START:END:FRAMES'")
            else:
                errors += self.oracle.problems()
        if self.oracle_mode not in ("scale", "bernoulli"):
            errors.append(f"oracle_mode={self.oracle_mode!r} is unknown; allowed: 'scale', 'bernoulli'")
        elif self.oracle is None and self.oracle_mode != "scale":
            errors.append("oracle_mode is set but oracle is None: give oracle='START:END:FRAMES'")
        if self.coach:
            if spec.coach_encoder is None:
                errors.append(f"coach=True needs a game with a coach encoder (GameSpec.coach_encoder); {spec.name} has "
                              f"none")
            errors += self.beta_schedule().problems()
            for name in ("coach_batch", "coach_step_frames"):
                value = getattr(self, name)
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    errors.append(f"{name}={value!r} must be a positive int")
            if isinstance(self.coach_lr, bool) or not isinstance(self.coach_lr, (int, float)) or not self.coach_lr > 0:
                errors.append(f"coach_lr={self.coach_lr!r} must be a number > 0")
            if self.coach_input not in COACH_INPUTS:
                errors.append(f"coach_input={self.coach_input!r} is unknown; allowed: "
                              f"{', '.join(map(repr, COACH_INPUTS))}")
        elif self._any_set("coach_beta", "coach_step_frames", "coach_lr", "coach_batch", "coach_input"):
            errors.append("coach_beta/coach_step_frames/coach_lr/coach_batch/coach_input are set but coach is False")
        return errors

    def _any_set(self, *names: str) -> bool:
        """Whether any of these DMCSettings options differs from its default (set by the user)."""
        defaults = {f.name: field_default(f) for f in fields(DMCSettings) if f.name in names}
        return any(getattr(self, name) != defaults[name] for name in names)

    def _problems_of_module_mapping(self, spec) -> list[str]:
        """What is wrong with ``module_mapping``: an unknown value, one given beside a policy_mapping_fn of the
        user's own, or one shared network over features whose state has another size for some seat."""
        if self.module_mapping not in (None, *MAPPINGS):
            return [f"module_mapping={self.module_mapping!r} is unknown; allowed: None (the game's default for the "
                    f"features), {', '.join(map(repr, MAPPINGS))}"]
        if self.policy_mapping_fn not in MAPPINGS.values():
            return [] if self.module_mapping is None else [
                f"module_mapping={self.module_mapping!r} and a policy_mapping_fn of your own are both given; give one"]
        mapping = self.resolved_module_mapping()
        if self.policy_mapping_fn is not MAPPINGS[mapping]:  # features changed after .game() (e.g. .environment())
            if self._is_frozen:
                return [f"policy_mapping_fn does not follow module_mapping={mapping!r}: set the features with "
                        f".game(name, features=...) before the config is frozen"]
            self.policy_mapping_fn = MAPPINGS[mapping]
        if mapping == "shared":
            features = spec.make_features((self.env_config or {}).get("features"))
            sizes = {agent: features.state_dim(agent) for agent in spec.agents}
            if len(set(sizes.values())) > 1:
                fitting = [name for name, m in spec.module_mapping_by_features.items() if m == "shared"]
                return [f"module_mapping='shared' needs features with one state size for every seat, so that one "
                        f"network plays them all; {spec.name}'s {features.name} features have {sizes}: use "
                        f"module_mapping='per_agent'" + (f" or features={fitting[0]!r}" if fitting else "")]
        return []

    def target_scales(self) -> dict[str, float]:
        """Factor from a seat's zero-sum payoff to its DMC target (DouDiZhu: the landlord's 2x becomes 1x)."""
        if self.target_scale is not None:
            return dict(self.target_scale)
        return dict(self.game_spec.target_scale)

    def get_default_learner_class(self):
        from cardrl.algorithms.dmc.dmc_learner import DMCTorchLearner

        return DMCTorchLearner

    def get_multi_rl_module_spec(self, *, env=None, spaces=None, inference_only=False, **kwargs):
        """One Q-network per module id (DouDiZhu: one per seat), sized from the game's features."""
        from cardrl.algorithms.dmc.dmc_rl_module import RoleDims, dmc_module_spec

        env_ = self.make_env()
        features = env_.features
        roles = {}
        for agent in env_.possible_agents:
            history = None if features.history_shape is None else tuple(features.history_shape)
            dims = RoleDims(features.state_dim(agent), history, features.action_dim)
            roles.setdefault(self.policy_mapping_fn(agent, None), dims)
        model_config = {"hidden_sizes": self.hidden_sizes} if self.hidden_sizes else {}
        if self.opponent_model is not None:
            model_config["opponent_model"] = self.opponent_model_config(env_.game)
        if self.oracle is not None:
            from cardrl.algorithms.dmc.oracle import ORACLE, oracle_dim

            model_config["input_blocks"] = {ORACLE: oracle_dim(env_.game.num_players)}
        spec = dmc_module_spec(self.q_model, roles, model_config, inference_only=inference_only)
        if self.coach:
            from cardrl.algorithms.dmc.coach import COACH, coach_module_spec
            from cardrl.features.deals import max_hand

            spec.rl_module_specs[COACH] = coach_module_spec(env_.game.num_players, max_hand(env_.game),
                                                            len(self.game_spec.protocol.arrangements),
                                                            inference_only=inference_only, card_ids=self.coach_input)
        return spec

    def opponent_model_config(self, game) -> dict:
        """The ``model_config["opponent_model"]`` of the configured opponent model for an engine of the game."""
        from cardrl.features.labels import card_label_dim, k_classes

        if self.opponent_model == "luo_tan":
            return {"kind": "luo_tan", "card_dim": card_label_dim(game), "k_classes": k_classes(game),
                    "players": game.num_players}
        return {"kind": self.opponent_model}

    def validate(self) -> None:
        super().validate()
        errors = []
        spec = self.game_spec
        if self.num_learners > 1:
            # RLlib shards each module's batch into num_learners slices of ceil(n / num_learners) rows and averages
            # the learners' gradients (torch DDP): that is the gradient of the whole batch's mean loss only when the
            # slices are equally long (docs/operations.md, "Several learners").
            sizes = {"frames_per_update": self.frames_per_update, **({"coach_batch": self.coach_batch}
                                                                     if self.coach else {})}
            for name, value in sizes.items():
                if isinstance(value, int) and value % self.num_learners:
                    errors.append(f"{name}={value} must be a multiple of num_learners={self.num_learners}: each "
                                  f"learner updates on an equal slice of every batch")
        if self.optimizer not in OPTIMIZERS:
            errors.append(f"optimizer={self.optimizer!r} is unknown; allowed: {', '.join(map(repr, OPTIMIZERS))}")
        errors += self._problems_of_module_mapping(spec)
        if self.q_model not in MODELS:
            errors.append(f"q_model {self.q_model!r} is unknown; available: {MODELS}")
        elif self.q_model == "douzero_lstm":
            features = spec.make_features((self.env_config or {}).get("features"))
            if features.history_shape is None:
                errors.append(f"q_model='douzero_lstm' needs move-history features; {spec.name}'s {features.name} "
                              f"features have none: use q_model='mlp'")
        if self.opponent_model is not None:
            features = spec.make_features((self.env_config or {}).get("features"))
            if self.opponent_model not in OPPONENT_MODELS:
                errors.append(f"opponent_model={self.opponent_model!r} is unknown; allowed: None, "
                              f"{', '.join(map(repr, OPPONENT_MODELS))}")
            elif self.opponent_model not in features.opponent_models:
                fits = {name: [fname for fname in get_game(name).features
                               if self.opponent_model in get_game(name).make_features(fname).opponent_models]
                        for name in game_names()}
                errors.append(f"opponent_model={self.opponent_model!r} does not read {spec.name}'s {features.name} "
                              f"features; it reads, by game, the features (--features): "
                              + "; ".join(f"{name}: {', '.join(fnames)}" for name, fnames in fits.items() if fnames))
            elif self.opponent_model == "luo_tan" and spec.search is None:
                errors.append(f"opponent_model='luo_tan' learns every other player's minimum combination K: "
                              f"{spec.name} has no Minimum Combination Search")
            for name in ("om_loss_weight", "om_card_weight", "om_k_weight"):
                value = getattr(self, name)
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    errors.append(f"{name}={value!r} must be a number >= 0")
            if self.om_grad_clip not in OM_GRAD_CLIPS:
                errors.append(f"om_grad_clip={self.om_grad_clip!r} is unknown; allowed: "
                              f"{', '.join(map(repr, OM_GRAD_CLIPS))}")
        elif self._any_set("om_loss_weight", "om_card_weight", "om_k_weight", "om_grad_clip"):
            errors.append("om_loss_weight/om_card_weight/om_k_weight/om_grad_clip are set but opponent_model is None: "
                          "set opponent_model='luo_tan' or 'douzero_plus'")
        if not 0.0 <= self.epsilon <= 1.0:
            errors.append(f"epsilon={self.epsilon} must lie in [0, 1]")
        if self.frames_per_update < 1:
            errors.append(f"frames_per_update={self.frames_per_update} must be >= 1")
        elif self.buffer_frames is not None and not (isinstance(self.buffer_frames, int)
                                                     and self.buffer_frames >= self.frames_per_update):
            errors.append(f"buffer_frames={self.buffer_frames!r} must be an int >= frames_per_update "
                          f"({self.frames_per_update}): a module's buffer must hold one batch")
        if (self.env_config or {}).get("bidding"):
            errors.append("DMC trains the card-play phase with a fixed landlord (as DouZero); bidding=True is not "
                          "supported yet")
        if self.prune not in (None, "mcs"):
            errors.append(f"prune={self.prune!r} is unknown; allowed: None (plain DMC) or 'mcs' (ODMC)")
        elif self.prune == "mcs":
            from cardrl.search.prune import check_slack

            if spec.search is None:
                errors.append(f"prune='mcs' needs a game with Minimum Combination Search "
                              f"({[g for g in game_names() if get_game(g).search is not None]}), not "
                              f"{spec.name!r}")
            try:
                check_slack(self.prune_slack, self.prune_extra)
            except ValueError as e:
                errors.append(str(e))
        elif self.prune_slack != "paper" or self.prune_extra:
            errors.append("prune_slack/prune_extra are set but prune is None: set prune='mcs' to prune")
        errors += self._problems_of_paper_options(spec)
        if self.driver_sample_frames < 0:
            errors.append(f"driver_sample_frames={self.driver_sample_frames} must be >= 0 (0: the driver does not "
                          f"sample)")
        if self.actor_precision not in ("float32", "bfloat16"):
            errors.append(f"actor_precision={self.actor_precision!r} is unknown; allowed: 'float32', 'bfloat16'")
        if self.gpu_inference:  # the env runners' Q-modules on a GPU (DMCEnvRunner)
            from cardrl.algorithms.dmc.dmc_env_runner import gpu_inference_problems, gpu_share_per_runner

            problems = gpu_inference_problems(self)
            errors += problems
            if not problems and not self.num_gpus_per_env_runner and not self._is_frozen:
                self.num_gpus_per_env_runner = gpu_share_per_runner(self)  # Ray must reserve each runner's share
        if self.num_envs_per_env_runner < 1:
            errors.append(f"num_envs_per_env_runner={self.num_envs_per_env_runner} must be >= 1")
        if self.num_gpus_per_learner > 0:
            import torch

            have = torch.cuda.device_count()
            need = max(1, self.num_learners) * self.num_gpus_per_learner
            if need > have:
                errors.append(f"{max(1, self.num_learners)} learner(s) x {self.num_gpus_per_learner} GPU need "
                              f"{need} GPU(s), but this machine has {have}; use num_gpus_per_learner=0 for CPU")
        if errors:
            raise ValueError("invalid DMC config: " + "; ".join(errors))


def read_checkpoint_counters(path) -> dict | None:
    """The DMC counters and identity (game, network) saved in an algorithm checkpoint directory."""
    return read_checkpoint_state(path).get("dmc_counters")


def read_checkpoint_state(path) -> dict:
    """The algorithm state saved in a checkpoint directory (``algorithm_state.pkl`` or ``.msgpack``); ValueError when
    it is not an RLlib algorithm checkpoint or its state file can not be read."""
    import pickle
    from pathlib import Path

    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {path} does not exist")
    state_file = root / f"{Algorithm.STATE_FILE_NAME}.pkl"
    if not state_file.is_file():
        msgpack_file = state_file.with_suffix(".msgpack")
        if not msgpack_file.is_file():
            raise ValueError(f"{path} is not an RLlib algorithm checkpoint (it has no {state_file.name})")
        import msgpack

        with msgpack_file.open("rb") as f:
            state = msgpack.load(f, strict_map_key=False)
    else:
        try:
            with state_file.open("rb") as f:
                state = pickle.load(f)
        except Exception as err:  # a truncated or foreign file
            raise ValueError(f"checkpoint {path} is corrupt: {state_file} could not be read ({err})") from None
    return state if isinstance(state, dict) else {}


def _local_path(path, kwargs: dict) -> bool:
    """Whether a checkpoint save or restore is on the local disk (no ``filesystem`` argument, no URI): where cardrl
    writes and checks its completion marker."""
    return kwargs.get("filesystem") is None and "://" not in str(path)


class DMC(Algorithm):
    """Deep Monte-Carlo on RLlib (see the module docstring; DouZero, Zha et al. 2021)."""

    @classmethod
    def get_default_config(cls) -> DMCConfig:
        return DMCConfig()

    def setup(self, config) -> None:
        super().setup(config)
        self._module_ids = sorted(self.config.get_multi_rl_module_spec().rl_module_specs)
        # every Q-module trains on frames_per_update frames; the coach (DouZero+) on coach_batch games
        self._batch_sizes = {m: int(self.config.coach_batch if m == COACH else self.config.frames_per_update)
                             for m in self._module_ids}
        capacity = self.config.buffer_capacity()
        self._buffers = {m: FrameBuffer(2 * self._batch_sizes[m] if m == COACH else capacity)
                         for m in self._module_ids}
        self._coach_counts = [0, 0]  # deals the coach rejected, accepted (since the start)
        self._module_updates = dict.fromkeys(self._module_ids, 0)
        self._module_frames_sampled = dict.fromkeys(self._module_ids, 0)
        self._ages: deque = deque(maxlen=30)  # (learner updates, seconds) of the frames of the last updates
        self._weights_seq_no = 1
        self._weights_ref = None
        self._frames_trained = 0
        self._frames_sampled = 0
        self._episodes = 0
        self._deals = 0  # scoring segments ended (a GuanDan match's deals; elsewhere the episodes)
        self._start = time.time()
        self._recent_returns: deque = deque(maxlen=1000)
        self._lags: deque = deque(maxlen=100)  # learner updates behind, of the last sample batches
        self._prune_counts = [0, 0]  # ODMC: legal moves seen, moves kept (since the start)
        self._target_baselines: dict[str, float] = {}  # target_baseline: each seat's mean return, as runners report
        self._counted_from = (0, 0)  # (frames trained, episodes) when this process started or restored: for rates
        # fault tolerance: sample requests in flight per remote runner id; runner restarts; requests lost with a runner
        self._in_flight: dict[int, int] = {}
        self._env_runner_restarts = 0
        self._samples_lost = 0
        self.run_info: dict = {}  # what a driver (train.py) saves with the checkpoint: elapsed time, milestones

    # ---- sampling ------------------------------------------------------------------------------
    def _weights(self):
        if self._weights_ref is None:
            state = self.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                                 inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
            self._weights_ref = ray.put(state) if self.env_runner_group.num_remote_env_runners() else state
        return self._weights_ref

    def _collect(self) -> list[dict]:
        """Samples that are ready. With remote runners every healthy runner is handed a new request (with the newest
        weights) as soon as its last one returns, so runners keep sampling while the learner updates.

        A runner that died is marked unhealthy by RLlib when its request fails (its request is lost and counted in
        ``env_runner_samples_lost``); the others go on sampling, and it is handed requests again once
        :meth:`restore_env_runners` brought it back (RLlib calls that before every training step; here too when no
        runner is left)."""
        kwargs = {"weights": self._weights(), "weights_seq_no": self._weights_seq_no,
                  "schedules": self.config.schedule_values(self._frames_trained)}
        group = self.env_runner_group
        if group.num_remote_env_runners() == 0:
            return [self.env_runner.sample(**kwargs)]
        results: list[dict] = []
        timeout = 0.0
        while True:
            ready = group.fetch_ready_async_reqs(tags=SAMPLE_TAG, timeout_seconds=timeout)
            for runner_id, result in ready:
                self._in_flight[runner_id] = max(0, self._in_flight.get(runner_id, 0) - 1)
                if result is not None:  # None: replies to RLlib's own state syncs
                    results.append(result)
            healthy = group.healthy_env_runner_ids()
            for runner_id in [r for r in self._in_flight if r not in healthy]:  # died with requests in flight
                self._samples_lost += self._in_flight.pop(runner_id)
            for runner_id in healthy:
                sent = group.foreach_env_runner_async("sample", tag=SAMPLE_TAG, kwargs=kwargs,
                                                      remote_worker_ids=[runner_id])
                self._in_flight[runner_id] = self._in_flight.get(runner_id, 0) + sent
            if results:
                return results
            if not healthy:
                self._wait_for_env_runners()
            if self.config.driver_sample_frames > 0 and self.env_runner is not None:
                # nothing ready: the driver's core would idle until a remote sample comes; it plays a little itself
                results.append(self.env_runner.sample(num_frames=self.config.driver_sample_frames, **kwargs))
                timeout = 0.0
                continue
            timeout = 0.05

    def _wait_for_env_runners(self) -> None:
        """Every remote runner is down: wait until Ray restarted one (and bring it back), or fail saying why."""
        cfg = self.config
        count = self.env_runner_group.num_remote_env_runners()
        if not cfg.restart_failed_env_runners:
            raise RuntimeError(f"all {count} DMC env runner(s) failed and restart_failed_env_runners is False, so "
                               f"nothing samples: turn it on (DMCConfig().fault_tolerance(restart_failed_env_runners="
                               f"True), the default) to have Ray restart them")
        deadline = time.time() + cfg.env_runner_restore_timeout_s
        while time.time() < deadline:
            restored = self.restore_env_runners(self.env_runner_group)
            if restored:
                self._make_on_env_runners_recreated_callbacks(config=cfg, env_runner_group=self.env_runner_group,
                                                              restored_env_runner_indices=restored)
                return
            time.sleep(0.2)
        raise RuntimeError(f"all {count} DMC env runner(s) failed and none came back within "
                           f"env_runner_restore_timeout_s={cfg.env_runner_restore_timeout_s:g}s (restarts so far: "
                           f"{self._env_runner_restarts}; at most max_num_env_runner_restarts="
                           f"{cfg.max_num_env_runner_restarts} per runner)")

    def _runner_entropy(self, *extra: int) -> list[int]:
        """The seed material of reseeded runners: (seed, frames trained, *extra); each runner adds its index."""
        seed = self.config.seed if self.config.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        return [int(seed), int(self._frames_trained), *map(int, extra)]

    def restore_env_runners(self, env_runner_group) -> list[int]:
        """Bring back the runners Ray restarted: each gets the learner's current weights (with their sequence
        number, so that weight lag stays meaningful) and a seed of its own (seed, frames trained, restarts), so that
        a restarted runner does not replay the deals it played before. The evaluation runner group is RLlib's."""
        if env_runner_group is not self.env_runner_group:
            return super().restore_env_runners(env_runner_group)
        restored = env_runner_group.probe_unhealthy_env_runners()
        if not restored:
            return []
        self._counters["total_num_restored_workers"] += len(restored)
        self._env_runner_restarts += len(restored)
        weights, seq, entropy = self._weights(), self._weights_seq_no, self._runner_entropy(self._env_runner_restarts)

        def sync(runner) -> None:
            runner.load_weights(weights, seq)
            runner.reseed(entropy)

        env_runner_group.foreach_env_runner(sync, remote_worker_ids=restored, local_env_runner=False,
                                            timeout_seconds=self.config.env_runner_restore_timeout_s)
        for runner_id in restored:
            self._in_flight[runner_id] = 0
        return restored

    def _reseed_runners(self) -> None:
        """Reseed every runner from (seed, frames trained): a restored run does not replay the original's deals."""
        entropy = self._runner_entropy()
        self.env_runner_group.foreach_env_runner(lambda runner: runner.reseed(entropy), local_env_runner=True)

    def _ingest(self, result: dict) -> None:
        made_at = time.time()
        for mid, cols in result["batch"].items():
            self._buffers[mid].add(cols, result["weights_seq_no"], made_at)
            self._module_frames_sampled[mid] += len(next(iter(cols.values())))
        self._frames_sampled += result["frames"]
        self._episodes += len(result["episodes"])
        self._deals += result.get("deals", 0)
        self._recent_returns.extend(result["episodes"])
        self._lags.append(self._weights_seq_no - result["weights_seq_no"])
        pruning = result.get("pruning")
        if pruning:
            self._prune_counts[0] += pruning[0]
            self._prune_counts[1] += pruning[1]
        if result.get("target_baselines"):  # the newest runner's word per seat (runners agree to a few hundredths)
            self._target_baselines.update(result["target_baselines"])
        coach = result.get("coach")
        if coach:
            self._coach_counts[0] += coach[0]
            self._coach_counts[1] += coach[1]

    # ---- play ------------------------------------------------------------------------------------
    def q_modules(self) -> dict:
        """CPU copies of the learner's current Q-networks, keyed by env agent (works with local, remote and
        GPU learners); e.g. for :class:`~cardrl.agents.q_agent.QAgent`."""
        multi = self.config.get_multi_rl_module_spec(inference_only=True).build()
        state = self.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                             inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
        multi.set_state(state)
        multi.foreach_module(lambda mid, m: m.eval())
        return {agent: multi[self.config.policy_mapping_fn(agent, None)] for agent in self.config.game_agents}

    def scorer(self):
        """``score(agent, obs, actions, blocks=None)`` over the current Q-networks (CPU copies), for
        :func:`cardrl.eval.lockstep.evaluate_scorer`; ``blocks`` are the input blocks of the positions (absent: zeros,
        the deployable agent). How the trained agent plays (its pruning, its oracle block): :meth:`play_options`."""
        from cardrl.algorithms.dmc.dmc_env_runner import score_legal_moves

        modules = self.q_modules()
        return lambda agent, obs, actions, blocks=None: score_legal_moves(modules[agent], obs, actions, blocks)

    def play_options(self):
        """The training options that change how the agent plays, at the frames trained so far (ODMC's pruning, the
        oracle schedule): :class:`~cardrl.algorithms.dmc.evaluation.PlayOptions`."""
        from cardrl.algorithms.dmc.evaluation import PlayOptions

        return PlayOptions.of_config(self.config, self._frames_trained)

    # ---- checkpoints: RLlib saves the learner and runner states; these counters ride along ------------
    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = super().get_state(components, not_components=not_components, **kwargs)
        state["dmc_counters"] = self._counters_state()
        state["dmc_run"] = dict(self.run_info)
        return state

    def _counters_state(self) -> dict:
        return {"frames_trained": self._frames_trained, "frames_sampled": self._frames_sampled,
                "episodes": self._episodes, "deals": self._deals, "weights_seq_no": self._weights_seq_no,
                "env_runner_restarts": self._env_runner_restarts, "env_runner_samples_lost": self._samples_lost,
                "play_options": self.play_options().to_dict(), **self._identity()}

    def save_to_path(self, path=None, *args, **kwargs) -> str:
        """RLlib's checkpoint, then its completion marker ``cardrl_checkpoint.json`` (every file with its size:
        :func:`~cardrl.algorithms.dmc.checkpoints.write_manifest`). An old marker is removed first, so a directory
        written over and cut short has none. (Local paths only: a ``filesystem`` argument skips the marker.)"""
        from pathlib import Path

        from cardrl.algorithms.dmc.checkpoints import MANIFEST, write_manifest

        local = _local_path(path, kwargs)  # path None: RLlib writes to a local temporary directory
        if local and path is not None and (Path(path) / MANIFEST).is_file():
            (Path(path) / MANIFEST).unlink()
        out = super().save_to_path(path, *args, **kwargs)
        if local:
            write_manifest(out, {**self._counters_state(), "training_iteration": self.iteration})
        return out

    def _identity(self) -> dict:
        """What a checkpoint must agree on to be restored into this algorithm."""
        cfg = self.config
        return {"game": cfg.game_spec.env_name, "q_model": cfg.q_model, "opponent_model": cfg.opponent_model,
                "features": (cfg.env_config or {}).get("features") or cfg.game_spec.default_features,
                "oracle": cfg.oracle is not None, "coach": bool(cfg.coach),
                "module_mapping": cfg.resolved_module_mapping(),
                **({"coach_input": cfg.coach_input} if cfg.coach else {}),
                "hidden_sizes": list(cfg.hidden_sizes) if cfg.hidden_sizes else None,
                "kickers": dict(cfg.env_config or {}).get("kickers", "douzero")}

    def _check_identity(self, counters: dict | None, where: str) -> None:
        if not counters:
            raise ValueError(f"{where} is not a cardrl DMC checkpoint (it has no DMC state)")
        # keys older checkpoints lack had one value then: no opponent model, oracle or coach, the game's features,
        # the game's module mapping whatever the features, the coach reading card kinds
        older = {"opponent_model": None, "oracle": False, "coach": False,
                 "features": self.config.game_spec.default_features,
                 "module_mapping": self.config.game_spec.module_mapping, "coach_input": "kinds"}
        diffs = [f"{k}: checkpoint has {counters.get(k, older.get(k))!r}, this config has {v!r}"
                 for k, v in self._identity().items() if counters.get(k, older.get(k)) != v]
        if diffs:
            raise ValueError(f"{where} does not match this DMC config (" + "; ".join(diffs) + ")")

    def restore_from_path(self, path, *args, **kwargs):
        """Restore a checkpoint, after checking it is a DMC checkpoint of the same game and network."""
        if kwargs.get("component") is None:
            if _local_path(path, kwargs):
                from cardrl.algorithms.dmc.checkpoints import verify_checkpoint

                verify_checkpoint(path)  # a checkpoint whose write was cut short is refused, naming what is missing
            self._check_identity(read_checkpoint_counters(path), f"checkpoint {path}")
        return super().restore_from_path(path, *args, **kwargs)

    def set_state(self, state) -> None:
        counters = state.get("dmc_counters")
        if counters is not None:
            self._check_identity(counters, "the given state")
        super().set_state(state)
        if counters:
            self._frames_trained = counters["frames_trained"]
            self._frames_sampled = counters["frames_sampled"]
            self._episodes = counters["episodes"]
            self._deals = counters.get("deals", 0)
            self._weights_seq_no = counters["weights_seq_no"]
            self._env_runner_restarts = counters.get("env_runner_restarts", 0)
            self._samples_lost = counters.get("env_runner_samples_lost", 0)
            self._weights_ref = None
            self._counted_from = (self._frames_trained, self._episodes)
            self._start = time.time()
            self._reseed_runners()
        if "dmc_run" in state:
            self.run_info = dict(state["dmc_run"] or {})

    # ---- one iteration ---------------------------------------------------------------------------
    def training_step(self) -> None:
        """Update every module whose buffer holds a batch, as soon as it does (DouZero's per-position learners),
        on its newest ``frames_per_update`` frames; sample until one does."""
        cfg = self.config
        updates = 0
        while updates < cfg.updates_per_iteration:
            ready = [m for m in self._module_ids if len(self._buffers[m]) >= self._batch_sizes[m]]
            if not ready:
                for result in self._collect():
                    self._ingest(result)
                continue
            taken = {m: self._buffers[m].take(self._batch_sizes[m], self._weights_seq_no) for m in ready}
            frames = sum(self._batch_sizes[m] for m in ready if m != COACH)  # the coach's rows are games
            batch = MultiAgentBatch({m: SampleBatch(t.columns) for m, t in taken.items()}, env_steps=frames)
            learner_results = self.learner_group.update(
                batch=batch, timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: self._frames_sampled})
            self.metrics.aggregate(learner_results, key=LEARNER_RESULTS)
            self._frames_trained += frames
            for m, t in taken.items():
                self._module_updates[m] += 1
                if m != COACH:
                    self._ages.append((t.age_updates, t.age_seconds))
            self._weights_seq_no += 1
            self._weights_ref = None
            updates += frames > 0  # a coach-only update does not count as one of the iteration's updates
        elapsed = max(time.time() - self._start, 1e-9)
        self.metrics.log_value("frames_trained", self._frames_trained, reduce=None, window=1)
        self.metrics.log_value("frames_sampled", self._frames_sampled, reduce=None, window=1)
        self.metrics.log_value("episodes", self._episodes, reduce=None, window=1)
        self.metrics.log_value("deals", self._deals, reduce=None, window=1)
        self.metrics.log_value("frames_trained_per_s", (self._frames_trained - self._counted_from[0]) / elapsed,
                               reduce=None, window=1)
        self.metrics.log_value("episodes_per_s", (self._episodes - self._counted_from[1]) / elapsed, reduce=None,
                               window=1)
        if self.env_runner_group.num_remote_env_runners():
            self.metrics.log_value("env_runner_restarts", self._env_runner_restarts, reduce=None, window=1)
            self.metrics.log_value("env_runner_samples_lost", self._samples_lost, reduce=None, window=1)
            self.metrics.log_value("env_runners_healthy", self.env_runner_group.num_healthy_remote_env_runners(),
                                   reduce=None, window=1)
        if self._prune_counts[0]:
            ratio = 1.0 - self._prune_counts[1] / self._prune_counts[0]
            self.metrics.log_value("pruning_ratio", ratio, reduce=None, window=1)
        for name, value in self.config.schedule_values(self._frames_trained).items():
            if name == "oracle_lambda" and self.config.oracle is not None or name == "coach_beta" and self.config.coach:
                self.metrics.log_value(name, value, reduce=None, window=1)
        for agent, value in self._target_baselines.items():
            self.metrics.log_value(f"target_baseline_{agent}", value, reduce=None, window=1)
        if self.config.coach and sum(self._coach_counts):
            self.metrics.log_value("coach_rejection_rate", self._coach_counts[0] / sum(self._coach_counts),
                                   reduce=None, window=1)
            self.metrics.log_value("coach_deals_rejected", self._coach_counts[0], reduce=None, window=1)
        if self._lags:
            self.metrics.log_value("weight_lag", float(np.mean(self._lags)), reduce=None, window=1)
        if self._ages:
            ages = np.array(self._ages)
            self.metrics.log_value("data_age_updates", float(ages[:, 0].mean()), reduce=None, window=1)
            self.metrics.log_value("data_age_s", float(ages[:, 1].mean()), reduce=None, window=1)
        self.metrics.log_value("frames_dropped", sum(b.dropped for b in self._buffers.values()), reduce=None,
                               window=1)
        self.metrics.log_value("buffer_frames", sum(len(b) for b in self._buffers.values()), reduce=None, window=1)
        self.metrics.log_value("buffer_mb", sum(b.nbytes for b in self._buffers.values()) / 2**20, reduce=None,
                               window=1)
        for m, count in self._module_updates.items():
            self.metrics.log_value(("module_updates", m), count, reduce=None, window=1)
            self.metrics.log_value(("module_frames_sampled", m), self._module_frames_sampled[m], reduce=None,
                                   window=1)
        if self._recent_returns:
            for agent in self._recent_returns[0]:
                mean = float(np.mean([r[agent] for r in self._recent_returns]))
                self.metrics.log_value((ENV_RUNNER_RESULTS, "mean_return", agent), mean, reduce=None, window=1)
