"""The README's benchmark table against its result files (cardrl.bench.readme_table): a figure that differs from the
file its row names fails here, so none can go stale silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cardrl.bench.readme_table import BEGIN, END, ROWS, main_bench_table, readme_table, render_table

ROOT = Path(__file__).resolve().parents[2]


def test_every_figure_of_the_readme_table_is_the_one_its_result_file_gives():
    assert readme_table((ROOT / "README.md").read_text()) == render_table(ROOT), (
        "README.md's benchmark table differs from its result files: `cardrl bench table --write` rewrites it")


def test_every_row_names_a_committed_file():
    for row in ROWS:
        assert (ROOT / row.source).is_file(), row.source


def test_a_changed_figure_in_a_result_file_is_caught(tmp_path, capsys):
    for source in {row.source for row in ROWS}:
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / source, tmp_path / source)
    shutil.copyfile(ROOT / "README.md", tmp_path / "README.md")
    assert main_bench_table(str(tmp_path / "README.md"), write=False) == 0
    source = next(row.source for row in ROWS if row.source.endswith("results.json"))
    figures = json.loads((tmp_path / source).read_text())
    point = next(iter(figures["variants"].values()))["by_frames"]["rlcard"][-1]
    point["mean"] += 0.5
    (tmp_path / source).write_text(json.dumps(figures))
    assert main_bench_table(str(tmp_path / "README.md"), write=False) == 1
    assert "differs" in capsys.readouterr().out
    assert main_bench_table(str(tmp_path / "README.md"), write=True) == 0
    assert main_bench_table(str(tmp_path / "README.md"), write=False) == 0


def test_a_readme_without_the_markers_is_refused():
    with pytest.raises(ValueError, match="no benchmark table between the markers"):
        readme_table("# a README\n")
    assert readme_table(f"x\n{BEGIN}\n| a |\n{END}\ny") == "| a |"


@pytest.mark.parametrize("label, shown", [
    ("AMD EPYC, 2 cores, Python 3.11.7", "AMD EPYC"),
    ("Intel(R) Xeon(R) Processor, 2 cores (loaded)", "Intel Xeon (loaded)"),
    ("mixed: AMD EPYC, 2 cores (loaded); AMD EPYC, 2 cores", "AMD EPYC (partly loaded)"),
    ("mixed: Intel(R) Xeon(R) Processor, 2 cores; Intel(R) Xeon(R) Processor, 2 cores (loaded)",
     "Intel Xeon (partly loaded)"),
    ("mixed: AMD EPYC, 2 cores (loaded); AMD EPYC, 2 cores (loaded)", "AMD EPYC (loaded)"),
])
def test_a_run_with_loaded_segments_says_so_in_the_table(label, shown):
    from cardrl.bench.readme_table import _machine

    assert _machine(label) == shown
