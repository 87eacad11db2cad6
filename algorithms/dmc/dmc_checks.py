"""What :meth:`DMCConfig.validate <cardrl.algorithms.dmc.dmc_config.DMCConfig.validate>` checks: one small function per
option (or per group of options that only mean something together), each returning what is wrong with a config (an
empty list: nothing). :data:`CHECKS` lists them in the order their messages are reported.

Options that go with another one (``om_*`` with ``opponent_model``, ``prune_*`` with ``prune``, ``coach_*`` with
``coach``) are refused when set without it: a user who sets them expects an effect.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields

from cardrl.algorithms.common.game_defaults import shared_network_features
from cardrl.algorithms.common.policy_mapping import MAPPINGS
from cardrl.algorithms.dmc.coach import coach_encoders
from cardrl.algorithms.dmc.centering import TARGET_BASELINES
from cardrl.algorithms.dmc.settings import (COACH_INPUTS, OM_GRAD_CLIPS, OPPONENT_MODELS, OPTIMIZERS, Q_MODELS,
                                            DMCSettings, field_default)
from cardrl.games.registry import game_names, get_game

__all__ = ["CHECKS", "config_problems", "any_set"]


def _number(value) -> bool:
    """An int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _problem(wrong: bool, message: str) -> list[str]:
    """``[message]`` when ``wrong``, else no problem."""
    return [message] if wrong else []


def _features(config):
    return config.game_spec.make_features((config.env_config or {}).get("features"))


def any_set(config, *names: str) -> bool:
    """Whether any of these DMCSettings options differs from its default (set by the user)."""
    defaults = {f.name: field_default(f) for f in fields(DMCSettings) if f.name in names}
    return any(getattr(config, name) != defaults[name] for name in names)


def learner_slices(config) -> list[str]:
    """RLlib shards each module's batch into num_learners slices of ceil(n / num_learners) rows and averages the
    learners' gradients (torch DDP): that is the gradient of the whole batch's mean loss only when the slices are
    equally long (docs/operations.md, "Several learners")."""
    if config.num_learners <= 1:
        return []
    sizes = {"frames_per_update": config.frames_per_update, **({"coach_batch": config.coach_batch}
                                                               if config.coach else {})}
    if config.bidding is True and _positive_int(config.frames_per_update):
        sizes["bid_frames_per_update"] = config.module_batch_size("bid_0")  # its value or its default
    return [f"{name}={value} must be a multiple of num_learners={config.num_learners}: each learner updates on an "
            f"equal slice of every batch" for name, value in sizes.items()
            if isinstance(value, int) and value % config.num_learners]


def optimizer(config) -> list[str]:
    return _problem(config.optimizer not in OPTIMIZERS,
                    f"optimizer={config.optimizer!r} is unknown; allowed: {', '.join(map(repr, OPTIMIZERS))}")


def module_mapping(config) -> list[str]:
    """An unknown value, one given beside a policy_mapping_fn of the user's own, or one shared network over features
    whose state has another size for some seat. An unfrozen config whose features changed after ``.game()`` (e.g.
    through ``.environment()``) gets the policy mapping of its features here."""
    if config.module_mapping not in (None, *MAPPINGS):
        return [f"module_mapping={config.module_mapping!r} is unknown; allowed: None (the game's default for the "
                f"features), {', '.join(map(repr, MAPPINGS))}"]
    if config.policy_mapping_fn not in MAPPINGS.values():
        return [] if config.module_mapping is None else [
            f"module_mapping={config.module_mapping!r} and a policy_mapping_fn of your own are both given; give one"]
    mapping = config.resolved_module_mapping()
    if config.policy_mapping_fn is not MAPPINGS[mapping]:
        if config._is_frozen:
            return [f"policy_mapping_fn does not follow module_mapping={mapping!r}: set the features with "
                    f".game(name, features=...) before the config is frozen"]
        config.policy_mapping_fn = MAPPINGS[mapping]
    if mapping == "shared":
        return _shared_network_problems(config)
    return []


def _shared_network_problems(config) -> list[str]:
    spec, features = config.game_spec, _features(config)
    sizes = {agent: features.state_dim(agent) for agent in spec.agents}
    if len(set(sizes.values())) <= 1:
        return []
    fitting = shared_network_features(spec)
    return [f"module_mapping='shared' needs features with one state size for every seat, so that one network plays "
            f"them all; {spec.name}'s {features.name} features have {sizes}: use module_mapping='per_agent'"
            + (f" or features={fitting[0]!r}" if fitting else "")]


def q_model(config) -> list[str]:
    if config.q_model not in Q_MODELS:
        return [f"q_model {config.q_model!r} is unknown; available: {Q_MODELS}"]
    if config.q_model != "douzero_lstm":
        return []
    features = _features(config)
    if features.history_shape is None:
        return [f"q_model='douzero_lstm' needs move-history features; {config.game_spec.name}'s {features.name} "
                f"features have none: use q_model='mlp'"]
    return []


def opponent_model(config) -> list[str]:
    """The opponent model must read the features (and, for Luo & Tan's, the game needs Minimum Combination Search);
    its weights are numbers >= 0."""
    if config.opponent_model is None:
        if any_set(config, "om_loss_weight", "om_card_weight", "om_k_weight", "om_grad_clip"):
            return ["om_loss_weight/om_card_weight/om_k_weight/om_grad_clip are set but opponent_model is None: set "
                    "opponent_model='luo_tan' or 'douzero_plus'"]
        return []
    errors = _opponent_model_fits(config)
    errors += [f"{name}={getattr(config, name)!r} must be a number >= 0"
               for name in ("om_loss_weight", "om_card_weight", "om_k_weight")
               if not _number(getattr(config, name)) or getattr(config, name) < 0]
    if config.om_grad_clip not in OM_GRAD_CLIPS:
        errors.append(f"om_grad_clip={config.om_grad_clip!r} is unknown; allowed: "
                      f"{', '.join(map(repr, OM_GRAD_CLIPS))}")
    return errors


def _opponent_model_fits(config) -> list[str]:
    spec, features, model = config.game_spec, _features(config), config.opponent_model
    if model not in OPPONENT_MODELS:
        return [f"opponent_model={model!r} is unknown; allowed: None, {', '.join(map(repr, OPPONENT_MODELS))}"]
    if model not in features.opponent_models:
        fits = {name: [fname for fname in get_game(name).features
                       if model in get_game(name).make_features(fname).opponent_models] for name in game_names()}
        return [f"opponent_model={model!r} does not read {spec.name}'s {features.name} features; it reads, by game, "
                f"the features (--features): "
                + "; ".join(f"{name}: {', '.join(fnames)}" for name, fnames in fits.items() if fnames)]
    if model == "luo_tan" and spec.search is None:
        return [f"opponent_model='luo_tan' learns every other player's minimum combination K: {spec.name} has no "
                f"Minimum Combination Search"]
    return []


def epsilon(config) -> list[str]:
    return _problem(not 0.0 <= config.epsilon <= 1.0, f"epsilon={config.epsilon} must lie in [0, 1]")


def learner_numbers(config) -> list[str]:
    """The optimizer's numbers (a finite learning rate, eps and gradient clip above 0; RMSprop's alpha in [0, 1)), the
    hidden layer sizes and the updates per iteration."""
    out = []
    for name in ("lr", "rmsprop_eps", "grad_clip"):
        value = getattr(config, name)
        out += _problem(not (_number(value) and math.isfinite(value) and value > 0) and not
                        (name == "grad_clip" and value is None), f"{name}={value!r} must be a finite number > 0")
    alpha = config.rmsprop_alpha
    out += _problem(not (_number(alpha) and 0 <= alpha < 1), f"rmsprop_alpha={alpha!r} must lie in [0, 1)")
    for name in ("hidden_sizes", "bid_hidden_sizes"):
        sizes = getattr(config, name)
        out += _problem(sizes is not None and not (len(sizes) and all(_positive_int(s) for s in sizes)),
                        f"{name}={sizes!r} must be ints >= 1, one per hidden layer")
    return out + _problem(not _positive_int(config.updates_per_iteration),
                          f"updates_per_iteration={config.updates_per_iteration!r} must be an int >= 1")


def frames_per_update(config) -> list[str]:
    """A batch of at least one frame, and a buffer that holds one."""
    if config.frames_per_update < 1:
        return [f"frames_per_update={config.frames_per_update} must be >= 1"]
    if config.buffer_frames is not None and not (isinstance(config.buffer_frames, int)
                                                 and config.buffer_frames >= config.frames_per_update):
        return [f"buffer_frames={config.buffer_frames!r} must be an int >= frames_per_update "
                f"({config.frames_per_update}): a module's buffer must hold one batch"]
    return []


def bidding(config) -> list[str]:
    """The whole game (bidding.py): DouDiZhu's, and the options that do not compose with it refused."""
    from cardrl.algorithms.dmc.bidding import bidding_problems

    return bidding_problems(config)


def prune(config) -> list[str]:
    """ODMC (Luo & Tan 2024, eq. 2): a game with Minimum Combination Search and a valid slack."""
    if config.prune not in (None, "mcs"):
        return [f"prune={config.prune!r} is unknown; allowed: None (plain DMC) or 'mcs' (ODMC)"]
    if config.prune is None:
        if config.prune_slack != "paper" or config.prune_extra:
            return ["prune_slack/prune_extra are set but prune is None: set prune='mcs' to prune"]
        return []
    from cardrl.search.prune import check_slack

    errors = []
    if config.game_spec.search is None:
        errors.append(f"prune='mcs' needs a game with Minimum Combination Search "
                      f"({[g for g in game_names() if get_game(g).search is not None]}), not "
                      f"{config.game_spec.name!r}")
    try:
        check_slack(config.prune_slack, config.prune_extra)
    except ValueError as e:
        errors.append(str(e))
    return errors


def q_clip(config) -> list[str]:
    return _problem(config.q_clip not in (None, "admc", "range"), f"q_clip={config.q_clip!r} is unknown; allowed: "
                    f"None, 'admc' (OADMCDou eq. 2-5), 'range' (eq. 4 alone)")


def admc_numbers(config) -> list[str]:
    """ADMC's gamma and Q floor (OADMCDou eq. 2-3): numbers > 0, gamma < 1."""
    errors = [f"{name}={value!r} must be a number > 0"
              for name, value in (("admc_gamma", config.admc_gamma), ("admc_q_floor", config.admc_q_floor))
              if not _number(value) or not value > 0]
    if _number(config.admc_gamma) and config.admc_gamma >= 1:
        errors.append(f"admc_gamma={config.admc_gamma!r} must be < 1: the clip keeps Q/Q_old in [1 - gamma, "
                      f"1 + gamma], which must not reach 0")
    return errors


def target_baseline(config) -> list[str]:
    """Centred targets (centering.py) leave the game's reward range, to which q_clip clips Q."""
    if config.target_baseline not in (None, *TARGET_BASELINES):
        return [f"target_baseline={config.target_baseline!r} is unknown; allowed: None, "
                + ", ".join(repr(b) for b in TARGET_BASELINES)]
    if config.target_baseline is not None and config.q_clip is not None:
        return [f"target_baseline={config.target_baseline!r} centres the targets, but q_clip={config.q_clip!r} clips "
                f"Q to the game's reward range, which centred targets leave: use one of them"]
    return []


def target_baseline_rate(config) -> list[str]:
    if config.target_baseline is None and any_set(config, "target_baseline_rate"):
        return ["target_baseline_rate is set but target_baseline is not"]
    rate = config.target_baseline_rate
    if not (_number(rate) and 0 < rate <= 1):
        return [f"target_baseline_rate={rate!r} must be a number in (0, 1]"]
    return []


def admc_without_q_clip(config) -> list[str]:
    return _problem(config.q_clip != "admc" and (config.admc_gamma, config.admc_q_floor) != (0.2, 1.0),
                    "admc_gamma/admc_q_floor are set but q_clip is not 'admc'")


def oracle(config) -> list[str]:
    """Oracle guiding (OADMCDou eq. 1): a schedule, parsed by ``training()`` from 'START:END:FRAMES'."""
    from cardrl.algorithms.dmc.schedules import OracleSchedule

    if config.oracle is None:
        return []
    if not isinstance(config.oracle, OracleSchedule):
        return [f"oracle={config.oracle!r} must be None, an OracleSchedule or 'START:END:FRAMES'"]
    return list(config.oracle.problems())


def oracle_mode(config) -> list[str]:
    if config.oracle_mode not in ("scale", "bernoulli"):
        return [f"oracle_mode={config.oracle_mode!r} is unknown; allowed: 'scale', 'bernoulli'"]
    if config.oracle is None and config.oracle_mode != "scale":
        return ["oracle_mode is set but oracle is None: give oracle='START:END:FRAMES'"]
    return []


def coach(config) -> list[str]:
    """DouZero+'s coach: a game it can read, its beta schedule, batch, step, learning rate and card ids."""
    if not config.coach:
        if any_set(config, "coach_beta", "coach_step_frames", "coach_lr", "coach_batch", "coach_input"):
            return ["coach_beta/coach_step_frames/coach_lr/coach_batch/coach_input are set but coach is False"]
        return []
    spec, errors = config.game_spec, []
    if spec.name not in coach_encoders():
        errors.append(f"coach=True needs a game with a coach encoder (coach_games.json in cardrl.algorithms.dmc); "
                      f"{spec.name} has none")
    errors += config.beta_schedule().problems()
    errors += [f"{name}={getattr(config, name)!r} must be a positive int"
               for name in ("coach_batch", "coach_step_frames") if not _positive_int(getattr(config, name))]
    if not _number(config.coach_lr) or not config.coach_lr > 0:
        errors.append(f"coach_lr={config.coach_lr!r} must be a number > 0")
    if config.coach_input not in COACH_INPUTS:
        errors.append(f"coach_input={config.coach_input!r} is unknown; allowed: {', '.join(map(repr, COACH_INPUTS))}")
    return errors


def driver_sample_frames(config) -> list[str]:
    return _problem(config.driver_sample_frames < 0, f"driver_sample_frames={config.driver_sample_frames} must be "
                    f">= 0 (0: the driver does not sample)")


def deterministic(config) -> list[str]:
    """A deterministic run needs a seed, and the driver samples nothing (its samples would fall wherever a remote one
    is late): a driver_sample_frames set by the user is refused (its default is not used)."""
    if not config.deterministic:
        return []
    problems = _problem(config.seed is None, "deterministic=True fixes a run by its seed, but seed is None: give "
                                             "one (.debugging(seed=N); cardrl train --seed N)")
    if any_set(config, "driver_sample_frames") and config.driver_sample_frames != 0:
        problems.append(f"driver_sample_frames={config.driver_sample_frames} with deterministic=True: a deterministic "
                        f"run samples on the env runners only (the driver's samples would fall wherever a remote "
                        f"one is late); drop it, or give 0")
    return problems


def actor_precision(config) -> list[str]:
    return _problem(config.actor_precision not in ("float32", "bfloat16"),
                    f"actor_precision={config.actor_precision!r} is unknown; allowed: 'float32', 'bfloat16'")


def gpu_inference(config) -> list[str]:
    """The env runners' Q-modules on a GPU (DMCEnvRunner): a GPU for the runners' shares (reserved when the
    algorithm is built: :meth:`~cardrl.algorithms.dmc.dmc_config.DMCConfigBase.reserve_runner_gpus`)."""
    if not config.gpu_inference:
        return []
    from cardrl.algorithms.dmc.dmc_env_runner import gpu_inference_problems

    return gpu_inference_problems(config)


def num_envs_per_env_runner(config) -> list[str]:
    return _problem(config.num_envs_per_env_runner < 1,
                    f"num_envs_per_env_runner={config.num_envs_per_env_runner} must be >= 1")


def learner_gpus(config) -> list[str]:
    if config.num_gpus_per_learner <= 0:
        return []
    import torch

    have = torch.cuda.device_count()
    learners = max(1, config.num_learners)
    need = learners * config.num_gpus_per_learner
    if need > have:
        return [f"{learners} learner(s) x {config.num_gpus_per_learner} GPU need {need} GPU(s), but this machine has "
                f"{have}; use num_gpus_per_learner=0 for CPU"]
    return []


CHECKS: tuple[Callable, ...] = (
    learner_slices, optimizer, module_mapping, q_model, opponent_model, epsilon, learner_numbers, frames_per_update,
    bidding, prune, q_clip, admc_numbers, target_baseline, target_baseline_rate, admc_without_q_clip, oracle,
    oracle_mode, coach, driver_sample_frames, deterministic, actor_precision, gpu_inference, num_envs_per_env_runner,
    learner_gpus)


def config_problems(config) -> list[str]:
    """Every problem of a DMC config, in the order of :data:`CHECKS`."""
    return [problem for check in CHECKS for problem in check(config)]
