"""cardrl/run_dir.py: reading a run's progress records, strictly (plot, report) or as a run in progress (the learning
benchmark reads runs that may have been killed mid-write)."""

import json

import pytest

from cardrl.run_dir import PROGRESS, read_progress


def _write(path, lines):
    path.mkdir(parents=True, exist_ok=True)
    (path / PROGRESS).write_text("\n".join(lines) + "\n")


def test_a_torn_last_line_is_refused_unless_the_run_may_be_in_progress(tmp_path):
    records = [{"iteration": 1, "frames_trained": 100}, {"iteration": 2, "frames_trained": 200}]
    _write(tmp_path, [json.dumps(r) for r in records] + ['{"iteration": 3, "frames_tr'])
    with pytest.raises(ValueError, match=rf"{PROGRESS}:3 is not a JSON record"):
        read_progress(tmp_path)
    assert read_progress(tmp_path, torn_last_line=True) == records


def test_a_torn_line_before_the_last_is_refused_either_way(tmp_path):
    _write(tmp_path, ['{"iteration": 1', json.dumps({"iteration": 2})])
    for torn_last_line in (False, True):
        with pytest.raises(ValueError, match=rf"{PROGRESS}:1 is not a JSON record"):
            read_progress(tmp_path, torn_last_line=torn_last_line)


def test_no_record_yet_is_an_error_for_a_finished_run_and_empty_for_one_in_progress(tmp_path):
    _write(tmp_path, ['{"iteration": 1, "fr'])
    with pytest.raises(ValueError):
        read_progress(tmp_path)
    assert read_progress(tmp_path, torn_last_line=True) == []
    with pytest.raises(FileNotFoundError, match="no such run directory"):
        read_progress(tmp_path / "missing", torn_last_line=True)
