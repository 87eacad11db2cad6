"""The run loop every driver uses: ``cardrl train --algo X`` (:func:`run_training`) and a ``cardrl tune`` trial
(:mod:`cardrl.algorithms.tune.trial`).

One loop trains an algorithm until the stop rule (``--stop-time`` / ``--stop-frames``, 10 minutes when neither is
given) and evaluates it on its schedules: by the clock (``--eval-every``) and, for an algorithm that takes it, each
``--eval-every-frames`` more frames (the record's ``eval_frames`` names the milestone). Each evaluation's scores are
printed and the first time each baseline's 95% interval lay above 0 is kept (Luo & Tan's "time to reach ADP > 0",
Tables 8-9). What becomes of each iteration's record is the sink's: :class:`RunFiles` prints the progress line,
appends it to the run directory (:mod:`cardrl.run_dir`), writes atomic checkpoints every ``--checkpoint-every`` and
at the end, and closes the run with the final evaluation and its report; a Tune trial reports each evaluation to Tune.

Surviving failures (docs/operations.md): ``--resume`` continues the run in ``--out`` from its latest complete
checkpoint: counters, schedules, elapsed time and the ADP milestones go on (they travel in the checkpoint as the
algorithm's ``run_info``), ``progress.jsonl`` is appended to (records written after that checkpoint are moved to
``progress.discarded.jsonl``), and ``--stop-time`` / ``--stop-frames`` count from the run's start. A run that starts
afresh (no ``--resume``, or no complete checkpoint left to resume) moves the records of an earlier run in ``--out``
to ``progress.discarded.jsonl`` too, so that its curves are its own. A full disk stops the run with exit status 1
and a message that says how much space it needs (:class:`cardrl.run_dir.OutOfSpaceError`); its last complete
checkpoint and whole records stay, for a ``--resume`` once space is freed.

Reproducing a run (``--deterministic``, DMC only; docs/usage.md): the algorithm samples and updates in a fixed order,
so one seed gives the same progress records, but for their timing fields (:data:`cardrl.run_dir.TIMING_FIELDS`), and
the same weights on any machine state. :func:`~cardrl.algorithms.training.run_checks.deterministic_problems`
refuses what would make a run depend on the clock: a stop or an evaluation by time, or more than one torch thread.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from cardrl import run_dir as files
from cardrl.checkpoint_trust import warn_if_untrusted
from cardrl.machine_load import load_1m
from cardrl.algorithms.training.driver import Driver
from cardrl.algorithms.training.learners import set_learner_threads
from cardrl.algorithms.training.registry import driver as driver_of
from cardrl.algorithms.training.run_checks import check_run_options, stop_time_of
from cardrl.algorithms.training.run_config import read_spec, run_dir, write_config
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.training.settings import RunSettings, with_flags

__all__ = ["run_training", "check_training", "run_loop", "stop_rule", "RunClock", "Sink", "RunFiles"]

def stop_rule(run: RunSettings) -> Callable[[float, int], bool]:
    """``done(elapsed_s, frames) -> bool`` of a run's ``--stop-time`` / ``--stop-frames`` (either ends it; 10 minutes
    when neither is given)."""
    stop_time = stop_time_of(run)
    return lambda elapsed, frames: ((stop_time is not None and elapsed >= stop_time)
                                    or (run.stop_frames is not None and frames >= run.stop_frames))


@dataclass
class RunClock:
    """The loop's bookkeeping: the run's start (a resumed run's clock goes on), the last evaluation, the frame
    milestone of the next one, the milestones reached and the seconds spent evaluating (part of ``time_s``)."""

    start: float
    every_frames: int = 0
    next_eval_frames: int | None = None
    reached: dict[str, dict] = field(default_factory=dict)  # baseline -> when its interval first lay above 0
    eval_seconds: float = 0.0
    last_eval: float = 0.0
    last_frames: int = 0
    last_time: float = 0.0

    @classmethod
    def begin(cls, run: RunSettings, run_info: dict, frames: int) -> "RunClock":
        """The clock of a run that has trained ``frames`` so far; ``run_info`` is a resumed run's (else ``{}``)."""
        now = time.time()
        every = run.eval_every_frames
        return cls(start=now - float(run_info.get("time_s") or 0.0), every_frames=every,
                   next_eval_frames=(frames // every + 1) * every if every else None,
                   reached=dict(run_info.get("reached") or {}),
                   eval_seconds=float(run_info.get("eval_time_s") or 0.0), last_eval=now, last_frames=frames,
                   last_time=now)

    def elapsed(self) -> float:
        """Seconds since the run's start, evaluations included (a resumed run's go on from its checkpoint's)."""
        return time.time() - self.start

    def run_info(self, time_s: float) -> dict[str, Any]:
        """What a checkpoint keeps of the clock, for a resume: ``time_s`` must be taken now (``elapsed()``), after
        any evaluation already counted in ``eval_seconds``, or the resumed run's training time comes out short."""
        return {"time_s": time_s, "reached": dict(self.reached), "eval_time_s": self.eval_seconds}


class Sink(Protocol):
    """Where the loop's records go. ``evaluate_at_end``: the last iteration is evaluated in the loop (a Tune trial's
    last report), rather than by :meth:`finish` (the final record)."""

    evaluate_at_end: bool

    def iteration(self, algo: Any, record: dict, line: str, done: bool, clock: RunClock) -> None: ...

    def finish(self, algo: Any, record: dict, clock: RunClock) -> None: ...


def _record(run_spec: RunSpec, result: dict, clock: RunClock, now: float) -> tuple[dict, str]:
    """One iteration's record (time, iteration, the algorithm's fields, frames/s) and its progress line."""
    fields, text = driver_of(run_spec.algo).progress(result, run_spec)
    frames = int(fields["frames_trained"])
    record = {"time_s": round(now - clock.start, 1), "iteration": result.get("training_iteration"), **fields,
              "train_s": round(now - clock.start - clock.eval_seconds, 1), "load_1m": load_1m()}
    record.setdefault("frames_per_s", round((frames - clock.last_frames) / max(now - clock.last_time, 1e-9), 1))
    clock.last_frames, clock.last_time = frames, now
    return record, f"[{now - clock.start:7.1f}s] iter {record['iteration']:4d} | {text}"


def evaluate_into(run_spec: RunSpec, algo: Any, baselines: Any, record: dict, clock: RunClock, score_name: str) -> str:
    """Evaluate now into ``record`` (its evaluation fields, the milestones reached); returns the line's part."""
    began = time.time()
    record.update(driver_of(run_spec.algo).evaluation.evaluate(algo, run_spec, baselines))
    clock.eval_seconds += time.time() - began
    line = ""
    for spec, ev in record["eval"].items():
        line += f" | {score_name} vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]"
        if spec == next(iter(record["eval"])) and ev.get("passes"):  # how often it passes, once
            line += " (passes " + ", ".join(f"{side} {100 * p['passed'] / p['decisions']:.0f}%"
                                            for side, p in ev["passes"].items() if p["decisions"]) + ")"
        if spec not in clock.reached and ev["adp_low"] > 0:
            clock.reached[spec] = {"time_s": record["time_s"], "frames_trained": record["frames_trained"]}
            line += (f" ({score_name} > 0 vs {spec} reached at {record['time_s'] / 60:.1f} min, "
                     f"{record['frames_trained']:,} frames)")
    record["reached_adp_above_0"] = dict(clock.reached)
    clock.last_eval = time.time()
    return line + driver_of(run_spec.algo).evaluation.line(record, run_spec)


def run_loop(algo: Any, run_spec: RunSpec, baselines: Any, clock: RunClock, sink: Sink, score_name: str) -> None:
    """Train ``algo`` until the stop rule; evaluate on the schedules; hand each record to ``sink``."""
    done_at = stop_rule(run_spec.run)
    while True:
        result = algo.train()
        now = time.time()
        record, line = _record(run_spec, result, clock, now)
        frames = record["frames_trained"]
        done = done_at(now - clock.start, frames)
        by_clock = bool(run_spec.run.eval_every) and now - clock.last_eval >= run_spec.run.eval_every
        by_frames = clock.next_eval_frames is not None and frames >= clock.next_eval_frames
        if by_clock or by_frames or (done and sink.evaluate_at_end):
            if by_frames:  # the milestone this evaluation stands for (frames_trained is where it fell); an
                # iteration that crossed several stands for the first, and the next is the first ahead of it
                record["eval_frames"] = clock.next_eval_frames
                clock.next_eval_frames = (frames // clock.every_frames + 1) * clock.every_frames
            line += evaluate_into(run_spec, algo, baselines, record, clock, score_name)
        record["eval_time_s"] = round(clock.eval_seconds, 1)
        sink.iteration(algo, record, line, done, clock)
        if done:
            break
    sink.finish(algo, record, clock)


class RunFiles:
    """The sink of ``cardrl train``: progress lines, the run directory's records and checkpoints, and at the end the
    final evaluation, printed and recorded (the last record's fields, its time, the evaluation), so that a short
    run's curves have a point."""

    evaluate_at_end = False

    def __init__(self, out: Path, run_spec: RunSpec, baselines: Any, score_name: str):
        self.out, self.run_spec, self.baselines, self.score_name = out, run_spec, baselines, score_name
        self.log = files.ProgressLog(out, run_spec.algo)
        self.last_checkpoint = time.time()

    def iteration(self, algo: Any, record: dict, line: str, done: bool, clock: RunClock) -> None:
        print(line, flush=True)
        self.log.write(record)
        if done or time.time() - self.last_checkpoint >= self.run_spec.run.checkpoint_every:
            algo.run_info = clock.run_info(clock.elapsed())
            path = files.save_checkpoint(algo, self.out)
            self.last_checkpoint = time.time()
            print(f"checkpoint written: {path}", flush=True)

    def finish(self, algo: Any, record: dict, clock: RunClock) -> None:
        began = time.time()
        if "eval" in record:  # the last iteration evaluated these very weights: not again
            final = {**record, "final": True}
        else:
            evaluation = driver_of(self.run_spec.algo).evaluation
            final = {**record, **evaluation.evaluate(algo, self.run_spec, self.baselines), "final": True}
        clock.eval_seconds += time.time() - began
        final.update({"time_s": round(clock.elapsed(), 1), "eval_time_s": round(clock.eval_seconds, 1)})
        final["train_s"] = round(final["time_s"] - final["eval_time_s"], 1)
        for spec, ev in final["eval"].items():
            if spec not in clock.reached and ev["adp_low"] > 0:
                clock.reached[spec] = {"time_s": final["time_s"], "frames_trained": final["frames_trained"]}
        final["reached_adp_above_0"] = dict(clock.reached)
        driver_of(self.run_spec.algo).evaluation.report_final(algo, final, self.run_spec, self.baselines)
        self.log.write(final)

    def close(self) -> None:
        self.log.close()


def _restore(driver: Driver, algo: Any, run: RunSettings, out: Path, resume_from: Path | None) -> dict:
    """Restore ``--restore``'s checkpoint, or ``--resume``'s (moving the records written after it aside; a run that
    does not resume moves every record already in ``out`` aside); returns the resumed run's ``run_info`` (``{}`` when
    not resuming)."""
    if run.restore:
        algo.restore_from_path(str(Path(run.restore).resolve()))
        print(f"restored from {run.restore}", flush=True)
    if resume_from is None:  # a new run: records of an earlier one in --out would be read as this run's
        moved = files.trim_progress(out, 0)
        if moved:
            print(f"{moved} progress record(s) of an earlier run in {out} moved to {files.DISCARDED}", flush=True)
        if run.init_weights:
            print(driver.init_weights(algo, run.init_weights), flush=True)
        return {}
    algo.restore_from_path(str(resume_from))
    run_info = dict(getattr(algo, "run_info", None) or {})
    moved = files.trim_progress(out, algo.iteration)
    print(f"resumed from {resume_from}: iteration {algo.iteration}, frames {driver.frames_trained(algo):,}, "
          f"{run_info.get('time_s', 0.0):,.0f}s trained"
          + (f"; {moved} progress record(s) written after it moved to {files.DISCARDED}" if moved else "")
          + driver.resumed_note
          + (f"; --init-weights {run.init_weights} was loaded when the run started, its weights are the "
             f"checkpoint's now" if run.init_weights else ""), flush=True)
    return run_info


def resumed_spec(run_spec: RunSpec, out: Path) -> RunSpec:
    """The spec a ``--resume`` of ``run_spec`` continues: the run's own, from ``out``'s ``config.json`` (a run directory
    written before the spec existed too), with the run options ``run_spec`` gives (those that differ from their
    defaults: a new stop rule, more env runners) in place of the saved ones. ``run_spec`` unchanged when ``out`` has no
    config. ValueError when ``run_spec`` names another game or algorithm, or an algorithm option at another value than
    the run was trained with (a resumed run is that run)."""
    saved = read_spec(out)
    if saved is None:
        return run_spec
    if (saved.game, saved.algo) != (run_spec.game, run_spec.algo):
        raise ValueError(f"--resume: {out} holds a run of --algo {saved.algo} on {saved.game}, not --algo "
                         f"{run_spec.algo} "
                         f"on {run_spec.game}")
    defaults = type(run_spec.settings)()
    given = {k: v for k, v in run_spec.settings_values().items() if v != getattr(defaults, k)}
    differ = {k: v for k, v in given.items() if v != getattr(saved.settings, k)}
    if differ:
        raise ValueError(f"--resume: {out} was trained with "
                         + ", ".join(f"{k}={getattr(saved.settings, k)!r}" for k in differ)
                         + ", not " + ", ".join(f"{k}={v!r}" for k, v in differ.items())
                         + "; a resumed run keeps its algorithm's options (start a new run in another --out)")
    default_run = RunSettings()
    changed = {k: v for k, v in run_spec.run_values().items() if v != getattr(default_run, k)}
    return saved.replace(**{**changed, "out": str(out), "resume": True, "restore": None})


def check_training(run_spec: RunSpec, say: Callable[[str], Any] = print) -> tuple[bool, Any, Any]:
    """What ``cardrl train`` checks before Ray starts: the run options together, the algorithm's config (its
    ``validate()``) and the baselines; returns whether the run resumes, the config and the baselines. ValueError
    (FileNotFoundError for a baseline's checkpoint) naming what is wrong."""
    resume = check_run_options(run_spec)
    try:
        config = driver_of(run_spec.algo).build_config(run_spec, say)
        if hasattr(config, "validate"):
            config.validate()
    except ValueError as err:  # RLlib's setters and DMC's checks name config fields: say the flags
        raise ValueError(with_flags(str(err), type(run_spec.settings))) from None
    evaluation = driver_of(run_spec.algo).evaluation
    return resume, config, evaluation.baselines(config, run_spec, list(run_spec.run.eval_against))


def run_training(run_spec: RunSpec) -> int:
    """Train the run of ``run_spec`` (``cardrl train``'s, or a Python user's :class:`RunSpec`): build, restore or
    resume, train, evaluate and checkpoint its algorithm on the local Ray or the cluster of ``RAY_ADDRESS`` (module
    docstring). ValueError for options that do not apply, before Ray starts where it can."""
    from cardrl.games.registry import get_game
    from cardrl.ray_start import start_ray

    if run_spec.run.resume:
        run_spec = resumed_spec(run_spec, run_dir(run_spec))
    driver = driver_of(run_spec.algo)
    resume, config, baselines = check_training(run_spec)
    start_ray(max(2, run_spec.run.num_env_runners + 1))
    out = run_dir(run_spec)
    out.mkdir(parents=True, exist_ok=True)
    resume_from = files.latest_checkpoint(out, driver.verify_checkpoint) if resume else None
    if resume and resume_from is None:
        print(f"--resume: {out} has no complete checkpoint; starting a fresh run", flush=True)
    elif resume:
        warn_if_untrusted(resume_from, "--resume")  # a run another machine wrote (a new head on shared storage)
    algo = config.build_algo()
    before = _on_sigterm(_raise_terminated)
    try:
        set_learner_threads(algo, run_spec.run.learner_threads)
        run_info = _restore(driver, algo, run_spec.run, out, resume_from)
        write_config(out, run_spec, config, driver.agent_kind)
        for line in driver.describe(algo, config, run_spec, out):
            print(line, flush=True)
        sink = RunFiles(out, run_spec, baselines, get_game(run_spec.game).protocol.score_name)
        try:
            run_loop(algo, run_spec, baselines, RunClock.begin(run_spec.run, run_info, driver.frames_trained(algo)),
                     sink, sink.score_name)
        finally:
            sink.close()
    except files.OutOfSpaceError as err:  # a full disk stops the run; what it wrote is whole (docs/operations.md)
        print(f"cardrl train: stopped: {err}", file=sys.stderr, flush=True)
        return 1
    except (KeyboardInterrupt, _Terminated) as stop:  # Ctrl-C, --hours' deadline, a scheduler's or kill's SIGTERM
        print(_interrupted_message(out, files.latest_checkpoint(out, driver.verify_checkpoint)), file=sys.stderr,
              flush=True)
        return 128 + (stop.signum if isinstance(stop, _Terminated) else signal.SIGINT)  # a shell's status for it
    finally:
        algo.stop()
        if before is not None:
            _on_sigterm(before)
    return 0


class _Terminated(Exception):
    """SIGTERM, raised in the main thread so that a run stops as on Ctrl-C (Ray's own handler would abort the
    process with a native stack trace)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def _raise_terminated(signum: int, _frame: Any) -> None:
    raise _Terminated(signum)


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM and return the one it replaces (None off the main thread, where Python
    allows no handler: a run started from a thread keeps the process's)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def _interrupted_message(out: Path, checkpoint: Path | None) -> str:
    """What ``cardrl train`` says when it is interrupted: where the run can continue from."""
    if checkpoint is None:
        return f"cardrl train: interrupted before its first checkpoint; nothing in {out} to resume from"
    return (f"cardrl train: interrupted; its latest complete checkpoint is {checkpoint}: the same command with "
            f"--resume (and --out {out}) continues from it")
