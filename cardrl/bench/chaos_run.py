"""One watched ``cardrl train`` run with faults on a schedule: the engine of ``cardrl bench chaos`` (and, with no
faults, of its undisturbed run and of ``cardrl bench soak``).

:class:`WatchedRun` starts the driver (:class:`~cardrl.bench.run_processes.TrainProcess`), polls its run directory's
progress (:class:`~cardrl.bench.reliability.ProgressWatch`) and applies each fault of the plan when it is due:

* ``runner``: SIGKILL of one env-runner process (``ray::DMCEnvRunner...``); DMC counts the lost request and Ray
  restarts the actor (docs/operations.md, "An env runner dies");
* ``driver``: SIGKILL of the driver, then ``cardrl train ... --resume``, which must go on from the newest complete
  checkpoint (docs/operations.md, "The driver dies: --resume");
* ``checkpoint``: from the planned time on, the driver is killed as soon as a checkpoint write has begun
  (``checkpoint.tmp`` exists), then resumed: the torn write must be ignored and the run go on from the last
  complete checkpoint (docs/operations.md, "Checkpoints");
* ``node`` (a run on a :class:`~cardrl.bench.local_cluster.LocalCluster`): SIGKILL of every process of a worker node
  that runs an env runner (its raylet, agents and workers), as a machine that dies; ``add_node_after_s`` later a new
  worker node joins. RLlib restarts the lost runners (``restart_failed_env_runners``, DMC's default) where there is a
  free CPU: on the new node when the others are busy (docs/operations.md, "A worker node dies").

A resume that does not go on from that checkpoint, a driver that exits with an error, and frames that do not rise
for ``stall_bound_s`` are failures (:attr:`WatchedRun.failures`); the run is stopped at the first.
"""

from __future__ import annotations

import os
import re
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from cardrl import run_dir as files
from cardrl.bench.reliability import FAULT_KINDS, ProgressWatch, stalled_for
from cardrl.bench.run_processes import TrainProcess, env_runner_pids

__all__ = ["WatchedRun", "checkpoint_frames", "parse_resumed"]

_RESUMED = re.compile(r"resumed from (\S+): iteration (\d+), frames ([\d,]+)")
_FRESH = "has no complete checkpoint; starting a fresh run"
# DMC's checkpoint completion marker, written last with every file's size and the counters (docs/operations.md,
# "Checkpoints")
MARKER = "cardrl_checkpoint.json"


def parse_resumed(output: str) -> tuple[str, int] | None:
    """``(checkpoint path, frames)`` of a ``--resume`` driver's "resumed from" line; ``("", 0)`` when it started
    afresh (no complete checkpoint); None before it said either."""
    match = _RESUMED.search(output)
    if match:
        return match.group(1), int(match.group(3).replace(",", ""))
    return ("", 0) if _FRESH in output else None


def _complete(path: Path) -> None:
    if not (path / MARKER).is_file():
        raise ValueError(f"no completion marker {MARKER}")


def checkpoint_frames(out: Path) -> tuple[Path | None, int]:
    """The newest checkpoint of run directory ``out`` with its completion marker (what ``--resume`` must go on
    from) and its frames trained; ``(None, 0)`` when there is none."""
    import json

    path = files.latest_checkpoint(out, _complete)
    if path is None:
        return None, 0
    info = json.loads((path / MARKER).read_text()).get("info", {})
    return path, int(info.get("frames_trained") or 0)


@dataclass
class WatchedRun:
    """A ``cardrl train`` run (``argv`` without ``--resume``, which each restart adds) in ``out``, watched from its
    launch; ``plan`` is ``[(seconds, kind)]`` (:func:`~cardrl.bench.reliability.fault_plan`)."""

    argv: Sequence[str]
    out: Path
    plan: Sequence[tuple[float, str]] = ()
    stall_bound_s: float = 300.0
    target_frames: int | None = None  # for the ETA, else:
    duration_s: float | None = None
    label: str = "run"
    say: Callable[..., None] = print
    on_poll: Callable[["WatchedRun", float], None] | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    driver_launches: int = 0
    cluster: Any = None  # a LocalCluster the driver joins; None: a local Ray of the driver's own
    add_node_after_s: float | None = None  # a node fault: a new worker node this long after the kill (None: never)

    def __post_init__(self):
        self.out = Path(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.watch = ProgressWatch(self.out)
        self.log = self.out / "driver.log"
        # short: Ray's socket paths live below it
        self.ray_tmpdir = Path(tempfile.mkdtemp(prefix="cardrl-chaos-", dir="/tmp"))
        self._next = 0
        self._pending_resume: dict[str, Any] | None = None
        self._has_complete_checkpoint = False
        self._node_adds: list[tuple[dict[str, Any], threading.Thread | None]] = []  # node faults to add a node for

    # ---- the loop --------------------------------------------------------------------------------------------
    def run(self, progress_every_s: float = 15.0) -> int:
        """Launch, apply the plan, wait for the driver to finish; returns its exit code (1 after a failure)."""
        self.t0 = time.time()
        self._launch(resume=True)
        last_line = last_poll = -1e9
        while True:
            now = self._now()
            if now - last_poll >= 0.5:
                last_poll = now
                code = self._poll(now)
                if code is not None:
                    return code
            self._faults_due(now)
            self._nodes_due(now)
            if now - last_line >= progress_every_s:
                self.say(self.progress_line(now), flush=True)
                last_line = now
            time.sleep(0.02 if self._armed_checkpoint(now) else 0.5)

    def _poll(self, now: float) -> int | None:
        """Read the progress, check the resume and the stall; the exit code once the run is over."""
        self.watch.poll(now)
        if self.on_poll is not None:
            self.on_poll(self, now)
        self._check_resume()
        code = self.driver.poll()
        if code is not None:
            if code != 0:
                self.failures.append(f"the driver exited with code {code}: " + self.driver.output()[-1500:].strip())
            return 1 if self.failures else 0
        if stalled_for(self.watch.observations, now) > self.stall_bound_s:
            self.failures.append(f"training stalled: frames did not rise for {self.stall_bound_s:g}s "
                                 f"(--stall-bound) at {now:.0f}s, frames {self.watch.frames:,}")
        if self.failures:
            self.driver.kill_group()
            return 1
        return None

    def _now(self) -> float:
        return time.time() - self.t0

    def _launch(self, resume: bool) -> None:
        self.driver = TrainProcess([*self.argv, *(["--resume"] if resume else [])], self.log, self.ray_tmpdir,
                                   env=None if self.cluster is None else self.cluster.driver_env())
        self.driver_launches += 1
        self._launched_at = self._now()

    def progress_line(self, now: float) -> str:
        counts = {k: sum(1 for f in self.faults if f["kind"] == k) for k in FAULT_KINDS}
        frames = self.watch.frames
        line = (f"[{self.label} {now:6.0f}s] frames {frames:,} | faults {len(self.faults)}/{len(self.plan)} ("
                + ", ".join(f"{k} {n}" for k, n in counts.items() if n or k != "node") + ")")
        recent = [o for o in self.watch.observations if o.t >= now - 120]
        if self.target_frames and len(recent) >= 2 and recent[-1].t > recent[0].t:
            # frames gained over the last two minutes; a resume's step back is not a loss of speed
            rate = sum(b.frames - a.frames for a, b in zip(recent, recent[1:]) if b.rose) / (now - recent[0].t)
            if rate > 0:
                line += f" | ETA {max(0, self.target_frames - frames) / rate / 60:.1f} min"
        elif self.duration_s and not self.target_frames:
            line += f" | ETA {max(0.0, self.duration_s - now) / 60:.1f} min + the final evaluation"
        return line

    # ---- faults ----------------------------------------------------------------------------------------------
    def _armed_checkpoint(self, now: float) -> bool:
        return self._next < len(self.plan) and self.plan[self._next][1] == "checkpoint" \
            and now >= self.plan[self._next][0]

    def _faults_due(self, now: float) -> None:
        """Apply the next fault when it is due and the run has recovered from the last: its frames rose since the
        driver's launch and since the previous fault. Faults fall on a training run one at a time, not on one
        starting up; a driver kill also waits for the run's first complete checkpoint (startup time varies with
        the machine's load, and a kill before any checkpoint would only measure a restart from nothing)."""
        since = max([self._launched_at] + [f["t"] for f in self.faults])
        if self._next >= len(self.plan) or now < self.plan[self._next][0] or self._pending_resume is not None \
                or not any(o.t > since and o.rose for o in self.watch.observations[-5:]):
            return
        planned, kind = self.plan[self._next]
        self.watch.poll(now)  # a record written just before the fault is stamped before it
        fault = {"kind": kind, "planned_s": planned, "frames_at": self.watch.frames,
                 "restarts_at": self._last("env_runner_restarts")}
        if kind == "runner":
            pids = env_runner_pids(self.driver.pid) if self.cluster is None else self.cluster.pids_of("env_runner")
            if not pids:  # starting, or restarting: try again shortly
                return
            os.kill(pids[0], signal.SIGKILL)
            fault.update(t=self._now(), pid=pids[0], base_frames=fault["frames_at"])
        elif kind == "node":
            node = self.cluster.worker_with("env_runner")
            if node is None:  # no env runner on an alive worker node now: try again shortly
                return
            fault.update(samples_lost_at=self._last("env_runner_samples_lost"),
                         healthy_at=self._last("env_runners_healthy"))
            fault["killed"] = self.cluster.kill_node(node)
            fault.update(t=self._now(), node=node.name, base_frames=fault["frames_at"])
            if self.add_node_after_s is not None:
                self._node_adds.append((fault, None))
        elif kind == "driver" and not self._checkpoint_seen():
            return  # a kill before the first checkpoint would test a fresh start, not a resume: wait for one
        elif kind == "checkpoint":
            tmp = self.out / files.CHECKPOINT_TMP
            if not tmp.is_dir() or not self._has_complete_checkpoint:  # a write over a complete one is cut short
                self._checkpoint_seen()
                return
            fault["torn"] = not (tmp / MARKER).is_file()  # killed before its completion marker
            self._kill_and_resume(fault)
        else:
            self._kill_and_resume(fault)
        self.faults.append(fault)
        self._next += 1
        self.say(f"[{self.label} {fault['t']:6.0f}s] fault: {self._fault_text(fault)}", flush=True)

    def _nodes_due(self, now: float) -> None:
        """Start a new worker node (in a thread: ``ray start`` takes seconds, the polls go on) for each node fault
        ``add_node_after_s`` after it; each fault gets ``node_add_began_s`` and, once the node is up,
        ``node_added_s`` (seconds after the kill)."""
        for n, (fault, thread) in enumerate(self._node_adds):
            if thread is None and now >= fault["t"] + self.add_node_after_s:
                fault["node_add_began_s"] = now - fault["t"]
                thread = threading.Thread(target=self._add_node, args=(fault,), daemon=True)
                thread.start()
                self._node_adds[n] = (fault, thread)
                self.say(f"[{self.label} {now:6.0f}s] adding a worker node ({fault['node_add_began_s']:.0f}s after "
                         f"the kill of {fault['node']})", flush=True)

    def _add_node(self, fault: dict[str, Any]) -> None:
        try:
            fault["node_added"] = self.cluster.add_worker().name
            fault["node_added_s"] = self._now() - fault["t"]
        except Exception as err:  # said in the report; the run goes on with the nodes it has
            fault["node_add_error"] = f"{type(err).__name__}: {err}"

    def wait_for_node_adds(self, timeout_s: float = 180.0) -> None:
        """Wait for node additions still starting (before the cluster is stopped)."""
        for _, thread in self._node_adds:
            if thread is not None:
                thread.join(timeout_s)

    def _checkpoint_seen(self) -> bool:
        """Whether the run has written a complete checkpoint (read from its directory until one is there; a
        complete checkpoint is never taken away)."""
        if not self._has_complete_checkpoint:
            self._has_complete_checkpoint = checkpoint_frames(self.out)[0] is not None
        return self._has_complete_checkpoint

    def _kill_and_resume(self, fault: dict[str, Any]) -> None:
        self.watch.poll(self._now())
        fault.update(t=self._now(), frames_at=self.watch.frames)
        fault["left_behind"] = self.driver.kill_driver()
        self.watch.poll(fault["t"])  # what the dead driver wrote, it wrote before the fault
        path, frames = checkpoint_frames(self.out)
        fault.update(expected_checkpoint=str(path) if path else None, expected_frames=frames)
        self._launch(resume=True)
        self._pending_resume = fault

    def _check_resume(self) -> None:
        fault = self._pending_resume
        if fault is None:
            return
        said = parse_resumed(self.driver.output())
        if said is None:
            return
        path, frames = said
        fault.update(resumed_from=path or None, base_frames=frames)
        if (path or None) != fault["expected_checkpoint"] or frames != fault["expected_frames"]:
            self.failures.append(f"resume after the {fault['kind']} fault went on from {path or 'nothing'} at "
                                 f"{frames:,} frames; the newest complete checkpoint was "
                                 f"{fault['expected_checkpoint']} at {fault['expected_frames']:,} frames")
        self._pending_resume = None

    def _last(self, key: str) -> int:
        return int(self.watch.records[-1].get(key) or 0) if self.watch.records else 0

    @staticmethod
    def _fault_text(fault: dict[str, Any]) -> str:
        if fault["kind"] == "runner":
            return f"env runner pid {fault['pid']} killed at {fault['frames_at']:,} frames"
        if fault["kind"] == "node":
            return (f"worker node {fault['node']} killed at {fault['frames_at']:,} frames ({len(fault['killed'])} "
                    f"processes: {', '.join(sorted(set(fault['killed'])))})")
        text = f"driver killed at {fault['frames_at']:,} frames"
        if fault["kind"] == "checkpoint":
            text += " while writing a checkpoint" + (" (no completion marker yet)" if fault["torn"] else
                                                     " (its marker was written: killed during the swap)")
        if fault["left_behind"]:
            text += f"; still alive 5 s later, then killed: {', '.join(fault['left_behind'])}"
        return text + f"; resuming from {fault['expected_checkpoint'] or 'nothing'} ({fault['expected_frames']:,})"

    def final_record(self) -> dict[str, Any] | None:
        """The run's final record (its final evaluation), None before it is written."""
        records = files.read_progress(self.out, torn_last_line=True) if (self.out / files.PROGRESS).is_file() else []
        return next((r for r in reversed(records) if r.get("final")), None)
