"""Agents: anything that picks a move from a player's view (DESIGN.md, layer 5).

:class:`Agent` is the interface (``act(view, legal_moves) -> move id``, optional ``reset(seed)``) and
:func:`play_game` plays one deal with one agent per seat. Baselines: :class:`RandomAgent` (every game),
:class:`DouDizhuRuleAgent` (DouDiZhu, over the hand planner :func:`plan_hand`) and :class:`Big2RuleAgent` (Big2);
GuanDan: :class:`GuanDanShedAgent`, :class:`GuanDanControlAgent`.
"""

from cardrl.agents.base import Agent, play_game
from cardrl.agents.big2_rule import Big2Plan, Big2RuleAgent
from cardrl.agents.doudizhu_rule import DouDizhuRuleAgent, HandPlan, plan_hand
from cardrl.agents.guandan_rule import GuanDanControlAgent, GuanDanShedAgent
from cardrl.agents.random_agent import RandomAgent

__all__ = ["Agent", "play_game", "RandomAgent", "DouDizhuRuleAgent", "HandPlan", "plan_hand", "Big2RuleAgent",
           "Big2Plan", "GuanDanShedAgent", "GuanDanControlAgent"]
