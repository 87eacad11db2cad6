"""Agents from spec strings, for tournaments and the CLI (DESIGN.md layer 5/6).

Spec grammar (checked by :func:`parse_agent_spec` before anything is built or played):

- ``random`` or ``random:SEED``: :class:`~cardrl.agents.RandomAgent` (without SEED the tournament gives side A
  and side B different seeds; equal SEEDs make identical players).
- ``rule``: :class:`~cardrl.agents.DouDizhuRuleAgent` (DouDiZhu), :class:`~cardrl.agents.Big2RuleAgent` (Big2),
  ``GuanDanShedAgent`` (GuanDan); ``rule-control``: ``GuanDanControlAgent`` (GuanDan).
- ``mcs-greedy``: :class:`~cardrl.search.MCSGreedyAgent`, the greedy Minimum-Combination-Search agent (Luo & Tan
  2024, Sec. 4.3), for DouDiZhu, Big2 and GuanDan.
- ``checkpoint:PATH[:MODULE]``: a cardrl DMC checkpoint. PATH is an algorithm checkpoint directory (its
  ``learner_group/learner/rl_module``) or a multi-module directory; each seat plays the module named like its
  role. With ``:MODULE`` that one module plays every seat (games with one shared network).
- ``douzero:DIR``: DouZero's public checkpoints ``DIR/landlord.ckpt``, ``landlord_down.ckpt``,
  ``landlord_up.ckpt`` (``torch.save``'d state_dicts of ``LandlordLstmModel`` / ``FarmerLstmModel``) loaded into
  :class:`~cardrl.algorithms.dmc.dmc_rl_module.DouZeroQModule` (same parameter names; Zha et al. 2021, Fig. 3).

torch and Ray are imported only to build checkpoint agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardrl.agents.base import Agent

__all__ = ["AgentSpec", "parse_agent_spec", "build_agent", "load_dmc_checkpoint_modules",
           "load_douzero_checkpoints", "SPEC_KINDS", "DOUZERO_FILES"]

SPEC_KINDS = ("random", "rule", "rule-control", "mcs-greedy", "checkpoint", "douzero")
SPEC_HELP = "random[:SEED] | rule | rule-control (GuanDan) | mcs-greedy | checkpoint:PATH[:MODULE] | douzero:DIR"
DOUZERO_FILES = {"landlord": "landlord.ckpt", "landlord_down": "landlord_down.ckpt",
                 "landlord_up": "landlord_up.ckpt"}
_RULE_GAMES = {"rule": ("doudizhu", "big2", "guandan"), "rule-control": ("guandan",), "douzero": ("doudizhu",),
               "mcs-greedy": ("doudizhu", "big2", "guandan")}


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: ``kind`` (one of :data:`SPEC_KINDS`), ``path``, ``module`` and ``seed`` as given."""

    text: str
    kind: str
    path: str | None = None
    module: str | None = None
    seed: int | None = None


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse a spec string (module docstring); ValueError saying what is allowed when it does not parse."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"agent spec {text!r} does not parse; allowed: {SPEC_HELP}")
    text = text.strip()
    kind, _, rest = text.partition(":")
    if kind == "random":
        if not rest:
            return AgentSpec(text, "random")
        if not rest.isdigit():
            raise ValueError(f"agent spec {text!r} does not parse: random:SEED needs a non-negative int seed")
        return AgentSpec(text, "random", seed=int(rest))
    if kind in ("rule", "rule-control", "mcs-greedy"):
        if rest:
            raise ValueError(f"agent spec {text!r} does not parse: {kind} takes no argument")
        return AgentSpec(text, kind)
    if kind == "douzero":
        if not rest:
            raise ValueError(f"agent spec {text!r} does not parse: douzero:DIR needs the checkpoint directory")
        return AgentSpec(text, "douzero", path=rest)
    if kind == "checkpoint":
        if not rest:
            raise ValueError(f"agent spec {text!r} does not parse: checkpoint:PATH[:MODULE] needs a path")
        path, module = rest, None
        head, sep, tail = rest.rpartition(":")
        if sep and head and tail and "/" not in tail and not Path(rest).exists():
            path, module = head, tail
        return AgentSpec(text, "checkpoint", path=path, module=module)
    raise ValueError(f"agent spec {text!r} does not parse: unknown kind {kind!r}; allowed: {SPEC_HELP}")


def build_agent(spec: str | AgentSpec, game: str = "doudizhu", options: dict[str, Any] | None = None,
                seed: int = 0) -> Agent:
    """Build the agent of ``spec`` for ``game`` with rule ``options`` (the deal file's). ``seed`` seeds a
    ``random`` spec without its own seed. Raises ValueError/FileNotFoundError before any game is played when the
    spec does not parse or a checkpoint does not fit the game."""
    spec = spec if isinstance(spec, AgentSpec) else parse_agent_spec(spec)
    options = dict(options or {})
    games = _RULE_GAMES.get(spec.kind)
    if games is not None and game not in games:
        raise ValueError(f"agent spec {spec.text!r} plays {', '.join(games)} only, not {game!r}")
    kickers = options.get("kickers", "douzero")
    if spec.kind == "random":
        from cardrl.agents import RandomAgent

        agent = RandomAgent(spec.seed if spec.seed is not None else seed)
    elif spec.kind == "rule" and game == "guandan":
        from cardrl.agents import GuanDanShedAgent

        agent = GuanDanShedAgent()
    elif spec.kind == "rule-control":
        from cardrl.agents import GuanDanControlAgent

        agent = GuanDanControlAgent()
    elif spec.kind == "rule" and game == "big2":
        from cardrl.agents import Big2RuleAgent

        agent = Big2RuleAgent(straight_order=options.get("straight_order", "bigzero"))
    elif spec.kind == "rule":
        from cardrl.agents import DouDizhuRuleAgent

        agent = DouDizhuRuleAgent(kickers=kickers)
    elif spec.kind == "mcs-greedy":
        agent = _mcs_greedy(game, options)
    elif spec.kind == "douzero":
        if kickers != "douzero":
            raise ValueError(f"DouZero's checkpoints play DouZero's move set (kickers='douzero'); the deals use "
                             f"kickers={kickers!r}")
        from cardrl.agents.dmc_agent import DMCAgent

        agent = DMCAgent(load_douzero_checkpoints(spec.path), kickers=kickers)
    else:
        from cardrl.agents.dmc_agent import DMCAgent, SharedDMCAgent

        if game in ("big2", "guandan"):
            module = load_shared_checkpoint_module(spec.path, game=game, module=spec.module)
            agent = SharedDMCAgent(module, game, straight_order=options.get("straight_order", "bigzero"))
        else:
            modules = load_dmc_checkpoint_modules(spec.path, game=game, kickers=kickers, module=spec.module)
            agent = DMCAgent(modules, kickers=kickers)
    agent.name = spec.text
    return agent


def _mcs_greedy(game: str, options: dict[str, Any]) -> Agent:
    """``MCSGreedyAgent`` for ``game`` on the move table of the deal file's rule options."""
    from cardrl.search import MCSGreedyAgent

    if game == "guandan":
        return MCSGreedyAgent(game="guandan")
    if game == "big2":
        from cardrl.games.big2_moves import big2_move_table

        return MCSGreedyAgent(game="big2", table=big2_move_table(options.get("straight_order", "bigzero")))
    return MCSGreedyAgent(game="doudizhu", kickers=options.get("kickers", "douzero"))


# ---- checkpoints ---------------------------------------------------------------------------------------------
def _module_root(path: Path) -> Path:
    """The directory holding one sub-directory per module: ``PATH/learner_group/learner/rl_module`` or PATH."""
    nested = path / "learner_group" / "learner" / "rl_module"
    return nested if nested.is_dir() else path


def _check_algorithm_checkpoint(root: Path, game: str) -> dict:
    from cardrl.algorithms.dmc.dmc import read_checkpoint_counters
    from cardrl.envs.rllib import GAME_ENVS

    counters = read_checkpoint_counters(root)
    if not counters:
        raise ValueError(f"{root} is an RLlib checkpoint but not a cardrl DMC one (no DMC counters)")
    want = GAME_ENVS.get(game, game)
    if counters.get("game") != want:
        raise ValueError(f"checkpoint {root} was trained on {counters.get('game')!r}, not on {game!r} ({want!r})")
    return counters


def load_shared_checkpoint_module(path: str | Path, game: str, module: str | None = None) -> Any:
    """The shared Q-module (``"shared"``, or ``module``) of a Big2 / GuanDan DMC checkpoint (eval mode, CPU); the
    checkpoint's game is checked when it is an algorithm checkpoint."""
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        _check_algorithm_checkpoint(root, game)
    mroot = _module_root(root)
    name = module or "shared"
    if not (mroot / name).is_dir():
        have = sorted(p.name for p in mroot.iterdir() if p.is_dir()) if mroot.is_dir() else []
        raise ValueError(f"checkpoint {root} has no module {name!r} (under {mroot}; it has {have})")
    from ray.rllib.core.rl_module.rl_module import RLModule

    loaded = RLModule.from_checkpoint(str(mroot / name))
    loaded.eval()
    return loaded


def load_dmc_checkpoint_modules(path: str | Path, game: str = "doudizhu", kickers: str = "douzero",
                                module: str | None = None) -> dict[str, Any]:
    """Role -> Q-module from a cardrl DMC checkpoint (eval mode, CPU). Checks the checkpoint's game and kickers
    (from its DMC counters when it is an algorithm checkpoint) and the modules' input sizes before returning."""
    from cardrl.agents.dmc_agent import check_modules_fit
    from cardrl.features.douzero import DouZeroFeatures
    from cardrl.games.doudizhu import ROLES

    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        from cardrl.algorithms.dmc.dmc import read_checkpoint_counters
        from cardrl.envs.rllib import GAME_ENVS

        counters = read_checkpoint_counters(root)
        if not counters:
            raise ValueError(f"{root} is an RLlib checkpoint but not a cardrl DMC one (no DMC counters)")
        want = GAME_ENVS.get(game, game)
        if counters.get("game") != want:
            raise ValueError(f"checkpoint {root} was trained on {counters.get('game')!r}, not on {game!r} "
                             f"({want!r})")
        if counters.get("kickers", "douzero") != kickers:
            raise ValueError(f"checkpoint {root} was trained with kickers={counters.get('kickers')!r}; the deals "
                             f"use kickers={kickers!r}")
    mroot = _module_root(root)
    names = [module] if module is not None else list(ROLES)
    missing = [n for n in names if not (mroot / n).is_dir()]
    if missing:
        have = sorted(p.name for p in mroot.iterdir() if p.is_dir()) if mroot.is_dir() else []
        raise ValueError(f"checkpoint {root} has no module(s) {missing} (under {mroot}; it has {have})")
    from ray.rllib.core.rl_module.rl_module import RLModule

    loaded = {n: RLModule.from_checkpoint(str(mroot / n)) for n in names}
    modules = {role: loaded[module if module is not None else role] for role in ROLES}
    for m in loaded.values():
        m.eval()
    check_modules_fit(modules, DouZeroFeatures(), f"checkpoint {root}")
    return modules


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
