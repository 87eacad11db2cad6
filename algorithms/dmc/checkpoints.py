"""Agents from DMC checkpoints: the agent-spec kinds ``checkpoint:PATH[:MODULE]`` and ``douzero:DIR``.

:func:`register` adds both to :mod:`cardrl.agents.loaders`; pyproject.toml names it in the entry-point group
``cardrl.agent_loaders``, so ``cardrl eval ... --a checkpoint:runs/dmc_doudizhu/checkpoint`` works without the core
importing this package.

- ``checkpoint:PATH[:MODULE]``: a cardrl DMC checkpoint. PATH is an algorithm checkpoint directory (its
  ``learner_group/learner/rl_module``) or a multi-module directory; each seat plays the module of its agent (the
  game's module mapping: one per DouDiZhu role, ``shared`` for Big2 and GuanDan). With ``:MODULE`` that one module
  plays every seat. The checkpoint's game and rule options are checked against the game's before anything plays.
- ``douzero:DIR``: DouZero's public checkpoints ``DIR/landlord.ckpt``, ``landlord_down.ckpt``, ``landlord_up.ckpt``
  (``torch.save``'d state_dicts of ``LandlordLstmModel`` / ``FarmerLstmModel``) loaded into
  :class:`~cardrl.algorithms.dmc.dmc_rl_module.DouZeroQModule` (same parameter names; Zha et al. 2021, Fig. 3);
  DouDiZhu with DouZero's move set only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.agents.q_agent import QAgent
from cardrl.games.registry import get_game

__all__ = ["register", "load_checkpoint_agent", "load_checkpoint_modules", "load_douzero_agent",
           "load_douzero_checkpoints", "DOUZERO_FILES"]

DOUZERO_FILES = {"landlord": "landlord.ckpt", "landlord_down": "landlord_down.ckpt",
                 "landlord_up": "landlord_up.ckpt"}


def _module_root(path: Path) -> Path:
    """The directory holding one sub-directory per module: ``PATH/learner_group/learner/rl_module`` or PATH."""
    nested = path / "learner_group" / "learner" / "rl_module"
    return nested if nested.is_dir() else path


def _check_algorithm_checkpoint(root: Path, game: str, options: Mapping[str, Any]) -> dict:
    """An algorithm checkpoint's DMC counters; ValueError unless it was trained on ``game`` with the same move set."""
    from cardrl.algorithms.dmc.dmc import read_checkpoint_counters

    counters = read_checkpoint_counters(root)
    if not counters:
        raise ValueError(f"{root} is an RLlib checkpoint but not a cardrl DMC one (no DMC counters)")
    spec = get_game(game)
    if counters.get("game") != spec.env_name:
        raise ValueError(f"checkpoint {root} was trained on {counters.get('game')!r}, not on {game!r} "
                         f"({spec.env_name!r})")
    if "kickers" in spec.rule_options and counters.get("kickers", "douzero") != options.get("kickers", "douzero"):
        raise ValueError(f"checkpoint {root} was trained with kickers={counters.get('kickers')!r}; the deals use "
                         f"kickers={options.get('kickers')!r}")
    return counters


def checkpoint_features(path: str | Path) -> str | None:
    """The feature encoder an algorithm checkpoint was trained with (None: not recorded, the game's default)."""
    from cardrl.algorithms.dmc.dmc import read_checkpoint_counters

    root = Path(path)
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        return (read_checkpoint_counters(root) or {}).get("features")
    return None


def load_checkpoint_modules(path: str | Path, game: str, options: Mapping[str, Any] | None = None,
                            module: str | None = None) -> dict[str, Any]:
    """Agent name -> Q-module (eval mode, CPU) of a cardrl DMC checkpoint for ``game``; the checkpoint's game and
    move set are checked when it is an algorithm checkpoint."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from cardrl.algorithms.dmc.dmc import MAPPINGS

    spec = get_game(game)
    options = spec.full_options(options)
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        _check_algorithm_checkpoint(root, spec.name, options)
    mroot = _module_root(root)
    mapping = MAPPINGS[spec.module_mapping]
    names = {agent: module or mapping(agent) for agent in spec.agents}
    missing = sorted({n for n in names.values() if not (mroot / n).is_dir()})
    if missing:
        have = sorted(p.name for p in mroot.iterdir() if p.is_dir()) if mroot.is_dir() else []
        raise ValueError(f"checkpoint {root} has no module(s) {missing} (under {mroot}; it has {have})")
    loaded = {n: RLModule.from_checkpoint(str(mroot / n)) for n in set(names.values())}
    for m in loaded.values():
        m.eval()
    return {agent: loaded[n] for agent, n in names.items()}


def load_checkpoint_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> QAgent:
    """A greedy :class:`QAgent` over a DMC checkpoint's Q-networks (the ``checkpoint:`` spec kind)."""
    modules = load_checkpoint_modules(path, game, options, module)
    return QAgent(modules, game, features=checkpoint_features(path))


def load_douzero_checkpoints(directory: str | Path) -> dict[str, Any]:
    """Role -> :class:`DouZeroQModule` holding DouZero's public weights (``landlord.ckpt``, ``landlord_down.ckpt``,
    ``landlord_up.ckpt`` in ``directory``). The state_dicts must match DouZero's architecture key for key and
    shape for shape (a clear ValueError otherwise)."""
    import torch

    from cardrl.algorithms.dmc.dmc_rl_module import DOUZERO_ROLE_DIMS, dmc_module_spec

    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"DouZero checkpoint directory {directory} does not exist")
    files = {role: directory / name for role, name in DOUZERO_FILES.items()}
    missing = [str(f) for f in files.values() if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"DouZero checkpoint file(s) missing: {missing}; expected "
                                f"{sorted(DOUZERO_FILES.values())} in {directory}")
    multi = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS).build()
    modules = {}
    for role, file in files.items():
        try:
            state = torch.load(file, map_location="cpu", weights_only=True)
        except Exception as err:  # torch raises many types for a bad file
            raise ValueError(f"{file} is not a torch state_dict file: {err}") from err
        if not isinstance(state, dict):
            raise ValueError(f"{file} holds a {type(state).__name__}, not a state_dict")
        module = multi[role]
        own = module.state_dict()
        wrong = sorted(set(own) ^ set(state))
        bad = [f"{k} {tuple(state[k].shape)} (want {tuple(v.shape)})" for k, v in own.items()
               if k in state and tuple(state[k].shape) != tuple(v.shape)]
        if wrong or bad:
            raise ValueError(f"{file} does not match DouZero's {role} network (a DouDiZhu "
                             f"{'LandlordLstmModel' if role == 'landlord' else 'FarmerLstmModel'}): "
                             f"unexpected/missing keys {wrong}, wrong shapes {bad}")
        module.load_state_dict(state)
        module.eval()
        modules[role] = module
    return modules


def load_douzero_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> QAgent:
    """A greedy :class:`QAgent` over DouZero's public checkpoints (the ``douzero:`` spec kind)."""
    if module is not None:
        raise ValueError("douzero:DIR takes no :MODULE (DouZero's checkpoints hold one network per role)")
    spec = get_game(game)
    if tuple(spec.agents) != tuple(DOUZERO_FILES):
        raise ValueError(f"DouZero's checkpoints hold one network per DouDiZhu role {tuple(DOUZERO_FILES)}; {game} has "
                         f"the agents {spec.agents}")
    kickers = spec.full_options(options).get("kickers")
    if kickers != "douzero":
        raise ValueError(f"DouZero's checkpoints play DouZero's move set (kickers='douzero'); the deals use "
                         f"kickers={kickers!r}")
    return QAgent(load_douzero_checkpoints(path), game)


def register() -> None:
    """Register the ``checkpoint`` and ``douzero`` agent-spec kinds (the ``cardrl.agent_loaders`` entry point)."""
    register_agent_loader(AgentLoader("checkpoint", load_checkpoint_agent, "checkpoint:PATH[:MODULE]"),
                          replace=True)
    register_agent_loader(AgentLoader("douzero", load_douzero_agent, "douzero:DIR"), replace=True)
