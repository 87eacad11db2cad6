"""The learning benchmark's report (``cardrl bench learning GAME``, :mod:`cardrl.bench.learning`): each run's
evaluations read from its ``progress.jsonl``, the arithmetic over seeds (pooled intervals, time to ADP > 0 per seed,
its median and the pooled curve's) and the report itself (markdown tables and the plot).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardrl.games.registry import get_game
from cardrl.run_dir import PROGRESS, read_progress

__all__ = ["read_run", "training_seconds", "pooled_interval", "first_above_zero", "median_reached", "median_of",
           "summarise", "format_learning", "plot_learning"]


# ---- reading runs --------------------------------------------------------------------------------------------------
def read_run(directory: Path, frames: int) -> dict[str, Any]:
    """One run's evaluations from its ``progress.jsonl``: ``evals`` (milestone frames -> {frames_trained,
    train_s, results}), ``frames``, ``train_s``, ``frames_per_s``, ``done`` (the budget reached) and ``matches``
    (whole-match results of the final evaluation, where the game plays matches)."""
    run: dict[str, Any] = {"evals": {}, "frames": 0, "train_s": 0.0, "frames_per_s": None, "done": False,
                           "matches": None}
    if not (Path(directory) / PROGRESS).is_file():  # not started
        return run
    eval_s_before = 0.0
    for record in read_progress(directory, torn_last_line=True):
        trained = int(record.get("frames_trained") or 0)
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


# ---- the arithmetic ------------------------------------------------------------------------------------------------
def pooled_interval(parts: Sequence[tuple[int, float, float]], confidence: float = 0.95) -> dict[str, float]:
    """Mean and t-interval of the pooled deals of several evaluations, each given as ``(deals, mean, sd)``: the
    pooled sample's variance is the within-evaluation sum of squares plus the spread of the evaluations' means
    about the pooled mean, over N - 1 (N the deals in all)."""
    from scipy import stats

    parts = [(int(n), float(m), float(s)) for n, m, s in parts if n > 0]
    if not parts:
        raise ValueError("pooled_interval needs at least one evaluation with deals")
    total = sum(n for n, _, _ in parts)
    mean = sum(n * m for n, m, _ in parts) / total
    if total < 2:
        return {"adp": mean, "adp_low": mean, "adp_high": mean, "deals": total}
    squares = sum((n - 1) * s * s + n * (m - mean) ** 2 for n, m, s in parts)
    sem = math.sqrt(squares / (total - 1) / total)
    half = float(stats.t.ppf((1 + confidence) / 2, total - 1)) * sem
    return {"adp": mean, "adp_low": mean - half, "adp_high": mean + half, "deals": total}


def first_above_zero(points: Sequence[dict[str, float]]) -> dict[str, float] | None:
    """The first point (in frames) whose interval lies above 0 (``adp_low > 0``), or None: ``{"frames",
    "minutes"}``."""
    for point in sorted(points, key=lambda p: p["frames"]):
        if point["adp_low"] > 0:
            return {"frames": point["frames"], "minutes": point.get("minutes")}
    return None


def median_reached(reached: Sequence[dict[str, float] | None], key: str = "frames") -> float | None:
    """Median over seeds of when each first lay above 0; a seed that never did counts as later than every seed that
    did, so the median is None when half or more never did (even count: the mean of the middle two)."""
    middle = median_of([math.inf if r is None else float(r[key]) for r in reached])
    return None if middle is None or math.isinf(middle) else middle


def median_of(values: Sequence[float | None]) -> float | None:
    """The median of the values given (None ones left out), or None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(runs: dict[str, dict[int, dict]], against: Sequence[str]) -> dict[str, Any]:
    """Per variant: pooled curves per baseline, per-seed and median time to ADP > 0, the pooled curve's first
    crossing, frames/s. ``runs``: variant -> seed -> :func:`read_run`'s dict."""
    out: dict[str, Any] = {}
    for variant, seeds in runs.items():
        milestones = sorted({m for run in seeds.values() for m in run["evals"]})
        curves: dict[str, list] = {}
        per_seed: dict[str, dict] = {}
        for baseline in against:
            curve = []
            for m in milestones:
                evs = [run["evals"][m] for run in seeds.values()
                       if m in run["evals"] and baseline in run["evals"][m]["results"]]
                if not evs:
                    continue
                parts = [(_deals(ev["results"][baseline]), ev["results"][baseline]["adp"],
                          _sd(ev["results"][baseline])) for ev in evs]
                pooled = pooled_interval(parts)
                curve.append({"frames": m, **pooled, "seeds": len(evs),
                              "minutes": median_of([ev["train_s"] / 60 for ev in evs]),
                              **_pooled_passes([ev["results"][baseline] for ev in evs])})
            curves[baseline] = curve
            per_seed[baseline] = {}
            for seed, run in seeds.items():
                points = [{"frames": m, "minutes": ev["train_s"] / 60, "adp_low": ev["results"][baseline]["adp_low"]}
                          for m, ev in run["evals"].items() if baseline in ev["results"]]
                per_seed[baseline][seed] = first_above_zero(points)
        out[variant] = {
            "seeds": {seed: {"frames": run["frames"], "train_s": run["train_s"], "done": run["done"],
                             "frames_per_s": run["frames_per_s"], "matches": run["matches"]}
                      for seed, run in seeds.items()},
            "curves": curves,
            "reached": per_seed,
            "median_reached": {b: {"frames": median_reached(list(per_seed[b].values()), "frames"),
                                   "minutes": median_reached(list(per_seed[b].values()), "minutes"),
                                   "seeds_reached": sum(r is not None for r in per_seed[b].values()),
                                   "seeds": len(per_seed[b])} for b in against},
            "pooled_reached": {b: first_above_zero(curves[b]) for b in against},
            "frames_per_s": median_of([run["frames_per_s"] for run in seeds.values()]),
        }
    return out


def _pooled_passes(evs: Sequence[dict]) -> dict[str, Any]:
    """``{"pass_rate": {side: passes / pass-legal decisions over the seeds}}`` where the evaluations counted them."""
    counts: dict[str, list[int]] = {}
    for ev in evs:
        for side, p in (ev.get("passes") or {}).items():
            c = counts.setdefault(side, [0, 0])
            c[0] += int(p["decisions"])
            c[1] += int(p["passed"])
    rates = {side: c[1] / c[0] for side, c in counts.items() if c[0]}
    return {"pass_rate": rates} if rates else {}


def _deals(ev: dict) -> int:
    if "deals" not in ev:
        raise ValueError("an evaluation without 'deals' (written by a cardrl older than the learning benchmark): "
                         "rerun that run")
    return int(ev["deals"])


def _sd(ev: dict) -> float:
    return float(ev.get("adp_sd", 0.0))


# ---- the report ----------------------------------------------------------------------------------------------------
def _count(frames: float | None) -> str:
    if frames is None:
        return "-"
    if frames < 1e3:
        return f"{frames:.0f}"
    return f"{frames / 1e6:.2f}M" if frames >= 1e6 else f"{frames / 1e3:.0f}k"


def _interval(point: dict) -> str:
    return f"{point['adp']:+.2f} [{point['adp_low']:+.2f}, {point['adp_high']:+.2f}]"


def format_learning(summary: dict[str, Any], *, game: str, against: Sequence[str], frames: int, command: str,
                    machine: str, date: str) -> str:
    """The markdown report: the time-to-threshold table, one curve table per baseline, the pass rates and the
    whole matches where the evaluations have them."""
    score = get_game(game).protocol.score_name
    lines = [f"# Learning benchmark: {game}", "", f"Command: `{command}`  ", f"Machine: {machine}  ", f"Date: {date}",
             "", (f"Budget: {frames:,} frames per run. Scores are {score} per deal against each baseline, pooled over "
             "seeds (the mean of every seed's deals, 95% t-interval of the pooled sample). 'to > 0': frames "
             "(training minutes) to the first evaluation whose interval lies above 0: the median over seeds (a seed "
             "that never got there counts as last; '-' when half or more never did) with the seeds that got there, "
             "then the pooled curve's first."), ""]
    lines += _time_table(summary, against)
    lines += _curve_tables(summary, against, score)
    lines += _pass_table(summary, against[0] if against else None)
    lines += _match_lines(summary, against)
    return "\n".join(lines) + "\n"


def _time_table(summary: dict[str, Any], against: Sequence[str]) -> list[str]:
    """One row per variant: seeds, frames/s, and per baseline the final point and the times to > 0."""
    head = ["variant", "seeds (done)", "frames/s"]
    for b in against:
        head += [f"final vs {b}", f"to > 0 vs {b}: median (seeds)", f"pooled vs {b}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, s in summary.items():
        done = sum(v["done"] for v in s["seeds"].values())
        fps = s["frames_per_s"]
        row = [variant, f"{len(s['seeds'])} ({done})", f"{fps:,.0f}" if fps else "-"]
        for b in against:
            curve = s["curves"].get(b) or []
            row.append(f"{_interval(curve[-1])} at {_count(curve[-1]['frames'])}" if curve else "-")
            med = s["median_reached"][b]
            minutes = f" ({med['minutes']:.1f} min)" if med["minutes"] is not None else ""
            row.append(f"{_count(med['frames'])}{minutes} ({med['seeds_reached']}/{med['seeds']})")
            pooled = s["pooled_reached"][b]
            row.append(_count(pooled["frames"]) if pooled else "-")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _curve_tables(summary: dict[str, Any], against: Sequence[str], score: str) -> list[str]:
    """Per baseline: the pooled score of every variant at each milestone."""
    lines: list[str] = []
    for b in against:
        milestones = sorted({p["frames"] for s in summary.values() for p in s["curves"].get(b, [])})
        if not milestones:
            continue
        lines += ["", f"## vs {b}: pooled {score} by frames trained (seeds evaluated; median training minutes)", "",
                  "| frames | " + " | ".join(summary) + " |", "|" + "---|" * (len(summary) + 1)]
        for m in milestones:
            cells = []
            for s in summary.values():
                point = next((p for p in s["curves"].get(b, []) if p["frames"] == m), None)
                cells.append(f"{_interval(point)} ({point['seeds']}; {point['minutes']:.1f} min)" if point else "")
            lines.append(f"| {_count(m)} | " + " | ".join(cells) + " |")
    return lines


def _pass_table(summary: dict[str, Any], first: str | None) -> list[str]:
    """How often each variant's greedy agent passed where passing was legal, against the first baseline."""
    passing = {v: [p for p in s["curves"].get(first, []) if p.get("pass_rate")] for v, s in summary.items()}
    if not any(passing.values()):
        return []
    sides = sorted({side for points in passing.values() for p in points for side in p["pass_rate"]})
    lines = ["", f"## How often the greedy agent passed where passing was legal (vs {first}, pooled over seeds)",
             "", "| frames | " + " | ".join(f"{v}: {side}" for v in passing for side in sides) + " |",
             "|" + "---|" * (len(passing) * len(sides) + 1)]
    for m in sorted({p["frames"] for points in passing.values() for p in points}):
        cells = []
        for points in passing.values():
            point = next((p for p in points if p["frames"] == m), None)
            cells += [f"{100 * point['pass_rate'][side]:.0f}%" if point and side in point["pass_rate"] else ""
                      for side in sides]
        lines.append(f"| {_count(m)} | " + " | ".join(cells) + " |")
    return lines


def _match_lines(summary: dict[str, Any], against: Sequence[str]) -> list[str]:
    """Whole-match win rates of the final evaluations, where the game plays matches."""
    matches = {v: [x["matches"] for x in s["seeds"].values() if x.get("matches")] for v, s in summary.items()}
    if not any(matches.values()):
        return []
    lines = ["", "## Whole matches at the end (match win rate, mean over seeds)", ""]
    for v, ms in matches.items():
        for b in against:
            rates = [m[b]["win_rate"] for m in ms if b in m]
            if rates:
                lines.append(f"- {v} vs {b}: {sum(rates) / len(rates):.3f} over {len(rates)} seed(s)")
    return lines


def plot_learning(summary: dict[str, Any], against: Sequence[str], path: Path, title: str) -> Path | None:
    """Curves over frames (top row) and training minutes (bottom row), one column per baseline, 95% bands."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(2, len(against), figsize=(5.5 * len(against), 7.5), squeeze=False)
    for col, b in enumerate(against):
        for row, key in enumerate(("frames", "minutes")):
            ax = axes[row][col]
            for variant, s in summary.items():
                curve = [p for p in s["curves"].get(b, []) if p.get(key) is not None]
                if not curve:
                    continue
                x = [p[key] / (1e6 if key == "frames" else 1) for p in curve]
                ax.plot(x, [p["adp"] for p in curve], marker="o", ms=3, label=variant)
                ax.fill_between(x, [p["adp_low"] for p in curve], [p["adp_high"] for p in curve], alpha=0.15)
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xlabel("frames trained (millions)" if key == "frames" else "training minutes (median over seeds)")
            ax.set_ylabel(f"vs {b}")
            if row == 0 and col == 0:
                ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
