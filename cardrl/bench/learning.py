"""``cardrl bench learning GAME``: which DMC variant learns fastest, per frame and per minute, on the same seeds.

Each named variant (:data:`VARIANTS`: plain DMC and the papers' methods as ``cardrl train`` flags) is trained from
each seed to the same frame budget, each (variant, seed) pair in its own run directory ``OUT/VARIANT/seedS`` by its
own ``cardrl train --resume`` process: a benchmark stopped at any point (``--hours``, Ctrl-C, a lost session)
continues from each run's latest checkpoint when the same command is given again, and no process lives longer than
one run. Every run evaluates its greedy networks at the same frame milestones (``--eval-every-frames``) on the same
seeded deals (``--seed`` of the evaluation, sides swapped) against the same baselines (the game's random and rule
agents by default), and its evaluation time is kept out of its training time.

The report (``results.json``, ``learning.md``, ``learning.png`` in ``OUT``) gives per variant:

* the learning curves over frames and over training minutes, each point the ADP (DouDiZhu; Big2: cards; GuanDan:
  points per deal) pooled over seeds: the mean of every seed's deals with the 95% t-interval of that pooled sample
  (:func:`pooled_interval`, between-seed spread included);
* frames and minutes to the first evaluation whose interval lies above 0 against each baseline (the papers' "time to
  ADP > 0", Luo & Tan 2024 Tables 8-9): each seed's, their median (:func:`median_reached`: a seed that never got
  there counts as later than every seed that did) and the pooled curve's (:func:`first_above_zero`);
* frames/s of training alone (median over seeds).

Benchmarks report; they assert nothing about which variant wins (tests check the arithmetic on synthetic curves).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardrl.bench.common import machine_description
from cardrl.games.registry import game_names, get_game

__all__ = ["Variant", "VARIANTS", "variants_for", "train_argv", "read_run", "pooled_interval", "first_above_zero",
           "median_reached", "summarise", "format_learning", "plot_learning", "run_learning", "add_learning_arguments",
           "main_bench_learning"]

# ---- the variants --------------------------------------------------------------------------------------------------
# oracle guiding's lambda reaches 0 at this share of the budget: OADMCDou anneals over its first 20 of 30 days
ORACLE_SHARE = 2 / 3


@dataclass(frozen=True)
class Variant:
    """A named DMC configuration: ``cardrl train`` flags, the paper it is from, the games it applies to."""

    name: str
    source: str
    flags: tuple[str, ...] = ()
    needs_search: bool = False  # ODMC: the game must have a Minimum Combination Search
    needs_features: str | None = None  # the game must have this feature encoder (DanZero's)
    opponent_model: str | None = None  # one of the game's encoders must feed this opponent model

    def applies_to(self, game: str) -> bool:
        spec = get_game(game)
        feeds = self.opponent_model is None or any(
            self.opponent_model in spec.make_features(name).opponent_models for name in spec.features)
        return ((not self.needs_search or spec.search is not None) and feeds
                and (self.needs_features is None or self.needs_features in spec.features))


def _danzero_flags() -> tuple[str, ...]:
    from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS

    return ("--model", "mlp", *DANZERO_OPTIMIZER_FLAGS, "--q-clip", "admc", "--admc-gamma", "0.65",
            "--frames-per-update", "32768")


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("dmc", "DouZero (Zha et al. 2021): plain DMC with the game's defaults"),
    Variant("dmc_centred", "cardrl: DMC with each seat's targets centred on its running mean return "
                           "(docs/learning.md, 'The dip')", ("--target-baseline", "seat_mean")),
    Variant("odmc", "Luo & Tan 2024, eq. 2: MCS pruning", ("--prune", "mcs"), needs_search=True),
    Variant("om", "Luo & Tan 2024, Sec. 4.2: opponent model (DouDiZhu: on the unified features it reads, one shared "
                  "network)", ("--opponent-model", "luo_tan"), opponent_model="luo_tan"),
    Variant("omodmc", "Luo & Tan 2024, Table 4: opponent model + MCS pruning (DouDiZhu: unified features, one shared "
                      "network)", ("--opponent-model", "luo_tan", "--prune", "mcs"), needs_search=True,
            opponent_model="luo_tan"),
    Variant("admc", "OADMCDou (Luo et al. 2024), eq. 2-5: the ADMC loss", ("--q-clip", "admc")),
    Variant("oadmcdou", "OADMCDou (Luo et al. 2024): oracle guiding (lambda 1 -> 0 over two thirds of the budget, "
                        "as 20 of the paper's 30 days) + ADMC",
            ("--oracle", "1:0:{oracle_frames}", "--q-clip", "admc")),
    Variant("oracledou", "OADMCDou Fig. 4: oracle guiding alone (annealed as oadmcdou)",
            ("--oracle", "1:0:{oracle_frames}")),
    Variant("perfectdou", "OADMCDou Fig. 4: PerfectDou, lambda fixed at 1", ("--oracle", "1:1:1")),
    Variant("unified", "Luo & Tan 2024: their unified features with their decision model, no opponent model",
            ("--features", "unified"), needs_features="unified"),
    Variant("douzero_plus_om", "DouZero+ (Zhao et al. 2022): the next player's cards per rank",
            ("--opponent-model", "douzero_plus"), opponent_model="douzero_plus"),
    Variant("coach", "DouZero+ (Zhao et al. 2022): the coach network", ("--coach",)),
    Variant("danzero", "DanZero (Lu et al. 2023): MLP, TF1 RMSProp lr 1e-3, ADMC-style clip 0.65, 32,768 frames per "
                       "update", ("{danzero}", "--features", "danzero"), needs_features="danzero"),
)}


def variants_for(game: str) -> list[str]:
    """The variants that apply to ``game``, in table order."""
    return [name for name, v in VARIANTS.items() if v.applies_to(game)]


def variant_flags(name: str, game: str, frames: int) -> list[str]:
    """The ``cardrl train`` flags of variant ``name`` for a budget of ``frames``; ValueError if it does not apply."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; variants: {', '.join(VARIANTS)}")
    variant = VARIANTS[name]
    if not variant.applies_to(game):
        raise ValueError(f"variant {name!r} does not apply to {game}; {game}'s variants: "
                         f"{', '.join(variants_for(game))}")
    out: list[str] = []
    for flag in variant.flags:
        if flag == "{danzero}":
            out += _danzero_flags()
        else:
            out.append(flag.format(oracle_frames=max(1, int(frames * ORACLE_SHARE))))
    return out  # an opponent model's encoder, where it is not the game's default, cardrl train picks and says


def run_directory(out: Path, variant: str, seed: int) -> Path:
    return Path(out) / variant / f"seed{seed}"


def train_argv(game: str, variant: str, seed: int, *, frames: int, eval_every_frames: int, eval_deals: int,
               against: Sequence[str], out: Path, num_env_runners: int = 1, extra: Sequence[str] = ()) -> list[str]:
    """The ``cardrl train`` arguments of one (variant, seed) run: resumable, evaluated by frames only."""
    return ["train", game, "--algo", "dmc", *variant_flags(variant, game, frames), "--seed", str(seed),
            "--stop-frames", str(frames), "--eval-every", "0", "--eval-every-frames", str(eval_every_frames),
            "--eval-deals", str(eval_deals), "--eval-against", *against, "--checkpoint-every", "5m",
            "--num-env-runners", str(num_env_runners), "--out", str(run_directory(out, variant, seed)), "--resume",
            *extra]


# ---- reading runs --------------------------------------------------------------------------------------------------
def read_run(directory: Path, frames: int) -> dict[str, Any]:
    """One run's evaluations from its ``progress.jsonl``: ``evals`` (milestone frames -> {frames_trained,
    train_s, results}), ``frames``, ``train_s``, ``frames_per_s``, ``done`` (the budget reached) and ``matches``
    (whole-match results of the final evaluation, where the game plays matches)."""
    path = Path(directory) / "progress.jsonl"
    run: dict[str, Any] = {"evals": {}, "frames": 0, "train_s": 0.0, "frames_per_s": None, "done": False,
                           "matches": None}
    if not path.exists():
        return run
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a killed process
            continue
        trained = int(record.get("frames_trained") or 0)
        train_s = float(record.get("time_s") or 0.0) - float(record.get("eval_time_s") or 0.0)
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
    middle = _median([math.inf if r is None else float(r[key]) for r in reached])
    return None if middle is None or math.isinf(middle) else middle


def _median(values: Sequence[float | None]) -> float | None:
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
                              "minutes": _median([ev["train_s"] / 60 for ev in evs]),
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
            "frames_per_s": _median([run["frames_per_s"] for run in seeds.values()]),
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
    """The markdown report: the time-to-threshold table, then one curve table per baseline."""
    score = get_game(game).protocol.score_name
    lines = [f"# Learning benchmark: {game}", "", f"Command: `{command}`  ", f"Machine: {machine}  ", f"Date: {date}",
             "", (f"Budget: {frames:,} frames per run. Scores are {score} per deal against each baseline, pooled over "
             "seeds (the mean of every seed's deals, 95% t-interval of the pooled sample). 'to > 0': frames "
             "(training minutes) to the first evaluation whose interval lies above 0: the median over seeds (a seed "
             "that never got there counts as last; '-' when half or more never did) with the seeds that got there, "
             "then the pooled curve's first."), ""]
    head = ["variant", "seeds (done)", "frames/s"]
    for b in against:
        head += [f"final vs {b}", f"to > 0 vs {b}: median (seeds)", f"pooled vs {b}"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
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
    first = against[0] if against else None
    passing = {v: [p for p in s["curves"].get(first, []) if p.get("pass_rate")] for v, s in summary.items()}
    if any(passing.values()):
        sides = sorted({side for points in passing.values() for p in points for side in p["pass_rate"]})
        lines += ["", f"## How often the greedy agent passed where passing was legal (vs {first}, pooled over seeds)",
                  "", "| frames | " + " | ".join(f"{v}: {side}" for v in passing for side in sides) + " |",
                  "|" + "---|" * (len(passing) * len(sides) + 1)]
        for m in sorted({p["frames"] for points in passing.values() for p in points}):
            cells = []
            for points in passing.values():
                point = next((p for p in points if p["frames"] == m), None)
                cells += [f"{100 * point['pass_rate'][side]:.0f}%" if point and side in point["pass_rate"] else ""
                          for side in sides]
            lines.append(f"| {_count(m)} | " + " | ".join(cells) + " |")
    matches = {v: [x["matches"] for x in s["seeds"].values() if x.get("matches")] for v, s in summary.items()}
    if any(matches.values()):
        lines += ["", "## Whole matches at the end (match win rate, mean over seeds)", ""]
        for v, ms in matches.items():
            for b in against:
                rates = [m[b]["win_rate"] for m in ms if b in m]
                if rates:
                    lines.append(f"- {v} vs {b}: {sum(rates) / len(rates):.3f} over {len(rates)} seed(s)")
    return "\n".join(lines) + "\n"


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


# ---- running ---------------------------------------------------------------------------------------------------------
def _write_report(out: Path, game: str, variants: Sequence[str], seeds: Sequence[int], frames: int,
                  against: Sequence[str], command: str) -> tuple[dict[str, Any], str]:
    """Read every run, write learning.md, results.json and learning.png; returns the summary and the markdown."""
    runs = {v: {s: read_run(run_directory(out, v, s), frames) for s in seeds} for v in variants}
    summary = summarise(runs, against)
    machine = machine_description()
    date = time.strftime("%Y-%m-%d")
    text = format_learning(summary, game=game, against=against, frames=frames, command=command, machine=machine,
                           date=date)
    (out / "learning.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"game": game, "frames": frames, "against": list(against),
                                                  "seeds": list(seeds), "command": command, "machine": machine,
                                                  "date": date, "variants": summary}, indent=1, default=str))
    plot_learning(summary, against, out / "learning.png", f"{game}: learning curves pooled over seeds")
    return summary, text


def run_learning(game: str, variants: Sequence[str], seeds: Sequence[int], *, frames: int, eval_every_frames: int,
                 eval_deals: int, against: Sequence[str], out: Path, hours: float | None = None,
                 report_only: bool = False, num_env_runners: int = 1, extra: Sequence[str] = (),
                 command: str = "", say=print) -> dict[str, Any]:
    """Train every (variant, seed) run not yet at ``frames`` (seed by seed, so that a partial benchmark has every
    variant on its first seeds), then write the report. ``hours`` bounds this invocation: a run still going then is
    stopped (its latest checkpoint resumes it next time)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for v in variants:
        variant_flags(v, game, frames)  # every name checked before anything runs
    deadline = time.time() + hours * 3600 if hours else None
    started = {(s, v): read_run(run_directory(out, v, s), frames) for s in seeds for v in variants}
    todo = [key for key, run in started.items() if not run["done"]]  # seed by seed
    if not report_only:
        say(f"learning benchmark {game}: {len(variants)} variant(s) x {len(seeds)} seed(s) to {frames:,} frames; "
            f"{len(todo)} run(s) to go, out {out}", flush=True)
        rates: list[float] = []
        for k, (seed, variant) in enumerate(todo):
            if deadline is not None and time.time() >= deadline:
                say(f"--hours reached: {len(todo) - k} run(s) left; the same command continues them", flush=True)
                break
            before = started[seed, variant]["frames"]
            left_frames = sum(frames - started[key]["frames"] for key in todo[k:])
            eta = f", ETA {left_frames / _median(rates) / 60:.0f} min of training" if rates else ""
            say(f"== run {k + 1}/{len(todo)}: {variant} seed {seed}"
                + (f" (resuming at {before:,} frames)" if before else "") + eta, flush=True)
            argv = train_argv(game, variant, seed, frames=frames, eval_every_frames=eval_every_frames,
                              eval_deals=eval_deals, against=against, out=out, num_env_runners=num_env_runners,
                              extra=extra)
            code = _run_child([sys.executable, "-m", "cardrl.cli", *argv], deadline)
            run = read_run(run_directory(out, variant, seed), frames)
            if run["frames_per_s"]:
                rates.append(run["frames_per_s"])
            _write_report(out, game, variants, seeds, frames, against, command)
            if code != 0 and not (deadline is not None and time.time() >= deadline):
                raise RuntimeError(f"run {variant} seed {seed} failed (exit {code}); its log is above, its directory "
                                   f"{run_directory(out, variant, seed)}; the same command resumes it")
    summary, text = _write_report(out, game, variants, seeds, frames, against, command)
    say(text, flush=True)
    say(f"report: {out / 'learning.md'}, {out / 'results.json'}, {out / 'learning.png'}", flush=True)
    return summary


def _run_child(argv: list[str], deadline: float | None) -> int:
    """Run one training process; at ``deadline`` send it SIGINT, then SIGTERM (its checkpoints resume it)."""
    child = subprocess.Popen(argv, start_new_session=True)
    try:
        while True:
            try:
                return child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                if deadline is not None and time.time() >= deadline:
                    os.killpg(child.pid, signal.SIGINT)
                    try:
                        return child.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        os.killpg(child.pid, signal.SIGTERM)
                        return child.wait()
    except BaseException:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait()
        raise


# ---- the command line ------------------------------------------------------------------------------------------------
def add_learning_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=list(game_names()), help="the game to train")
    parser.add_argument("--variants", nargs="+", default=None,
                        help=f"variants to compare (default: dmc and dmc_centred); every one: {', '.join(VARIANTS)} "
                             "(each game takes those that apply to it)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N (default 3)")
    parser.add_argument("--seed-list", type=int, nargs="+", default=None, help="these seeds instead of 1..N")
    parser.add_argument("--frames", type=int, default=2_000_000, help="frames per run (default 2,000,000)")
    parser.add_argument("--eval-every-frames", type=int, default=200_000,
                        help="frames between evaluations (default 200,000)")
    parser.add_argument("--eval-deals", type=int, default=500,
                        help="deals per evaluation, each played once per seat arrangement (default 500)")
    parser.add_argument("--against", nargs="+", default=None,
                        help="baseline agent specs (default: random and the game's rule agents: DouDiZhu's rule "
                             "and rlcard, Big2's rule, GuanDan's rule and rule-control)")
    parser.add_argument("--out", default=None, help="benchmark directory (default: runs/bench_learning_GAME)")
    parser.add_argument("--hours", type=float, default=None,
                        help="stop this invocation after this many hours (the same command continues it)")
    parser.add_argument("--num-env-runners", type=int, default=1, help="env runners per run (default 1)")
    parser.add_argument("--report-only", action="store_true", help="write the report from the runs as they are")
    parser.add_argument("--train-args", default="",
                        help="more cardrl train flags for every run, one quoted string (e.g. \"--eval-unpruned\")")


def default_against(game: str) -> list[str]:
    """Random play and every rule agent the game registers (DouDiZhu: cardrl's and RLCard's)."""
    return ["random", *get_game(game).agent_kinds]


def main_bench_learning(args: argparse.Namespace) -> int:
    game = get_game(args.game).name
    variants = args.variants or ["dmc", "dmc_centred"]
    seeds = args.seed_list or list(range(1, args.seeds + 1))
    if not seeds or min(seeds) < 0:
        raise ValueError("--seeds must be >= 1 (and --seed-list seeds >= 0)")
    for name, value in (("--frames", args.frames), ("--eval-every-frames", args.eval_every_frames),
                        ("--eval-deals", args.eval_deals)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if args.eval_every_frames > args.frames:
        raise ValueError(f"--eval-every-frames {args.eval_every_frames:,} is more than --frames {args.frames:,}: no "
                         f"evaluation but the last")
    if len(set(variants)) != len(variants):
        raise ValueError(f"--variants names one twice: {variants}")
    against = args.against or default_against(game)
    out = Path(args.out or f"runs/bench_learning_{game}")
    # the command that trains these runs (a --report-only invocation names the same runs)
    command = ("cardrl " + " ".join(shlex.quote(a) for a in sys.argv[1:] if a != "--report-only")
               if sys.argv[1:3] == ["bench", "learning"] else f"cardrl bench learning {game}")
    print(machine_description(), flush=True)
    run_learning(game, variants, seeds, frames=args.frames, eval_every_frames=args.eval_every_frames,
                 eval_deals=args.eval_deals, against=against, out=out, hours=args.hours,
                 report_only=args.report_only, num_env_runners=args.num_env_runners,
                 extra=shlex.split(args.train_args), command=command)
    return 0
