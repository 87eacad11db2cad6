"""Rule-based GuanDan agents over a hand planner: heuristic baselines in the role of the rule-based bots that
DanZero (Lu et al. 2023, Sec. I and V-B) and DanZero+ (Zhao et al. 2024, Sec. I and V-B) evaluate against. The
papers describe those bots only in outline ("give priority to playing cards that are small or can not form
special card types when leading"; "when a player plays cards passively ... using cards of the same card type is
prior to playing bombs"; tribute returns that keep bombs and straight flushes, Sec. IV-E of DanZero+); the
planner and the rules below are our own.

**Hand planner** (:func:`plan_hand`). A hand is split into *units*, each one legal combination:

1. four jokers, when held, are one unit (the joker bomb); other jokers are singles or (identical) pairs;
2. every natural rank held four times or more is a bomb (bombs are never split by the planner);
3. at most one natural straight flush (no wild card, no card of a bomb rank) is kept when that lowers the cost;
4. straights (5), tubes (3 pairs) and plates (2 trios) are chosen by a memoised search over the rank counts;
   a sequence is considered only when it takes at least two ranks whole (so it removes loose cards), and a wild
   card may fill one missing card of it;
5. what is left are trios, pairs and singles; each trio takes the lowest pair below A as three-with-two;
   a wild card left over turns the lowest trio into a 4-card bomb when that is cheaper, else stays a single.

A plan's *cost*, which the search minimises, sums the units' costs: a non-bomb unit costs
``1 + slope * (12 - power)`` (low cards are harder to get rid of; ``power`` is the single power of its rank, for
a sequence of its top card), a bomb ``bomb`` (negative: it wins a trick back), the joker bomb twice that, a wild
kept as a single ``wild_single``. Fewer turns, stronger cards and unbroken bombs are cheaper. The weights are
per agent (:class:`PlanWeights`), which is one of the ways the two styles differ.

**Tribute and return** (engine option ``tribute_decisions=True``): tribute the card of the forced (highest)
power whose loss leaves the cheapest plan; return the allowed card whose loss leaves the cheapest plan (ties:
the lowest power, then the lowest kind), which keeps bombs and straight flushes and gives up lone low cards
first, as DanZero+ Sec. IV-E recommends.

Every decision is a deterministic function of the view and the legal moves (ties broken by the move's value),
and each agent memoises plans (its own dict, cleared when large; no global state).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import numpy as np

from cardrl.agents.base import Agent, legal_ids
from cardrl.games.guandan import GuanDanView, partner_of
from cardrl.games.guandan.moves import (
    BLACK_JOKER, HEARTS, RED_JOKER, Category, Move, Rank, bomb_key, parse_level, power)

__all__ = ["GuanDanShedAgent", "GuanDanControlAgent", "GuanDanPlan", "PlanUnit", "PlanWeights", "plan_hand"]

_C = Category
_LINE = (12,) + tuple(range(13))  # ranks along the ace-low line A 2 3 ... K A
# (category, start, ranks, copies per rank, bit mask of the ranks) of every sequence: straights, tubes, plates
_SEQUENCES = tuple((cat, s, _LINE[s:s + n], copies, sum(1 << r for r in _LINE[s:s + n]))
                   for cat, n, copies, starts in ((_C.STRAIGHT, 5, 1, 10), (_C.TUBE, 3, 2, 12), (_C.PLATE, 2, 3, 13))
                   for s in range(starts))
_MEMO_LIMIT = 200_000
_MAX_FOLLOWS = 12  # follows priced per decision: the fewest wilds, then the weakest


class PlanWeights(NamedTuple):
    """Costs of the GuanDan hand planner (ours; module docstring): per-unit base, slope per rank below A, a bomb,
    a kept wild. The styles differ in them (DanZero, Lu et al. 2023 Sec. V-B: rule bots of "different styles")."""

    base: float = 1.0
    slope: float = 0.05
    bomb: float = -0.6
    wild_single: float = 0.8


class PlanUnit(NamedTuple):
    """One combination of a plan. ``rank`` is the move's rank (natural rank, or a sequence's start on the
    ace-low line), ``low`` the power of its lowest card (for ordering leads), ``size`` its number of cards,
    ``wilds`` how many wild cards it uses, ``pair`` the pair's rank of a three-with-two (else -1), ``cards``
    the exact kinds of a straight flush (else ())."""

    category: Category
    rank: int
    low: int
    size: int
    wilds: int = 0
    pair: int = -1
    cards: tuple[int, ...] = ()

    @property
    def is_bomb(self) -> bool:
        return self.category in (_C.BOMB, _C.STRAIGHT_FLUSH, _C.JOKER_BOMB)


class GuanDanPlan(NamedTuple):
    """A hand split into :class:`PlanUnit` values; ``cost`` is what the planner minimises (module docstring;
    the hand "classification" DanZero+, Zhao et al. 2024 Sec. II, attributes to the strongest rule bots)."""

    cost: float
    units: tuple[PlanUnit, ...]

    @property
    def normal_units(self) -> tuple[PlanUnit, ...]:
        return tuple(u for u in self.units if not u.is_bomb)

    @property
    def bombs(self) -> tuple[PlanUnit, ...]:
        return tuple(u for u in self.units if u.is_bomb)


class _Planner:
    """The planner's search, memoised per instance (one per agent)."""

    def __init__(self, weights: PlanWeights):
        self.w = weights
        self.memo: dict = {}
        self.plans: dict = {}
        self._orders: dict = {}

    def __getstate__(self) -> dict:  # caches are not shipped (e.g. to Ray workers): they rebuild on use
        return {"w": self.w, "memo": {}, "plans": {}, "_orders": {}}

    def unit_cost(self, pw: int) -> float:
        return self.w.base + self.w.slope * (12 - pw)

    # ---- leaf: trios, pairs, singles (+ wilds) -------------------------------------------------------------
    def _order(self, level: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
        """Ranks in power order at ``level`` and each rank's unit cost."""
        got = self._orders.get(level)
        if got is None:
            order = tuple(r for r in range(13) if r != level) + (level,)
            got = self._orders[level] = (order, tuple(self.unit_cost(power(r, level)) for r in range(13)))
        return got

    def leaf(self, counts: tuple[int, ...], wilds: int, level: int, units: list | None = None) -> float:
        order, uc = self._order(level)
        fixed = 0.0  # singles and pairs
        low_pairs, trios = [], []  # in power order
        for r in order:
            c = counts[r]
            if c == 1 or c == 2:
                fixed += uc[r]
                if c == 2 and r != 12 and r != level:  # pairs below A carry into three-with-two
                    low_pairs.append(uc[r])
            elif c == 3:
                trios.append(uc[r])
        best, best_k = None, 0
        for k in range(min(wilds, len(trios)) + 1):  # k lowest trios become 4-card bombs with a wild each
            left = len(trios) - k
            cost = fixed + sum(trios[k:]) - sum(low_pairs[:left]) + k * self.w.bomb + (wilds - k) * self.w.wild_single
            if best is None or cost < best - 1e-12:
                best, best_k = cost, k
        if units is not None:
            trio_ranks = [r for r in order if counts[r] == 3]
            for r in trio_ranks[:best_k]:
                units.append(PlanUnit(_C.BOMB, r, power(r, level), 4, wilds=1))
            singles = [r for r in order if counts[r] == 1]
            pairs = [r for r in order if counts[r] == 2]
            self._groups_cost(singles, pairs, trio_ranks[best_k:], level, units)
            for _ in range(wilds - best_k):
                units.append(PlanUnit(_C.SINGLE, level, 13, 1, wilds=1))
        return best

    def _groups_cost(self, singles, pairs, trios, level, units) -> float:
        pairs = sorted(pairs, key=lambda r: power(r, level))
        trios = sorted(trios, key=lambda r: power(r, level))
        carried = [r for r in pairs if power(r, level) < 12][:len(trios)]
        cost = 0.0
        for i, r in enumerate(trios):
            cost += self.unit_cost(power(r, level))
            if units is not None:
                if i < len(carried):
                    units.append(PlanUnit(_C.THREE_WITH_TWO, r, power(r, level), 5, pair=carried[i]))
                else:
                    units.append(PlanUnit(_C.TRIO, r, power(r, level), 3))
        for r in pairs:
            if r in carried:
                continue
            cost += self.unit_cost(power(r, level))
            if units is not None:
                units.append(PlanUnit(_C.PAIR, r, power(r, level), 2))
        for r in singles:
            cost += self.unit_cost(power(r, level))
            if units is not None:
                units.append(PlanUnit(_C.SINGLE, r, power(r, level), 1))
        return cost

    # ---- sequences -----------------------------------------------------------------------------------------
    def search(self, counts: tuple[int, ...], wilds: int, level: int) -> tuple[float, tuple]:
        key = (counts, wilds, level)
        got = self.memo.get(key)
        if got is not None:
            return got
        best = (self.leaf(counts, wilds, level), ())
        at_least = [0, 0, 0, 0]  # bit r set in at_least[k]: rank r held k times or more (k = 1..3)
        for r, c in enumerate(counts):
            for k in range(1, min(c, 3) + 1):
                at_least[k] |= 1 << r
        budget = min(1, wilds)
        for cat, start, ranks, copies, mask in _SEQUENCES:
            # a wild fills one missing card at most, never a whole rank of a tube or plate
            if copies > 1 and mask & ~at_least[copies - 1]:
                continue
            deficit = (mask & ~at_least[copies]).bit_count()
            if deficit > budget:
                continue
            whole = (mask & ~at_least[copies + 1]).bit_count() if copies < 3 else len(ranks)
            if whole < 2:
                continue
            new = list(counts)
            for r in ranks:
                new[r] -= min(copies, counts[r])
            sub = self.search(tuple(new), wilds - deficit, level)
            top = _LINE[start + len(ranks) - 1]
            cost = self.unit_cost(top) + sub[0]
            if cost < best[0] - 1e-12:
                best = (cost, ((cat, start, deficit),) + sub[1])
        self.memo[key] = best
        return best

    # ---- whole hand ----------------------------------------------------------------------------------------
    def plan(self, hand: np.ndarray, level: int) -> GuanDanPlan:
        key = (hand.tobytes(), level)
        got = self.plans.get(key)
        if got is not None:
            return got
        if len(self.plans) > _MEMO_LIMIT or len(self.memo) > _MEMO_LIMIT:
            self.plans.clear()
            self.memo.clear()
        counts54 = [int(c) for c in hand.tolist()]
        wild = 4 * level + HEARTS
        wilds = counts54[wild]
        units: list[PlanUnit] = []
        cost = 0.0
        bj, rj = counts54[BLACK_JOKER], counts54[RED_JOKER]
        if bj == 2 and rj == 2:
            units.append(PlanUnit(_C.JOKER_BOMB, 0, 16, 4))
            cost += 2 * self.w.bomb
        else:
            for kind, jr, n in ((BLACK_JOKER, 14, bj), (RED_JOKER, 15, rj)):
                if n == 2:
                    units.append(PlanUnit(_C.PAIR, jr, jr, 2))
                elif n == 1:
                    units.append(PlanUnit(_C.SINGLE, jr, jr, 1))
                if n:
                    cost += self.unit_cost(jr)
        by_rank = hand[:52].reshape(13, 4)
        ranks = by_rank.sum(axis=1).tolist()
        ranks[level] -= wilds
        bomb_ranks = [r for r in range(13) if ranks[r] >= 4]
        for r in bomb_ranks:
            units.append(PlanUnit(_C.BOMB, r, power(r, level), ranks[r]))
            cost += self.w.bomb
            ranks[r] = 0
        # one natural straight flush, outside bomb ranks, when it lowers the cost
        base = tuple(ranks)
        options = [(self.search(base, wilds, level)[0], None)]
        for cards, start in _natural_straight_flushes(by_rank, level, bomb_ranks):
            rest = list(base)
            for kind in cards:
                rest[kind // 4] -= 1
            options.append((self.w.bomb + self.search(tuple(rest), wilds, level)[0], (start, cards)))
        best_cost, sf = min(options, key=lambda o: (o[0], o[1] is not None))
        if sf is not None:
            units.append(PlanUnit(_C.STRAIGHT_FLUSH, sf[0], sf[0] - 1, 5, cards=sf[1]))
            for kind in sf[1]:
                ranks[kind // 4] -= 1
        counts = tuple(ranks)
        _, seqs = self.search(counts, wilds, level)
        rest = list(counts)
        w = wilds
        for cat, start, deficit in seqs:
            length, copies = {_C.STRAIGHT: (5, 1), _C.TUBE: (3, 2), _C.PLATE: (2, 3)}[cat]
            for r in _LINE[start:start + length]:
                rest[r] -= min(copies, rest[r])
            w -= deficit
            units.append(PlanUnit(cat, start, start - 1, length * copies, wilds=deficit))
        self.leaf(tuple(rest), w, level, units)
        plan = GuanDanPlan(cost + best_cost, tuple(units))
        self.plans[key] = plan
        return plan


def _natural_straight_flushes(by_rank: np.ndarray, level: int, skip: list[int]) -> list[tuple[tuple, int]]:
    """(sorted kinds, start) of every straight flush of natural cards (the wild excluded) avoiding ``skip``."""
    has = by_rank > 0
    has[level, HEARTS] = False  # both heart level cards are wild
    for r in skip:
        has[r, :] = False
    out = []
    for suit in range(4):
        col = has[:, suit].tolist()
        if sum(col) < 5:
            continue
        line = [col[r] for r in _LINE]
        for start in range(10):
            if all(line[start:start + 5]):
                out.append((tuple(sorted(4 * r + suit for r in _LINE[start:start + 5])), start))
    return out


def plan_hand(hand: np.ndarray, level: Rank | str, weights: PlanWeights = PlanWeights()) -> GuanDanPlan:
    """The cheapest plan of a 54-count ``hand`` at ``level`` (a ``Rank`` or ``"2"`` .. ``"A"``; module docstring; a
    fresh planner each call)."""
    return _Planner(weights).plan(np.asarray(hand, dtype=np.int8), parse_level(level))


# ---- helpers ---------------------------------------------------------------------------------------------------
def _wilds_in(move: Move, level: int) -> int:
    wild = 4 * level + HEARTS
    return sum(1 for k in move.cards if k == wild)


def _move_power(move: Move, level: int) -> int:
    """Power of a move for ordering follows of one category (sequences: the start)."""
    if move.category in (_C.STRAIGHT, _C.TUBE, _C.PLATE, _C.STRAIGHT_FLUSH):
        return move.rank
    return power(move.rank, level)


def _pair_rank(move: Move, level: int) -> int:
    """The pair's rank of a three-with-two (wild cards stand for whatever is missing)."""
    wild = 4 * level + HEARTS
    natural = [k // 4 if k < 52 else (14 if k == BLACK_JOKER else 15) for k in move.cards if k != wild]
    others = [r for r in natural if r != move.rank]
    if others:
        return others[0]
    return -1


def _distinct(moves: list[Move], level: int) -> list[Move]:
    """One move per rank signature (category, rank, ranks of the cards, wilds): suits only matter to straight
    flushes, which are kept apart; the smallest move value of each signature is kept."""
    wild = 4 * level + HEARTS
    seen: dict = {}
    for m in moves:
        if m.category == _C.STRAIGHT_FLUSH:
            sig = (m.category, m.cards)
        else:
            sig = (m.category, m.rank, tuple(sorted(k // 4 if k < 52 and k != wild else k + 100 for k in m.cards)))
        if sig not in seen or m < seen[sig]:
            seen[sig] = m
    return list(seen.values())


def _matches(unit: PlanUnit, move: Move, level: int) -> bool:
    if move.category != unit.category or move.rank != unit.rank or len(move.cards) != unit.size:
        return False
    if unit.category == _C.STRAIGHT_FLUSH:
        return move.cards == unit.cards
    if _wilds_in(move, level) != unit.wilds:
        return False
    if unit.category == _C.THREE_WITH_TWO:
        return _pair_rank(move, level) == unit.pair
    return True


def _after(hand: np.ndarray, move: Move) -> np.ndarray:
    rest = hand.copy()
    for k in move.cards:
        rest[k] -= 1
    return rest


class _RuleAgent(Agent):
    """Shared machinery of the two styles: planning, tribute/return, finishing, mapping units to moves."""

    weights = PlanWeights()

    def __init__(self):
        self._planner = _Planner(self.weights)

    @classmethod
    def from_rule_options(cls, options: Mapping[str, Any]) -> "_RuleAgent":
        """The agent for a game with these rule options (the registry's agent kinds); it plays any GuanDan rules."""
        return cls()

    def plan(self, hand: np.ndarray, level: int) -> GuanDanPlan:
        return self._planner.plan(hand, level)

    def act(self, view: GuanDanView, legal_moves) -> int:
        """The chosen action id among ``legal_moves`` (the engine's ids; the rules reason on their ``Move`` values,
        :meth:`choose`)."""
        legal = legal_ids(self, legal_moves)
        if len(legal) == 1:
            return int(legal[0])
        moves = view.moves_of(legal)
        return int(legal[moves.index(self.choose(view, moves))])

    def choose(self, view: GuanDanView, legal_moves: list[Move]) -> Move:
        """The chosen ``Move`` among the legal ``Move`` values."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        first = legal_moves[0]
        if first.category in (_C.TRIBUTE, _C.RETURN):
            return self._give_card(view, legal_moves)
        hand_size = int(view.hand.sum())
        finishing = [m for m in legal_moves if len(m.cards) == hand_size]
        if finishing:
            return min(finishing, key=lambda m: (m.is_bomb, m))  # play out; keep the order stable
        if view.last_move is None:
            return self._lead(view, legal_moves)
        return self._follow(view, legal_moves)

    # -- tribute / return --
    def _give_card(self, view: GuanDanView, legal: list[Move]) -> Move:
        """Tribute: the forced-power card whose loss leaves the cheapest plan. Return: the allowed card whose
        loss leaves the cheapest plan, then the lowest power, then the lowest kind."""
        def key(m: Move):
            k = m.cards[0]
            pw = 14 if k == BLACK_JOKER else 15 if k == RED_JOKER else power(k // 4, view.level)
            return (round(self.plan(_after(view.hand, m), view.level).cost, 9), pw, k)

        return min(legal, key=key)

    # -- common pieces --
    @staticmethod
    def _opponents(view: GuanDanView) -> list[int]:
        return [s for s in ((view.seat + 1) % 4, (view.seat + 3) % 4) if s not in view.finished]

    def _unit_move(self, unit: PlanUnit, legal: list[Move], level: int, plan: GuanDanPlan) -> Move | None:
        """The legal move that plays ``unit``: no card of the plan's straight flush unless it is the unit."""
        reserved = set()
        for u in plan.units:
            if u.category == _C.STRAIGHT_FLUSH and u is not unit:
                reserved.update(u.cards)
        found = [m for m in legal if _matches(unit, m, level)]
        if not found:
            return None
        return min(found, key=lambda m: (sum(1 for k in m.cards if k in reserved), m))

    def _cheapest_bomb(self, view: GuanDanView, legal: list[Move]) -> Move | None:
        """The bomb that leaves the cheapest plan (then the weakest bomb); among bombs of one rank signature
        only the first in move order is priced."""
        level = view.level
        bombs = _distinct([m for m in legal if m.is_bomb], level)
        if not bombs:
            return None
        return min(bombs, key=lambda m: (round(self.plan(_after(view.hand, m), level).cost, 9),
                                         bomb_key(m, level), m))

    def _follow_options(self, view: GuanDanView, legal: list[Move], max_wilds: int,
                        keep: frozenset) -> list[tuple[float, int, Move]]:
        """(plan cost after, power, move) of the non-bomb follows using at most ``max_wilds`` wild cards and
        no kind in ``keep``; one move per distinct rank signature (suits only matter to straight flushes)."""
        level = view.level
        moves = [m for m in legal if not m.is_pass and not m.is_bomb and not any(k in keep for k in m.cards)
                 and _wilds_in(m, level) <= max_wilds]
        moves = _distinct(moves, level)
        moves.sort(key=lambda m: (_wilds_in(m, level), _move_power(m, level), m))
        out = []
        for m in moves[:_MAX_FOLLOWS]:
            cost = self.plan(_after(view.hand, m), level).cost
            out.append((round(cost, 9), _move_power(m, level), m))
        out.sort()
        return out

    @staticmethod
    def _bomb_kinds(plan: GuanDanPlan, hand: np.ndarray, level: int) -> frozenset:
        """The kinds of the plan's bombs and straight flush (natural cards; wilds are handled separately)."""
        kinds = set()
        for u in plan.units:
            if u.category == _C.STRAIGHT_FLUSH:
                kinds.update(u.cards)
            elif u.category == _C.BOMB and u.wilds == 0:
                kinds.update(k for k in range(4 * u.rank, 4 * u.rank + 4) if hand[k] and k != 4 * level + HEARTS)
            elif u.category == _C.JOKER_BOMB:
                kinds.update((BLACK_JOKER, RED_JOKER))
        return frozenset(kinds)

    def _lead(self, view: GuanDanView, legal: list[Move]) -> Move:
        raise NotImplementedError

    def _follow(self, view: GuanDanView, legal: list[Move]) -> Move:
        raise NotImplementedError

    def _lead_units(self, view: GuanDanView, legal: list[Move], plan: GuanDanPlan, order) -> Move:
        """The first unit in ``order`` that maps to a legal move; falls back to the weakest non-bomb move."""
        for unit in order:
            move = self._unit_move(unit, legal, view.level, plan)
            if move is not None:
                return move
        plays = [m for m in legal if not m.is_pass]
        return min(plays, key=lambda m: (m.is_bomb, _move_power(m, view.level), m))


class GuanDanShedAgent(_RuleAgent):
    """Shed-smallest-first (a DanZero-style rule bot, Lu et al. 2023 Sec. I; rules our own, see the module
    docstring for the planner).

    - **Lead**: the plan's non-bomb unit with the weakest lowest card, the one with more cards first on a tie
      (it sheds the most weak cards). If the next opponent holds one card, singles are led last (the highest
      single when only singles are left); holding two, the same for pairs. Bombs are led only when nothing
      else is left.
    - **Follow an opponent**: the same-category move (at most one wild card) that leaves the cheapest plan,
      the weakest on ties, when the plan cost rises by at most 0.8 (by anything when that opponent holds six
      cards or fewer). Else a bomb (the one leaving the cheapest plan) when that opponent holds six cards or
      fewer or the bomb leaves at most two non-bomb units (a winning run); else pass.
    - **Follow the partner**: pass, unless the partner holds more than four cards, its move is below J and a
      follow lowers our plan cost (sheds at no loss).
    - Wild cards: the planner places them (a missing card of a sequence, a trio made a bomb, else a level
      single); a follow uses at most one.
    """

    name = "guandan-shed"
    weights = PlanWeights(base=1.0, slope=0.06, bomb=-0.5, wild_single=0.7)

    def _lead(self, view: GuanDanView, legal: list[Move]) -> Move:
        plan = self.plan(view.hand, view.level)
        nxt = (view.seat + 1) % 4
        nxt_cards = int(view.cards_left[nxt]) if nxt not in view.finished else 99
        avoid = 1 if nxt_cards == 1 else 2 if nxt_cards == 2 else 0

        def key(u: PlanUnit):
            risky = avoid and u.size == avoid
            return (u.is_bomb, bool(risky), -u.low if risky else u.low, -u.size, u)

        return self._lead_units(view, legal, plan, sorted(plan.units, key=key))

    def _follow(self, view: GuanDanView, legal: list[Move]) -> Move:
        level = view.level
        plan = self.plan(view.hand, level)
        mover = view.last_mover
        last = view.last_move
        if mover == partner_of(view.seat):
            if int(view.cards_left[mover]) > 4 and not last.is_bomb and last.category in (
                    _C.SINGLE, _C.PAIR, _C.TRIO, _C.THREE_WITH_TWO) and power(last.rank, level) < 9:
                opts = self._follow_options(view, legal, 0, self._bomb_kinds(plan, view.hand, level))
                if opts and opts[0][0] < plan.cost - 0.3:
                    return opts[0][2]
            return legal[0]  # pass
        mover_cards = int(view.cards_left[mover])
        opts = self._follow_options(view, legal, 1, frozenset())
        if opts and (opts[0][0] <= plan.cost + 0.8 or mover_cards <= 6):
            return opts[0][2]
        bomb = self._cheapest_bomb(view, legal)
        if bomb is not None:
            after = self.plan(_after(view.hand, bomb), level)
            if mover_cards <= 6 or len(after.normal_units) <= 2:
                return bomb
        return legal[0]


class GuanDanControlAgent(_RuleAgent):
    """Control-keeping and partner-supporting (a DanZero-style rule bot, Lu et al. 2023 Sec. I; rules our own,
    see the module docstring for the planner, here weighted to value wild cards and bombs highly).

    - **Lead**: when the partner holds one card (two cards) and is still playing, feed it our lowest single
      (pair). Otherwise the plan's long units first (five cards or more: straights, tubes, plates,
      three-with-two), weakest first, then trios, pairs, singles weakest first. Near the end (at most two
      non-bomb units left besides bombs) the stronger unit goes first, to come back to the weaker one. An
      opponent on one (two) cards makes singles (pairs) go last, highest first. Bombs are led only when
      nothing else is left.
    - **Follow an opponent**: a same-category move that uses no wild card and no card of the plan's bombs or
      straight flush, leaving the cheapest plan, when the cost rises by at most 0.5 (at most 2.0 when that
      opponent holds eight cards or fewer). Wild cards may be used (one) only when that opponent holds four
      cards or fewer. Bomb only when the opponent is about to finish (six cards or fewer), or when the bomb
      leaves at most two non-bomb units (take the lead for a winning run: the stronger unit, then the
      other); then the bomb that leaves the cheapest plan. Else pass.
    - **Follow the partner**: never beat it (play out only when one move empties our hand), so the partner
      keeps the lead.
    """

    name = "guandan-control"
    weights = PlanWeights(base=1.0, slope=0.05, bomb=-0.9, wild_single=0.2)

    def _lead(self, view: GuanDanView, legal: list[Move]) -> Move:
        level = view.level
        plan = self.plan(view.hand, level)
        partner = partner_of(view.seat)
        if partner not in view.finished and int(view.cards_left[partner]) <= 2:
            want = int(view.cards_left[partner])
            cat = _C.SINGLE if want == 1 else _C.PAIR
            keep = self._bomb_kinds(plan, view.hand, level)
            feed = [m for m in legal if m.category == cat and _wilds_in(m, level) == 0
                    and not any(k in keep for k in m.cards)]
            if feed:
                return min(feed, key=lambda m: (power(m.rank, level), m))
        opp_min = min((int(view.cards_left[s]) for s in self._opponents(view)), default=99)
        avoid = 1 if opp_min == 1 else 2 if opp_min == 2 else 0
        normal = plan.normal_units
        run = len(normal) <= 2

        def key(u: PlanUnit):
            risky = bool(avoid and u.size == avoid)
            if run:
                return (u.is_bomb, risky, -u.low, u)
            return (u.is_bomb, risky, u.size < 5, -u.low if risky else u.low, -u.size, u)

        return self._lead_units(view, legal, plan, sorted(plan.units, key=key))

    def _follow(self, view: GuanDanView, legal: list[Move]) -> Move:
        level = view.level
        mover = view.last_mover
        if mover == partner_of(view.seat):
            return legal[0]  # pass: let the partner keep the lead
        plan = self.plan(view.hand, level)
        mover_cards = int(view.cards_left[mover])
        keep = self._bomb_kinds(plan, view.hand, level)
        opts = self._follow_options(view, legal, 1 if mover_cards <= 4 else 0, keep)
        slack = 2.0 if mover_cards <= 8 else 0.5
        if opts and opts[0][0] <= plan.cost + slack:
            return opts[0][2]
        bomb = self._cheapest_bomb(view, legal)
        if bomb is not None:
            after = self.plan(_after(view.hand, bomb), level)
            if mover_cards <= 6 or len(after.normal_units) <= 2:
                return bomb
        return legal[0]
