"""Agents: anything that picks a move from a player's view (docs/architecture.md, layer 5).

:class:`Agent` is the interface (``act(view, legal_moves) -> action id``, optional ``reset(seed)``) and
:func:`play_game` plays one game with one agent per seat. Baselines: :class:`RandomAgent` and
:class:`~cardrl.agents.mcs_greedy.MCSGreedyAgent` (every game with a search), :class:`DouDizhuRuleAgent`
(DouDiZhu, over the hand planner :func:`plan_hand`), :class:`Big2RuleAgent` (Big2), :class:`GuanDanShedAgent` and
:class:`GuanDanControlAgent` (GuanDan); :class:`~cardrl.agents.q_agent.QAgent` plays Q-networks, and
:mod:`cardrl.agents.loaders` builds agents from checkpoints through loaders that algorithm packages register.
"""

from cardrl.agents.base import Agent, play_game
from cardrl.agents.big2_rule import Big2Plan, Big2RuleAgent
from cardrl.agents.doudizhu_rule import DouDizhuRuleAgent, HandPlan, plan_hand
from cardrl.agents.guandan_rule import GuanDanControlAgent, GuanDanShedAgent
from cardrl.agents.mcs_greedy import MCSGreedyAgent
from cardrl.agents.q_agent import QAgent
from cardrl.agents.random_agent import RandomAgent

__all__ = ["Agent", "play_game", "RandomAgent", "MCSGreedyAgent", "QAgent", "DouDizhuRuleAgent", "HandPlan",
           "plan_hand", "Big2RuleAgent", "Big2Plan", "GuanDanShedAgent", "GuanDanControlAgent"]
