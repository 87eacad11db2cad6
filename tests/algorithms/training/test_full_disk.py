"""A full disk (docs/operations.md, "A full disk"), on a real small tmpfs mounted for the test (root only; skipped
elsewhere, saying why): a checkpoint write that runs out of space half-way leaves the last complete checkpoint as it
was, loadable, and says how much space a checkpoint needs; ``cardrl train`` then stops with exit status 1 and that
message; progress records and game records are whole lines and whole files, and a torn last line (a writer killed
mid-line) does not break ``cardrl plot`` or ``cardrl report``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import partial
from pathlib import Path

import pytest

from cardrl.checkpoint_trust import produced_here
from cardrl.run_dir import PROGRESS, OutOfSpaceError, ProgressLog, directory_bytes, read_progress, save_checkpoint
from cardrl.whole_lines import append_line
from helpers.dmc_configs import small_dmc_config

small_config = partial(small_dmc_config, q_model="mlp", hidden_sizes=(32, 32))
TRAIN = ["train", "doudizhu", "--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--frames-per-update", "128",
         "--hidden-sizes", "32", "32", "--model", "mlp", "--eval-every", "0", "--eval-deals", "2", "--seed", "5"]


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs mounted at ``tmp_path/disk``, unmounted after the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a tmpfs can not be mounted here (it takes root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` until ``leave`` bytes are free (``disk/filler``)."""
    with (disk / "filler").open("ab") as f:
        f.write(b"\1" * max(shutil.disk_usage(disk).free - leave, 0))


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def test_a_checkpoint_write_out_of_space_keeps_the_last_complete_one(ray_local, small_disk):
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_agent
    from cardrl.algorithms.dmc.checkpointing import MANIFEST, verify_checkpoint

    out = small_disk / "run"
    out.mkdir()
    algo = small_config().build_algo()
    try:
        algo.train()
        first = save_checkpoint(algo, out)
        assert produced_here(first)  # recorded as this machine's: it loads without the warning
        saved_frames, marker = algo.frames_trained, (first / MANIFEST).read_bytes()
        size = directory_bytes(first)
        algo.train()
        fill(small_disk, leave=size // 2)  # room for half a checkpoint: the write fails half-way
        with pytest.raises(OutOfSpaceError) as caught:
            save_checkpoint(algo, out)
        said = str(caught.value)
        assert said.startswith(f"no space left on the device of {out} while writing the checkpoint "
                               f"{out / 'checkpoint.tmp'}"), said
        assert f"it needs about {_mb(size)}" in said and f"the last complete checkpoint, {first}, is intact" in said
        assert "the partial write" in said and "continue the run with --resume" in said
        assert not (out / "checkpoint.tmp").exists() and not (out / "checkpoint.prev").exists()
        assert (first / MANIFEST).read_bytes() == marker
        verify_checkpoint(first)  # every file as written, digests included
        fresh = small_config().build_algo()
        try:
            fresh.restore_from_path(str(first))
            assert fresh.frames_trained == saved_frames
        finally:
            fresh.stop()
        assert load_checkpoint_agent(str(first), "doudizhu", {}, None) is not None
        (small_disk / "filler").unlink()  # space again: the next write goes through
        save_checkpoint(algo, out)
        assert json.loads((first / MANIFEST).read_text())["info"]["frames_trained"] == algo.frames_trained
    finally:
        algo.stop()


@pytest.mark.slow  # two short runs: about 20 s beside Ray's start
def test_cardrl_train_stops_on_a_full_disk_saying_what_it_needs(ray_local, small_disk, capsys):
    """A run, then its ``--resume`` on a disk with room for half a checkpoint: the resumed run trains, its final
    checkpoint fails, and it stops with exit status 1; the first run's checkpoint loads, the records read strictly
    and plot and report draw them."""
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_agent
    from cardrl.algorithms.dmc.checkpointing import verify_checkpoint
    from cardrl.cli import main
    from cardrl.eval.plot import plot_run
    from cardrl.eval.report import write_report

    out = small_disk / "run"
    assert main([*TRAIN, "--stop-frames", "300", "--out", str(out)]) == 0
    size = directory_bytes(out / "checkpoint")
    records = read_progress(out)
    fill(small_disk, leave=size // 2)
    capsys.readouterr()
    assert main([*TRAIN, "--stop-frames", "900", "--out", str(out), "--resume"]) == 1
    [said] = [line for line in capsys.readouterr().err.splitlines() if line.startswith("cardrl train: stopped:")]
    assert said.startswith(f"cardrl train: stopped: no space left on the device of {out}") and \
        f"it needs about {_mb(size)}" in said and f"{out / 'checkpoint'}, is intact" in said, said
    verify_checkpoint(out / "checkpoint")
    assert load_checkpoint_agent(str(out / "checkpoint"), "doudizhu", {}, None) is not None
    resumed = read_progress(out)  # strict: whole lines only
    assert resumed[:len(records)] == records and resumed[-1]["frames_trained"] >= 900
    (small_disk / "filler").unlink()
    assert plot_run(out).is_file() and write_report(out).is_file()


def test_progress_records_stay_whole_lines_on_a_full_disk(small_disk):
    out = small_disk / "run"
    out.mkdir()
    log = ProgressLog(out, "dmc")
    try:
        log.write({"iteration": 1, "frames_trained": 100})
        fill(small_disk, leave=0)
        with pytest.raises(OutOfSpaceError, match=r"while appending a record to progress.jsonl .*: the record of "
                                                  r"iteration 2 was not written"):
            log.write({"iteration": 2, "frames_trained": 200, "notes": "x" * 20_000})
    finally:
        log.close()
    assert read_progress(out) == [{"iteration": 1, "frames_trained": 100}]
    assert (out / PROGRESS).read_text().endswith("\n")


def test_a_line_cut_short_by_the_disk_is_taken_back(small_disk):
    """A write that the disk cuts part-way (the page the file ends in has room, the next does not): the bytes it
    wrote are taken back."""
    path = small_disk / "lines.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        append_line(fd, '{"n": 1}\n')
        fill(small_disk, leave=0)
        with pytest.raises(OSError, match="No space left on device"):
            append_line(fd, json.dumps({"n": 2, "pad": "x" * 50_000}) + "\n")
    finally:
        os.close(fd)
    assert path.read_text() == '{"n": 1}\n'


def test_a_game_record_out_of_space_leaves_no_file(small_disk):
    from cardrl.eval.recording import save_games
    from cardrl.games.registry import get_game

    folder = small_disk / "records"
    kept = save_games("rule", "random", "big2", get_game("big2").full_options(), [5], folder)
    fill(small_disk, leave=0)
    with pytest.raises(OSError, match="No space left on device"):
        save_games("rule", "random", "big2", get_game("big2").full_options(), [6, 7], folder / "more")
    assert sorted(p for p in folder.rglob("*") if p.is_file()) == sorted(kept)  # no half record, no .tmp file
    assert "more" not in {p.parent.name for p in folder.rglob("*.json")}


def test_plot_and_report_skip_a_torn_last_line(tmp_path):
    """A writer killed mid-line leaves a last line without its newline: readers leave it out; a whole line that is not
    JSON is still refused."""
    from cardrl.cli import main

    records = [{"time_s": 1.0, "iteration": 1, "frames_trained": 100, "losses": {"landlord": 0.5}},
               {"time_s": 2.0, "iteration": 2, "frames_trained": 200, "losses": {"landlord": 0.4}}]
    text = "".join(json.dumps(r) + "\n" for r in records)
    (tmp_path / PROGRESS).write_text(text + '{"time_s": 3.0, "iteration": 3, "fra')
    assert read_progress(tmp_path) == records
    assert main(["plot", str(tmp_path)]) == 0 and main(["report", str(tmp_path)]) == 0
    (tmp_path / PROGRESS).write_text(text + '{"time_s": 3.0, "iteration": 3, "fra\n')
    with pytest.raises(ValueError, match=f"{PROGRESS}:3 is not a JSON record"):
        read_progress(tmp_path)
