"""A rule-based DouDiZhu agent built on a hand planner: a heuristic baseline in the role of the "RLCard"
rule-based program of Luo & Tan 2024 (ODMC), Sec. 5.5 and Tables 8 and 10, following the heuristics that
Lu et al. 2023 (DanZero), Sec. I, describe for rule bots (lead small cards that form no special type; follow with
the same type before bombs). The rules and the planner are our own.

**Hand planner.** :func:`plan_hand` splits a hand into combinations: chains (5+ solos), pair chains (3+ pairs)
and planes (2+ trios) are chosen by an exhaustive, memoised search over which chains start at each rank; what
is left becomes rocket, bombs, trios, pairs and solos. Trios and planes then take the lowest solos (or pairs)
below 2 as kickers. A plan's *cost* is the sum of its units' costs: a bomb or the rocket ``-0.5`` (it wins a lead
back), a unit of 2s or jokers ``0.5``, any other unit ``1 + 0.04 * (A - its top rank)`` (low cards are harder to
get rid of), and the search keeps the cheapest plan. Fewer turns, stronger cards and unbroken bombs are cheaper.

**Leading.** Play out at once when one move empties the hand. A peasant whose partner holds one card (two
cards) feeds them its lowest solo (pair). Otherwise lead the plan unit with the lowest rank that an opponent
could beat, larger units first on equal rank; units the unseen cards cannot beat (or bombs) are kept for last
unless at most one other unit is left, in which case they are played first. With an opponent on one card solos
go last (the highest first); on two cards the same for pairs.

**Following.** For each legal move of the move's category (for kicker moves, the best kickers of each main part)
the planner prices the hand left after it; the cheapest one is played if it does not break the plan: the cost
may rise by at most 0.6 (1.3 for a peasant that is the last to answer the landlord, 1.0 more when its partner
holds two cards or fewer), and by anything when the opponent who played holds five cards or fewer. Bombs and
the rocket are kept for when they leave at most one unit the unseen cards could beat, or an opponent holds three
cards or fewer. A peasant does not beat its partner unless it is an endgame (six cards or fewer) and the beat is
cheap (no 2s or jokers, plan cost falls), and never when the partner holds two cards or fewer.

**Bidding** (when the game bids): the rule bidder of :mod:`cardrl.agents.doudizhu_bidder` (a count of control
cards, with thresholds measured against the rule agent's own results as landlord).

Decisions are deterministic functions of the view (ties are broken by move id). All chain search results are
memoised per hand, so a decision takes well under a millisecond on typical hands.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, NamedTuple

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.agents.doudizhu_bidder import choose_bid
from cardrl.cards import rank_counts_to_string
from cardrl.games.doudizhu import DouDizhuView
from cardrl.games.doudizhu.moves import Category, doudizhu_move_table
from cardrl.games.move_table import MoveTable

__all__ = ["DouDizhuRuleAgent", "HandPlan", "plan_hand"]

_TWO = 12  # ranks >= 12 (2, black joker, red joker) are control cards
_ACE = 11  # chains run from 3 up to A
_C = Category
# (category, width per rank, minimum length, maximum length) of the chain categories.
_CHAIN_KINDS = ((_C.CHAIN, 1, 5, 12), (_C.PAIR_CHAIN, 2, 3, 10), (_C.PLANE, 3, 2, 6))
_BOMB_CATS = frozenset((int(_C.BOMB), int(_C.ROCKET)))
_NORMAL_SLACK = 0.6  # how much a follow may raise the plan cost and still be played
_PLANE_KICKED = {1: _C.PLANE_SOLOS, 2: _C.PLANE_PAIRS}
_TRIO_KICKED = {1: _C.TRIO_SOLO, 2: _C.TRIO_PAIR}


class Unit(NamedTuple):
    """One combination of a plan: its category, lowest main rank, length, and the cards as rank counts."""

    category: int
    rank: int
    length: int
    counts: tuple[int, ...]

    @property
    def top(self) -> int:
        return self.rank + self.length - 1

    @property
    def size(self) -> int:
        return sum(self.counts)


class HandPlan(NamedTuple):
    """A hand split into units (see the module docstring); ``cost`` is what the planner minimises."""

    cost: float
    units: tuple[Unit, ...]

    @property
    def turns(self) -> int:
        """How many moves the plan needs (bombs and the rocket included)."""
        return len(self.units)


def _unit_cost(category: int, top: int) -> float:
    if category in _BOMB_CATS:
        return -0.5
    if top >= _TWO:
        return 0.5
    return 1.0 + 0.04 * (_ACE - top)


def _leaf_cost(counts: tuple[int, ...], plane_slots: int) -> float:
    """Cost of the chain-free rest of a hand whose planes have ``plane_slots`` kicker slots."""
    cost = 0.0
    kickers: list[float] = []
    slots = plane_slots
    for r in range(13):
        c = counts[r]
        if c == 0:
            continue
        if c == 4:
            cost -= 0.5
            continue
        unit = _unit_cost(0, r)
        cost += unit
        if c == 3:
            slots += 1
        elif r < _TWO:
            kickers.append(unit)
    if counts[13] and counts[14]:
        cost -= 0.5
    elif counts[13] or counts[14]:
        cost += 0.5
    if slots and kickers:  # kickers ride on trios and planes: drop the costliest (lowest) units
        kickers.sort(reverse=True)
        cost -= sum(kickers[:slots])
    return cost


def _search(counts: tuple[int, ...], start: int, slots: int, memo: dict) -> tuple[float, tuple]:
    """Cheapest (cost, chains) for the ranks >= start; chains are (category, start, length) triples."""
    key = (counts, start, slots)
    hit = memo.get(key)
    if hit is not None:
        return hit
    result = None
    for r in range(start, _ACE):
        c = counts[r]
        if c == 0:
            continue
        options = []
        for cat, width, lo, hi in _CHAIN_KINDS:
            if c < width:
                break
            n = 0
            while r + n <= _ACE and n < hi and counts[r + n] >= width:
                n += 1
            options.extend((cat, width, length) for length in range(lo, n + 1))
        if not options:
            continue
        best_cost, best_chains = _search(counts, r + 1, slots, memo)
        for cat, width, length in options:
            rest = list(counts)
            for i in range(r, r + length):
                rest[i] -= width
            sub_cost, sub_chains = _search(tuple(rest), r, slots + (length if width == 3 else 0), memo)
            total = sub_cost + _unit_cost(cat, r + length - 1)
            if total < best_cost - 1e-9:
                best_cost, best_chains = total, ((int(cat), r, length),) + sub_chains
        result = (best_cost, best_chains)
        break
    if result is None:
        result = (_leaf_cost(counts, slots), ())
    memo[key] = result
    return result


def _counts_of(pairs) -> tuple[int, ...]:
    out = [0] * 15
    for r, n in pairs:
        out[r] += n
    return tuple(out)


def _build_units(counts: tuple[int, ...], chains: tuple) -> tuple[Unit, ...]:
    """The units of a plan: the chosen chains, the per-rank rest, and kickers attached to trios and planes."""
    rest = list(counts)
    for cat, r, length in chains:
        width = {int(_C.CHAIN): 1, int(_C.PAIR_CHAIN): 2, int(_C.PLANE): 3}[cat]
        for i in range(r, r + length):
            rest[i] -= width
    units: list[Unit] = []
    solos = [r for r in range(_TWO) if rest[r] == 1]
    pairs = [r for r in range(_TWO) if rest[r] == 2]
    planes = sorted((ch for ch in chains if ch[0] == _C.PLANE), key=lambda ch: (-ch[2], ch[1]))
    for cat, r, length in chains:
        if cat != _C.PLANE:
            width = 1 if cat == _C.CHAIN else 2
            units.append(Unit(cat, r, length, _counts_of((i, width) for i in range(r, r + length))))
    for _, r, length in planes:
        main = [(i, 3) for i in range(r, r + length)]
        # a rank of the plane itself (the fourth card of a 4-card rank) is no kicker: that would be a bomb part
        usable = [k for k in solos if not r <= k < r + length]
        if len(usable) >= length:
            kick = usable[:length]
            solos = [k for k in solos if k not in kick]
            units.append(Unit(_C.PLANE_SOLOS, r, length, _counts_of(main + [(k, 1) for k in kick])))
        elif len(pairs) >= length:
            kick, pairs = pairs[:length], pairs[length:]
            units.append(Unit(_C.PLANE_PAIRS, r, length, _counts_of(main + [(k, 2) for k in kick])))
        else:
            units.append(Unit(_C.PLANE, r, length, _counts_of(main)))
    for r in range(15):
        c = rest[r]
        if c == 4:
            units.append(Unit(_C.BOMB, r, 1, _counts_of([(r, 4)])))
        elif c == 3:
            if solos and (not pairs or solos[0] <= pairs[0] + 3):
                units.append(Unit(_C.TRIO_SOLO, r, 1, _counts_of([(r, 3), (solos.pop(0), 1)])))
            elif pairs:
                units.append(Unit(_C.TRIO_PAIR, r, 1, _counts_of([(r, 3), (pairs.pop(0), 2)])))
            else:
                units.append(Unit(_C.TRIO, r, 1, _counts_of([(r, 3)])))
    if rest[13] and rest[14]:
        units.append(Unit(_C.ROCKET, 13, 1, _counts_of([(13, 1), (14, 1)])))
    else:
        solos += [r for r in (13, 14) if rest[r]]
    solos += [r for r in (_TWO,) if rest[r] == 1]
    pairs += [r for r in (_TWO,) if rest[r] == 2]
    units.extend(Unit(_C.PAIR, r, 1, _counts_of([(r, 2)])) for r in pairs)
    units.extend(Unit(_C.SOLO, r, 1, _counts_of([(r, 1)])) for r in solos)
    return tuple(units)


@lru_cache(maxsize=1 << 12)
def plan_hand(counts: tuple[int, ...]) -> HandPlan:
    """The cheapest split of a hand (15 rank counts, ``3..A 2 B R``) into units; see the module docstring."""
    if len(counts) != 15:
        raise ValueError(f"plan_hand takes 15 rank counts (3..A, 2, black joker, red joker), got {len(counts)}")
    counts = tuple(int(c) for c in counts)
    cost, chains = _search(counts, 0, 0, {})
    return HandPlan(cost, _build_units(counts, chains))


@lru_cache(maxsize=4)
def _move_arrays(table: MoveTable) -> tuple[np.ndarray, np.ndarray]:
    """Per move: its rank counts (M, 15) and its number of cards (M,)."""
    counts = np.zeros((len(table), 15), dtype=np.int8)
    counts[:, :13] = table.cards[:, :52].reshape(-1, 13, 4).sum(axis=2)
    counts[:, 13:] = table.cards[:, 52:]
    return counts, counts.sum(axis=1).astype(np.int64)


def _beatable(unit: Unit, unseen: np.ndarray) -> bool:
    """Whether the unseen cards could beat ``unit`` without a bomb (bombs and the rocket count as unbeatable)."""
    cat = unit.category
    if cat in _BOMB_CATS:
        return False
    if cat == _C.SOLO:
        return bool(unseen[unit.rank + 1:].any())
    if cat in (_C.PAIR, _C.TRIO, _C.TRIO_SOLO, _C.TRIO_PAIR, _C.BOMB_SOLOS, _C.BOMB_PAIRS):
        need = {_C.PAIR: 2, _C.BOMB_SOLOS: 4, _C.BOMB_PAIRS: 4}.get(cat, 3)
        return bool((unseen[unit.rank + 1:13] >= need).any())
    width = {_C.CHAIN: 1, _C.PAIR_CHAIN: 2}.get(cat, 3)
    run = 0
    for r in range(unit.rank + 1, _ACE + 1):
        run = run + 1 if unseen[r] >= width else 0
        if run >= unit.length:
            return True
    return False


class DouDizhuRuleAgent(Agent):
    """Rule-based DouDiZhu player over a hand planner (module docstring; the heuristic rule baseline role of
    "RLCard" in Luo & Tan 2024, Tables 8 and 10). Deterministic; ties broken by move id.

    ``kickers`` must match the game's move table (``"douzero"`` or ``"distinct"``).
    """

    name = "doudizhu_rule"
    bids = True

    def __init__(self, kickers: str = "douzero"):
        self.table = doudizhu_move_table(kickers)
        self._counts, self._sizes = _move_arrays(self.table)

    @classmethod
    def from_rule_options(cls, options: Mapping[str, Any]) -> "DouDizhuRuleAgent":
        """The agent for a game with these rule options (the registry's ``rule`` agent kind)."""
        return cls(kickers=options.get("kickers", "douzero"))

    # ---- entry point -------------------------------------------------------------------------
    def act(self, view: DouDizhuView, legal_moves: np.ndarray) -> int:
        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            return int(legal[0])
        if legal[0] >= len(self.table):
            return self._bid(view, legal)
        hand = tuple(int(c) for c in view.hand)
        finishing = self._finishing_move(hand, legal)
        if finishing is not None:
            return finishing
        if view.last_move is None:
            return self._lead(view, hand, legal)
        return self._follow(view, hand, legal)

    # ---- helpers -----------------------------------------------------------------------------
    def _finishing_move(self, hand: tuple[int, ...], legal: np.ndarray) -> int | None:
        """A legal move that empties the hand (a bomb first: it doubles the score), else None."""
        moves = legal[self._sizes[legal] == sum(hand)]
        moves = moves[moves != self.table.pass_id]
        if len(moves) == 0:
            return None
        bombs = [int(m) for m in moves if int(self.table.category[m]) in _BOMB_CATS]
        return bombs[0] if bombs else int(moves[0])

    def _move_id(self, counts: tuple[int, ...]) -> int | None:
        return self.table.index.get(rank_counts_to_string(counts))

    @staticmethod
    def _sides(view: DouDizhuView) -> tuple[list[int], int | None]:
        """(opponent seats, partner seat or None) of the viewing seat."""
        if view.seat == view.landlord:
            return [s for s in range(3) if s != view.seat], None
        partner = 3 - view.seat - view.landlord
        return [view.landlord], partner

    def _smallest(self, legal: np.ndarray, category: int) -> int | None:
        moves = legal[self.table.category[legal] == category]
        if len(moves) == 0:
            return None
        return int(moves[np.lexsort((moves, self.table.rank[moves]))[0]])

    # ---- leading -----------------------------------------------------------------------------
    def _lead(self, view: DouDizhuView, hand: tuple[int, ...], legal: np.ndarray) -> int:
        opponents, partner = self._sides(view)
        left = view.cards_left
        opp_min = int(min(left[o] for o in opponents))
        if partner is not None and left[partner] <= 2:
            partner_next = (view.seat + 1) % 3 == partner
            if partner_next or left[view.landlord] > 2:
                feed = self._smallest(legal, _C.PAIR) if left[partner] == 2 else None
                feed = feed if feed is not None else self._smallest(legal, _C.SOLO)
                if feed is not None:
                    return feed
        plan = plan_hand(hand)
        legal_set = set(int(m) for m in legal)
        units = [(u, self._move_id(u.counts)) for u in plan.units]
        units = [(u, m) for u, m in units if m is not None and m in legal_set]
        if not units:  # cannot happen with a consistent table; stay legal regardless
            return int(legal[np.lexsort((legal, self.table.rank[legal]))[0]])
        unseen = np.asarray(view.unseen)
        controls = [(u, m) for u, m in units if not _beatable(u, unseen)]
        others = [(u, m) for u, m in units if _beatable(u, unseen)]
        if len(others) <= 1 and controls:
            # Take the lead with what cannot be beaten, bombs last, then play the last unit.
            u, m = min(controls, key=lambda um: (um[0].category in _BOMB_CATS, -um[0].size, um[0].rank, um[1]))
            return m

        def danger(u: Unit) -> bool:
            return (opp_min == 1 and u.category == _C.SOLO) or (opp_min == 2 and u.category == _C.PAIR)

        def key(um: tuple[Unit, int]):
            u, m = um
            d = danger(u)
            return (d, -u.rank if d else u.rank, -u.size, m)

        return min(others, key=key)[1]

    # ---- following ---------------------------------------------------------------------------
    def _follow(self, view: DouDizhuView, hand: tuple[int, ...], legal: np.ndarray) -> int:
        table = self.table
        pass_id = table.pass_id
        opponents, partner = self._sides(view)
        left = view.cards_left
        opp_min = int(min(left[o] for o in opponents))
        from_partner = partner is not None and view.last_mover == partner
        cats = table.category[legal]
        is_bomb = (cats == _C.BOMB) | (cats == _C.ROCKET)
        last_cat = int(table.category[view.last_move])
        normal = legal[(~is_bomb) & (legal != pass_id)] if last_cat not in _BOMB_CATS else legal[:0]
        bombs = legal[is_bomb]
        cost0 = plan_hand(hand).cost
        best = self._best_normal(hand, normal, opp_min)

        if from_partner:
            if best is None or left[partner] <= 2:
                return pass_id
            cost, move = best
            endgame = sum(hand) <= 6
            cheap = int(self._counts[move][_TWO:].sum()) == 0 and cost < cost0
            return move if endgame and cheap else pass_id

        urgent = opp_min <= 5 and (view.last_mover in opponents and left[view.last_mover] == opp_min)
        slack = _NORMAL_SLACK
        if partner is not None and (view.seat + 1) % 3 == view.landlord:
            slack += 0.7  # landlord_up answering the landlord: the partner has already passed
        if partner is not None and left[partner] <= 2:
            slack += 1.0  # win the lead to feed the partner
        if best is not None:
            cost, move = best
            if urgent or opp_min <= 2 or cost - cost0 < slack:
                return move
        if len(bombs):
            bomb = int(bombs[np.lexsort((bombs, table.category[bombs], table.rank[bombs]))[0]])
            rest = tuple(h - int(c) for h, c in zip(hand, self._counts[bomb]))
            after = plan_hand(rest)
            unseen = np.asarray(view.unseen)
            wins_after = sum(1 for u in after.units if _beatable(u, unseen)) <= 1
            if wins_after or opp_min <= 3:
                return bomb
        return pass_id

    def _best_normal(self, hand: tuple[int, ...], moves: np.ndarray, opp_min: int) -> tuple[float, int] | None:
        """The cheapest non-bomb follow as (plan cost after it, move id); kicker moves: best kickers per main."""
        if len(moves) == 0:
            return None
        table = self.table
        best: tuple[float, int, int] | None = None
        # Kicker moves come in groups sharing a main part; price at most a few kicker choices per group.
        groups = table.group_of[moves]
        order = np.lexsort((moves, groups))
        moves, groups = moves[order], groups[order]
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        ends = np.r_[starts[1:], len(moves)]
        for s, e in zip(starts, ends):
            members = moves[s:e]
            if e - s > 3:
                kick = self._counts[members].astype(np.int64) @ np.arange(15)
                members = members[np.lexsort((members, kick))[:3]]
            for m in members:
                m = int(m)
                rest = tuple(h - int(c) for h, c in zip(hand, self._counts[m]))
                cost = plan_hand(rest).cost
                if opp_min == 1 and table.category[m] == _C.SOLO:
                    cost -= 0.1 * int(table.rank[m])  # block with the highest solo
                cand = (cost, int(table.rank[m]), m)
                if best is None or cand < best:
                    best = cand
        return (best[0], best[2]) if best is not None else None

    # ---- bidding -----------------------------------------------------------------------------
    def _bid(self, view: DouDizhuView, legal: np.ndarray) -> int:
        base = len(self.table)
        return base + choose_bid(view.hand, [int(a) - base for a in legal])
