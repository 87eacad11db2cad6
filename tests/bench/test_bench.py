"""The benchmarks (cardrl.bench): output structure, cross-checked lead counts, ratios and summary lines, the machine
description on top, the CLI, and the package's shape (no import circle, no private cross-imports, no game-name
literals). No speed is asserted."""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from cardrl.bench import common
from cardrl.bench import env as benv
from cardrl.bench import mcs as bmcs
from cardrl.bench import peers_doudizhu, positions
from cardrl.bench.cli import main_bench
from cardrl.cli import build_parser, main
from cardrl.games.registry import game_names, get_game, register_game, unregister_game

PACKAGE = Path(benv.__file__).resolve().parent
SUMMARY = re.compile(r"^vs (douzero|rlcard|open_spiel): \d+\.\d{1,2}x steps/s, \d+\.\d{1,2}x movegen "
                     r"\(20-card leads\)$")
RATE_KEYS = {"games", "steps", "seconds", "games_per_s", "steps_per_s"}
DOUDIZHU_LEADS = (20, 17, 10, 5)


def _installed(result):
    return [p for p in get_game("doudizhu").peers if "skipped" not in result["peers"][p]]


def _assert_machine_on_top(text: str) -> None:
    second = text.splitlines()[1]
    assert second.startswith("machine: ") and " cores, Python " in second and "numpy " in second
    assert "torch " in second


@pytest.fixture(scope="module")
def result():
    return benv.bench_env("doudizhu", seconds=0.02, peers=True, hands=30)


# ---- cardrl bench env doudizhu ------------------------------------------------------------------------------------
def test_ours_is_measured(result):
    ours = result["ours"]
    for part in ("engine", "features", "env"):
        assert RATE_KEYS <= set(ours[part]), part
        assert ours[part]["games"] >= 1 and ours[part]["steps"] > ours[part]["games"]
    assert positions.lead_sizes("doudizhu") == DOUDIZHU_LEADS
    for key in ("movegen_us", "movegen_p99_us", "lead_moves", "lead_moves_max"):
        assert tuple(ours[key]) == DOUDIZHU_LEADS, key
    assert all(us > 0 for us in ours["movegen_us"].values())
    assert all(ours["lead_moves"][n] <= ours["lead_moves_max"][n] for n in DOUDIZHU_LEADS)
    assert ours["encode_us"] > 0


def test_peers_are_measured_on_the_same_hands(result):
    installed = _installed(result)
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
        assert all(ours[n] <= douzero[n] <= ours[n] + 0.1 for n in DOUDIZHU_LEADS), (douzero, ours)
    if "open_spiel" in installed:  # OpenSpiel has no bomb-with-kickers moves: never more leads than ours
        assert result["peers"]["open_spiel"]["lead_moves"][20] <= result["ours"]["lead_moves"][20]


def test_every_measured_peer_has_its_ratio_and_summary_line(result):
    installed = _installed(result)
    assert [line.split(":")[0] for line in result["summary"]] == [f"vs {p}" for p in installed]
    for line in result["summary"]:
        assert SUMMARY.match(line), line
    assert set(result["ratios"]) == set(installed)  # OpenSpiel included, whatever its ratio
    for name in installed:
        ratio, peer, ours = result["ratios"][name], result["peers"][name], result["ours"]
        assert ratio["steps"] == pytest.approx(ours["env"]["steps_per_s"] / peer["env"]["steps_per_s"])
        assert ratio["movegen"] == pytest.approx(peer["movegen_us"][20] / ours["movegen_us"][20])
        assert ratio["lead"] == 20
        if "game" in peer:
            assert ratio["bare"] == pytest.approx(ours["engine"]["steps_per_s"] / peer["game"]["steps_per_s"])


def test_table(result):
    text = benv.format_bench_env(result)
    lines = text.splitlines()
    assert lines[0].startswith("DouDiZhu env benchmark (cardrl bench env doudizhu)")
    _assert_machine_on_top(text)
    installed = _installed(result)
    if installed:
        assert lines[-len(installed):] == result["summary"]
    assert "cardrl doudizhu_v0 env (features + mask)" in text and "cardrl legal moves: mean" in text
    assert "douzero_v1 encode" in text and "p99" in text
    for name in installed:
        label = result["peers"][name]["labels"]["env"]
        row = next(line for line in lines if line.startswith(label))
        assert row.endswith(common.format_ratio(result["ratios"][name]["steps"])), row


def test_lead_hands_are_reproducible_and_sized():
    a = positions.lead_hands("doudizhu", (20, 17, 5), count=5)
    b = positions.lead_hands("doudizhu", (20, 17, 5), count=5)
    assert all((x == y).all() for n in a for x, y in zip(a[n], b[n]))
    for n, hands in a.items():
        assert len(hands) == 5
        for h in hands:
            counts = peers_doudizhu.rank_counts(h)
            assert int(h.sum()) == n and counts[:13].max() <= 4 and counts[13:].max() <= 1
    with pytest.raises(ValueError, match="1..20 cards"):
        positions.lead_hands("doudizhu", (21,))
    assert positions.lead_sizes("big2") == (13, 10, 5) and positions.lead_sizes("guandan") == (27, 10, 5)


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_lead_generator_is_what_the_engine_does_for_a_leader(game):
    spec = get_game(game)
    prepare, generate = positions.lead_move_generator(spec.make_engine(**spec.protocol.deal_options).reset(0))
    for seed in range(3):
        engine = spec.make_engine(**spec.protocol.deal_options).reset(seed)  # the first leader, a dealt hand
        ours = generate(prepare(engine.cards_held()[engine.current_player]))
        legal = engine.legal_moves()
        assert ours.dtype == np.int64 and (np.diff(ours) > 0).all()
        if game == "big2":  # the deal's first lead must hold the 3 of diamonds: a subset of the leads
            assert set(legal.tolist()) <= set(ours.tolist()) and len(legal) < len(ours)
        else:
            assert np.array_equal(ours, legal)


def test_no_peers_cli_entry_point(capsys):
    assert main_bench(["env", "doudizhu", "--seconds", "0.01", "--no-peers", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert "cardrl engine (DouDizhuGame), no features" in out and "vs " not in out and "--no-peers" in out
    _assert_machine_on_top(out)
    with pytest.raises(ValueError, match="seconds must be > 0"):
        benv.bench_env("doudizhu", seconds=0)


def test_missing_env_features_and_peer_are_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "cardrl.envs.doudizhu_v0", None)  # makes the import fail
    monkeypatch.setitem(sys.modules, "cardrl.features.douzero", None)
    r = benv.bench_env("doudizhu", seconds=0.01, peers=False, hands=3)
    assert "skipped" in r["ours"]["env"] and "skipped" in r["ours"]["features"]
    assert r["ours"]["engine"]["steps"] > 0 and r["ours"]["encode_us"] is None
    assert "skipped" in benv.format_bench_env(r)
    monkeypatch.setitem(peers_doudizhu.IMPORT_NAMES, "douzero", "no_such_module_cardrl_test")
    assert "skipped" in peers_doudizhu.measure_peer("douzero", 0.01, {})
    assert "skipped" in peers_doudizhu.measure_peer("chess_engine", 0.01, {})


def test_a_registered_game_is_benchmarked_from_its_spec(capsys):
    """A game the registry gains (here Big2 under another name, naming a peer with no measurement module) runs through
    every benchmark with no change to cardrl.bench."""
    big2 = get_game("big2")
    register_game(dataclasses.replace(big2, name="big2_copy", env_name="big2_copy_v0", peers=("douzero",)))
    try:
        r = benv.bench_env("big2_copy", seconds=0.01, hands=3)
        assert r["peers"] == {"douzero": {"skipped": "no module cardrl.bench.peers_big2_copy measures Big2 peers"}}
        assert r["summary"] == [] and r["ratios"] == {}
        assert "douzero" in benv.format_bench_env(r) and "skipped" in benv.format_bench_env(r)
        m = bmcs.bench_mcs("big2_copy", deals=5, prune_steps=20)
        assert set(m["calls"]) == {"13 cards (west)"}
    finally:
        unregister_game("big2_copy")
    register_game(dataclasses.replace(big2, name="big2_nosearch", env_name="big2_nosearch_v0", search=None,
                                      average_initial_cards=None))
    try:
        with pytest.raises(ValueError, match="Big2 has no Minimum Combination Search; games with one: doudizhu"):
            bmcs.bench_mcs("big2_nosearch", deals=1)
    finally:
        unregister_game("big2_nosearch")


# ---- Big2 and GuanDan: no peer ---------------------------------------------------------------------------------
def test_bench_env_big2_structure_and_cli(capsys):
    result = benv.bench_env("big2", seconds=0.02, hands=20)
    ours = result["ours"]
    for part in ("engine", "features", "env"):
        assert ours[part]["games"] >= 1 and ours[part]["steps"] > ours[part]["games"]
    assert ours["encode_us"] > 0 and tuple(ours["movegen_us"]) == (13, 10, 5)
    assert result["peers"] == {} and result["summary"] == [benv.no_peer_line("big2")]
    assert result["summary"] == ["no Big2 peer is registered (douzero, rlcard, open_spiel have no Big2): cardrl only"]
    table = get_game("big2").make_engine().table
    hands = positions.lead_hands("big2", count=20)
    from cardrl.cards import vector_to_bits

    assert ours["lead_moves"][13] == np.mean([len(table.legal_moves(vector_to_bits(h), None)) for h in hands[13]])
    assert main(["bench", "env", "big2", "--seconds", "0.01", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Big2 env benchmark") and "13 cards" in out and out.rstrip().endswith(result["summary"][0])
    _assert_machine_on_top(out)
    with pytest.raises(ValueError, match="1..13"):
        positions.lead_hands("big2", (14,))


def test_bench_env_guandan_reports_every_part(capsys):
    result = benv.bench_env("guandan", seconds=0.05, hands=5)
    ours = result["ours"]
    assert result["options"] == {"match": False}  # single deals, from the registry's deal options
    for part in ("engine", "features", "env"):
        assert ours[part]["games"] >= 1 and ours[part]["steps_per_s"] > 0
    assert ours["encode_us"] > 0 and tuple(ours["movegen_us"]) == (27, 10, 5)
    assert ours["movegen_p99_us"][27] >= 0 and ours["movegen_us"][27] > 0
    assert ours["lead_moves"][27] > 27  # a 27-card lead has more moves than cards (every single, pairs, ...)
    assert ours["lead_moves_max"][27] >= ours["lead_moves"][27]
    assert result["peers"] == {} and result["summary"] == [benv.no_peer_line("guandan")]
    text = benv.format_bench_env(result)
    assert "guandan_v0" in text and "p99" in text and text.endswith(result["summary"][0])
    args = build_parser().parse_args(["bench", "env", "guandan", "--seconds", "0.02"])
    assert args.game == "guandan" and args.target == "env"
    assert main_bench(["env", "guandan", "--seconds", "0.02", "--hands", "2"]) == 0
    assert capsys.readouterr().out.startswith("GuanDan env benchmark")


def test_bench_moves_guandan_by_wild_cards(capsys):
    """``--moves``: the lead table and, GuanDan having wild cards, 27-card dealt leads holding 0, 1 and 2 of them."""
    by_wilds = positions.wild_lead_hands("guandan", count=3)
    assert sorted(by_wilds) == [0, 1, 2] and all(len(hs) == 3 for hs in by_wilds.values())
    game = get_game("guandan").make_engine(match=False).reset(0)
    for w, hands in by_wilds.items():
        assert all(int(h.sum()) == 27 and int(h[list(game.wild_kinds())].sum()) == w for h in hands)
    assert positions.wild_lead_hands("big2", count=2) == {}  # no wild cards
    result = benv.bench_moves("guandan", seconds=0.02, hands=3)
    wild = result["ours"]["wild"]
    assert wild["size"] == 27 and tuple(wild["movegen_us"]) == (0, 1, 2)
    assert all(wild["movegen_p99_us"][w] > 0 and wild["lead_moves_max"][w] >= wild["lead_moves"][w] for w in range(3))
    assert main_bench(["env", "guandan", "--moves", "--seconds", "0.02", "--hands", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("GuanDan legal-move benchmark") and "2 wilds" in out and "p99" in out


# ---- cardrl bench mcs --------------------------------------------------------------------------------------------
def test_bench_mcs_reports_calls_and_pruning_cost(capsys):
    r = bmcs.bench_mcs("doudizhu", deals=30, prune_steps=200)
    assert set(r["calls"]) == {"20 cards (landlord)", "17 cards (landlord_down)"}
    for c in r["calls"].values():
        assert c["cold_us"] > 0 and c["warm_us"] > 0 and c["cold_p99_us"] >= 0 and 1 <= c["mean_k"] <= 20
    assert r["prune_steps"] >= 200 and r["prune_games"] >= 1 and 0 <= r["pruned_share"] < 1
    assert main_bench(["mcs", "doudizhu", "--deals", "10", "--prune-steps", "50"]) == 0
    out = capsys.readouterr().out
    assert "us/call cold" in out and out.startswith("DouDiZhu Minimum Combination Search benchmark")
    _assert_machine_on_top(out)
    with pytest.raises(ValueError, match=r"available: \['big2', 'doudizhu', 'guandan'\]"):
        bmcs.bench_mcs("chess", deals=1)
    with pytest.raises(ValueError, match="deals must be an int >= 1"):
        bmcs.bench_mcs("doudizhu", deals=0)


def test_bench_mcs_guandan():
    r = bmcs.bench_mcs("guandan", deals=8, prune_steps=100)
    assert set(r["calls"]) == {"27 cards (player_0)"}
    c = r["calls"]["27 cards (player_0)"]
    assert c["cold_us"] > 0 and c["warm_us"] > 0 and 1 <= c["mean_k"] <= 27
    assert r["prune_steps"] >= 100 and 0 <= r["pruned_share"] < 1
    assert "cardrl bench mcs guandan" in bmcs.format_bench_mcs(r)


# ---- helpers, CLI, package shape ---------------------------------------------------------------------------------
def test_common_helpers():
    calls = []
    rate = common.rate_loop(lambda i: calls.append(i) or 3, 0.0, warmup=2)
    assert calls == [0, 1, 0] and rate["games"] == 1 and rate["steps"] == 3  # warmed up, then timed from 0
    seen = []
    assert common.us_per_call(seen.append, [1, 2], 0.0) > 0 and seen == [1, 2, 1, 2]  # a warm-up pass first
    cleared = []
    times = common.call_times_us(lambda x: x, [1, 2, 3], None, warmup=1, before=lambda: cleared.append(1))
    assert times.shape == (3,) and (times >= 0).all() and len(cleared) == 4
    assert common.format_ratio(7.234) == "7.2x" and common.format_ratio(0.334) == "0.33x"
    assert common.format_ratio(None) == "n/a" and common.format_number(None) == "-"
    assert common.ratio(1.0, 0.0) is None and common.ratio(3.0, 2.0) == 1.5
    with pytest.raises(ValueError, match="seconds must be > 0"):
        common.check_seconds(-1)


def test_cli_choices_come_from_the_registry():
    parser = build_parser()
    for game in game_names():
        assert parser.parse_args(["bench", "env", game]).game == game
        assert parser.parse_args(["bench", "train", game]).game == game
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "env", "chess"])
    assert parser.parse_args(["bench", "mcs", "big2", "--deals", "5"]).deals == 5


def _bench_modules() -> dict[str, ast.Module]:
    return {f"cardrl.bench.{p.stem}" if p.stem != "__init__" else "cardrl.bench": ast.parse(p.read_text())
            for p in sorted(PACKAGE.glob("*.py"))}


def test_no_import_circle_and_no_private_cross_imports():
    modules = _bench_modules()
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, tree in modules.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cardrl.bench"):
                assert not [a.name for a in node.names if a.name.startswith("_")], (name, node.module)
                edges[name].add(node.module)
            elif isinstance(node, ast.Import):
                edges[name] |= {a.name for a in node.names if a.name.startswith("cardrl.bench")}
    assert edges["cardrl.bench.common"] == set(), "common imports no other benchmark module"

    def visit(node, path):
        for nxt in edges.get(node, ()):
            assert nxt not in path, f"import circle: {' -> '.join(path + [nxt])}"
            visit(nxt, path + [nxt])

    for name in modules:
        visit(name, [name])


def test_no_game_name_literals_outside_docstrings():
    names = set(game_names())
    for module, tree in _bench_modules().items():
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                assert node.value not in names, f"{module}:{node.lineno} names a game: {node.value!r}"
