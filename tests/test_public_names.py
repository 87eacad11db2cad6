"""Every name has one address: the module that defines it (docs/architecture.md, "Layout").

Read from the source, by module name (:mod:`helpers.source_tree`), over the package and experiments/:

- a module's public names are its ``__all__``, or, without one, the names it defines at the top level that do not start
  with ``_``; each must be defined in that module: bound there by a ``def``, a ``class`` or an assignment, not by an
  import (a re-export) nor by an assignment that gives an object imported from the package a second name or address
  (an alias: ``MODELS = Q_MODELS``, ``TRIBUTE = Category.TRIBUTE``; a value named for a meaning of its own, such as
  ``LEVEL_A = Rank.ACE``, is no alias). So no object is importable from two modules under its public name;
- every ``from M import N`` of the package, its tests and experiments/ imports ``N`` from the module that defines it
  (or ``N`` is a submodule of ``M``), private names included; so does every ``m.N`` read through a module ``m`` bound
  by an import (``from cardrl.bench import scale``; ``scale.predict``).

A package's ``__init__.py`` is its face, which may gather the public names of its modules (``cardrl.envs``,
``cardrl.algorithms.training``: ``RunSpec``, ``run_training``); importing from a face is importing from the owner.

The one kind of second address kept: names that checkpoints pickled where an object used to be defined
(:data:`PICKLED_NAMES`). They are not in their module's ``__all__`` and nothing imports them from there.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
from dataclasses import dataclass
from functools import cache

from helpers.source_tree import ROOT, import_names, package_modules

TOP_LEVEL = ("cardrl", "experiments")
# Old name -> owner: what checkpoints written before an object moved pickled (RLlib pickles a config's
# policy_mapping_fn by its module path); each old name must still load the owner's object.
PICKLED_NAMES = {
    "cardrl.algorithms.dmc.dmc.one_module_per_seat": "cardrl.algorithms.common.policy_mapping.one_module_per_seat",
    "cardrl.algorithms.dmc.dmc.one_shared_module": "cardrl.algorithms.common.policy_mapping.one_shared_module",
    "cardrl.algorithms.topk_ppo.topk_ppo.one_module_per_seat":
        "cardrl.algorithms.common.policy_mapping.one_module_per_seat",
    "cardrl.algorithms.topk_ppo.topk_ppo.one_shared_module":
        "cardrl.algorithms.common.policy_mapping.one_shared_module",
}


@dataclass(frozen=True)
class Names:
    """A module's top-level names, read from its source."""

    defined: frozenset[str]  # bound by def, class or assignment
    imported: frozenset[str]  # bound by an import
    from_package: frozenset[str]  # bound by an import from cardrl or experiments
    aliases: dict[str, str]  # name -> the expression it renames: a name imported from cardrl, or its attribute of
    # the same name
    listed: tuple[str, ...] | None  # __all__, None without one

    @property
    def public(self) -> tuple[str, ...]:
        if self.listed is not None:
            return self.listed
        return tuple(sorted(n for n in self.defined if not n.startswith("_")))

    def owns(self, name: str) -> bool:
        return name in self.defined and name not in self.aliases


def _top_level(body):
    """The statements run at import: the module's, and those inside its top-level ``if``, ``try`` and ``with``."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                yield from _top_level(block)
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _root_name(node: ast.AST) -> str | None:
    """``a`` of ``a``, ``a.b`` or ``a.b.c``; None for any other expression."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def read_names(source: str, module: str, is_package: bool = False) -> Names:
    defined, imported, from_package, aliases = set(), set(), set(), {}
    listed: list[str] | None = None
    for node in _top_level(ast.parse(source).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            reached = import_names(node, module, is_package)
            for alias, name in zip(node.names, reached):
                bound = alias.asname or alias.name.split(".")[0]
                imported.add(bound)
                if name.split(".")[0] in TOP_LEVEL:
                    from_package.add(bound)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                if names == ["__all__"]:
                    value = list(ast.literal_eval(node.value))
                    listed = (listed or []) + value if isinstance(node, ast.AugAssign) else value
                    continue
                defined.update(names)
                value = node.value
                if isinstance(target, ast.Name) and _root_name(value) in from_package and \
                        (isinstance(value, ast.Name) or value.attr == target.id):
                    aliases[target.id] = ast.unparse(value)
    return Names(frozenset(defined), frozenset(imported), frozenset(from_package), aliases,
                 None if listed is None else tuple(listed))


@cache
def _names(module: str) -> Names:
    path = package_modules()[module]
    return read_names(path.read_text(), module, path.name == "__init__.py")


def _is_face(module: str) -> bool:
    return package_modules()[module].name == "__init__.py"


def _misplaced(module: str) -> list[str]:
    """The public names of ``module`` it does not define, saying what binds them."""
    names = _names(module)
    out = []
    for name in names.public:
        if name in names.aliases:
            out.append(f"{module}.{name} = {names.aliases[name]} (an alias)")
        elif name not in names.defined:
            out.append(f"{module}.{name} ({'imported' if name in names.imported else 'not bound'})")
    return out


def _python_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return sorted({f for f in listed if not f.startswith("tests/data/") and (ROOT / f).is_file()})


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of an attribute chain read from a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(scope: ast.AST):
    """The nodes of a module's or a function's own scope: not those of the functions and classes inside it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


class _Reads(ast.NodeVisitor):
    """Every ``m.N`` (read) with ``m`` a module of the package bound by an import in its scope or an enclosing one."""

    def __init__(self, module: str, is_package: bool):
        self.module, self.is_package, self.scopes, self.reads = module, is_package, [], []

    def _bindings(self, scope: ast.AST) -> dict[str, str | None]:
        """Name -> the package module an import binds it to; None for a name bound otherwise (it shadows)."""
        modules, out = package_modules(), {}
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            out.update(dict.fromkeys(a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)))
        for node in _own_nodes(scope):
            if isinstance(node, ast.ImportFrom):
                for alias, name in zip(node.names, import_names(node, self.module, self.is_package)):
                    out[alias.asname or alias.name] = name if name in modules else None
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    out[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                        alias.name.split(".")[0]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.setdefault(node.id, None)
            elif isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
                out.setdefault(node.name, None)
        return out

    def visit(self, node):
        scoped = isinstance(node, (ast.Module, *_SCOPES))
        if scoped:
            self.scopes.append(self._bindings(node))
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            root, _, rest = (_dotted(node) or "").partition(".")
            bound = next((s[root] for s in reversed(self.scopes) if root in s), None)
            if bound in package_modules() and rest:
                self.reads.append((f"{bound}.{rest}", node.lineno))
        super().visit(node)
        if scoped:
            self.scopes.pop()


def _misaddressed(source: str, module: str, is_package: bool = False, where: str = "") -> list[str]:
    """Where ``source`` takes a name of the package from a module (no face) that does not define it: ``from M import
    N``, or ``m.N`` with ``m`` bound to M by an import (``from cardrl.bench import scale``, ``import cardrl.x as m``).
    A dunder, and what M imports from outside the package (``m.subprocess``), are no names of the package."""
    modules = package_modules()
    tree = ast.parse(source)
    taken = [(name, node.lineno, "imports") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             for name in import_names(node, module, is_package)]
    reads = _Reads(module, is_package)
    reads.visit(tree)
    out = []
    for name, lineno, how in taken + [(name, lineno, "reads") for name, lineno in reads.reads]:
        base, _, attr = name.rpartition(".")
        if name in modules or base not in modules or _is_face(base) or attr.startswith("__"):
            continue
        names = _names(base)
        if not names.owns(attr) and (attr in names.from_package or attr not in names.imported):
            out.append(f"{where}:{lineno} {how} {attr} from {base}")
    return out


def test_the_reader_sees_re_exports_aliases_and_unbound_names():
    toy = """
from cardrl.games.engine import GameOverError
from cardrl.algorithms.dmc.settings import Q_MODELS
from ray.rllib.core.columns import Columns
import numpy as np
try:
    FAST = True
except ImportError:
    FAST = False
from cardrl.games.guandan.moves import Category, Rank
__all__ = ["Game", "GameOverError", "MODELS", "TRIBUTE", "LEVEL_A", "OBS", "PI", "MISSING"]
MODELS = Q_MODELS
TRIBUTE = Category.TRIBUTE
LEVEL_A = Rank.ACE
OBS = Columns.OBS
PI = np.pi
class Game:
    pass
"""
    names = read_names(toy, "cardrl.games.toy")
    assert names.defined >= {"Game", "MODELS", "OBS", "PI", "FAST"} and "GameOverError" in names.imported
    # a value named for a meaning of its own, and a third party's object renamed, are names of the module's own
    assert names.aliases == {"MODELS": "Q_MODELS", "TRIBUTE": "Category.TRIBUTE"}
    assert [n for n in names.public if not names.owns(n)] == ["GameOverError", "MODELS", "TRIBUTE", "MISSING"]
    assert read_names("X = 1\n_Y = 2\ndef f(): pass\n", "cardrl.toy").public == ("X", "f")


def test_every_public_name_is_defined_where_it_is_listed():
    offenders = [o for module in sorted(package_modules()) if not _is_face(module) for o in _misplaced(module)]
    assert not offenders, "public names defined elsewhere (import them from their owner instead):\n" + \
        "\n".join(offenders)


def test_every_import_names_the_module_that_defines_it():
    index = {str(path.relative_to(ROOT)): module for module, path in package_modules().items()}
    offenders = []
    for file in _python_files():
        module = index.get(file, file.removesuffix(".py").replace("/", "."))
        offenders += _misaddressed((ROOT / file).read_text(), module, file.endswith("__init__.py"), file)
    assert not offenders, "names taken from a module that does not define them (take them from their owner):\n" + \
        "\n".join(offenders)


def test_no_class_or_function_is_public_in_a_module_that_did_not_define_it():
    """The same rule on the imported package: each public class or function of a module (no face) was defined there
    (its ``__module__``), so none is public in two modules."""
    offenders = []
    for module in sorted(m for m in package_modules() if m.startswith("cardrl.") and not _is_face(m)):
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as err:  # an optional dependency this machine lacks
            if (err.name or "").split(".")[0] in TOP_LEVEL:
                raise
            continue
        public = getattr(loaded, "__all__", None) or _names(module).public
        offenders += [f"{module}.{name} (defined in {obj.__module__})" for name in public
                      if (inspect.isclass(obj := getattr(loaded, name)) or inspect.isfunction(obj))
                      and obj.__module__ != module]
    assert not offenders, "public classes and functions defined elsewhere:\n" + "\n".join(offenders)


def test_the_old_pickled_names_load_their_owners_objects():
    for old, owner in PICKLED_NAMES.items():
        module, _, name = old.rpartition(".")
        assert name not in (_names(module).listed or ()), f"{old} is kept for old pickles only, not public"
        owner_module, _, owner_name = owner.rpartition(".")
        assert getattr(importlib.import_module(module), name) is \
            getattr(importlib.import_module(owner_module), owner_name), old
