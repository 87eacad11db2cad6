"""The learning tables of docs/*.md against their result files (cardrl.bench.doc_tables): a figure that differs from
the results.json its block names fails here, and `cardrl bench table --write` rewrites it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cardrl.bench.doc_tables import doc_blocks, render_block, stale_doc_blocks, write_doc_blocks

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))


def test_every_learning_table_of_the_docs_is_the_one_its_result_file_gives():
    blocks = [(page, match) for page in PAGES for match, _ in doc_blocks(page.read_text(), ROOT)]
    assert blocks, "docs/learning.md's DouDiZhu tables are generated blocks"
    stale = [line for page in PAGES for line in stale_doc_blocks(page, ROOT)]
    assert not stale, f"stale tables (cardrl bench table --write rewrites them): {stale}"


def test_a_changed_figure_is_caught_and_rewritten(tmp_path):
    page = ROOT / "docs" / "learning.md"
    match, _ = doc_blocks(page.read_text(), ROOT)[0]
    source = match.group(2)
    (tmp_path / source).parent.mkdir(parents=True)
    shutil.copyfile(ROOT / source, tmp_path / source)
    copy = tmp_path / "learning.md"
    copy.write_text(page.read_text())
    assert stale_doc_blocks(copy, tmp_path) == []
    figures = json.loads((tmp_path / source).read_text())
    first = next(iter(figures["variants"].values()))
    first["by_frames"]["rlcard"][-1]["mean"] += 0.5
    (tmp_path / source).write_text(json.dumps(figures))
    assert stale_doc_blocks(copy, tmp_path)
    assert write_doc_blocks(copy, tmp_path) and stale_doc_blocks(copy, tmp_path) == []
    assert not write_doc_blocks(copy, tmp_path)  # already current


def test_a_table_by_hand_on_synthetic_figures():
    point = {"frames": 100_000, "mean": 0.5, "low": 0.25, "high": 0.75}
    figures = {"frames": 100_000, "reference": "a",
               "variants": {"a": {"seeds": {"0": {"done": True}, "1": {"done": True}},
                                  "by_frames": {"x": [point]},
                                  "to_threshold": {"x": {"frames": {"median": 100_000, "reached": 2, "runs": 2}}}}},
               "comparisons": {"b": {"x": {"by_frames": [{"frames": 100_000, "verdict": "not apart", "probability": 0.5,
                                                          "probability_low": 0.1, "probability_high": 0.9,
                                                          "difference": -0.1, "difference_low": -0.3,
                                                          "difference_high": 0.2, "welch_p": 0.4, "runs": [5, 5],
                                                          "runs_needed": 1234}]}}}}
    assert render_block("learning table", figures, [("x", 100_000)]).splitlines()[2] == \
        "| `a` | 2 | +0.50 [+0.25, +0.75] | median 100k (2 of 2) |"
    assert render_block("comparison table", figures, [("x", 100_000)]).splitlines()[2] == \
        ("| `b` | not apart: P 0.50 [0.10, 0.90], diff -0.10 [-0.30, +0.20], Welch p 0.40; 1,234 runs each to decide |")
    with pytest.raises(ValueError, match="unknown table 'pie'"):
        render_block("pie", figures, [])


def test_a_block_whose_file_is_missing_is_refused(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- learning table: nowhere/results.json x@1 -->\n<!-- end of learning table -->\n")
    with pytest.raises(FileNotFoundError, match="nowhere/results.json: the result file of a learning table"):
        stale_doc_blocks(page, tmp_path)
