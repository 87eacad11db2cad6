"""Agents: anything that picks a move from a player's view (DESIGN.md, layer 5).

:class:`Agent` is the interface (``act(view, legal_moves) -> move id``, optional ``reset(seed)``) and
:func:`play_game` plays one deal with one agent per seat. Baselines: :class:`RandomAgent` (every game) and
:class:`DouDizhuRuleAgent` (DouDiZhu, over the hand planner :func:`plan_hand`).
"""

from cardrl.agents.base import Agent, play_game
from cardrl.agents.doudizhu_rule import DouDizhuRuleAgent, HandPlan, plan_hand
from cardrl.agents.random_agent import RandomAgent

__all__ = ["Agent", "play_game", "RandomAgent", "DouDizhuRuleAgent", "HandPlan", "plan_hand"]
