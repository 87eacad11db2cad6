"""Training against a fixed opponent (``fixed_opponent``, ``cardrl train --fixed-opponent SPEC``): in every game one
side is played by a fixed agent (a rule agent, a saved agent: any ``cardrl eval`` agent spec), the other by the
Q-networks being trained, whose decisions alone become frames.

A diagnostic before it is a method: DMC is self-play (Zha et al. 2021, Sec. 4), and a learner that cannot beat a
fixed opponent it trains against for a few million frames points to a defect in its data path, features, rewards or
targets rather than to too little training (the GuanDan diagnosis, docs/learning.md). The learning side takes the
seats of one of the game's evaluation arrangements (:mod:`cardrl.eval.protocols`: DouDiZhu the landlord or the two
peasants, Big2 one seat, GuanDan one team), a new one for every episode (a deal; a match in GuanDan, whose teams
keep their seats), in turn, each game of the runner starting at another, so that every seat's network gets frames.
Everything else is DMC's: the Monte-Carlo targets of the learning seats, exploration, pruning (of the learning
seats' moves), the opponent model's labels.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FixedOpponent", "fixed_opponent_problems", "rule_options"]


def rule_options(config) -> dict[str, Any]:
    """The game's rule options in ``config.env_config`` (what an agent is built for; the env's other keys are not)."""
    return {k: v for k, v in dict(config.env_config or {}).items() if k in config.game_spec.rule_options}


def fixed_opponent_problems(config) -> list[str]:
    """Why ``config.fixed_opponent`` can not run (empty: it can, or it is off): its spec does not parse or does not
    apply to the game, or it is combined with an option whose data it would corrupt."""
    spec = getattr(config, "fixed_opponent", None)
    if spec is None:
        return []
    from cardrl.eval.agents import build_agent

    problems = []
    if getattr(config, "bidding", False):
        problems.append("fixed_opponent plays card play against the Q-networks; the whole game (bidding=True) is not "
                        "supported with it: drop one of the two")
    if getattr(config, "coach", False):
        problems.append("fixed_opponent: the coach (DouZero+) learns which side wins a deal dealt to two learning "
                        "sides; drop one of the two")
    try:
        build_agent(spec, config.game_name, rule_options(config))
    except (ValueError, FileNotFoundError) as err:
        problems.append(f"fixed_opponent={spec!r}: {err}")
    return problems


class FixedOpponent:
    """The fixed side of each of a runner's ``num_games`` games: one agent per game (an agent may keep state within a
    deal), and the seats the Q-networks play in the game's current episode."""

    def __init__(self, spec: str, game_name: str, options: dict[str, Any], arrangements, num_games: int,
                 seed: int = 0):
        from cardrl.eval.agents import build_agent

        self.arrangements = tuple(tuple(a) for a in arrangements)
        self.agents = [build_agent(spec, game_name, options, seed=seed + i) for i in range(num_games)]
        self._episodes = list(range(num_games))  # game i starts at arrangement i (mod their number)
        self._learning: list[tuple[int, ...]] = [()] * num_games

    def new_episode(self, i: int, deal_seed: int) -> tuple[int, ...]:
        """Game ``i`` was dealt a new episode: the next arrangement's seats learn; returns them."""
        self._learning[i] = self.arrangements[self._episodes[i] % len(self.arrangements)]
        self._episodes[i] += 1
        self.agents[i].reset(deal_seed)
        return self._learning[i]

    def learning_seats(self, i: int) -> tuple[int, ...]:
        """The seats the Q-networks play in game ``i``'s current episode."""
        return self._learning[i]

    def plays(self, i: int, seat: int) -> bool:
        """Whether the fixed agent moves for ``seat`` in game ``i``."""
        return seat not in self._learning[i]

    def act(self, i: int, game) -> int:
        """The fixed agent's move in game ``i`` (an engine whose current player it plays)."""
        from cardrl.agents.base import agent_view

        agent, seat = self.agents[i], game.current_player
        return int(agent.act(agent_view(agent, game, seat), game.legal_moves()))
