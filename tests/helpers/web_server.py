"""The web tests' servers: ``cardrl serve`` as a subprocess on a free loopback port (the real command line), or the
app on uvicorn in a thread of the test process (for agents the test registers), and what they serve."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from helpers.ports import free_port  # noqa: F401  (the web tests take it from here)
from helpers.tiny_checkpoint import save_doudizhu_bidding_checkpoint, save_doudizhu_checkpoint


BIG_SEED = 2**62 + 2**53 + 167  # a deal seed above 2**53: a JavaScript number would round it


def wait_ready(url: str, proc: subprocess.Popen | None = None, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"cardrl serve exited with {proc.returncode}: {proc.stderr.read()}")
        try:
            if requests.get(url + "/api/info", timeout=2).ok:
                return
        except requests.ConnectionError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout_s} s")


def make_served_data(root: Path) -> dict[str, Path]:
    """Game records of all three games (a DouDiZhu checkpoint with values, a two-deal GuanDan match, the whole game
    of DouDiZhu with a learned bidder in seat 0), a run directory whose checkpoint is the tiny one, and a league
    table."""
    from cardrl.cli import main
    from cardrl.eval.recording import save_games
    from cardrl.games.registry import get_game

    ckpt = save_doudizhu_checkpoint(root / "ckpt")
    records = root / "records"
    save_games(f"checkpoint:{ckpt}", "rule", "doudizhu", get_game("doudizhu").full_options(), [3], records)
    save_games("rule", "random", "big2", get_game("big2").full_options(), [5], records)
    bidder = save_doudizhu_bidding_checkpoint(root / "bidding_ckpt")
    bidding = get_game("doudizhu").full_options({"bidding": True})
    save_games(f"checkpoint:{bidder}", "rule", "doudizhu", bidding, [3], records / "bidding")
    save_games("rule", "random", "guandan", get_game("guandan").full_options({"max_deals": 2, "tribute_decisions": True}), [7], records)
    save_games(f"checkpoint:{ckpt}", "rule", "doudizhu", get_game("doudizhu").full_options(), [BIG_SEED],
               records / "big_seed")
    run = root / "run_dmc"
    run.mkdir()
    shutil.copytree(ckpt, run / "checkpoint")
    (run / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _progress()))
    (run / "config.json").write_text(json.dumps({"game": "doudizhu", "title": "DouDiZhu", "algo": "dmc",
                                                 "agent_kind": "checkpoint"}))
    assert main(["eval", "big2", "--league", "rule", "random", "--deals", "2", "--workers", "0",
                 "--out", str(root / "league")]) == 0
    return {"ckpt": ckpt, "bidding_ckpt": bidder, "records": records, "run": run, "league": root / "league.csv"}


def _progress() -> list[dict]:
    """A short run's progress records: four evaluations against random and the rule agent, the last one final."""
    records = []
    for i in range(1, 5):
        record = {"time_s": 30.0 * i, "iteration": i, "frames_trained": 600 * i, "frames_per_s": 20.0,
                  "losses": {"landlord": 0.4 / i}}
        evals = {"random": {"adp": 0.3 * i, "adp_low": 0.3 * i - 0.5, "adp_high": 0.3 * i + 0.5},
                 "rule": {"adp": -1.2 + 0.2 * i, "adp_low": -1.7 + 0.2 * i, "adp_high": -0.7 + 0.2 * i}}
        records.append({**record, "eval": evals, "reached_adp_above_0": {}, **({"final": True} if i == 4 else {})})
    return records


def start_cli_server(paths: list[str], agents: list[str], port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "cardrl.cli", "serve", *paths, "--port", str(port), "--agent-timeout", "20"]
    for spec in agents:
        cmd += ["--agent", spec]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


class ThreadServer:
    """The app on uvicorn in a daemon thread of this process (``stop()`` ends it)."""

    def __init__(self, app, port: int):
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{port}"

    def start(self) -> "ThreadServer":
        self.thread.start()
        wait_ready(self.url)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
