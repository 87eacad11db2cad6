"""``--json-out PATH`` of ``cardrl bench env`` and ``cardrl bench train``: every figure the benchmark printed, with
the command, the date, the machine and whether the machine was otherwise idle, in one JSON file.

The file (``"format": "cardrl-bench/1"``)::

    {"format", "benchmark": "env" | "env --moves" | "train", "command": "cardrl bench ...",
     "date": "2026-11-28T18:02:03Z" (UTC, at the start), "finished": (UTC, at the end), "wall_s",
     "machine": machine_description(), "cpus",
     "load_average": {"start": [1, 5, 15 minutes], "end": [...]} (null where the platform has none),
     "otherwise_idle": true | false | null, "idle_rule": how otherwise_idle was decided,
     "figures": the headline figures (below), "result": the benchmark's whole result, "output": the text printed}

``figures`` of ``env``: ``steps_per_s`` (engine, features, env), ``encode_us``, ``movegen_us`` and
``movegen_p99_us`` by lead size, ``peers`` (each measured peer's ``steps_per_s`` with and without features and
``movegen_us``) and ``ratios`` (ours / theirs, as printed); of ``env --moves``: the lead table and, in a game with
wild cards, the table by wild cards held; of ``train``: ``frames_per_s`` of cardrl's DMC, of the variant and of
DouZero's trainer, ``ratio_vs_douzero``, ``variant_ratio`` and the ``summary`` lines. Neither command repeats a
measurement, so there are no per-repeat values. A key with no measurement behind it is null.

``otherwise_idle``: true when the 1-minute load average before the benchmark was below :data:`IDLE_LOAD`; the
end's load average is recorded beside it but not judged, since it includes the benchmark's own processes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from cardrl.bench.common import machine_description
from cardrl.machine_load import load_averages

__all__ = ["IDLE_LOAD", "FORMAT", "utc_now", "bench_command", "BenchClock", "env_figures",
           "moves_figures", "train_figures", "prepare_json_out", "write_json_out"]

FORMAT = "cardrl-bench/1"
IDLE_LOAD = 0.5  # 1-minute load average below which the machine counts as otherwise idle before a run
IDLE_RULE = (f"1-minute load average before the run below {IDLE_LOAD} (the end's load average includes the "
             f"benchmark's own processes and is not judged)")


def utc_now() -> str:
    """The time now in UTC, ``2026-11-28T18:02:03Z``."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def bench_command(target: str, args: argparse.Namespace) -> str:
    """The command line that ran ``cardrl bench TARGET``: this process's own arguments where it is the ``cardrl``
    command, else rebuilt from the parsed ``args`` (every option with its value)."""
    if sys.argv[1:3] == ["bench", target]:
        return "cardrl " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    words = ["cardrl", "bench", target, str(args.game)]
    for key, value in sorted(vars(args).items()):
        if key in ("target", "game", "command") or key.startswith("_") or value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)):
            words += [flag, *(str(v) for v in value)]
        else:
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


class BenchClock:
    """The start of a benchmark: its UTC date, wall clock and load averages (taken when made)."""

    def __init__(self) -> None:
        self.date = utc_now()
        self.t0 = time.time()
        self.load_start = load_averages()

    def record(self, benchmark: str, command: str, figures: dict[str, Any], result: dict[str, Any],
               output: str) -> dict[str, Any]:
        """The JSON record (module docstring), its end taken now."""
        start = self.load_start
        idle = None if not start else bool(start[0] < IDLE_LOAD)
        return {"format": FORMAT, "benchmark": benchmark, "command": command, "date": self.date,
                "finished": utc_now(), "wall_s": round(time.time() - self.t0, 3), "machine": machine_description(),
                "cpus": os.cpu_count(), "load_average": {"start": start, "end": load_averages()},
                "otherwise_idle": idle, "idle_rule": IDLE_RULE, "figures": figures, "result": result,
                "output": output}


def _rate(part: dict[str, Any] | None) -> float | None:
    return None if not part or "skipped" in part else part.get("steps_per_s")


def env_figures(result: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of :func:`cardrl.bench.env.bench_env`'s result."""
    ours = result["ours"]
    peers = {}
    for name, peer in result.get("peers", {}).items():
        if "skipped" in peer:
            peers[name] = {"skipped": peer["skipped"]}
            continue
        peers[name] = {"env_steps_per_s": _rate(peer.get("env")), "game_steps_per_s": _rate(peer.get("game")),
                       "movegen_us": peer.get("movegen_us") or {}}
    return {"steps_per_s": {part: _rate(ours.get(part)) for part in ("engine", "features", "env")},
            "encode_us": ours.get("encode_us"), "movegen_us": ours.get("movegen_us"),
            "movegen_p99_us": ours.get("movegen_p99_us"), "lead_moves": ours.get("lead_moves"),
            "peers": peers, "ratios": result.get("ratios", {}), "summary": result.get("summary", [])}


def moves_figures(result: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of :func:`cardrl.bench.env.bench_moves`' result."""
    ours = result["ours"]
    keys = ("movegen_us", "movegen_p99_us", "lead_moves", "lead_moves_max")
    figures: dict[str, Any] = {k: ours.get(k) for k in keys}
    if "wild" in ours:
        figures["wild"] = {"size": ours["wild"]["size"], **{k: ours["wild"].get(k) for k in keys}}
    return figures


def train_figures(result: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of :func:`cardrl.bench.train.bench_train`'s result."""
    variant = result.get("ours_variant")
    douzero = result.get("peers", {}).get("douzero") or {}
    ours_fps = result["ours"].get("frames_per_s")
    return {"frames_per_s": {"ours": ours_fps, "ours_variant": None if not variant else variant.get("frames_per_s"),
                             "douzero": douzero.get("frames_per_s")},
            "frames_sampled_per_s": result["ours"].get("frames_sampled_per_s"),
            "variant": None if not variant else variant["settings"].get("options"),
            "variant_ratio": (variant["frames_per_s"] / ours_fps if variant and ours_fps else None),
            "ratio_vs_douzero": result.get("ratio"), "douzero_skipped": douzero.get("skipped"),
            "summary": result.get("summary", [])}


def _plain(x: Any) -> Any:
    """``x`` with numpy scalars and arrays as Python numbers and lists, non-finite floats as null and mapping keys
    as strings, so that the file is strict JSON."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "tolist"):  # numpy arrays and scalars
        return _plain(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def prepare_json_out(path: str | os.PathLike) -> Path:
    """Before a benchmark runs: make ``path``'s folder, or ValueError when ``path`` is a folder, so that a long
    measurement does not end unable to write its file."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--json-out {path} is a folder; give a file name (e.g. {path / 'bench.json'})")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_json_out(path: str | os.PathLike, record: dict[str, Any]) -> Path:
    """Write ``record`` to ``path`` as strict JSON (folders made as needed); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_plain(record), indent=1, allow_nan=False) + "\n")
    return path
