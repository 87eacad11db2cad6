"""The layers hold (docs/architecture.md): checked on the source, not by convention.

The import graph is read by MODULE NAME, not by file path: pyproject maps envs/ and algorithms/ into the cardrl
package (``cardrl.envs``, ``cardrl.algorithms``), so an arrow into them is only seen by resolving each import to the
module it names. Its edges are every import of a module, at the top level, inside functions and under ``if
TYPE_CHECKING:`` (a lazy or a type-only import still makes the design depend on what it imports, so a circle through
one is a circle), relative imports resolved, ``"package.module:attr"`` strings (the registry's references, resolved
on first use; the CLI's settings table) and pyproject's entry points (edges from a node of their own: the package
metadata names them, no module imports them).

- no import circle anywhere: every strongly connected component of the module graph is a single module;
- nothing under cardrl/ imports cardrl.algorithms or cardrl.envs, not even inside a function, except the drivers:
  the CLI (cardrl/cli.py) may import the algorithms, the benchmarks (cardrl/bench/) only the public API modules
  (:data:`PUBLIC_API`: the envs' ``make_env``; DMCConfig, DMC and DMCSettings, never an env runner, a buffer or a
  learner: the benchmarks run the algorithms' own code paths and defaults, not copies of them);
- the algorithms' shared layer (``cardrl.algorithms.common``) imports no algorithm: nothing of the other packages of
  cardrl.algorithms (dmc, topk_ppo, masked_ppo, training, tune) but the options' machinery
  (:data:`SHARED_LAYER_MAY_IMPORT`);
- no shipped file cites the internal design notes kept outside the repository: the package cites docs/;
- game names as string literals appear outside the registry, the games' own modules (engines, move tables, envs),
  the presets table, experiments/ and tests/ only in docstrings, help texts and API defaults.

experiments/ (scripts run from a checkout, not installed) is read too, as the package ``experiments``: its scripts
import the package and each other, and a circle through them is a circle.
"""

from __future__ import annotations

import ast
import re
import tomllib
from functools import cache

from helpers.source_tree import ROOT, import_names
from helpers.source_tree import package_modules as _modules

TOP_LEVEL = ("cardrl", "experiments")  # the top-level packages of the sources: an import of anything else is no edge
ENTRY_POINTS = "<pyproject entry points>"
LAYERED = ("cardrl.algorithms", "cardrl.envs")  # what the core must not import
REFERENCE = re.compile(r"^(cardrl(?:\.\w+)+):[\w.]+$")  # "package.module:attr", as registry.resolve reads it

# Modules under cardrl/ that may import anything of the algorithms and envs: the CLI (and the shared run loop, when
# it lives under cardrl/, goes here by name).
DRIVERS = {"cardrl.cli"}
# The envs' and algorithms' public API, which the benchmarks call (their own code paths and defaults, never copies):
# training's RunSpec and its RunSettings (with the options' parsers, e.g. parse_duration), DMC's config and settings,
# and the DMCConfig of a run spec as cardrl train builds it (dmc.train.build_config: cardrl bench limits).
PUBLIC_API = {"cardrl.envs", "cardrl.algorithms.dmc", "cardrl.algorithms.dmc.dmc", "cardrl.algorithms.dmc.settings",
              "cardrl.algorithms.dmc.train",
              "cardrl.algorithms.training", "cardrl.algorithms.training.run_spec",
              "cardrl.algorithms.training.settings"}
BENCHMARKS = "cardrl.bench"
SHARED_LAYER = "cardrl.algorithms.common"
SHARED_LAYER_MAY_IMPORT = {"cardrl.algorithms.training.settings"}  # option(), field_default(): no algorithm's


def _owner(name: str) -> str | None:
    """The module a dotted name lives in: ``cardrl.games.engine.Engine`` -> ``cardrl.games.engine``."""
    modules = _modules()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _named_in(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every cardrl module that ``source`` (the text of ``module``) imports, anywhere in it, or names in a
    ``"module:attr"`` string."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        found.update(import_names(node, module, is_package))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and REFERENCE.match(node.value):
            found.add(REFERENCE.match(node.value)[1])
    owners = {_owner(name) for name in found if name.split(".")[0] in TOP_LEVEL}
    return {m for m in owners if m and m != module}


def _named(module: str) -> set[str]:
    path = _modules()[module]
    return _named_in(path.read_text(), module, path.name == "__init__.py")


def _entry_point_targets() -> set[str]:
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("entry-points", {})
    return {ref.partition(":")[0] for group in groups.values() for ref in group.values()}


@cache
def _graph() -> dict[str, frozenset[str]]:
    graph = {module: frozenset(_named(module)) for module in _modules()}
    graph[ENTRY_POINTS] = frozenset(_entry_point_targets())
    return graph


def _components(graph: dict[str, frozenset[str]]) -> list[set[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    out.append(component)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph.get(nxt, ())))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return out


def _circles(graph: dict[str, frozenset[str]]) -> list[set[str]]:
    """Components of more than one module. A package importing its own submodules and a submodule importing its
    package form a circle only when the package imports it back: Python runs that, but the design has a loop."""
    return [c for c in _components(graph) if len(c) > 1]


def test_the_graph_reads_mapped_packages_lazy_imports_and_references():
    toy = """
import cardrl.games.registry
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from cardrl.algorithms import dmc
def build():
    from ..envs import make_env
REFERENCE = "cardrl.agents.base:Agent"
"""
    assert _named_in(toy, "cardrl.bench.toy") == {"cardrl.games.registry", "cardrl.algorithms.dmc", "cardrl.envs",
                                                  "cardrl.agents.base"}
    graph = _graph()
    assert "cardrl.algorithms.dmc.dmc" in graph and "cardrl.envs" in graph  # folders mapped into cardrl
    assert graph[ENTRY_POINTS] and set(graph[ENTRY_POINTS]) <= set(graph), "an entry point names no module"


def test_the_circle_search_finds_any_strongly_connected_component():
    toy = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a", "d"}), "d": frozenset(),
           "e": frozenset({"e"})}
    assert _circles(toy) == [{"a", "b", "c"}]


def test_no_import_circle():
    circles = [sorted(c) for c in _circles(_graph())]
    assert not circles, f"import circles (lazy imports and 'module:attr' references count): {circles}"


def _core_offences() -> set[tuple[str, str]]:
    offences = set()
    for module, targets in _graph().items():
        if not module.startswith("cardrl.") or module.startswith(LAYERED) or module in DRIVERS:
            continue
        for target in targets:
            if not target.startswith(LAYERED):
                continue
            if module.startswith(BENCHMARKS + ".") and target in PUBLIC_API:
                continue
            offences.add((module, target))
    return offences


def test_the_core_imports_neither_algorithms_nor_envs():
    offences = sorted(_core_offences())
    assert not offences, f"cardrl/ (the core) imports the algorithms or envs: {offences}"


def _algorithm_package(module: str) -> str | None:
    """The package of cardrl.algorithms that ``module`` belongs to (``cardrl.algorithms.dmc``), None for a module of
    cardrl.algorithms itself (``cardrl.algorithms.card_env_runner``) or one outside it."""
    package = ".".join(module.split(".")[:3])
    if not module.startswith("cardrl.algorithms.") or _modules()[package].name != "__init__.py":
        return None
    return package


def test_the_shared_layer_imports_no_algorithm():
    offences = sorted((module, target) for module, targets in _graph().items()
                      if _algorithm_package(module) == SHARED_LAYER for target in targets
                      if _algorithm_package(target) not in (None, SHARED_LAYER)
                      and target not in SHARED_LAYER_MAY_IMPORT)
    assert not offences, f"algorithms/common/ imports an algorithm: {offences}"


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
# the games' own modules: engines, move tables, their envs and rule agents; the presets table (its rows name the game
# they train) and the experiments (scripts that measure one game)
GAME_MODULES = re.compile(r"^cardrl\.(games\.|agents\.(doudizhu|big2|guandan)_rule)"
                          r"|^cardrl\.envs\.(doudizhu|big2|guandan)_v0$|^cardrl\.preset_table$|^experiments(\.|$)")


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
