"""The learning benchmark's report as markdown and PNG (``cardrl bench learning GAME``): the figures of
:mod:`cardrl.bench.learning_report`, runs as the unit.

Every comparison in the text is worded from the run-level figures alone: a variant is "ahead" of the reference only
where the interval of the difference of means or of the probability of improvement excludes no difference
(:func:`cardrl.bench.run_stats.verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardrl.bench.run_stats import BOOTSTRAP_REPS, CONFIDENCE, FEW_RUNS
from cardrl.games.registry import get_game

__all__ = ["format_learning", "plot_learning"]


def _count(frames: float | None) -> str:
    if frames is None:
        return "-"
    if frames < 1e3:
        return f"{frames:.0f}"
    return f"{frames / 1e6:.2f}M" if frames >= 1e6 else f"{frames / 1e3:.0f}k"


def _minutes(minutes: float | None) -> str:
    return "-" if minutes is None else f"{minutes:.1f} min"


def _span(low: float | None, high: float | None, show) -> str:
    return show(low) if low == high else f"{show(low)} to {show(high)}"


def _mean(point: dict) -> str:
    return f"{point['mean']:+.2f} [{point['low']:+.2f}, {point['high']:+.2f}]"


def _deal_interval(point: dict) -> str:
    return f"{point['adp']:+.2f} [{point['adp_low']:+.2f}, {point['adp_high']:+.2f}]"


def _comparison(row: dict) -> str:
    needed = ""
    if row["verdict"] == "not apart" and row["runs_needed"]:
        n = row["runs_needed"]
        needed = f"; {n} runs each would decide it" if n <= 1000 else "; over 1,000 runs each would decide it"
    welch = f"Welch p {row['welch_p']:.2f}" if row.get("welch_p") is not None else "Welch p -"
    few = f" (fewer than {FEW_RUNS} runs a side: the bootstrap is too narrow; {welch})" if min(
        row["runs"]) < FEW_RUNS and row["verdict"] in ("ahead", "behind") else f"; {welch}"
    return (f"{row['verdict']}{few}: P {row['probability']:.2f} [{row['probability_low']:.2f}, "
            f"{row['probability_high']:.2f}], diff {row['difference']:+.2f} [{row['difference_low']:+.2f}, "
            f"{row['difference_high']:+.2f}]{needed}")


def format_learning(summary: dict[str, Any], comparisons: dict[str, Any], *, game: str, against: Sequence[str],
                    frames: int, reference: str, command: str, machine: str, date: str) -> str:
    """The markdown report: the findings (each variant against the reference at the last milestone), the summary
    per variant, every run, the mean over runs by frames and by minutes, the comparisons, pass rates and matches."""
    score = get_game(game).protocol.score_name
    lines = [f"# Learning benchmark: {game}", "", f"Command: `{command}`  ", f"Report written on: {machine}  ",
             f"Date: {date}", "",
             (f"Budget: {frames:,} frames per run. Runs are the unit: each figure over runs is the mean of the runs' "
              f"scores ({score} per deal against a baseline, each run's its evaluation's mean) with a "
              f"{CONFIDENCE:.0%} stratified-bootstrap interval over runs (rliable, {BOOTSTRAP_REPS:,} resamples); "
              f"a variant against the reference ({reference}): the probability of improvement P(X > Y) over run "
              "pairs and the difference of means, each with its bootstrap interval, and the verdict 'ahead' / "
              "'behind' only where one of the intervals excludes no difference. 'to > 0': each run's first "
              "evaluation whose own deal-level interval lies above 0; the median over runs (a run that never got "
              "there counts as last; '-' when half or more never did) and the range of those that got there. "
              "Minutes are of training alone, compared only between runs on one machine."), ""]
    lines += _findings(comparisons, summary, reference)
    lines += _summary_table(summary, against)
    lines += _runs_table(summary, against)
    lines += _level_tables(summary, against, score)
    lines += _comparison_tables(comparisons, against, reference)
    lines += _pass_table(summary, against[0] if against else None)
    lines += _match_lines(summary, against)
    return "\n".join(lines) + "\n"


def _findings(comparisons: dict[str, Any], summary: dict[str, Any], reference: str) -> list[str]:
    """Per variant and baseline: the comparison at the last frame milestone both have."""
    lines = ["## Findings at the last common milestone", ""]
    for variant, per_baseline in comparisons.items():
        for baseline, entry in per_baseline.items():
            if not entry["by_frames"]:
                continue
            last = entry["by_frames"][-1]
            lines.append(f"- {variant} vs {reference}, against {baseline} at {_count(last['frames'])} frames "
                         f"({last['runs'][0]} and {last['runs'][1]} runs): {_comparison(last)}")
    if len(lines) == 2:
        lines.append(f"- no variant besides {reference} to compare" if len(summary) < 2 else "- no common milestone")
    return lines + [""]


def _machines(summary: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(x["machine"] or "unrecorded" for s in summary.values() for x in s["seeds"].values()))


def _machine_letter(machines: list[str], machine: str | None) -> str:
    return chr(65 + machines.index(machine or "unrecorded"))


def _summary_table(summary: dict[str, Any], against: Sequence[str]) -> list[str]:
    machines = _machines(summary)
    head = ["variant", "runs (done)", "frames/s"]
    for b in against:
        head += [f"last vs {b}: mean over runs", f"to > 0 vs {b}: median frames (range; runs); median minutes"]
    lines = ["## Summary", "", "Machines: " + "; ".join(f"{chr(65 + i)}: {m}" for i, m in enumerate(machines)), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, s in summary.items():
        done = sum(v["done"] for v in s["seeds"].values())
        fps = s["frames_per_s"]
        row = [variant, f"{len(s['seeds'])} ({done})", f"{fps:,.0f}" if fps else "-"]
        for b in against:
            points = s["by_frames"].get(b) or []
            row.append(f"{_mean(points[-1])} at {_count(points[-1]['frames'])} ({points[-1]['runs']})"
                       if points else "-")
            f = s["to_threshold"][b]["frames"]
            minutes = "; ".join(f"{_minutes(m['median'])} on {_machine_letter(machines, machine)}"
                                for machine, m in s["to_threshold"][b]["minutes"].items())
            spread = _span(f["low"], f["high"], _count) if f["reached"] else "none"
            row.append(f"{_count(f['median'])} ({spread}; {f['reached']}/{f['runs']}); {minutes}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _runs_table(summary: dict[str, Any], against: Sequence[str]) -> list[str]:
    """Every run: its machine, frames, training minutes, frames/s and last evaluation (its deal-level interval)."""
    machines = _machines(summary)
    head = ["variant", "seed", "machine", "frames", "training", "frames/s", *[f"last vs {b} (deals)" for b in against]]
    lines = ["", "## Every run", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, s in summary.items():
        for seed, x in s["seeds"].items():
            fps = x["frames_per_s"]
            row = [variant, str(seed), _machine_letter(machines, x["machine"]), _count(x["frames"]),
                   _minutes(x["train_s"] / 60), f"{fps:,.0f}" if fps else "-"]
            row += [f"{_deal_interval(x['final'][b])} at {_count(x['final'][b]['frames'])}" if b in x["final"]
                    else "-" for b in against]
            lines.append("| " + " | ".join(row) + " |")
    return lines


def _level_tables(summary: dict[str, Any], against: Sequence[str], score: str) -> list[str]:
    lines: list[str] = []
    for b in against:
        milestones = sorted({p["frames"] for s in summary.values() for p in s["by_frames"].get(b, [])})
        if milestones:
            lines += ["", f"## vs {b}: mean {score} over runs by frames trained (runs; median training minutes)", "",
                      "| frames | " + " | ".join(summary) + " |", "|" + "---|" * (len(summary) + 1)]
            for m in milestones:
                cells = []
                for s in summary.values():
                    p = next((p for p in s["by_frames"].get(b, []) if p["frames"] == m), None)
                    cells.append(f"{_mean(p)} ({p['runs']}; {p['minutes']:.1f} min)" if p else "")
                lines.append(f"| {_count(m)} | " + " | ".join(cells) + " |")
        machines = list(dict.fromkeys(machine for s in summary.values() for machine in s["by_minutes"].get(b, {})))
        for machine in machines:
            marks = sorted({p["minutes"] for s in summary.values() for p in s["by_minutes"][b].get(machine, [])})
            if not marks:
                continue
            lines += ["", f"### vs {b}: mean over runs by training minutes, runs on {machine} (runs)", "",
                      "| minutes | " + " | ".join(summary) + " |", "|" + "---|" * (len(summary) + 1)]
            for mark in marks:
                cells = []
                for s in summary.values():
                    p = next((p for p in s["by_minutes"][b].get(machine, []) if p["minutes"] == mark), None)
                    cells.append(f"{_mean(p)} ({p['runs']})" if p else "")
                lines.append(f"| {mark:g} | " + " | ".join(cells) + " |")
    return lines


def _comparison_tables(comparisons: dict[str, Any], against: Sequence[str], reference: str) -> list[str]:
    if not comparisons:
        return []
    lines: list[str] = []
    for b in against:
        lines += ["", f"## vs {b}: each variant against {reference} (verdict: P(X > Y) [interval], difference of "
                  "means [interval]; the runs per variant a 5% test with 80% power would need where not apart)", ""]
        for variant, per_baseline in comparisons.items():
            entry = per_baseline.get(b)
            if not entry:
                continue
            for row in entry["by_frames"]:
                lines.append(f"- {variant}, {_count(row['frames'])} frames: {_comparison(row)}")
            for machine, rows in entry["by_minutes"].items():
                for row in rows:
                    lines.append(f"- {variant}, {row['minutes']:g} min on {machine.split(',')[0]}: {_comparison(row)}")
    return lines


def _pass_table(summary: dict[str, Any], first: str | None) -> list[str]:
    """How often each variant's greedy agent passed where passing was legal, against the first baseline."""
    passing = {v: [p for p in s["by_frames"].get(first, []) if p.get("pass_rate")] for v, s in summary.items()}
    if not any(passing.values()):
        return []
    sides = sorted({side for points in passing.values() for p in points for side in p["pass_rate"]})
    lines = ["", f"## How often the greedy agent passed where passing was legal (vs {first}, counts over runs)",
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
    lines = ["", "## Whole matches at the end (match win rate, mean over runs)", ""]
    for v, ms in matches.items():
        for b in against:
            rates = [m[b]["win_rate"] for m in ms if b in m]
            if rates:
                lines.append(f"- {v} vs {b}: {sum(rates) / len(rates):.3f} over {len(rates)} run(s)")
    return lines


def plot_learning(runs: dict[str, dict[int, dict]], summary: dict[str, Any], against: Sequence[str], path: Path,
                  title: str) -> Path | None:
    """Per baseline, over frames (top row) and training minutes (bottom row): each run's curve faint, the mean over
    runs with its bootstrap band on top (over minutes: on the machine with the most runs)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(2, len(against), figsize=(5.5 * len(against), 7.5), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for col, b in enumerate(against):
        for row, key in enumerate(("frames", "minutes")):
            ax = axes[row][col]
            for i, (variant, s) in enumerate(summary.items()):
                colour = colours[i % len(colours)]
                for run in runs[variant].values():
                    evs = sorted((m, ev) for m, ev in run["evals"].items() if b in ev["results"])
                    x = [m / 1e6 if key == "frames" else ev["train_s"] / 60 for m, ev in evs]
                    ax.plot(x, [ev["results"][b]["adp"] for _, ev in evs], color=colour, lw=0.7, alpha=0.3)
                points = s["by_frames"].get(b, []) if key == "frames" else max(
                    s["by_minutes"].get(b, {}).values(), key=lambda ps: ps[0]["runs"] if ps else 0, default=[])
                if not points:
                    continue
                x = [p[key] / (1e6 if key == "frames" else 1) for p in points]
                ax.plot(x, [p["mean"] for p in points], color=colour, marker="o", ms=3, label=variant)
                ax.fill_between(x, [p["low"] for p in points], [p["high"] for p in points], color=colour,
                                alpha=0.15)
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xlabel("frames trained (millions)" if key == "frames" else "training minutes")
            ax.set_ylabel(f"vs {b}")
            if row == 0 and col == 0:
                ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
