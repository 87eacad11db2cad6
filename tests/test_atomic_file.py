"""cardrl.atomic_file.replace_text: the whole text or the old file, never half of it and never a leftover."""
from __future__ import annotations

import pytest

from cardrl.atomic_file import replace_text


@pytest.mark.parametrize("fsync", [False, True])
def test_replaces_the_file_and_leaves_nothing_beside_it(tmp_path, fsync):
    target = tmp_path / "record.json"
    target.write_text("old\n")
    assert replace_text(target, '{"a": 1}\n', fsync=fsync) == target
    assert target.read_text() == '{"a": 1}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path):
    target = tmp_path / "record.json"
    target.write_text("old\n")
    with pytest.raises(TypeError):  # the write itself fails (bytes into a text file)
        replace_text(target, b"new")  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_a_failed_rename_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch):
    import cardrl.atomic_file as atomic_file

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    target = tmp_path / "record.json"
    target.write_text("old\n")
    monkeypatch.setattr(atomic_file.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        replace_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_a_missing_folder_is_an_error_that_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        replace_text(tmp_path / "absent" / "record.json", "x")
    assert not (tmp_path / "absent").exists()
