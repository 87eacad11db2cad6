"""A Tune sweep on a 3-node Ray cluster on this machine whose trial's node dies (docs/tune.md, "A trial's node dies").

A loopback cluster (cardrl.bench.local_cluster.LocalCluster: a head of 0 CPUs and two worker nodes of 1 CPU each)
runs ``cardrl tune doudizhu`` over two learning rates, one trial per worker node (a trial samples in its own process:
one CPU, ``--num-env-runners 0``), with FIFO scheduling, the Tune driver joining the head through ``RAY_ADDRESS``.
Once a trial has reported its second evaluation and Tune holds that evaluation's checkpoint, ``--kill-after`` seconds
later (mid-way to the next evaluation) the worker node running it is killed whole (SIGKILL to its raylet and every
process on it, the trial's actor among them); ``--add-node-after`` later a new worker node joins (tried twice: Ray
gives a raylet 30 s to register, which a loaded machine can miss; a failure is recorded, and the trial then waits for
the other trial's CPU). Tune's FailureConfig (``--max-failures``, cardrl's default 2) restarts the trial from its last
checkpoint where its CPU is free. Recorded: the evaluations and frames the trial had reported before the kill and
those of the checkpoint it restarted from (the iterations lost), the seconds from its checkpoint to the kill (the
training lost), the seconds until the restart and until its next evaluation, the sweep's exit status, the results
table with its restarts column, and whether each trial's checkpoint is recorded as produced here
(cardrl.checkpoint_trust).

    python experiments/tune_node_kill.py --out runs/tune_node_kill \
        --json-out docs/measurements/reliability/tune_node_kill.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

EVAL = re.compile(r"^\[(\w+)\] lr=\S+ \| eval (\d+) \| frames ([\d,]+) \|")
RESTART = re.compile(r"^\[(\w+)\] failed \(failure (\d+), --max-failures (-?\d+)\): restarting from "
                     r"(?:its checkpoint of eval (\d+) \(frames ([\d,]+), |the start)")


def evaluations(lines: list[str]) -> list[tuple[str, int, int]]:
    """(trial, evaluation, frames) of each printed evaluation line."""
    return [(m[1], int(m[2]), int(m[3].replace(",", ""))) for m in map(EVAL.match, lines) if m]


def restarts(lines: list[str]) -> list[dict]:
    """Each restart line: the trial, its failure count and the evaluation and frames it restarted from (None: from
    the start), with the line's index."""
    found = []
    for n, line in enumerate(lines):
        m = RESTART.match(line)
        if m:
            found.append({"trial": m[1], "failure": int(m[2]), "line": n,
                          "from_eval": None if m[4] is None else int(m[4]),
                          "from_frames": None if m[5] is None else int(m[5].replace(",", ""))})
    return found


def lost(before: list[tuple[str, int, int]], restart: dict) -> dict:
    """What a restart lost: the trial's last evaluation reported before the kill against the checkpoint it restarted
    from (evaluations are Tune's training iterations here: one report each)."""
    mine = [(e, f) for t, e, f in before if t == restart["trial"]]
    last_eval, last_frames = mine[-1] if mine else (0, 0)
    from_eval, from_frames = restart["from_eval"] or 0, restart["from_frames"] or 0
    return {"last_eval_before_kill": last_eval, "last_frames_before_kill": last_frames,
            "restored_eval": from_eval, "restored_frames": from_frames,
            "iterations_lost": last_eval - from_eval, "frames_lost_at_least": last_frames - from_frames}


def _wait(what: str, ready, proc: subprocess.Popen, timeout_s: float) -> None:
    deadline = time.time() + timeout_s
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"the sweep ended (exit {proc.returncode}) before {what}")
        if time.time() > deadline:
            raise TimeoutError(f"no {what} after {timeout_s:.0f}s")
        time.sleep(0.2)


def _checkpoint_held(trial_dir: Path, evaluation: int) -> bool:
    """Tune holds the checkpoint of ``evaluation`` (num_to_keep=1: it is there and the one before is gone)."""
    return (trial_dir / f"checkpoint_{evaluation - 1:06d}").is_dir() and not (
        trial_dir / f"checkpoint_{evaluation - 2:06d}").exists()


def _command(space: Path, sweep: Path, stop_frames: int, eval_every: str) -> list[str]:
    return ["cardrl", "tune", "doudizhu", "--space", str(space), "--stop-frames", str(stop_frames),
            "--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--rollout-fragment-length", "100",
            "--frames-per-update", "400", "--eval-every", eval_every, "--eval-deals", "20", "--metric-against",
            "random", "--scheduler", "fifo", "--out", str(sweep)]


def run(out: Path, stop_frames: int, eval_every: str, add_node_after_s: float, kill_after_s: float,
        timeout_s: float) -> dict:
    """The sweep on its cluster, the kill, the node added back; the record (module docstring)."""
    from cardrl.bench.common import machine_description
    from cardrl.bench.local_cluster import LocalCluster
    from cardrl.machine_load import load_1m

    out.mkdir(parents=True, exist_ok=True)
    space = out / "space.json"
    space.write_text(json.dumps({"sweep": {"lr": {"grid": [1e-4, 1e-3]}}}))
    sweep, log = out / "sweep", out / "tune.log"
    command = _command(space, sweep, stop_frames, eval_every)
    report = {"command": " ".join(command), "machine": machine_description(), "load_before": load_1m(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "cluster": {"nodes": 3, "head_cpus": 0, "node_cpus": 1}, "add_node_after_s": add_node_after_s,
              "kill_after_s": kill_after_s}
    # the trials' record of the checkpoints they produced (cardrl.checkpoint_trust), read back below: every node's
    # processes inherit it from the `ray start` that this environment runs
    os.environ["CARDRL_STATE_DIR"] = str(out / "state")
    began = time.time()
    cluster = LocalCluster.start(2, head_cpus=0, worker_cpus=1)
    report["cluster_up_s"] = round(time.time() - began, 1)
    print(f"cluster of 3 nodes up in {report['cluster_up_s']}s", flush=True)
    proc = None
    try:
        with log.open("w") as sink:
            proc = subprocess.Popen([sys.executable, "-m", "cardrl.cli", *command[1:]],
                                    env={**cluster.driver_env(), "PYTHONUNBUFFERED": "1"}, stdout=sink,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.time()
        kill = _kill_trial_node(proc, log, sweep, cluster, kill_after_s, timeout_s)
        report.update(killed_at_s=round(kill.pop("killed_at") - t0, 1), **kill)
        seen = _watch_restart(proc, log, cluster, t0 + report["killed_at_s"], add_node_after_s, timeout_s)
        report.update({k: round(v, 1) if isinstance(v, float) else v for k, v in seen.items()})
        report["sweep_exit"] = proc.wait(timeout=60)
        report["sweep_s"] = round(time.time() - t0, 1)
        report.update(_outcome(log.read_text(), kill["evaluations_before_kill"]))
        report.update(_results(sweep, log.read_text()))
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        cluster.stop()
    return report


def _kill_trial_node(proc: subprocess.Popen, log: Path, sweep: Path, cluster, kill_after_s: float,
                     timeout_s: float) -> dict:
    """Once a trial's second evaluation is printed and Tune holds its checkpoint, ``kill_after_s`` later, kill the
    worker node running that trial; what was killed, when, and the evaluations printed before."""
    lines = lambda: log.read_text().splitlines()  # noqa: E731
    _wait("a second evaluation", lambda: any(e >= 2 for _, e, _ in evaluations(lines())), proc, timeout_s)
    trial = next(t for t, e, _ in evaluations(lines()) if e >= 2)
    trial_dir = next((sweep / "tune").glob(f"dmc_trial_{trial}_*"))
    _wait("the second evaluation's checkpoint", lambda: _checkpoint_held(trial_dir, 2), proc, timeout_s)
    held_at = time.time()
    while time.time() < held_at + kill_after_s and proc.poll() is None:
        time.sleep(0.1)
    victim = _node_of(cluster, _trial_pid(trial_dir))
    before = evaluations(lines())
    killed = cluster.kill_node(victim)
    killed_at = time.time()
    print(f"killed {victim.name} ({', '.join(killed)}); evaluations so far {before}", flush=True)
    return {"killed_at": killed_at, "killed_trial": trial, "killed_node": victim.name, "killed_processes": killed,
            "evaluations_before_kill": before, "killed_after_checkpoint_s": round(killed_at - held_at, 1)}


def _trial_pid(trial_dir: Path) -> int:
    """The pid of the trial's process, from the last result Tune wrote for it (Tune adds ``pid`` to each)."""
    return int(json.loads((trial_dir / "result.json").read_text().splitlines()[-1])["pid"])


def _node_of(cluster, pid: int) -> Path:
    """The worker node whose processes include ``pid``; ValueError when none does."""
    from cardrl.bench.local_cluster import node_processes

    for node in cluster.workers:
        if any(proc.pid == pid for proc in node_processes(node)):
            return node
    raise ValueError(f"no worker node of the cluster runs process {pid}")


def _results(sweep: Path, text: str) -> dict:
    """The sweep's rows (whether each trial's checkpoint is recorded as produced here) and its printed table."""
    from cardrl.checkpoint_trust import produced_here

    rows = json.loads((sweep / "results.json").read_text())["trials"]
    keys = ("trial", "lr", "adp", "adp_low", "adp_high", "frames_trained", "evaluations", "status", "restarts",
            "node_id")
    trials = [{**{k: r.get(k) for k in keys},
               "checkpoint_recorded_as_produced": bool(r.get("checkpoint")) and produced_here(Path(r["checkpoint"]))}
              for r in rows]
    table = text[text.index("\ntrial ") + 1:text.index("\nresults: ")] if "\nresults: " in text else ""
    return {"trials": trials, "table": table}


def _watch_restart(proc: subprocess.Popen, log: Path, cluster, killed_at: float, add_node_after_s: float,
                   timeout_s: float) -> dict:
    """Until the sweep ends: a new worker node started ``add_node_after_s`` after the kill (in a thread: ``ray start``
    takes seconds), and the seconds after the kill at which the sweep printed the restart line and the restarted
    trial's first evaluation (the log polled every 0.2 s)."""
    seen: dict = {}

    def add() -> None:
        try:
            seen["node_added"] = cluster.add_worker().name
            seen["node_up_s"] = time.time() - killed_at
        except (RuntimeError, subprocess.TimeoutExpired) as err:  # recorded: the trial then waits for a free CPU
            seen["node_add_error"] = str(err)[-600:]
            seen["node_add_failed_s"] = time.time() - killed_at

    adder = threading.Thread(target=add, daemon=True)
    deadline = killed_at + timeout_s
    while proc.poll() is None and time.time() < deadline:
        now = time.time() - killed_at
        if adder.ident is None and now >= add_node_after_s:
            adder.start()
        lines = log.read_text().splitlines()
        found = restarts(lines)
        if found and "restart_seen_s" not in seen:
            seen["restart_seen_s"] = now
        if found and "first_eval_after_restart_s" not in seen and any(
                t == found[0]["trial"] for t, _, _ in evaluations(lines[found[0]["line"]:])):
            seen["first_eval_after_restart_s"] = now
        time.sleep(0.2)
    adder.join(timeout_s) if adder.ident is not None else None
    return seen


def _outcome(text: str, before: list) -> dict:
    """The restart of the killed trial and what it lost, from the sweep's output."""
    lines = text.splitlines()
    found = restarts(lines)
    if not found:
        return {"restart": None}
    restart = found[0]
    after = [(e, f) for t, e, f in evaluations(lines[restart["line"]:]) if t == restart["trial"]]
    return {"restart": restart, **lost(before, restart), "evaluations_after_restart": after,
            "restart_line": lines[restart["line"]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/tune_node_kill", help="working directory (default runs/tune_node_kill)")
    parser.add_argument("--stop-frames", type=int, default=12000, help="each trial's frames (default 12000)")
    parser.add_argument("--eval-every", default="15s", help="each trial's evaluation interval (default 15s)")
    parser.add_argument("--add-node-after", type=float, default=20.0,
                        help="seconds from the kill to a new worker node's start (default 20)")
    parser.add_argument("--kill-after", type=float, default=7.0,
                        help="seconds from the second evaluation's checkpoint to the kill: the training since then "
                             "is what the restart loses (default 7, half of --eval-every's default)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for each stage (default 900)")
    parser.add_argument("--json-out", default=None, help="write the record here too")
    args = parser.parse_args(argv)
    report = run(Path(args.out).resolve(), args.stop_frames, args.eval_every, args.add_node_after, args.kill_after,
                 args.timeout)
    text = json.dumps(report, indent=1, default=str)
    (Path(args.out) / "tune_node_kill.json").write_text(text + "\n")
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")
    print(text, flush=True)
    return 0 if report.get("sweep_exit") == 0 and report.get("restart") else 1


if __name__ == "__main__":
    sys.exit(main())
