"""The learning benchmark's figures (``cardrl bench learning GAME``, :mod:`cardrl.bench.learning`): each run's
evaluations read from its ``progress.jsonl`` and the machine it ran on from its ``machine.json``, then the statistics
with runs as the unit (:mod:`cardrl.bench.run_stats`): per variant and milestone (frames trained, and minutes of
training on one machine) the mean over runs with its bootstrap interval, each variant against the reference variant
(probability of improvement, difference of means, the runs that would decide it), and each run's time to its first
evaluation above 0 with their median and range. :mod:`cardrl.bench.learning_format` writes them as markdown and PNG.

A single run's deal-level interval (its evaluation's ``adp_low``/``adp_high``) is used for that run alone: whether
that evaluation lies above 0. Deals of several runs are never pooled into one interval: runs of one configuration
land further apart than their deal-level intervals (docs/learning.md, "What a seed fixes").
"""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardrl.bench.common import machine_description
from cardrl.machine_load import load_1m
from cardrl.bench.run_stats import improvement, mean_over_runs, runs_needed, time_to_threshold, verdict
from cardrl.run_dir import PROGRESS, read_progress
from cardrl.atomic_file import replace_text

__all__ = ["MACHINE", "MINUTE_MARKS", "read_run", "record_machine", "machine_label", "segment_loaded",
           "LOADED_PER_CORE", "LOADED", "label_machines", "training_seconds", "first_above_zero",
           "median_of", "summarise", "compare"]

MACHINE = "machine.json"  # a run directory's record of the machines that trained it (record_machine)
# training minutes at which runs on one machine are compared (each run's last evaluation within the mark)
MINUTE_MARKS = (1, 2, 3, 5, 7.5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 360, 480)


# ---- reading runs --------------------------------------------------------------------------------------------------
def read_run(directory: Path, frames: int) -> dict[str, Any]:
    """One run's evaluations from its ``progress.jsonl``: ``evals`` (milestone frames -> {frames_trained,
    train_s, results}), ``frames``, ``train_s``, ``frames_per_s``, ``done`` (the budget reached) and ``matches``
    (whole-match results of the final evaluation, where the game plays matches), ``machine`` (:func:`record_machine`'s
    description, "mixed: ..." where machines differed, None where the run has no record)."""
    run: dict[str, Any] = {"evals": {}, "frames": 0, "train_s": 0.0, "frames_per_s": None, "done": False,
                           "matches": None, "machine": _machine_of(Path(directory), [])}
    if not (Path(directory) / PROGRESS).is_file():  # not started
        return run
    eval_s_before, loads = 0.0, []
    for record in read_progress(directory, torn_last_line=True):
        trained = int(record.get("frames_trained") or 0)
        if record.get("load_1m") is not None:
            loads.append((trained, float(record["load_1m"])))
        train_s = training_seconds(record, eval_s_before)
        eval_s_before = float(record.get("eval_time_s") or 0.0)
        run["frames"], run["train_s"] = trained, train_s
        if record.get("final") and trained >= frames:
            run["done"] = True
            run["matches"] = record.get("matches")
        if "eval" not in record:
            continue
        milestone = record.get("eval_frames") or (frames if record.get("final") and trained >= frames else None)
        if milestone is None:
            continue
        run["evals"][int(milestone)] = {"frames_trained": trained, "train_s": train_s, "results": record["eval"]}
    if run["train_s"] > 0:
        run["frames_per_s"] = run["frames"] / run["train_s"]
    run["machine"] = _machine_of(Path(directory), loads)
    return run


def training_seconds(record: dict, eval_s_before: float) -> float:
    """A record's seconds of training, evaluations left out: its ``train_s``; in records written before that field
    existed, ``time_s`` less the evaluation seconds, where an evaluation record's ``time_s`` was taken before its own
    evaluation but its ``eval_time_s`` after (so the evaluation seconds are those of the record before it,
    ``eval_s_before``), except in a final record, whose two were both taken at the end."""
    if "train_s" in record:
        return float(record["train_s"])
    evaluated_after_time_s = "eval" in record and not record.get("final")
    eval_s = eval_s_before if evaluated_after_time_s else float(record.get("eval_time_s") or 0.0)
    return float(record.get("time_s") or 0.0) - eval_s


def record_machine(directory: Path, frames_at_start: int) -> None:
    """Append to ``directory/machine.json`` the machine about to train the run from ``frames_at_start`` frames: its
    description, the UTC time and the 1-minute load average before the run starts (what else the machine was doing)."""
    path = Path(directory) / MACHINE
    segments = json.loads(path.read_text())["segments"] if path.is_file() else []
    segments.append({"machine": machine_description(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "frames_at_start": int(frames_at_start), "load_before": load_1m(), "cpus": os.cpu_count()})
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, json.dumps({"segments": segments}, indent=1) + "\n")


LOADED = " (loaded)"  # a segment recorded as trained beside other work: its minutes are not the machine's
# a run alone keeps about one process per core busy (its env runner, its learner) and its evaluations a little more:
# a median 1-minute load average above this many per core means something else ran beside it
LOADED_PER_CORE = 1.75


def segment_loaded(segment: dict[str, Any], loads: Sequence[float]) -> bool:
    """Whether a ``machine.json`` segment trained beside other work: said by hand (``loaded_during``), or the median
    1-minute load average of its progress records (``load_1m``) above :data:`LOADED_PER_CORE` per core."""
    if segment.get("loaded_during"):
        return True
    cores = segment.get("cpus") or _cores_named(segment.get("machine") or "")
    return bool(loads and cores and statistics.median(loads) > LOADED_PER_CORE * cores)


def _cores_named(description: str) -> int | None:
    match = re.search(r"(\d+) cores", description)
    return int(match.group(1)) if match else None


def _machine_of(directory: Path, loads: Sequence[tuple[int, float]]) -> str | None:
    """The machine label of a run: its segments' machines (a segment that a later one restarted from the same frames
    left nothing), each marked ``(loaded)`` where the segment trained beside other work (:func:`segment_loaded`; its
    records' ``loads`` are (frames trained, load) pairs), so that its minutes are compared only with other loaded
    runs'."""
    path = directory / MACHINE
    if not path.is_file():
        return None
    segments = sorted({s["frames_at_start"]: s for s in json.loads(path.read_text())["segments"]}.values(),
                      key=lambda s: s["frames_at_start"])
    ends = [s["frames_at_start"] for s in segments[1:]] + [float("inf")]
    return machine_label([s["machine"] + (LOADED if segment_loaded(s, [load for frames, load in loads
                                                                      if s["frames_at_start"] < frames <= end]) else "")
                          for s, end in zip(segments, ends)])


def machine_label(machines: Sequence[str | None]) -> str | None:
    """One description for the machines that trained a run (or its stages): the machine, "mixed: A; B" where they
    differ, None where none is recorded."""
    named = list(dict.fromkeys(m for m in machines if m))
    if not named:
        return None
    return named[0] if len(named) == 1 else _MIXED + _BETWEEN.join(named)


def label_machines(label: str) -> list[str]:
    """The machines a :func:`machine_label` names, in order (the inverse of it)."""
    return label.removeprefix(_MIXED).split(_BETWEEN) if label.startswith(_MIXED) else [label]


_MIXED, _BETWEEN = "mixed: ", "; "


# ---- the arithmetic ------------------------------------------------------------------------------------------------
def first_above_zero(points: Sequence[dict[str, float]]) -> dict[str, float] | None:
    """The first point (in frames) whose interval lies above 0 (``adp_low > 0``), or None: ``{"frames",
    "minutes"}``."""
    for point in sorted(points, key=lambda p: p["frames"]):
        if point["adp_low"] > 0:
            return {"frames": point["frames"], "minutes": point.get("minutes")}
    return None


def median_of(values: Sequence[float | None]) -> float | None:
    """The median of the values given (None ones left out), or None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _score_at_minutes(run: dict[str, Any], baseline: str, minutes: float) -> float | None:
    """A run's score at ``minutes`` of training: its last evaluation within them; None where the run did not train
    that long (its score then is unknown) or had no evaluation yet."""
    if run["train_s"] < minutes * 60:
        return None
    within = [ev for m, ev in sorted(run["evals"].items())
              if ev["train_s"] <= minutes * 60 and baseline in ev["results"]]
    return within[-1]["results"][baseline]["adp"] if within else None


def _scores_by_frames(seeds: dict[int, dict], baseline: str) -> dict[int, dict[int, float]]:
    """milestone -> seed -> score of each run that has evaluated that milestone so far."""
    milestones = sorted({m for run in seeds.values() for m in run["evals"]})
    return {m: {seed: run["evals"][m]["results"][baseline]["adp"] for seed, run in seeds.items()
                if m in run["evals"] and baseline in run["evals"][m]["results"]} for m in milestones}


def _scores_by_minutes(seeds: dict[int, dict], baseline: str) -> dict[str, dict[float, dict[int, float]]]:
    """machine -> minute mark -> seed -> score, a mark kept where every run on that machine has a score there."""
    out: dict[str, dict[float, dict[int, float]]] = {}
    for machine in dict.fromkeys(_machine(run) for run in seeds.values()):
        group = {s: r for s, r in seeds.items() if _machine(r) == machine}
        marks: dict[float, dict[int, float]] = {}
        for mark in MINUTE_MARKS:
            scores = {s: _score_at_minutes(r, baseline, mark) for s, r in group.items()}
            if all(v is not None for v in scores.values()):
                marks[mark] = scores
        out[machine] = marks
    return out


def _machine(run: dict[str, Any]) -> str:
    return run["machine"] or "unrecorded"


def _level(by_point: dict[Any, dict[int, float]], key: str, seed: int) -> list[dict[str, Any]]:
    return [{key: point, **mean_over_runs(list(scores.values()), seed=seed), "scores": scores}
            for point, scores in by_point.items() if scores]


def summarise(runs: dict[str, dict[int, dict]], against: Sequence[str], *, seed: int = 0) -> dict[str, Any]:
    """Per variant (``runs``: variant -> seed -> :func:`read_run`'s dict) and baseline: ``by_frames`` and
    ``by_minutes`` (per machine) the mean over runs with its interval and the runs' scores; ``reached``: each run's
    first evaluation above 0 (its own deal-level interval); ``to_threshold``: their median and range in frames, and
    in minutes per machine (a run still going that has not got there is left out); the pass rates (pooled counts);
    frames/s (median over runs). ``seed`` seeds the bootstraps. A run not yet evaluated is left out."""
    out: dict[str, Any] = {}
    for variant, all_seeds in runs.items():
        seeds = {s: run for s, run in all_seeds.items() if run["evals"]}  # a run not yet evaluated says nothing
        by_frames, by_minutes, reached, to_threshold = {}, {}, {}, {}
        for baseline in against:
            by_frames[baseline] = _level(_scores_by_frames(seeds, baseline), "frames", seed)
            for point in by_frames[baseline]:
                evs = [run["evals"][point["frames"]] for run in seeds.values() if point["frames"] in run["evals"]]
                point["minutes"] = median_of([ev["train_s"] / 60 for ev in evs])
                point.update(_pooled_passes([ev["results"][baseline] for ev in evs if baseline in ev["results"]]))
            by_minutes[baseline] = {machine: _level(marks, "minutes", seed)
                                    for machine, marks in _scores_by_minutes(seeds, baseline).items()}
            reached[baseline] = {
                s: first_above_zero([{"frames": m, "minutes": ev["train_s"] / 60,
                                      "adp_low": ev["results"][baseline]["adp_low"]}
                                     for m, ev in run["evals"].items() if baseline in ev["results"]])
                for s, run in seeds.items()}
            # a run still going that has not got there yet is left out: it may yet
            counted = {s: reached[baseline][s] for s, run in seeds.items() if run["done"] or reached[baseline][s]}
            to_threshold[baseline] = {
                "frames": time_to_threshold([r["frames"] if r else None for r in counted.values()]),
                "minutes": {machine: time_to_threshold([counted[s]["minutes"] if counted[s] else None
                                                        for s in counted if _machine(seeds[s]) == machine])
                            for machine in dict.fromkeys(_machine(seeds[s]) for s in counted)}}
        out[variant] = {
            "seeds": {s: {"frames": run["frames"], "train_s": run["train_s"], "done": run["done"],
                          "frames_per_s": run["frames_per_s"], "matches": run["matches"], "machine": run["machine"],
                          "final": _final_points(run, against)}
                      for s, run in seeds.items()},
            "by_frames": by_frames, "by_minutes": by_minutes, "reached": reached, "to_threshold": to_threshold,
            "frames_per_s": median_of([run["frames_per_s"] for run in seeds.values()]),
        }
    return out


def _final_points(run: dict[str, Any], against: Sequence[str]) -> dict[str, dict]:
    """A run's last evaluation per baseline, with its own deal-level interval."""
    if not run["evals"]:
        return {}
    milestone = max(run["evals"])
    results = run["evals"][milestone]["results"]
    return {b: {"frames": milestone, "adp": results[b]["adp"], "adp_low": results[b]["adp_low"],
                "adp_high": results[b]["adp_high"]} for b in against if b in results}


def compare(summary: dict[str, Any], reference: str, *, seed: int = 0) -> dict[str, Any]:
    """Every other variant against ``reference`` per baseline, at each frame milestone both have and each minute
    mark both have on one machine: :func:`~cardrl.bench.run_stats.improvement` with its :func:`verdict` and the
    runs per variant that would decide it (:func:`runs_needed`)."""
    if reference not in summary:
        raise ValueError(f"the reference variant {reference!r} is not among the variants: {', '.join(summary)}")
    ref = summary[reference]
    out: dict[str, Any] = {}
    for variant, s in summary.items():
        if variant == reference:
            continue
        out[variant] = {}
        for baseline, points in s["by_frames"].items():
            entry: dict[str, Any] = {"by_frames": _compare_points(points, ref["by_frames"].get(baseline, []),
                                                                  "frames", seed), "by_minutes": {}}
            for machine, marks in s["by_minutes"][baseline].items():
                theirs = ref["by_minutes"].get(baseline, {}).get(machine, [])
                entry["by_minutes"][machine] = _compare_points(marks, theirs, "minutes", seed)
            out[variant][baseline] = entry
    return out


def _compare_points(points: Sequence[dict], reference: Sequence[dict], key: str, seed: int) -> list[dict]:
    by_key = {p[key]: p for p in reference}
    rows = []
    for p in points:
        if p[key] not in by_key:
            continue
        x, y = list(p["scores"].values()), list(by_key[p[key]]["scores"].values())
        comparison = improvement(x, y, seed=seed)
        rows.append({key: p[key], **comparison, "verdict": verdict(comparison), "runs_needed": runs_needed(x, y)})
    return rows


def _pooled_passes(evs: Sequence[dict]) -> dict[str, Any]:
    """``{"pass_rate": {side: passes / pass-legal decisions over the runs}}`` where the evaluations counted them."""
    counts: dict[str, list[int]] = {}
    for ev in evs:
        for side, p in (ev.get("passes") or {}).items():
            c = counts.setdefault(side, [0, 0])
            c[0] += int(p["decisions"])
            c[1] += int(p["passed"])
    rates = {side: c[1] / c[0] for side, c in counts.items() if c[0]}
    return {"pass_rate": rates} if rates else {}
