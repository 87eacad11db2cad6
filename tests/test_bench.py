"""The environment benchmark: output structure, cross-checked lead counts, summary lines (no speed assertions)."""

from __future__ import annotations

import re
import sys

import pytest

from cardrl import bench

SUMMARY = re.compile(r"^vs (douzero|rlcard|open_spiel): \d+\.\dx steps/s, \d+\.\dx movegen$")
RATE_KEYS = {"games", "steps", "seconds", "games_per_s", "steps_per_s"}


@pytest.fixture(scope="module")
def result():
    return bench.bench_env_doudizhu(seconds=0.02, peers=True)


def test_ours_is_measured(result):
    ours = result["ours"]
    for part in ("engine", "features", "env"):
        assert RATE_KEYS <= set(ours[part]), part
        assert ours[part]["games"] >= 1 and ours[part]["steps"] > ours[part]["games"]
    assert set(ours["movegen_us"]) == set(bench.LEAD_SIZES)
    assert all(us > 0 for us in ours["movegen_us"].values())


def test_peers_are_measured_on_the_same_hands(result):
    installed = [p for p in bench.PEERS if "skipped" not in result["peers"][p]]
    for name in installed:
        peer = result["peers"][name]
        assert RATE_KEYS <= set(peer["env"]), name
        assert 20 in peer["movegen_us"]
    # RLCard enumerates DouZero's move list, as ours does: the same number of leads on the same hands. DouZero's
    # generator also makes a few moves outside that list (both jokers as kickers): never fewer leads.
    ours = result["ours"]["lead_moves"]
    if "rlcard" in installed:
        assert result["peers"]["rlcard"]["lead_moves"] == ours
    if "douzero" in installed:
        douzero = result["peers"]["douzero"]["lead_moves"]
        assert all(ours[n] <= douzero[n] <= ours[n] + 0.1 for n in bench.LEAD_SIZES), (douzero, ours)
    if "open_spiel" in installed:  # OpenSpiel has no bomb-with-kickers moves: never more leads than ours
        assert result["peers"]["open_spiel"]["lead_moves"][20] <= result["ours"]["lead_moves"][20]


def test_summary_lines_and_table(result):
    installed = [p for p in bench.PEERS if "skipped" not in result["peers"][p]]
    assert [line.split(":")[0] for line in result["summary"]] == [f"vs {p}" for p in installed]
    for line in result["summary"]:
        assert SUMMARY.match(line), line
    text = bench.format_bench_env(result)
    lines = text.splitlines()
    if installed:
        assert lines[-len(installed):] == result["summary"]
    assert "cardrl PettingZoo env" in text and "cardrl MoveTable.legal_moves" in text
    for name in installed:
        ratio = result["ratios"][name]
        assert ratio["steps"] == pytest.approx(
            result["ours"]["env"]["steps_per_s"] / result["peers"][name]["env"]["steps_per_s"])
        assert ratio["movegen"] == pytest.approx(
            result["peers"][name]["movegen_us"][20] / result["ours"]["movegen_us"][20])


def test_lead_hands_are_reproducible_and_sized():
    a, b = bench.lead_hands(17, 5), bench.lead_hands(17, 5)
    assert all((x == y).all() for x, y in zip(a, b))
    assert all(int(h.sum()) == 17 and h[:13].max() <= 4 and h[13:].max() <= 1 for h in a)
    with pytest.raises(ValueError, match="1..20 cards"):
        bench.lead_hands(21)


def test_no_peers_cli_entry_point(capsys):
    assert bench.main_bench_env(["doudizhu", "--seconds", "0.01", "--no-peers"]) == 0
    out = capsys.readouterr().out
    assert "cardrl engine, no features" in out and "vs " not in out
    with pytest.raises(ValueError, match="seconds must be > 0"):
        bench.bench_env_doudizhu(seconds=0)


def test_missing_env_and_missing_peer_are_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "cardrl.envs.doudizhu_v0", None)  # makes the import fail
    env = bench._ours_env(0.01)
    assert "skipped" in env
    monkeypatch.setitem(sys.modules, "cardrl.features.douzero", None)
    assert "skipped" in bench._ours_engine(0.01, features=True)
    assert bench._ours_engine(0.01, features=False)["steps"] > 0
    monkeypatch.setitem(bench._PEER_MODULES, "douzero", "no_such_module_cardrl_test")
    assert "skipped" in bench._run_peer("douzero", 0.01, {})
    text = bench.format_bench_env({"seconds": 0.01, "machine": "m", "ours": {
        "engine": {"games_per_s": 1.0, "steps_per_s": 60.0}, "features": {"games_per_s": 1.0, "steps_per_s": 50.0},
        "env": env, "movegen_us": {n: 1.0 for n in bench.LEAD_SIZES}, "lead_moves": {n: 1.0 for n in bench.LEAD_SIZES}},
        "peers": {}, "ratios": {}, "summary": []})
    assert "skipped" in text


def test_bench_mcs_reports_calls_and_pruning_cost(capsys):
    from cardrl.bench_mcs import bench_mcs, main_bench_mcs

    r = bench_mcs("doudizhu", deals=30, prune_games=5)
    assert set(r["calls"]) == {"20 cards (landlord)", "17 cards (peasant)"}
    for c in r["calls"].values():
        assert c["cold_us"] > 0 and c["warm_us"] > 0 and 1 <= c["mean_k"] <= 20
    assert r["prune_steps"] > 0 and 0 <= r["pruned_share"] < 1
    assert main_bench_mcs(["doudizhu", "--deals", "10"]) == 0
    assert "us/call cold" in capsys.readouterr().out
    with pytest.raises(ValueError, match="available: doudizhu, big2, guandan"):
        bench_mcs("chess", deals=1)


def test_bench_mcs_guandan(capsys):
    from cardrl.bench_mcs import bench_mcs, format_bench_mcs

    r = bench_mcs("guandan", deals=8, prune_games=10)
    assert set(r["calls"]) == {"27 cards"}
    c = r["calls"]["27 cards"]
    assert c["cold_us"] > 0 and c["warm_us"] > 0 and 1 <= c["mean_k"] <= 27
    assert r["prune_steps"] > 0 and 0 <= r["pruned_share"] < 1
    assert "cardrl bench mcs guandan" in format_bench_mcs(r)
