"""What a run's options can not do together, refused before anything starts (:func:`check_run_options`), and the
stop rule's clock: ``--stop-time``, else 10 minutes unless ``--stop-frames`` is given (:func:`stop_time_of`)."""

from __future__ import annotations

from pathlib import Path

from cardrl.checkpoint_trust import warn_if_untrusted
from cardrl.algorithms.training.registry import driver as driver_of
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.training.settings import RunSettings

__all__ = ["check_run_options", "deterministic_problems", "stop_time_of", "DEFAULT_STOP_TIME_S"]

DEFAULT_STOP_TIME_S = 600.0  # a run given neither --stop-time nor --stop-frames
DEFAULT_EVAL_EVERY_S = RunSettings.eval_every  # --eval-every's default (a dataclass field's default is its class's)


def stop_time_of(run: RunSettings) -> float | None:
    """The seconds after which a run stops: ``--stop-time``, else 10 minutes unless ``--stop-frames`` is given."""
    return run.stop_time if run.stop_time is not None else (None if run.stop_frames else DEFAULT_STOP_TIME_S)


def deterministic_problems(run: RunSettings) -> list[str]:
    """What a ``--deterministic`` run (the same records and weights from the same seed, however busy the machine)
    can not take: a stop or an evaluation by the clock, which would fall at another iteration in every run, and more
    than one torch thread. Checkpoints by the clock (``--checkpoint-every``) are allowed: they change nothing the
    run computes. Empty without ``--deterministic``."""
    if not run.deterministic:
        return []
    problems = []
    if run.stop_time is not None:
        problems.append(f"--stop-time {run.stop_time:g}s stops by the clock: stop by frames with --stop-frames N")
    elif not run.stop_frames:
        problems.append(f"without --stop-frames the run stops by the clock (after {DEFAULT_STOP_TIME_S / 60:g}m): "
                        f"give --stop-frames N")
    if run.eval_every:
        given = (f"--eval-every's default ({DEFAULT_EVAL_EVERY_S / 60:g}m)" if run.eval_every == DEFAULT_EVAL_EVERY_S
                 else f"--eval-every {run.eval_every:g}s")
        problems.append(f"{given} evaluates by the clock: give --eval-every 0 (and --eval-every-frames N to "
                        f"evaluate at frame milestones)")
    if run.learner_threads != 1:
        problems.append(f"--learner-threads {run.learner_threads}: a deterministic learner computes with one torch "
                        f"thread, give --learner-threads 1 (the default)")
    return problems


def check_run_options(run_spec: RunSpec) -> bool:
    """Refuse what the run options can not do together; returns whether the run resumes."""
    run = run_spec.run
    driver_of(run_spec.algo).check(run_spec)
    if run.resume and run.restore:
        raise ValueError("--resume continues the run in --out from its latest checkpoint, --restore starts a run from "
                         "the checkpoint it names: give one of them, not both")
    if run.init_weights and run.restore:
        raise ValueError("--init-weights starts a new run's networks from exported weights, --restore from a "
                         "checkpoint's (weights, optimizer, counters): give one of them, not both")
    for flag, value in (("--stop-time", run.stop_time), ("--checkpoint-every", run.checkpoint_every)):
        if value is not None and not value > 0:
            raise ValueError(f"{flag} must be a duration > 0, e.g. 90s, 10m or 2h; got {value:g}s")
    problems = deterministic_problems(run)
    if problems:
        raise ValueError("--deterministic fixes the run by its seed, so it takes nothing that depends on the clock "
                         "or the machine: " + "; ".join(problems))
    if run.out is not None and Path(run.out).exists() and not Path(run.out).is_dir():
        raise ValueError(f"--out {run.out} is a file; give the run directory to write (made if missing)")
    if run.restore is not None:
        if not Path(run.restore).is_dir():
            raise FileNotFoundError(f"--restore {run.restore}: no such checkpoint directory")
        warn_if_untrusted(run.restore, "--restore")
        if driver_of(run_spec.algo).verify_checkpoint is not None:
            try:
                driver_of(run_spec.algo).verify_checkpoint(Path(run.restore))
            except ValueError as err:
                raise ValueError(f"--restore {run.restore}: {err}") from None
    return run.resume
