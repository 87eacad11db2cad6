"""The package's modules read from the source tree, by module name (tests/test_layers.py, tests/test_public_names.py).

pyproject maps envs/ and algorithms/ into the cardrl package (``cardrl.envs``, ``cardrl.algorithms``); experiments/
is imported from the checkout's root as the package ``experiments``. A module is named as Python imports it, and a
relative import is resolved to the module it names."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# package prefix of each source folder (pyproject maps envs/ and algorithms/ into cardrl; experiments/ is imported
# from the checkout's root)
SOURCES = {"cardrl": "cardrl", "envs": "cardrl.envs", "algorithms": "cardrl.algorithms", "experiments": "experiments"}


@cache
def package_modules() -> dict[str, Path]:
    """Module name -> its file, for every module of :data:`SOURCES` (a package by its ``__init__.py``)."""
    out = {}
    for folder, package in SOURCES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


def import_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement of ``module`` reaches: ``from a.b import c`` gives ``a.b.c`` (the module
    ``a.b.c`` when there is one, else the attribute ``c`` of ``a.b``), a relative import resolved from the module's
    package (a package's ``__init__`` is its own package); ``import a.b`` gives ``a.b``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" for alias in node.names]
