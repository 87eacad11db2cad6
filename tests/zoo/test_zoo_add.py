"""``cardrl zoo add`` end to end on a tiny DouDiZhu checkpoint made here (tests/helpers/tiny_checkpoint.py) into a
temporary zoo: exported with the fp16 check, measured against random and both rule agents, its card and result files
written, its agent playing a seeded deal as the checkpoint does; the same checkpoint again (a successor no stronger
than the entry: ADP exactly 0 against itself) is refused and the zoo is left as it was; an fp16 export whose moves
agree too rarely is refused and float32 kept. And each shipped entry against the checkpoint it came from, where that
checkpoint is on this machine (CI has no runs/). Slow: RLlib loads the checkpoints, and the evaluations play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
from cardrl.zoo.catalog import CARD_FILE, CARD_MARKDOWN, load_zoo_agent, read_card, zoo_entries
from cardrl.zoo.strength import read_strength
from helpers.tiny_checkpoint import save_doudizhu_checkpoint

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _moves(agent, reference, game: str, seed: int, options: dict) -> tuple[list[int], list[int]]:
    """Both agents' choices at every decision of the reference agent's game on deal ``seed`` (all seats)."""
    engine = get_game(game).make_engine(**options)
    engine.reset(seed)
    mine, theirs = [], []
    while not engine.is_over:
        view, legal = engine.view(engine.current_player), engine.legal_moves()
        mine.append(int(agent.act(view, legal)))
        theirs.append(int(reference.act(view, legal)))
        engine.step(theirs[-1])
    return mine, theirs


@pytest.fixture(scope="module")
def added(tmp_path_factory):
    from cardrl.algorithms.zoo import add_entry

    root = tmp_path_factory.mktemp("zoo_add")
    checkpoint = save_doudizhu_checkpoint(root / "run" / "checkpoint")
    zoo = root / "zoo"
    lines: list[str] = []
    outcome = add_entry(checkpoint, "doudizhu", zoo, count=4, workers=0, say=lines.append)
    return {"checkpoint": checkpoint, "zoo": zoo, "outcome": outcome, "lines": lines}


def test_zoo_add_exports_measures_and_writes_the_card(added):
    zoo = added["zoo"]
    assert added["outcome"].added, added["outcome"].message
    assert set(zoo_entries(zoo)) == {"doudizhu"}
    card = read_card("doudizhu", zoo)
    assert card["training"]["source_checkpoint"].endswith("checkpoint")
    assert card["export"]["precision"] in ("float16", "float32")
    rows = read_strength(zoo / "doudizhu")
    assert set(rows) == {"random", "rule", "rlcard"} and all(r.count == 4 and r.games == 8 for r in rows.values())
    assert "zoo:doudizhu" in (zoo / "doudizhu" / CARD_MARKDOWN).read_text()
    assert any(line.startswith("fp16") or "kept float32" in line for line in added["lines"])
    assert not [p for p in zoo.iterdir() if p.name.startswith(".")], "a staging directory was left behind"


def test_the_added_agent_plays_a_seeded_deal_as_its_checkpoint(added):
    zoo_agent = load_zoo_agent("doudizhu", "doudizhu", get_game("doudizhu").full_options({}), None, added["zoo"])
    checkpoint = build_agent(f"checkpoint:{added['checkpoint']}", "doudizhu", {})
    mine, theirs = _moves(zoo_agent, checkpoint, "doudizhu", 5, {})
    assert len(mine) > 20 and mine == theirs


def test_a_successor_not_measured_stronger_is_refused(added):
    from cardrl.algorithms.zoo import add_entry

    zoo = added["zoo"]
    before = {p.relative_to(zoo): p.read_bytes() for p in zoo.rglob("*") if p.is_file()}
    outcome = add_entry(added["checkpoint"], "doudizhu", zoo, count=4, workers=0, say=lambda line: None)
    assert not outcome.added
    assert outcome.message.startswith("refused: against the current zoo:doudizhu the successor scores +0.000")
    assert "only when that interval lies above 0" in outcome.message
    assert {p.relative_to(zoo): p.read_bytes() for p in zoo.rglob("*") if p.is_file()} == before


def test_an_fp16_export_that_agrees_too_rarely_keeps_float32(added, tmp_path, monkeypatch):
    from cardrl.algorithms import export
    from cardrl.agents.exported import AGENT_FILE

    monkeypatch.setattr(export, "fp16_agreement", lambda *a, **k: export.Fp16Check(2000, 0.99, 0))
    with pytest.raises(ValueError, match=r"--fp16 refused: the float16 agent chose the float32 agent's move on "
                                         r"99\.00% of 2,000 seeded positions \(99\.9% needed\)"):
        export.export_fp16_checked(added["checkpoint"], tmp_path / "out")
    record = json.loads((tmp_path / "out" / AGENT_FILE).read_text())
    weights = [p.name for p in (tmp_path / "out").iterdir() if p.suffix == ".safetensors"]
    assert record["precision"] == "float32" and weights and not [n for n in weights if n.endswith(".fp16.safetensors")]


@pytest.mark.parametrize("name", ["doudizhu", "guandan"])
def test_a_shipped_entry_plays_a_seeded_deal_as_its_source_checkpoint(name):
    card = read_card(name)
    source = ROOT / card["training"]["source_checkpoint"]
    if not source.is_dir():
        pytest.skip(f"zoo:{name}'s source checkpoint {card['training']['source_checkpoint']} is not on this machine "
                    f"(runs/ is not in the repository)")
    game = card["game"]
    options = {"match": False} if game == "guandan" else {}
    zoo_agent = build_agent(f"zoo:{name}", game, options)
    checkpoint = build_agent(f"checkpoint:{source}", game, options)
    mine, theirs = _moves(zoo_agent, checkpoint, game, 0, options)
    assert len(mine) > 20 and mine == theirs, f"{sum(a != b for a, b in zip(mine, theirs))} of {len(mine)} differ"


def test_a_luo_tan_opponent_model_exports_as_weights_and_plays_as_its_checkpoint(tmp_path):
    """``weights:`` rebuilds Luo & Tan's opponent model in plain torch (OMODMC's networks have one): the export
    chooses the checkpoint agent's move at every one of 200 seeded positions."""
    from cardrl.algorithms.export import export_checkpoint
    from cardrl.eval.agreement import agreement
    from helpers.tiny_checkpoint import save_doudizhu_opponent_model_checkpoint

    checkpoint = save_doudizhu_opponent_model_checkpoint(tmp_path / "checkpoint")
    record = export_checkpoint(checkpoint, tmp_path / "fp32", "safetensors")
    assert record["networks"]["landlord"]["opponent_model_config"]["kind"] == "luo_tan"
    assert max(net["check_max_abs_diff"] for net in record["networks"].values()) < 1e-5
    agents = {"checkpoint": build_agent(f"checkpoint:{checkpoint}", "doudizhu", {}),
              "weights": build_agent(f"weights:{tmp_path / 'fp32'}", "doudizhu", {})}
    rates, _ = agreement(agents, "checkpoint", "doudizhu", {}, 200)
    assert rates["weights"] == 1.0


def test_the_card_records_the_checkpoints_frames_not_those_trained_after_it(tmp_path):
    """A run stopped after its last checkpoint has progress records past it: the card gives the checkpoint's frames
    and the training seconds of the last record at or before them."""
    from cardrl.algorithms.zoo import training_record

    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / "cardrl_checkpoint.json").write_text("{}")
    (run / "config.json").write_text(json.dumps({"command": "cardrl train doudizhu", "algo": "dmc"}))
    (run / "progress.jsonl").write_text("".join(json.dumps({"iteration": i, "frames_trained": f, "train_s": s}) + "\n"
                                                for i, (f, s) in enumerate([(100, 1.0), (200, 2.0), (300, 3.0)])))
    record = training_record(run / "checkpoint", 200)
    assert (record["frames"], record["train_seconds"], record["command"]) == (200, 2.0, "cardrl train doudizhu")
    assert training_record(run / "checkpoint", None)["frames"] == 300  # not known: the run's last record
