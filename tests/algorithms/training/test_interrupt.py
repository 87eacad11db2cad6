"""Ctrl-C (or ``cardrl bench learning``'s ``--hours`` deadline, which sends SIGINT) and SIGTERM (a scheduler's, or
``kill``'s) stop ``cardrl train`` with a line that says where to resume from, the shell's exit status for the signal
and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from cardrl import run_dir as files


def _as_a_terminal_would() -> None:
    """SIGINT handled as in a command typed at a terminal, whatever this test process inherited (a test run started
    in the background has it ignored, and so would the child)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow  # a whole cardrl train process with a Ray of its own: about a minute each
@pytest.mark.timeout(600)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_cardrl_train_with_its_checkpoint_named_and_no_traceback(signum, tmp_path, no_local_ray):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "cardrl.cli", "train", "doudizhu", "--stop-frames", "100000000",
           "--num-envs-per-env-runner", "4", "--frames-per-update", "200", "--hidden-sizes", "16", "--eval-every",
           "0s", "--checkpoint-every", "1s", "--out", str(out)]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1"}, preexec_fn=_as_a_terminal_would)
    began = time.time()
    try:
        for line in child.stdout:  # wait for a checkpoint, as a user would before pressing Ctrl-C
            if line.startswith("checkpoint written") or time.time() - began > 400:
                break
        os.killpg(child.pid, signum)  # what a terminal's Ctrl-C does: the whole foreground group
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert child.returncode == 128 + signum, stderr[-3000:]
    checkpoint = files.latest_checkpoint(out)
    assert checkpoint is not None
    assert f"cardrl train: interrupted; its latest complete checkpoint is {checkpoint}" in stderr, stderr[-3000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr and "logging.cc" not in stderr, stderr[-3000:]
