"""A sweep's results: one row per trial (its swept values, its last evaluation, its status and restarts), the
best trial, the table printed at the end and ``results.csv`` (both with each trial's restarts), and
``adp_vs_swept.png``."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from cardrl.algorithms.tune.space import SweepSpace

__all__ = ["rows_of", "best_of", "table", "write_csv", "plot", "label"]


def rows_of(grid: Any, names: list[str], states: dict[str, Any] | None = None) -> list[dict]:
    """One row per trial: its swept values and its last evaluation (ADP with its interval, frames, status), and the
    restarts Tune made of it, from Tune's record of the trial (``states``: trial id -> Tune's Trial): a trial that
    did not finish (an interrupted sweep) is ``unfinished``."""
    rows = []
    for result in grid:
        metrics = result.metrics or {}
        row = {"trial": metrics.get("trial_id") or Path(result.path).name,
               **{n: result.config.get(n) for n in names}}
        if "adp" in metrics:
            row.update({k: metrics[k] for k in ("adp", "adp_low", "adp_high", "frames_trained", "time_s")})
            row["evaluations"] = int(metrics.get("training_iteration", 0))
            # a trial that failed after evaluating, with no restart left, is an error, not stopped early
            row["status"] = "error" if result.error else "completed" if metrics.get("final") else "stopped early"
        else:
            row.update({"adp": None, "adp_low": None, "adp_high": None, "frames_trained": None, "time_s": None,
                        "evaluations": 0, "status": "error" if result.error else "no evaluation"})
        row["node_id"] = metrics.get("node_id")
        row["runner_node_ids"] = [n for n in str(metrics.get("runner_node_ids") or "").split(",") if n]
        row["checkpoint"] = result.checkpoint.path if result.checkpoint is not None else None
        state = (states or {}).get(row["trial"])
        if state is not None and state.status not in ("TERMINATED", "ERROR"):
            row["status"] = "unfinished"
        # every failure but the last of a trial that ended in error was followed by a restart
        row["restarts"] = (max(0, state.num_failures - (state.status == "ERROR")) if state is not None else 0)
        rows.append(row)
    return rows


def best_of(rows: list[dict]) -> dict | None:
    """The trial with the highest last ADP (ties: the higher lower bound) that has a checkpoint."""
    scored = [r for r in rows if r["adp"] is not None and r["checkpoint"]]
    return max(scored, key=lambda r: (r["adp"], r["adp_low"])) if scored else None


def table(rows: list[dict], names: list[str], score_name: str, against: str) -> str:
    """The printed table, best first: each trial's swept values, last evaluation, status and the restarts Tune made
    of it from its checkpoint (a lost node, a killed process)."""
    head = ["trial", *names, f"{score_name} vs {against}", "95% interval", "frames", "evals", "status", "restarts"]
    body = []
    for r in sorted(rows, key=lambda r: (r["adp"] is None, -(r["adp"] or 0))):
        adp = "-" if r["adp"] is None else f"{r['adp']:+.3f}"
        ci = "-" if r["adp"] is None else f"[{r['adp_low']:+.3f}, {r['adp_high']:+.3f}]"
        frames = "-" if r["frames_trained"] is None else f"{r['frames_trained']:,}"
        body.append([r["trial"], *(label(r[n]) for n in names), adp, ci, frames, str(r["evaluations"]),
                     r["status"], str(r.get("restarts", 0))])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)) for line in (head, *body)]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def write_csv(path: Path, rows: list[dict], names: list[str]) -> None:
    columns = ["trial", *names, "adp", "adp_low", "adp_high", "frames_trained", "time_s", "evaluations", "status",
               "restarts", "checkpoint"]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: label(r[k]) if k in names else r[k] for k in columns})


def plot(path: Path, rows: list[dict], names: list[str], space: SweepSpace, ylabel: str, title: str) -> Path:
    """ADP (with its 95% interval as an error bar) against each swept option, one panel per option: a numeric
    option on its own axis (log-scaled when swept log-uniformly), any other by its values in order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [r for r in rows if r["adp"] is not None]
    fig, axes = plt.subplots(1, len(names), figsize=(max(6.0, 4.5 * len(names)), 4.0), squeeze=False)
    for ax, name in zip(axes[0], names):
        domain = space.sweep[name][0]
        numeric = all(isinstance(r[name], (int, float)) and not isinstance(r[name], bool) for r in done)
        if numeric:
            xs = [float(r[name]) for r in done]
        else:
            labels = list(dict.fromkeys(label(r[name]) for r in done))
            xs = [labels.index(label(r[name])) for r in done]
            ax.set_xticks(range(len(labels)), labels, rotation=20 if max(map(len, labels or [""])) > 8 else 0,
                          fontsize=8)
        ys = [r["adp"] for r in done]
        err = [[r["adp"] - r["adp_low"] for r in done], [r["adp_high"] - r["adp"] for r in done]]
        colors = ["C0" if r["status"] == "completed" else "C1" for r in done]
        for x, y, lo, hi, c in zip(xs, ys, err[0], err[1], colors):
            ax.errorbar([x], [y], yerr=[[lo], [hi]], fmt="o", color=c, capsize=3)
        if numeric and domain == "loguniform" or numeric and xs and min(xs) > 0 and max(xs) / min(xs) >= 10:
            ax.set_xscale("log")
        ax.axhline(0.0, color="grey", lw=0.7, ls="--")
        ax.set_xlabel(name)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{title}: {ylabel} at each trial's last evaluation\n(95% intervals; orange: stopped early by the "
                 f"scheduler)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def label(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
