"""``cardrl train GAME --algo topk-ppo --dmc-checkpoint PATH --k 2``: top-k PPO on an embedded local Ray or a cluster.

The run loop (:func:`train_loop`, shared with ``--algo ppo``) prints one progress line per iteration, evaluates the
current policy against each ``--eval-against`` baseline every ``--eval-every`` (duplicate deals, sides swapped; GuanDan:
single deals, DanZero's points; whole-match win rates are ``cardrl eval``'s), writes RLlib checkpoints every
``--checkpoint-every`` and at the end (``<out>/checkpoint``), ``<out>/progress.jsonl`` (one record per iteration and
one for the final evaluation) and TensorBoard scalars in ``<out>/tb``; ``run_training`` writes ``<out>/config.json``
(:mod:`cardrl.algorithms.run_files`). Throughput is reported as sampled frames per second and the share of the
runners' time spent scoring candidates with the frozen DMC network.

Flags shared with DMC (``--lr``, ``--grad-clip``, ``--hidden-sizes``, ``--num-envs-per-env-runner``) take top-k PPO's
own defaults unless given (:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

from cardrl.algorithms.dmc.settings import field_default
from cardrl.algorithms.dmc.train import env_config_from_args, stop_rule


def settings_from_args(args, settings: type, given: set[str]) -> dict[str, Any]:
    """The settings' values: the flags the user gave, the dataclass defaults for the others (a flag shared with another
    algorithm carries that algorithm's default in ``args``)."""
    out = {}
    for f in fields(settings):
        if f.name in given and hasattr(args, f.name):
            value = getattr(args, f.name)
        else:
            value = field_default(f)
        out[f.name] = tuple(value) if isinstance(value, list) else value
    return out


def build_config(args, given: set[str]):
    """The TopKPPOConfig of a ``cardrl train --algo topk-ppo`` command line."""
    from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings
    from cardrl.algorithms.topk_ppo.topk_ppo import TopKPPOConfig

    settings = settings_from_args(args, TopKPPOSettings, given)
    envs = settings.pop("num_envs_per_env_runner")
    if settings.get("kl_stop") == 0:
        settings["kl_stop"] = None
    return (TopKPPOConfig().game(args.game, **env_config_from_args(args))
            .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=envs)
            .training(**settings)
            .learners(num_learners=args.num_learners, num_gpus_per_learner=1 if args.gpu else 0)
            .debugging(seed=args.seed))


def _init_ray(args) -> None:
    import ray

    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False, log_to_driver=False,
                     configure_logging=False)


def evaluate(agent, args, baselines: list[str]) -> dict[str, dict]:
    """``agent`` against each baseline spec on the same seeded deals, sides swapped: the mean score (ADP; GuanDan's
    points per deal, single deals) and its 95% interval."""
    from cardrl.eval.tournament import run_tournament

    out = {}
    for spec in baselines:
        result = run_tournament(agent, spec, args.eval_deals, game=args.game, seed=args.seed + 1)
        lo, hi = result.adp_interval
        out[spec] = {"adp": result.adp, "adp_low": lo, "adp_high": hi, "wp": result.wp}
    return out


def train_loop(algo, args, out: Path, title: str, record_of: Callable[[dict], tuple[dict, str]],
               make_agent: Callable[[], Any]) -> int:
    """Train ``algo`` until ``--stop-time`` / ``--stop-frames``; one progress line, record and set of TensorBoard
    scalars per iteration (``record_of(result) -> (record, line)``, the record holding ``frames_trained``),
    evaluation of ``make_agent()`` and checkpoints on their schedules, and a final record with the final
    evaluation."""
    from cardrl.algorithms.run_files import log_scalars, tensorboard
    from cardrl.eval.agents import build_agent
    from cardrl.games.registry import get_game

    for spec in args.eval_against:  # a bad baseline fails before training
        build_agent(spec, args.game)
    # the evaluation's mean in the game's unit: points per deal where the episode is a match (GuanDan), else ADP
    by_match = get_game(args.game).protocol.unit == "match"
    score, final_score = ("points/deal", "points per deal") if by_match else ("ADP", "ADP")
    done_at = stop_rule(args)
    start = last_eval = last_ckpt = time.time()
    last_frames, last_time = 0, start
    print(title, flush=True)
    writer = tensorboard(out)
    with (out / "progress.jsonl").open("a") as progress:
        try:
            while True:
                result = algo.train()
                now = time.time()
                record, line = record_of(result)
                frames = record["frames_trained"]
                record = {"time_s": round(now - start, 1), "iteration": result.get("training_iteration"), **record}
                record.setdefault("frames_per_s", round((frames - last_frames) / max(now - last_time, 1e-9), 1))
                last_frames, last_time = frames, now
                line = f"[{now - start:7.1f}s] iter {record['iteration']:4d} | {line}"
                if args.eval_every and now - last_eval >= args.eval_every:
                    record["eval"] = evaluate(make_agent(), args, args.eval_against)
                    for spec, ev in record["eval"].items():
                        line += f" | {score} vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]"
                    last_eval = time.time()
                print(line, flush=True)
                log_scalars(writer, record, frames, args.algo)
                progress.write(json.dumps(record, default=float) + "\n")
                progress.flush()
                done = done_at(now - start, frames)
                if done or now - last_ckpt >= args.checkpoint_every:
                    path = algo.save_to_path(str(out / "checkpoint"))
                    last_ckpt = time.time()
                    print(f"checkpoint written: {path}", flush=True)
                if done:
                    break
            # recorded as DMC records it (the last record's fields, its time, the evaluation): a short run's curves
            # have a point
            final = {**record, "time_s": round(time.time() - start, 1),
                     "eval": evaluate(make_agent(), args, args.eval_against), "final": True}
            for spec, ev in final["eval"].items():
                print(f"final {final_score} vs {spec} over {args.eval_deals} deals: {ev['adp']:+.3f} "
                      f"[{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}], WP {ev['wp']:.3f}", flush=True)
            log_scalars(writer, final, frames, args.algo)
            progress.write(json.dumps(final, default=float) + "\n")
        finally:
            if writer is not None:
                writer.close()
            algo.stop()
    return 0


def _record(result: dict) -> tuple[dict, str]:
    learners = {m: s for m, s in result.get("learners", {}).items() if isinstance(s, dict) and "policy_loss" in s}
    losses = {m: float(s["policy_loss"]) for m, s in learners.items()}
    # PPO trains on every frame it samples, within the iteration
    record = {"frames_trained": int(result.get("frames_sampled", 0)),
              "frames_per_s": float(result.get("frames_per_s", 0)),
              "candidate_scoring_share": float(result.get("candidate_scoring_share", 0)),
              "episodes": int(result.get("episodes", 0)),
              "policy_loss": losses, "entropy": {m: float(s.get("entropy", 0)) for m, s in learners.items()},
              "approx_kl": {m: float(s.get("approx_kl", 0)) for m, s in learners.items()},
              "epochs_taken": {m: float(v) for m, v in dict(result.get("epochs_taken", {})).items()}}
    line = (f"frames {record['frames_trained']:,} ({record['frames_per_s']:,.0f}/s, scoring "
            f"{100 * record['candidate_scoring_share']:.0f}%) | episodes {record['episodes']:,} | pi loss "
            + ", ".join(f"{m} {v:+.3f}" for m, v in sorted(losses.items())) + " | epochs "
            + ", ".join(f"{m} {v:.0f}" for m, v in sorted(record["epochs_taken"].items())))
    return record, line


def run_training(args, given: set[str]) -> int:
    """``cardrl train GAME --algo topk-ppo``."""
    from cardrl.algorithms.run_files import run_dir, write_config
    from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings

    config = build_config(args, given)
    config.validate()  # a missing or foreign DMC checkpoint fails here, before Ray starts
    _init_ray(args)
    out = run_dir(args)
    out.mkdir(parents=True, exist_ok=True)
    write_config(out, args, config, TopKPPOSettings, settings_from_args(args, TopKPPOSettings, given),
                 agent_kind="topk-ppo")
    algo = config.build_algo()
    if args.restore:
        algo.restore_from_path(str(Path(args.restore).resolve()))
        print(f"restored from {args.restore}", flush=True)
    title = (f"training top-k PPO (k={config.k}) on {args.game}: {args.num_env_runners} env runner(s) x "
             f"{config.num_envs_per_env_runner} games, candidates from {config.dmc_checkpoint}, run dir {out}")
    return train_loop(algo, args, out, title, _record, lambda: algo.agent(seed=args.seed + 7))
