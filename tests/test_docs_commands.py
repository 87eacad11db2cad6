"""The documented ``cardrl bench learning`` commands are the commands of the kept runs.

Every ``cardrl bench learning ...`` command in README.md and docs/*.md (in a code block, backslash continuations
joined, or inline between backticks) that names ``--keep DIR`` must carry exactly the flags of the command recorded
in ``DIR/results.json``; one that names no ``--keep`` but an ``--out`` some kept result recorded must equal one of
the commands recorded with that ``--out`` (the kept results: ``docs/learning/*.json`` and
``docs/learning/*/results.json``). So a documented command cannot drift from the run it claims to reproduce. Commands
naming neither (examples, ``...``) are not checked. Reads files only.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PREFIX = "cardrl bench learning"


def documented_commands(text: str) -> list[str]:
    """Every ``cardrl bench learning`` command of a Markdown page, one line each (continuations joined, comments
    and the closing backtick dropped)."""
    commands = []
    in_code = False
    joined: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            joined = []
            continue
        if in_code:
            joined.append(line.strip())
            if line.rstrip().endswith("\\"):
                joined[-1] = joined[-1].rstrip("\\").strip()
                continue
            whole = " ".join(joined)
            joined = []
            if PREFIX in whole:
                # a diagram's prose in a code block ends at a backtick
                commands.append(whole[whole.index(PREFIX):].split(" #")[0].split("`")[0].strip())
    # inline commands, between backticks, outside code blocks (they may wrap over lines)
    outside = re.sub(r"```.*?```", "", text, flags=re.S)
    commands += [" ".join(m.split()) for m in re.findall(r"`(cardrl\s+bench\s+learning\b[^`]*)`", outside)]
    return commands


def flags(command: str) -> dict[str, tuple[str, ...]]:
    """``{"game": (GAME,), "--flag": (values...), ...}`` of a ``cardrl bench learning`` command."""
    words = shlex.split(command)
    assert words[:3] == PREFIX.split(), command
    out: dict[str, tuple[str, ...]] = {}
    key = "game"
    values: list[str] = []
    for word in words[3:]:
        if word.startswith("--"):
            if key in out:
                raise AssertionError(f"{key} given twice in {command!r}")
            out[key] = tuple(values)
            key, values = word, []
        else:
            values.append(word)
    out[key] = tuple(values)
    return out


def kept_commands() -> dict[Path, str]:
    """The command every kept learning benchmark recorded, by its result file."""
    files = sorted((ROOT / "docs" / "learning").glob("*.json"))
    files += sorted((ROOT / "docs" / "learning").glob("*/results.json"))
    out = {}
    for path in files:
        data = json.loads(path.read_text())
        if isinstance(data, dict) and str(data.get("command", "")).startswith(PREFIX):
            out[path] = data["command"]
    return out


def _checked() -> list[tuple[str, str]]:
    kept_outs = {flags(c).get("--out") for c in kept_commands().values()}
    out = []
    for page in PAGES:
        for command in documented_commands(page.read_text()):
            named = flags(command)
            if "--keep" in named or named.get("--out") in kept_outs:
                out.append((page.relative_to(ROOT).as_posix(), command))
    return out


CHECKED = _checked()


def test_the_extraction_finds_the_documented_commands_of_kept_runs():
    """A broken extraction would check nothing: the learning page alone documents seven kept runs."""
    assert len(kept_commands()) >= 8
    assert len([1 for page, _ in CHECKED if page == "docs/learning.md"]) >= 7
    text = ("```bash\ncardrl bench learning big2 --frames 10 \\\n    --out x   # a note\n```\n"
            "see `cardrl bench\nlearning guandan --out y`\n")
    assert documented_commands(text) == ["cardrl bench learning big2 --frames 10 --out x",
                                         "cardrl bench learning guandan --out y"]
    assert flags("cardrl bench learning big2 --seed-list 0 1 --keep d") == {
        "game": ("big2",), "--seed-list": ("0", "1"), "--keep": ("d",)}


@pytest.mark.parametrize("page,command", CHECKED, ids=[f"{p}:{c[len(PREFIX) + 1:][:60]}" for p, c in CHECKED])
def test_a_documented_command_of_a_kept_run_is_the_command_it_recorded(page, command):
    named = flags(command)
    kept = kept_commands()
    if "--keep" in named:
        (keep,) = named["--keep"]
        results = ROOT / keep / "results.json"
        assert results.is_file(), f"{page}: `{command}` keeps its runs in {keep}, which holds no results.json"
        recorded = kept[results]
        assert named == flags(recorded), (f"{page} documents\n  {command}\nbut {results.relative_to(ROOT)} "
                                          f"recorded\n  {recorded}")
        return
    same_out = {p: c for p, c in kept.items() if flags(c).get("--out") == named["--out"]}
    assert any(flags(c) == named for c in same_out.values()), (
        f"{page} documents\n  {command}\nbut the kept runs with --out {' '.join(named['--out'])} recorded\n  "
        + "\n  ".join(f"{c}   ({p.relative_to(ROOT)})" for p, c in same_out.items()))
