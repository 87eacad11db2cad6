"""Appending whole lines to a file that others read while it grows (a run's ``progress.jsonl``, the record of the
checkpoints this machine produced): each line in one write, and a write that fails part-way (a full disk) taken back,
so that a reader finds whole lines only, or at worst a last line cut by a process killed mid-write."""

from __future__ import annotations

import os

__all__ = ["append_line"]


def append_line(fd: int, line: str) -> None:
    """Append ``line`` (ending in a newline) to the file open at ``fd`` with ``O_APPEND``. When a write fails part-way
    (a full disk), the file is cut back to where it ended before, so that it holds whole lines only, and the OSError
    is raised."""
    data = memoryview(line.encode())
    end = os.lseek(fd, 0, os.SEEK_END)
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        os.ftruncate(fd, end)
        raise
