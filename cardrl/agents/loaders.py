"""Agents loaded from files (checkpoints), through loaders that algorithm packages register.

The core never imports an algorithm: an algorithm package registers an :class:`AgentLoader` per spec kind (DMC:
``checkpoint:PATH[:MODULE]`` and ``douzero:DIR``) either by calling :func:`register_agent_loader` or, for installed
packages, through the entry-point group ``cardrl.agent_loaders`` (each entry point names a function that registers
its loaders; cardrl's own DMC does this in pyproject.toml). :func:`agent_loader` finds a kind's loader, reading the
entry points the first time a kind is not known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from cardrl.agents.base import Agent

__all__ = ["AgentLoader", "register_agent_loader", "agent_loader", "loader_kinds", "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "cardrl.agent_loaders"


@dataclass(frozen=True)
class AgentLoader:
    """How to build an agent from ``KIND:PATH[:MODULE]``: ``load(path, game, options, module) -> Agent``.

    ``usage`` is the spec's form for help texts (``"checkpoint:PATH[:MODULE]"``); ``games`` the games it can play
    (``None``: any registered game); ``runs_code``: loading its files may run code they carry (a pickle, such as an
    RLlib checkpoint), so a path this machine did not produce is warned about first
    (:mod:`cardrl.checkpoint_trust`). A loader that reads data only (safetensors, ONNX, torch's ``weights_only``)
    says ``runs_code=False``. ``takes_path=False``: the spec's argument is a name, not a path (``zoo:GAME``), so the
    command line leaves it as given.
    """

    kind: str
    load: Callable[[str, str, Mapping[str, Any], str | None], Agent]
    usage: str
    games: tuple[str, ...] | None = None
    runs_code: bool = True
    takes_path: bool = True


_LOADERS: dict[str, AgentLoader] = {}
_entry_points_read = False


def register_agent_loader(loader: AgentLoader, *, replace: bool = False) -> AgentLoader:
    """Make ``loader.kind`` an agent-spec kind; ``replace=True`` to overwrite an existing one."""
    if loader.kind in _LOADERS and not replace and _LOADERS[loader.kind] != loader:
        raise ValueError(f"an agent loader for {loader.kind!r} is already registered (pass replace=True)")
    _LOADERS[loader.kind] = loader
    return loader


def _read_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        point.load()()


def agent_loader(kind: str) -> AgentLoader | None:
    """The loader of a spec kind, or None when no installed package registers one."""
    if kind not in _LOADERS:
        _read_entry_points()
    return _LOADERS.get(kind)


def loader_kinds() -> dict[str, AgentLoader]:
    """Every registered loader by kind (entry points read)."""
    _read_entry_points()
    return dict(_LOADERS)
