"""``cardrl bench table``: the README's benchmark table, every figure read from a kept, committed result file.

Each row of :data:`ROWS` names its result file (relative to the repository root) and computes its cells from it, so
that a figure cannot go stale silently: ``cardrl bench table --write`` rewrites the table between the README's
markers, and a test (tests/bench/test_readme_table.py) fails when the README's table differs from the one the files
give. Learning rows read ``cardrl bench learning``'s ``results.json`` (runs as the unit); speed rows the json that
``cardrl bench env|train --json-out`` writes; the GPU row its record's text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardrl.bench.learning_report import LOADED, label_machines

__all__ = ["Row", "ROWS", "BEGIN", "END", "render_table", "readme_table", "write_readme_table", "main_bench_table"]

BEGIN = "<!-- benchmark table: written by `cardrl bench table --write` from the files each row names -->"
END = "<!-- end of the benchmark table -->"


@dataclass(frozen=True)
class Row:
    """One row: ``what`` it measures, the ``source`` file it reads, and ``cells`` (the file's content ->
    the cardrl cell, the peers' or baseline's cell, where and when)."""

    what: str
    source: str
    cells: Callable[[Any], tuple[str, str, str]]


def _load(root: Path, source: str) -> Any:
    path = root / source
    if not path.is_file():
        raise FileNotFoundError(f"{source}: the result file of a README benchmark row is missing")
    return json.loads(path.read_text()) if path.suffix == ".json" else path.read_text()


def _machine(text: str) -> str:
    """The CPU's maker and family, as the table says where it was measured: "AMD EPYC", "Intel Xeon" ("Intel Xeon
    (loaded)" for runs that trained beside other work, "(partly loaded)" for runs with loaded and idle segments)."""
    marked = [machine.endswith(LOADED) for machine in label_machines(text)]
    loaded = LOADED if all(marked) else (" (partly loaded)" if any(marked) else "")
    for name in ("AMD EPYC", "Intel(R) Xeon(R)", "Apple"):
        if name in text:
            return name.replace("(R)", "") + loaded
    return text.split(",")[0] + loaded


def _frames(n: float | None) -> str:
    if n is None:
        return "-"
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k"


def _mean(point: dict) -> str:
    return f"{point['mean']:+.2f} [{point['low']:+.2f}, {point['high']:+.2f}]"


# ---- speed rows: cardrl bench env|train --json-out ------------------------------------------------------------------
_PEERS = {"douzero": "DouZero", "rlcard": "RLCard", "open_spiel": "OpenSpiel (C++)"}


def _ratio(r: float) -> str:
    return f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


def _where(record: dict) -> str:
    """The machine, its load average before the benchmark (the last minute's, so a run just ended still shows)."""
    start = (record.get("load_average") or {}).get("start")
    load = f"load {start[0]:.1f} before" if start else "load not recorded"
    return f"{_machine(record['machine'])}, {record['cpus']} cores, {load}, {record['date'][:10]}"


def _env_steps(record: dict) -> tuple[str, str, str]:
    """Random play through the PettingZoo env, DouZero's features: steps/s, each peer's and the ratio."""
    f = record["figures"]
    ours = f["steps_per_s"]["env"]
    peers = [f"{_PEERS.get(name, name)} {p['env_steps_per_s']:,.0f} ({_ratio(ours / p['env_steps_per_s'])})"
             for name, p in f["peers"].items() if p.get("env_steps_per_s")]
    return f"{ours:,.0f} steps/s", ", ".join(peers), _where(record)


def _lead_moves(size: int) -> Callable[[dict], tuple[str, str, str]]:
    """Legal moves of a ``size``-card lead: us per call, each peer's and the ratio."""
    def cells(record: dict) -> tuple[str, str, str]:
        f = record["figures"]
        ours = f["movegen_us"][str(size)]
        peers = [f"{_PEERS.get(name, name)} {p['movegen_us'][str(size)]:,.1f} us "
                 f"({_ratio(p['movegen_us'][str(size)] / ours)})"
                 for name, p in f["peers"].items() if (p.get("movegen_us") or {}).get(str(size))]
        return f"{ours:.1f} us", ", ".join(peers), _where(record)
    return cells


def _train_rate(record: dict) -> tuple[str, str, str]:
    """DMC frames/s against DouZero's trainer, one run after the other on this machine."""
    f = record["figures"]
    ours, theirs = f["frames_per_s"]["ours"], f["frames_per_s"]["douzero"]
    peer = f"DouZero's trainer {theirs:,.0f} frames/s ({_ratio(ours / theirs)})" if theirs else "DouZero's trainer: -"
    return f"{ours:,.0f} frames/s", peer, _where(record)


def _gpu_record(text: str) -> tuple[str, str, str]:
    """The H200 record's ``cardrl train doudizhu --gpu --num-env-runners 14`` row: frames/s of the run."""
    match = re.search(r"^\| 14 \| [\d,]+ in [\d.]+ s \| ([\d,]+) \|", text, re.M)
    if not match:
        raise ValueError("the GPU record has no row for 14 runners")
    return f"{match.group(1)} frames/s (one run)", "", "one H200 with 16 CPUs, 2026-11-26"


# ---- learning rows: cardrl bench learning's results.json -------------------------------------------------------------
def _last(figures: dict, variant: str, baseline: str) -> dict:
    return figures["variants"][variant]["by_frames"][baseline][-1]


def _state(figures: dict, variant: str) -> str:
    """The machines the variant's runs trained on, and the report's date."""
    machines = sorted({_machine(s["machine"] or "unrecorded") for s in figures["variants"][variant]["seeds"].values()})
    return f"{' and '.join(machines)}; report of"


def _versus(variant: str, reference: str, baseline: str, label: str) -> Callable[[dict], tuple[str, str, str]]:
    """A variant against ``baseline`` at the budget, mean over runs, beside the reference's and the comparison."""
    def cells(figures: dict) -> tuple[str, str, str]:
        point, ref = _last(figures, variant, baseline), _last(figures, reference, baseline)
        comparison = figures["comparisons"][variant][baseline]["by_frames"][-1]
        verdict = comparison["verdict"]
        if min(comparison["runs"]) < 5 and verdict in ("ahead", "behind"):
            verdict += " (fewer than 5 runs a side)"
        return (f"{_mean(point)} at {_frames(point['frames'])} ({point['runs']} runs)",
                f"{label}: {_mean(ref)} ({ref['runs']} runs); {verdict}, P(better) {comparison['probability']:.2f} "
                f"[{comparison['probability_low']:.2f}, {comparison['probability_high']:.2f}]",
                f"{_state(figures, variant)} {figures['date']}")
    return cells


def _first_above(variant: str, baseline: str) -> Callable[[dict], tuple[str, str, str]]:
    """Each run's first evaluation above 0 against ``baseline``: the median over runs in frames and, per machine,
    in minutes."""
    def cells(figures: dict) -> tuple[str, str, str]:
        t = figures["variants"][variant]["to_threshold"][baseline]
        f = t["frames"]
        minutes = "; ".join(f"{m['median']:.1f} min on {_machine(machine)}" for machine, m in t["minutes"].items()
                            if m["median"] is not None)
        within = _frames(figures["frames"])
        return (f"median {_frames(f['median'])} frames ({f['reached']} of {f['runs']} runs within {within})"
                + (f", {minutes}" if minutes else ""), "", f"{_state(figures, variant)} {figures['date']}")
    return cells


PAPERS = "docs/learning/doudizhu_papers/results.json"
DMC_4M = "docs/learning/doudizhu_dmc_4m/results.json"

ENV = "docs/measurements/bench_env_doudizhu.json"
TRAIN = "docs/measurements/bench_train_doudizhu.json"
GPU = "docs/measurements/gpu_h200_2026-11-26.md"

ROWS: tuple[Row, ...] = (
    Row("random play through the env, DouZero's features", ENV, _env_steps),
    Row("legal moves of a 20-card lead", ENV, _lead_moves(20)),
    Row("DMC training (`cardrl bench train`, 120 s windows)", TRAIN, _train_rate),
    Row("DMC training, `--gpu --num-env-runners 14`", GPU, _gpu_record),
    Row("OMODMC (Luo & Tan, one shared network) against RLCard's rule agent", PAPERS,
        _versus("omodmc", "dmc", "rlcard", "DouZero's DMC")),
    Row("ODMC (pruning) against RLCard's rule agent", PAPERS, _versus("odmc", "dmc", "rlcard", "DouZero's DMC")),
    Row("OADMCDou against RLCard's rule agent", PAPERS, _versus("oadmcdou", "dmc", "rlcard", "DouZero's DMC")),
    Row("Luo & Tan's features and shared network alone (`unified`) against RLCard's rule agent", PAPERS,
        _versus("unified", "dmc", "rlcard", "DouZero's DMC")),
    Row("OMODMC: first beats RLCard's rule agent", PAPERS, _first_above("omodmc", "rlcard")),
    Row("`unified_fast` (`unified`, bfloat16 runners, queued requests): first beats RLCard's rule agent", PAPERS,
        _first_above("unified_fast", "rlcard")),
    Row("DouZero's DMC: first beats RLCard's rule agent", DMC_4M, _first_above("dmc", "rlcard")),
    Row("OMODMC against cardrl's rule agent", PAPERS, _versus("omodmc", "dmc", "rule", "DouZero's DMC")),
)


def render_table(root: Path, rows: tuple[Row, ...] = ROWS) -> str:
    """The table's markdown, every cell computed from the rows' files under ``root``."""
    lines = ["| what | cardrl | baseline or peers | machine, date |", "|---|---|---|---|"]
    for row in rows:
        cells = row.cells(_load(root, row.source))
        lines.append(f"| {row.what} | {cells[0]} | {cells[1]} | {cells[2]} ([file]({row.source})) |")
    return "\n".join(lines)


_SECTION = re.compile(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), re.S)


def readme_table(readme_text: str) -> str:
    """The table between the README's markers (ValueError where they are missing)."""
    match = _SECTION.search(readme_text)
    if not match:
        raise ValueError(f"the README has no benchmark table between the markers {BEGIN!r} and {END!r}")
    return match.group(1).rstrip("\n")


def write_readme_table(readme: Path, root: Path | None = None) -> bool:
    """Rewrite the README's table from the files; True where it changed."""
    text = readme.read_text()
    if readme_table(text) == (new := render_table(root or readme.parent)):
        return False
    readme.write_text(_SECTION.sub(lambda _: f"{BEGIN}\n{new}\n{END}", text, count=1))
    return True


def main_bench_table(readme: str, write: bool) -> int:
    """``cardrl bench table [--write] [--readme README.md]``: print the README's table the files give, and check
    the learning tables of the docs beside it (docs/*.md: :mod:`cardrl.bench.doc_tables`); with ``--write``, put
    them all in place. Exit 1 without ``--write`` when one differs from its files."""
    from cardrl.bench.doc_tables import stale_doc_blocks, write_doc_blocks

    path = Path(readme)
    root = path.parent
    table = render_table(root)
    print(table, flush=True)
    pages = sorted((root / "docs").glob("*.md"))
    if write:
        changed = write_readme_table(path)
        print(f"{path}: {'table rewritten' if changed else 'table already current'}", flush=True)
        for page in pages:
            if write_doc_blocks(page, root):
                print(f"{page}: tables rewritten", flush=True)
        return 0
    stale = [line for page in pages for line in stale_doc_blocks(page, root)]
    if readme_table(path.read_text()) != table:
        stale.insert(0, f"{path}: its table differs from the one above")
    for line in stale:
        print(f"{line} (cardrl bench table --write rewrites it)", flush=True)
    return 1 if stale else 0
