"""DMC's config: :class:`DMCConfig`, RLlib's ``AlgorithmConfig`` with the options of
:class:`~cardrl.algorithms.dmc.settings.DMCSettings` (DouZero's hyperparameters and the papers' options), the game it
plays and what follows from them (the Q-networks' specs, target scales, reward bounds, schedules). Its checks are in
:mod:`~cardrl.algorithms.dmc.dmc_checks`."""

from __future__ import annotations

from ray.rllib.algorithms.algorithm_config import AlgorithmConfig, NotProvided

from cardrl.algorithms.common.config import CardGameConfig, own_training_options
from cardrl.algorithms.common.game_defaults import default_module_mapping, target_scales
from cardrl.algorithms.common.policy_mapping import MAPPINGS
from cardrl.algorithms.dmc.dmc_checks import config_problems
from cardrl.algorithms.dmc.settings import DMCSettings
from cardrl.envs import make_env
from cardrl.games.registry import game_names, get_game

__all__ = ["DMCConfigBase", "DMC_TRAINING_OPTIONS"]

# DMC's own options: the rest of DMCSettings are RLlib's (lr, grad_clip, num_envs_per_env_runner, ...). RLlib's
# training() also takes an `optimizer` (the old API stack's dict of optimizer settings); DMC's names its optimizer.
DMC_TRAINING_OPTIONS = own_training_options(DMCSettings, AlgorithmConfig, shadowed=("optimizer",))


class DMCConfigBase(CardGameConfig, AlgorithmConfig):
    """Configuration of DMC, without the algorithm class it builds (:class:`~cardrl.algorithms.dmc.dmc.DMCConfig`
    binds it, so that this module and the algorithm's do not import each other). Defaults and help of every option: :class:`~cardrl.algorithms.dmc.settings.
    DMCSettings` (DouZero's hyperparameters); per-game defaults follow from the game: the Q-network made for its
    features (registry), the module mapping and the target scales (:mod:`~cardrl.algorithms.common.game_defaults`).

    Example::

        config = (DMCConfig().game("doudizhu", reward="adp")
                  .env_runners(num_env_runners=1, num_envs_per_env_runner=32)
                  .training(q_model="douzero_lstm", frames_per_update=3200))
        algo = config.build_algo()
    """

    def __init__(self, algo_class=None):
        from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

        super().__init__(algo_class=algo_class)
        self._set_up(DMCSettings, DMCEnvRunner)
        self._q_model_chosen = False
        self.game(game_names()[0])  # until .game() names one: the first registered game (DouZero's DouDiZhu)
        self._no_minimums_per_iteration()
        # A dead env runner is restarted by Ray and handed sample requests again (DMC.restore_env_runners); RLlib's
        # default too, set here so that DMC does not depend on it. Turn off with .fault_tolerance(
        # restart_failed_env_runners=False): a runner's death then ends training with its error.
        self.restart_failed_env_runners = True
        # DMC's runners keep no connector state (no observation filters): RLlib's per-iteration merge and broadcast
        # of it would only be a blocking call to every runner, which waits behind the runner's queued sample requests
        self.merge_env_runner_states = False
        self.broadcast_env_runner_states = False

    # ---- builders ------------------------------------------------------------------------------
    def game(self, name: str = NotProvided, **env_config) -> DMCConfigBase:
        """Choose the game (a registered name, e.g. ``"doudizhu"``) and its env options (e.g. ``reward="wp"``).

        The game gives the defaults the user has not chosen: the policy mapping (one Q-network per
        DouDiZhu seat with DouZero's features, one shared network with Luo & Tan's unified features and for Big2
        and GuanDan; :meth:`resolved_module_mapping`) and the Q-network (DouZero's LSTM where the
        features have a history, else DanZero's MLP)."""
        if "bidding" in env_config:  # the whole game is DMC's option (the env runners' envs bid, bidding.py)
            self.bidding = env_config.pop("bidding")
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

    def environment(self, *args, **kwargs) -> DMCConfigBase:
        """RLlib's ``environment()``; features given here choose the policy mapping as ``.game(features=...)``
        does."""
        super().environment(*args, **kwargs)
        if self.game_name is not None:
            self._apply_module_mapping()
        return self

    def resolved_module_mapping(self) -> str:
        """``"shared"`` or ``"per_agent"``: ``module_mapping`` if set, else the game's default for the features (one
        network per DouDiZhu seat with DouZero's features; one shared network with Luo & Tan's unified features,
        whose identity and camp bits tell seats apart, and in Big2 and GuanDan)."""
        if self.module_mapping is not None:
            return self.module_mapping
        return default_module_mapping(self.game_spec, (self.env_config or {}).get("features"))

    def _apply_module_mapping(self) -> None:
        """Set ``policy_mapping_fn`` from :meth:`resolved_module_mapping` unless the user gave one of their own."""
        if self.policy_mapping_fn in MAPPINGS.values() and self.module_mapping in (None, *MAPPINGS):
            self.policy_mapping_fn = MAPPINGS[self.resolved_module_mapping()]

    def training(self, **kwargs) -> DMCConfigBase:
        """DMC's options (:class:`~cardrl.algorithms.dmc.settings.DMCSettings` lists them with their meaning) and
        RLlib's own (``lr``, ``grad_clip``, ...). ``prune="mcs"`` turns DMC into ODMC (Luo & Tan 2024, section
        4.3): the actor scores and picks only the legal moves kept by eq. 2 (``prune_slack="paper"`` is N/n + d,
        plus ``prune_extra``; a number fixes the slack). ``q_clip="admc"`` is OADMCDou's ADMC (eq. 2-5),
        ``oracle="1.0:0.0:FRAMES"`` their oracle guiding (eq. 1), ``coach=True`` DouZero+'s coach network.
        ``actor_q_clip=lambda`` is deprecated: it means ``q_clip="admc", admc_gamma=lambda``."""
        own = self._take_own(kwargs, DMC_TRAINING_OPTIONS)
        super().training(**kwargs)
        if own.get("q_model", NotProvided) is not NotProvided:
            self._q_model_chosen = own["q_model"] is not None
            if own["q_model"] is None:  # the network made for the features, as when not given
                features = self.game_spec.make_features(dict(self.env_config or {}).get("features"))
                own["q_model"] = features.default_q_model
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

    def bid_epsilon_schedule(self):
        """The bidding decisions' exploration rate by frames trained (``bid_epsilon``; AlphaDou: 0.3 to 0.03)."""
        from cardrl.algorithms.dmc.bidding import parse_bid_epsilon

        return parse_bid_epsilon(self.bid_epsilon)

    def schedule_values(self, frames_trained: int) -> dict[str, float]:
        """The scheduled values the env runners act with at ``frames_trained``: oracle lambda, coach beta, the
        bidding exploration rate."""
        return {"oracle_lambda": self.oracle.value(frames_trained) if self.oracle is not None else 0.0,
                "coach_beta": self.beta_schedule().value(frames_trained) if self.coach else 0.0,
                **({"bid_epsilon": self.bid_epsilon_schedule().value(frames_trained)} if self.bidding else {})}

    def reward_bounds(self, module_id: str) -> tuple[float, float]:
        """(r_min, r_max): the smallest and largest DMC target of a module's agents in one scoring segment (ADMC's
        reward range, OADMCDou eq. 4): the engine's payoff bounds times the agents' target scales."""
        env_ = self.make_env()
        low, high = env_.game.payoff_bounds(env_.reward)
        if self.bidding:  # the whole game: bids up to 3 and any seat may become the landlord
            from cardrl.algorithms.dmc.bidding import is_bid_module

            reach = float(self.make_env(bidding=True).game.payoff_bounds(env_.reward)[1].max())
            # a bidder's target is its final role's payoff, unscaled; in card play the landlord's 2 x base is scaled
            # to base, and a peasant's reach is base
            reach = reach if is_bid_module(module_id) else reach / 2.0
            return -reach, reach
        scales = self.target_scales()
        seats = [s for s, a in enumerate(env_.possible_agents) if self.policy_mapping_fn(a, None) == module_id]
        if not seats:
            raise ValueError(f"no agent of {self.game_name} maps to module {module_id!r}")
        bounds = [(low[s] * scales.get(env_.possible_agents[s], 1.0), high[s] * scales.get(env_.possible_agents[s],
                                                                                          1.0)) for s in seats]
        return float(min(b[0] for b in bounds)), float(max(b[1] for b in bounds))

    @property
    def game_agents(self) -> list[str]:
        return list(self.make_env().possible_agents)

    def make_env(self, **overrides):
        """A raw AEC env of the configured game and env options (what the env runners play; with ``bidding`` they
        play the env with ``bidding=True``, this one keeps the roles as agents), ``overrides`` replacing options."""
        return make_env(self.game_name, **{**dict(self.env_config or {}), **overrides})

    def buffer_capacity(self) -> int:
        """Frames each module's buffer holds at most (``buffer_frames``, default twice ``frames_per_update``)."""
        return int(self.buffer_frames) if self.buffer_frames is not None else 2 * int(self.frames_per_update)

    def module_batch_size(self, module_id: str) -> int:
        """Frames (the coach: games) per learner update of a module: ``frames_per_update``, the coach's
        ``coach_batch``, the bidding networks' ``bid_frames_per_update`` (default frames_per_update / 16, at least 32)."""
        from cardrl.algorithms.dmc.bidding import is_bid_module
        from cardrl.algorithms.dmc.coach import COACH

        if module_id == COACH:
            return int(self.coach_batch)
        if self.bidding and is_bid_module(module_id):
            return int(self.bid_frames_per_update or max(32, int(self.frames_per_update) // 16))
        return int(self.frames_per_update)

    def target_scales(self) -> dict[str, float]:
        """Factor from a seat's zero-sum payoff to its DMC target (DouDiZhu: the landlord's 2x becomes 1x)."""
        if self.target_scale is not None:
            return dict(self.target_scale)
        return target_scales(self.make_env())

    def get_default_learner_class(self):
        from cardrl.algorithms.dmc.dmc_learner import DMCTorchLearner

        return DMCTorchLearner

    def get_multi_rl_module_spec(self, *, env=None, spaces=None, inference_only=False, **kwargs):
        """One Q-network per module id (DouDiZhu: one per seat), sized from the game's features."""
        from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
        from cardrl.algorithms.dmc.q_module import RoleDims

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
        blocks = {}
        if self.oracle is not None:
            from cardrl.algorithms.dmc.oracle import ORACLE, oracle_dim

            blocks[ORACLE] = oracle_dim(env_.game.num_players)
        if self.bidding:
            from cardrl.algorithms.dmc.bidding import card_play_input_blocks

            blocks.update(card_play_input_blocks())
        if blocks:
            model_config["input_blocks"] = blocks
        spec = dmc_module_spec(self.q_model, roles, model_config, inference_only=inference_only)
        if self.bidding:  # the bidding Q-networks (bidding.py)
            from cardrl.algorithms.dmc.bidding import bid_module_specs

            spec.rl_module_specs.update(bid_module_specs(self.bid_networks, self.bid_hidden_sizes, inference_only))
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

    def reserve_runner_gpus(self) -> None:
        """With ``gpu_inference`` and no ``num_gpus_per_env_runner`` given, each env runner reserves its share of the
        GPUs (:func:`~cardrl.algorithms.dmc.dmc_env_runner.gpu_share_per_runner`), so that Ray gives it one; done
        when the algorithm is built, not by :meth:`validate` (a check changes nothing)."""
        if self.gpu_inference and not self.num_gpus_per_env_runner and not self._is_frozen:
            from cardrl.algorithms.dmc.dmc_env_runner import gpu_share_per_runner

            self.num_gpus_per_env_runner = gpu_share_per_runner(self)

    def build_algo(self, *args, **kwargs):
        """The algorithm of this config, the env runners' GPU shares reserved first (:meth:`reserve_runner_gpus`)."""
        self.reserve_runner_gpus()
        return super().build_algo(*args, **kwargs)

    def validate(self) -> None:
        """RLlib's checks, then DMC's (:mod:`~cardrl.algorithms.dmc.dmc_checks`: every option within the bounds its
        DMCSettings field declares, then the options together); one ValueError names every problem."""
        super().validate()
        errors = config_problems(self)
        if errors:
            raise ValueError("invalid DMC config: " + "; ".join(errors))
