"""``cardrl train GAME --algo dmc``: DMC's part of the run loop (:mod:`cardrl.algorithms.training.loop`).

DMC supplies what is its own (:data:`DRIVER`): its config from the command line (:func:`build_config`: DMC's flags,
:class:`~cardrl.algorithms.dmc.settings.DMCSettings`, and the run's resources), the fields and progress line of each
iteration (frames, deals or matches played, frames/s, loss per seat, weight lag, the data path's age and buffers,
the paper options' schedules, env-runner restarts) and its evaluation (:mod:`cardrl.algorithms.dmc.train_evaluation`:
an agent is evaluated the way it plays). The loop does the rest: Ray, the stop rule, periodic evaluation (by the
clock and every ``--eval-every-frames``), atomic checkpoints, ``--resume``, ``progress.jsonl``, ``config.json``,
TensorBoard and the final report.
"""

from __future__ import annotations

import math
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from cardrl.algorithms.dmc.init_weights import load_init_weights, read_init_weights
from cardrl.algorithms.dmc.train_evaluation import DMCEvaluation, evaluation_baselines, evaluations
from cardrl.algorithms.training.driver import Driver
from cardrl.algorithms.training.env_options import env_config_of
from cardrl.algorithms.training.learners import learner_resources
from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["DRIVER", "build_config", "pick_features", "features_for_opponent_model"]


def features_for_opponent_model(game: str, features: str | None, opponent_model: str | None
                                ) -> tuple[str | None, str | None]:
    """The feature encoder a ``cardrl train`` run with ``opponent_model`` uses, and a one-line note when it is not
    the one asked for (:func:`pick_features` over the game's encoders)."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    reads = {name: tuple(spec.make_features(name).opponent_models) for name in spec.features}
    return pick_features(spec.name, spec.default_features, reads, features, opponent_model)


def pick_features(game: str, default: str, reads: dict[str, tuple[str, ...]], features: str | None,
                  opponent_model: str | None) -> tuple[str | None, str | None]:
    """``(features, note)`` for a run of ``game`` whose encoders (``reads``: encoder name -> the opponent models it
    feeds) include ``default``.

    With ``features`` given, no opponent model, or a default encoder that feeds the model: ``features`` unchanged and
    no note (DMCConfig.validate judges the pair). Otherwise the one encoder of the game that feeds the model, with a
    note saying so (DouDiZhu: DouZero's features feed DouZero+'s model, the unified ones Luo & Tan's); ValueError
    naming ``--features`` and its fitting values when several do. When none does, ``features`` unchanged: the
    config's check names the games the model fits."""
    if features is not None or opponent_model is None or opponent_model in reads.get(default, ()):
        return features, None
    fitting = [name for name, models in reads.items() if opponent_model in models]
    if len(fitting) > 1:
        raise ValueError(f"--opponent-model {opponent_model} does not read {game}'s default {default} features: "
                         f"choose one with --features ({', '.join(fitting)})")
    if not fitting:
        return features, None
    return fitting[0], (f"--opponent-model {opponent_model} reads {fitting[0]} features, not {game}'s default "
                        f"{default}: training with --features {fitting[0]}")


def build_config(run_spec: RunSpec, say=print):
    """The DMCConfig of a run: DMC's settings (DMCSettings) and the run's resources.
    ``say`` prints the one-line notes about choices made for the user (the encoder an opponent model needs)."""
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.games.registry import get_game

    spec, run = get_game(run_spec.game), run_spec.run
    env_config = env_config_of(run_spec)
    features, note = features_for_opponent_model(spec.name, env_config.get("features"),
                                                 run_spec.settings.opponent_model)
    if note:
        env_config["features"] = features
        say(note)
    settings = run_spec.settings_values()
    runners = {f.name: settings.pop(f.name) for f in fields(run_spec.settings)
               if f.metadata.get("section") == "env_runners"}
    if run.num_env_runners == 0 and runners["max_requests_in_flight_per_env_runner"] > 1:
        say(f"--sample-requests-in-flight {runners['max_requests_in_flight_per_env_runner']} has no effect with "
            f"--num-env-runners 0: the driver samples itself, one request at a time")
    if settings.get("q_model") is None:
        settings.pop("q_model", None)  # the game's default
    config = (
        DMCConfig()
        .game(spec.name, **env_config)
        .env_runners(num_env_runners=run.num_env_runners, **runners)
        .training(**settings)
        .learners(**learner_resources(run))
        .debugging(seed=run.seed)
    )
    return config


# What each progress record keeps of DMC's data path (docs/architecture.md): the age of the frames each update trains
# on, the frames dropped by the bounded buffers and what they hold.
DATA_METRICS = ("data_age_updates", "data_age_s", "frames_dropped", "buffer_frames", "buffer_mb")
# the paper options' schedules and the coach's deal filter (DMC.training_step), present when the option is on
SCHEDULE_METRICS = ("oracle_lambda", "coach_beta", "coach_rejection_rate", "coach_deals_rejected")
# remote env runners: restarts by Ray, sample requests lost with a runner, runners sampling now (DMC._collect)
FAULT_METRICS = ("env_runner_restarts", "env_runner_samples_lost", "env_runners_healthy")


def _rss_mb() -> float:
    """The driver's resident memory in MB (Linux; 0 where /proc is absent)."""
    try:
        with open("/proc/self/statm") as f:
            return round(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError):
        return 0.0


def _flat(stats: dict) -> dict[str, float]:
    """A module's learner metrics as floats, leaving out those it did not log this iteration (NaN: a module is
    updated only when its own batch is ready)."""
    out = {}
    for key, value in stats.items():
        try:
            value = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(value):
            out[key] = value
    return out


def _module_metrics(result: dict, key: str) -> dict[str, float]:
    return {m: _flat(s)[key] for m, s in result.get("learners", {}).items()
            if isinstance(s, dict) and key in _flat(s)}


def _fmt_losses(result: dict) -> str:
    return ", ".join(f"{m} {v:.3f}" for m, v in sorted(_module_metrics(result, "q_loss").items())) or "-"


def _learner_device(algo) -> str:
    """Where the learner's networks are (the driver's learner: RLlib keeps it as ``_learner``)."""
    if algo.learner_group.is_local:
        import torch

        module = algo.learner_group._learner.module
        threads = torch.get_num_threads()
        return (f"{next(iter(module.values())).first_layer.weight.device} ({threads} torch "
                f"thread{'s' if threads > 1 else ''})")
    return "remote learner(s)"


def _record_fields(result: dict) -> dict[str, Any]:
    learners = result.get("learners", {})
    return {"frames_trained": int(result.get("frames_trained", 0)),
            "frames_per_s": round(result.get("frames_trained_per_s", 0), 1),
            "episodes": int(result.get("episodes", 0)), "deals": int(result.get("deals", 0)),
            "weight_lag": result.get("weight_lag"), "losses": _module_metrics(result, "q_loss"),
            "coach": {k: v for k, v in _flat(learners.get("coach", {})).items() if k.startswith("coach_")},
            "opponent_model": {m: {k: v for k, v in _flat(s).items() if k.startswith("om_")}
                               for m, s in learners.items() if isinstance(s, dict) and any(k.startswith("om_")
                                                                                         for k in s)},
            **{k: result.get(k) for k in DATA_METRICS}, "driver_rss_mb": _rss_mb()}


def _options_text(record: dict, result: dict) -> str:
    """The progress line's part for the paper options and the runners: pruning, baselines, schedules, restarts
    (their fields added to ``record``)."""
    line = ""
    if result.get("pruning_ratio") is not None:
        record["pruning_ratio"] = float(result["pruning_ratio"])
        line += f" | pruned {100 * record['pruning_ratio']:.1f}%"
    record.update({k: float(result[k]) for k in SCHEDULE_METRICS if result.get(k) is not None})
    baselines_now = {k[len("target_baseline_"):]: round(float(v), 4) for k, v in result.items()
                     if k.startswith("target_baseline_")}
    if baselines_now:
        record["target_baselines"] = baselines_now
        line += " | baselines " + " ".join(f"{a} {v:+.2f}" for a, v in baselines_now.items())
    if record.get("oracle_lambda") is not None:
        line += f" | oracle lambda {record['oracle_lambda']:.3f}"
    if record.get("coach_rejection_rate") is not None:
        line += f" | coach beta {record['coach_beta']:.2f} rejects {100 * record['coach_rejection_rate']:.1f}%"
    record.update({k: int(result[k]) for k in FAULT_METRICS if result.get(k) is not None})
    if record.get("env_runner_restarts"):
        line += (f" | runner restarts {record['env_runner_restarts']} (lost "
                 f"{record.get('env_runner_samples_lost', 0)} sample request(s))")
    return line


def progress(result: dict, run_spec: RunSpec) -> tuple[dict, str]:
    """One ``algo.train()`` result's record fields and progress line (an episode is a match or a deal)."""
    from cardrl.games.registry import get_game

    record = _record_fields(result)
    played = (f"matches {record['episodes']:,} ({record['deals']:,} deals)"
              if get_game(run_spec.game).protocol.unit == "match" else f"deals {record['episodes']:,}")
    line = (f"frames {record['frames_trained']:,} ({record['frames_per_s']:,.0f}/s) | {played} | "
            f"loss {_fmt_losses(result)} | lag {record['weight_lag'] or 0:.2f} | data age "
            f"{record['data_age_updates'] or 0:.1f} upd {record['data_age_s'] or 0:.1f}s | buffers "
            f"{record['buffer_mb'] or 0:.1f} MB")
    return record, line + _options_text(record, result)


def describe(algo: Any, config: Any, run_spec: RunSpec, out: Path) -> list[str]:
    """The lines printed before training: what trains where, and how it is evaluated when that is not plain."""
    run, settings = run_spec.run, run_spec.settings
    algo_name = "ODMC (MCS pruning)" if settings.prune else "DMC"
    lines = [f"training {algo_name} on {run_spec.game}: {run.num_env_runners} env runner(s) x "
             f"{settings.num_envs_per_env_runner} games, model {config.q_model}, learner on {_learner_device(algo)}, "
             f"run dir {out}"]
    if run.deterministic:
        lines.append(f"deterministic: sampling and updates take turns (one sample request to every env runner with "
                     f"the current weights, taken in the runners' order; no driver sampling), so --seed {run.seed} "
                     f"fixes the run; slower than the default, where they overlap")
    play = algo.play_options()
    if play.oracle is not None or play.pruned:
        lines.append(f"evaluation: {play.label()}"
                     + ("; also with the trained oracle block while lambda > 0" if play.oracle is not None else "")
                     + ("; also unpruned" if run.eval_unpruned else ""))
    return lines


def check(run_spec: RunSpec) -> None:
    run = run_spec.run
    if run.eval_unpruned and run_spec.settings.prune != "mcs":
        raise ValueError("--eval-unpruned evaluates an ODMC agent without its pruning: give --prune mcs too")
    if run.final_matches is not None:
        from cardrl.games.registry import game_names, get_game

        if get_game(run_spec.game).protocol.unit != "match":
            by_match = [name for name in game_names() if get_game(name).protocol.unit == "match"]
            raise ValueError(f"--final-matches does not apply to {run_spec.game} (one deal is a game); it applies to "
                             f"{', '.join(by_match)}")
    if run.init_weights:  # a bad source is refused before Ray starts; the shapes are checked on the built networks
        read_init_weights(run.init_weights, run_spec.game)


def _verify(path: Path) -> None:
    from cardrl.algorithms.dmc.checkpointing import verify_checkpoint

    verify_checkpoint(path)


DRIVER = Driver(
    name="dmc", title="DMC", agent_kind="checkpoint", build_config=build_config,
    describe=describe, progress=progress, evaluation=DMCEvaluation(),
    frames_trained=lambda algo: algo.frames_trained,
    check=check,
    verify_checkpoint=_verify,
    resumed_note="; its sample buffers are not saved: sampling starts afresh with reseeded env runners",
    init_weights=load_init_weights)

