"""``cardrl plot RUN_DIR``: learning curves of a training run (its ``progress.jsonl``) as a PNG.

Top: the evaluation against each baseline by frames trained, with its 95% interval (Luo & Tan 2024, Fig. 5-6
style): ADP, or points per deal for a game whose episode is a match (the game's evaluation protocol,
docs/architecture.md), the point where the interval first lay above 0 marked, and the final whole-match win rates
when the run measured them. Middle: frames trained per second, and each loss per module that the records hold (DMC's
Q loss, PPO's policy and value losses). Bottom, when the run has them: the opponent model's losses per module, and
the data path (the age of the frames each update trains on, the buffers' and the driver's memory).

The same figure reads for one evaluation and for thousands of records: with few points every point is drawn with
its interval as an error bar, with many the interval is a band and noisy series get a moving average; the x-axes
start at 0 and frame counts are written 12k / 3.4M.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardrl.run_dir import read_config, read_progress

__all__ = ["plot_run", "render_png", "format_count", "plays_matches", "loss_fields", "loss_name", "main_plot"]

FEW = 30  # at most this many points: markers and error bars; more: lines and bands


def format_count(x: float, pos: Any = None) -> str:
    """A frame count as people write it: 950, 12k, 3.4M, 1.2G."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.0f}"


def plays_matches(config: dict) -> bool:
    """Whether the run's game has matches for episodes (its evaluation then reports points per deal)."""
    from cardrl.games.registry import get_game

    try:
        return get_game(config["game"]).protocol.unit == "match"
    except (KeyError, ValueError):  # no config.json, or a game not registered here
        return False


def _score_label(config: dict) -> str:
    """The evaluation's name for the run's game (ADP; points per deal where the episode is a match)."""
    if plays_matches(config):
        return "points per deal (side A, 95% interval)"
    return "ADP (side A's points per deal, 95% interval)"


def _short_name(config: dict) -> str:
    return "points/deal" if plays_matches(config) else "ADP"


def _moving_average(values, window: int):
    import numpy as np

    values = np.asarray(values, dtype=float)
    if window <= 1 or len(values) < window:
        return values
    kernel = np.ones(window) / window
    head = np.cumsum(values[: window - 1]) / np.arange(1, window)  # the first points average what there is
    return np.concatenate([head, np.convolve(values, kernel, mode="valid")])


def _series(ax, x, y, *, label: str | None, color: str, smooth: bool = True, raw: bool = True,
            linestyle: str = "-") -> None:
    """A noisy series: markers when few points; its moving average when many, over the thin raw line if ``raw``."""
    if len(x) <= FEW:
        ax.plot(x, y, marker="o", markersize=4, linewidth=1.0, label=label, color=color, linestyle=linestyle)
    elif smooth:
        if raw:
            ax.plot(x, y, linewidth=0.6, alpha=0.3, color=color, linestyle=linestyle)
        ax.plot(x, _moving_average(y, max(5, len(y) // 40)), linewidth=1.4, label=label, color=color,
                linestyle=linestyle)
    else:
        ax.plot(x, y, linewidth=1.2, label=label, color=color, linestyle=linestyle)


def _frames_axis(ax, xmax: float) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.xaxis.set_major_formatter(FuncFormatter(format_count))
    ax.set_xlim(0, xmax * 1.04 if xmax > 0 else 1)
    ax.set_xlabel("frames trained")
    ax.grid(alpha=0.3)


# The evaluations a DMC run adds beside the headline (algorithms/dmc/train.py): an oracle agent fed the block it was
# trained on, an ODMC agent playing unpruned. Drawn in the baseline's colour, dashed / dotted.
EVAL_VARIANT_CURVES = (("eval_oracle", "--^", "trained oracle block"), ("eval_unpruned", ":v", "unpruned"))


def _eval_panel(ax, records: list[dict], config: dict, xmax: float) -> None:
    import numpy as np

    short = _short_name(config)
    evals = [r for r in records if r.get("eval")]
    reached = next((r["reached_adp_above_0"] for r in reversed(records) if r.get("reached_adp_above_0")), {})
    for i, spec in enumerate(sorted({s for r in evals for s in r["eval"]})):
        color = f"C{i}"
        points = [(r["frames_trained"], r["eval"][spec]) for r in evals if spec in r["eval"]]
        x = np.array([p[0] for p in points], dtype=float)
        y = np.array([p[1]["adp"] for p in points])
        lo = np.array([p[1]["adp_low"] for p in points])
        hi = np.array([p[1]["adp_high"] for p in points])
        label = f"vs {spec}: last {y[-1]:+.2f} [{lo[-1]:+.2f}, {hi[-1]:+.2f}]"
        if len(points) > 1:
            ax.fill_between(x, lo, hi, alpha=0.15 if len(points) <= FEW else 0.25, color=color, linewidth=0)
        if len(points) <= FEW:
            ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="-o", markersize=6, capsize=5, elinewidth=1.5,
                        color=color, label=label)
        else:
            ax.plot(x, y, linewidth=1.4, color=color, label=label)
        if spec in reached:
            ax.axvline(reached[spec]["frames_trained"], linestyle=":", color=color,
                       label=f"{short} > 0 vs {spec} from {format_count(reached[spec]['frames_trained'])} frames")
        for variant, style, what in EVAL_VARIANT_CURVES:
            vpoints = [(r["frames_trained"], r[variant]["results"][spec]) for r in records
                       if spec in ((r.get(variant) or {}).get("results") or {})]
            if vpoints:
                vy = [p[1]["adp"] for p in vpoints]
                ax.plot([p[0] for p in vpoints], vy, style, linewidth=1.2, color=color, markersize=4,
                        label=f"vs {spec}, {what}: last {vy[-1]:+.2f}")
    ax.axhline(0.0, color="black", linewidth=0.8)
    _frames_axis(ax, xmax)
    ax.set_ylabel(_score_label(config))
    title = config.get("title")
    ax.set_title(f"{title + ': ' if title else ''}evaluation against the baselines, sides swapped "
                 f"({len(evals)} evaluation{'s' if len(evals) != 1 else ''})")
    if evals:
        ax.legend(fontsize="small", loc="best")
    else:
        ax.text(0.5, 0.5, "no evaluation records (run with --eval-every)", ha="center", transform=ax.transAxes)
    matches = next((r["matches"] for r in reversed(records) if r.get("matches")), None)
    if matches:
        lines = [f"final match win rate vs {spec}: {m['win_rate']:.2f} [{m['win_rate_low']:.2f}, "
                 f"{m['win_rate_high']:.2f}] ({m['matches']} match{'es' if m['matches'] != 1 else ''} x 2)"
                 for spec, m in sorted(matches.items())]
        ax.text(0.01, 0.97, "\n".join(lines), transform=ax.transAxes, va="top", fontsize="small",
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.8, "edgecolor": "0.7"})


def _fps_panel(ax, records: list[dict]) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    records = [r for r in records if r.get("frames_per_s") is not None]
    seconds = [r["time_s"] for r in records] or [0.0]
    longest = max(seconds)
    scale, unit = (1.0, "seconds") if longest < 120 else (60.0, "minutes") if longest < 3 * 3600 else (3600.0, "hours")
    x = [s / scale for s in seconds]
    if records:
        _series(ax, x, [r["frames_per_s"] for r in records], label="frames/s", color="C0")
    ax.set_xlim(0, max(x) * 1.04 if max(x) > 0 else 1)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.yaxis.set_major_formatter(FuncFormatter(format_count))
    ax.set_xlabel(f"{unit} of training")
    ax.set_ylabel("frames trained / s")
    ax.set_title("throughput")
    ax.grid(alpha=0.3)


def loss_fields(records: list[dict]) -> list[str]:
    """The per-module losses the records hold (``{module: loss}`` fields): ``losses`` (DMC's Q loss) and those named
    ``*_loss`` (PPO's ``policy_loss``, ``vf_loss``), in the order first seen."""
    keys = (k for r in records for k, v in r.items()
            if (k == "losses" or k.endswith("_loss")) and isinstance(v, dict)
            and v and all(isinstance(x, (int, float)) for x in v.values()))
    return list(dict.fromkeys(keys))


def loss_name(key: str) -> str:
    """How a loss field is written for people: ``losses`` -> ``Q loss``, ``policy_loss`` -> ``policy loss``."""
    return "Q loss" if key == "losses" else key.replace("_", " ")


def _loss_panel(ax, records: list[dict], xmax: float) -> None:
    """Each loss field of the records: a colour per module, a line style per loss."""
    from matplotlib.lines import Line2D

    keys = loss_fields(records)
    modules = sorted({m for r in records for k in keys for m in r.get(k) or {}})
    styles = dict(zip(keys, ["-", "--", "-.", ":"] * len(keys)))
    for i, module in enumerate(modules):
        for key in keys:
            rows = [r for r in records if module in (r.get(key) or {})]
            if rows:
                _series(ax, [r["frames_trained"] for r in rows], [r[key][module] for r in rows],
                        label=module if len(keys) == 1 else None, color=f"C{i % 10}", linestyle=styles[key])
    _frames_axis(ax, xmax)
    if keys == ["losses"]:
        ax.set_ylabel("Q loss (MSE)")
        ax.set_title("Q-network loss per module")
    else:
        ax.set_ylabel("loss")
        ax.set_title("losses per module")
    if len(keys) == 1 and modules:
        ax.legend(fontsize="small")
    elif modules:
        handles = [Line2D([], [], color=f"C{i % 10}", label=m) for i, m in enumerate(modules)]
        handles += [Line2D([], [], color="0.3", linestyle=styles[k], label=loss_name(k)) for k in keys]
        ax.legend(handles=handles, fontsize="x-small", ncol=2)


def _opponent_model_panel(ax, records: list[dict], xmax: float) -> None:
    """The opponent model's metrics: a colour per module, a line style per metric; losses on the left axis,
    accuracies (0..1) on the right."""
    from matplotlib.lines import Line2D

    modules = sorted({m for r in records for m in (r.get("opponent_model") or {})})
    keys = sorted({k for r in records for metrics in (r.get("opponent_model") or {}).values() for k in metrics})
    styles = dict(zip(keys, ["-", "--", "-.", ":"] * len(keys)))
    right = ax.twinx() if any("accuracy" in k for k in keys) else None
    for i, module in enumerate(modules):
        for key in keys:
            rows = [r for r in records if key in (r.get("opponent_model") or {}).get(module, {})]
            if rows:
                _series(right if "accuracy" in key and right is not None else ax, [r["frames_trained"] for r in rows],
                        [r["opponent_model"][module][key] for r in rows], label=None, color=f"C{i % 10}",
                        raw=False, linestyle=styles[key])
    _frames_axis(ax, xmax)
    ax.set_ylabel("loss")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.5 * (high - low))  # the top third is the legend's
    if right is not None:
        right.set_ylim(0, 1.5)
        right.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        right.set_ylabel("accuracy")
    ax.set_title("opponent model per module")
    handles = [Line2D([], [], color=f"C{i % 10}", label=m) for i, m in enumerate(modules)]
    handles += [Line2D([], [], color="0.3", linestyle=styles[k],
                       label=k + (" (right)" if "accuracy" in k and right is not None else "")) for k in keys]
    (right or ax).legend(handles=handles, fontsize="x-small", ncol=3, loc="upper center", framealpha=0.9)


def _data_panel(ax, records: list[dict], xmax: float) -> None:
    ages = [(r["frames_trained"], r["data_age_updates"]) for r in records if r.get("data_age_updates") is not None]
    if ages:
        _series(ax, [p[0] for p in ages], [p[1] for p in ages], label="data age (updates)", color="C0")
    ax.set_ylim(0, max([1.0] + [1.1 * p[1] for p in ages]))
    ax.set_ylabel("data age (learner updates)")
    right = ax.twinx()
    sizes = []
    for i, (key, label) in enumerate((("buffer_mb", "buffers (MB)"), ("driver_rss_mb", "driver memory (MB)"))):
        rows = [r for r in records if r.get(key) is not None]
        if rows:
            _series(right, [r["frames_trained"] for r in rows], [r[key] for r in rows], label=label,
                    color=f"C{i + 1}", smooth=False)
            sizes += [r[key] for r in rows if r[key] > 0]
    if sizes and max(sizes) > 30 * min(sizes):  # buffers of a few MB beside a driver of a GB: both readable
        right.set_yscale("log")
    right.set_ylabel("MB" + (" (log scale)" if right.get_yscale() == "log" else ""))
    _frames_axis(ax, xmax)
    ax.set_title("data path")
    handles = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    right.legend(handles[0] + more[0], handles[1] + more[1], fontsize="x-small", loc="center left", framealpha=0.9)


def _figure(run_dir: str | Path):
    """The learning-curve figure of a run directory (module docstring)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_progress(run_dir)
    config = read_config(run_dir)
    iterations = [r for r in records if not r.get("final")] or records  # the final record repeats the last's metrics
    xmax = float(max(r.get("frames_trained", 0) for r in records))
    has_om = any(r.get("opponent_model") for r in records)
    has_data = any(r.get(k) is not None for r in records for k in ("data_age_updates", "buffer_mb", "driver_rss_mb"))
    rows = 3 if (has_om or has_data) else 2
    fig = plt.figure(figsize=(12, 3.7 * rows + 0.6), layout="constrained")
    grid = fig.add_gridspec(rows, 2, height_ratios=[1.3] + [1] * (rows - 1))
    _eval_panel(fig.add_subplot(grid[0, :]), records, config, xmax)
    _fps_panel(fig.add_subplot(grid[1, 0]), iterations)
    _loss_panel(fig.add_subplot(grid[1, 1]), iterations, xmax)
    if has_om and has_data:
        _opponent_model_panel(fig.add_subplot(grid[2, 0]), iterations, xmax)
        _data_panel(fig.add_subplot(grid[2, 1]), iterations, xmax)
    elif has_om:
        _opponent_model_panel(fig.add_subplot(grid[2, :]), iterations, xmax)
    elif has_data:
        _data_panel(fig.add_subplot(grid[2, :]), iterations, xmax)
    what = config.get("title") or ""
    fig.suptitle(f"{Path(run_dir).resolve().name}{' (' + what + ')' if what else ''}: {len(iterations)} iterations, "
                 f"{format_count(xmax)} frames, {records[-1].get('time_s', 0) / 60:.1f} min")
    return fig


def render_png(run_dir: str | Path, dpi: int = 100) -> bytes:
    """The learning curves of ``run_dir`` as PNG bytes (``cardrl report`` inlines them)."""
    import io

    import matplotlib.pyplot as plt

    fig = _figure(run_dir)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    return buf.getvalue()


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draw the learning curves of ``run_dir`` into ``out`` (default ``<run_dir>/learning_curves.png``)."""
    out = Path(out) if out else Path(run_dir) / "learning_curves.png"
    png = render_png(run_dir, dpi=110)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(png)
    return out


def main_plot(args) -> int:
    """``cardrl plot``: write the PNG, or print one error line and return 2."""
    import sys

    from cardrl.run_dir import check_run_dir_args

    try:
        check_run_dir_args(args)
        path = plot_run(args.run_dir, args.out)
    except (FileNotFoundError, ValueError) as err:
        print(f"cardrl plot: error: {err}", file=sys.stderr)
        return 2
    print(f"learning curves written: {path}")
    return 0
