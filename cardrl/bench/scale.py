"""``cardrl bench scale GAME``: a scaling model of DMC, measured on the machine at hand, predicting frames/s on
clusters of 4 to 160 CPUs with a CPU or a GPU learner.

What it measures, in this process, with the real parts (the game's default ``DMCConfig``, docs/scaling.md):

1. **one runner's sampling rate** ``r1``: frames/s of one :class:`~cardrl.algorithms.dmc.dmc_env_runner.DMCEnvRunner`
   calling ``sample()`` on one core (one torch thread, no learner running beside it), per CPU-second;
2. **the learner's ingest rate** ``L``: frames/s of real DMC Learner updates (``LearnerGroup.update``, every
   Q-module at once, ``frames_per_update`` frames each) on batches made from the runner's samples, ready in memory:
   on the GPU when torch sees one, else on one CPU core;
3. **bytes per frame** ``b`` through the object store: a sample reply serialized as Ray serializes it (pickle
   protocol 5 with out-of-band buffers, ``ray.cloudpickle``), and the driver's CPU per frame to take it in
   (deserialize, :class:`~cardrl.algorithms.dmc.buffers.FrameBuffer` add and take), ``s_in``; the runner's CPU per
   frame to serialize it, ``s_out``;
4. **the weight broadcast**: the inference weights' size ``W`` (the state DMC puts with every sample request), the
   driver's time to publish them once per update, ``t_pub`` (``LearnerGroup.get_state`` then ``ray.put``, as
   :class:`~cardrl.algorithms.dmc.dmc.DMC` does), a runner's ``ray.get`` in another process ``t_get`` and its
   module's ``set_state`` ``t_set``.

From these, for a cluster of ``C`` CPUs (``R = C - learner_cpus`` runners) it predicts (docs/scaling.md)::

    u      = M * fpu                                           frames per update (M Q-modules, all ready when saturated)
    r      = f / (f / r1 + f * s_out + t_get + t_set)          one runner, fragment f, new weights every request
    L_eff  = 1 / (1 / (L * g) + s_in + t_pub / u)              the learner and its driver (g: GPU speed-up, 1 on CPU)
    N_net  = B / (b * x + W * (n - 1) / u)                     n nodes of node_cpus; x: share of frames from other nodes
    F(C)   = min(R * r, L_eff, N_net)                          predicted frames trained per second
    R_sat  = ceil(L_eff / r)                                   runners that saturate the learner

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
import time
from collections.abc import Sequence
from typing import Any

from cardrl.bench.common import format_number, header_lines, load_average, machine_description
from cardrl.games.registry import game_names, get_game

__all__ = ["bench_scale", "format_bench_scale", "print_bench_scale", "main_bench_scale", "add_scale_arguments",
           "predict", "predict_here", "runner_rate", "learner_rate", "network_cap", "default_runner_counts",
           "parse_counts", "DEFAULT_CLUSTERS", "DEFAULT_GPU_SPEEDUP", "DEFAULT_NETWORK_GBPS", "DEFAULT_NODE_CPUS"]

DEFAULT_CLUSTERS = (4, 16, 64, 160)
# Assumed, not measured here (no GPU on the development machine): a GPU learner (an A100/H100 class card) trains
# this many times the frames/s of one CPU core on DMC's networks at frames_per_update 3,200. The driver's own CPU per
# frame (deserializing, buffering, putting the weights) is not sped up: the model keeps it on the CPU.
DEFAULT_GPU_SPEEDUP = 30.0
DEFAULT_NETWORK_GBPS = 10.0  # assumed bandwidth into (and out of) the learner's node, Gbit/s
DEFAULT_NODE_CPUS = 16  # assumed CPUs per node of the clusters
_BROADCAST_REPEATS = 5
_MIN_REPLIES = 4  # sample replies timed at least, whatever the seconds
_MIN_UPDATES = 3  # learner updates timed at least, whatever the seconds


# ---- the model (pure) -------------------------------------------------------------------------------------------
def runner_rate(r1: float, fragment: int, s_out: float, t_get: float, t_set: float) -> float:
    """Frames/s of one runner that serializes its replies (``s_out`` s/frame) and loads new weights with every
    request of ``fragment`` frames (``t_get + t_set`` s): ``f / (f / r1 + f * s_out + t_get + t_set)``."""
    if r1 <= 0 or fragment < 1:
        raise ValueError(f"runner rate needs r1 > 0 and fragment >= 1, got {r1}, {fragment}")
    return fragment / (fragment / r1 + fragment * s_out + t_get + t_set)


def learner_rate(learner: float, s_in: float, t_pub: float, frames_per_update: int, speedup: float = 1.0) -> float:
    """Frames/s the learner trains on when data is always ready: its update time per frame (``1 / (learner *
    speedup)``) plus the driver's CPU per frame taking samples in (``s_in``) and publishing new weights once per
    update of ``frames_per_update`` frames, all modules together (``t_pub``)."""
    if learner <= 0 or speedup <= 0 or frames_per_update < 1:
        raise ValueError(f"learner rate needs learner > 0, speedup > 0, frames_per_update >= 1; got {learner}, "
                         f"{speedup}, {frames_per_update}")
    return 1.0 / (1.0 / (learner * speedup) + s_in + t_pub / frames_per_update)


def network_cap(cpus: int, runners: int, node_cpus: int, bytes_per_frame: float, weight_bytes: float,
                frames_per_update: int, gbps: float) -> float:
    """Frames/s the learner node's network carries: samples from runners on other nodes in, one weight copy per
    other node and update of ``frames_per_update`` frames out (Ray sends an object once per node), over ``gbps``
    Gbit/s. ``inf`` on one node."""
    nodes = math.ceil(cpus / node_cpus)
    if nodes <= 1 or runners <= 0:
        return math.inf
    local = max(0, min(runners, node_cpus - (cpus - runners)))  # runners beside the learner on its node
    remote_share = (runners - local) / runners
    per_frame = bytes_per_frame * remote_share + weight_bytes * (nodes - 1) / frames_per_update
    return gbps * 1e9 / 8 / per_frame


def predict(m: dict[str, float], cpus: int, gpu: bool, *, learner_cpus: int = 1, gpu_speedup: float =
            DEFAULT_GPU_SPEEDUP, node_cpus: int = DEFAULT_NODE_CPUS, gbps: float = DEFAULT_NETWORK_GBPS,
            ) -> dict[str, Any]:
    """The model's prediction for ``cpus`` CPUs with a CPU learner or (``gpu``) a GPU learner.

    ``m`` holds the measured terms: ``r1``, ``learner`` (frames/s on ``learner_device``), ``learner_on_gpu``
    (bool: then no speed-up is assumed for ``gpu``; a CPU learner is not predicted from a GPU figure),
    ``fragment``, ``frames_per_update`` and ``modules`` (their product ``u``: frames per update of all modules),
    ``s_out``, ``s_in``, ``t_pub``, ``t_get``, ``t_set``, ``bytes_per_frame``, ``weight_bytes``. On more than one
    node a runner's ``t_get`` grows by the weights' transfer time at ``gbps``. Returns ``cpus``, ``runners``,
    ``gpu``, ``runner_rate``, ``sampling``, ``learner``, ``network``, ``predicted``, ``bound`` (the smallest term's
    name), ``saturation_runners`` and ``saturation_cpus``.
    """
    if cpus <= learner_cpus:
        raise ValueError(f"a cluster of {cpus} CPUs has no CPU left for a runner beside {learner_cpus} learner CPU(s)")
    runners = cpus - learner_cpus
    u = _frames_per_broadcast(m)
    t_get = m["t_get"] + (m["weight_bytes"] * 8 / (gbps * 1e9) if math.ceil(cpus / node_cpus) > 1 else 0.0)
    r = runner_rate(m["r1"], int(m["fragment"]), m["s_out"], t_get, m["t_set"])
    if gpu:
        speedup = 1.0 if m.get("learner_on_gpu") else gpu_speedup
    else:
        if m.get("learner_on_gpu"):
            raise ValueError("the learner was measured on a GPU: no CPU learner figure to predict from")
        speedup = 1.0
    lrate = learner_rate(m["learner"], m["s_in"], m["t_pub"], u, speedup)
    net = network_cap(cpus, runners, node_cpus, m["bytes_per_frame"], m["weight_bytes"], u, gbps)
    terms = {"sampling": runners * r, "learner": lrate, "network": net}
    bound = min(terms, key=terms.get)
    sat = math.ceil(lrate / r)
    return {"cpus": cpus, "runners": runners, "gpu": gpu, "runner_rate": r, **terms, "predicted": terms[bound],
            "bound": bound, "saturation_runners": sat, "saturation_cpus": sat + learner_cpus}


def _frames_per_broadcast(m: dict[str, float]) -> int:
    """Frames trained per weight broadcast: every Q-module's batch (all are ready when the learner is saturated)."""
    return int(m["frames_per_update"]) * int(m.get("modules", 1))


def predict_here(m: dict[str, float], runners: int, machine_cpus: int, learner_cpus: int = 1) -> float:
    """The prediction for ``runners`` runners and a CPU learner on this machine's ``machine_cpus`` cores: as
    :func:`predict` on one node, scaled down by ``machine_cpus / (runners + learner_cpus)`` when the processes
    outnumber the cores."""
    r = runner_rate(m["r1"], int(m["fragment"]), m["s_out"], m["t_get"], m["t_set"])
    lrate = learner_rate(m["learner"], m["s_in"], m["t_pub"], _frames_per_broadcast(m))
    return min(runners * r, lrate) * min(1.0, machine_cpus / (runners + learner_cpus))


def default_runner_counts(cpus: int, learner_cpus: int = 1) -> list[int]:
    """1, 2, 4, ... runners while runners plus the learner's CPUs fit ``cpus`` (at least 1 runner)."""
    counts, n = [], 1
    while n == 1 or n + learner_cpus <= cpus:
        counts.append(n)
        n *= 2
    return counts


def parse_counts(text: str, name: str) -> list[int]:
    """``"1,2,4"`` as ``[1, 2, 4]``; ``""``, ``"0"`` or ``"none"`` as ``[]``; ValueError naming ``name``."""
    if text.strip().lower() in ("", "0", "none"):
        return []
    try:
        counts = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise ValueError(f"{name} takes comma-separated positive ints such as 1,2,4, got {text!r}") from None
    if not counts or any(c < 1 for c in counts):
        raise ValueError(f"{name} takes comma-separated positive ints such as 1,2,4, got {text!r}")
    return counts


# ---- measurements -----------------------------------------------------------------------------------------------
def _pickled_size(obj: Any) -> tuple[int, bytes, list]:
    """Bytes of ``obj`` serialized as Ray does (pickle 5, numpy arrays as out-of-band buffers)."""
    import ray.cloudpickle as cloudpickle

    buffers: list = []
    payload = cloudpickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return len(payload) + sum(b.raw().nbytes for b in buffers), payload, buffers


def _measure_runner(config, seconds: float) -> dict[str, Any]:
    """Sampling alone: one DMCEnvRunner in this process, one warm-up ``sample()``, then ``sample()`` calls for
    ``seconds`` of wall time (at least ``_MIN_REPLIES`` of them)."""
    from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner

    runner = DMCEnvRunner(config=config, worker_index=1)
    runner.sample()  # warm-up: first deals, numba kernels, torch's first pass
    samples, frames = [], 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        sample = runner.sample()
        samples.append(sample)
        frames += sample["frames"]
        if time.perf_counter() - wall0 >= seconds and len(samples) >= _MIN_REPLIES:
            break
    cpu = max(time.process_time() - cpu0, 1e-9)
    return {"runner": runner, "samples": samples, "frames": frames, "cpu_s": cpu,
            "wall_s": time.perf_counter() - wall0, "r1": frames / cpu}


def _learner_batch(samples: list[dict], frames_per_update: int):
    """One DMC train batch: every module's columns of the samples, ``frames_per_update`` rows each (cycled when
    fewer were sampled)."""
    import numpy as np
    from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch

    modules: dict[str, dict[str, list]] = {}
    for sample in samples:
        for mid, cols in sample["batch"].items():
            for key, value in cols.items():
                modules.setdefault(mid, {}).setdefault(key, []).append(value)
    batches = {}
    for mid, cols in modules.items():
        joined = {k: np.concatenate(v) for k, v in cols.items()}
        n = len(next(iter(joined.values())))
        rows = np.arange(frames_per_update) % n
        batches[mid] = SampleBatch({k: v[rows] for k, v in joined.items()})
    return MultiAgentBatch(batches, env_steps=frames_per_update * len(batches))


def _measure_learner(config, samples: list[dict], seconds: float, frames_per_update: int) -> dict[str, Any]:
    """Real DMC Learner updates on a ready batch: one warm-up update, then updates for ``seconds`` of wall time (at
    least ``_MIN_UPDATES`` of them)."""
    import torch

    gpu = torch.cuda.is_available()
    config = config.copy(copy_frozen=False).learners(num_learners=0, num_gpus_per_learner=1 if gpu else 0)
    group = config.build_learner_group()
    batch = _learner_batch(samples, frames_per_update)
    group.update(batch=batch)  # warm-up: optimizer state, first kernels
    updates = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        group.update(batch=batch)  # returns reduced metrics: the update is done (synchronised) on return
        updates += 1
        if time.perf_counter() - wall0 >= seconds and updates >= _MIN_UPDATES:
            break
    wall = time.perf_counter() - wall0
    cpu = max(time.process_time() - cpu0, 1e-9)
    frames = updates * batch.env_steps()
    # per CPU-second on the CPU; on a GPU the wall clock (the CPU waits on the device)
    elapsed = wall if gpu else cpu
    return {"group": group, "device": torch.cuda.get_device_name(0) if gpu else "cpu (1 torch thread)",
            "on_gpu": gpu, "updates": updates, "modules": len(batch.policy_batches), "frames": frames,
            "update_s": elapsed / updates, "learner": frames / elapsed}


def _measure_object_store(samples: list[dict], frames_per_update: int) -> dict[str, float]:
    """Bytes per frame of the sample replies serialized as Ray does; the runner's CPU per frame serializing them and
    the driver's taking them in (deserializing, FrameBuffer add, and take once a module holds a batch)."""
    import ray.cloudpickle as cloudpickle

    from cardrl.algorithms.dmc.buffers import FrameBuffer

    total_bytes = frames = 0
    serialized = []
    t0 = time.thread_time()
    for sample in samples:
        size, payload, buffers = _pickled_size(sample)
        serialized.append((payload, buffers))
        total_bytes += size
        frames += sample["frames"]
    s_out = (time.thread_time() - t0) / frames
    buffers_by_module: dict[str, FrameBuffer] = {}
    t0 = time.thread_time()
    for payload, buffers in serialized:
        reply = cloudpickle.loads(payload, buffers=buffers)
        for mid, cols in reply["batch"].items():
            buffer = buffers_by_module.setdefault(mid, FrameBuffer(2 * frames_per_update))
            buffer.add(cols, 0)
            if len(buffer) >= frames_per_update:
                buffer.take(frames_per_update, 0)
    s_in = (time.thread_time() - t0) / frames
    return {"bytes_per_frame": total_bytes / frames, "reply_bytes": total_bytes / len(samples), "s_out": s_out,
            "s_in": s_in, "replies": len(samples)}


def _fetch_seconds(refs: list) -> float:
    """CPU seconds of this worker process to ``ray.get`` the object of ``refs[0]``."""
    import ray

    t0 = time.process_time()
    ray.get(refs[0])
    return time.process_time() - t0


def _measure_broadcast(group, runner, repeats: int) -> dict[str, float]:
    """The inference weights DMC sends with every sample request: size, their publication by the driver
    (``get_state`` from the learner, then ``ray.put``), ``ray.get`` in another worker process (a Ray task) and the
    runner module's ``set_state``; medians over ``repeats`` of the CPU seconds of the process doing each (so that
    other load on the machine does not inflate them)."""
    import numpy as np
    import ray
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    def weights():
        return group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                               inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]

    size = _pickled_size(weights())[0]
    fetch = ray.remote(num_cpus=0)(_fetch_seconds)
    ray.get(fetch.remote([ray.put(0)]))  # warm-up: the worker process starts
    pubs, puts, gets, sets = [], [], [], []
    for _ in range(repeats + 1):
        t0 = time.process_time()
        state = weights()
        t1 = time.process_time()
        ref = ray.put(state)
        t2 = time.process_time()
        pubs.append(t2 - t0)
        puts.append(t2 - t1)
        get = ray.get(fetch.remote([ref]))
        t0 = time.process_time()
        runner.module.set_state(state)
        sets.append(time.process_time() - t0)
        gets.append(get)
        del ref
    med = lambda xs: float(np.median(xs[1:]))  # noqa: E731  (the first of each is a warm-up)
    return {"weight_bytes": float(size), "t_pub": med(pubs), "t_put": med(puts), "t_get": med(gets),
            "t_set": med(sets)}


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
def bench_scale(game: str, seconds: float = 10.0, *, frames_per_update: int | None = None,
                clusters: Sequence[int] = DEFAULT_CLUSTERS, gpu_speedup: float = DEFAULT_GPU_SPEEDUP,
                learner_cpus: int = 1, node_cpus: int = DEFAULT_NODE_CPUS, gbps: float = DEFAULT_NETWORK_GBPS,
                runners: Sequence[int] | None = None, parallel_seconds: float = 30.0,
                broadcast_repeats: int = _BROADCAST_REPEATS) -> dict[str, Any]:
    """Measure the model's terms for ``game`` on this machine and predict ``clusters`` (module docstring).

    ``runners``: runner counts to measure with the real DMC algorithm (``None``: :func:`default_runner_counts` of
    this machine's cores; ``[]``: none). Returns ``{"game", "machine", "load_before", "cpus", "measured": {...},
    "assumed": {...}, "predictions": [per cluster and learner], "parallel": [...], "skipped": [...], "table"}``.
    """
    spec = get_game(game)
    for name, value, low in (("seconds", seconds, 0), ("gpu_speedup", gpu_speedup, 0), ("gbps", gbps, 0),
                             ("parallel_seconds", parallel_seconds, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > low:
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
    cpus = os.cpu_count() or 1
    fitting = default_runner_counts(cpus, learner_cpus)
    counts = fitting if runners is None else [int(n) for n in runners]
    skipped = [] if runners is not None else [n for n in (2 ** k for k in range(1, 8)) if n not in fitting
                                              and n + learner_cpus <= max(clusters)]
    result: dict[str, Any] = {"game": spec.name, "title": spec.title, "seconds": float(seconds), "cpus": cpus,
                              "machine": machine_description(), "load_before": load_average()}

    import torch

    torch.set_num_threads(1)  # one core per runner and per CPU learner (docs/architecture.md, "RLlib facts")
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig

    config = DMCConfig().game(spec.name).debugging(seed=0)
    if frames_per_update is not None:
        config.training(frames_per_update=frames_per_update)
    fpu = int(config.frames_per_update)
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address="local", num_cpus=max(1, cpus), include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    try:
        run = _measure_runner(config, seconds)
        learn = _measure_learner(config, run["samples"], seconds, fpu)
        store = _measure_object_store(run["samples"], fpu)
        weights = _measure_broadcast(learn["group"], run["runner"], broadcast_repeats)
        learn["group"].shutdown()
        run["runner"].stop()
    finally:
        if started_ray:
            ray.shutdown()
    measured = {"r1": run["r1"], "runner_frames": run["frames"], "runner_cpu_s": run["cpu_s"],
                "fragment": int(config.rollout_fragment_length), "envs_per_runner": int(config.num_envs_per_env_runner),
                "learner": learn["learner"], "learner_device": learn["device"], "learner_on_gpu": learn["on_gpu"],
                "learner_updates": learn["updates"], "update_s": learn["update_s"], "modules": learn["modules"],
                "frames_per_update": fpu, **store, **weights}
    result["measured"] = measured
    result["assumed"] = {"gpu_speedup": None if learn["on_gpu"] else float(gpu_speedup), "gbps": float(gbps),
                         "node_cpus": node_cpus, "learner_cpus": learner_cpus}
    predictions = []
    for c in clusters:
        for gpu in (False, True):
            if not gpu and learn["on_gpu"]:
                continue
            predictions.append(predict(measured, c, gpu, learner_cpus=learner_cpus, gpu_speedup=gpu_speedup,
                                       node_cpus=node_cpus, gbps=gbps))
    result["predictions"] = predictions
    parallel = _measure_parallel(spec.name, counts, parallel_seconds) if counts else []
    for row in parallel:
        row["predicted"] = None if learn["on_gpu"] else predict_here(measured, row["runners"], cpus, learner_cpus)
        fps = row.get("frames_per_s")
        row["efficiency"] = fps / row["predicted"] if fps and row["predicted"] else None
    result["parallel"] = parallel
    result["skipped"] = skipped
    result["table"] = format_bench_scale(result)
    return result


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms"


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
    lines += ["", f"measured with the real DMC algorithm on this machine ({result['cpus']} cores; cardrl bench train's "
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
    return "\n".join(lines)


def print_bench_scale(result: dict[str, Any]) -> None:
    """Print :func:`bench_scale`'s report."""
    print(result["table"])
    sys.stdout.flush()


def add_scale_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``cardrl bench scale``."""
    parser.add_argument("game", choices=game_names(), help="the game whose default DMC config is measured")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="seconds of sampling and of learner updates, each after a warm-up (default 10)")
    parser.add_argument("--frames-per-update", type=int, default=None,
                        help="frames per learner update of each module (default: the DMC config's, 3200)")
    parser.add_argument("--clusters", default=",".join(map(str, DEFAULT_CLUSTERS)),
                        help="CPUs of the clusters to predict, comma-separated (default %(default)s)")
    parser.add_argument("--gpu-speedup", type=float, default=DEFAULT_GPU_SPEEDUP,
                        help="ASSUMED speed of a GPU learner over one CPU core when no GPU is here to measure "
                             "(default %(default)s)")
    parser.add_argument("--learner-cpus", type=int, default=1,
                        help="CPUs the learner and its driver take from a cluster (default 1)")
    parser.add_argument("--node-cpus", type=int, default=DEFAULT_NODE_CPUS,
                        help="assumed CPUs per node of the clusters (default %(default)s)")
    parser.add_argument("--network-gbps", type=float, default=DEFAULT_NETWORK_GBPS,
                        help="assumed network bandwidth of the learner's node in Gbit/s (default %(default)s)")
    parser.add_argument("--runners", default=None,
                        help="runner counts to run the real DMC algorithm with, comma-separated, or none (default: "
                             "1, 2, 4, ... while they and the learner fit this machine's cores)")
    parser.add_argument("--parallel-seconds", type=float, default=30.0,
                        help="timed seconds of each real DMC run, after its first update (default 30)")
    return parser


def main_bench_scale(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """``cardrl bench scale GAME [options]``: prints the report and returns 0; a bad option prints
    ``cardrl bench scale: error: ...`` to stderr and returns 2."""
    if args is None or not isinstance(args, argparse.Namespace):
        args = add_scale_arguments(argparse.ArgumentParser(prog="cardrl bench scale")).parse_args(args)
    try:
        runners = None if args.runners is None else parse_counts(args.runners, "--runners")
        clusters = parse_counts(args.clusters, "--clusters")
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
