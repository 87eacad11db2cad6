"""The tree keeps its floors (docs/architecture.md): no file over 400 lines and no function over 60, outside the
game engines, the move tables, the rule agents and the tests; numba kernels (a ``*jit`` decorator) are exempt. A
file or function that grows past them is split where its parts have names of their own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("cardrl", "algorithms", "envs", "experiments")
MAX_FILE_LINES, MAX_FUNCTION_LINES = 400, 60


def _exempt(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return (rel.startswith("cardrl/games/") and name in ("engine.py", "moves.py", "table.py", "move_table.py")
            or rel.startswith("cardrl/agents/") and name.endswith("_rule.py"))


def _is_kernel(function: ast.AST) -> bool:
    for decorator in function.decorator_list:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        if "jit" in (node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")):
            return True
    return False


def _sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel and not _exempt(rel):
                yield rel, path.read_text()


def test_no_file_over_400_lines():
    over = [f"{rel}: {len(text.splitlines())} lines" for rel, text in _sources()
            if len(text.splitlines()) > MAX_FILE_LINES]
    assert not over, over


def test_no_function_over_60_lines():
    over = [f"{rel}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
            for rel, text in _sources() for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node)
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not over, over
