"""What every benchmark shares: warmed-up timing loops, random play, the machine description and number formatting.

Timing rules, the same in every benchmark of :mod:`cardrl.bench`:

* every timed function runs untimed first (``warmup``): numba compiles its kernels, caches fill and tables are built
  (a GuanDan level's move table, :mod:`cardrl.games.guandan.table`, takes seconds the first time) outside the clock;
* rates and per-call costs are per CPU-second of the benchmark process (``time.process_time``), or of its thread
  for single calls (``time.thread_time_ns``, less the clock's own cost), so that other load on a shared machine does
  not skew them; on an idle machine they equal wall time;
* a measurement runs for a given number of wall-clock seconds, at least one game or one pass over its inputs.

Every benchmark prints :func:`machine_description` at the top of its output, so a figure never travels without the
machine it was measured on.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["RATE_NOTE", "rate_loop", "us_per_call", "call_times_us", "timer_overhead_ns", "random_game_play",
           "random_env_play", "machine_description", "package_version", "check_seconds", "ratio",
           "format_number", "format_ratio", "header_lines", "table_row"]

RATE_NOTE = "(rates per CPU-second of the benchmark process: equal to wall time on an idle machine)"


# ---- timing ------------------------------------------------------------------------------------------------------
def rate_loop(play_one: Callable[[int], int], seconds: float, warmup: int = 1) -> dict[str, float]:
    """Run ``play_one(game_index) -> steps`` for ``seconds`` of wall time (at least one game) after ``warmup``
    untimed games (indices ``0 .. warmup - 1``; the timed games start again at 0).

    Returns ``games``, ``steps``, ``seconds`` (CPU), ``wall_seconds``, ``games_per_s`` and ``steps_per_s``, the
    rates per CPU-second of this process (module docstring).
    """
    for i in range(warmup):
        play_one(i)
    games = steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        steps += play_one(games)
        games += 1
        wall = time.perf_counter() - wall0
        if wall >= seconds:
            break
    cpu = max(time.process_time() - cpu0, 1e-9)
    return {"games": games, "steps": steps, "seconds": cpu, "wall_seconds": wall,
            "games_per_s": games / cpu, "steps_per_s": steps / cpu}


def us_per_call(call: Callable[[Any], Any], inputs: Sequence[Any], seconds: float, warmup: bool = True) -> float:
    """Mean CPU microseconds of ``call(x)`` cycling over ``inputs`` for ``seconds`` of wall time (one pass at
    least), after one untimed pass over ``inputs`` when ``warmup``."""
    if not len(inputs):
        raise ValueError("us_per_call needs at least one input")
    if warmup:
        for x in inputs:
            call(x)
    calls = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        for x in inputs:
            call(x)
        calls += len(inputs)
        if time.perf_counter() - wall0 >= seconds:
            break
    return 1e6 * max(time.process_time() - cpu0, 1e-9) / calls


_TIMER_OVERHEAD_NS: list[int] = []


def timer_overhead_ns() -> int:
    """The median cost of an empty ``time.thread_time_ns()`` pair on this machine (measured once per process)."""
    if not _TIMER_OVERHEAD_NS:
        clock = time.thread_time_ns
        pairs = []
        for _ in range(2000):
            t0 = clock()
            pairs.append(clock() - t0)
        _TIMER_OVERHEAD_NS.append(int(np.median(pairs)))
    return _TIMER_OVERHEAD_NS[0]


def call_times_us(call: Callable[[Any], Any], inputs: Sequence[Any], seconds: float | None = None,
                  warmup: bool | int = True, before: Callable[[], Any] | None = None) -> np.ndarray:
    """CPU microseconds of every single ``call(x)`` (``time.thread_time_ns`` around the call, less
    :func:`timer_overhead_ns`), cycling over ``inputs`` for ``seconds`` of wall time (``None``: exactly one pass).

    ``before()``, when given, runs untimed before every call (e.g. clearing a memo). ``warmup``: one untimed pass over
    the inputs first (``True``), none (``False``), or that many untimed calls on the first inputs (an int).
    """
    if not len(inputs):
        raise ValueError("call_times_us needs at least one input")
    n_warm = len(inputs) if warmup is True else int(warmup)
    for x in inputs[:n_warm]:
        if before is not None:
            before()
        call(x)
    overhead = timer_overhead_ns()
    clock = time.thread_time_ns
    times: list[int] = []
    wall0 = time.perf_counter()
    while True:
        for x in inputs:
            if before is not None:
                before()
            t0 = clock()
            call(x)
            times.append(clock() - t0)
        if seconds is None or time.perf_counter() - wall0 >= seconds:
            break
    return np.maximum(np.asarray(times, dtype=np.float64) - overhead, 0.0) / 1e3


# ---- random play ----------------------------------------------------------------------------------------------
def random_game_play(game, encode: Callable | None = None, seed: int = 0) -> Callable[[int], int]:
    """``play(i) -> steps``: one game of uniformly random legal action ids on an engine (reset with seed ``i``),
    encoding the mover's features first when ``encode(game, seat)`` is given."""
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        game.reset(i)
        steps = 0
        while not game.is_over:
            if encode is not None:
                encode(game, game.current_player)
            legal = game.legal_moves()
            game.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return play


def random_env_play(env, seed: int = 0) -> Callable[[int], int]:
    """``play(i) -> steps``: one game of uniformly random legal moves through a PettingZoo AEC env of ours (reset
    with seed ``i``), the legal moves read from the observation's action mask as an agent would."""
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        env.reset(seed=i)
        steps = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                # a 0/1 int8 mask read as bool: numpy's nonzero is ~10x slower on int8
                legal = np.flatnonzero(obs["action_mask"].view(bool))
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        return steps

    return play


# ---- the machine ------------------------------------------------------------------------------------------------
def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def package_version(package: str) -> str:
    """The installed version of a distribution, read without importing it ("" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return ""


def machine_description() -> str:
    """CPU model, cores, Python, numpy and torch versions, e.g. ``"Intel(R) Xeon(R) ..., 2 cores, Python 3.11.7,
    numpy 1.26.4, torch 2.3.0"`` (torch's version is read without importing it)."""
    torch = package_version("torch") or "not installed"
    return (f"{_cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
            f"torch {torch}")


def header_lines(title: str, machine: str, load: float | None = None, *notes: str) -> list[str]:
    """The first lines of every benchmark's output: the title, ``machine: ...`` (with the load average before the
    run when known), then ``notes``."""
    load_text = "" if load is None else f"; load average {load:.2f} before the run"
    return [title, f"machine: {machine}{load_text}", *notes]


# ---- numbers ---------------------------------------------------------------------------------------------------
def check_seconds(seconds: float) -> float:
    """``seconds`` as a float, or ValueError unless it is > 0."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"seconds must be > 0 (time spent per measurement), got {seconds!r}")
    return float(seconds)


def ratio(num: float | None, den: float | None) -> float | None:
    """``num / den``, or ``None`` when either is missing or ``den <= 0``."""
    if num is None or den is None or den <= 0:
        return None
    return num / den


def format_number(x: float | None, fmt: str = "{:,.0f}") -> str:
    """``fmt.format(x)``, or ``"-"`` for a missing value."""
    return "-" if x is None else fmt.format(x)


def format_ratio(x: float | None) -> str:
    """A ratio as ``"7.2x"`` (``"0.43x"`` below 1, so that a peer faster than us still shows two digits), ``"n/a"``
    when missing."""
    if x is None:
        return "n/a"
    return f"{x:.1f}x" if x >= 1 else f"{x:.2f}x"


def table_row(label: str, cells: Sequence[str], label_width: int, cell_width: int) -> str:
    """``label`` left-aligned in ``label_width`` columns, then each cell right-aligned in ``cell_width``."""
    return f"{label:<{label_width}}" + "".join(f"{c:>{cell_width}}" for c in cells)
