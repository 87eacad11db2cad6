"""``cardrl bench train GAME``: cardrl's DMC in frames trained per second, against DouZero's own trainer where the
game has it (``"douzero"`` in the game's ``GameSpec.peers``: DouDiZhu).

DMC is DouZero's Deep Monte-Carlo (Zha et al. 2021, "DouZero: Mastering DouDizhu with Self-Play Deep Reinforcement
Learning", section 4; the figures this command gave: docs/benchmarks.md). A *frame* is one
(state, action) sample of one seat, labelled with its return; both trainers count a frame as trained when a learner
update on it is done (DouZero: ``T * B = 100 * 32`` frames of one position per update; ours: ``frames_per_update``
frames of one module per update), so the two counters are in the same unit.

Each trainer runs in its own child process with ``OMP_NUM_THREADS=1`` (with torch's default threads DouZero's
trainer stalls on a small machine: docs/benchmarks.md), so that no Ray state, torch threads or shared memory leak from
one into the other:

* ours: ``python -m cardrl.bench.train --_ours GAME`` starts a fresh local Ray, builds ``DMCConfig().game(GAME)``
  with ``num_env_runners`` runners and otherwise DMC's own defaults (:class:`~cardrl.algorithms.dmc.settings.
  DMCSettings`: runners of 64 games, fragments of 800 frames, updates of 3,200 frames), and calls
  ``algo.train()``. A *variant* (DMC training options, e.g. ``{"prune": "mcs"}`` for ODMC, Luo & Tan 2024, eq. 2,
  or ``{"opponent_model": "luo_tan"}``; from ``--prune`` and ``--opponent-model``) is measured in a second run of
  the same kind after the plain one, and its frames/s ratio to plain DMC printed;
* DouZero: its own trainer with its defaults (:mod:`cardrl.bench.train_douzero`), killed once the timed window is
  over, its frames read from the ``logs.csv`` it appends after every update.

Setup is everything from the child's launch to the first finished update (imports, Ray, building the algorithm,
spawning actors, filling the first batch): that first update is the warm-up, and the timed window of ``seconds``
starts there (ours ends at the first ``train()`` to return after it, DouZero's exactly then). Frames/s is measured
from update times (:func:`update_rate`): summed over the positions, each between its own first and last update in
the window, because both trainers update in bursts (DouZero's counter, and so its own ``fps`` lines, jump by 3,200
frames per position update, and all positions fill their batches at about the same time). The output starts with
the machine description and ends with ``vs douzero: R.Rx frames/s`` when DouZero's trainer ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from cardrl.algorithms.dmc.settings import OPPONENT_MODELS, DMCSettings
from cardrl.args import non_negative_int, positive_float, positive_int
from cardrl.bench.common import machine_description
from cardrl.machine_load import load_1m
from cardrl.bench.train_douzero import DOUZERO_NUM_ACTORS, bench_douzero
from cardrl.bench import train_format
from cardrl.bench.train_rates import (SETUP_TIMEOUT_S, child_env, rate_fields, tail_text, update_rate,
                                      updates_total)
from cardrl.games.registry import game_names, get_game

__all__ = ["bench_train", "bench_ours", "main_bench_train",
           "add_train_arguments", "module_updates", "variant_options", "check_variant", "check_presets",
           "preset_config", "OURS_SETTINGS", "PRESET_FRAMES"]

# The DMC settings the benchmark reports: DMC's own defaults (DMCSettings), which the run takes unchanged.
OURS_SETTINGS = {f.name: f.default for f in fields(DMCSettings)
                 if f.name in ("num_envs_per_env_runner", "rollout_fragment_length", "frames_per_update")}
_RESULT_TAG = "CARDRL_BENCH_TRAIN_RESULT "
PRESET_FRAMES = 1_000_000  # the budget a preset's schedules (oracle guiding) are laid over: no effect on speed


# ---- ours ---------------------------------------------------------------------------------------
def module_updates(result: dict, t: float, lifetimes: dict[str, float], frames_before: int,
                    ) -> tuple[list[tuple[float, str, int]], dict[str, float]]:
    """The updates one ``algo.train()`` made, ``(t, module, frames)``, from each module's lifetime count of trained
    frames in ``result["learners"]`` (else from ``frames_trained``, as one update of position "all")."""
    lifetime = {mid: float(stats["num_module_steps_trained_lifetime"])
                for mid, stats in result.get("learners", {}).items()
                if mid != "__all_modules__" and isinstance(stats, dict)
                and "num_module_steps_trained_lifetime" in stats}
    if not lifetime:
        frames = int(result["frames_trained"]) - frames_before
        return ([(t, "all", frames)] if frames > 0 else []), lifetimes
    updates = [(t, mid, int(n - lifetimes.get(mid, 0.0))) for mid, n in sorted(lifetime.items())
               if n > lifetimes.get(mid, 0.0)]
    return updates, {**lifetimes, **lifetime}



_COUNTERS = ("frames_trained", "frames_sampled", "episodes")


def _timed_training(algo, seconds: float) -> dict[str, Any]:
    """``algo.train()`` once to warm up, then until ``seconds`` have passed since that first update; the updates'
    rate, the counters' growth over the window and the last result."""
    first = algo.train()
    t0 = time.time()
    updates, lifetimes = module_updates(first, t0, {}, 0)
    result, iterations = first, 0
    while time.time() - t0 < seconds:
        result = algo.train()
        iterations += 1
        new, lifetimes = module_updates(result, time.time(), lifetimes, int(updates_total(updates)))
        updates += new
    grown = {k: int(result[k]) - int(first[k]) for k in _COUNTERS}
    return {"t0": t0, "rate": update_rate(updates), "grown": grown, "iterations": iterations, "last": result,
            "frames_trained_total": int(result["frames_trained"])}


def preset_config(preset: str, game: str):
    """The DMCConfig ``cardrl train GAME`` builds for the learning benchmark's variant ``preset`` (its features, its
    options: :func:`cardrl.bench.learning.variant_flags`); ValueError if it does not apply to ``game``."""
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.algorithms.training.run_spec import RunSpec
    from cardrl.bench.learning import variant_flags

    flags = variant_flags(preset, game, PRESET_FRAMES)
    return build_config(RunSpec.from_flags(game, flags), say=lambda *_: None)


def _run_ours_here(seconds: float, num_env_runners: int, launched: float, options: Mapping[str, Any],
                   game: str, preset: str | None = None) -> dict[str, Any]:
    """Body of the ``--_ours`` child: a fresh local Ray, DMC built with its own defaults (or as ``cardrl train``
    builds the variant ``preset``) and the DMC training ``options`` of a variant, one update to warm up, then
    ``seconds``."""
    import torch

    torch.set_num_threads(1)
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.ray_start import LOCAL, start_ray

    ray_cpus = max(2, num_env_runners)
    start_ray(ray_cpus, address=LOCAL)
    try:
        t_ray = time.time()
        base = preset_config(preset, game) if preset else DMCConfig().game(game)
        config = base.env_runners(num_env_runners=num_env_runners).training(**options).debugging(seed=0)
        algo = config.build_algo()
        t_built = time.time()
        run = _timed_training(algo, seconds)
        algo.stop()
    finally:
        ray.shutdown()
    rate, grown, lag, t0 = run["rate"], run["grown"], run["last"].get("weight_lag"), run["t0"]
    return {
        **rate_fields(rate), "setup_s": t0 - launched, "startup_s": t_ray - launched, "build_s": t_built - t_ray,
        "first_update_s": t0 - t_built, **grown, "frames_sampled_per_s": grown["frames_sampled"] / rate["seconds"],
        "frames_trained_total": run["frames_trained_total"], "iterations": run["iterations"],
        "weight_lag": None if lag is None else float(lag), "pruning_ratio": run["last"].get("pruning_ratio"),
        "settings": {"num_env_runners": num_env_runners, **{k: getattr(config, k) for k in OURS_SETTINGS},
                     "options": {k: getattr(config, k) for k in options},  # as the config took them
                     "preset": preset, "features": dict(config.env_config or {}).get("features"),
                     "actor_precision": config.actor_precision, "learner_precision": config.learner_precision,
                     "sample_requests_in_flight": config.max_requests_in_flight_per_env_runner,
                     "q_model": config.q_model, "driver_sample_frames": config.driver_sample_frames,
                     "ray_num_cpus": ray_cpus},
    }


def bench_ours(game: str, seconds: float, num_env_runners: int = 1,
               options: Mapping[str, Any] | None = None, preset: str | None = None) -> dict[str, Any]:
    """cardrl's DMC on ``game`` for ``seconds`` after its first update, in a child process (see the module doc),
    with the DMC training ``options`` of a variant (JSON values, e.g. ``{"prune": "mcs"}``) on top of the
    benchmark's own, or built as ``cardrl train`` builds the learning benchmark's variant ``preset``."""
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0 (0: sample in the driver), got {num_env_runners}")
    game = get_game(game).name
    launched = time.time()
    cmd = [sys.executable, "-m", "cardrl.bench.train", "--_ours", "--seconds", str(seconds),
           "--num-env-runners", str(num_env_runners), "--_launched", repr(launched),
           "--_options", json.dumps(dict(options or {})), *(["--_preset", preset] if preset else []), game]
    proc = subprocess.run(cmd, env=child_env(), capture_output=True, text=True,
                          timeout=seconds + SETUP_TIMEOUT_S)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(_RESULT_TAG)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"cardrl DMC benchmark child failed (exit {proc.returncode}):\n"
                           f"{tail_text(proc.stdout)}\n{tail_text(proc.stderr)}")
    result = json.loads(lines[-1][len(_RESULT_TAG):])
    result["process_s"] = time.time() - launched
    return result


# ---- DouZero ------------------------------------------------------------------------------------
# ---- the benchmark ------------------------------------------------------------------------------------------------
def variant_options(prune: str | None = None, opponent_model: str | None = None,
                    bidding: bool = False) -> dict[str, Any]:
    """The DMC training options of the variant that ``cardrl bench train``'s flags ask for (``{}``: none)."""
    return {k: v for k, v in (("bidding", bidding or None), ("opponent_model", opponent_model), ("prune", prune))
            if v is not None}


def check_presets(game: str, options: Mapping[str, Any], baseline: str | None, variant: str | None) -> None:
    """ValueError when the learning benchmark's variants ``baseline`` or ``variant`` do not apply to ``game`` (or do
    not exist), or when ``variant`` comes with the training ``options`` of another variant (one second run only)."""
    if variant and options:
        raise ValueError(f"cardrl bench train: --variant {variant} measures one second run; it can not come with "
                         f"--prune, --opponent-model or --bidding ({train_format.variant_name(options)}): drop one "
                         f"of them")
    for preset in (baseline, variant):
        if preset:
            preset_config(preset, game).validate()


def check_variant(game: str, options: Mapping[str, Any]) -> None:
    """ValueError, naming the variant, when DMC on ``game`` (its default features and Q-network) would refuse the
    variant's ``options``: :meth:`DMCConfig.validate` decides, as in the child run."""
    from cardrl.algorithms.dmc.dmc import DMCConfig

    spec = get_game(game)
    try:
        DMCConfig().game(spec.name).training(**options).validate()
    except ValueError as err:
        raise ValueError(f"cardrl bench train {spec.name} (the game's default features) can not measure the "
                         f"variant {train_format.variant_name(options)}: {err}") from None


def bench_train(game: str, seconds: float, peers: bool = True, num_env_runners: int = 1,
                douzero_actors: int = DOUZERO_NUM_ACTORS, variant: Mapping[str, Any] | None = None,
                baseline_preset: str | None = None, variant_preset: str | None = None) -> dict[str, Any]:
    """Frames trained per second of cardrl's DMC on ``game``, then (``variant``: DMC training options, e.g.
    ``{"opponent_model": "luo_tan", "prune": "mcs"}``) of DMC with those options, then (``peers``, when the game's
    ``spec.peers`` names ``douzero``) of DouZero's trainer, one after the other. A variant is checked
    (:func:`check_variant`) before anything runs.

    Returns ``{"game", "title", "seconds", "cpus", "machine", "load_before", "ours": {...}, "ours_variant"?: {...}
    (its ``settings["options"]`` are the variant's), "peers": {"douzero": {...} or {"skipped": why}}, "ratio":
    ours/theirs or None, "summary": [line], "table": str}``.
    """
    spec = get_game(game)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    variant = dict(variant or {})
    check_presets(spec.name, variant, baseline_preset, variant_preset)
    if variant:
        check_variant(spec.name, variant)
    result: dict[str, Any] = {"game": spec.name, "title": spec.title, "seconds": float(seconds),
                              "cpus": os.cpu_count(), "machine": machine_description(),
                              "load_before": load_1m() or 0.0, "peers": {}, "ratio": None}
    result["ours"] = bench_ours(spec.name, seconds, num_env_runners, preset=baseline_preset)
    if variant:  # the same run with the variant's options, to measure what they cost in frames/s
        result["ours_variant"] = bench_ours(spec.name, seconds, num_env_runners, options=variant)
    if variant_preset:  # the variant as cardrl train builds it, right after the baseline
        result["ours_variant"] = bench_ours(spec.name, seconds, num_env_runners, preset=variant_preset)
    if peers and "douzero" in spec.peers:  # DouZero's trainer: the one peer trainer this benchmark runs
        try:
            result["peers"]["douzero"] = bench_douzero(seconds, douzero_actors)
        except ImportError as err:
            result["peers"]["douzero"] = {"skipped": f"not importable ({err})"}
    peer = result["peers"].get("douzero", {})
    if peer.get("frames_per_s", 0) > 0:
        result["ratio"] = result["ours"]["frames_per_s"] / peer["frames_per_s"]
    result["summary"] = train_format.summary_lines(result)
    result["table"] = train_format.format_bench_train(result)
    return result


def check_bench_train(args: argparse.Namespace) -> None:
    """What ``cardrl bench train`` checks before it measures: the variant (:func:`check_variant`)."""
    variant = variant_options(prune=args.prune, opponent_model=args.opponent_model, bidding=args.bidding)
    check_presets(args.game, variant, args.baseline, args.variant)
    if variant:
        check_variant(args.game, variant)


def main_bench_train(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """``cardrl bench train GAME [--seconds N] [--no-peers] [--num-env-runners N] [--prune mcs] [--opponent-model
    luo_tan|douzero_plus] [--bidding] [--json-out PATH]``: prints the table and, when DouZero ran, the line ``vs
    douzero: R.Rx frames/s``, then the variant's ratio line when ``--prune``, ``--opponent-model`` or ``--bidding``
    asked for one; with ``--json-out``, also writes all of it as JSON (:mod:`cardrl.bench.json_out`). Returns 0."""
    if args is None or not isinstance(args, argparse.Namespace):
        args = _parser().parse_args(args)
    from cardrl.bench.json_out import BenchClock, bench_command, prepare_json_out, train_figures, write_json_out

    json_out = args.json_out
    if json_out:
        prepare_json_out(json_out)
    clock = BenchClock()
    result = bench_train(args.game, float(args.seconds), peers=not args.no_peers,
                         num_env_runners=args.num_env_runners, douzero_actors=args.douzero_actors,
                         variant=variant_options(prune=args.prune, opponent_model=args.opponent_model,
                                                 bidding=args.bidding),
                         baseline_preset=args.baseline, variant_preset=args.variant)
    train_format.print_bench_train(result)
    if json_out:
        text = "\n".join([result["table"], *result["summary"]])
        path = write_json_out(json_out, clock.record("train", bench_command("train", args), train_figures(result),
                                                     result, text))
        print(f"json: {path}", flush=True)
    return 0


def _option_help(name: str) -> str:
    return next(f.metadata["help"] for f in fields(DMCSettings) if f.name == name)


def add_train_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``cardrl bench train``."""
    parser.add_argument("game", choices=game_names(), help="the game to train on (e.g. doudizhu)")
    parser.add_argument("--seconds", type=positive_float, default=60.0, help="timed seconds per trainer (default 60)")
    parser.add_argument("--no-peers", action="store_true", help="measure cardrl only (no DouZero trainer)")
    parser.add_argument("--num-env-runners", type=non_negative_int, default=1, help="cardrl's env runners (default 1)")
    parser.add_argument("--douzero-actors", type=positive_int, default=DOUZERO_NUM_ACTORS,
                        help=f"DouZero's actor processes (default {DOUZERO_NUM_ACTORS})")
    parser.add_argument("--prune", choices=["mcs"], default=None,
                        help="also measure ODMC (MCS pruning on) and print its frames/s ratio to plain DMC")
    parser.add_argument("--opponent-model", choices=OPPONENT_MODELS, default=None,
                        help=f"also measure DMC with an {_option_help('opponent_model')}, on the game's default "
                             f"features and their Q-network, and print its frames/s ratio to plain DMC (with "
                             f"--prune: one run with both)")
    parser.add_argument("--bidding", action="store_true",
                        help="also measure DMC on the whole game (bidding learned, docs/bidding.md) and print its "
                             "frames/s ratio to DMC with a fixed landlord (with --prune or --opponent-model: one run "
                             "with them)")
    parser.add_argument("--baseline", default=None, metavar="VARIANT",
                        help="measure this variant of the learning benchmark (cardrl bench learning --help lists "
                             "them; e.g. unified) first, built as cardrl train builds it, instead of plain DMC")
    parser.add_argument("--variant", default=None, metavar="VARIANT",
                        help="then measure this variant of the learning benchmark (e.g. unified_fast) and print its "
                             "frames/s ratio to the first run (not with --prune, --opponent-model or --bidding)")
    parser.add_argument("--json-out", default=None, metavar="PATH",
                        help="also write every figure printed, with the command, the UTC date, the machine and its "
                             "load averages at start and end, to this JSON file (cardrl.bench.json_out)")
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m cardrl.bench.train", description=__doc__.splitlines()[0])
    add_train_arguments(parser)
    parser.add_argument("--_ours", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_launched", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_options", type=json.loads, default={}, help=argparse.SUPPRESS)  # the variant, as JSON
    parser.add_argument("--_preset", default=None, help=argparse.SUPPRESS)
    return parser


def _main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args._ours:
        launched = args._launched if args._launched is not None else time.time()
        result = _run_ours_here(args.seconds, args.num_env_runners, launched, args._options, args.game, args._preset)
        print(_RESULT_TAG + json.dumps(result), flush=True)
        return 0
    return main_bench_train(args)


if __name__ == "__main__":
    raise SystemExit(_main())
