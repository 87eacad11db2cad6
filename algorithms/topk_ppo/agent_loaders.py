"""Agents from top-k PPO checkpoints: the agent-spec kind ``topk-ppo:PATH[:greedy]``.

:func:`register` adds it to :mod:`cardrl.agents.loaders`; pyproject.toml names it in the entry-point group
``cardrl.agent_loaders``, so ``cardrl eval guandan --a topk-ppo:runs/topk-ppo_guandan/checkpoint --b rule`` works
without the core importing this package. PATH is a top-k PPO algorithm checkpoint directory; each seat plays the policy
module of its agent, and the frozen DMC network that proposes the candidates is inside that module (it travels with
the checkpoint). The checkpoint's game is checked before anything plays. ``:greedy`` plays the most probable candidate;
without it the agent samples, as DanZero+'s evaluation does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.games.registry import get_game

__all__ = ["register", "load_topk_ppo_modules", "load_topk_ppo_agent"]


def load_topk_ppo_modules(path: str | Path, game: str) -> tuple[dict[str, Any], dict]:
    """``(agent name -> policy module (eval mode, CPU), checkpoint counters)`` of a top-k PPO checkpoint of ``game``;
    ValueError when it is not one, or of another game."""
    from cardrl.algorithms.common.checkpoint_state import load_checkpoint_rl_modules
    from cardrl.algorithms.common.game_defaults import default_module_mapping
    from cardrl.algorithms.common.policy_mapping import MAPPINGS
    from cardrl.algorithms.topk_ppo.topk_ppo import read_counters

    spec = get_game(game)
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    counters = read_counters(root)
    if not counters:
        raise ValueError(f"{root} is an RLlib checkpoint but not a cardrl top-k PPO one (no top-k PPO counters)")
    if counters.get("game") != spec.env_name:
        raise ValueError(f"checkpoint {root} was trained on {counters.get('game')!r}, not on {game!r} "
                         f"({spec.env_name!r})")
    names = {agent: MAPPINGS[default_module_mapping(spec)](agent) for agent in spec.agents}
    return load_checkpoint_rl_modules(root, names, "policy module"), counters


def load_topk_ppo_agent(path: str, game: str, options: Mapping[str, Any], module: str | None):
    """The agent of the ``topk-ppo:PATH[:greedy]`` spec kind."""
    from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent

    if module not in (None, "greedy"):
        raise ValueError(f"topk-ppo:PATH takes no :{module}; allowed: topk-ppo:PATH (samples, as DanZero+ "
                         f"evaluates) or topk-ppo:PATH:greedy")
    modules, counters = load_topk_ppo_modules(path, game)
    return TopKPPOAgent(modules, game, features=counters.get("features"), options=options, greedy=module == "greedy")


def register() -> None:
    """Register the ``topk-ppo`` agent-spec kind (the ``cardrl.agent_loaders`` entry point)."""
    register_agent_loader(AgentLoader("topk-ppo", load_topk_ppo_agent, "topk-ppo:PATH[:greedy]"), replace=True)
