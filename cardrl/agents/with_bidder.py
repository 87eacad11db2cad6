"""An agent that plays the cards with one agent and bids with another (docs/usage.md "The whole game").

Most agents learned or were written for DouZero's fixed landlord (``bids`` False): paired with a bidder they play
the whole game, e.g. ``checkpoint:runs/x+bidder=rule`` in an agent spec (:mod:`cardrl.eval.agents`). The same
pairing puts two bidders on one card-play agent, so that a tournament measures what bidding alone is worth
(``rule`` against ``rule+bidder=random``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.agents.base import Agent

__all__ = ["WithBidder", "is_bid_view"]


def is_bid_view(view: Any) -> bool:
    """Whether ``view`` is from a bidding phase (a view whose ``phase`` is ``"bid"``)."""
    return getattr(view, "phase", None) == "bid"


class WithBidder(Agent):
    """``card_play`` acts on every view except those of the bidding phase, which go to ``bidder``.

    Both are reset with each deal's seed. The pair sees hidden cards when its card-play agent does (an oracle agent
    fed its block); the bidder then gets the same view.
    """

    bids = True

    def __init__(self, card_play: Agent, bidder: Agent, name: str | None = None):
        if not isinstance(card_play, Agent) or not isinstance(bidder, Agent):
            raise TypeError(f"WithBidder pairs two Agents, got {type(card_play).__name__} and "
                            f"{type(bidder).__name__}")
        if not bidder.bids:
            raise ValueError(f"agent {bidder.name!r} does not bid, so it cannot be the bidder of "
                             f"{name or card_play.name!r}; bidders: rule, random[:SEED], or a checkpoint that "
                             f"learned bidding")
        self.card_play = card_play
        self.bidder = bidder
        self.sees_hidden_cards = card_play.sees_hidden_cards
        self.name = name or f"{card_play.name}+bidder={bidder.name}"

    def reset(self, seed: int) -> None:
        self.card_play.reset(seed)
        if self.bidder is not self.card_play:
            self.bidder.reset(seed)

    def decider(self, view: Any) -> Agent:
        """The agent that decides at ``view``: the bidder during bidding, else the card-play agent (game records
        take the values of the one that decides)."""
        return self.bidder if is_bid_view(view) else self.card_play

    def act(self, view: Any, legal_moves: np.ndarray) -> int:
        return self.decider(view).act(view, legal_moves)
