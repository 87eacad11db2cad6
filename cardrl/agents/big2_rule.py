"""A rule-based Big2 agent over a hand planner: a heuristic baseline in the role of the rule-based programs the
papers benchmark against (Luo & Tan 2024, Sec. 5.5; Lu et al. 2023 (DanZero), Sec. I: rule bots lead small
cards that form no special type and follow with the same type). The rules and the planner are our own.

**Hand planner** (:meth:`Big2RuleAgent.plan`). A hand is split into *units*, each a move of the Big2 move table:
up to two disjoint five-card hands (straight, flush, full house, quads + kicker, straight flush), chosen by an
exhaustive search over the five-card moves the hand holds (a 13-card hand holds about 10 on average), and the
rest by rank: triples, pairs (four of a rank is two pairs) and singles. A plan's *cost* is the sum of its units'
costs, and the search keeps the cheapest plan:

* a single, pair or triple costs ``1 + 0.04 x (A - its rank)`` (low cards are harder to get rid of), and
  ``0.5`` when it is made of 2s (a control: it usually wins the lead back);
* a five-card hand costs ``1.2 - 0.15 x level - 0.1 x f`` with ``level`` 0..4 for straight, flush, full
  house, quads, straight flush and ``f`` in [0, 1] its place within its category (a low straight 1.2, the top
  straight flush 0.5).

Five cards shed in one unit are therefore strongly preferred to the singles and pairs they would leave, and
fewer, stronger units are cheaper. Plans are memoised per hand (a card bit set) in the agent.

**Leading.**

1. Play out at once when one legal move empties the hand.
2. The opening move (which must contain the 3 of diamonds) is the legal move that leaves the cheapest plan
   (on ties the one shedding more cards), i.e. the plan's unit holding the 3 of diamonds.
3. A unit is a *control* when no move the unseen cards could form beats it (no opponent holds enough cards
   counts as unbeatable too). With at most one other unit left, a control is led first (the largest), so the
   agent keeps the lead and then goes out.
4. Otherwise the agent leads its weakest unit: the lowest lowest-card rank, larger units first on equal rank
   (so low five-card hands and low pairs go before the singles of the same rank). Units an opponent could use to
   go out (the opponent holds exactly that many cards, and the unit can be beaten) are led last, and when only
   such units are left the strongest of the largest size goes (an opponent on one card faces the highest single).

**Following.** Every legal beating move is priced by the cost of the plan of the hand left after it.

1. Play out when a move empties the hand; play a move nobody can beat when it leaves a single unit (the agent
   then leads and goes out).
2. When an opponent holds exactly as many cards as the move to beat (they could go out on this trick), play the
   strongest beating move.
3. When an opponent holds six cards or fewer, go all out: play the cheapest-plan move whatever it breaks.
4. Otherwise play the cheapest-plan move (ties: the lowest, i.e. the cheapest beating move) only if it raises
   the plan cost by less than 1.0, so a follow that breaks a straight or a flush (about +3) is refused while
   breaking a pair or a full house into a triple and a pair is allowed, and pass rather than spend control
   cards (2s, quads, straight flushes) early: while every opponent holds more than eight cards and the plan
   after the move keeps more than two beatable units.

Decisions are deterministic functions of the view (ties broken by move id).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.games.big2 import Big2View
from cardrl.games.big2.moves import ACE, NUM_CARDS, NUM_RANKS, NUM_SUITS, TWO, Category, big2_move_table

__all__ = ["Big2RuleAgent", "Big2Plan"]

# Tuned against the agent with (0.5, 4, 5): +0.39 ADP [0.19, 0.60] over 400 duplicate deals (one variant seat).
_NORMAL_SLACK = 1.0  # how much a follow may raise the plan cost and still be played
_URGENT_CARDS = 6  # an opponent with this many cards or fewer: go all out
_EARLY_CARDS = 8  # every opponent holds more than this: keep control cards
_CONTROL_CATEGORIES = (int(Category.QUADS), int(Category.STRAIGHT_FLUSH))


class Big2Plan(NamedTuple):
    """A hand split into units (move ids of the Big2 move table); ``cost`` is what the planner minimises."""

    cost: float
    units: tuple[int, ...]

    @property
    def turns(self) -> int:
        """How many moves the plan needs."""
        return len(self.units)


def _unit_costs(table) -> np.ndarray:
    """The planner's cost of every move of the table as a unit (module docstring); pass costs 0."""
    size = table.length.astype(np.int64)
    cost = np.zeros(len(table), dtype=np.float64)
    top_rank = _card_extremes(table)[1] // NUM_SUITS
    small = (size >= 1) & (size <= 3)
    cost[small] = np.where(top_rank[small] == TWO, 0.5, 1.0 + 0.04 * (ACE - top_rank[small]))
    for level, cat in enumerate((Category.STRAIGHT, Category.FLUSH, Category.FULL_HOUSE, Category.QUADS,
                                 Category.STRAIGHT_FLUSH)):
        ids = np.flatnonzero(table.category == int(cat))
        keys = table.rank[ids].astype(np.float64)
        span = keys.max() - keys.min()
        frac = (keys - keys.min()) / span if span > 0 else np.zeros_like(keys)
        cost[ids] = 1.2 - 0.15 * level - 0.1 * frac
    return cost


def _card_extremes(table) -> tuple[np.ndarray, np.ndarray]:
    """Per move: its lowest and highest card id (pass: ``NUM_CARDS`` and -1)."""
    present = table.cards[:, :NUM_CARDS] > 0
    ids = np.arange(NUM_CARDS)
    return np.where(present, ids, NUM_CARDS).min(axis=1), np.where(present, ids, -1).max(axis=1)


def _vector_bits(vec: np.ndarray) -> int:
    bits = 0
    for c in np.flatnonzero(np.asarray(vec)[:NUM_CARDS]):
        bits |= 1 << int(c)
    return bits


class Big2RuleAgent(Agent):
    """Rule-based Big2 player over a hand planner (module docstring; the rule-based baseline role in Luo & Tan
    2024, Sec. 5.5). Deterministic; ties broken by move id.

    ``straight_order`` must match the game's move table (``"bigzero"`` default, or ``"low"``).
    """

    name = "big2_rule"

    def __init__(self, straight_order: str = "bigzero"):
        self.table = big2_move_table(straight_order)
        self.straight_order = straight_order
        self._size = self.table.length.astype(np.int64)
        self._cost = _unit_costs(self.table)
        self._bits = [int(b) for b in self.table.bits]
        small = np.flatnonzero((self._size >= 1) & (self._size <= 3))
        self._small_id = {self._bits[m]: int(m) for m in small}
        self._low_rank = _card_extremes(self.table)[0] // NUM_SUITS  # pass: NUM_RANKS
        self._plans: dict[int, Big2Plan] = {}
        self._leaves: dict[int, Big2Plan] = {}

    @classmethod
    def from_rule_options(cls, options: Mapping[str, Any]) -> "Big2RuleAgent":
        """The agent for a game with these rule options (the registry's ``rule`` agent kind)."""
        return cls(straight_order=options.get("straight_order", "bigzero"))

    # ---- planner -----------------------------------------------------------------------------
    def plan(self, hand_bits: int) -> Big2Plan:
        """The cheapest split of a hand (a card bit set, bit ``c`` = card id ``c``) into units."""
        hand_bits = int(hand_bits)
        hit = self._plans.get(hand_bits)
        if hit is not None:
            return hit
        if hand_bits >> NUM_CARDS:
            raise ValueError(f"a Big2 hand is a bit set of card ids 0..{NUM_CARDS - 1}, got {hand_bits:#x}")
        best = self._leaf(hand_bits)
        legal = self.table.legal_moves(hand_bits, None)
        fives = [int(m) for m in legal[self._size[legal] == 5]]
        for i, m in enumerate(fives):
            mb = self._bits[m]
            rest = hand_bits & ~mb
            leaf = self._leaf(rest)
            cost = self._cost[m] + leaf.cost
            if cost < best.cost - 1e-9:
                best = Big2Plan(cost, (m,) + leaf.units)
            for m2 in fives[i + 1:]:
                mb2 = self._bits[m2]
                if mb2 & mb:
                    continue
                leaf = self._leaf(rest & ~mb2)
                cost = self._cost[m] + self._cost[m2] + leaf.cost
                if cost < best.cost - 1e-9:
                    best = Big2Plan(cost, (m, m2) + leaf.units)
        if len(self._plans) > 200_000:
            self._plans.clear()
        self._plans[hand_bits] = best
        return best

    def _leaf(self, bits: int) -> Big2Plan:
        """Triples, pairs (four of a rank: two pairs) and singles by rank, lowest rank first."""
        hit = self._leaves.get(bits)
        if hit is not None:
            return hit
        units: list[int] = []
        for r in range(NUM_RANKS):
            cards = [4 * r + s for s in range(NUM_SUITS) if bits >> (4 * r + s) & 1]
            if len(cards) == 4:
                groups = [cards[:2], cards[2:]]
            elif cards:
                groups = [cards]
            else:
                continue
            for group in groups:
                units.append(self._small_id[sum(1 << c for c in group)])
        plan = Big2Plan(float(sum(self._cost[u] for u in units)), tuple(units))
        if len(self._leaves) > 200_000:
            self._leaves.clear()
        self._leaves[bits] = plan
        return plan

    # ---- helpers -----------------------------------------------------------------------------
    def _beatable(self, move: int, unseen_bits: int, opponent_cards: list[int]) -> bool:
        """Whether the unseen cards could form a move beating ``move`` held by an opponent with enough cards."""
        if max(opponent_cards) < self._size[move]:
            return False
        return len(self.table.legal_moves(unseen_bits, move)) > 1  # pass is always in the list

    def _cheapest(self, hand_bits: int, moves) -> tuple[float, int]:
        """(plan cost after it, move id) of the move leaving the cheapest plan; ties: more cards, lower id."""
        return min((self.plan(hand_bits & ~self._bits[m]).cost, -int(self._size[m]), int(m)) for m in moves)[::2]

    # ---- entry point -------------------------------------------------------------------------
    def act(self, view: Big2View, legal_moves: np.ndarray) -> int:
        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            return int(legal[0])
        hand_bits = int(view.hand_bits)
        hand_size = bin(hand_bits).count("1")
        out = legal[self._size[legal] == hand_size]
        if len(out):
            return int(out[0])
        opponents = [int(view.cards_left[s]) for s in range(len(view.cards_left)) if s != view.seat]
        unseen_bits = _vector_bits(view.unseen)
        if view.last_move is None:
            return self._lead(view, hand_bits, legal, unseen_bits, opponents)
        return self._follow(view, hand_bits, legal, unseen_bits, opponents)

    # ---- leading -----------------------------------------------------------------------------
    def _lead(self, view: Big2View, hand_bits: int, legal: np.ndarray, unseen_bits: int,
              opponents: list[int]) -> int:
        if view.must_contain_three_of_diamonds:
            return self._cheapest(hand_bits, legal)[1]
        legal_set = set(int(m) for m in legal)
        units = [u for u in self.plan(hand_bits).units if u in legal_set]
        if not units:  # cannot happen: every unit is a move the hand holds; stay legal regardless
            return self._cheapest(hand_bits, legal)[1]
        beatable = {u: self._beatable(u, unseen_bits, opponents) for u in units}
        controls = [u for u in units if not beatable[u]]
        others = [u for u in units if beatable[u]]
        if controls and len(others) <= 1:
            return min(controls, key=lambda u: (-self._size[u], u))
        safe = [u for u in others if int(self._size[u]) not in opponents]
        if safe:
            return min(safe, key=lambda u: (self._low_rank[u], -self._size[u], u))
        if controls:
            return min(controls, key=lambda u: (-self._size[u], u))
        return max(others, key=lambda u: (self._size[u], int(self.table.rank[u]), u))

    # ---- following ---------------------------------------------------------------------------
    def _follow(self, view: Big2View, hand_bits: int, legal: np.ndarray, unseen_bits: int,
                opponents: list[int]) -> int:
        pass_id = self.table.pass_id
        moves = [int(m) for m in legal if m != pass_id]
        if not moves:
            return pass_id
        # a move nobody can beat that leaves one unit: take the lead and go out next
        for m in moves:
            rest = hand_bits & ~self._bits[m]
            if self.plan(rest).turns <= 1 and not self._beatable(m, unseen_bits, opponents):
                return m
        size = int(self._size[view.last_move])
        if size in opponents:  # an opponent could go out on this trick: block with the strongest move
            return max(moves, key=lambda m: (int(self.table.rank[m]), m))
        cost0 = self.plan(hand_bits).cost
        cost, best = self._cheapest(hand_bits, moves)
        opp_min = min(opponents)
        if opp_min <= _URGENT_CARDS:
            return best
        if cost - cost0 >= _NORMAL_SLACK:
            return pass_id
        if self._spends_control(best) and opp_min > _EARLY_CARDS:
            rest = hand_bits & ~self._bits[best]
            left = [u for u in self.plan(rest).units if self._beatable(u, unseen_bits, opponents)]
            if len(left) > 2:
                return pass_id
        return best

    def _spends_control(self, move: int) -> bool:
        """Whether a move plays control cards: a 2 in a single/pair/triple, or quads / a straight flush."""
        if int(self.table.category[move]) in _CONTROL_CATEGORIES:
            return True
        return self._size[move] <= 3 and bool(self._bits[move] >> (4 * TWO))
