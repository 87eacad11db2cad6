"""What the experiments' scripts write: the command that ran and a report as ``NAME.md`` beside its
data as ``NAME.json`` (with the command and the date) in an output directory."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


__all__ = ["command_line", "write_report"]


def command_line(module: str, argv: Sequence[str] | None) -> str:
    """``python -m MODULE ARGS``: the command as typed (``argv`` None: this process's own arguments)."""
    return f"python -m {module} " + " ".join(argv if argv is not None else sys.argv[1:])


def write_report(out: str | Path | None, name: str, text: str, data: dict[str, Any]) -> None:
    """Print ``text``; with ``out``, write it to ``out/NAME.md`` and ``data`` to ``out/NAME.json``."""
    print(text)
    if out:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.md").write_text(text)
        (folder / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
