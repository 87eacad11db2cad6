"""DouDiZhu's rule-based bidder: a hand-strength count of control cards and the bid it asks for (docs/rules.md
"Bidding"; the rule agent's bidding, :class:`~cardrl.agents.doudizhu_rule.DouDizhuRuleAgent`).

**Hand strength** (:func:`hand_strength`) counts the control cards of the 17 dealt cards, the cards that win a
trick back: the red joker 4 points, the black joker 3, both together (the rocket) 1 more, each 2 two points, each
ace one, each bomb of 3 .. A four (a bomb of 2s counts as its four 2s plus 4). It is the control-card count that
bidding heuristics commonly use for DouDiZhu (jokers, 2s and bombs weighted by how surely they take a lead);
AlphaDou ("AlphaDou: High-Performance End-to-End Doudizhu AI Integrating Bidding", arXiv 2407.10279) learns this
decision instead.

**Wanted bid** (:func:`wanted_bid`): pass below :data:`THRESHOLDS` [0], 1 from it, 2 from [1], 3 from [2]. The
thresholds come from measurement, not folklore: ``python experiments/bidder_thresholds.py`` deals seeded hands, makes
each hand's holder the landlord (it takes the bottom) with the rule agent in all three seats, and prints per
strength the landlord's win rate and mean ADP per bid point. The table of docs/rules.md "Bidding" (3,000 deals,
9,000 hands) gives the rule: bid 1 from the first strength whose landlord result is above zero with its 95% interval
(7: ADP per bid point +0.41, the landlord wins 59%; at 6 it is +0.01, at 5 -0.26), 2 from the first where it
exceeds +1.5 (10: +1.57, wins 72%), 3 (which ends the auction at triple stakes) from the strength on which every
stronger hand wins at least 75% and gains at least +2 per point (13: wins 76%, +2.08; 4.4% of the hands).
``tests/agents/test_doudizhu_bidder.py`` checks the ordering on other seeded deals.

**Bid** (:func:`choose_bid`): the wanted bid when it is legal (it exceeds the standing bid), else pass: never
outbid beyond what the hand is worth.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["hand_strength", "wanted_bid", "choose_bid", "THRESHOLDS", "POINTS"]

# points per card (or structure) of hand_strength; ranks 0..12 are 3..2, 13 the black joker, 14 the red joker
POINTS = {"red_joker": 4, "black_joker": 3, "rocket": 1, "two": 2, "ace": 1, "bomb": 4}
THRESHOLDS = (7, 10, 13)  # strength from which the bidder wants 1, 2, 3 (module docstring: measured)
_ACE, _TWO, _BLACK, _RED = 11, 12, 13, 14


def hand_strength(hand: Sequence[int] | np.ndarray) -> int:
    """The control-card count (module docstring) of a hand given as 15 rank counts (3 .. 2, black, red joker)."""
    counts = np.asarray(hand, dtype=np.int64)
    if counts.shape != (15,) or counts.min() < 0 or counts[:13].max() > 4 or counts[13:].max() > 1:
        raise ValueError(f"a DouDiZhu hand is 15 rank counts (0..4 for 3..2, 0..1 per joker), got {counts.tolist()}")
    points = POINTS["red_joker"] * int(counts[_RED]) + POINTS["black_joker"] * int(counts[_BLACK])
    points += POINTS["rocket"] * int(counts[_RED] and counts[_BLACK])
    points += POINTS["two"] * int(counts[_TWO]) + POINTS["ace"] * int(counts[_ACE])
    points += POINTS["bomb"] * int((counts[:13] == 4).sum())
    return points


def wanted_bid(hand: Sequence[int] | np.ndarray, thresholds: Sequence[int] = THRESHOLDS) -> int:
    """The bid a hand is worth: 0 (pass), 1, 2 or 3 by :func:`hand_strength` against ``thresholds``."""
    if len(thresholds) != 3 or list(thresholds) != sorted(thresholds):
        raise ValueError(f"thresholds are three increasing strengths (for bids 1, 2, 3), got {tuple(thresholds)}")
    strength = hand_strength(hand)
    return sum(strength >= t for t in thresholds)


def choose_bid(hand: Sequence[int] | np.ndarray, legal_bids: Sequence[int],
               thresholds: Sequence[int] = THRESHOLDS) -> int:
    """The bid to make among ``legal_bids`` (0 = pass, then the bids above the standing one): the wanted bid when
    legal, else pass."""
    legal = {int(b) for b in legal_bids}
    if 0 not in legal:
        raise ValueError(f"legal bids always include 0 (pass), got {sorted(legal)}")
    wanted = wanted_bid(hand, thresholds)
    return wanted if wanted in legal else 0
