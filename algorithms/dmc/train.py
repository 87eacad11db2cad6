"""``cardrl train GAME --algo dmc``: DMC training on an embedded local Ray or a cluster (``RAY_ADDRESS``).

Prints one progress line per iteration (frames, deals or matches played, frames/s, loss per seat, weight lag),
evaluates the current networks against each ``--eval-against`` baseline every ``--eval-every`` (duplicate deals,
ADP with its 95% interval, and when it first lay above 0: Luo & Tan's "time to reach ADP > 0", Tables 8-9), writes
RLlib checkpoints every ``--checkpoint-every`` and at the end (``<out>/checkpoint``), ``<out>/config.json`` (the
command line's options and the DMC config), ``<out>/progress.jsonl`` (one record per iteration and one for the final
evaluation; ``cardrl plot`` and ``cardrl report`` read it) and TensorBoard scalars in ``<out>/tb``.

An agent is evaluated the way it plays (:mod:`cardrl.algorithms.dmc.evaluation`): an ODMC agent (``--prune mcs``)
with its pruning (``--eval-unpruned`` adds the unpruned score, labelled, with how often it picks a move pruning drops);
an oracle-guided agent (``--oracle``) is scored with a zero oracle block, the deployable score that stays the headline
(``eval`` in the records), and, while the schedule's lambda is above 0, also with the block it is trained on, lambda x
the true hands (``eval_oracle``: OADMCDou's Fig. 4 curves). ``eval_label`` says what the headline fed.

Results are named as the game's evaluation protocol names them (docs/architecture.md): a game whose episode is a
deal reports ADP over deals; a game whose episode is a match (``EvalProtocol.unit == "match"``: GuanDan) counts
matches and deals, its periodic evaluation reports points per deal on single deals (DanZero's deal points), and its
final evaluation adds whole matches with the teams swapped, one seeded match per ten evaluation deals, for the match
win rate (DanZero, Lu et al. 2023, Sec. V-B; :mod:`cardrl.eval.matches`).

Surviving failures (docs/operations.md): checkpoints are written to ``<out>/checkpoint.tmp`` and swapped in by rename
(:func:`save_checkpoint`), so ``<out>/checkpoint`` (or, during the swap, ``<out>/checkpoint.prev``) is always a
complete one; ``--resume`` continues the run in ``<out>`` from it (:func:`latest_checkpoint`): counters, schedules,
elapsed time and the ADP milestones go on, ``progress.jsonl`` is appended to (records written after that checkpoint
are moved to ``progress.discarded.jsonl``), and ``--stop-time`` / ``--stop-frames`` count from the run's start.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path

CHECKPOINT, CHECKPOINT_TMP, CHECKPOINT_PREV = "checkpoint", "checkpoint.tmp", "checkpoint.prev"


def env_config_from_args(args) -> dict:
    """The env options of a ``cardrl train`` command line (``--reward``, ``--features``, ``--match-bonus``), checked
    against the game."""
    from cardrl.games.registry import game_names, get_game

    spec = get_game(args.game)
    env_config = {}
    if getattr(args, "reward", None) is not None:
        if args.reward not in spec.rewards:
            raise ValueError(f"--reward {args.reward} does not apply to {spec.name}; its rewards: "
                             f"{', '.join(spec.rewards)}")
        env_config["reward"] = args.reward
    if getattr(args, "features", None) is not None:
        spec.make_features(args.features)  # an unknown encoder fails here, naming the game's
        env_config["features"] = args.features
    if getattr(args, "match_bonus", False):
        if "match_bonus" not in spec.rule_options:
            games = [name for name in game_names() if "match_bonus" in get_game(name).rule_options]
            raise ValueError(f"--match-bonus does not apply to {spec.name} (no matches); it applies to "
                             f"{', '.join(games)}")
        env_config["match_bonus"] = True
    return env_config


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


def build_config(args, say=print):
    """The DMCConfig of a ``cardrl train`` command line: DMC's flags (DMCSettings) and the run's resources.
    ``say`` prints the one-line notes about choices made for the user (the encoder an opponent model needs)."""
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.algorithms.dmc.settings import DMCSettings, values_from_args
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    env_config = env_config_from_args(args)
    features, note = features_for_opponent_model(spec.name, env_config.get("features"),
                                                 getattr(args, "opponent_model", None))
    if note:
        env_config["features"] = features
        say(note)
    settings = values_from_args(args, DMCSettings)
    runners = {k: settings.pop(k) for k in ("num_envs_per_env_runner", "rollout_fragment_length")}
    if settings.get("q_model") is None:
        settings.pop("q_model", None)  # the game's default
    config = (
        DMCConfig()
        .game(spec.name, **env_config)
        .env_runners(num_env_runners=args.num_env_runners, **runners)
        .training(**settings)
        .learners(num_learners=args.num_learners, num_gpus_per_learner=1 if args.gpu else 0)
        .debugging(seed=args.seed)
    )
    return config


# What each progress record keeps of DMC's data path (docs/architecture.md): the age of the frames each update trains
# on, the frames dropped by the bounded buffers and what they hold.
DATA_METRICS = ("data_age_updates", "data_age_s", "frames_dropped", "buffer_frames", "buffer_mb")
# the paper options' schedules and the coach's deal filter (DMC.training_step), present when the option is on
SCHEDULE_METRICS = ("oracle_lambda", "coach_beta", "coach_rejection_rate", "coach_deals_rejected")
# remote env runners: restarts by Ray, sample requests lost with a runner, runners sampling now (DMC._collect)
FAULT_METRICS = ("env_runner_restarts", "env_runner_samples_lost", "env_runners_healthy")


def save_checkpoint(algo, out: Path) -> Path:
    """Write ``<out>/checkpoint`` atomically: into ``checkpoint.tmp`` (its completion marker last), then swapped in by
    renames, the previous one kept as ``checkpoint.prev`` until the new one is in place. A crash at any moment
    leaves a complete checkpoint under ``checkpoint`` or ``checkpoint.prev`` (:func:`latest_checkpoint`)."""
    final, tmp, prev = out / CHECKPOINT, out / CHECKPOINT_TMP, out / CHECKPOINT_PREV
    if tmp.exists():  # left by a write that was cut short
        shutil.rmtree(tmp)
    algo.save_to_path(str(tmp))
    if final.exists():
        if prev.exists():
            shutil.rmtree(prev)
        os.replace(final, prev)
    os.replace(tmp, final)
    if prev.exists():
        shutil.rmtree(prev)
    return final


def latest_checkpoint(out: Path) -> Path | None:
    """The newest complete checkpoint of a run directory: ``checkpoint``, else ``checkpoint.prev`` (a crash during
    the swap of :func:`save_checkpoint`); ``checkpoint.tmp`` is never used (its write may have been cut short).
    Incomplete ones are skipped, saying why; None when there is none."""
    from cardrl.algorithms.dmc.checkpoints import IncompleteCheckpointError, verify_checkpoint

    for name in (CHECKPOINT, CHECKPOINT_PREV):
        path = out / name
        if not path.is_dir():
            continue
        try:
            verify_checkpoint(path)
        except IncompleteCheckpointError as err:
            print(f"--resume: skipping {path}: {err}", flush=True)
            continue
        return path
    return None


def _trim_progress(out: Path, iteration: int) -> int:
    """Keep the records of ``<out>/progress.jsonl`` up to ``iteration`` (the resumed checkpoint's); the later ones
    (training lost with the driver) and a line cut short are moved to ``progress.discarded.jsonl``. Returns how many
    were moved."""
    path = out / "progress.jsonl"
    if not path.is_file():
        return 0
    kept, dropped = [], []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            dropped.append(line)
            continue
        (kept if (record.get("iteration") or 0) <= iteration else dropped).append(line)
    if dropped:
        with (out / "progress.discarded.jsonl").open("a") as f:
            f.write("".join(line + "\n" for line in dropped))
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(line + "\n" for line in kept))
        os.replace(tmp, path)
    return len(dropped)


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


def run_training(args) -> int:
    import ray

    from cardrl.algorithms.dmc.settings import DMCSettings, values_from_args
    from cardrl.algorithms.run_files import log_scalars, run_dir, tensorboard, write_config
    from cardrl.eval.lockstep import SCORE_FIELDS

    if getattr(args, "eval_unpruned", False) and getattr(args, "prune", None) != "mcs":
        raise ValueError("--eval-unpruned evaluates an ODMC agent without its pruning: give --prune mcs too")
    resume = bool(getattr(args, "resume", False))
    if resume and args.restore:
        raise ValueError("--resume continues the run in --out from its latest checkpoint, --restore starts a run from "
                         "the checkpoint it names: give one of them, not both")
    address = os.environ.get("RAY_ADDRESS")
    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
    out = run_dir(args)
    out.mkdir(parents=True, exist_ok=True)
    done_at = stop_rule(args)
    resume_from = latest_checkpoint(out) if resume else None
    if resume and resume_from is None:
        print(f"--resume: {out} has no complete checkpoint; starting a fresh run", flush=True)
    config = build_config(args)
    algo = config.build_algo()
    if args.restore:
        algo.restore_from_path(str(Path(args.restore).resolve()))
        print(f"restored from {args.restore}", flush=True)
    resumed: dict = {}
    if resume_from is not None:
        try:
            algo.restore_from_path(str(resume_from))
        except BaseException:
            algo.stop()
            raise
        resumed = dict(algo.run_info)
        moved = _trim_progress(out, algo.iteration)
        print(f"resumed from {resume_from}: iteration {algo.iteration}, frames {algo._frames_trained:,}, "
              f"{resumed.get('time_s', 0.0):,.0f}s trained"
              + (f"; {moved} progress record(s) written after it moved to progress.discarded.jsonl" if moved else "")
              + "; its sample buffers are not saved: sampling starts afresh with reseeded env runners", flush=True)
    baselines = evaluation_baselines(config, args.eval_against, args)
    write_config(out, args, config, DMCSettings, values_from_args(args, DMCSettings), agent_kind="checkpoint")
    by_match = config.game_spec.protocol.unit == "match"
    score_name = config.game_spec.protocol.score_name
    reached: dict[str, dict] = dict(resumed.get("reached") or {})  # baseline -> when its ADP interval first lay > 0
    eval_seconds = float(resumed.get("eval_time_s") or 0.0)  # of time_s, the seconds spent evaluating
    every_frames = int(getattr(args, "eval_every_frames", 0) or 0)
    next_eval_frames = (algo._frames_trained // every_frames + 1) * every_frames if every_frames else None
    last_eval = last_ckpt = time.time()
    start = last_eval - float(resumed.get("time_s") or 0.0)  # a resumed run's clock goes on
    progress = (out / "progress.jsonl").open("a")
    writer = tensorboard(out)
    device = _learner_device(algo)
    algo_name = "ODMC (MCS pruning)" if getattr(args, "prune", None) else "DMC"
    play = algo.play_options()
    print(f"training {algo_name} on {args.game}: {args.num_env_runners} env runner(s) x {args.num_envs_per_env_runner} "
          f"games, model {config.q_model}, learner on {device}, run dir {out}", flush=True)
    if play.oracle is not None or play.pruned:
        print(f"evaluation: {play.label()}"
              + ("; also with the trained oracle block while lambda > 0" if play.oracle is not None else "")
              + ("; also unpruned" if getattr(args, "eval_unpruned", False) else ""), flush=True)
    try:
        while True:
            result = algo.train()
            now = time.time()
            frames = int(result.get("frames_trained", 0))
            record = {"time_s": round(now - start, 1), "iteration": result.get("training_iteration"),
                      "frames_trained": frames, "frames_per_s": round(result.get("frames_trained_per_s", 0), 1),
                      "episodes": int(result.get("episodes", 0)), "deals": int(result.get("deals", 0)),
                      "weight_lag": result.get("weight_lag"),
                      "losses": _module_metrics(result, "q_loss"),
                      "coach": {k: v for k, v in _flat(result.get("learners", {}).get("coach", {})).items()
                                if k.startswith("coach_")},
                      "opponent_model": {m: {k: v for k, v in _flat(s).items() if k.startswith("om_")}
                                         for m, s in result.get("learners", {}).items() if isinstance(s, dict)
                                         and any(k.startswith("om_") for k in s)},
                      **{k: result.get(k) for k in DATA_METRICS}, "driver_rss_mb": _rss_mb()}
            played = (f"matches {record['episodes']:,} ({record['deals']:,} deals)" if by_match
                      else f"deals {record['episodes']:,}")  # an episode is a match or a deal
            line = (f"[{now - start:7.1f}s] iter {record['iteration']:4d} | frames {frames:,} "
                    f"({record['frames_per_s']:,.0f}/s) | {played} | "
                    f"loss {_fmt_losses(result)} | lag {record['weight_lag'] or 0:.2f} | data age "
                    f"{record['data_age_updates'] or 0:.1f} upd {record['data_age_s'] or 0:.1f}s | buffers "
                    f"{record['buffer_mb'] or 0:.1f} MB")
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
            by_clock = bool(args.eval_every) and now - last_eval >= args.eval_every
            by_frames = next_eval_frames is not None and frames >= next_eval_frames
            if by_clock or by_frames:
                if by_frames:  # the milestone this evaluation stands for (frames_trained is where it fell); an
                    # iteration that crossed several stands for the first, and the next is the first ahead of it
                    record["eval_frames"] = next_eval_frames
                    next_eval_frames = (frames // every_frames + 1) * every_frames
                began = time.time()
                record.update(evaluations(algo, baselines, args))
                eval_seconds += time.time() - began
                for spec, ev in record["eval"].items():
                    line += (f" | {score_name} vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, "
                             f"{ev['adp_high']:+.2f}]")
                    if spec == next(iter(record["eval"])) and ev.get("passes"):  # how often it passes, once
                        line += " (passes " + ", ".join(
                            f"{side} {100 * p['passed'] / p['decisions']:.0f}%"
                            for side, p in ev["passes"].items() if p["decisions"]) + ")"
                    if spec not in reached and ev["adp_low"] > 0:
                        reached[spec] = {"time_s": record["time_s"], "frames_trained": frames}
                        line += (f" ({score_name} > 0 vs {spec} reached at {record['time_s'] / 60:.1f} min, "
                                 f"{frames:,} frames)")
                line += _variant_text(record, score_name)
                record["reached_adp_above_0"] = dict(reached)
                last_eval = time.time()
            record["eval_time_s"] = round(eval_seconds, 1)
            print(line, flush=True)
            log_scalars(writer, record, frames, args.algo)
            progress.write(json.dumps(record) + "\n")
            progress.flush()
            done = done_at(now - start, frames)
            if done or now - last_ckpt >= args.checkpoint_every:
                algo.run_info = {"time_s": record["time_s"], "reached": dict(reached), "eval_time_s": eval_seconds}
                path = save_checkpoint(algo, out)
                last_ckpt = time.time()
                print(f"checkpoint written: {path}", flush=True)
            if done:
                break
        # the final evaluation: printed, and recorded (the last record's fields, its time, the evaluation) so that
        # a short run's curves have a point
        began = time.time()
        if "eval" in record:  # the last iteration evaluated these very weights: not again
            final = {**record, "final": True}
        else:
            final = {**{k: v for k, v in record.items() if k not in EVAL_VARIANTS},
                     **evaluations(algo, baselines, args), "final": True}
        eval_seconds += time.time() - began
        final.update({"time_s": round(time.time() - start, 1), "eval_time_s": round(eval_seconds, 1)})
        for spec, ev in final["eval"].items():
            if spec not in reached and ev["adp_low"] > 0:
                reached[spec] = {"time_s": final["time_s"], "frames_trained": frames}
            sides = {k: v for k, v in ev.items() if k not in SCORE_FIELDS}
            parts = ", ".join(f"as {k} {v:+.3f}" for k, v in sides.items())
            arrangements = "2 (teams swapped)" if by_match else f"{len(sides)} arrangements"
            print(f"final {'points per deal' if by_match else 'ADP'} vs {spec} over {args.eval_deals} deals x "
                  f"{arrangements}: {ev['adp']:+.3f} [{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}]; {parts}"
                  + (f" ({final['eval_label']})" if final.get("eval_label") else ""), flush=True)
        for key in EVAL_VARIANTS:
            for spec, ev in (final[key]["results"].items() if key in final else ()):
                print(f"final {'points per deal' if by_match else 'ADP'} vs {spec}, {final[key]['label']}: "
                      f"{ev['adp']:+.3f} [{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}]", flush=True)
        if "eval_unpruned" in final:
            o = final["eval_unpruned"]["outside_kept"]
            print(f"unpruned greedy play chose a move pruning drops in {o['outside']:,} of {o['decisions']:,} decisions "
                  f"({100 * o['rate']:.1f}%)", flush=True)
        final["reached_adp_above_0"] = dict(reached)
        if by_match:
            final["matches"] = _evaluate_matches(algo, baselines, args)
            for spec, m in final["matches"].items():
                print(f"final match win rate vs {spec} over {m['matches']} match{'es' if m['matches'] != 1 else ''} "
                      f"x 2 (teams swapped): "
                      f"{m['win_rate']:.3f} [{m['win_rate_low']:.3f}, {m['win_rate_high']:.3f}]; points per deal "
                      f"{m['points_per_deal']:+.3f}, {m['deals_per_match']:.1f} deals per match", flush=True)
        log_scalars(writer, final, frames, args.algo)
        progress.write(json.dumps(final) + "\n")
    finally:
        progress.close()
        if writer is not None:
            writer.close()
        algo.stop()
    return 0


DEFAULT_STOP_TIME_S = 600.0  # a run given neither --stop-time nor --stop-frames


def stop_time_of(args) -> float | None:
    """The seconds after which a run stops: ``--stop-time``, else 10 minutes unless ``--stop-frames`` is given."""
    return args.stop_time if args.stop_time is not None else (None if args.stop_frames else DEFAULT_STOP_TIME_S)


def stop_rule(args):
    """``done(elapsed_s, frames) -> bool`` of a run's ``--stop-time`` / ``--stop-frames`` (either ends it; 10 minutes
    when neither is given)."""
    stop_time = stop_time_of(args)
    return lambda elapsed, frames: ((stop_time is not None and elapsed >= stop_time)
                                    or (args.stop_frames is not None and frames >= args.stop_frames))


def evaluation_baselines(config, specs, args) -> dict:
    """``spec -> make(slot)`` of each baseline agent spec, under the config's game rules (checked now)."""
    spec = config.game_spec
    options = spec.full_options({k: v for k, v in (config.env_config or {}).items() if k in spec.rule_options})
    return {s: _baseline_factory(s, args.game, options, args.seed + 7) for s in specs}


def _baseline_factory(spec: str, game: str, options: dict, seed: int):
    """``make(slot) -> Agent`` for the batched evaluation (one agent per game in flight); the spec is checked now."""
    from cardrl.eval.agents import build_agent

    build_agent(spec, game, options, seed=seed)  # a bad spec fails before training starts
    return lambda slot: build_agent(spec, game, options, seed=seed)


# the evaluations beside the headline (record["eval"]), each {"label", "results": {baseline: ev}, ...}
EVAL_VARIANTS = ("eval_oracle", "eval_unpruned")


def _evaluate(algo, baselines: dict, args, *, trained_block: bool = False, pruned: bool | None = None,
              count_outside: bool = False, play=None, score=None, count_passes: bool = False) -> dict[str, dict]:
    """The current greedy networks against each baseline on the same seeded deals, sides swapped (GuanDan: single
    deals, DanZero's deal points; whole-match win rates are cardrl.eval.matches' job). They play as trained
    (:meth:`DMC.play_options`): with the run's pruning unless ``pruned=False``, fed a zero oracle block (deployable)
    unless ``trained_block`` (lambda x the true hands); ``count_outside`` adds ``outside_kept`` (how often the
    greedy move lies outside the kept set of the run's pruning); ``count_passes`` adds ``passes`` (per side, how
    often the greedy networks passed where passing was legal). ``play`` and ``score``, when given, are
    ``algo.play_options()`` and ``algo.scorer()`` already taken (one copy of the networks per evaluation round)."""
    from cardrl.eval.lockstep import evaluate_scorer

    play = play or algo.play_options()
    if trained_block:
        play.check_trained_block("the trained-block evaluation")
    score = score or algo.scorer()
    env_config = dict(algo.config.env_config or {})
    options = {k: v for k, v in env_config.items() if k in algo.config.game_spec.rule_options}
    prune = play.pruned if pruned is None else pruned
    return {spec: evaluate_scorer(score, make, args.game, deals=args.eval_deals, seed=args.seed + 1, options=options,
                                  features=env_config.get("features"),
                                  move_filter=play.engine_pruner() if prune else None,
                                  input_blocks=play.engine_blocks() if trained_block else None,
                                  count_outside=play.engine_pruner() if count_outside else None,
                                  count_passes=count_passes)
            for spec, make in baselines.items()}


def evaluations(algo, baselines: dict, args) -> dict:
    """The progress record's evaluation fields: ``eval`` (the headline: as the agent plays deployed, with its
    pruning and a zero oracle block) and ``eval_label`` (what it fed); ``eval_oracle`` with the trained oracle block
    where lambda > 0 now; ``eval_unpruned`` (with ``--eval-unpruned``) without the pruning, with ``outside_kept``."""
    play, score = algo.play_options(), algo.scorer()
    out: dict = {"eval": _evaluate(algo, baselines, args, play=play, score=score, count_passes=True)}
    if play.oracle is not None or play.pruned:
        out["eval_label"] = play.label()
    if play.has_trained_block:
        out["eval_oracle"] = {"label": play.label(trained_block=True), "oracle_lambda": play.trained_lambda,
                              "oracle_mode": play.oracle_mode,
                              "results": _evaluate(algo, baselines, args, trained_block=True, play=play,
                                                   score=score)}
    if getattr(args, "eval_unpruned", False) and play.pruned:
        results = _evaluate(algo, baselines, args, pruned=False, count_outside=True, play=play, score=score)
        counts = [ev.pop("outside_kept") for ev in results.values()]
        decisions, outside = sum(c["decisions"] for c in counts), sum(c["outside"] for c in counts)
        out["eval_unpruned"] = {"label": play.label(pruned=False), "results": results,
                                "outside_kept": {"decisions": decisions, "outside": outside,
                                                 "rate": outside / decisions if decisions else 0.0}}
    return out


def _variant_text(record: dict, score_name: str) -> str:
    """The progress line's part for the evaluations beside the headline."""
    text = ""
    if "eval_oracle" in record:
        for spec, ev in record["eval_oracle"]["results"].items():
            text += (f" | trained oracle block (lambda {record['eval_oracle']['oracle_lambda']:.3f}): {score_name} vs "
                     f"{spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]")
    if "eval_unpruned" in record:
        for spec, ev in record["eval_unpruned"]["results"].items():
            text += f" | unpruned: {score_name} vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]"
        text += f" ({100 * record['eval_unpruned']['outside_kept']['rate']:.1f}% of its moves outside the kept set)"
    return text


def _evaluate_matches(algo, baselines: dict, args) -> dict[str, dict]:
    """Whole seeded matches of the current greedy networks against each baseline, teams swapped, one match per ten
    evaluation deals (:func:`cardrl.eval.matches.run_matches`: match win rate, points per deal, deals per match)."""
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.matches import run_matches

    spec = algo.config.game_spec
    env_config = dict(algo.config.env_config or {})
    options = {k: v for k, v in env_config.items() if k in spec.rule_options and k not in spec.protocol.deal_options
               and k != "max_deals" and k not in spec.protocol.training_options}
    play = algo.play_options()  # as trained: its pruning, a zero oracle block (deployable)
    agent = QAgent(algo.q_modules(), spec.name, features=env_config.get("features"),
                   move_filter=play.view_pruner(spec.name, options) if play.pruned else None)
    matches = max(1, args.eval_deals // 10)
    return {name: run_matches(agent, make(0), matches, args.seed + 1, spec.name, options=options).to_dict()
            for name, make in baselines.items()}


def _learner_device(algo) -> str:
    if algo.learner_group.is_local:
        module = algo.learner_group._learner.module
        return str(next(iter(module.values())).first_layer.weight.device)
    return "remote learner(s)"
