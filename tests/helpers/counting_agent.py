"""Test helper: random play that counts its decisions (to show that bad input fails before any game is played)."""

from cardrl.agents import Agent, RandomAgent


class CountingAgent(Agent):
    """Random play that counts its decisions (to show that bad input fails before any game is played)."""

    name = "counting"

    def __init__(self):
        self.inner = RandomAgent(0)
        self.calls = 0

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, view, legal_moves):
        self.calls += 1
        return self.inner.act(view, legal_moves)
