"""The tables of docs/*.md read from kept result files: ``cardrl bench learning``'s ``results.json`` and ``cardrl bench
limits``'s ``--json-out`` record.

A table is a block between two markers; the opening one names what to draw::

    <!-- learning table: docs/learning/doudizhu_papers/results.json rlcard@1000000 rlcard@2000000 rule@2000000 -->
    ...
    <!-- end of learning table -->

``learning table`` draws one row per variant: its runs and, per ``BASELINE@FRAMES``, the mean over runs with its
bootstrap interval, then each run's first evaluation above 0 against the first baseline named. ``comparison table``
(same arguments) draws one row per variant against the benchmark's reference: the verdict, the probability of
improvement and the difference of means with their intervals, Welch's p and, where not apart, the runs each that
would decide it. ``limits table`` (no columns) draws one row per variant and role of a ``cardrl bench limits``
record, then each variant's two-core rates. ``cardrl bench table --write`` rewrites every block from its file; a test
(tests/bench/test_doc_tables.py) fails when a block differs from what its file gives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "render_block", "doc_blocks", "write_doc_blocks", "stale_doc_blocks"]

KINDS = ("learning table", "comparison table", "limits table")
_BLOCK = re.compile(r"<!-- (learning table|comparison table|limits table): (\S+)((?: \S+@\d+)*) -->\n(.*?)"
                    r"<!-- end of \1 -->", re.S)


def _frames(n: float | None) -> str:
    if n is None:
        return "-"
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k"


def _point(points: list[dict], frames: int) -> dict | None:
    return next((p for p in points if p["frames"] == frames), None)


def _mean(point: dict | None) -> str:
    if point is None:
        return "-"
    return f"{point['mean']:+.2f} [{point['low']:+.2f}, {point['high']:+.2f}]"


def _first(to_threshold: dict, within: int) -> str:
    f = to_threshold["frames"]
    median = f"median {_frames(f['median'])}" if f["median"] is not None else f"median not within {_frames(within)}"
    return f"{median} ({f['reached']} of {f['runs']})"


def _columns(columns: list[tuple[str, int]]) -> list[str]:
    return [f"vs {baseline} at {_frames(frames)}" for baseline, frames in columns]


def _learning_table(figures: dict[str, Any], columns: list[tuple[str, int]]) -> list[str]:
    first = columns[0][0]
    lines = ["| variant | runs | " + " | ".join(_columns(columns)) + f" | first > 0 vs {first} (runs) |",
             "|---|---|" + "---|" * (len(columns) + 1)]
    for name, variant in figures["variants"].items():
        cells = [_mean(_point(variant["by_frames"].get(b, []), f)) for b, f in columns]
        runs = len([s for s in variant["seeds"].values() if s.get("done")])
        lines.append(f"| `{name}` | {runs} | " + " | ".join(cells) + " | "
                     + _first(variant["to_threshold"][first], figures["frames"]) + " |")
    return lines


def _comparison(point: dict | None) -> str:
    if point is None:
        return "-"
    verdict = point["verdict"]
    if min(point["runs"]) < 5 and verdict in ("ahead", "behind"):
        verdict += " (fewer than 5 runs a side)"
    text = (f"{verdict}: P {point['probability']:.2f} [{point['probability_low']:.2f}, "
            f"{point['probability_high']:.2f}], diff {point['difference']:+.2f} [{point['difference_low']:+.2f}, "
            f"{point['difference_high']:+.2f}], Welch p {point['welch_p']:.2f}")
    if point["verdict"] == "not apart" and point.get("runs_needed") is not None:
        text += f"; {point['runs_needed']:,} runs each to decide"
    return text


def _comparison_table(figures: dict[str, Any], columns: list[tuple[str, int]]) -> list[str]:
    reference = figures["reference"]
    lines = [f"| against `{reference}` | " + " | ".join(_columns(columns)) + " |", "|---|" + "---|" * len(columns)]
    for name, by_baseline in figures["comparisons"].items():
        cells = [_comparison(_point(by_baseline[b]["by_frames"], f)) if b in by_baseline else "-"
                 for b, f in columns]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return lines


def _limits_table(record: dict[str, Any]) -> list[str]:
    lines = ["| variant | role | MFLOP per frame (products + LSTM) | frames per CPU-s | GFLOP/s | core's peak, "
             "products / LSTM (GFLOP/s) | limit (frames per CPU-s) | share of the limit |",
             "|---|---|---|---|---|---|---|---|"]
    for name, rows in record["figures"].items():
        for role in ("runner", "learner"):
            r = rows[role]
            lines.append(f"| `{name}` | {role} | {r['matmul_flops_per_frame'] / 1e6:.2f} + "
                         f"{r['lstm_flops_per_frame'] / 1e6:.2f} | {r['frames_per_cpu_s']:,.0f} | "
                         f"{r['achieved_gflops']:.1f} | {r['matmul_gflops']:.0f} / {r.get('lstm_gflops', 0.0):.0f} | "
                         f"{r['limit_frames_per_cpu_s']:,.0f} | {r['share_of_limit']:.0%} |")
    lines += ["", "| variant | 2 cores, 1 env runner (frames/s) | 2 cores, 2 env runners | at the limit |",
              "|---|---|---|---|"]
    for name, rows in record["figures"].items():
        two = rows["two_cores"]
        lines.append(f"| `{name}` | {two['frames_1_runners']:,.0f} | {two['frames_2_runners']:,.0f} | "
                     f"{two['limit_frames_2_runners']:,.0f} |")
    return lines


def render_block(kind: str, figures: dict[str, Any], columns: list[tuple[str, int]]) -> str:
    """The markdown of one block of ``kind`` from its result file's content."""
    if kind not in KINDS:
        raise ValueError(f"unknown table {kind!r}; tables: {', '.join(KINDS)}")
    if kind == "limits table":
        return "\n".join(_limits_table(figures))
    lines = _learning_table(figures, columns) if kind == "learning table" else _comparison_table(figures, columns)
    return "\n".join(lines)


def _parse_columns(text: str) -> list[tuple[str, int]]:
    return [(word.partition("@")[0], int(word.partition("@")[2])) for word in text.split()]


def doc_blocks(text: str, root: Path) -> list[tuple[re.Match, str]]:
    """Each block of a page with the markdown its file gives now (FileNotFoundError naming a missing file)."""
    out = []
    for match in _BLOCK.finditer(text):
        source = root / match.group(2)
        if not source.is_file():
            raise FileNotFoundError(f"{match.group(2)}: the result file of a {match.group(1)} is missing")
        figures = json.loads(source.read_text())
        out.append((match, render_block(match.group(1), figures, _parse_columns(match.group(3)))))
    return out


def stale_doc_blocks(page: Path, root: Path) -> list[str]:
    """The blocks of ``page`` whose figures differ from their files', named by kind and file."""
    return [f"{page}: {m.group(1)} of {m.group(2)}" for m, new in doc_blocks(page.read_text(), root)
            if m.group(4).rstrip("\n") != new]


def write_doc_blocks(page: Path, root: Path) -> bool:
    """Rewrite every block of ``page`` from its file; True where one changed."""
    text = page.read_text()
    new_text = text
    for match, new in reversed(doc_blocks(text, root)):
        kind = match.group(1)
        block = f"<!-- {kind}: {match.group(2)}{match.group(3)} -->\n{new}\n<!-- end of {kind} -->"
        new_text = new_text[:match.start()] + block + new_text[match.end():]
    if new_text == text:
        return False
    page.write_text(new_text)
    return True
