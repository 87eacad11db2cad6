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


def _declared_distributions() -> set[str]:
    """The normalised names of every distribution pyproject.toml names: the dependencies and every extra's."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    return {canonicalize_name(Requirement(text).name) for text in texts if not text.startswith("cardrl")}


def test_every_third_party_module_imported_is_declared():
    """A fresh install gets only what pyproject.toml names: a module the package, its tests or its experiments import
    must come from a distribution named there, not from one that happens to arrive with another (packaging with ray)
    or that someone installed by hand."""
    import sys
    from importlib import metadata

    from packaging.utils import canonicalize_name

    local = {"cardrl", "experiments", "helpers", "conftest"} | {p.stem for p in (ROOT / "tests").glob("*.py")}
    imported = set().union(*(_imported_top_level_modules(ROOT / folder)
                             for folder in ("cardrl", "envs", "algorithms", "tests", "experiments")))
    third_party = sorted(imported - set(sys.stdlib_module_names) - local)
    declared = _declared_distributions()
    providers = metadata.packages_distributions()
    undeclared = {module: providers.get(module, ["(not installed)"]) for module in third_party
                  if not any(canonicalize_name(d) in declared for d in providers.get(module, []))}
    assert not undeclared, (f"modules imported but not named in pyproject.toml (add their distributions to the "
                            f"dependencies or the right extra): {undeclared}")
