"""The model zoo shipped with the package (docs/strength.md, "The zoo"): its entries load without RLlib and without
pickle and play a deal, they fit the size limit and the package data, ``zoo:NAME`` refuses what the zoo lacks by
listing what it has, the default opponent follows the rule agent comparison on the cards, and the generated cards and
table are what the files say."""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cardrl.eval.agents import agent_spec_arg, build_agent
from cardrl.zoo.card import card_markdown, zoo_table_markdown
from cardrl.zoo.catalog import (CARD_FILE, CARD_MARKDOWN, MAX_ZOO_BYTES, ZOO_ROOT, default_agent, entry_game,
                                weight_files, zoo_entries, zoo_weight_bytes)
from cardrl.zoo.strength import EVAL_DIR, read_strength
from helpers.no_pickle import GUARD, NO_RAY

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = zoo_entries()


def test_the_package_ships_zoo_entries_within_the_size_limit():
    assert {"doudizhu", "guandan"} <= set(SHIPPED), f"the package's zoo has {sorted(SHIPPED)}"
    size = zoo_weight_bytes()
    assert 0 < size <= MAX_ZOO_BYTES, f"zoo weights {size:,} bytes; at most {MAX_ZOO_BYTES:,}"


def test_every_zoo_file_is_package_data():
    """Every file of every entry matches pyproject's package-data patterns of cardrl.zoo, so wheels carry it."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["cardrl.zoo"]
    files = [f.relative_to(ZOO_ROOT).as_posix() for d in SHIPPED.values() for f in d.rglob("*") if f.is_file()]
    assert files
    missed = [f for f in files if not any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)]
    assert not missed, f"not shipped by {patterns}: {missed}"


_NO_PICKLE = GUARD + """
from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
name, game = sys.argv[1], sys.argv[2]
agent = build_agent(f"zoo:{name}", game, {})
engine = get_game(game).make_engine(**({"match": False} if game == "guandan" else {}))
engine.reset(7)
while not engine.is_over:
    engine.step(agent.act(engine.view(engine.current_player), engine.legal_moves()))
""" + NO_RAY + """print("played", len(engine.actions))
"""


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_zoo_agent_loads_and_plays_with_no_pickle_and_no_ray(name):
    done = subprocess.run([sys.executable, "-c", _NO_PICKLE, name, entry_game(name)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("played")


def test_an_absent_entry_is_refused_naming_what_the_zoo_has():
    with pytest.raises(ValueError, match=r"zoo:big2: the zoo has no big2 agent yet.*it has zoo:doudizhu, zoo:guandan"):
        build_agent("zoo:big2", "big2", {})
    with pytest.raises(ValueError, match=r"the zoo has no doudizhu-whole-game agent yet.*zoo:doudizhu"):
        build_agent("zoo:doudizhu-whole-game", "doudizhu", {})
    with pytest.raises(ValueError, match=r"zoo:chess: not a zoo entry name; names are doudizhu, big2, guandan"):
        build_agent("zoo:chess", "doudizhu", {})
    with pytest.raises(ValueError, match=r"zoo:guandan plays guandan, not doudizhu"):
        build_agent("zoo:guandan", "doudizhu", {})


def test_a_zoo_spec_stays_a_name_on_the_command_line():
    assert agent_spec_arg("zoo:doudizhu") == "zoo:doudizhu"
    assert agent_spec_arg("weights:rel/dir").startswith("weights:/")


def _fake_entry(root: Path, game: str, mean_vs_rule: float | None) -> Path:
    """An entry directory with an export description, a card and (``mean_vs_rule`` not None) a result file against
    the rule agent: what :func:`default_agent` reads."""
    entry = root / game
    (entry / EVAL_DIR).mkdir(parents=True)
    (entry / "cardrl_agent.json").write_text((SHIPPED[game] / "cardrl_agent.json").read_text())
    (entry / CARD_FILE).write_text(json.dumps({"name": game}))
    if mean_vs_rule is not None:
        result = {"deals": 10, "games": 20, "adp": mean_vs_rule, "adp_low": mean_vs_rule - 0.1,
                  "adp_high": mean_vs_rule + 0.1, "wp": 0.5, "wp_low": 0.4, "wp_high": 0.6}
        (entry / EVAL_DIR / "vs_rule.json").write_text(json.dumps({"unit": "deal", "opponent": "rule",
                                                                   "result": result}))
    return entry


def test_the_default_agent_is_the_zoo_agent_only_when_its_card_beats_the_rule_agent(tmp_path):
    assert default_agent("doudizhu", tmp_path) == "rule"  # no entry
    _fake_entry(tmp_path / "above", "doudizhu", 0.05)
    _fake_entry(tmp_path / "below", "doudizhu", -0.05)
    _fake_entry(tmp_path / "unmeasured", "doudizhu", None)
    assert default_agent("doudizhu", tmp_path / "above") == "zoo:doudizhu"
    assert default_agent("doudizhu", tmp_path / "above", bidding=True) == "zoo:doudizhu+bidder=rule"
    assert default_agent("doudizhu", tmp_path / "below") == "rule"
    assert default_agent("doudizhu", tmp_path / "unmeasured") == "rule"
    assert default_agent("big2", tmp_path / "above") == "rule"


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_cardrl_play_defaults_to_the_default_agent(game):
    from cardrl.cli import build_parser
    from cardrl.play.cli import build_session

    args = build_parser().parse_args(["play", game, "--seed", "3"])
    assert args.opponents is None
    session = build_session(args)
    want = default_agent(game)
    assert {agent.name for agent in session.agents.values()} == {want}
    assert f"--opponents {want}" in session.command


def test_the_shipped_default_follows_the_shipped_cards():
    """Today's default for each shipped game: the zoo agent if its result file against the rule agent is above 0."""
    for name, directory in SHIPPED.items():
        rows = read_strength(directory)
        if "rule" not in rows:
            pytest.skip(f"zoo:{name} has no result against the rule agent yet")
        want = f"zoo:{name}" if rows["rule"].mean > 0 else "rule"
        assert default_agent(entry_game(name)) == want


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_each_card_is_generated_from_its_files(name):
    directory = SHIPPED[name]
    assert (directory / CARD_MARKDOWN).read_text() == card_markdown(name)
    card = json.loads((directory / CARD_FILE).read_text())
    for key in ("command", "frames", "train_seconds", "machine", "date", "source_checkpoint"):
        assert key in card["training"], key
    assert card["export"]["precision"] in ("float16", "float32")
    assert all(f.is_file() for f in weight_files(directory))


def test_docs_strength_holds_the_generated_zoo_table():
    text = (ROOT / "docs" / "strength.md").read_text()
    assert zoo_table_markdown() in text, "docs/strength.md's zoo table is stale: cardrl zoo list --markdown"


@pytest.mark.slow
def test_a_built_wheel_carries_every_zoo_file(tmp_path):
    """The package data as setuptools reads it: a wheel built from a copy of the sources holds every entry's files."""
    import shutil
    import zipfile

    source = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("cardrl", "envs", "algorithms"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for file in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / file, source / file)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "out"), str(source)], check=True, capture_output=True, timeout=600)
    wheel = next((tmp_path / "out").glob("cardrl-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {f"cardrl/zoo/{f.relative_to(ZOO_ROOT).as_posix()}" for d in SHIPPED.values() for f in d.rglob("*")
            if f.is_file()}
    assert want and not want - names, f"missing from the wheel: {sorted(want - names)}"
