"""``cardrl bench soak GAME``: does a long DMC run hold its memory flat? (docs/operations.md)

One ``cardrl train`` run of ``--duration`` (GuanDan's default rules play whole matches) in ``OUT/run``, watched by
:class:`~cardrl.bench.chaos_run.WatchedRun` with no faults (its stall detector still fails a run whose frames stop
rising). Every ``--every`` it samples:

* the resident set size of every process of the run (:func:`~cardrl.bench.run_processes.rss_by_process`: the
  driver, which holds the learner by default, the env runners, learner actors, Ray's GCS server, raylet and agents),
  summed per role;
* the object store's pages in each process's RSS (``RssShmem``; the raylet holds the store and touches its pages
  as objects come and go, the others map the objects they read): RSS less those pages is the process's own memory,
  reported per role beside the RSS (``private <role>``) where the pages reach 1 MB;
* the object store in use (``ray memory --stats-only`` on the run's own Ray);
* DMC's frame buffers (``buffer_mb`` of the newest progress record) and the deals played.

For each series after ``--warmup`` it reports the least-squares slope in MB per hour, the figure projected to 24
hours and the slope as a share of the mean size per hour (:func:`~cardrl.bench.reliability.growth`; the goal: under
1%/h), and the slope per 10,000 deals (growth with the games played). Output: ``soak.md``, ``soak.json``,
``soak.png`` (RSS per role over time) in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from cardrl.args import non_negative_int
from cardrl.algorithms.training.settings import parse_duration
from cardrl.bench.chaos_run import WatchedRun
from cardrl.bench.checks import check_positive_durations, split_train_flags
from cardrl.bench.common import machine_description
from cardrl.machine_load import load_1m
from cardrl.bench.reliability import growth, least_squares
from cardrl.bench.run_processes import gcs_address, object_store, rss_by_process
from cardrl.games.registry import game_names, get_game

__all__ = ["Sampler", "in_training", "series_of", "summarise_soak", "format_soak", "plot_soak", "run_soak",
           "add_soak_arguments", "main_bench_soak"]

GOAL_PCT_PER_H = 1.0


def in_training(roles: set[str], last_record: dict) -> bool:
    """Whether a sample of these process roles is one of a run in training: its Ray is up (GCS server and raylet)
    and its final record not yet written (a run shutting down frees its processes one by one)."""
    return {"gcs_server", "raylet", "driver"} <= roles and not last_record.get("final")


class Sampler:
    """The soak's ``on_poll`` hook: a sample of the run every ``every_s`` seconds."""

    def __init__(self, every_s: float, say=print):
        self.every_s, self.say = every_s, say
        self.samples: list[dict[str, Any]] = []
        self._address: tuple[int, str | None] = (-1, None)

    def __call__(self, run: WatchedRun, now: float) -> None:
        if self.samples and now - self.samples[-1]["t"] < self.every_s or not run.watch.records:
            return
        processes = rss_by_process(run.driver.pid)
        if not in_training({row["role"] for row in processes}, run.watch.records[-1]):
            return
        if self._address[0] != run.driver.pid or self._address[1] is None:
            self._address = (run.driver.pid, gcs_address(run.driver.pid))
        store = object_store(self._address[1], run.driver.env) if self._address[1] else None
        if store is None:  # no answer: the run may have ended while Ray was asked (a sample of its shutdown)
            run.watch.poll(now)
            if not in_training({row["role"] for row in rss_by_process(run.driver.pid)}, run.watch.records[-1]):
                return
        last = run.watch.records[-1]
        by_role: dict[str, float] = {}
        shmem_by_role: dict[str, float] = {}
        for row in processes:
            by_role[row["role"]] = by_role.get(row["role"], 0.0) + row["rss_mb"]
            if row.get("shmem_mb") is not None:
                shmem_by_role[row["role"]] = shmem_by_role.get(row["role"], 0.0) + row["shmem_mb"]
        sample = {"t": round(now, 1), "frames": last.get("frames_trained"), "deals": last.get("deals"),
                  "buffer_mb": last.get("buffer_mb"), "object_store_mb": (store or {}).get("mb"),
                  "objects": (store or {}).get("objects"), "rss_by_role": by_role, "shmem_by_role": shmem_by_role,
                  "rss_total_mb": sum(by_role.values()), "processes": processes}
        self.samples.append(sample)
        self.say(f"[soak {now:6.0f}s] sample {len(self.samples)}: RSS total {sample['rss_total_mb']:,.0f} MB ("
                 + ", ".join(f"{role} {mb:,.0f}" for role, mb in sorted(by_role.items())) + ") | object store "
                 + (f"{store['mb']} MB" if store else "?") + f" | buffers {sample['buffer_mb'] or 0:.1f} MB",
                 flush=True)


SHMEM_SHOWN_MB = 1.0  # a role's private memory is reported beside its RSS once its object-store pages reach this


def series_of(samples: Sequence[dict]) -> dict[str, list[tuple[float, float, float | None]]]:
    """Each measured quantity's ``(t, MB, deals)`` over the samples: ``rss <role>`` per process role, ``private
    <role>`` (RSS less the object-store pages, for the roles whose pages reached ``SHMEM_SHOWN_MB`` in some sample),
    ``rss total``, ``object store``, ``buffers``; a sample without the quantity (a role absent) is left out of it."""
    shown = {role for s in samples for role, mb in (s.get("shmem_by_role") or {}).items() if mb >= SHMEM_SHOWN_MB}
    series: dict[str, list] = {}
    for s in samples:
        values = {f"rss {role}": mb for role, mb in s["rss_by_role"].items()}
        shmem = s.get("shmem_by_role") or {}
        for role in sorted(shown & set(shmem) & set(s["rss_by_role"])):
            values[f"private {role}"] = s["rss_by_role"][role] - shmem[role]
        values.update({"rss total": s["rss_total_mb"], "object store": s["object_store_mb"],
                       "buffers": s["buffer_mb"]})
        for name, mb in values.items():
            if mb is not None:
                series.setdefault(name, []).append((s["t"], float(mb), s.get("deals")))
    return series


def summarise_soak(samples: Sequence[dict], warmup_s: float) -> dict[str, dict]:
    """:func:`~cardrl.bench.reliability.growth` of every series over the samples after ``warmup_s``, with the slope
    per 10,000 deals; a series with fewer than 2 such samples is reported without a slope."""
    out = {}
    for name, points in series_of(samples).items():
        kept = [p for p in points if p[0] >= warmup_s]
        try:
            row = growth([p[0] for p in kept], [p[1] for p in kept])
        except ValueError:
            out[name] = {"samples": len(kept)}
            continue
        deals = [p[2] for p in kept]
        if all(d is not None for d in deals) and len(set(deals)) >= 2:
            row["slope_mb_per_10k_deals"] = least_squares(deals, [p[1] for p in kept])[0] * 10_000
        out[name] = row
    return out


def _f(x: Any, fmt: str) -> str:
    return "" if x is None else fmt.format(x)


def format_soak(report: dict) -> str:
    """soak.md: one row per series, the goal's verdict per row."""
    lines = [f"# Soak: {report['game']}", "", f"command: `{report['command']}`  ",
             f"machine: {report['machine']} (load average {report['load_before']:.2f} before the run; the machine "
             f"was shared)  ", f"date: {report['date']}; {len(report['samples'])} samples every {report['every_s']:g}s,"
             f" slopes over those after {report['warmup_s']:g}s; frames {report['frames'] or 0:,}, deals "
             f"{report['deals'] or 0:,}", "",
             "`private <role>`: the role's RSS less the object store's shared-memory pages in it (`RssShmem`), "
             f"its own memory; shown where those pages reach {SHMEM_SHOWN_MB:g} MB.", "",
             "| series | samples | first MB | last MB | slope MB/h | % of size per h | projected at 24 h MB | "
             f"MB per 10k deals | under {GOAL_PCT_PER_H:g}%/h |", "|---|---|---|---|---|---|---|---|---|"]
    for name, row in report["summary"].items():
        pct = row.get("pct_per_h")
        verdict = "" if pct is None or name in ("object store", "buffers") else (
            "yes" if pct < GOAL_PCT_PER_H else "no")
        lines.append(f"| {name} | {row['samples']} | {_f(row.get('first_mb'), '{:,.1f}')} | "
                     f"{_f(row.get('last_mb'), '{:,.1f}')} | {_f(row.get('slope_mb_per_h'), '{:+,.2f}')} | "
                     f"{_f(pct, '{:+.2f}')} | {_f(row.get('projected_24h_mb'), '{:,.0f}')} | "
                     f"{_f(row.get('slope_mb_per_10k_deals'), '{:+,.2f}')} | {verdict} |")
    if report["failures"]:
        lines += ["", "FAILED: " + "; ".join(report["failures"])]
    return "\n".join(lines + [""])


def plot_soak(samples: Sequence[dict], path: Path, title: str) -> None:
    """RSS per role (and in total) over time, MB against minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, points in sorted(series_of(samples).items()):
        if name.startswith("rss "):
            ax.plot([p[0] / 60 for p in points], [p[1] for p in points], marker=".", label=name[4:])
    ax.set_xlabel("minutes")
    ax.set_ylabel("RSS (MB)")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_soak(game: str, out: Path, *, duration_s: float, every_s: float, warmup_s: float, seed: int,
             num_env_runners: int, stall_bound_s: float, extra: Sequence[str] = (), command: str = "",
             say=print) -> dict[str, Any]:
    """Train ``OUT/run`` for ``duration_s`` sampling every ``every_s``; write soak.md, soak.json, soak.png."""
    out = Path(out)
    run_out = out / "run"
    shutil.rmtree(run_out, ignore_errors=True)
    argv = ["train", game, "--seed", str(seed), "--stop-time", f"{duration_s:g}s", "--eval-every", "0",
            "--eval-deals", "10", "--checkpoint-every", "10m", "--num-env-runners", str(num_env_runners),
            "--out", str(run_out), *extra]
    sampler = Sampler(every_s, say)
    run = WatchedRun(argv, run_out, stall_bound_s=stall_bound_s, duration_s=duration_s, label="soak", say=say,
                     on_poll=sampler)
    load = load_1m() or 0.0
    try:
        run.run(progress_every_s=max(every_s, 15.0))
    finally:
        run.driver.kill_group()
        shutil.rmtree(run.ray_tmpdir, ignore_errors=True)
    last = run.watch.records[-1] if run.watch.records else {}
    report = {"game": game, "command": command, "machine": machine_description(), "load_before": load,
              "date": time.strftime("%Y-%m-%d %H:%M"), "duration_s": duration_s, "every_s": every_s,
              "warmup_s": warmup_s, "frames": last.get("frames_trained"), "deals": last.get("deals"),
              "summary": summarise_soak(sampler.samples, warmup_s), "failures": list(run.failures),
              "samples": sampler.samples}
    (out / "soak.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "soak.md").write_text(format_soak(report))
    if sampler.samples:
        plot_soak(sampler.samples, out / "soak.png", f"{game}: RSS of the run's processes")
    return report


def add_soak_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=list(game_names()), help="the game to train (GuanDan: whole matches)")
    parser.add_argument("--duration", type=parse_duration, default=parse_duration("2h"),
                        help="training time (default 2h)")
    parser.add_argument("--every", type=parse_duration, default=parse_duration("1m"),
                        help="time between samples (default 1m)")
    parser.add_argument("--warmup", type=parse_duration, default=parse_duration("5m"),
                        help="samples before this are left out of the slopes (default 5m)")
    parser.add_argument("--stall-bound", type=parse_duration, default=parse_duration("5m"),
                        help="fail when frames do not rise for this long (default 5m)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--num-env-runners", type=non_negative_int, default=1, help="env runners (default 1)")
    parser.add_argument("--train-args", default="", help="more cardrl train flags, one quoted string")
    parser.add_argument("--out", default=None, help="benchmark directory (default: runs/bench_soak_GAME)")


def check_soak(args: argparse.Namespace) -> None:
    """What ``cardrl bench soak`` checks before it trains (ValueError naming the option)."""
    check_positive_durations(duration=args.duration, stall_bound=args.stall_bound)
    if not args.every > 0 or args.every > args.duration:
        raise ValueError(f"--every must be > 0 and at most --duration ({args.duration:g}s), got {args.every:g}s")
    if args.warmup >= args.duration:
        raise ValueError(f"--warmup {args.warmup:g}s leaves no sample of the {args.duration:g}s run for the slopes")
    split_train_flags(args.train_args, args.game)


def main_bench_soak(args: argparse.Namespace) -> int:
    game = get_game(args.game).name
    check_soak(args)
    out = Path(args.out or f"runs/bench_soak_{game}")
    out.mkdir(parents=True, exist_ok=True)
    command = "cardrl " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:3] == ["bench", "soak"] \
        else f"cardrl bench soak {game}"
    print(machine_description(), flush=True)
    report = run_soak(game, out, duration_s=args.duration, every_s=args.every, warmup_s=args.warmup, seed=args.seed,
                      num_env_runners=args.num_env_runners, stall_bound_s=args.stall_bound,
                      extra=split_train_flags(args.train_args), command=command)
    print(format_soak(report), flush=True)
    print(f"report: {out / 'soak.md'}, {out / 'soak.json'}, {out / 'soak.png'}", flush=True)
    return 1 if report["failures"] else 0
