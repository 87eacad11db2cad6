"""``cardrl bench scale GAME``: a scaling model of DMC, measured on the machine at hand, predicting frames/s on
clusters of 4 to 160 CPUs with a CPU or a GPU learner.

It measures, in this process, on DMC's own code paths (the game's default ``DMCConfig``, docs/scaling.md;
:mod:`cardrl.bench.scale_measure`): one runner's sampling rate ``r1``, the learner's ingest rate ``L`` (DMC's
training step on ready buffers), the bytes per frame ``b`` through the object store with the runner's and the
driver's CPU per frame ``s_out`` and ``s_in``, and the weight broadcast (``W``, ``t_pub``, ``t_get``, ``t_set``).
From these it predicts frames/s for each cluster (:mod:`cardrl.bench.scale_model`).

Where the machine has the cores, it also runs the real DMC algorithm (:func:`cardrl.bench.train.bench_ours`, a
child process each) with 1, 2, 4, ... runners while runners plus the learner fit its cores, and prints the measured
frames/s beside the model's prediction for this machine (parallel efficiency = measured / predicted). A GPU learner
cannot be measured without a GPU: its speed-up over one CPU core is an assumption (``--gpu-speedup``), printed as
such, and so are the network bandwidth and the node size. Timing rules: :mod:`cardrl.bench.common`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from cardrl.args import positive_float, positive_int
from cardrl.bench.common import format_number, header_lines, machine_description
from cardrl.machine_load import load_1m
from cardrl.bench.scale_measure import (BROADCAST_REPEATS, build_dmc, measure_broadcast, measure_learner,
                                        measure_object_store, measure_runner)
from cardrl.bench.scale_model import (DEFAULT_CLUSTERS, DEFAULT_GPU_SPEEDUP, DEFAULT_NETWORK_GBPS, DEFAULT_NODE_CPUS,
                                      default_runner_counts, parse_counts, predict, predict_here)
from cardrl.games.registry import game_names, get_game

__all__ = ["bench_scale", "format_bench_scale", "print_bench_scale", "main_bench_scale", "add_scale_arguments"]


def _measure_parallel(game: str, counts: list[int], seconds: float) -> list[dict[str, Any]]:
    from cardrl.bench.train import bench_ours

    out = []
    for n in counts:
        try:
            run = bench_ours(game, seconds, num_env_runners=n)
            out.append({"runners": n, "frames_per_s": run["frames_per_s"],
                        "frames_sampled_per_s": run["frames_sampled_per_s"], "setup_s": run["setup_s"],
                        "weight_lag": run.get("weight_lag")})
        except (RuntimeError, OSError, ValueError) as err:
            out.append({"runners": n, "error": str(err).splitlines()[0]})
    return out


# ---- the benchmark --------------------------------------------------------------------------------------------
def _check_options(seconds, frames_per_update, clusters, gpu_speedup, learner_cpus, node_cpus, gbps, runners,
                   parallel_seconds, broadcast_repeats) -> list[int]:
    """ValueError naming the first bad option of :func:`bench_scale`; the clusters as ints."""
    for name, value in (("seconds", seconds), ("gpu_speedup", gpu_speedup), ("gbps", gbps),
                        ("parallel_seconds", parallel_seconds)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{name} must be a number > 0, got {value!r}")
    for name, value in (("learner_cpus", learner_cpus), ("node_cpus", node_cpus),
                        ("broadcast_repeats", broadcast_repeats)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    clusters = [int(c) for c in clusters]
    if not clusters or any(c <= learner_cpus for c in clusters):
        raise ValueError(f"every cluster needs more CPUs than the learner's {learner_cpus}, got {clusters}")
    if frames_per_update is not None and (isinstance(frames_per_update, bool) or not isinstance(frames_per_update, int)
                                          or frames_per_update < 1):
        raise ValueError(f"frames_per_update must be an int >= 1, got {frames_per_update!r}")
    if runners is not None and any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in runners):
        raise ValueError(f"runners must be ints >= 1, got {list(runners)}")
    return clusters


def _measure_terms(game: str, seconds: float, frames_per_update: int | None, cpus: int,
                   broadcast_repeats: int) -> dict[str, Any]:
    """Every measured term of the model, on DMC built from the game's default config (a local Ray of its own unless
    one runs already)."""
    import torch

    torch.set_num_threads(1)  # one core per runner and per CPU learner (docs/architecture.md, "RLlib facts")
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.ray_start import LOCAL, start_ray

    config = DMCConfig().game(game).debugging(seed=0)
    if frames_per_update is not None:
        config.training(frames_per_update=frames_per_update)
    fpu = int(config.frames_per_update)
    started_ray = start_ray(max(1, cpus), address=LOCAL) is not None
    try:
        algo = build_dmc(config)
        run = measure_runner(algo, seconds)
        learn = measure_learner(algo, run["samples"], seconds, fpu)
        store = measure_object_store(algo, run["samples"])
        weights = measure_broadcast(algo, broadcast_repeats)
        algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    return {"r1": run["r1"], "runner_frames": run["frames"], "runner_cpu_s": run["cpu_s"],
            "fragment": int(config.rollout_fragment_length), "envs_per_runner": int(config.num_envs_per_env_runner),
            "learner": learn["learner"], "learner_device": learn["device"], "learner_on_gpu": learn["on_gpu"],
            "learner_updates": learn["updates"], "update_s": learn["update_s"], "modules": learn["modules"],
            "frames_per_update": fpu, **store, **weights}


def _parallel_rows(game: str, counts: list[int], seconds: float, measured: dict[str, Any], cpus: int,
                   learner_cpus: int) -> list[dict[str, Any]]:
    """The real DMC runs with ``counts`` runners, each beside the model's prediction for this machine."""
    rows = _measure_parallel(game, counts, seconds) if counts else []
    for row in rows:
        on_gpu = measured["learner_on_gpu"]
        row["predicted"] = None if on_gpu else predict_here(measured, row["runners"], cpus, learner_cpus)
        fps = row.get("frames_per_s")
        row["efficiency"] = fps / row["predicted"] if fps and row["predicted"] else None
    return rows


def bench_scale(game: str, seconds: float = 10.0, *, frames_per_update: int | None = None,
                clusters: Sequence[int] = DEFAULT_CLUSTERS, gpu_speedup: float = DEFAULT_GPU_SPEEDUP,
                learner_cpus: int = 1, node_cpus: int = DEFAULT_NODE_CPUS, gbps: float = DEFAULT_NETWORK_GBPS,
                runners: Sequence[int] | None = None, parallel_seconds: float = 30.0,
                broadcast_repeats: int = BROADCAST_REPEATS) -> dict[str, Any]:
    """Measure the model's terms for ``game`` on this machine and predict ``clusters`` (module docstring).

    ``runners``: runner counts to measure with the real DMC algorithm (``None``: :func:`default_runner_counts` of
    this machine's cores; ``[]``: none). Returns ``{"game", "machine", "load_before", "cpus", "measured": {...},
    "assumed": {...}, "predictions": [per cluster and learner], "parallel": [...], "skipped": [...], "table"}``.
    """
    spec = get_game(game)
    clusters = _check_options(seconds, frames_per_update, clusters, gpu_speedup, learner_cpus, node_cpus, gbps,
                              runners, parallel_seconds, broadcast_repeats)
    cpus = os.cpu_count() or 1
    fitting = default_runner_counts(cpus, learner_cpus)
    counts = fitting if runners is None else [int(n) for n in runners]
    skipped = [] if runners is not None else [n for n in (2 ** k for k in range(1, 8)) if n not in fitting
                                              and n + learner_cpus <= max(clusters)]
    result: dict[str, Any] = {"game": spec.name, "title": spec.title, "seconds": float(seconds), "cpus": cpus,
                              "machine": machine_description(), "load_before": load_1m()}
    measured = _measure_terms(spec.name, seconds, frames_per_update, cpus, broadcast_repeats)
    on_gpu = measured["learner_on_gpu"]
    result["measured"] = measured
    result["assumed"] = {"gpu_speedup": None if on_gpu else float(gpu_speedup), "gbps": float(gbps),
                         "node_cpus": node_cpus, "learner_cpus": learner_cpus}
    result["predictions"] = [predict(measured, c, gpu, learner_cpus=learner_cpus, gpu_speedup=gpu_speedup,
                                     node_cpus=node_cpus, gbps=gbps)
                             for c in clusters for gpu in (False, True) if gpu or not on_gpu]
    result["parallel"] = _parallel_rows(spec.name, counts, parallel_seconds, measured, cpus, learner_cpus)
    result["skipped"] = skipped
    result["table"] = format_bench_scale(result)
    return result


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms"


def _parallel_lines(result: dict[str, Any]) -> list[str]:
    """The report's part on the real DMC runs: measured beside predicted, and the runner counts skipped."""
    lines = [f"measured with the real DMC algorithm on this machine ({result['cpus']} cores; cardrl bench train's "
             f"settings, frames trained per second):"]
    if not result["parallel"]:
        lines.append("  none measured (--runners none)")
    for row in result["parallel"]:
        if "error" in row:
            lines.append(f"  {row['runners']} runner(s): failed: {row['error']}")
            continue
        pred = "-" if row["predicted"] is None else f"{row['predicted']:,.0f}"
        eff = "-" if row["efficiency"] is None else f"{100 * row['efficiency']:.0f}%"
        lines.append(f"  {row['runners']} runner(s): measured {row['frames_per_s']:,.0f} frames/s (sampled "
                     f"{row['frames_sampled_per_s']:,.0f}), predicted {pred}, parallel efficiency {eff}")
    if result["skipped"]:
        lines.append(f"  skipped: {', '.join(map(str, result['skipped']))} runners (they and the learner do not fit "
                     f"{result['cpus']} cores; measure them on a bigger machine with --runners)")
    return lines


def format_bench_scale(result: dict[str, Any]) -> str:
    """The report of :func:`bench_scale`: machine, measured terms, assumptions, predictions, measured runs."""
    m, a = result["measured"], result["assumed"]
    title = (f"cardrl bench scale {result['game']}: DMC scaling model, {result['seconds']:g} s per measurement "
             f"(after a warm-up)")
    lines = header_lines(title, result["machine"], result.get("load_before"))
    lines += ["", "measured here (rates and times per CPU-second of the process doing the work; a GPU learner's per "
                  "wall second):",
              f"  r1     one runner sampling, 1 core         {m['r1']:>12,.0f} frames/s  ({m['envs_per_runner']} games "
              f"in lock-step, {m['runner_frames']:,} frames in {m['runner_cpu_s']:.1f} s)",
              f"  L      learner ingest, data ready          {m['learner']:>12,.0f} frames/s  ({m['learner_device']}; "
              f"{m['learner_updates']} updates of {m['modules']} module(s) x {m['frames_per_update']:,} frames, "
              f"{_ms(m['update_s'])} each)",
              f"  b      bytes per frame (object store)      {m['bytes_per_frame']:>12,.0f} B         (pickle 5 "
              f"with out-of-band buffers, as Ray; {m['reply_bytes'] / 2**20:.2f} MiB per reply of "
              f"{m['fragment']} frames)",
              f"  s_out  runner CPU serializing a frame      {_us(m['s_out']):>12}",
              f"  s_in   driver CPU taking a frame in        {_us(m['s_in']):>12}      (deserialize, buffer add "
              f"and take)",
              f"  W      weights broadcast                   {m['weight_bytes'] / 2**20:>10,.2f} MiB",
              f"  t_pub  weights get_state + ray.put         {_ms(m['t_pub']):>12}      (driver, once per update; "
              f"ray.put alone {_ms(m['t_put'])})",
              f"  t_get  ray.get of them in a worker         {_ms(m['t_get']):>12}      (per runner and request)",
              f"  t_set  runner module set_state             {_ms(m['t_set']):>12}      (per runner and request)"]
    speed = ("measured (the learner ran on the GPU)" if a["gpu_speedup"] is None
             else f"{a['gpu_speedup']:g}x one CPU core, ASSUMED (no GPU here; --gpu-speedup)")
    lines += ["", f"assumed: GPU learner speed {speed}; network {a['gbps']:g} Gbit/s into/out of the learner's "
                  f"node (--network-gbps); {a['node_cpus']} CPUs per node (--node-cpus); the learner and its driver "
                  f"take {a['learner_cpus']} CPU(s) (--learner-cpus), the rest run one runner each",
              "model: u = M*fpu; r = f/(f/r1 + f*s_out + t_get + t_set); L_eff = 1/(1/(L*g) + s_in + t_pub/u); "
              "N_net = B/(b*x + W*(n-1)/u); F = min(R*r, L_eff, N_net); R_sat = ceil(L_eff/r) (docs/scaling.md)",
              ""]
    head = ("CPUs", "learner", "runners", "R*r", "L_eff", "N_net", "predicted", "bound", "saturates at")
    rows = [head]
    for p in result["predictions"]:
        rows.append((str(p["cpus"]), "GPU" if p["gpu"] else "CPU", str(p["runners"]), format_number(p["sampling"]),
                     format_number(p["learner"]), "-" if math.isinf(p["network"]) else format_number(p["network"]),
                     format_number(p["predicted"]), p["bound"],
                     f"{_plural(p['saturation_runners'], 'runner')} ({p['saturation_cpus']} CPUs)"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines.append("predicted frames trained per second:")
    for r in rows:
        lines.append("  " + "  ".join(c.rjust(w) if i not in (1, 7) else c.ljust(w)
                                      for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    lines += ["", *_parallel_lines(result)]
    return "\n".join(lines)


def print_bench_scale(result: dict[str, Any]) -> None:
    """Print :func:`bench_scale`'s report."""
    print(result["table"])
    sys.stdout.flush()


def _frames_per_update_default() -> int:
    from dataclasses import fields

    from cardrl.algorithms.dmc.settings import DMCSettings

    return next(f.default for f in fields(DMCSettings) if f.name == "frames_per_update")


def _options() -> tuple[tuple[str, Any, Any, str], ...]:
    """``cardrl bench scale``'s options: flag, type (None: text), default, help (argparse fills ``%(default)s``)."""
    return (
        ("--seconds", positive_float, 10.0,
         "seconds of sampling and of learner updates, each after a warm-up (default 10)"),
        ("--frames-per-update", positive_int, None,
         f"frames per learner update of each module (default: the DMC config's, {_frames_per_update_default()})"),
        ("--clusters", None, ",".join(map(str, DEFAULT_CLUSTERS)),
         "CPUs of the clusters to predict, comma-separated (default %(default)s)"),
        ("--gpu-speedup", positive_float, DEFAULT_GPU_SPEEDUP,
         "ASSUMED speed of a GPU learner over one CPU core when no GPU is here to measure (default %(default)s)"),
        ("--learner-cpus", positive_int, 1, "CPUs the learner and its driver take from a cluster (default 1)"),
        ("--node-cpus", positive_int, DEFAULT_NODE_CPUS, "assumed CPUs per node of the clusters (default %(default)s)"),
        ("--network-gbps", positive_float, DEFAULT_NETWORK_GBPS,
         "assumed network bandwidth of the learner's node in Gbit/s (default %(default)s)"),
        ("--runners", None, None, "runner counts to run the real DMC algorithm with, comma-separated, or none "
                                  "(default: 1, 2, 4, ... while they and the learner fit this machine's cores)"),
        ("--parallel-seconds", positive_float, 30.0,
         "timed seconds of each real DMC run, after its first update (default 30)"),
    )


def add_scale_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``cardrl bench scale``."""
    parser.add_argument("game", choices=game_names(), help="the game whose default DMC config is measured")
    for flag, kind, default, text in _options():
        parser.add_argument(flag, type=kind, default=default, help=text)
    return parser


def check_scale_args(args: argparse.Namespace) -> tuple[list[int] | None, list[int]]:
    """What ``cardrl bench scale`` checks before it measures (ValueError naming the option): the runner counts and
    the clusters, returned."""
    runners = None if args.runners is None else parse_counts(args.runners, "--runners")
    clusters = _check_options(args.seconds, args.frames_per_update, parse_counts(args.clusters, "--clusters"),
                              args.gpu_speedup, args.learner_cpus, args.node_cpus, args.network_gbps, runners,
                              args.parallel_seconds, 1)
    return runners, clusters


def main_bench_scale(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """``cardrl bench scale GAME [options]``: prints the report and returns 0; a bad option prints
    ``cardrl bench scale: error: ...`` to stderr and returns 2."""
    if args is None or not isinstance(args, argparse.Namespace):
        args = add_scale_arguments(argparse.ArgumentParser(prog="cardrl bench scale")).parse_args(args)
    try:
        runners, clusters = check_scale_args(args)
        result = bench_scale(args.game, float(args.seconds), frames_per_update=args.frames_per_update,
                             clusters=clusters, gpu_speedup=float(args.gpu_speedup),
                             learner_cpus=int(args.learner_cpus), node_cpus=int(args.node_cpus),
                             gbps=float(args.network_gbps), runners=runners,
                             parallel_seconds=float(args.parallel_seconds))
    except ValueError as err:
        print(f"cardrl bench scale: error: {err}", file=sys.stderr)
        return 2
    print_bench_scale(result)
    return 0
