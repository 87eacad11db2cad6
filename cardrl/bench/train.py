"""``cardrl bench train GAME``: cardrl's DMC in frames trained per second, against DouZero's own trainer where the
game has it (``"douzero"`` in the game's ``GameSpec.peers``: DouDiZhu).

DMC is DouZero's Deep Monte-Carlo (Zha et al. 2021, "DouZero: Mastering DouDizhu with Self-Play Deep Reinforcement
Learning", section 4; DouZero's trainer did 400-480 frames/s on the 2-core development machine). A *frame* is one
(state, action) sample of one seat, labelled with its return; both trainers count a frame as trained when a learner
update on it is done (DouZero: ``T * B = 100 * 32`` frames of one position per update; ours: ``frames_per_update``
frames of one module per update), so the two counters are in the same unit.

Each trainer runs in its own child process with ``OMP_NUM_THREADS=1`` (DouZero trains at 0 frames/s with default
threads on 2 cores), so that no Ray state, torch threads or shared memory leak from one into the other:

* ours: ``python -m cardrl.bench.train --_ours GAME`` starts a fresh local Ray, builds ``DMCConfig().game(GAME)``
  with ``num_env_runners`` runners of 64 games, fragments of 800 frames and updates of 3,200 frames, and calls
  ``algo.train()``. A *variant* (DMC training options, e.g. ``{"prune": "mcs"}`` for ODMC, Luo & Tan 2024, eq. 2,
  or ``{"opponent_model": "luo_tan"}``; from ``--prune`` and ``--opponent-model``) is measured in a second run of
  the same kind after the plain one, and its frames/s ratio to plain DMC printed;
* DouZero: ``python -m cardrl.bench.train --_douzero`` calls ``douzero.dmc.dmc.train(flags)`` with
  ``--actor_device_cpu --training_device cpu --disable_checkpoint`` and otherwise DouZero's defaults (batch 32,
  unroll 100, 4 learner threads per position); it trains forever, so the parent kills its process group once the
  timed window is over and reads its frame counter from the ``logs.csv`` its ``FileWriter`` appends after every
  update (time and frames), cross-checked against the ``After N frames: @ X fps`` lines it logs every 5 s.

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
import csv
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from cardrl.algorithms.dmc.settings import OPPONENT_MODELS, DMCSettings
from cardrl.bench.common import header_lines, load_average, machine_description, package_version
from cardrl.games.registry import game_names, get_game

__all__ = ["bench_train", "bench_ours", "bench_douzero", "format_bench_train", "main_bench_train",
           "summary_lines", "print_bench_train", "parse_douzero_log", "read_douzero_csv", "update_rate",
           "updates_total", "child_env", "add_train_arguments", "logged_in_window", "module_updates",
           "variant_name", "variant_options", "check_variant", "DOUZERO_NUM_ACTORS", "OURS_SETTINGS"]

# DouZero's actors on this 2-core machine, measured (frames/s over 40 s and 60 s windows): 1 actor 440, 449;
# 2 actors 440, 407 (and a slower setup). One actor fills one core, its 12 learner threads share the other.
DOUZERO_NUM_ACTORS = 1
OURS_SETTINGS = {"num_envs_per_env_runner": 64, "rollout_fragment_length": 800, "frames_per_update": 3200}
DOUZERO_FRAMES_PER_UPDATE = 100 * 32  # DouZero's default unroll_length * batch_size
_RESULT_TAG = "CARDRL_BENCH_TRAIN_RESULT "
_SETUP_TIMEOUT_S = 600.0
# [INFO:1234 dmc:248 2024-01-02 03:04:05,678] After 9600 (L:3200 U:3200 D:3200) frames: @ 640.0 fps (avg@ ...
_DOUZERO_AFTER = re.compile(
    r"\[INFO:(?P<pid>\d+) \w+:\d+ (?P<asctime>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(?P<ms>\d{3})\] "
    r"After (?P<frames>\d+) \(L:(?P<L>\d+) U:(?P<U>\d+) D:(?P<D>\d+)\) frames: "
    r"@ (?P<fps>[-\d.]+) fps \(avg@ (?P<fps_avg>[-\d.]+) fps\)")


# ---- pure helpers -------------------------------------------------------------------------------
def update_rate(updates: Sequence[tuple[float, str, int]], seconds: float | None = None) -> dict[str, Any]:
    """Frames trained per second from a trainer's updates ``(time, position, frames)``, sorted by time.

    The window (``seconds`` in the result) starts at the first update and, with ``seconds``, ends ``seconds``
    later (without: at the last update). Updates come in bursts (every position fills its batch at about the same
    time), so the rate is summed over positions, each measured between its own first and last update in the
    window: frames of its later updates over the time between them (the same phase at both ends, no partial update
    counted). When a position has fewer than two updates in the window (or a position is unknown), the rate falls
    back to the frames of all updates after the first over the window's length (``method`` "all"; coarse: off by
    up to one burst).
    """
    if not updates:
        raise ValueError("no updates to measure a rate from; the trainer made none")
    t0 = updates[0][0]
    inside = [u for u in updates if seconds is None or u[0] - t0 <= seconds]
    by_position: dict[str, list[tuple[float, int]]] = {}
    for t, position, frames in inside:
        by_position.setdefault(position, []).append((t, frames))
    rates = {}
    for position, ups in by_position.items():
        if len(ups) >= 2 and ups[-1][0] > ups[0][0] and position != "unknown":
            rates[position] = sum(f for _, f in ups[1:]) / (ups[-1][0] - ups[0][0])
    span = float(seconds) if seconds is not None else inside[-1][0] - t0
    result = {"frames": sum(f for t, _, f in inside if t > t0), "seconds": span, "updates": len(inside)}
    if rates and len(rates) == len(by_position):
        return {**result, "frames_per_s": sum(rates.values()), "method": "per position",
                "frames_per_s_by_position": rates}
    if span <= 0:
        raise ValueError(f"{len(inside)} update(s) at one instant and no window length: no rate; give the trainer "
                         "more seconds")
    return {**result, "frames_per_s": result["frames"] / span, "method": "all",
            "frames_per_s_by_position": {}}


def parse_douzero_log(text: str) -> list[dict[str, float]]:
    """The ``After N (L:.. U:.. D:..) frames: @ X fps (avg@ Y fps)`` lines DouZero's ``train`` logs to stderr every
    5 s, as dicts: ``time`` (epoch seconds, from the local-time stamp), ``frames`` (its counter then), ``L``/``U``/
    ``D`` (per position), ``fps`` (over the last 5 s) and ``fps_avg`` (its mean of up to 24 such values)."""
    lines = []
    for match in _DOUZERO_AFTER.finditer(text):
        stamp = time.mktime(time.strptime(match["asctime"], "%Y-%m-%d %H:%M:%S")) + int(match["ms"]) / 1000
        lines.append({"time": stamp, "frames": int(match["frames"]), "L": int(match["L"]), "U": int(match["U"]),
                      "D": int(match["D"]), "fps": float(match["fps"]), "fps_avg": float(match["fps_avg"])})
    return lines


def read_douzero_csv(path: str | os.PathLike, frames_per_update: int = DOUZERO_FRAMES_PER_UPDATE,
                     ) -> list[tuple[float, str, int]]:
    """DouZero's updates ``(time, position, frames)`` from the ``logs.csv`` its ``FileWriter`` appends to.

    Its first line is ``# _tick,_time,frames,...``; each row is written right after one update of one position
    (``frames`` is the counter before that update adds ``frames_per_update``), with the latest loss of every
    position. The row does not name the position: it is the one whose ``loss_<position>`` changed from the row
    before (all start at 0), "unknown" when not exactly one did. A last line cut short by the kill is dropped.
    """
    with open(path, newline="") as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()  # written in part when the trainer was killed
    header = lines[0] if lines else ""
    if not header.startswith("# "):
        raise ValueError(f"{path} is not a DouZero logs.csv (first line {header[:40]!r}, expected '# _tick,...')")
    fields = header[2:].strip().split(",")
    loss_keys = [k for k in fields if k.startswith("loss_")]
    previous = {k: "0" for k in loss_keys}
    updates = []
    for row in csv.DictReader(lines[1:], fieldnames=fields):
        if None in row.values() or None in row:
            continue
        try:
            t, _ = float(row["_time"]), int(row["frames"])
        except (TypeError, ValueError):
            continue
        changed = [k for k in loss_keys if row[k] != previous[k]]
        previous.update({k: row[k] for k in loss_keys})
        updates.append((t, changed[0][len("loss_"):] if len(changed) == 1 else "unknown", frames_per_update))
    return sorted(updates)


def child_env() -> dict[str, str]:
    """The environment of the trainers' child processes: one torch/BLAS thread each, no Ray cluster address."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("RAY_ADDRESS", None)
    return env


def _tail(text: str, n: int = 3000) -> str:
    return text[-n:] if len(text) > n else text


# ---- ours ---------------------------------------------------------------------------------------
def updates_total(updates: Iterable[tuple[float, str, int]]) -> int:
    """Frames of all the given updates."""
    return sum(f for _, _, f in updates)


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


def _rate_fields(rate: dict[str, Any]) -> dict[str, Any]:
    return {"frames_per_s": rate["frames_per_s"], "window_s": rate["seconds"], "updates": rate["updates"],
            "rate_method": rate["method"], "frames_per_s_by_position": rate["frames_per_s_by_position"]}


def _run_ours_here(seconds: float, num_env_runners: int, launched: float, options: Mapping[str, Any],
                   game: str) -> dict[str, Any]:
    """Body of the ``--_ours`` child: a fresh local Ray, DMC built (with the DMC training ``options`` of a variant),
    one update to warm up, then ``seconds``."""
    import torch

    torch.set_num_threads(1)
    import ray

    from cardrl.algorithms.dmc.dmc import DMCConfig

    ray.init(num_cpus=max(2, num_env_runners), include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        t_ray = time.time()
        config = (DMCConfig().game(game)
                  .env_runners(num_env_runners=num_env_runners,
                               num_envs_per_env_runner=OURS_SETTINGS["num_envs_per_env_runner"],
                               rollout_fragment_length=OURS_SETTINGS["rollout_fragment_length"])
                  .training(frames_per_update=OURS_SETTINGS["frames_per_update"], **options)
                  .debugging(seed=0))
        algo = config.build_algo()
        t_built = time.time()
        first = algo.train()
        t0 = time.time()
        updates, lifetimes = module_updates(first, t0, {}, 0)
        start = {k: int(first[k]) for k in ("frames_trained", "frames_sampled", "episodes")}
        result, iterations = first, 0
        while time.time() - t0 < seconds:
            result = algo.train()
            iterations += 1
            new, lifetimes = module_updates(result, time.time(), lifetimes, int(updates_total(updates)))
            updates += new
        rate = update_rate(updates)
        end = {k: int(result[k]) for k in ("frames_trained", "frames_sampled", "episodes")}
        algo.stop()
    finally:
        ray.shutdown()
    lag = result.get("weight_lag")
    return {
        **_rate_fields(rate), "setup_s": t0 - launched, "startup_s": t_ray - launched, "build_s": t_built - t_ray,
        "first_update_s": t0 - t_built,
        "frames_trained": end["frames_trained"] - start["frames_trained"],
        "frames_sampled": end["frames_sampled"] - start["frames_sampled"],
        "episodes": end["episodes"] - start["episodes"],
        "frames_sampled_per_s": (end["frames_sampled"] - start["frames_sampled"]) / rate["seconds"],
        "frames_trained_total": end["frames_trained"], "iterations": iterations,
        "weight_lag": None if lag is None else float(lag),
        "pruning_ratio": result.get("pruning_ratio"),
        "settings": {"num_env_runners": num_env_runners, **OURS_SETTINGS,
                     "options": {k: getattr(config, k) for k in options},  # as the config took them
                     "q_model": config.q_model, "driver_sample_frames": config.driver_sample_frames,
                     "ray_num_cpus": max(2, num_env_runners)},
    }


def bench_ours(game: str, seconds: float, num_env_runners: int = 1,
               options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """cardrl's DMC on ``game`` for ``seconds`` after its first update, in a child process (see the module doc),
    with the DMC training ``options`` of a variant (JSON values, e.g. ``{"prune": "mcs"}``) on top of the
    benchmark's own."""
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0 (0: sample in the driver), got {num_env_runners}")
    game = get_game(game).name
    launched = time.time()
    cmd = [sys.executable, "-m", "cardrl.bench.train", "--_ours", "--seconds", str(seconds),
           "--num-env-runners", str(num_env_runners), "--_launched", repr(launched),
           "--_options", json.dumps(dict(options or {})), game]
    proc = subprocess.run(cmd, env=child_env(), capture_output=True, text=True,
                          timeout=seconds + _SETUP_TIMEOUT_S)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(_RESULT_TAG)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"cardrl DMC benchmark child failed (exit {proc.returncode}):\n"
                           f"{_tail(proc.stdout)}\n{_tail(proc.stderr)}")
    result = json.loads(lines[-1][len(_RESULT_TAG):])
    result["process_s"] = time.time() - launched
    return result


# ---- DouZero ------------------------------------------------------------------------------------
def _douzero_flags(savedir: str, num_actors: int) -> list[str]:
    return ["--actor_device_cpu", "--training_device", "cpu", "--num_actors", str(num_actors),
            "--savedir", savedir, "--xpid", "bench", "--disable_checkpoint"]


def _run_douzero_here(savedir: str, num_actors: int) -> None:
    """Body of the ``--_douzero`` child: DouZero's own trainer with its own flags; runs until killed."""
    from douzero.dmc.arguments import parser
    from douzero.dmc.dmc import train

    train(parser.parse_args(_douzero_flags(savedir, num_actors)))


def _kill_group(proc: subprocess.Popen) -> None:
    """End the child we started and the actor processes it spawned: its own process group (it leads a session)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass
    try:  # spawned actors may outlive the leader, or the leader may ignore SIGTERM
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def bench_douzero(seconds: float, num_actors: int = DOUZERO_NUM_ACTORS) -> dict[str, Any]:
    """DouZero 1.1.0's trainer on the CPU for ``seconds`` after its first update, in a child process (module doc).

    Raises ImportError when ``douzero`` (or GitPython, which ``douzero.dmc`` imports) is missing.
    """
    import douzero.dmc.dmc  # noqa: F401  (fail here, with the import error, rather than in the child)

    if num_actors < 1:
        raise ValueError(f"num_actors must be >= 1, got {num_actors}")
    with tempfile.TemporaryDirectory(prefix="cardrl_bench_douzero_") as tmp:
        csv_path = Path(tmp, "bench", "logs.csv")
        log_path = Path(tmp, "stderr.log")
        launched = time.time()
        with open(log_path, "w") as log, open(os.devnull, "w") as devnull:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cardrl.bench.train", "--_douzero", "--savedir", tmp,
                 "--douzero-actors", str(num_actors)],
                env=child_env(), cwd=tmp, stdout=devnull, stderr=log, start_new_session=True)
            try:
                t0 = _wait_first_update(proc, csv_path, log_path, launched)
                while time.time() < t0 + seconds + 0.5 and proc.poll() is None:
                    time.sleep(0.2)
            finally:
                _kill_group(proc)
        log_text = log_path.read_text(errors="replace")
        if proc.returncode not in (-signal.SIGTERM, -signal.SIGKILL):
            raise RuntimeError(f"DouZero's trainer exited by itself (code {proc.returncode}):\n{_tail(log_text)}")
        updates = read_douzero_csv(csv_path)
    rate = update_rate(updates, seconds)
    logged = logged_in_window(parse_douzero_log(log_text), t0, t0 + seconds)
    return {
        **_rate_fields(rate), "setup_s": t0 - launched, "frames_trained": rate["frames"],
        "frames_trained_total": updates_total(u for u in updates if u[0] <= t0 + seconds),
        "logged_fps_mean": (sum(line["fps"] for line in logged) / len(logged)) if logged else math.nan,
        "logged_lines": len(logged), "version": package_version("douzero"),
        "settings": {"num_actors": num_actors, "actor_device": "cpu", "training_device": "cpu",
                     "batch_size": 32, "unroll_length": 100, "num_threads": 4},
    }


def logged_in_window(lines: list[dict[str, float]], start: float, end: float) -> list[dict[str, float]]:
    """DouZero's 5 s log lines whose whole interval (from the line before) lies in ``[start, end]``."""
    return [line for before, line in zip(lines, lines[1:]) if before["time"] >= start and line["time"] <= end]


def _wait_first_update(proc: subprocess.Popen, csv_path: Path, log_path: Path, launched: float) -> float:
    """Epoch time of DouZero's first finished update (first data row of its logs.csv)."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"DouZero's trainer died during setup (exit {proc.returncode}):\n"
                               f"{_tail(log_path.read_text(errors='replace'))}")
        try:
            updates = read_douzero_csv(csv_path) if csv_path.exists() else []
        except ValueError:  # caught between its creation and its header line
            updates = []
        if updates:
            return updates[0][0]
        if time.time() - launched > _SETUP_TIMEOUT_S:
            raise RuntimeError(f"DouZero's trainer made no update within {_SETUP_TIMEOUT_S:.0f} s of its launch:\n"
                               f"{_tail(log_path.read_text(errors='replace'))}")
        time.sleep(0.2)


# ---- the benchmark ------------------------------------------------------------------------------------------------
# How a variant's single option reads when off, for its ratio line ("prune=mcs vs no pruning"); else "plain DMC".
_OPTION_OFF = {"prune": "no pruning", "opponent_model": "no opponent model"}


def variant_options(prune: str | None = None, opponent_model: str | None = None) -> dict[str, Any]:
    """The DMC training options of the variant that ``cardrl bench train``'s flags ask for (``{}``: none)."""
    return {k: v for k, v in (("opponent_model", opponent_model), ("prune", prune)) if v is not None}


def variant_name(options: Mapping[str, Any]) -> str:
    """A variant's name from its options, sorted by name: ``"opponent_model=luo_tan, prune=mcs"``."""
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()))


def check_variant(game: str, options: Mapping[str, Any]) -> None:
    """ValueError, naming the variant, when DMC on ``game`` (its default features and Q-network) would refuse the
    variant's ``options``: :meth:`DMCConfig.validate` decides, as in the child run."""
    from cardrl.algorithms.dmc.dmc import DMCConfig

    spec = get_game(game)
    try:
        DMCConfig().game(spec.name).training(**options).validate()
    except ValueError as err:
        raise ValueError(f"cardrl bench train {spec.name} (the game's default features) can not measure the "
                         f"variant {variant_name(options)}: {err}") from None


def bench_train(game: str, seconds: float, peers: bool = True, num_env_runners: int = 1,
                douzero_actors: int = DOUZERO_NUM_ACTORS, variant: Mapping[str, Any] | None = None,
                ) -> dict[str, Any]:
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
    if variant:
        check_variant(spec.name, variant)
    result: dict[str, Any] = {"game": spec.name, "title": spec.title, "seconds": float(seconds),
                              "cpus": os.cpu_count(), "machine": machine_description(),
                              "load_before": load_average() or 0.0, "peers": {}, "ratio": None}
    result["ours"] = bench_ours(spec.name, seconds, num_env_runners)
    if variant:  # the same run with the variant's options, to measure what they cost in frames/s
        result["ours_variant"] = bench_ours(spec.name, seconds, num_env_runners, options=variant)
    if peers and "douzero" in spec.peers:  # DouZero's trainer: the one peer trainer this benchmark runs
        try:
            result["peers"]["douzero"] = bench_douzero(seconds, douzero_actors)
        except ImportError as err:
            result["peers"]["douzero"] = {"skipped": f"not importable ({err})"}
    peer = result["peers"].get("douzero", {})
    if peer.get("frames_per_s", 0) > 0:
        result["ratio"] = result["ours"]["frames_per_s"] / peer["frames_per_s"]
    result["summary"] = summary_lines(result)
    result["table"] = format_bench_train(result)
    return result


def summary_lines(result: dict[str, Any]) -> list[str]:
    """``["vs douzero: R.Rx frames/s"]`` (ours over DouZero's frames trained per second) when DouZero was
    measured, then the variant's ratio to plain DMC when there was one, e.g. ``"prune=mcs vs no pruning: 0.98x
    frames/s (pruning ratio 12.7%)"`` or ``"opponent_model=luo_tan vs no opponent model: 0.80x frames/s"``."""
    lines = []
    run = result.get("ours_variant")
    if run:
        options = run["settings"]["options"]
        off = _OPTION_OFF.get(next(iter(options)), "plain DMC") if len(options) == 1 else "plain DMC"
        ratio = run["frames_per_s"] / result["ours"]["frames_per_s"]
        pruning = (f" (pruning ratio {100 * (run.get('pruning_ratio') or 0):.1f}%)"
                   if options.get("prune") else "")
        lines.append(f"{variant_name(options)} vs {off}: {ratio:.2f}x frames/s{pruning}")
    peer = result["peers"].get("douzero", {})
    if not peer.get("frames_per_s", 0) > 0:
        return lines
    return [f"vs douzero: {result['ours']['frames_per_s'] / peer['frames_per_s']:.1f}x frames/s"] + lines


def _settings_ours(s: dict[str, Any]) -> str:
    model = f", q_model {s['q_model']}" if s.get("q_model") else ""
    return (f"{s['num_env_runners']} env runner(s) x {s['num_envs_per_env_runner']} games, fragment "
            f"{s['rollout_fragment_length']}, {s['frames_per_update']} frames/update, driver samples "
            f"{s.get('driver_sample_frames', 0)} frames while idle, ray num_cpus={s['ray_num_cpus']}{model}")


def _trainer_ours(run: dict[str, Any]) -> str:
    """The table's name of one of our runs: ``cardrl DMC``, ``cardrl ODMC (prune=mcs)``, ``cardrl DMC
    (opponent_model=luo_tan)``."""
    options = run["settings"].get("options") or {}
    algo = "ODMC" if options.get("prune") else "DMC"
    return f"cardrl {algo} ({variant_name(options)})" if options else f"cardrl {algo}"


def _note_ours(run: dict[str, Any]) -> str:
    return (f"{_trainer_ours(run)}: setup = start {run['startup_s']:.1f} s + build {run['build_s']:.1f} s + first "
            f"update {run['first_update_s']:.1f} s; sampled {run['frames_sampled_per_s']:,.0f} frames/s, "
            f"{run['episodes']:,} episodes, {run['iterations']} iterations, {run['updates']} module updates "
            f"({run['rate_method']}), weight lag {_fmt_lag(run['weight_lag'])}; window {run['window_s']:.1f} s")


def _settings_douzero(s: dict[str, Any]) -> str:
    return (f"{s['num_actors']} actor(s) on cpu, learner cpu, batch {s['batch_size']} x unroll "
            f"{s['unroll_length']}, {s['num_threads']} learner threads/position")


def _fmt_lag(lag: float | None) -> str:
    return "-" if lag is None else f"{lag:.2f}"


def format_bench_train(result: dict[str, Any]) -> str:
    """The table of :func:`bench_train`, the machine first (summary lines excluded)."""
    runs = [result["ours"]] + ([result["ours_variant"]] if result.get("ours_variant") else [])
    rows = [("trainer", "frames/s", "setup s", "frames", "settings")]
    rows += [(_trainer_ours(run), f"{run['frames_per_s']:,.0f}", f"{run['setup_s']:.1f}",
              f"{run['frames_trained']:,}", _settings_ours(run["settings"])) for run in runs]
    notes = [_note_ours(run) for run in runs]
    for name, peer in result["peers"].items():
        if "skipped" in peer:
            rows.append((name, "-", "-", "-", f"skipped: {peer['skipped']}"))
            continue
        rows.append((f"{name} {peer.get('version', '')}".strip(), f"{peer['frames_per_s']:,.0f}",
                     f"{peer['setup_s']:.1f}", f"{peer['frames_trained']:,}", _settings_douzero(peer["settings"])))
        notes.append(f"{name}: {peer['updates']} position updates in the window ({peer['rate_method']}); its own "
                     f"log lines (5 s each, after its first update) average {peer['logged_fps_mean']:,.0f} fps "
                     f"({peer['logged_lines']} lines)")
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    title = (f"cardrl bench train {result['game']}: {result['seconds']:g} s timed window per trainer, after setup "
             f"(launch to first update, the warm-up)")
    lines = header_lines(title, result.get("machine") or f"{result['cpus']} cpus", result.get("load_before"))
    for r in rows:
        lines.append("  ".join([r[0].ljust(widths[0])] + [r[i].rjust(widths[i]) for i in (1, 2, 3)] + [r[4]]))
    lines += ["", *notes]
    return "\n".join(lines)


def print_bench_train(result: dict[str, Any]) -> None:
    """Print the table and the summary lines of :func:`bench_train`'s result."""
    print(result["table"])
    for line in result["summary"]:
        print(line)
    sys.stdout.flush()


def main_bench_train(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """``cardrl bench train GAME [--seconds N] [--no-peers] [--num-env-runners N] [--prune mcs] [--opponent-model
    luo_tan|douzero_plus]``: prints the table and, when DouZero ran, the line ``vs douzero: R.Rx frames/s``, then
    the variant's ratio line when ``--prune`` or ``--opponent-model`` asked for one. Returns 0."""
    if args is None or not isinstance(args, argparse.Namespace):
        args = _parser().parse_args(args)
    result = bench_train(args.game, float(args.seconds), peers=not getattr(args, "no_peers", False),
                         num_env_runners=int(getattr(args, "num_env_runners", 1)),
                         douzero_actors=int(getattr(args, "douzero_actors", DOUZERO_NUM_ACTORS)),
                         variant=variant_options(prune=getattr(args, "prune", None),
                                                 opponent_model=getattr(args, "opponent_model", None)))
    print_bench_train(result)
    return 0


def _option_help(name: str) -> str:
    return next(f.metadata["help"] for f in fields(DMCSettings) if f.name == name)


def add_train_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``cardrl bench train``."""
    parser.add_argument("game", choices=game_names(), help="the game to train on (e.g. doudizhu)")
    parser.add_argument("--seconds", type=float, default=60.0, help="timed seconds per trainer (default 60)")
    parser.add_argument("--no-peers", action="store_true", help="measure cardrl only (no DouZero trainer)")
    parser.add_argument("--num-env-runners", type=int, default=1, help="cardrl's env runners (default 1)")
    parser.add_argument("--douzero-actors", type=int, default=DOUZERO_NUM_ACTORS,
                        help=f"DouZero's actor processes (default {DOUZERO_NUM_ACTORS})")
    parser.add_argument("--prune", choices=["mcs"], default=None,
                        help="also measure ODMC (MCS pruning on) and print its frames/s ratio to plain DMC")
    parser.add_argument("--opponent-model", choices=OPPONENT_MODELS, default=None,
                        help=f"also measure DMC with an {_option_help('opponent_model')}, on the game's default "
                             f"features and their Q-network, and print its frames/s ratio to plain DMC (with "
                             f"--prune: one run with both)")
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m cardrl.bench.train", description=__doc__.splitlines()[0])
    add_train_arguments(parser)
    parser.add_argument("--_ours", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_douzero", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_launched", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_options", type=json.loads, default={}, help=argparse.SUPPRESS)  # the variant, as JSON
    parser.add_argument("--savedir", default=None, help=argparse.SUPPRESS)
    return parser


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--_douzero" in argv:  # the DouZero child takes no game
        child = argparse.ArgumentParser(prog="python -m cardrl.bench.train --_douzero")
        child.add_argument("--_douzero", action="store_true")
        child.add_argument("--savedir", required=True)
        child.add_argument("--douzero-actors", type=int, default=DOUZERO_NUM_ACTORS)
        args = child.parse_args(argv)
        _run_douzero_here(args.savedir, args.douzero_actors)
        return 0
    args = _parser().parse_args(argv)
    if args._ours:
        launched = args._launched if args._launched is not None else time.time()
        result = _run_ours_here(args.seconds, args.num_env_runners, launched, args._options, args.game)
        print(_RESULT_TAG + json.dumps(result), flush=True)
        return 0
    return main_bench_train(args)


if __name__ == "__main__":
    raise SystemExit(_main())
