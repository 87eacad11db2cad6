"""The README as a newcomer's page: at most 150 lines, the two fresh-machine commands first, every `cardrl` command
it and docs/usage.md print accepted by the CLI's parser, and every relative link of the README and docs/ resolving
(file and anchor)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


def _bash_lines(text: str) -> list[str]:
    """Every command line of the page's bash blocks, comments and continuation backslashes removed."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            command = line.split("  #")[0].strip()
            if command:
                lines.append(command)
    return lines


def _cardrl_argv(line: str) -> list[str] | None:
    """The arguments of the `cardrl` command in a line (after `ray job submit ... --`, an env assignment or `&&`)."""
    words = shlex.split(line)
    starts = [i for i, w in enumerate(words) if w == "cardrl"]
    if not starts:
        return None
    argv = words[starts[-1] + 1:]
    return argv[:argv.index("&&")] if "&&" in argv else argv


def test_the_readme_is_a_short_page_that_starts_with_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    first, second = _bash_lines(text)[:2]
    assert text.index("```bash") < text.index("\n## ")
    assert first.startswith("pip install") and "cardrl train doudizhu" in first
    assert second.startswith("pip install") and '".[test]"' in second and "python -m pytest" in second


COMMAND_PAGES = [README, ROOT / "docs" / "usage.md"]


@pytest.mark.parametrize("line", [line for page in COMMAND_PAGES for line in _bash_lines(page.read_text())
                                  if _cardrl_argv(line)])
def test_every_cardrl_command_of_the_readme_and_the_usage_page_parses(line):
    from cardrl.cli import parse_args
    from cardrl.presets import expand_preset

    parse_args(expand_preset(_cardrl_argv(line)))


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        base = _anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        anchors.add(base if n == 0 else f"{base}-{n}")
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
