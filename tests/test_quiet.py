"""The console script keeps Ray's and RLlib's known-harmless startup lines off stderr, and only those."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from cardrl.quiet import HARMLESS_LINES, is_harmless


def test_filter_drops_exactly_the_harmless_lines_written_to_fd_2():
    """Lines written straight to file descriptor 2 (as Ray's C++ core worker does) and through sys.stderr alike."""
    script = textwrap.dedent("""
        import os, sys
        from cardrl.quiet import filter_stderr, HARMLESS_LINES
        restore = filter_stderr()
        os.write(2, b"[E core_worker.cc] Actor X " + HARMLESS_LINES[0].encode() + b". restart will fail\\n")
        os.write(2, b"keep: a real error\\n")
        print("WARNING " + HARMLESS_LINES[2], file=sys.stderr)
        print("Traceback (most recent call last):", file=sys.stderr)
        sys.stderr.write("no newline at the end")
        restore()
        print("after restore: " + HARMLESS_LINES[3], file=sys.stderr)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    # the unfinished last line is forwarded when fd 2 is restored; after that nothing is filtered
    assert lines == ["keep: a real error", "Traceback (most recent call last):",
                     "no newline at the endafter restore: " + HARMLESS_LINES[3]], run.stderr


def test_is_harmless_matches_each_listed_line_and_nothing_else():
    for pattern in HARMLESS_LINES:
        assert is_harmless(f"2026-11-24 WARNING x.py:1 -- {pattern} (details)")
    assert not is_harmless("ValueError: checkpoint does not match this DMC config")
    assert not is_harmless("Traceback (most recent call last):")


@pytest.mark.slow  # two cardrl train processes with Rays of their own: 1.5 minutes of the default suite's 15
@pytest.mark.timeout(600)
def test_cardrl_train_prints_no_harmless_line_and_verbose_shows_them(tmp_path, no_local_ray):
    exe = shutil.which("cardrl")
    if exe is None:
        pytest.skip("the cardrl console script is not installed")
    cmd = [exe, "train", "doudizhu", "--stop-frames", "400", "--num-env-runners", "1", "--num-envs-per-env-runner",
           "4", "--frames-per-update", "200", "--hidden-sizes", "16", "--eval-every", "0s", "--eval-deals", "2"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    quiet = subprocess.run([*cmd, "--out", str(tmp_path / "quiet")], capture_output=True, text=True, timeout=540,
                           env=env)
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert "checkpoint written" in quiet.stdout
    assert not any(is_harmless(line) for line in quiet.stderr.splitlines()), quiet.stderr
    assert "Traceback" not in quiet.stderr and " E " not in quiet.stderr and "ERROR" not in quiet.stderr, quiet.stderr
    verbose = subprocess.run([*cmd, "--out", str(tmp_path / "verbose"), "--verbose"], capture_output=True, text=True,
                             timeout=540, env=env)
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert any(is_harmless(line) for line in verbose.stderr.splitlines()), verbose.stderr
