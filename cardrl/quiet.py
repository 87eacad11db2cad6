"""Known-harmless startup lines of Ray and RLlib, kept off the terminal of cardrl's command-line entry points.

Each line below is printed by Ray or RLlib (some by Ray's C++ core worker, straight to file descriptor 2, which no
Python logging filter reaches), on every run, about nothing the user can or should change. The console script routes
its own stderr through :func:`filter_stderr`, which forwards every other line unchanged (errors, tracebacks and
warnings that need action included). ``--verbose`` turns the filter off. Nothing is disabled: Ray's token
authentication, for one, stays on; only its notice is not repeated on every run.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Callable, Iterable

__all__ = ["HARMLESS_LINES", "is_harmless", "filter_stderr"]

HARMLESS_LINES: tuple[str, ...] = (
    # RLlib's EnvRunnerGroup hands each runner its config as an object-store reference and holds that reference for
    # its whole life, so a restarted runner finds it; Ray's core worker warns about such arguments in general.
    "has constructor arguments in the object store and max_restarts > 0",
    # RLlib builds an RLModuleConfig inside RLModule.__init__ itself (marked "TODO: deprecate" there); cardrl's
    # modules are built the new way, through RLModuleSpec.
    "`RLModule(config=[RLModuleConfig object])` has been deprecated",
    # cardrl's algorithms are written for RLlib's new API stack; RLlib announces that stack on every run.
    "on the new API stack! This is the new default behavior",
    # Ray Tune's utilisation monitor, without the optional gputil package; cardrl reports its own memory use.
    "Install gputil for GPU system monitoring",
    # The notice that Ray's token authentication is on (it stays on; the notice suggests turning it off).
    "Token authentication is enabled for this Ray cluster",
)


def is_harmless(line: str, patterns: Iterable[str] = HARMLESS_LINES) -> bool:
    """Whether ``line`` is one of the known-harmless lines."""
    return any(p in line for p in patterns)


def filter_stderr(patterns: Iterable[str] = HARMLESS_LINES) -> Callable[[], None]:
    """Route this process's file descriptor 2 through a pipe whose reader forwards every line except the harmless
    ones to the original stderr. Returns the function that restores fd 2 and forwards what is left (also run at
    exit)."""
    patterns = tuple(p.encode() for p in patterns)
    sys.stderr.flush()
    original = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)

    def forward(line: bytes) -> None:
        if not any(p in line for p in patterns):
            os.write(original, line)

    def pump() -> None:
        pending = b""
        while True:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                forward(line + b"\n")
        if pending:
            forward(pending)
        os.close(read_end)

    reader = threading.Thread(target=pump, name="cardrl-stderr-filter", daemon=True)
    reader.start()
    restored = False

    def restore() -> None:
        nonlocal restored
        if restored:
            return
        restored = True
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os.dup2(original, 2)  # drops this process's write end; child processes that share it may still hold one
        reader.join(timeout=2.0)

    atexit.register(restore)
    return restore
