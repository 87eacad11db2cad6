"""Which checkpoints load without a warning (docs/operations.md, "Security").

An RLlib checkpoint is a pickle: loading one runs whatever code it names. cardrl loads one without a word when this
machine produced it: every checkpoint ``cardrl train`` writes, and every one a ``cardrl tune`` trial reports, is
recorded by the fingerprint of its files' contents (:func:`checkpoint_fingerprint`: the path and SHA-256 of each
file) in a record of this machine's,
``produced_checkpoints.jsonl`` in the state directory (:func:`state_dir`: ``$CARDRL_STATE_DIR``, else
``$XDG_STATE_HOME/cardrl``, else ``~/.local/state/cardrl``). Any other checkpoint (downloaded, copied from another
machine, or changed since it was written) gets an :class:`UntrustedCheckpointWarning` before it is loaded, unless the
user trusts it: ``--trust-checkpoint`` on the command (:func:`trusting`), or ``CARDRL_TRUST_CHECKPOINTS=1`` in the
environment, the config entry for a machine or a cluster whose checkpoints are all one's own. Exported agents
(``weights:DIR``, ``onnx:DIR``) and DouZero's torch files are data: their loaders never warn.

No Ray or torch is imported here.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping, MutableMapping

from cardrl.whole_lines import append_line
from cardrl.atomic_file import replace_text

__all__ = ["TRUST_ENV", "STATE_ENV", "RECORD", "UntrustedCheckpointWarning", "state_dir", "trusts_every_checkpoint",
           "checkpoint_fingerprint", "record_produced", "produced_here", "untrusted_text", "warn_if_untrusted",
           "trusting", "file_sha256"]

TRUST_ENV = "CARDRL_TRUST_CHECKPOINTS"  # "1": every checkpoint is trusted (the config entry)
STATE_ENV = "CARDRL_STATE_DIR"  # where this machine's record lives
RECORD = "produced_checkpoints.jsonl"
KEEP_RECORDED = 2000  # the newest fingerprints kept (a run writes one per --checkpoint-every)
MAX_FILES = 10_000  # a directory of more files is no checkpoint cardrl wrote: not fingerprinted, not trusted


class UntrustedCheckpointWarning(UserWarning):
    """A checkpoint (a pickle) about to be loaded that this machine did not produce: loading it runs its code."""


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The directory of this machine's record: ``$CARDRL_STATE_DIR``, else ``$XDG_STATE_HOME/cardrl``, else
    ``~/.local/state/cardrl``."""
    environ = os.environ if environ is None else environ
    if environ.get(STATE_ENV):
        return Path(environ[STATE_ENV]).expanduser()
    base = environ.get("XDG_STATE_HOME") or str(Path("~/.local/state").expanduser())
    return Path(base) / "cardrl"


def trusts_every_checkpoint(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment trusts every checkpoint (``CARDRL_TRUST_CHECKPOINTS`` is 1, true or yes)."""
    environ = os.environ if environ is None else environ
    return environ.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes")


def file_sha256(file: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with file.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checkpoint_fingerprint(path: Path) -> str | None:
    """The SHA-256 of a checkpoint's contents: each file's path under ``path`` and the SHA-256 of its bytes, in
    order (a file: its bytes). The same wherever the checkpoint is copied; another for any changed, added or removed
    file. None for what is no checkpoint (missing, or a directory of more than 10,000 files)."""
    if path.is_file():
        return file_sha256(path)
    if not path.is_dir():
        return None
    files = []
    for file in path.rglob("*"):
        if file.is_file():
            files.append(file)
            if len(files) > MAX_FILES:
                return None
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(f"{file.relative_to(path).as_posix()}\0{file_sha256(file)}\n".encode())
    return digest.hexdigest()


def _recorded(record: Path) -> list[str]:
    """The lines of the record that are whole JSON (a line cut short by a killed writer is left out)."""
    if not record.is_file():
        return []
    lines = []
    for line in record.read_text().splitlines():
        try:
            if isinstance(json.loads(line), dict):
                lines.append(line)
        except ValueError:
            continue
    return lines


def record_produced(path: Path, where: Path | None = None, environ: Mapping[str, str] | None = None) -> str:
    """Record the checkpoint at ``path`` (``where``: the path it will have, for a person reading the record) as
    produced on this machine; returns its fingerprint. Each record is one whole line; past twice
    :data:`KEEP_RECORDED` lines the record keeps the newest. OSError when the record can not be written."""
    fingerprint = checkpoint_fingerprint(path)
    if fingerprint is None:
        raise ValueError(f"{path} is not a checkpoint directory to record")
    record = state_dir(environ) / RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"sha256": fingerprint, "path": str(where or path), "time": round(time.time())}) + "\n"
    fd = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        append_line(fd, line)
    finally:
        os.close(fd)
    lines = _recorded(record)
    if len(lines) > 2 * KEEP_RECORDED:
        replace_text(record, "".join(kept + "\n" for kept in lines[-KEEP_RECORDED:]))
    return fingerprint


def produced_here(path: Path, environ: Mapping[str, str] | None = None) -> bool:
    """Whether this machine's record holds the fingerprint of the checkpoint at ``path`` (as it is now)."""
    lines = _recorded(state_dir(environ) / RECORD)
    if not lines:
        return False
    fingerprint = checkpoint_fingerprint(path)
    return fingerprint is not None and any(json.loads(line).get("sha256") == fingerprint for line in lines)


def untrusted_text(path: Path, what: str) -> str:
    """The warning for loading the checkpoint at ``path`` (``what``: how it was named, e.g. its agent spec)."""
    return (f"{what}: {path} is an RLlib checkpoint (a pickle) that this machine did not produce, or that changed "
            f"since: loading it runs any code it carries. Load only checkpoints from people you trust; an agent to "
            f"share or to take from others is `cardrl export`'s weights:DIR or onnx:DIR, which are data. "
            f"--trust-checkpoint (or {TRUST_ENV}=1) silences this (docs/operations.md, \"Security\")")


def warn_if_untrusted(path: str | Path, what: str, environ: Mapping[str, str] | None = None) -> bool:
    """Warn (:class:`UntrustedCheckpointWarning`) before the checkpoint at ``path`` is loaded, unless it is trusted:
    by the environment (:func:`trusts_every_checkpoint`) or as produced here (:func:`produced_here`). Nothing for a
    path that does not exist (its loader says so). Returns whether it warned."""
    path = Path(path)
    if not path.exists() or trusts_every_checkpoint(environ) or produced_here(path, environ):
        return False
    warnings.warn(UntrustedCheckpointWarning(untrusted_text(path, what)), stacklevel=2)
    return True


@contextmanager
def trusting(enabled: bool, environ: MutableMapping[str, str] | None = None) -> Iterator[None]:
    """``CARDRL_TRUST_CHECKPOINTS=1`` while a command given ``--trust-checkpoint`` runs (the Ray workers it starts
    inherit it); the environment as it was afterwards. Nothing when not ``enabled``."""
    environ = os.environ if environ is None else environ
    if not enabled:
        yield
        return
    before = environ.get(TRUST_ENV)
    environ[TRUST_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            environ.pop(TRUST_ENV, None)
        else:
            environ[TRUST_ENV] = before
