"""Agents from checkpoints of RLlib's PPO trained on a cardrl env: the agent-spec kind ``ppo:PATH[:sample]``.

:func:`register` adds it to :mod:`cardrl.agents.loaders` (entry point ``cardrl.agent_loaders`` in pyproject.toml), so
``cardrl eval doudizhu --a ppo:runs/ppo_doudizhu/checkpoint --b rule`` plays it. PATH is an RLlib PPO algorithm
checkpoint whose env is ``cardrl/<game>_v0`` (checked, with its features) and whose modules are
:class:`~cardrl.algorithms.masked_ppo.masked_ppo_rl_module.MaskedActionEmbeddingModule`; each seat plays the module of
its agent. The agent plays the most probable legal action (RLlib's inference mode); ``:sample`` samples instead,
reproducibly (``reset(seed)``).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.games.registry import get_game

__all__ = ["register", "MaskedPPOAgent", "load_ppo_modules", "load_ppo_agent"]


class MaskedPPOAgent(Agent):
    """Plays masked-module PPO policies from a player's view: the env's observation (the game's features) and the
    mask of the legal moves, as the env would have shown them."""

    name = "ppo"

    def __init__(self, modules: Mapping[str, Any], game: str, features: str | None = None, sample: bool = False,
                 seed: int = 0, name: str | None = None):
        spec = get_game(game)
        self.features = spec.make_features(features)
        self.num_actions = spec.make_engine().num_actions
        for agent in spec.agents:
            module = modules.get(agent)
            if module is None:
                raise ValueError(f"MaskedPPOAgent: no module for {agent}; the game's agents are {list(spec.agents)}")
            n = getattr(getattr(module, "action_embedding", None), "num_embeddings", None)
            dim = module.trunk[0].in_features if hasattr(module, "trunk") else None
            if n != self.num_actions or dim != self.features.obs_dim(agent):
                raise ValueError(f"MaskedPPOAgent: the {agent} module takes {dim} observation values and {n} actions; "
                                 f"{spec.name} with the {self.features.name} features has {self.features.obs_dim(agent)} "
                                 f"and {self.num_actions}")
        self.modules = dict(modules)
        self.sample = bool(sample)
        self.name = self.name if name is None else name
        self.reset(seed)

    def reset(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    value_kind = "prob"  # what move_values gives (game records, cardrl serve's hints)

    def _logits(self, view: Any, legal: np.ndarray):
        import torch

        module = self.modules[view.role]
        mask = torch.zeros(1, self.num_actions, dtype=torch.int8)
        mask[0, torch.from_numpy(legal)] = 1
        obs = torch.from_numpy(self.features.encode_view(view)[None])
        with torch.no_grad():
            embeddings = module.trunk(obs)
            return module.masked_logits(embeddings, mask)[0, torch.from_numpy(legal)].double()

    def move_values(self, view: Any, legal_moves) -> tuple[np.ndarray, np.ndarray]:
        """``(legal ids, the policy's probability of each)``."""
        import torch

        legal = legal_ids(self, legal_moves)
        probs = torch.softmax(self._logits(view, legal), dim=0).numpy()
        return legal, probs / probs.sum()

    def act(self, view: Any, legal_moves) -> int:
        import torch

        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            return int(legal[0])
        logits = self._logits(view, legal)
        if not self.sample:
            return int(legal[int(torch.argmax(logits))])
        probs = torch.softmax(logits, dim=0).numpy()
        return int(legal[self._rng.choice(len(legal), p=probs / probs.sum())])


def _checkpoint_env(root: Path) -> tuple[str | None, dict]:
    """The env name and env_config an RLlib algorithm checkpoint was built with."""
    try:
        with (root / "class_and_ctor_args.pkl").open("rb") as f:
            saved = pickle.load(f)
        args, kwargs = saved["ctor_args_and_kwargs"]
        config = args[0] if args else kwargs.get("config")
        config = config if isinstance(config, dict) else config.to_dict()
        return config.get("env"), dict(config.get("env_config") or {})
    except Exception as err:  # a foreign or truncated file
        raise ValueError(f"{root} is not an RLlib algorithm checkpoint that can be read ({err})") from None


def load_ppo_modules(path: str | Path, game: str) -> tuple[dict[str, Any], dict]:
    """``(agent name -> module (eval mode, CPU), env_config)`` of a masked-module PPO checkpoint of ``game``; ValueError
    when its env is another game's."""
    from cardrl.algorithms.common.checkpoint_state import load_checkpoint_rl_modules
    from cardrl.algorithms.masked_ppo.masked_ppo import agent_to_module

    spec = get_game(game)
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    env, env_config = _checkpoint_env(root)
    if env != f"cardrl/{spec.env_name}":
        raise ValueError(f"checkpoint {root} was trained on the env {env!r}, not on cardrl/{spec.env_name} ({game})")
    return load_checkpoint_rl_modules(root, agent_to_module(spec.name), "module"), env_config


def load_ppo_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> MaskedPPOAgent:
    """The agent of the ``ppo:PATH[:sample]`` spec kind."""
    if module not in (None, "sample"):
        raise ValueError(f"ppo:PATH takes no :{module}; allowed: ppo:PATH (most probable action) or ppo:PATH:sample")
    modules, env_config = load_ppo_modules(path, game)
    return MaskedPPOAgent(modules, game, features=env_config.get("features"), sample=module == "sample")


def register() -> None:
    """Register the ``ppo`` agent-spec kind (the ``cardrl.agent_loaders`` entry point)."""
    register_agent_loader(AgentLoader("ppo", load_ppo_agent, "ppo:PATH[:sample]"), replace=True)
