"""A training run's directory: its layout, written by the run loop (``cardrl train``) and read by ``cardrl plot``,
``cardrl report`` and ``cardrl bench learning``. The one module that knows the file names and the record format.

``<out>/progress.jsonl``
    one JSON record per training iteration (``time_s``, ``iteration``, ``frames_trained``, the algorithm's own fields;
    with ``eval`` and ``reached_adp_above_0`` where an evaluation ran, ``eval_frames`` where a frame milestone asked
    for it) and a last one with ``"final": true``: the final evaluation, with the last iteration's fields. The fields
    that measure the clock or the machine are :data:`TIMING_FIELDS`.
``<out>/progress.discarded.jsonl``
    records a ``--resume`` moved aside: written after the checkpoint the run went on from.
``<out>/config.json``
    how the run was made (game, algorithm, command line, options; :mod:`cardrl.algorithms.training.run_config`).
``<out>/checkpoint``
    the latest complete checkpoint, written as ``checkpoint.tmp`` and swapped in by renames (``checkpoint.prev``
    during the swap), so that a crash at any moment leaves a complete one (:func:`save_checkpoint`).
``<out>/tb``
    TensorBoard scalars of every number in the records (:class:`ProgressLog`).

A full disk (docs/operations.md, "A full disk"): every write here leaves whole files and whole lines or nothing. A
record is appended in one ``write`` and cut back when it fails part-way, ``config.json`` is replaced by a rename, and a
checkpoint whose write runs out of space is removed, the last complete one kept; each raises
:class:`OutOfSpaceError`, whose message says what was being written, how much it needs and how much is free. Readers
skip a last line that lacks its newline (a writer killed mid-line).

No Ray or torch is imported here (tensorboardX, where installed, on first use).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable

from cardrl.whole_lines import append_line
from cardrl.atomic_file import replace_text

__all__ = ["PROGRESS", "DISCARDED", "CONFIG", "TENSORBOARD", "CHECKPOINT", "CHECKPOINT_TMP", "CHECKPOINT_PREV",
           "read_progress", "read_config", "run_options", "write_config", "trim_progress", "save_checkpoint",
           "record_as_produced",
           "latest_checkpoint", "ProgressLog", "log_scalars", "check_run_dir_args", "TIMING_FIELDS", "without_timing",
           "OutOfSpaceError", "is_out_of_space", "directory_bytes", "space_message"]

PROGRESS, DISCARDED, CONFIG, TENSORBOARD = "progress.jsonl", "progress.discarded.jsonl", "config.json", "tb"
CHECKPOINT, CHECKPOINT_TMP, CHECKPOINT_PREV = "checkpoint", "checkpoint.tmp", "checkpoint.prev"
# The record fields that measure the wall clock or the machine, not the training: the run's time, its training and
# evaluation time, rates, the age of the data in seconds, a time share and the driver's memory. They are the only
# fields in which two `cardrl train --deterministic` runs of one seed may differ, at any depth of a record (the ADP
# milestones' time_s included): without_timing() leaves them out (docs/usage.md, "Reproducing a run").
TIMING_FIELDS = frozenset({"time_s", "train_s", "eval_time_s", "frames_per_s", "data_age_s",
                           "candidate_scoring_share", "driver_rss_mb", "load_1m"})
# record fields that are not scalars of the run's progress: the step, bookkeeping and the ADP milestones
_NOT_SCALARS = ("iteration", "time_s", "frames_trained", "final", "reached_adp_above_0")


NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})  # a full disk, a full quota


class OutOfSpaceError(OSError):
    """A write of the run directory refused for want of space (ENOSPC, or EDQUOT over a quota). Nothing half-written
    is left behind; the message says what was being written, how much it needs, how much is free and what was kept."""

    def __str__(self) -> str:
        return str(self.strerror)


def is_out_of_space(err: BaseException | None) -> bool:
    """Whether ``err``, or an error it was raised from, is a full disk or quota (ENOSPC, EDQUOT)."""
    for _ in range(16):  # the chain of causes, bounded
        if err is None:
            return False
        if isinstance(err, OSError) and err.errno in NO_SPACE_ERRNOS:
            return True
        err = err.__cause__ or err.__context__
    return False


def directory_bytes(path: Path | None) -> int:
    """The bytes of the files under ``path`` (0 when there is none)."""
    if path is None or not path.is_dir():
        return 0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def space_message(out: Path, doing: str, needed: int | None, outcome: str) -> str:
    """What a run says when the disk of ``out`` is full: what it was ``doing``, how much it ``needed`` (bytes, None
    when unknown) and how much is free, the ``outcome`` (what was left), the last complete checkpoint, what to do."""
    free = shutil.disk_usage(out).free
    last = latest_checkpoint(out)
    kept = f"the last complete checkpoint, {last}, is intact" if last else "there is no complete checkpoint yet"
    more = f" (at least {_mb(needed - free)} more)" if needed and needed > free else ""
    return (f"no space left on the device of {out} while {doing} ({_mb(free)} free there"
            + (f"; it needs about {_mb(needed)}" if needed else "") + f"): {outcome}; {kept}. Free space{more} "
            f"and continue the run with --resume (docs/operations.md, \"A full disk\")")


def without_timing(record: Any, timing: frozenset[str] = TIMING_FIELDS) -> Any:
    """``record`` (a progress record, or any JSON value) without its :data:`TIMING_FIELDS`, at every depth: what two
    ``--deterministic`` runs of one seed write alike."""
    if isinstance(record, dict):
        return {k: without_timing(v, timing) for k, v in record.items() if k not in timing}
    if isinstance(record, list):
        return [without_timing(v, timing) for v in record]
    return record


def check_run_dir_args(args) -> None:
    """``cardrl report`` and ``cardrl plot``'s check before they read anything: RUN_DIR is a run directory of
    ``cardrl train`` (a FileNotFoundError naming it otherwise) and ``--out``, the file to write, is not a directory."""
    run = Path(args.run_dir)
    if not run.is_dir():
        raise FileNotFoundError(f"{args.run_dir}: no such run directory" + (" (it is a file)" if run.exists() else ""))
    if not (run / PROGRESS).is_file():
        raise FileNotFoundError(f"{args.run_dir} has no {PROGRESS}: is it a run directory of `cardrl train`?")
    if args.out is not None and Path(args.out).is_dir():
        raise ValueError(f"--out {args.out} is a directory; give the file to write")


def read_progress(run_dir: str | Path, *, torn_last_line: bool = False) -> list[dict]:
    """The records of ``<run_dir>/progress.jsonl`` (one per training iteration, and one for the final evaluation).
    A last line without its newline that is not JSON (a writer killed mid-line) is left out. ``torn_last_line``:
    read a run that may be in progress or killed: a last line that is not JSON is left out even with its newline, and
    no record yet is an empty list instead of an error."""
    run = Path(run_dir)
    if not run.is_dir():
        raise FileNotFoundError(f"{run_dir}: no such run directory")
    path = run / PROGRESS
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir} has no {PROGRESS}: is it a run directory of `cardrl train`?")
    records = []
    text = path.read_text()
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                if n == len(lines) and (torn_last_line or not text.endswith("\n")):
                    break  # a write cut short (its newline never came), or a run that may be writing it now
                raise ValueError(f"{path}:{n} is not a JSON record ({err})") from None
    if not records and not torn_last_line:
        raise ValueError(f"{path} is empty: the run has not finished an iteration yet")
    return records


def read_config(run_dir: str | Path) -> dict[str, Any]:
    """``<run_dir>/config.json`` (the options a run was started with), or ``{}`` for a run that has none."""
    path = Path(run_dir) / CONFIG
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON ({err})") from None


def run_options(config: dict[str, Any]) -> dict[str, Any]:
    """A ``config.json``'s options as one flat mapping (game, algo, the run's options and the algorithm's): from its
    ``spec``, or from the ``args`` of a run written before the spec existed; ``{}`` when it has neither."""
    spec = config.get("spec")
    if isinstance(spec, dict):
        return {"game": spec.get("game"), "algo": spec.get("algo"), **(spec.get("settings") or {}),
                **(spec.get("run") or {})}
    return dict(config.get("args") or {})


def write_config(out: Path, record: dict[str, Any]) -> Path:
    """Write ``<out>/config.json`` whole or not at all (a temporary file renamed over it: a ``--resume`` reads it);
    :class:`OutOfSpaceError` when the disk is full."""
    path = out / CONFIG
    try:
        replace_text(path, json.dumps(record, indent=1, sort_keys=True) + "\n")
    except OSError as err:
        if is_out_of_space(err):
            raise OutOfSpaceError(err.errno, space_message(out, f"writing {path}", None, "it was not changed")) \
                from err
        raise
    return path


def trim_progress(out: Path, iteration: int) -> int:
    """Keep the records of ``<out>/progress.jsonl`` up to ``iteration`` (the resumed checkpoint's); the later ones
    (training lost with the driver) and a line cut short are moved to ``progress.discarded.jsonl``. Returns how many
    were moved."""
    path = out / PROGRESS
    if not path.is_file():
        return 0
    kept, dropped = [], []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            dropped.append(line)
            continue
        (kept if (record.get("iteration") or 0) <= iteration else dropped).append(line)
    if dropped:
        fd = os.open(out / DISCARDED, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            append_line(fd, "".join(line + "\n" for line in dropped))
            replace_text(path, "".join(line + "\n" for line in kept))
        except OSError as err:
            if is_out_of_space(err):
                raise OutOfSpaceError(err.errno, space_message(out, f"setting records aside in {DISCARDED}", None,
                                                               f"{PROGRESS} was not changed")) from err
            raise
        finally:
            os.close(fd)
    return len(dropped)


def save_checkpoint(algo: Any, out: Path) -> Path:
    """Write ``<out>/checkpoint`` atomically with ``algo.save_to_path``: into ``checkpoint.tmp`` (its completion
    marker last), then swapped in by renames, the previous one kept as ``checkpoint.prev`` until the new one is in
    place. A crash at any moment leaves a complete checkpoint under ``checkpoint`` or ``checkpoint.prev``
    (:func:`latest_checkpoint`). A write that runs out of space is removed and raises :class:`OutOfSpaceError`: the
    last complete checkpoint stays as it was. The checkpoint is recorded as produced on this machine
    (:mod:`cardrl.checkpoint_trust`: loading it gives no warning)."""
    final, tmp, prev = out / CHECKPOINT, out / CHECKPOINT_TMP, out / CHECKPOINT_PREV
    if tmp.exists():  # left by a write that was cut short
        shutil.rmtree(tmp)
    try:
        algo.save_to_path(str(tmp))
    except Exception as err:
        if not is_out_of_space(err):
            raise
        raise _checkpoint_out_of_space(out, tmp) from err
    record_as_produced(tmp, final)
    if final.exists():
        if prev.exists():
            shutil.rmtree(prev)
        os.replace(final, prev)
    os.replace(tmp, final)
    if prev.exists():
        shutil.rmtree(prev)
    return final


def record_as_produced(checkpoint: Path, final: Path | str) -> None:
    """Record ``checkpoint`` (to be renamed or copied to ``final``: ``cardrl train``'s checkpoint, a Tune trial's) as
    produced here; a record that can not be written (a read-only home, a full disk) is said, and the run goes on:
    loading the checkpoint will warn."""
    from cardrl.checkpoint_trust import record_produced

    try:
        record_produced(checkpoint, final)
    except OSError as err:
        print(f"note: {final} could not be recorded as produced on this machine ({err}); loading it will warn that "
              f"it may run code", flush=True)


def _checkpoint_out_of_space(out: Path, tmp: Path) -> OutOfSpaceError:
    """The error of a checkpoint write that ran out of space, after removing what it wrote (which frees that space):
    a checkpoint needs about the size of the last complete one, else more than what was written before the disk
    filled."""
    written = directory_bytes(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    last = latest_checkpoint(out)
    doing = f"writing the checkpoint {tmp}" + ("" if last else f" (a checkpoint takes more than the {_mb(written)} "
                                                                f"written before the disk filled)")
    return OutOfSpaceError(errno.ENOSPC, space_message(out, doing, directory_bytes(last) or None,
                                                       f"the partial write ({_mb(written)}) was removed"))


def latest_checkpoint(out: Path, verify: Callable[[Path], Any] | None = None) -> Path | None:
    """The newest complete checkpoint of a run directory: ``checkpoint``, else ``checkpoint.prev`` (a crash during
    the swap of :func:`save_checkpoint`); ``checkpoint.tmp`` is never used (its write may have been cut short).
    ``verify(path)`` raises ValueError for an incomplete one, which is skipped, saying why; None when there is
    none."""
    for name in (CHECKPOINT, CHECKPOINT_PREV):
        path = out / name
        if not path.is_dir():
            continue
        try:
            if verify is not None:
                verify(path)
        except ValueError as err:
            print(f"--resume: skipping {path}: {err}", flush=True)
            continue
        return path
    return None


def _tensorboard(out: Path):
    """A TensorBoard writer in ``<out>/tb`` (``tensorboard --logdir <out>/tb``), or None without tensorboardX."""
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / TENSORBOARD))


def _scalars(value: Any, tag: str):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _scalars(inner, f"{tag}/{key}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield tag, value


def log_scalars(writer, record: dict, step: int, prefix: str) -> None:
    """Every number of a progress record at ``step`` (frames trained): top-level ones as ``<prefix>/<key>``, nested
    ones by their path (``losses/<module>``, ``opponent_model/<module>/<metric>``), evaluations as
    ``eval_vs_<baseline>/<key>``. ``writer`` None (no tensorboardX): nothing."""
    if writer is None:
        return
    for key, value in record.items():
        if key in _NOT_SCALARS:
            continue
        if key == "eval":
            tags = ((t, v) for spec, ev in value.items() for t, v in _scalars(ev, f"eval_vs_{spec}"))
        elif isinstance(value, dict):
            tags = _scalars(value, key)
        else:
            tags = _scalars(value, f"{prefix}/{key}")
        for tag, number in tags:
            writer.add_scalar(tag, number, step)
    writer.flush()


class ProgressLog:
    """Appends records to ``<out>/progress.jsonl``, each a whole line in one write (:func:`append_line`), and their
    numbers to TensorBoard, each at its ``frames_trained``; ``prefix`` names the top-level scalars (the algorithm). A
    full disk raises :class:`OutOfSpaceError` with the file holding whole records only."""

    def __init__(self, out: Path, prefix: str):
        self._out = out
        self._fd = os.open(out / PROGRESS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._writer = _tensorboard(out)
        self._prefix = prefix

    def write(self, record: dict) -> None:
        line = json.dumps(record, default=float) + "\n"
        try:
            log_scalars(self._writer, record, int(record.get("frames_trained") or 0), self._prefix)
            append_line(self._fd, line)
        except OSError as err:
            if not is_out_of_space(err):
                raise
            raise OutOfSpaceError(errno.ENOSPC, space_message(
                self._out, f"appending a record to {PROGRESS}", len(line),
                f"the record of iteration {record.get('iteration')} was not written ({PROGRESS} holds whole records "
                f"only)")) from err

    def close(self) -> None:
        os.close(self._fd)
        if self._writer is not None:
            try:
                self._writer.close()
            except OSError as err:  # its last events could not be flushed to a full disk: the records hold them
                if not is_out_of_space(err):
                    raise
