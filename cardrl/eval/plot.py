"""``cardrl plot RUN_DIR``: learning curves of a training run (its ``progress.jsonl``) as a PNG.

Top: ADP against each evaluation baseline with its 95% interval, by frames trained (Luo & Tan 2024, Fig. 5-6 style),
with the point where the interval first lay above 0 marked. Bottom left: frames trained per second. Bottom right:
the Q-loss of each module.
"""

from __future__ import annotations

import json
from pathlib import Path


def read_progress(run_dir: str | Path) -> list[dict]:
    """The records of ``<run_dir>/progress.jsonl`` (one per training iteration)."""
    path = Path(run_dir) / "progress.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir} has no progress.jsonl: is it a run directory of `cardrl train`?")
    records = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{n} is not a JSON record ({err})") from None
    if not records:
        raise ValueError(f"{path} is empty: the run has not finished an iteration yet")
    return records


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draw the learning curves of ``run_dir`` into ``out`` (default ``<run_dir>/learning_curves.png``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_progress(run_dir)
    out = Path(out) if out else Path(run_dir) / "learning_curves.png"
    fig = plt.figure(figsize=(11, 7))
    ax_eval = fig.add_subplot(2, 1, 1)
    ax_fps = fig.add_subplot(2, 2, 3)
    ax_loss = fig.add_subplot(2, 2, 4)

    evals = [r for r in records if r.get("eval")]
    for spec in sorted({s for r in evals for s in r["eval"]}):
        points = [(r["frames_trained"], r["eval"][spec]) for r in evals if spec in r["eval"]]
        frames = [p[0] for p in points]
        ax_eval.plot(frames, [p[1]["adp"] for p in points], marker="o", label=f"vs {spec}")
        ax_eval.fill_between(frames, [p[1]["adp_low"] for p in points], [p[1]["adp_high"] for p in points],
                             alpha=0.2)
        reached = records[-1].get("reached_adp_above_0", {}).get(spec)
        if reached:
            ax_eval.axvline(reached["frames_trained"], linestyle=":", color="gray")
    ax_eval.axhline(0.0, color="black", linewidth=0.8)
    ax_eval.set_xlabel("frames trained")
    ax_eval.set_ylabel("ADP (team points, 95% CI)")
    ax_eval.set_title(f"{Path(run_dir).name}: evaluation, sides swapped")
    if evals:
        ax_eval.legend()
    else:
        ax_eval.text(0.5, 0.5, "no evaluation records (run with --eval-every)", ha="center",
                     transform=ax_eval.transAxes)

    times = [r["time_s"] / 60 for r in records]
    ax_fps.plot(times, [r["frames_per_s"] for r in records])
    ax_fps.set_xlabel("minutes")
    ax_fps.set_ylabel("frames trained / s")
    for module in sorted({m for r in records for m in r.get("losses", {})}):
        ax_loss.plot([r["frames_trained"] for r in records if module in r.get("losses", {})],
                     [r["losses"][module] for r in records if module in r.get("losses", {})], label=module,
                     linewidth=0.8)
    ax_loss.set_xlabel("frames trained")
    ax_loss.set_ylabel("Q loss (MSE)")
    ax_loss.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main_plot(args) -> int:
    path = plot_run(args.run_dir, args.out)
    print(f"learning curves written: {path}")
    return 0
