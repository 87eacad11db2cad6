"""What a seed fixes: repeated runs of one configuration and one seed, side by side (issue: learning evidence).

Reads each named run directory (``cardrl train``'s ``progress.jsonl``, every record, and ``machine.json``) and
reports, per run: each evaluation's score against each baseline with its deal-level interval, the final one, and
what the run's data looked like: data age (seconds and learner updates between a frame's sampling and its update),
weight lag, the share of sampled frames dropped before any update used them, frames/s; then how far the repeats
land apart at each milestone against the deal-level half-width, and the first iteration at which their losses
differ (the point where the asynchronous actor and learner made them two runs).

Run: ``python experiments/seed_variation.py --run idle_1=DIR --run idle_2=DIR --run loaded=DIR --out
docs/learning/seed_variation``; it writes ``seed_variation.md`` and ``seed_variation.json`` there and copies each
run's evaluation records (``cardrl bench learning``'s kept form) beside them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cardrl.bench.common import machine_description
from cardrl.bench.learning import keep_run
from cardrl.run_dir import read_progress

TIMING = ("data_age_s", "data_age_updates", "weight_lag")


def read_repeat(directory: Path) -> dict[str, Any]:
    """One run's evaluations, data-path figures and per-iteration losses."""
    records = read_progress(directory, torn_last_line=True)
    iterations = [r for r in records if "iteration" in r and not r.get("final")]
    evals = {int(r["eval_frames"]): r["eval"] for r in records if "eval" in r and r.get("eval_frames")}
    last = records[-1]
    dropped, trained = float(last.get("frames_dropped") or 0), float(last.get("frames_trained") or 0)
    machine_path = directory / "machine.json"
    machine = json.loads(machine_path.read_text())["segments"] if machine_path.is_file() else None
    return {
        "evals": evals, "frames": int(trained), "train_s": float(last.get("train_s") or 0),
        "frames_per_s": trained / float(last["train_s"]) if last.get("train_s") else None,
        "means": {k: statistics.fmean(float(r[k]) for r in iterations if r.get(k) is not None) for k in TIMING
                  if any(r.get(k) is not None for r in iterations)},
        "dropped_share": dropped / (dropped + trained) if dropped + trained else None,
        "losses": [r.get("losses") for r in iterations], "machine": machine,
    }


def first_difference(runs: dict[str, dict]) -> int | None:
    """The first iteration (1-based) whose losses differ between any two runs; None where all agree throughout."""
    series = [r["losses"] for r in runs.values()]
    for i in range(min(len(s) for s in series)):
        if any(s[i] != series[0][i] for s in series[1:]):
            return i + 1
    return None


def report(runs: dict[str, dict], command: str = "") -> tuple[str, dict]:
    baselines = sorted({b for r in runs.values() for ev in r["evals"].values() for b in ev})
    milestones = sorted(set.intersection(*(set(r["evals"]) for r in runs.values())))
    lines = ["# What a seed fixes: repeats of one configuration and seed", "",
             *([f"Command: `{command}`  "] if command else []),
             f"Report written on: {machine_description()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             "(each run's machine, start and load before it: its machine.json)", "",
             "| run | machine, load before | frames | training min | frames/s | data age s | data age updates | "
             "weight lag | sampled frames dropped | " + " | ".join(f"last vs {b}" for b in baselines) + " |",
             "|" + "---|" * (9 + len(baselines))]
    for name, r in runs.items():
        seg = (r["machine"] or [{}])[0]
        load = seg.get("load_before")
        where = f"{seg.get('machine', '?').split(',')[0]}, " + ("not recorded" if load is None else f"{load:.1f}")
        last = r["evals"][max(r["evals"])] if r["evals"] else {}
        m = r["means"]
        lines.append(f"| {name} | {where} | {r['frames']:,} | {r['train_s'] / 60:.1f} | {r['frames_per_s']:,.0f} | "
                     f"{m.get('data_age_s', float('nan')):.2f} | {m.get('data_age_updates', float('nan')):.2f} | "
                     f"{m.get('weight_lag', float('nan')):.3f} | {100 * (r['dropped_share'] or 0):.1f}% | "
                     + " | ".join(f"{last[b]['adp']:+.2f} [{last[b]['adp_low']:+.2f}, {last[b]['adp_high']:+.2f}]"
                                  if b in last else "-" for b in baselines) + " |")
    spread = {}
    lines += ["", "Spread of the repeats at each milestone (largest score less smallest) against one run's deal-level "
              "95% half-width (the mean of the repeats'):", "", "| frames | " + " | ".join(
                  f"vs {b}: spread / half-width" for b in baselines) + " |", "|" + "---|" * (1 + len(baselines))]
    for m in milestones:
        cells = []
        for b in baselines:
            scores = [r["evals"][m][b] for r in runs.values() if b in r["evals"][m]]
            if len(scores) < 2:
                cells.append("-")
                continue
            gap = max(s["adp"] for s in scores) - min(s["adp"] for s in scores)
            half = statistics.fmean((s["adp_high"] - s["adp_low"]) / 2 for s in scores)
            spread.setdefault(b, {})[m] = {"spread": gap, "half_width": half}
            cells.append(f"{gap:.2f} / {half:.2f}")
        lines.append(f"| {m / 1e6:.1f}M | " + " | ".join(cells) + " |")
    first = first_difference(runs)
    lines += ["", f"First iteration whose losses differ between the repeats: {first if first else 'none'}"
              + (" (of " + str(min(len(r['losses']) for r in runs.values())) + " compared)"), ""]
    figures = {name: {k: v for k, v in r.items() if k != "losses"} for name, r in runs.items()}
    return "\n".join(lines), {"runs": figures, "spread": spread, "first_loss_difference": first}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, metavar="NAME=DIR",
                        help="a run directory and its name in the report (repeat the flag)")
    parser.add_argument("--out", required=True, help="where the report and the kept evaluation records go")
    args = parser.parse_args(argv)
    pairs = [item.split("=", 1) for item in args.run]
    if any(len(p) != 2 for p in pairs):
        parser.error("--run takes NAME=DIR")
    runs = {name: read_repeat(Path(path)) for name, path in pairs}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text, figures = report(runs, "python experiments/seed_variation.py " + " ".join(argv if argv is not None
                                                                                      else sys.argv[1:]))
    for name, path in pairs:
        keep_run(Path(path), out / name)  # its evaluation records, config.json and machine.json
    (out / "seed_variation.md").write_text(text + "\n")
    (out / "seed_variation.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
