"""The scaling model of ``cardrl bench scale`` (docs/scaling.md), pure: frames/s of a cluster of ``C`` CPUs from the
terms measured on one machine (:mod:`cardrl.bench.scale_measure`)::

    u      = M * fpu                                           frames per update (M Q-modules, all ready when saturated)
    r      = f / (f / r1 + f * s_out + t_get + t_set)          one runner, fragment f, new weights every request
    L_eff  = 1 / (1 / (L * g) + s_in + t_pub / u)              the learner and its driver (g: GPU speed-up, 1 on CPU)
    N_net  = B / (b * x + W * (n - 1) / u)                     n nodes of node_cpus; x: share of frames from other nodes
    F(C)   = min(R * r, L_eff, N_net)                          predicted frames trained per second
    R_sat  = ceil(L_eff / r)                                   runners that saturate the learner
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["predict", "predict_here", "runner_rate", "learner_rate", "network_cap", "default_runner_counts",
           "parse_counts", "DEFAULT_CLUSTERS", "DEFAULT_GPU_SPEEDUP", "DEFAULT_NETWORK_GBPS", "DEFAULT_NODE_CPUS"]

DEFAULT_CLUSTERS = (4, 16, 64, 160)
# Assumed, not measured here (no GPU on the development machine): a GPU learner (an A100/H100 class card) trains
# this many times the frames/s of one CPU core on DMC's networks at frames_per_update 3,200. The driver's own CPU per
# frame (deserializing, buffering, putting the weights) is not sped up: the model keeps it on the CPU.
DEFAULT_GPU_SPEEDUP = 30.0
DEFAULT_NETWORK_GBPS = 10.0  # assumed bandwidth into (and out of) the learner's node, Gbit/s
DEFAULT_NODE_CPUS = 16  # assumed CPUs per node of the clusters


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

