"""``cardrl train GAME --algo dmc``: DMC training on an embedded local Ray or a cluster (``RAY_ADDRESS``).

Prints one progress line per iteration (frames, frames/s, loss per seat, weight lag), evaluates the current
networks against each ``--eval-against`` baseline every ``--eval-every`` (duplicate deals, ADP with its 95%
interval, and when it first lay above 0: Luo & Tan's "time to reach ADP > 0", Tables 8-9), writes RLlib
checkpoints every ``--checkpoint-every`` and at the end (``<out>/checkpoint``), ``<out>/progress.jsonl`` (one
record per iteration; ``cardrl plot`` draws it) and TensorBoard scalars in ``<out>/tb``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


def build_config(args):
    """The DMCConfig of a ``cardrl train`` command line: DMC's flags (DMCSettings) and the run's resources."""
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.algorithms.dmc.settings import DMCSettings, values_from_args
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    env_config = {}
    if getattr(args, "reward", None) is not None:
        if args.reward not in spec.rewards:
            raise ValueError(f"--reward {args.reward} does not apply to {spec.name}; its rewards: "
                             f"{', '.join(spec.rewards)}")
        env_config["reward"] = args.reward
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


def _rss_mb() -> float:
    """The driver's resident memory in MB (Linux; 0 where /proc is absent)."""
    try:
        with open("/proc/self/statm") as f:
            return round(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError):
        return 0.0


def default_run_dir(game: str, algo: str = "dmc") -> str:
    """``runs/<algo>_<game>``: each game and algorithm has its own run directory unless ``--out`` says otherwise."""
    return f"runs/{algo}_{game}"


def _fmt_losses(result: dict) -> str:
    learner = result.get("learners", {})
    parts = []
    for mid, stats in sorted(learner.items()):
        if isinstance(stats, dict) and "q_loss" in stats:
            parts.append(f"{mid} {float(stats['q_loss']):.3f}")
    return ", ".join(parts) or "-"


def run_training(args) -> int:
    import ray

    address = os.environ.get("RAY_ADDRESS")
    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
    out = Path(args.out or default_run_dir(args.game, args.algo)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    stop_time = args.stop_time if args.stop_time is not None else (None if args.stop_frames else 600.0)
    config = build_config(args)
    algo = config.build_algo()
    if args.restore:
        algo.restore_from_path(str(Path(args.restore).resolve()))
        print(f"restored from {args.restore}", flush=True)
    options = config.game_spec.full_options({k: v for k, v in (config.env_config or {}).items()
                                             if k in config.game_spec.rule_options})
    baselines = {spec: _baseline_factory(spec, args.game, options, args.seed + 7) for spec in args.eval_against}
    reached: dict[str, dict] = {}  # baseline -> when the ADP interval against it first lay above 0
    start = last_eval = last_ckpt = time.time()
    progress = (out / "progress.jsonl").open("a")
    writer = _tensorboard(out)
    device = _learner_device(algo)
    algo_name = "ODMC (MCS pruning)" if getattr(args, "prune", None) else "DMC"
    print(f"training {algo_name} on {args.game}: {args.num_env_runners} env runner(s) x {args.num_envs_per_env_runner} "
          f"games, model {config.q_model}, learner on {device}, run dir {out}", flush=True)
    try:
        while True:
            result = algo.train()
            now = time.time()
            frames = int(result.get("frames_trained", 0))
            record = {"time_s": round(now - start, 1), "iteration": result.get("training_iteration"),
                      "frames_trained": frames, "frames_per_s": round(result.get("frames_trained_per_s", 0), 1),
                      "episodes": int(result.get("episodes", 0)), "weight_lag": result.get("weight_lag"),
                      "losses": {m: float(s["q_loss"]) for m, s in result.get("learners", {}).items()
                                 if isinstance(s, dict) and "q_loss" in s},
                      **{k: result.get(k) for k in DATA_METRICS}, "driver_rss_mb": _rss_mb()}
            line = (f"[{now - start:7.1f}s] iter {record['iteration']:4d} | frames {frames:,} "
                    f"({record['frames_per_s']:,.0f}/s) | episodes {record['episodes']:,} | "
                    f"loss {_fmt_losses(result)} | lag {record['weight_lag'] or 0:.2f} | data age "
                    f"{record['data_age_updates'] or 0:.1f} upd {record['data_age_s'] or 0:.1f}s | buffers "
                    f"{record['buffer_mb'] or 0:.1f} MB")
            if result.get("pruning_ratio") is not None:
                record["pruning_ratio"] = float(result["pruning_ratio"])
                line += f" | pruned {100 * record['pruning_ratio']:.1f}%"
            if args.eval_every and now - last_eval >= args.eval_every:
                record["eval"] = _evaluate(algo, baselines, args)
                for spec, ev in record["eval"].items():
                    line += f" | ADP vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]"
                    if spec not in reached and ev["adp_low"] > 0:
                        reached[spec] = {"time_s": record["time_s"], "frames_trained": frames}
                        line += f" (ADP > 0 vs {spec} reached at {record['time_s'] / 60:.1f} min, {frames:,} frames)"
                record["reached_adp_above_0"] = dict(reached)
                last_eval = time.time()
            print(line, flush=True)
            _log_scalars(writer, record, frames)
            progress.write(json.dumps(record) + "\n")
            progress.flush()
            done = (stop_time is not None and now - start >= stop_time) or (
                args.stop_frames is not None and frames >= args.stop_frames)
            if done or now - last_ckpt >= args.checkpoint_every:
                path = algo.save_to_path(str(out / "checkpoint"))
                last_ckpt = time.time()
                print(f"checkpoint written: {path}", flush=True)
            if done:
                break
        for spec, ev in _evaluate(algo, baselines, args).items():
            parts = ", ".join(f"as {k} {v:+.3f}" for k, v in ev.items() if k not in ("adp", "adp_low", "adp_high"))
            print(f"final ADP vs {spec} over {args.eval_deals} deals x {len(ev) - 3} arrangements: {ev['adp']:+.3f} "
                  f"[{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}]; {parts}", flush=True)
    finally:
        progress.close()
        if writer is not None:
            writer.close()
        algo.stop()
    return 0


def _baseline_factory(spec: str, game: str, options: dict, seed: int):
    """``make(slot) -> Agent`` for the batched evaluation (one agent per game in flight); the spec is checked now."""
    from cardrl.eval.agents import build_agent

    build_agent(spec, game, options, seed=seed)  # a bad spec fails before training starts
    return lambda slot: build_agent(spec, game, options, seed=seed)


def _evaluate(algo, baselines: dict, args) -> dict[str, dict]:
    """The current greedy networks against each baseline on the same seeded deals, sides swapped (GuanDan: single
    deals, DanZero's deal points; whole-match win rates are cardrl.eval.matches' job)."""
    from cardrl.eval.lockstep import evaluate_scorer

    score = algo.scorer()
    env_config = dict(algo.config.env_config or {})
    options = {k: v for k, v in env_config.items() if k in algo.config.game_spec.rule_options}
    return {spec: evaluate_scorer(score, make, args.game, deals=args.eval_deals, seed=args.seed + 1, options=options,
                                  features=env_config.get("features"))
            for spec, make in baselines.items()}


def _tensorboard(out: Path):
    """A TensorBoard writer in ``<out>/tb`` (``tensorboard --logdir <out>/tb``), or None without tensorboardX."""
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tb"))


def _log_scalars(writer, record: dict, step: int) -> None:
    if writer is None:
        return
    writer.add_scalar("dmc/frames_per_s", record["frames_per_s"], step)
    writer.add_scalar("dmc/episodes", record["episodes"], step)
    if record.get("weight_lag") is not None:
        writer.add_scalar("dmc/weight_lag", record["weight_lag"], step)
    for key in (*DATA_METRICS, "driver_rss_mb"):
        if record.get(key) is not None:
            writer.add_scalar(f"dmc/{key}", record[key], step)
    for mid, loss in record["losses"].items():
        writer.add_scalar(f"loss/{mid}", loss, step)
    for spec, ev in record.get("eval", {}).items():
        for key, value in ev.items():
            writer.add_scalar(f"eval_vs_{spec}/{key}", value, step)
    writer.flush()


def _learner_device(algo) -> str:
    if algo.learner_group.is_local:
        module = algo.learner_group._learner.module
        return str(next(iter(module.values())).first_layer.weight.device)
    return "remote learner(s)"
