"""Write a text file whole or not at all: a reader (a ``--resume``, a report, another process) never sees half of it.

The text goes to a temporary file beside the target (named for this process, so two writers never share one), which
is then renamed over the target; a write that fails (a full disk, say) removes the temporary file and raises, leaving
the target as it was.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["replace_text"]


def replace_text(path: str | Path, text: str, *, fsync: bool = False) -> Path:
    """Replace ``path``'s contents with ``text`` atomically; ``fsync=True`` also flushes it to the disk before the
    rename (a file that must survive a power loss, e.g. a checkpoint's manifest). Returns the path."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w") as f:
            f.write(text)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
