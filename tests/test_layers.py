"""The layers hold (docs/architecture.md): checked on the source, not by convention.

- nothing under cardrl/ below the CLI (cardrl/cli.py) and the benchmarks (cardrl/bench/) imports cardrl.algorithms or
  cardrl.envs, not even inside a function;
- no import circle among the modules' top-level imports;
- no shipped file cites the internal design notes kept outside the repository: the package cites docs/;
- game names as string literals appear outside the registry, the games' own modules (engines, move tables, envs),
  experiments/ and tests/ only in docstrings, help texts and API defaults.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# package prefix of each source folder (pyproject maps envs/ and algorithms/ into cardrl)
SOURCES = {"cardrl": "cardrl", "envs": "cardrl.envs", "algorithms": "cardrl.algorithms"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in SOURCES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


def _imports(path: Path, module: str, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                base = module.rsplit(".", node.level)[0]
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("cardrl")}


def test_the_core_imports_neither_algorithms_nor_envs():
    offenders = []
    for module, path in _modules().items():
        if not module.startswith("cardrl.") or module.startswith(("cardrl.algorithms", "cardrl.envs", "cardrl.bench")):
            continue
        if module == "cardrl.cli":
            continue
        bad = sorted(n for n in _imports(path, module, top_level_only=False)
                     if n.startswith(("cardrl.algorithms", "cardrl.envs")))
        if bad:
            offenders.append(f"{module}: {bad}")
    assert not offenders, offenders


def test_no_import_circle():
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        targets = set()
        for name in _imports(path, module, top_level_only=True):
            while name and name not in modules:  # "cardrl.games.engine.Engine" -> "cardrl.games.engine"
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    # a package's __init__ importing its own submodules is not a circle; a submodule importing its package is
    # only one if the package imports it back, which the cycle search below sees
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + "."):
                continue  # a package importing its submodule
            if state.get(nxt) == 1 and not node.startswith(nxt + "."):
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def _tracked_text_files():
    import subprocess

    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / n for n in names if n.endswith((".py", ".md", ".toml", ".cfg", ".txt")) and (ROOT / n).is_file()]


def test_nothing_shipped_cites_the_internal_design_notes():
    pattern = re.compile("|".join(re.escape(n) for n in ("DESIGN" + ".md", "RULES" + ".md", "../" + "shared")))
    offenders = [str(p.relative_to(ROOT)) for p in _tracked_text_files()
                 if not p.relative_to(ROOT).parts[0] == "docs" and pattern.search(p.read_text())]
    assert not offenders, offenders


GAME_LITERAL = re.compile(r"^(doudizhu|big2|guandan)$")
# the games' own modules: engines, move tables, their envs and rule agents
GAME_MODULES = re.compile(r"^cardrl\.(games\.|agents\.(doudizhu|big2|guandan)_rule)|^cardrl\.envs\.(doudizhu|big2|guandan)_v0$")


def _code_literals(tree: ast.AST):
    """String constants that are neither docstrings, nor function defaults, nor help texts of CLI options."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            skip.update(id(d) for d in node.args.defaults + node.args.kw_defaults if d is not None)
        if isinstance(node, ast.keyword) and node.arg == "help":
            skip.update(id(n) for n in ast.walk(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node


def test_game_names_are_data_of_the_registry():
    offenders = []
    for module, path in _modules().items():
        if module == "cardrl.games.registry" or GAME_MODULES.search(module):
            continue
        for node in _code_literals(ast.parse(path.read_text())):
            if GAME_LITERAL.match(node.value):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert not offenders, offenders
