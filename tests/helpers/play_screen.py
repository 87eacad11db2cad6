"""Test helper: reading ``cardrl play``'s screen (the numbered legal moves), for the terminal tests."""

from __future__ import annotations

import re


def listed_moves(screen: str) -> list[tuple[int, str]]:
    """The numbered legal moves of a screen: ``[(N, text)]``."""
    block = screen.split("Legal moves (", 1)[1]
    out = []
    for line in block.splitlines()[1:]:
        if not line.startswith("  #"):
            break
        out += [(int(i), t.strip()) for i, t in re.findall(r"#(\d+) (.*?)(?=\s+#\d+ |$)", line)]
    return out
