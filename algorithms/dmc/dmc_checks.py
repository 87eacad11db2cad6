"""What :meth:`DMCConfig.validate <cardrl.algorithms.dmc.dmc_config.DMCConfig.validate>` checks: first every option
against the bounds and choices its :class:`~cardrl.algorithms.dmc.settings.DMCSettings` field declares (the command
line's checks: :func:`~cardrl.algorithms.training.settings.option_problems`), then, once each option is within them,
one small function per option that goes with others or with the game, each returning what is wrong with a config (an
empty list: nothing). :data:`CHECKS` lists them in the order their messages are reported.

Options that go with another one (``om_*`` with ``opponent_model``, ``prune_*`` with ``prune``, ``coach_*`` with
``coach``) are refused when set without it: a user who sets them expects an effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from cardrl.algorithms.common.game_defaults import shared_network_features
from cardrl.algorithms.common.policy_mapping import MAPPINGS
from cardrl.algorithms.dmc.coach import coach_encoders
from cardrl.algorithms.dmc.fixed_opponent import fixed_opponent_problems
from cardrl.algorithms.dmc.settings import DMCSettings
from cardrl.algorithms.training.settings import field_default, option_problems
from cardrl.games.registry import game_names, get_game

__all__ = ["CHECKS", "config_problems", "any_set"]


def _problem(wrong: bool, message: str) -> list[str]:
    """``[message]`` when ``wrong``, else no problem."""
    return [message] if wrong else []


def _features(config):
    return config.game_spec.make_features((config.env_config or {}).get("features"))


def any_set(config, *names: str) -> bool:
    """Whether any of these DMCSettings options differs from its default (set by the user)."""
    defaults = {f.name: field_default(f) for f in fields(DMCSettings) if f.name in names}
    return any(getattr(config, name) != defaults[name] for name in names)


def option_bounds(config) -> list[str]:
    """Each DMC option against the bounds and choices its DMCSettings field declares."""
    return option_problems(config, DMCSettings)


def learner_slices(config) -> list[str]:
    """RLlib shards each module's batch into num_learners slices of ceil(n / num_learners) rows and averages the
    learners' gradients (torch DDP): that is the gradient of the whole batch's mean loss only when the slices are
    equally long (docs/operations.md, "Several learners")."""
    if config.num_learners <= 1:
        return []
    sizes = {"frames_per_update": config.frames_per_update, **({"coach_batch": config.coach_batch}
                                                               if config.coach else {})}
    if config.bidding:
        sizes["bid_frames_per_update"] = config.module_batch_size("bid_0")  # its value or its default
    return [f"{name}={value} must be a multiple of num_learners={config.num_learners}: each learner updates on an "
            f"equal slice of every batch" for name, value in sizes.items()
            if isinstance(value, int) and value % config.num_learners]


def module_mapping(config) -> list[str]:
    """A mapping given beside a policy_mapping_fn of the user's own, a policy mapping that does not follow the
    features, or one shared network over features whose state has another size for some seat."""
    if config.policy_mapping_fn not in MAPPINGS.values():
        return [] if config.module_mapping is None else [
            f"module_mapping={config.module_mapping!r} and a policy_mapping_fn of your own are both given; give one"]
    mapping = config.resolved_module_mapping()
    if config.policy_mapping_fn is not MAPPINGS[mapping]:
        return [f"policy_mapping_fn does not follow module_mapping={mapping!r}: set the features with "
                f".game(name, features=...) or .environment(env_config=...)"]
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
    if config.q_model != "douzero_lstm":
        return []
    features = _features(config)
    if features.history_shape is None:
        return [f"q_model='douzero_lstm' needs move-history features; {config.game_spec.name}'s {features.name} "
                f"features have none: use q_model='mlp'"]
    return []


def opponent_model(config) -> list[str]:
    """The opponent model must read the features (and, for Luo & Tan's, the game needs Minimum Combination Search)."""
    if config.opponent_model is None:
        if any_set(config, "om_loss_weight", "om_card_weight", "om_k_weight", "om_grad_clip"):
            return ["om_loss_weight/om_card_weight/om_k_weight/om_grad_clip are set but opponent_model is None: set "
                    "opponent_model='luo_tan' or 'douzero_plus'"]
        return []
    spec, features, model = config.game_spec, _features(config), config.opponent_model
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


def buffer_frames(config) -> list[str]:
    """A buffer that holds one batch."""
    if config.buffer_frames is not None and config.buffer_frames < config.frames_per_update:
        return [f"buffer_frames={config.buffer_frames!r} must be an int >= frames_per_update "
                f"({config.frames_per_update}): a module's buffer must hold one batch"]
    return []


def bidding(config) -> list[str]:
    """The whole game (bidding.py): DouDiZhu's, and the options that do not compose with it refused."""
    from cardrl.algorithms.dmc.bidding import bidding_problems

    return bidding_problems(config)


def prune(config) -> list[str]:
    """ODMC (Luo & Tan 2024, eq. 2): a game with Minimum Combination Search and a valid slack."""
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


def target_baseline(config) -> list[str]:
    """Centred targets (centering.py) leave the game's reward range, to which q_clip clips Q."""
    if config.target_baseline is not None and config.q_clip is not None:
        return [f"target_baseline={config.target_baseline!r} centres the targets, but q_clip={config.q_clip!r} clips "
                f"Q to the game's reward range, which centred targets leave: use one of them"]
    return []


def target_baseline_rate(config) -> list[str]:
    if config.target_baseline is None and any_set(config, "target_baseline_rate"):
        return ["target_baseline_rate is set but target_baseline is not"]
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
    if config.oracle is None and config.oracle_mode != "scale":
        return ["oracle_mode is set but oracle is None: give oracle='START:END:FRAMES'"]
    return []


def coach(config) -> list[str]:
    """DouZero+'s coach: a game it can read, and its beta schedule."""
    if not config.coach:
        if any_set(config, "coach_beta", "coach_step_frames", "coach_lr", "coach_batch", "coach_input"):
            return ["coach_beta/coach_step_frames/coach_lr/coach_batch/coach_input are set but coach is False"]
        return []
    spec, errors = config.game_spec, []
    if spec.name not in coach_encoders():
        errors.append(f"coach=True needs a game with a coach encoder (coach_games.json in cardrl.algorithms.dmc); "
                      f"{spec.name} has none")
    return errors + list(config.beta_schedule().problems())


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


def gpu_inference(config) -> list[str]:
    """The env runners' Q-modules on a GPU (DMCEnvRunner): a GPU for the runners' shares (reserved when the
    algorithm is built: :meth:`~cardrl.algorithms.dmc.dmc_config.DMCConfigBase.reserve_runner_gpus`)."""
    if not config.gpu_inference:
        return []
    from cardrl.algorithms.dmc.dmc_env_runner import gpu_inference_problems

    return gpu_inference_problems(config)


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


# after option_bounds, which the others assume passed (each option within its declared bounds)
CHECKS: tuple[Callable, ...] = (
    option_bounds, learner_slices, module_mapping, q_model, opponent_model, buffer_frames, bidding, prune,
    target_baseline, target_baseline_rate, admc_without_q_clip, oracle, oracle_mode, coach, deterministic,
    gpu_inference, learner_gpus, fixed_opponent_problems)


def config_problems(config) -> list[str]:
    """Every problem of a DMC config, in the order of :data:`CHECKS`: the options outside their declared bounds, else
    (the other checks assume them within) the problems of options together."""
    return option_bounds(config) or [problem for check in CHECKS[1:] for problem in check(config)]
