"""``cardrl bench chaos GAME``: does DMC training keep its promise under repeated faults? (docs/operations.md)

Two ``cardrl train`` runs of the same game, seed and options, each in its own run directory under ``--out``:

1. *undisturbed* (``OUT/undisturbed``, or an existing run directory given with ``--undisturbed``): ``--duration``
   of training (``--stop-time``);
2. *chaos* (``OUT/chaos``): the same frames (``--stop-frames``: the undisturbed run's), while on the schedule
   (:func:`~cardrl.bench.reliability.fault_plan`, seconds after its launch) env runners are killed
   (``--kill-runner-every``), the driver is killed and resumed with ``--resume`` (``--kill-driver-at``) and a
   checkpoint write is interrupted (``--interrupt-checkpoint-at``) (:class:`~cardrl.bench.chaos_run.WatchedRun`).

With ``--nodes N`` each run has a Ray cluster of its own on this machine (:class:`~cardrl.bench.local_cluster.
LocalCluster`: a head of ``--head-cpus`` CPUs and N-1 worker nodes of ``--node-cpus``, on loopback), which the driver
joins (``RAY_ADDRESS``; its learner on the head), and ``--kill-node-at`` kills a whole worker node that runs an env
runner (its raylet and every process on it), a new worker node joining ``--add-node-after`` later.

It records frames over time, the env runners' restarts and lost sample requests (DMC's ``env_runner_restarts``,
``env_runner_samples_lost``), the driver's restarts, the seconds until frames rose again after each fault
(:func:`~cardrl.bench.reliability.time_to_recover`), the longest stall, and the final evaluation of both runs (the
run loop's: the same ``--seed``, so the same deals, against random and the game's rule agent). Output: ``chaos.md``
(tables), ``chaos.json`` in ``--out``. Exit code 1 when frames stopped rising for longer than ``--stall-bound`` or a
resume failed (did not go on from the newest complete checkpoint, or the driver exited with an error).
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

from cardrl.args import non_negative_int, positive_int
from cardrl import run_dir as files
from cardrl.algorithms.training.settings import parse_duration
from cardrl.bench.chaos_nodes import (add_cluster_arguments, cell, check_cluster, cluster_lines, node_lines,
                                      node_outcome)
from cardrl.bench.chaos_run import WatchedRun
from cardrl.bench.checks import check_positive_durations, check_specs, split_train_flags
from cardrl.bench.common import machine_description
from cardrl.bench.local_cluster import LocalCluster
from cardrl.machine_load import load_1m
from cardrl.bench.reliability import fault_plan, longest_stall, time_to_recover
from cardrl.games.registry import game_names, get_game

__all__ = ["train_argv", "fault_outcomes", "compare_strength", "format_chaos", "run_chaos", "add_chaos_arguments",
           "main_bench_chaos"]


def train_argv(game: str, out: Path, *, seed: int, stop: Sequence[str], eval_deals: int, against: Sequence[str],
               checkpoint_every_s: float, num_env_runners: int, extra: Sequence[str] = ()) -> list[str]:
    """The ``cardrl train`` arguments of one of the two runs (``stop``: ``--stop-time``/``--stop-frames``)."""
    return ["train", game, "--seed", str(seed), *stop, "--eval-every", "0", "--eval-deals", str(eval_deals),
            "--eval-against", *against, "--checkpoint-every", f"{checkpoint_every_s:g}s", "--num-env-runners",
            str(num_env_runners), "--out", str(out), *extra]


def fault_outcomes(faults: Sequence[dict], observations: Sequence) -> list[dict]:
    """Each fault with the seconds until frames rose above those the run went on from (``recover_s``), for a runner
    or node kill the seconds until the restart showed in the counters (``runner_back_s``), for a driver kill the
    frames trained since its checkpoint and lost (``frames_lost``). A node kill also gets what the records show until
    the next fault: trained frames lost (the frames at the kill less the fewest recorded after it: 0 unless the
    learner's state went back), sample requests lost, the fewest healthy env runners, and the seconds from the new
    node's joining to the runner's restart (``runner_back_after_node_s``)."""
    outcomes = []
    for n, fault in enumerate(faults):
        base = fault.get("base_frames")
        row = {**fault, "recover_s": None if base is None else time_to_recover(observations, fault["t"], base)}
        if fault["kind"] in ("runner", "node"):
            back = next((o.t for o in observations if o.t > fault["t"] and o.restarts > fault["restarts_at"]), None)
            row["runner_back_s"] = None if back is None else back - fault["t"]
        elif base is not None:
            row["frames_lost"] = fault["frames_at"] - base
        if fault["kind"] == "node":
            row.update(node_outcome(fault, observations, faults[n + 1]["t"] if n + 1 < len(faults) else None,
                                     row["runner_back_s"]))
        outcomes.append(row)
    return outcomes


def compare_strength(chaos: dict | None, undisturbed: dict | None) -> dict[str, dict]:
    """Per baseline: both runs' final score with its 95% interval, the difference (chaos - undisturbed) and whether
    the chaos run's score lies inside the undisturbed run's interval."""
    out = {}
    for spec, base in ((undisturbed or {}).get("eval") or {}).items():
        ours = ((chaos or {}).get("eval") or {}).get(spec)
        row = {"undisturbed": [base["adp"], base["adp_low"], base["adp_high"]]}
        if ours is not None:
            row.update(chaos=[ours["adp"], ours["adp_low"], ours["adp_high"]], difference=ours["adp"] - base["adp"],
                       inside=base["adp_low"] <= ours["adp"] <= base["adp_high"])
        out[spec] = row
    return out


def _interval(v: list | None) -> str:
    return "" if not v else f"{v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]"


def format_chaos(report: dict) -> str:
    """chaos.md: the faults with their recovery, the two runs side by side, the verdict."""
    c, u = report["chaos"], report["undisturbed"]
    lines = [f"# Chaos run: {report['game']}", "", f"command: `{report['command']}`  ", f"machine: {report['machine']}"
             f" (load average {report['load_before']:.2f} before the run; the machine was shared)  ",
             *cluster_lines(report), f"date: {report['date']}", "",
             "| # | fault | at (s) | frames at fault | went on from (frames) | "
             "frames lost | frames rose again after (s) | runner back after (s) | left alive by the dead driver |",
             "|---|---|---|---|---|---|---|---|---|"]
    for n, f in enumerate(c["faults"], 1):
        kind = f["kind"] + (" (torn write)" if f.get("torn") else "")
        lines.append(f"| {n} | {kind} | {f['t']:.0f} | {f['frames_at']:,} | {cell(f.get('base_frames'))} | "
                     f"{cell(f.get('frames_lost'))} | {cell(f['recover_s'], '{:.1f}')} | "
                     f"{cell(f.get('runner_back_s'), '{:.1f}')} | {', '.join(f.get('left_behind') or [])} |")
    for t, kind in c["not_applied"]:
        lines.append(f"| - | {kind} (planned at {t:.0f}s) | not applied: the run ended first | | | | | | |")
    lines += ["", "| | undisturbed | chaos |", "|---|---|---|",
              f"| frames trained | {cell(u['frames'])} | {cell(c['frames'])} |",
              f"| wall time (s) | {cell(u['wall_s'])} | {cell(c['wall_s'])} |",
              f"| training time in the run's clock (s) | {cell(u['time_s'])} | {cell(c['time_s'])} |",
              f"| env-runner restarts (DMC's counter) | {cell(u['restarts'])} | {cell(c['restarts'])} |",
              f"| sample requests lost (DMC's counter) | {cell(u['samples_lost'])} | {cell(c['samples_lost'])} |",
              f"| driver launches | {cell(u['driver_launches'])} | {cell(c['driver_launches'])} |",
              f"| longest stall of frames (s) | {cell(u['longest_stall_s'], '{:.1f}')} | "
              f"{cell(c['longest_stall_s'], '{:.1f}')} |",
              f"| median load average (1 min) in the run's records | {cell(u.get('median_load_1m'), '{:.2f}')} | "
              f"{cell(c.get('median_load_1m'), '{:.2f}')} |"]
    for spec, row in report["strength"].items():
        lines.append(f"| final {report['score_name']} vs {spec} [95%] | {_interval(row['undisturbed'])} | "
                     f"{_interval(row.get('chaos'))}"
                     + (f" (difference {row['difference']:+.3f}; {'inside' if row['inside'] else 'outside'} the "
                        f"undisturbed interval)" if 'chaos' in row else "") + " |")
    lines += node_lines(c["faults"])
    verdict = "passed" if report["passed"] else "FAILED: " + "; ".join(report["failures"])
    return "\n".join(lines + ["", f"stall bound {report['stall_bound_s']:g}s; verdict: {verdict}", ""])


def _run_summary(run: WatchedRun | None, out: Path | None, wall_s: float | None) -> dict[str, Any]:
    final = run.final_record() if run is not None else (_final_of(out) if out is not None else None)
    summary = {"dir": None if out is None else str(out), "frames": (final or {}).get("frames_trained"),
               "time_s": (final or {}).get("time_s"),
               "wall_s": wall_s, "restarts": (final or {}).get("env_runner_restarts"),
               "samples_lost": (final or {}).get("env_runner_samples_lost"), "eval": (final or {}).get("eval"),
               "driver_launches": run.driver_launches if run else None, "longest_stall_s": None,
               "median_load_1m": _median_load(out)}
    if run is not None and run.cluster is not None:
        summary["cluster_dir"] = str(run.cluster.stem.parent)
    if run is not None and wall_s is not None:
        summary["longest_stall_s"] = longest_stall(run.watch.observations, wall_s)
        summary["series"] = [[round(o.t, 1), o.frames] for o in run.watch.observations]
    return summary


def _median_load(out: Path | None) -> float | None:
    """The median of the run's records' 1-minute load averages (``load_1m``): how loaded the machine was."""
    if out is None or not (Path(out) / files.PROGRESS).is_file():
        return None
    loads = sorted(r["load_1m"] for r in files.read_progress(out, torn_last_line=True) if r.get("load_1m") is not None)
    return loads[len(loads) // 2] if loads else None


def _final_of(out: Path) -> dict | None:
    if not (Path(out) / files.PROGRESS).is_file():
        return None
    return next((r for r in reversed(files.read_progress(out, torn_last_line=True)) if r.get("final")), None)


def _check_undisturbed(out: Path, game: str, seed: int, eval_deals: int, against: Sequence[str]) -> None:
    args = files.run_options(files.read_config(out))
    want = {"game": game, "seed": seed, "eval_deals": eval_deals, "eval_against": list(against)}
    differ = {k: (args.get(k), v) for k, v in want.items() if args.get(k) != v}
    if differ:
        raise ValueError(f"--undisturbed {out} was not trained like this chaos run (same game, seed and evaluation "
                         f"deals needed): " + ", ".join(f"{k}: it has {a!r}, here {b!r}" for k, (a, b) in
                                                        differ.items()))


def _watched(argv: list[str], out: Path, plan, opts: dict, target: int | None, label: str,
             say=print) -> tuple[WatchedRun, float]:
    """One watched run; with ``opts["cluster"]`` (``{"nodes", "head_cpus", "node_cpus"}``) on a loopback cluster of
    its own, started before it and stopped after it."""
    shape, cluster = opts.get("cluster"), None
    if shape:
        began = time.time()
        cluster = LocalCluster.start(shape["nodes"] - 1, shape["head_cpus"], shape["node_cpus"])
        say(f"{label}: a cluster of {shape['nodes']} nodes up in {time.time() - began:.0f}s (GCS "
            f"{cluster.gcs_address})", flush=True)
    run = WatchedRun(argv, out, plan, stall_bound_s=opts["stall_bound_s"], target_frames=target, label=label,
                     duration_s=opts.get("duration_s"), cluster=cluster, add_node_after_s=opts.get("add_node_after_s"))
    began = time.time()
    try:
        run.run()
    finally:
        wall = time.time() - began
        run.driver.kill_group()
        shutil.rmtree(run.ray_tmpdir, ignore_errors=True)
        if cluster is not None:
            run.wait_for_node_adds()
            cluster.stop()
    return run, wall


def run_chaos(game: str, out: Path, *, duration_s: float, plan: Sequence[tuple[float, str]], seed: int,
              eval_deals: int, against: Sequence[str], checkpoint_every_s: float, num_env_runners: int,
              stall_bound_s: float, undisturbed: Path | None = None, frames: int | None = None,
              extra: Sequence[str] = (), command: str = "", cluster: dict | None = None,
              add_node_after_s: float | None = None, say=print) -> dict[str, Any]:
    """The undisturbed run (unless given or already done in ``OUT/undisturbed``), then the chaos run to its frames;
    with ``frames``, the chaos run alone to that many (no comparison of strength). ``cluster``
    (``{"nodes", "head_cpus", "node_cpus"}``): each run on a loopback cluster of its own of that shape. Writes chaos.md
    and chaos.json in ``out`` and returns the report (``passed``, ``failures``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    opts = {"stall_bound_s": stall_bound_s, "duration_s": duration_s, "cluster": cluster,
            "add_node_after_s": add_node_after_s}
    common = dict(seed=seed, eval_deals=eval_deals, against=against, checkpoint_every_s=checkpoint_every_s,
                  num_env_runners=num_env_runners, extra=extra)
    base_dir = Path(undisturbed) if undisturbed else out / "undisturbed"
    base_run, base_wall, failures = None, None, []
    if frames is not None:
        say(f"no undisturbed run: the chaos run trains {frames:,} frames (--frames)")
        base_dir = None
    elif base_dir.is_dir() and _final_of(base_dir) is not None:
        _check_undisturbed(base_dir, game, seed, eval_deals, against)
        say(f"undisturbed run: {base_dir} (already trained: {_final_of(base_dir)['frames_trained']:,} frames)")
    elif undisturbed:
        raise ValueError(f"--undisturbed {undisturbed} has no final record: not a finished cardrl train run")
    else:
        say(f"== undisturbed run: {duration_s:g}s of training into {base_dir}", flush=True)
        base_run, base_wall = _watched(train_argv(game, base_dir, stop=["--stop-time", f"{duration_s:g}s"], **common),
                                       base_dir, (), opts, None, "undisturbed", say)
        failures += [f"undisturbed run: {f}" for f in base_run.failures]
    frames = frames or (_final_of(base_dir) or {}).get("frames_trained")
    chaos_dir = out / "chaos"
    chaos_run, chaos_wall = None, None
    if frames:
        shutil.rmtree(chaos_dir, ignore_errors=True)  # its schedule counts from a fresh start
        say(f"== chaos run to {frames:,} frames into {chaos_dir}; faults: "
            + ", ".join(f"{kind} at {t:.0f}s" for t, kind in plan), flush=True)
        chaos_run, chaos_wall = _watched(train_argv(game, chaos_dir, stop=["--stop-frames", str(frames)], **common),
                                         chaos_dir, plan, opts, frames, "chaos", say)
        failures += chaos_run.failures
    else:
        failures.append("the undisturbed run ended without a final record: no chaos run")
    chaos = _run_summary(chaos_run, chaos_dir, chaos_wall)
    chaos["faults"] = fault_outcomes(chaos_run.faults, chaos_run.watch.observations) if chaos_run else []
    chaos["not_applied"] = list(plan[len(chaos["faults"]):]) if chaos_run else list(plan)
    failures += [f"fault {n} ({f['kind']} at {f['t']:.0f}s): frames never rose again"
                 for n, f in enumerate(chaos["faults"], 1) if f["recover_s"] is None]
    failures += [f"fault {n} (node at {f['t']:.0f}s): no worker node could be added back: {f['node_add_error']}"
                 for n, f in enumerate(chaos["faults"], 1) if f.get("node_add_error")]
    report = {"game": game, "seed": seed, "command": command, "machine": machine_description(),
              "load_before": load_1m() or 0.0, "date": time.strftime("%Y-%m-%d %H:%M"),
              "duration_s": duration_s, "plan": [list(p) for p in plan], "stall_bound_s": stall_bound_s,
              "cluster": cluster, "add_node_after_s": add_node_after_s,
              "score_name": get_game(game).protocol.score_name,
              "undisturbed": _run_summary(base_run, base_dir, base_wall), "chaos": chaos,
              "strength": compare_strength(_final_of(chaos_dir), base_dir and _final_of(base_dir)),
              "failures": failures, "passed": not failures}
    (out / "chaos.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "chaos.md").write_text(format_chaos(report))
    return report


# ---- the command line ------------------------------------------------------------------------------------------------
def add_chaos_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=list(game_names()), help="the game to train")
    parser.add_argument("--duration", type=parse_duration, default=parse_duration("10m"),
                        help="training time of the undisturbed run; the chaos run trains its frames (default 10m)")
    parser.add_argument("--kill-runner-every", type=parse_duration, default=None,
                        help="SIGKILL an env runner this often, e.g. 5m (default: never)")
    parser.add_argument("--kill-driver-at", type=parse_duration, nargs="+", default=[],
                        help="SIGKILL the driver at these times after the chaos run's launch and resume it, e.g. "
                             "20m 40m")
    parser.add_argument("--interrupt-checkpoint-at", type=parse_duration, default=None,
                        help="from this time on, SIGKILL the driver while it writes its next checkpoint and resume")
    add_cluster_arguments(parser)
    parser.add_argument("--stall-bound", type=parse_duration, default=parse_duration("5m"),
                        help="fail when frames do not rise for this long, start-up included (default 5m)")
    parser.add_argument("--checkpoint-every", type=parse_duration, default=parse_duration("1m"),
                        help="both runs' checkpoint interval (default 1m)")
    parser.add_argument("--undisturbed", default=None,
                        help="an existing run directory trained with the same game, seed and evaluation instead "
                             "of training one")
    parser.add_argument("--frames", type=positive_int, default=None,
                        help="no undisturbed run: the chaos run trains this many frames (no strength comparison)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="both runs' seed: their deals and evaluation deals (default 0)")
    parser.add_argument("--eval-deals", type=positive_int, default=200, help="final evaluation deals (default 200)")
    parser.add_argument("--against", nargs="+", default=None,
                        help="baselines of the final evaluation (default: random and the game's rule agent)")
    parser.add_argument("--num-env-runners", type=non_negative_int, default=1, help="env runners (default 1)")
    parser.add_argument("--train-args", default="", help="more cardrl train flags for both runs, one quoted string")
    parser.add_argument("--out", default=None, help="benchmark directory (default: runs/bench_chaos_GAME)")


def check_chaos(args: argparse.Namespace) -> list[tuple[float, str]]:
    """What ``cardrl bench chaos`` checks before it trains (ValueError naming the option); returns the fault plan."""
    check_positive_durations(duration=args.duration, kill_runner_every=args.kill_runner_every,
                             stall_bound=args.stall_bound, checkpoint_every=args.checkpoint_every)
    if args.kill_runner_every is not None and args.num_env_runners < 1:
        raise ValueError("--kill-runner-every needs remote env runners: --num-env-runners must be >= 1")
    check_cluster(args)
    if args.frames is not None and args.undisturbed:
        raise ValueError("--frames trains the chaos run alone: not with --undisturbed")
    if args.undisturbed is not None and not Path(args.undisturbed).is_dir():
        raise ValueError(f"--undisturbed {args.undisturbed}: no such run directory (a finished cardrl train run)")
    plan = fault_plan(args.duration, args.kill_runner_every, args.kill_driver_at, args.interrupt_checkpoint_at,
                      args.kill_node_at)
    check_specs(args.game, args.against, "--against")
    split_train_flags(args.train_args, args.game)
    return plan


def main_bench_chaos(args: argparse.Namespace) -> int:
    game = get_game(args.game).name
    plan = check_chaos(args)
    against = args.against or ["random", next(iter(get_game(game).agent_kinds))]
    out = Path(args.out or f"runs/bench_chaos_{game}")
    command = "cardrl " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:3] == ["bench", "chaos"] \
        else f"cardrl bench chaos {game}"
    print(machine_description(), flush=True)
    report = run_chaos(game, out, duration_s=args.duration, plan=plan, seed=args.seed, eval_deals=args.eval_deals,
                       against=against, checkpoint_every_s=args.checkpoint_every,
                       num_env_runners=args.num_env_runners, stall_bound_s=args.stall_bound,
                       undisturbed=Path(args.undisturbed) if args.undisturbed else None, frames=args.frames,
                       extra=split_train_flags(args.train_args), command=command,
                       cluster={"nodes": args.nodes, "head_cpus": args.head_cpus, "node_cpus": args.node_cpus}
                       if args.nodes else None, add_node_after_s=args.add_node_after)
    print(format_chaos(report), flush=True)
    print(f"report: {out / 'chaos.md'}, {out / 'chaos.json'}", flush=True)
    return 0 if report["passed"] else 1
