"""``--json-out PATH`` of ``cardrl bench env`` and ``cardrl bench train``: the file holds every figure printed, the
command, the UTC date, the machine and the load averages. ``env`` runs for real with tiny settings; ``train``'s runs
are stand-ins (no Ray), as in test_bench_train.py."""

from __future__ import annotations

import argparse
import json
import math
import re

import numpy as np
import pytest

from cardrl.bench import json_out as jo
from cardrl.bench import train as bt
from cardrl.bench.cli import main_bench
from cardrl.bench.common import machine_description
from helpers.bench_train_results import ours_result

DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _common_keys(record: dict, benchmark: str) -> None:
    assert record["format"] == "cardrl-bench/1" and record["benchmark"] == benchmark
    assert DATE.match(record["date"]) and DATE.match(record["finished"]) and record["date"] <= record["finished"]
    assert record["machine"] == machine_description() and record["cpus"] >= 1 and record["wall_s"] >= 0
    start = record["load_average"]["start"]
    assert len(start) == 3 and len(record["load_average"]["end"]) == 3
    assert record["otherwise_idle"] == (start[0] < jo.IDLE_LOAD) and str(jo.IDLE_LOAD) in record["idle_rule"]


def test_env_writes_every_printed_figure(tmp_path, capsys):
    path = tmp_path / "sub" / "env.json"
    assert main_bench(["env", "doudizhu", "--seconds", "0.01", "--no-peers", "--hands", "3",
                       "--json-out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert printed.rstrip().endswith(f"json: {path}")
    record = json.loads(path.read_text())
    _common_keys(record, "env")
    assert record["output"] in printed
    assert record["command"].startswith("cardrl bench env doudizhu") and "--json-out" in record["command"]
    figures, ours = record["figures"], record["result"]["ours"]
    assert set(figures["steps_per_s"]) == {"engine", "features", "env"}
    assert figures["steps_per_s"]["env"] == ours["env"]["steps_per_s"] > 0
    assert set(figures["movegen_us"]) == {"20", "17", "10", "5"} and figures["encode_us"] > 0
    # the printed figures are the file's: the env's steps/s and each lead size's us/call
    assert f"{ours['env']['steps_per_s']:,.0f}" in record["output"]
    assert all(f"{us:,.1f}" in record["output"] for us in figures["movegen_us"].values())
    assert figures["peers"] == {} and figures["ratios"] == {}


def test_env_moves_writes_the_wild_card_table(tmp_path, capsys):
    path = tmp_path / "moves.json"
    assert main_bench(["env", "guandan", "--moves", "--seconds", "0.01", "--hands", "2", "--json-out", str(path)]) == 0
    record = json.loads(path.read_text())
    _common_keys(record, "env --moves")
    assert set(record["figures"]["wild"]["movegen_us"]) == {"0", "1", "2"}
    assert record["figures"]["movegen_us"]["27"] > 0


def _run(frames_per_s: float, options: dict) -> dict:
    return ours_result(frames_per_s, options)


DOUZERO = {"frames_per_s": 500.0, "setup_s": 20.0, "frames_trained": 30000, "updates": 9,
           "rate_method": "per position", "logged_fps_mean": 480.0, "logged_lines": 11, "version": "1.1.0",
           "settings": {"num_actors": 1, "actor_device": "cpu", "training_device": "cpu", "batch_size": 32,
                        "unroll_length": 100, "num_threads": 4}}


def test_train_writes_rates_ratios_and_the_variant(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bt, "bench_ours", lambda game, seconds, num_env_runners=1, options=None,
                        preset=None:
                        _run(1000.0, {}) if options is None else _run(800.0, dict(options)))
    monkeypatch.setattr(bt, "bench_douzero", lambda seconds, actors: dict(DOUZERO))
    monkeypatch.setattr(bt, "check_variant", lambda game, options: None)  # DMC's own check: test_bench_train.py
    path = tmp_path / "train.json"
    assert bt.main_bench_train(["doudizhu", "--seconds", "3", "--prune", "mcs", "--json-out", str(path)]) == 0
    printed = capsys.readouterr().out
    record = json.loads(path.read_text())
    _common_keys(record, "train")
    figures = record["figures"]
    assert figures["frames_per_s"] == {"ours": 1000.0, "ours_variant": 800.0, "douzero": 500.0}
    assert figures["ratio_vs_douzero"] == 2.0 and figures["variant_ratio"] == 0.8
    assert figures["variant"] == {"prune": "mcs"}
    assert figures["summary"] == ["vs douzero: 2.0x frames/s", "prune=mcs vs no pruning: 0.80x frames/s (pruning "
                                  "ratio 0.0%)"]
    assert record["output"] in printed and record["result"]["peers"]["douzero"]["logged_lines"] == 11
    # rebuilt from the parsed arguments (this process is pytest, not `cardrl bench train`)
    assert record["command"] == ("cardrl bench train doudizhu --douzero-actors 1 --json-out "
                                 f"{path} --num-env-runners 1 --prune mcs --seconds 3.0")


def test_train_without_douzero_has_nulls(tmp_path, monkeypatch):
    monkeypatch.setattr(bt, "bench_ours", lambda game, seconds, num_env_runners=1, options=None,
                        preset=None: _run(900.0, {}))
    path = tmp_path / "t.json"
    bt.main_bench_train(["big2", "--seconds", "1", "--json-out", str(path)])
    figures = json.loads(path.read_text())["figures"]
    assert figures["frames_per_s"] == {"ours": 900.0, "ours_variant": None, "douzero": None}
    assert figures["ratio_vs_douzero"] is None and figures["variant_ratio"] is None


def test_idle_rule_and_strict_json(tmp_path, monkeypatch):
    monkeypatch.setattr(jo, "load_averages", lambda: [0.2, 0.3, 0.4])
    assert jo.BenchClock().record("env", "c", {}, {}, "")["otherwise_idle"] is True
    monkeypatch.setattr(jo, "load_averages", lambda: [1.7, 1.0, 0.4])
    assert jo.BenchClock().record("env", "c", {}, {}, "")["otherwise_idle"] is False
    monkeypatch.setattr(jo, "load_averages", lambda: None)
    assert jo.BenchClock().record("env", "c", {}, {}, "")["otherwise_idle"] is None
    path = jo.write_json_out(tmp_path / "x.json", {"a": np.float64(1.5), "b": np.arange(3), 20: math.nan,
                                                   "c": (np.int64(2),)})
    assert json.loads(path.read_text()) == {"a": 1.5, "b": [0, 1, 2], "20": None, "c": [2]}
    with pytest.raises(ValueError, match="is a folder"):
        jo.prepare_json_out(tmp_path)


def test_command_is_rebuilt_from_a_namespace():
    args = argparse.Namespace(target="env", game="big2", seconds=0.5, no_peers=True, moves=False, hands=3,
                              json_out="a b.json")
    assert jo.bench_command("env", args) == ("cardrl bench env big2 --hands 3 --json-out 'a b.json' --no-peers "
                                             "--seconds 0.5")
