"""The terms of ``cardrl bench scale``'s model (:mod:`cardrl.bench.scale_model`, docs/scaling.md), measured in this
process on DMC's own code paths: one :class:`~cardrl.algorithms.dmc.dmc.DMC` built from the game's default
``DMCConfig`` with its runner in this process (``num_env_runners=0``) and its learner here too (on the GPU when torch
sees one), so that what is timed is what DMC runs, never a copy of it:

1. **sampling** ``r1``: ``algo.env_runner.sample()`` (DMC's env runner) on one core, per CPU-second;
2. **the learner** ``L``: ``algo.training_step()`` (DMC's own: each module's newest ``frames_per_update`` frames
   taken from its buffer, one ``LearnerGroup.update`` of every module), its buffers filled beforehand, untimed,
   through DMC's ingest of the sampled replies (cycled when fewer frames were sampled than an update takes);
3. **the object store**: the replies serialized as Ray serializes them (pickle 5, out-of-band buffers), bytes per
   frame ``b`` and the runner's CPU per frame ``s_out``; the driver's CPU per frame to take a reply in ``s_in``
   (deserialize, then DMC's ingest into its buffers);
4. **the weight broadcast**: the inference weights DMC sends with every request, ``W``; their publication
   ``t_pub`` (``LearnerGroup.get_state``, then ``ray.put``), a ``ray.get`` in another process ``t_get`` and the
   runner's ``load_weights`` ``t_set``.

Uses one private name of DMC, ``DMC._ingest`` (its ingest of a sample reply), until DMC makes it public.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

__all__ = ["build_dmc", "measure_runner", "measure_learner", "fill_buffers", "measure_object_store", "measure_broadcast",
           "BROADCAST_REPEATS"]

BROADCAST_REPEATS = 5
_MIN_REPLIES = 4  # sample replies timed at least, whatever the seconds
_MIN_UPDATES = 3  # learner updates timed at least, whatever the seconds


def build_dmc(config):
    """DMC as ``config`` builds it, with its env runner and its learner in this process (the learner on the GPU when
    torch sees one)."""
    import torch

    gpu = torch.cuda.is_available()
    config = (config.copy(copy_frozen=False).env_runners(num_env_runners=0)
              .learners(num_learners=0, num_gpus_per_learner=1 if gpu else 0))
    return config.build_algo()


def _pickled(obj: Any) -> tuple[int, bytes, list]:
    """``obj`` serialized as Ray does (pickle 5, numpy arrays as out-of-band buffers) and its size in bytes."""
    import ray.cloudpickle as cloudpickle

    buffers: list = []
    payload = cloudpickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return len(payload) + sum(b.raw().nbytes for b in buffers), payload, buffers


def measure_runner(algo, seconds: float) -> dict[str, Any]:
    """Sampling alone: DMC's env runner in this process, one warm-up ``sample()``, then ``sample()`` calls for
    ``seconds`` of wall time (at least ``_MIN_REPLIES`` of them)."""
    runner = algo.env_runner
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
    return {"samples": samples, "frames": frames, "cpu_s": cpu, "wall_s": time.perf_counter() - wall0,
            "r1": frames / cpu}


def _module_frames(samples: list[dict]) -> dict[str, int]:
    """Frames of each module in the sample replies."""
    frames: dict[str, int] = {}
    for sample in samples:
        for mid, cols in sample["batch"].items():
            frames[mid] = frames.get(mid, 0) + len(next(iter(cols.values())))
    return frames


def fill_buffers(algo, samples: list[dict], frames_per_update: int) -> None:
    """DMC's ingest of the replies, as many times over as it takes for every module's buffer to hold a batch of
    ``frames_per_update`` frames: the next ``training_step`` then updates every module once without sampling."""
    repeats = max(math.ceil(frames_per_update / n) for n in _module_frames(samples).values())
    for sample in itertools.chain.from_iterable(itertools.repeat(samples, repeats)):
        algo._ingest(sample)


def measure_learner(algo, samples: list[dict], seconds: float, frames_per_update: int) -> dict[str, Any]:
    """DMC's training step on full buffers: one warm-up step, then steps for ``seconds`` of timed time (at least
    ``_MIN_UPDATES``); each step updates every module once on ``frames_per_update`` frames. The buffers are refilled
    between steps, untimed. Per CPU-second of this process on the CPU; on a GPU per wall second (the CPU waits on
    the device)."""
    import torch

    gpu = torch.cuda.is_available()
    per_module = _module_frames(samples)
    clock = time.perf_counter if gpu else time.process_time
    fill_buffers(algo, samples, frames_per_update)
    algo.training_step()  # warm-up: optimizer state, first kernels
    updates, elapsed = 0, 0.0
    while elapsed < seconds or updates < _MIN_UPDATES:
        fill_buffers(algo, samples, frames_per_update)
        t0 = clock()
        algo.training_step()  # the learner's update returns reduced metrics: done (synchronised) on return
        elapsed += clock() - t0
        updates += 1
    elapsed = max(elapsed, 1e-9)
    frames = updates * frames_per_update * len(per_module)
    return {"device": torch.cuda.get_device_name(0) if gpu else "cpu (1 torch thread)", "on_gpu": gpu,
            "updates": updates, "modules": len(per_module), "frames": frames, "update_s": elapsed / updates,
            "learner": frames / elapsed}


def measure_object_store(algo, samples: list[dict]) -> dict[str, float]:
    """Bytes per frame of the sample replies serialized as Ray does; the runner's CPU per frame serializing them and
    the driver's taking them in (deserializing, then DMC's ingest into its buffers)."""
    import ray.cloudpickle as cloudpickle

    total_bytes = frames = 0
    serialized = []
    t0 = time.thread_time()
    for sample in samples:
        size, payload, buffers = _pickled(sample)
        serialized.append((payload, buffers))
        total_bytes += size
        frames += sample["frames"]
    s_out = (time.thread_time() - t0) / frames
    t0 = time.thread_time()
    for payload, buffers in serialized:
        algo._ingest(cloudpickle.loads(payload, buffers=buffers))
    s_in = (time.thread_time() - t0) / frames
    return {"bytes_per_frame": total_bytes / frames, "reply_bytes": total_bytes / len(samples), "s_out": s_out,
            "s_in": s_in, "replies": len(samples)}


def _fetch_seconds(refs: list) -> float:
    """CPU seconds of this worker process to ``ray.get`` the object of ``refs[0]``."""
    import ray

    t0 = time.process_time()
    ray.get(refs[0])
    return time.process_time() - t0


def _inference_weights(algo):
    """The weights DMC sends with every sample request: its learner's inference-only module state."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    return algo.learner_group.get_state(components=COMPONENT_LEARNER + "/" + COMPONENT_RL_MODULE,
                                        inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]


def measure_broadcast(algo, repeats: int) -> dict[str, float]:
    """The inference weights' size, their publication by the driver (``get_state`` from the learner, then
    ``ray.put``), ``ray.get`` in another worker process (a Ray task) and the runner's ``load_weights``; medians over
    ``repeats`` of the CPU seconds of the process doing each (so that other load on the machine does not inflate
    them)."""
    import statistics

    import ray

    size = _pickled(_inference_weights(algo))[0]
    fetch = ray.remote(num_cpus=0)(_fetch_seconds)
    ray.get(fetch.remote([ray.put(0)]))  # warm-up: the worker process starts
    times: dict[str, list[float]] = {"t_pub": [], "t_put": [], "t_get": [], "t_set": []}
    for seq in range(repeats + 1):
        t0 = time.process_time()
        state = _inference_weights(algo)
        t1 = time.process_time()
        ref = ray.put(state)
        t2 = time.process_time()
        times["t_pub"].append(t2 - t0)
        times["t_put"].append(t2 - t1)
        times["t_get"].append(ray.get(fetch.remote([ref])))
        t0 = time.process_time()
        algo.env_runner.load_weights(state, 10**9 + seq)  # newer than any it holds: loaded
        times["t_set"].append(time.process_time() - t0)
        del ref
    # the first of each is a warm-up
    return {"weight_bytes": float(size), **{k: float(statistics.median(v[1:])) for k, v in times.items()}}
