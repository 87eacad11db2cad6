"""Agents from DMC checkpoints: the agent-spec kinds ``checkpoint:PATH[:OPTIONS]`` and ``douzero:DIR``.

:func:`register` adds both to :mod:`cardrl.agents.loaders`; pyproject.toml names it in the entry-point group
``cardrl.agent_loaders``, so ``cardrl eval ... --a checkpoint:runs/dmc_doudizhu/checkpoint`` works without the core
importing this package.

- ``checkpoint:PATH[:MODULE]``: a cardrl DMC checkpoint. PATH is an algorithm checkpoint directory (its
  ``learner_group/learner/rl_module``) or a multi-module directory; each seat plays the module of its agent (the
  module mapping the run trained with, recorded in the checkpoint: one per DouDiZhu role with DouZero's features,
  ``shared`` with Luo & Tan's unified features and for Big2 and GuanDan). With ``:MODULE`` that one module plays
  every seat. The checkpoint's game and rule options are checked against the game's before anything plays.
- ``checkpoint:PATH:OPTIONS``: OPTIONS is a comma-separated list of ``MODULE`` (at most one), ``oracle`` and
  ``unpruned``. An algorithm checkpoint plays the way it was trained (its training options are read from the
  checkpoint: :class:`~cardrl.algorithms.dmc.play_options.PlayOptions`): an ODMC agent (``prune="mcs"``) chooses among
  the moves eq. 2 keeps, with the run's ``prune_slack`` and ``prune_extra`` (Luo & Tan 2024, Sec. 4.3); ``unpruned``
  lets it choose among every legal move. An oracle-guided agent is fed a zero oracle block (deployable: what a real
  player sees); ``oracle`` feeds it the block it was trained on at the checkpoint's frames, lambda of the schedule x
  the true hands (``oracle_mode="bernoulli"``: the true hands), so the agent reads every hand (OADMCDou, Luo et al.
  2024, eq. 1 and Fig. 4). ``oracle`` on an agent trained without it, or at lambda 0, and ``unpruned`` on an agent
  trained without pruning are refused (they would change nothing).
- ``douzero:DIR``: DouZero's public checkpoints ``DIR/landlord.ckpt``, ``landlord_down.ckpt``, ``landlord_up.ckpt``
  (``torch.save``'d state_dicts of ``LandlordLstmModel`` / ``FarmerLstmModel``) loaded into
  :class:`~cardrl.algorithms.dmc.dmc_rl_module.DouZeroQModule` (same parameter names; Zha et al. 2021, Fig. 3);
  DouDiZhu with DouZero's move set only.

A checkpoint of the whole game (``bidding=True``, recorded in its counters; AlphaDou, docs/bidding.md) also holds the
bidding networks (``bid_0`` .. ``bid_2``, or ``bid``): its agent bids with them (``QAgent.bids``); any other
checkpoint's agent has ``bids = False``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.agents.q_agent import QAgent
from cardrl.algorithms.common.checkpoint_identity import recorded_layout_problems
from cardrl.algorithms.common.checkpoint_state import load_module_dirs
from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.algorithms.dmc.checkpointing import (MANIFEST, IncompleteCheckpointError, missing_module_files,
                                                 verify_checkpoint)
from cardrl.algorithms.dmc.counters import read_checkpoint_counters
from cardrl.games.registry import get_game

__all__ = ["register", "load_checkpoint_agent", "load_checkpoint_modules", "load_douzero_agent",
           "load_douzero_checkpoints", "DOUZERO_FILES", "checkpoint_features", "checkpoint_bids", "load_bid_modules",
           "parse_checkpoint_options", "SPEC_OPTIONS"]

DOUZERO_FILES = {"landlord": "landlord.ckpt", "landlord_down": "landlord_down.ckpt",
                 "landlord_up": "landlord_up.ckpt"}


def _module_root(path: Path) -> Path:
    """The directory holding one sub-directory per module: ``PATH/learner_group/learner/rl_module`` or PATH."""
    nested = path / "learner_group" / "learner" / "rl_module"
    return nested if nested.is_dir() else path


def _check_algorithm_checkpoint(root: Path, game: str, options: Mapping[str, Any]) -> dict:
    """An algorithm checkpoint's DMC counters; ValueError unless it was trained on ``game`` with the same move set."""
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
    problems = recorded_layout_problems(counters, spec, options)
    if problems:
        raise ValueError(f"checkpoint {root} does not fit this cardrl's {spec.name} (" + "; ".join(problems) + ")")
    return counters


def _is_algorithm_checkpoint(root: Path) -> bool:
    """Whether a directory is (or was meant to be) an algorithm checkpoint, not a bare module directory: then its
    algorithm state, which records the game, must be there (a checkpoint that lost it is refused, not played blind)."""
    return any((root / name).exists() for name in ("algorithm_state.pkl", "algorithm_state.msgpack", MANIFEST,
                                                   "rllib_checkpoint.json", "learner_group"))


def checkpoint_features(path: str | Path) -> str | None:
    """The feature encoder an algorithm checkpoint was trained with (None: not recorded, the game's default)."""
    root = Path(path)
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        return (read_checkpoint_counters(root) or {}).get("features")
    return None


def _module_mapping_of(counters: Mapping[str, Any] | None, module_root: Path, spec) -> str:
    """The module mapping a checkpoint was trained with: recorded in its DMC counters; else (checkpoints written
    before it was recorded, or a bare module directory) ``"shared"`` when there is a ``shared`` module and not one
    per agent, else the game's default for its default features (what every run used then)."""
    if counters and counters.get("module_mapping"):
        return str(counters["module_mapping"])
    per_agent = all((module_root / agent).is_dir() for agent in spec.agents)
    if (module_root / "shared").is_dir() and not per_agent:
        return "shared"
    return default_module_mapping(spec)


def load_checkpoint_modules(path: str | Path, game: str, options: Mapping[str, Any] | None = None,
                            module: str | None = None) -> dict[str, Any]:
    """Agent name -> Q-module (eval mode, CPU) of a cardrl DMC checkpoint for ``game``; the checkpoint's game and
    move set are checked when it is an algorithm checkpoint."""
    from cardrl.algorithms.common.policy_mapping import MAPPINGS

    spec = get_game(game)
    options = spec.full_options(options)
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    counters = None
    if _is_algorithm_checkpoint(root):
        verify_checkpoint(root, algorithm=False)
        counters = _check_algorithm_checkpoint(root, spec.name, options)
    mroot = _module_root(root)
    mapping = MAPPINGS[_module_mapping_of(counters, mroot, spec)]
    names = {agent: module or mapping(agent) for agent in spec.agents}
    missing = sorted({n for n in names.values() if not (mroot / n).is_dir()})
    if missing:
        have = sorted(p.name for p in mroot.iterdir() if p.is_dir()) if mroot.is_dir() else []
        raise ValueError(f"checkpoint {root} has no module(s) {missing} (under {mroot}; it has {have})")
    incomplete = [p for n in sorted(set(names.values())) for p in missing_module_files(mroot / n, mroot)]
    if incomplete:
        raise IncompleteCheckpointError(f"checkpoint {root} is incomplete or corrupt: missing {', '.join(incomplete)} "
                                        f"(under {mroot})")
    loaded = load_module_dirs(mroot, set(names.values()), root)
    return {agent: loaded[n] for agent, n in names.items()}


def checkpoint_bids(path: str | Path) -> bool:
    """Whether an algorithm checkpoint was trained on the whole game (its counters' ``bidding``; older: False)."""
    root = Path(path)
    if (root / "algorithm_state.pkl").is_file() or (root / "algorithm_state.msgpack").is_file():
        return bool((read_checkpoint_counters(root) or {}).get("bidding", False))
    return False


def load_bid_modules(path: str | Path) -> dict[str, Any]:
    """The bidding Q-networks of a whole-game checkpoint by module id (eval mode, CPU); ValueError when it has
    none."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from cardrl.algorithms.dmc.bidding import is_bid_module

    mroot = _module_root(Path(path))
    found = sorted(p for p in mroot.iterdir() if p.is_dir() and is_bid_module(p.name))
    if not found:
        raise ValueError(f"checkpoint {path} records bidding=True but has no bidding module (bid_0 .. bid_2 or bid) "
                         f"under {mroot}")
    modules = {p.name: RLModule.from_checkpoint(str(p.resolve())) for p in found}
    for m in modules.values():
        m.eval()
    return modules


SPEC_OPTIONS = ("oracle", "unpruned")  # checkpoint:PATH:OPTIONS words besides a module name


def parse_checkpoint_options(text: str | None) -> tuple[str | None, bool, bool]:
    """``checkpoint:PATH:OPTIONS``'s OPTIONS -> (module or None, feed the trained oracle block, play unpruned)."""
    words = [w.strip() for w in (text or "").split(",")] if text else []
    if any(not w for w in words):
        raise ValueError(f"checkpoint options {text!r} have an empty word; allowed: a comma-separated list of MODULE, "
                         f"{', '.join(SPEC_OPTIONS)}")
    modules = [w for w in words if w not in SPEC_OPTIONS]
    if len(modules) > 1:
        raise ValueError(f"checkpoint options {text!r} name modules {modules}: at most one MODULE (besides "
                         f"{', '.join(SPEC_OPTIONS)})")
    repeated = sorted({w for w in words if words.count(w) > 1})
    if repeated:
        raise ValueError(f"checkpoint options {text!r} repeat {repeated}")
    return (modules[0] if modules else None), "oracle" in words, "unpruned" in words


def load_checkpoint_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> QAgent:
    """A greedy :class:`QAgent` over a DMC checkpoint's Q-networks (the ``checkpoint:`` spec kind), playing the way
    it was trained (module docstring); ``module`` is the spec's OPTIONS."""
    from cardrl.algorithms.dmc.play_options import PlayOptions

    module, oracle, unpruned = parse_checkpoint_options(module)
    modules = load_checkpoint_modules(path, game, options, module)
    trained = PlayOptions.of_checkpoint(path)
    where = f"checkpoint:{path}"
    if trained is None and (oracle or unpruned):
        raise ValueError(f"{where}: {'oracle' if oracle else 'unpruned'} needs an algorithm checkpoint (it records how "
                         f"the agent was trained); {path} holds modules only")
    if oracle:
        trained.check_trained_block(where)
    if unpruned and not trained.pruned:
        raise ValueError(f"{where}: 'unpruned' applies to an agent trained with pruning (prune='mcs'); this one was "
                         f"trained without, and plays every legal move already")
    move_filter = trained.view_pruner(game, options) if trained is not None and trained.pruned and not unpruned \
        else None
    blocks = trained.view_blocks() if oracle else None
    bid_modules = load_bid_modules(path) if checkpoint_bids(path) else None
    return QAgent(modules, game, features=checkpoint_features(path), move_filter=move_filter, input_blocks=blocks,
                  bid_modules=bid_modules)


def load_douzero_checkpoints(directory: str | Path) -> dict[str, Any]:
    """Role -> :class:`DouZeroQModule` holding DouZero's public weights (``landlord.ckpt``, ``landlord_down.ckpt``,
    ``landlord_up.ckpt`` in ``directory``). The state_dicts must match DouZero's architecture key for key and
    shape for shape (a clear ValueError otherwise)."""
    import torch

    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import DOUZERO_ROLE_DIMS

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
    register_agent_loader(AgentLoader("checkpoint", load_checkpoint_agent,
                                      "checkpoint:PATH[:MODULE|oracle|unpruned,...]"),
                          replace=True)
    register_agent_loader(AgentLoader("douzero", load_douzero_agent, "douzero:DIR", runs_code=False),  # weights_only
                          replace=True)
