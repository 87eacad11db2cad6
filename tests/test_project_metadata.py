"""The package says what it is and where it lives: the Apache-2.0 LICENSE that pyproject names, and the project
URLs (homepage, documentation, issues) a package index shows."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_file_is_the_apache_2_0_text_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert len(text.splitlines()) > 190  # the full text, not a pointer to it


def test_project_urls():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert set(urls) >= {"Homepage", "Documentation", "Issues"}
    assert all(url.startswith("https://github.com/cardrl/cardrl") for url in urls.values())


def _imported_top_level_modules(folder: Path) -> set[str]:
    """Every top-level module a folder's Python files import, at any depth of the file (imports inside functions too)."""
    import ast

    names: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def _installed_closure(root: str, extras: set[str]) -> set[str]:
    """The normalised names of ``root[extras]`` and of every distribution it requires, transitively, as installed."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = [(root, frozenset(extras))]
    while todo:
        name, wanted = todo.pop()
        key = canonicalize_name(name)
        if key in seen and not wanted:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, frozenset(req.extras)))
    return seen


def test_every_third_party_module_the_tests_import_is_declared():
    """The README's test command installs ``.[test]`` and nothing else: a test that imports a package no declared
    requirement brings in passes only on a machine where someone installed it by hand (pexpect once did)."""
    import sys
    from importlib import metadata

    from packaging.utils import canonicalize_name

    local = {"cardrl", "helpers", "conftest"} | {p.stem for p in (ROOT / "tests").glob("*.py")}
    third_party = sorted(_imported_top_level_modules(ROOT / "tests") - set(sys.stdlib_module_names) - local)
    declared = _installed_closure("cardrl", {"test"})
    providers = metadata.packages_distributions()
    undeclared = {module: providers.get(module, ["(not installed)"]) for module in third_party
                  if not any(canonicalize_name(d) in declared for d in providers.get(module, []))}
    assert not undeclared, (f"tests import modules that cardrl[test] does not require (add their distributions to "
                            f"the test extra in pyproject.toml): {undeclared}")
