"""The GuanDan rules engine (docs/rules.md "GuanDan"): deals, tricks, finishing order, DanZero rewards, and the
match flow (team levels, promotion, level A, tribute and return). No gym/torch/ray.

Sources: docs/rules.md; Lu et al. 2023 (DanZero) Sec. III (rules) and IV (rewards +3/+2/+1, level-A rule);
Zhao et al. 2024 (DanZero+) Sec. IV-E (tribute heuristics), IV-B (match bonus +-1).

Seats 0..3 play in order 0, 1, 2, 3; teams sit opposite: team 0 = seats 0 and 2, team 1 = seats 1 and 3.
Levels are ranks: a :class:`~cardrl.games.guandan.moves.Rank` or its name ``"2"`` .. ``"A"``
(:func:`~cardrl.games.guandan.moves.parse_level`; a plain int is refused as ambiguous). ``game.level``,
``game.team_levels`` and a view's levels are ``Rank`` values (an ``IntEnum`` valued by the rank index, 0 for 2 .. 12
for A).

Actions
    Like every cardrl engine, :meth:`GuanDanGame.legal_moves` returns sorted integer action ids and
    :meth:`GuanDanGame.step` takes one: ``108 + i`` is move ``i`` of the current level's table, ``0..53`` and
    ``54..107`` the tribute and return decisions (:mod:`cardrl.games.guandan.table`). The legal card plays come from
    the level table's compiled scan (:meth:`~cardrl.games.guandan.table.LevelMoveTable.legal_ids`, the same set as the
    by-value generator :func:`~cardrl.games.guandan.moves.legal_moves`); :meth:`GuanDanGame.legal_move_values` gives
    their :class:`~cardrl.games.guandan.moves.Move` values in the order of the ids (decoded when read),
    :meth:`move_of` / :meth:`id_of` convert, and ``step`` also takes a legal ``Move``.
    ``game.actions`` records the ids. With ``tribute_decisions=True`` the tribute card (which of the equally highest
    cards) and the returned card are decisions too: moves of category ``TRIBUTE`` / ``RETURN`` in phases
    ``"tribute"`` / ``"return"``; otherwise they are made by DanZero+'s heuristics (:func:`default_tribute`,
    :func:`default_return`) as the deal starts.

Match (``match=True``, the default; DanZero's episode): the first deal is played at level 2; each later deal
at the level of the team that won the previous one. The first finisher's team goes up 3 / 2 / 1 levels when the
partner finishes 2nd / 3rd / 4th, never past A. A team wins the match by winning a deal played at its own level
A with the partner not last; after ``a_level_attempts`` failed deals at its own level A a team goes back to 2
(``None``: never). ``max_deals`` (default ``None``) ends a match early without a winner. With ``match=False``
one deal is played at ``level`` (default ``"2"``) without tribute.

Rewards (DanZero): per deal, +3 / +2 / +1 to each seat of the first finisher's team when the partner finishes
2nd / 3rd / 4th, the negative to the others; a deal won at the winner's own level A with the partner last
(which cannot end the match) scores 0. ``match_bonus=True`` adds +1 / -1 to every deal of a match once a team
has won it (DanZero+). ``deal_rewards`` holds one (4,) array per finished deal; :meth:`payoffs` is their sum.

Tribute (from the second deal): the last finisher gives the first finisher their highest card (the heart wild
excluded; jokers are highest), even when the last finisher is the first finisher's partner (a 1-4 finish; docs/rules.md
read literally, as in the DanZero authors' public engine); on a 1st+2nd finish both losers pay, the larger card to the first finisher and
the smaller to the second (equal cards: the payer after the first finisher in seat order pays the first
finisher). No tribute if the paying side holds both red jokers. Each receiver returns a card of rank <= 10 to
its payer (a level card only with ``return_level_card=True``; a hand without such a card returns its lowest
card). Who leads: the payer (the larger payer; on equal cards the payer after the first finisher), or the first
finisher on a refusal. The first deal's leader is drawn from the seed.
"""

from __future__ import annotations

import numpy as np

from cardrl.games.engine import Engine, GameOverError, IllegalMoveError, check_action_type, check_seed
from cardrl.games.guandan.moves import (
    BLACK_JOKER, DECK, HEARTS, LEVEL_POWER, NUM_KINDS, RANKS, RED_JOKER, Category, Move, MoveGenerator, Rank,
    card_name, cards_to_string, legal_moves, move_to_string, parse_level, power, wild_kind)
from cardrl.games.guandan.table import (
    NUM_ACTIONS, NUM_SPECIAL, RETURN_BASE, TRIBUTE_BASE, LegalValues, decision_move, level_table)

NUM_PLAYERS = 4
LEVEL_A = Rank.ACE
REWARDS = ("danzero",)
_PROMOTION = {2: 3, 3: 2, 4: 1}  # partner's place -> levels gained (and the deal reward)
_DECK = np.repeat(np.arange(NUM_KINDS), 2)

__all__ = ["GuanDanGame", "normalise_options", "upgrade_stored_options", "deal_cards", "GuanDanView", "default_tribute",
           "default_return", "tribute_candidates", "return_candidates", "team_of", "partner_of", "NUM_PLAYERS",
           "LEVEL_A", "REWARDS"]


def team_of(seat: int) -> int:
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % NUM_PLAYERS


def normalise_options(options: dict) -> dict:
    """GuanDan's rule options checked, the level as its rank name (``"2"`` .. ``"A"``: what deal files and
    configurations store; an int is refused as ambiguous, see :func:`~cardrl.games.guandan.moves.parse_level`)."""
    return {**options, "level": str(parse_level(options["level"]))}


def upgrade_stored_options(options: dict) -> dict:
    """Rule options as an older cardrl stored them (deal files) in today's form: before levels took ranks, the level
    was stored as its rank index (0 for 2 .. 12 for A)."""
    level = options.get("level")
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < len(RANKS):
        return {**options, "level": str(RANKS[level])}
    return dict(options)


def _card_power(kind: int, level: int) -> int:
    if kind == BLACK_JOKER:
        return 14
    if kind == RED_JOKER:
        return 15
    return power(kind // 4, level)


def tribute_candidates(hand: np.ndarray, level: Rank | str) -> list[int]:
    """The kinds a payer may give: the highest by single power, the heart wild excluded."""
    level = parse_level(level)
    wild = 4 * level + HEARTS
    kinds = [k for k in range(NUM_KINDS) if hand[k] and k != wild]
    if not kinds:
        return []
    top = max(_card_power(k, level) for k in kinds)
    return [k for k in kinds if _card_power(k, level) == top]


def return_candidates(hand: np.ndarray, level: Rank | str, return_level_card: bool = False) -> list[int]:
    """The kinds a receiver may return: rank <= 10 (a level card only if allowed); if none, the lowest cards."""
    level = parse_level(level)
    kinds = [k for k in range(52) if hand[k] and k // 4 <= 8 and (return_level_card or k // 4 != level)]
    if kinds:
        return kinds
    held = [k for k in range(NUM_KINDS) if hand[k]]
    low = min(_card_power(k, level) for k in held)
    return [k for k in held if _card_power(k, level) == low]


def _protected_kinds(hand: np.ndarray, level: int) -> set[int]:
    """Kinds in a natural bomb (>= 4 of a rank) or a natural straight flush of the hand (DanZero+ keeps them)."""
    protected = set()
    for rank in range(13):
        if sum(int(hand[4 * rank + s]) for s in range(4)) >= 4:
            protected.update(4 * rank + s for s in range(4))
    counts = [int(c) for c in hand]
    counts[4 * level + HEARTS] = 0  # without the wilds: the hand's own straight flushes
    for move in MoveGenerator(counts, level).sequences(Category.STRAIGHT_FLUSH, -1):
        protected.update(move.cards)
    return protected


def default_tribute(hand: np.ndarray, level: Rank | str) -> int:
    """DanZero+'s tribute (Sec. IV-E): the highest card is forced; among equal kinds keep straight flushes intact."""
    level = parse_level(level)
    candidates = tribute_candidates(hand, level)
    protected = _protected_kinds(hand, level)
    free = [k for k in candidates if k not in protected]
    return (free or candidates)[0]


def default_return(hand: np.ndarray, level: Rank | str, return_level_card: bool = False) -> int:
    """DanZero+'s return (Sec. IV-E): keep bombs and straight flushes; first a low card that only makes a
    single, then one from a low pair or trio, then anything allowed (lowest rank first)."""
    level = parse_level(level)
    candidates = return_candidates(hand, level, return_level_card)
    protected = _protected_kinds(hand, level)
    rank_count = {r: sum(int(hand[4 * r + s]) for s in range(4)) for r in range(13)}

    def key(k: int) -> tuple[int, int, int]:
        rank = k // 4 if k < 52 else 13
        if k in protected:
            tier = 2
        elif k < 52 and rank_count[rank] == 1:
            tier = 0
        else:
            tier = 1
        return (tier, _card_power(k, level), k)

    return min(candidates, key=key)


def deal_cards(seed: int, deal_index: int) -> tuple[np.ndarray, int]:
    """The (4, 54) hands of deal ``deal_index`` of a match seeded ``seed`` (27 cards each) and the leader drawn
    for it (used by the first deal only)."""
    rng = np.random.default_rng([seed, deal_index])
    order = rng.permutation(_DECK)
    hands = np.zeros((NUM_PLAYERS, NUM_KINDS), dtype=np.int8)
    for seat in range(NUM_PLAYERS):
        np.add.at(hands[seat], order[27 * seat:27 * (seat + 1)], 1)
    return hands, int(rng.integers(NUM_PLAYERS))


class GuanDanView:
    """A player's view of a :class:`GuanDanGame` (copied arrays; ``oracle=True`` adds every hand).

    ``legal`` holds the legal action ids when ``seat`` is to move (else an empty array) and ``legal_values`` their
    ``Move`` values; :meth:`moves_of` and :meth:`move_cards` decode action ids at the view's level.
    """

    __slots__ = ("seat", "role", "team", "hand", "unseen", "played", "cards_left", "history", "last_move",
                 "last_mover", "level", "team_levels", "level_team", "finished", "tributes", "returns", "phase",
                 "hands", "deal_index", "legal", "legal_values")

    def __init__(self, game: GuanDanGame, seat: int, oracle: bool):
        self.seat = seat
        self.role = f"player_{seat}"
        self.team = team_of(seat)
        self.phase = game.phase
        self.hand = game.hands[seat].copy()
        self.unseen = game.hands.sum(axis=0, dtype=np.int8) - self.hand
        self.played = game.played.copy()
        self.cards_left = game.hands.sum(axis=1).astype(np.int64)
        self.history = tuple(game.history)
        self.last_move = game.last_move
        self.last_mover = game.last_mover
        self.level = game.level
        self.team_levels = tuple(RANKS[x] for x in game.team_levels)
        self.level_team = game.level_team
        self.finished = tuple(game.finished)
        self.deal_index = game.deal_index
        self.tributes = tuple(game.tributes)
        self.returns = tuple(r for r in game.returns if oracle or seat in (r[0], r[1]))
        self.hands = game.hands.copy() if oracle else None
        if seat == game.current_player and not game.is_over:
            self.legal, values = game._legal_pair()
            self.legal_values = values if isinstance(values, LegalValues) else tuple(values)  # both immutable
        else:
            self.legal, self.legal_values = np.zeros(0, dtype=np.int64), ()

    def moves_of(self, ids) -> list[Move]:
        """The ``Move`` values of action ids at the view's level (the legal ones straight from ``legal_values``)."""
        out = []
        for action in np.asarray(ids, dtype=np.int64).tolist():
            pos = int(np.searchsorted(self.legal, action))
            if pos < len(self.legal) and self.legal[pos] == action:
                out.append(self.legal_values[pos])
            elif action < NUM_SPECIAL:
                out.append(decision_move(action))
            else:
                out.append(level_table(self.level).move_of(action - NUM_SPECIAL))
        return out

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` int8 card counts of action ids at the view's level."""
        return _move_cards(self.level, ids)

    def move_keys(self, ids) -> np.ndarray:
        return _move_keys(self.level, ids)

    def move_strength(self, ids) -> np.ndarray:
        return _move_strength(self.level, ids)


class GuanDanGame(Engine):
    """A GuanDan match (or one deal with ``match=False``); see the module docstring for rules and actions.

    ``reset(seed)`` deals; ``legal_moves()`` (action ids), ``step(id_or_move)``,
    ``current_player``, ``is_over`` and ``payoffs()`` play it; ``view(seat)`` / ``oracle_view()`` expose what a
    player (or an oracle) sees; ``copy()`` is cheap and ``replay(seed, actions)`` rebuilds a state exactly.
    """

    name = "guandan"
    num_players = NUM_PLAYERS
    rewards = REWARDS
    deck = DECK
    view_class, copied_arrays, copied_lists = GuanDanView, ("hands", "played"), (
        "actions", "history", "finished", "tributes", "returns", "_pending", "team_levels", "a_failures",
        "deal_rewards", "deal_results")

    def __init__(self, match: bool = True, level: Rank | str = Rank.TWO, a_level_attempts: int | None = 3,
                 return_level_card: bool = False, match_bonus: bool = False, tribute_decisions: bool = False,
                 max_deals: int | None = None):
        super().__init__()
        for name, value in (("match", match), ("match_bonus", match_bonus),
                            ("tribute_decisions", tribute_decisions), ("return_level_card", return_level_card)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
        if max_deals is not None and isinstance(max_deals, bool):
            raise ValueError(f"max_deals must be a positive int or None, got {max_deals!r}")
        self.match = bool(match)
        self.start_level = parse_level(level)
        if self.match and self.start_level != Rank.TWO:
            raise ValueError(f"level='{self.start_level}' applies to a single deal (match=False): a match always "
                             f"starts both teams at level 2 and promotes them by the deals' results")
        if a_level_attempts is not None and (not isinstance(a_level_attempts, int) or a_level_attempts < 1):
            raise ValueError(f"a_level_attempts must be a positive int or None, got {a_level_attempts!r}")
        if max_deals is not None and (not isinstance(max_deals, int) or max_deals < 1):
            raise ValueError(f"max_deals must be a positive int or None, got {max_deals!r}")
        self.a_level_attempts = a_level_attempts
        self.return_level_card = bool(return_level_card)
        self.match_bonus = bool(match_bonus)
        self.tribute_decisions = bool(tribute_decisions)
        self.max_deals = max_deals
        self._legal: tuple[np.ndarray, list[Move]] | None = None  # (sorted ids, their Move values)

    # ---- setup -------------------------------------------------------------------------------
    def reset(self, seed: int) -> "GuanDanGame":
        self.seed = check_seed(seed)
        self.actions: list[int] = []
        self.team_levels = [self.start_level if not self.match else Rank.TWO] * 2
        self.level_team: int | None = None  # whose level this deal is played at (None: the first deal)
        self.a_failures = [0, 0]
        self.deal_index = -1
        self.deal_rewards: list[np.ndarray] = []
        self.deal_results: list[dict] = []
        self.match_winner: int | None = None
        self.last_finish: list[int] | None = None
        self._start_deal()
        return self

    @property
    def level(self) -> Rank:
        """The level (a :class:`~cardrl.games.guandan.moves.Rank`) the current deal is played at."""
        return RANKS[self.team_levels[self.level_team] if self.level_team is not None else self.team_levels[0]]

    def _start_deal(self) -> None:
        self.deal_index += 1
        self.hands, first_leader = deal_cards(self.seed, self.deal_index)
        self.played = np.zeros((NUM_PLAYERS, NUM_KINDS), dtype=np.int8)
        self.history: list[tuple[int, Move]] = []  # (seat, move) of this deal's play, passes included
        self.finished: list[int] = []
        self.last_move: Move | None = None
        self.last_mover: int | None = None
        self.passes = 0
        self.tributes: list[tuple[int, int, int]] = []  # (payer, receiver, kind), public
        self.returns: list[tuple[int, int, int]] = []  # (giver, receiver, kind), seen by the two
        self.refused = False
        self._pending: list[tuple[str, int, int]] = []  # ("tribute"|"return", seat, to) still to decide
        self._legal = None
        if self.deal_index == 0 or self.last_finish is None:
            self._begin_play(first_leader)
            return
        self._plan_tribute()

    # ---- tribute ------------------------------------------------------------------------------
    def _plan_tribute(self) -> None:
        first = self.last_finish[0]
        winners = team_of(first)
        double = len(self.last_finish) >= 2 and team_of(self.last_finish[1]) == winners
        if double:
            payers = [s for s in range(first + 1, first + 4) if team_of(s % 4) != winners]
            payers = [s % 4 for s in payers]
        else:
            payers = [self.last_finish[3] if len(self.last_finish) == 4 else
                      next(s for s in range(4) if s not in self.last_finish)]
        red_jokers = sum(int(self.hands[p][RED_JOKER]) for p in payers)
        if red_jokers >= 2:
            self.refused = True
            self._begin_play(first)
            return
        self._double = double
        self._payers = payers
        self._pending = [("tribute", p, -1) for p in payers]
        self._advance_tribute()

    def _advance_tribute(self) -> None:
        """Resolve pending tribute decisions automatically unless they are the players' to make."""
        while self._pending:
            kind, seat, _ = self._pending[0]
            if self.tribute_decisions:
                self.phase = kind
                self.current_player = seat
                self._legal = None
                return
            choice = (default_tribute(self.hands[seat], self.level) if kind == "tribute"
                      else default_return(self.hands[seat], self.level, self.return_level_card))
            self._apply_tribute_choice(choice)
        self._finish_tribute()

    def _apply_tribute_choice(self, card: int) -> None:
        kind, seat, to = self._pending.pop(0)
        if kind == "tribute":
            self.tributes.append((seat, -1, card))
            if not any(k == "tribute" for k, _, _ in self._pending):
                self._assign_tributes()
        else:
            self.hands[seat][card] -= 1
            self.hands[to][card] += 1
            self.returns.append((seat, to, card))

    def _assign_tributes(self) -> None:
        """All tributes are chosen: hand them over and queue the returns (first finisher's first)."""
        first = self.last_finish[0]
        paid = list(self.tributes)  # payers in seat order after the first finisher
        if self._double:
            second = partner_of(first)
            paid.sort(key=lambda t: -_card_power(t[2], self.level))  # stable: ties keep seat order
            receivers = [first, second]
        else:
            receivers = [first]
        self.tributes = [(payer, to, card) for (payer, _, card), to in zip(paid, receivers)]
        for payer, to, card in self.tributes:
            self.hands[payer][card] -= 1
            self.hands[to][card] += 1
        self._leader_after_tribute = self.tributes[0][0]
        self._pending = [("return", to, payer) for payer, to, _ in self.tributes]

    def _finish_tribute(self) -> None:
        self._begin_play(self._leader_after_tribute)

    def _begin_play(self, leader: int) -> None:
        self.phase = "play"
        self.current_player = leader
        self.leader = leader
        self._legal = None

    def set_hands(self, hands: np.ndarray, current_player: int | None = None) -> "GuanDanGame":
        """Replace the hands during play (tests and puzzles; the trick is reset to a lead by
        ``current_player``, default: unchanged). Cards need not add up to 108."""
        hands = np.asarray(hands, dtype=np.int8)
        if hands.shape != (NUM_PLAYERS, NUM_KINDS) or hands.min() < 0 or hands.max() > 2:
            raise ValueError(f"hands must be (4, 54) counts 0..2, got shape {hands.shape}")
        if self.phase != "play":
            raise RuntimeError(f"set_hands works in the play phase, not {self.phase!r}")
        self.hands = hands.copy()
        self.played = np.zeros_like(self.hands)
        self.finished = []
        self.last_move, self.last_mover, self.passes = None, None, 0
        if current_player is not None:
            self.current_player = int(current_player)
        self._legal = None
        return self

    # ---- queries -----------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    def legal_moves(self) -> np.ndarray:
        """Sorted action ids of the legal actions of the player to move (``108 + i``: move ``i`` of the level's
        table, pass included when following; tribute / return phases: ``kind`` / ``54 + kind``)."""
        return self._legal_pair()[0].copy()

    def legal_move_values(self) -> list[Move]:
        """The legal actions as :class:`Move` values, in the order of :meth:`legal_moves`.

        Phases ``tribute``/``return``: one ``Move(Category.TRIBUTE or RETURN, rank, (kind,))`` per allowed card.
        """
        return list(self._legal_pair()[1])

    def _legal_pair(self) -> tuple[np.ndarray, list[Move]]:
        self._require_deal()
        if self._legal is None:
            if self.phase == "play":  # the compiled scan: sorted ids, values decoded when read
                table = level_table(self.level)
                ids = table.legal_ids(self.hands[self.current_player], self.last_move)
                self._legal = (ids + NUM_SPECIAL, LegalValues(table, ids))
            else:
                moves = self._compute_legal()
                ids = self._ids_of_values(moves)
                order = np.argsort(ids, kind="stable")
                self._legal = (ids[order], [moves[i] for i in order])
            self._legal[0].setflags(write=False)
        return self._legal

    def _compute_legal(self) -> list[Move]:
        """The legal moves by value through the generator (tribute and return phases; the play phase goes through
        the level table's compiled scan, which gives the same set)."""
        seat = self.current_player
        if self.phase == "play":
            return legal_moves(self.hands[seat], self.last_move, self.level)
        if self.phase == "tribute":
            return [decision_move(TRIBUTE_BASE + k) for k in tribute_candidates(self.hands[seat], self.level)]
        if self.phase == "return":
            return [decision_move(RETURN_BASE + k)
                    for k in return_candidates(self.hands[seat], self.level, self.return_level_card)]
        return []

    def _ids_of_values(self, moves: list[Move]) -> np.ndarray:
        if not moves:
            return np.zeros(0, dtype=np.int64)
        if moves[0].category in (Category.TRIBUTE, Category.RETURN):
            base = TRIBUTE_BASE if moves[0].category == Category.TRIBUTE else RETURN_BASE
            return np.array([base + m.cards[0] for m in moves], dtype=np.int64)
        return NUM_SPECIAL + level_table(self.level).ids_of(moves)

    def move_of(self, action: int) -> Move:
        """The :class:`Move` an action id stands for at the current level (ValueError when it stands for none)."""
        action = check_action_type(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action ids are 0..{NUM_ACTIONS - 1}, got {action}")
        if action < NUM_SPECIAL:
            return decision_move(action)
        return level_table(self.level).move_of(action - NUM_SPECIAL)

    def id_of(self, move: Move) -> int:
        """The action id of a :class:`Move` at the current level (ValueError when it is no move of the level)."""
        return int(self._ids_of_values([move])[0])

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` int8 card counts of action ids at the current level (a tribute / return id: its card)."""
        return _move_cards(self.level, ids)

    def move_string(self, action: int) -> str:
        """The move of an action id in words at the current level (wild stand-ins named, as in
        :func:`~cardrl.games.guandan.moves.move_to_string`)."""
        return move_to_string(self.move_of(action), self.level)

    def move_keys(self, ids) -> np.ndarray:
        """``(n, 2)`` ``(category, rank)`` of action ids at the current level: what tells apart moves that play the
        same cards."""
        return _move_keys(self.level, ids)

    def move_strength(self, ids) -> np.ndarray:
        """Tie-break key of action ids (higher: stronger; see :func:`_move_strength`)."""
        return _move_strength(self.level, ids)

    def wild_kinds(self) -> tuple[int, ...]:
        """The card kinds that are wild at the current level (the heart level card)."""
        return (wild_kind(self.level),)

    def cards_held(self) -> np.ndarray:
        return self.hands.astype(np.int64)

    def cards_played(self) -> np.ndarray:
        return self.played.astype(np.int64)

    def is_legal(self, action) -> bool:
        """Whether ``action`` (an action id or a ``Move``) is legal now."""
        try:
            self._resolve(action)
        except IllegalMoveError:
            return False
        return True

    def _resolve(self, action) -> tuple[int, Move]:
        """(id, Move) of a legal action given as an id or a ``Move``; IllegalMoveError saying why otherwise."""
        ids, moves = self._legal_pair()
        if isinstance(action, Move):
            try:
                return int(ids[moves.index(action)]), action
            except ValueError:
                raise IllegalMoveError(self._illegal_reason(action)) from None
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"an action must be an int action id (or a GuanDan Move), got "
                            f"{type(action).__name__} {action!r}")
        action = int(action)
        pos = int(np.searchsorted(ids, action))
        if pos < len(ids) and ids[pos] == action:
            return action, moves[pos]
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalMoveError(f"action {action} is out of range: ids are 0..{NUM_ACTIONS - 1}")
        try:
            move = self.move_of(action)
        except ValueError:
            size = len(level_table(self.level))
            raise IllegalMoveError(f"action {action} is no move at level {'23456789TJQKA'[self.level]} (its table "
                                   f"has ids {NUM_SPECIAL}..{NUM_SPECIAL + size - 1})") from None
        reason = self._illegal_reason(move)
        legal = ", ".join(str(i) for i in ids) if self.phase in ("tribute", "return") else None
        raise IllegalMoveError(f"action {action} ({move_to_string(move, self.level)}): {reason}"
                               + (f"; legal ids: {legal}" if legal else ""))

    def _illegal_reason(self, move: Move) -> str:
        who = f"seat {self.current_player}"
        if self.phase in ("tribute", "return"):
            allowed = ", ".join(card_name(m.cards[0]) for m in self.legal_move_values())
            return f"{who} must choose a {self.phase} card; {move_to_string(move, self.level)} is not one of: {allowed}"
        if move.category in (Category.TRIBUTE, Category.RETURN):
            return f"{who} is playing cards, not choosing a tribute or return card"
        if move.is_pass:
            return f"{who} leads and may not pass"
        hand = self.hands[self.current_player]
        need = np.bincount(np.asarray(move.cards, dtype=np.int64), minlength=NUM_KINDS)
        if (need > hand).any():
            return (f"{who} does not hold the cards of {move_to_string(move, self.level)}; hand is "
                    f"{cards_to_string(np.repeat(np.arange(NUM_KINDS), hand))}")
        if self.last_move is not None:
            return (f"{move_to_string(move, self.level)} does not beat the last move "
                    f"{move_to_string(self.last_move, self.level)} at level {self.level}, or is not a valid "
                    f"combination of those cards")
        return f"{move_to_string(move, self.level)} is not a valid combination at level {self.level}"

    # ---- transitions -------------------------------------------------------------------------
    def step(self, action) -> "GuanDanGame":
        """Apply a legal action (an action id, or a legal ``Move``); raises and changes nothing if not."""
        self._require_running()
        action_id, move = self._resolve(action)
        self.actions.append(action_id)
        self._legal = None
        if self.phase in ("tribute", "return"):
            self._apply_tribute_choice(move.cards[0])
            self._advance_tribute()
        else:
            self._play(move)
        return self

    def _active(self) -> list[int]:
        return [s for s in range(NUM_PLAYERS) if s not in self.finished]

    def _play(self, move: Move) -> None:
        seat = self.current_player
        self.history.append((seat, move))
        if not move.is_pass:
            for kind in move.cards:
                self.hands[seat][kind] -= 1
                self.played[seat][kind] += 1
            self.last_move, self.last_mover, self.passes = move, seat, 0
            if not self.hands[seat].any():
                self.finished.append(seat)
                if self._deal_over():
                    self._end_deal()
                    return
        else:
            self.passes += 1
        active = self._active()
        needed = len(active) - (1 if self.last_mover in active else 0)
        if self.passes >= needed:  # everyone else passed: the trick is won
            winner = self.last_mover
            self.last_move, self.last_mover, self.passes = None, None, 0
            self.current_player = winner if winner in active else partner_of(winner)  # partner takeover
            return
        nxt = (seat + 1) % NUM_PLAYERS
        while nxt in self.finished:
            nxt = (nxt + 1) % NUM_PLAYERS
        self.current_player = nxt

    def _deal_over(self) -> bool:
        f = self.finished
        return len(f) >= 3 or (len(f) == 2 and team_of(f[0]) == team_of(f[1]))

    def _end_deal(self) -> None:
        order = list(self.finished)
        if len(order) == 3:
            order.append(next(s for s in range(NUM_PLAYERS) if s not in order))
        first = order[0]
        team = team_of(first)
        place = order.index(partner_of(first)) + 1 if partner_of(first) in order else 4
        gained = _PROMOTION[place]
        reward = float(gained)
        deal_level = self.level
        at_own_a = self.level_team is not None and self.team_levels[self.level_team] == LEVEL_A
        result = {"order": order, "team": team, "partner_place": place, "level": deal_level,
                  "level_team": self.level_team}
        match_won = False
        if self.match:
            a_team = self.level_team if at_own_a else None
            if a_team == team and place != 4:
                match_won = True
            else:
                if a_team is not None:  # a failed attempt at the level team's own A
                    self.a_failures[a_team] += 1
                    if a_team == team:
                        reward = 0.0  # won at own A with the partner last: cannot end the match (DanZero)
                    if self.a_level_attempts is not None and self.a_failures[a_team] >= self.a_level_attempts:
                        self.team_levels[a_team] = Rank.TWO
                        self.a_failures[a_team] = 0
                        result["demoted"] = a_team
                if not (a_team == team and result.get("demoted") == team):
                    self.team_levels[team] = RANKS[min(self.team_levels[team] + gained, LEVEL_A)]
            self.level_team = team
        rewards = np.array([reward if team_of(s) == team else -reward for s in range(NUM_PLAYERS)])
        self.deal_rewards.append(rewards)
        result["reward"] = reward
        self.deal_results.append(result)
        self.last_finish = order
        if match_won:
            self.match_winner = team
            if self.match_bonus:
                bonus = np.array([1.0 if team_of(s) == team else -1.0 for s in range(NUM_PLAYERS)])
                self.deal_rewards = [r + bonus for r in self.deal_rewards]
        if not self.match or match_won or (self.max_deals is not None and self.deal_index + 1 >= self.max_deals):
            self.phase = "over"
            self._legal = None
            return
        self._start_deal()

    # ---- results -----------------------------------------------------------------------------
    def match_winner_seats(self) -> tuple[int, ...]:
        """The seats of the team that won the match (empty while it runs or when ``max_deals`` cut it)."""
        if self.match_winner is None:
            return ()
        return tuple(s for s in range(NUM_PLAYERS) if team_of(s) == self.match_winner)

    @property
    def deals_played(self) -> int:
        """Deals finished so far in this game (the match, or the one deal)."""
        return len(self.deal_results) if self.phase is not None else 0

    def payoffs(self, reward: str | None = None) -> np.ndarray:
        """Per seat, the sum of the finished deals' rewards (see the module docstring); zeros before any."""
        self._check_reward(reward)
        if not self.deal_rewards:
            return np.zeros(NUM_PLAYERS)
        return np.sum(self.deal_rewards, axis=0)

    def payoff_bounds(self, reward: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """A deal pays each seat at most +-3 (+-4 with the match bonus, added to every deal of a finished match)."""
        self._check_reward(reward)
        top = 3.0 + (1.0 if self.match_bonus else 0.0)
        return np.full(NUM_PLAYERS, -top), np.full(NUM_PLAYERS, top)

    def render(self) -> str:
        """A readable text picture: levels, hands, the trick to beat, recent moves."""
        lvl = "23456789TJQKA"
        lines = [f"deal {self.deal_index + 1} at level {lvl[self.level]} (team levels {lvl[self.team_levels[0]]}/"
                 f"{lvl[self.team_levels[1]]}), phase {self.phase}"]
        for seat in range(NUM_PLAYERS):
            mark = "*" if seat == getattr(self, "current_player", -1) and not self.is_over else " "
            done = f" finished #{self.finished.index(seat) + 1}" if seat in self.finished else ""
            hand = cards_to_string(np.repeat(np.arange(NUM_KINDS), self.hands[seat])) or "-"
            lines.append(f"{mark} seat {seat} (team {team_of(seat)}) [{int(self.hands[seat].sum()):2d}]{done} {hand}")
        if self.tributes:
            lines.append("tribute: " + ", ".join(f"{p}->{r} {card_name(k)}" for p, r, k in self.tributes))
        last = "(lead)" if self.last_move is None else move_to_string(self.last_move, self.level)
        lines.append(f"to beat: {last}")
        recent = [f"{s}: {move_to_string(m, self.level)}" for s, m in self.history[-6:]]
        lines.append("recent: " + (" | ".join(recent) if recent else "-"))
        if self.is_over:
            lines.append(f"over: payoffs {self.payoffs().tolist()}, match winner team {self.match_winner}")
        return "\n".join(lines)


_KIND_CATEGORIES = [int(c) for c in (Category.SINGLE, Category.PAIR, Category.TRIO, Category.THREE_WITH_TWO,
                                     Category.BOMB)]
_BOMBS = [int(c) for c in (Category.BOMB, Category.STRAIGHT_FLUSH, Category.JOKER_BOMB)]


def _move_keys(level: int, ids) -> np.ndarray:
    """``(n, 2)`` int64 ``(category, rank)`` of action ids at ``level`` (the ``Move`` fields; tribute / return ids:
    their category and the card's single rank)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    out = np.zeros((len(ids), 2), dtype=np.int64)
    special = ids < NUM_SPECIAL
    if special.any():
        kinds = ids[special] % NUM_KINDS
        out[special, 0] = np.where(ids[special] < RETURN_BASE, int(Category.TRIBUTE), int(Category.RETURN))
        out[special, 1] = np.where(kinds < 52, kinds // 4, kinds - 38)
    if not special.all():
        table = level_table(level)
        rest = ids[~special] - NUM_SPECIAL
        out[~special, 0] = table.categories_of(rest)
        out[~special, 1] = table.ranks_of(rest)
    return out


def _move_strength(level: int, ids) -> np.ndarray:
    """How strong each move is, to break ties between moves that play the same cards (a wild card used two ways):
    a bomb above a non-bomb, then the higher power (the level rank above A for singles to bombs; the start of a
    sequence)."""
    keys = _move_keys(level, ids)
    category, rank = keys[:, 0], keys[:, 1]
    power = np.where(np.isin(category, _KIND_CATEGORIES) & (rank == level), LEVEL_POWER, rank)
    return np.isin(category, _BOMBS) * 100 + power


def _move_cards(level: int, ids) -> np.ndarray:
    """``(n, 54)`` int8 card counts of action ids at ``level`` (tribute / return ids: their one card)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    out = np.zeros((len(ids), NUM_KINDS), dtype=np.int8)
    if ids.size and (ids.min() < 0 or ids.max() >= NUM_ACTIONS):
        raise ValueError(f"action ids are 0..{NUM_ACTIONS - 1}; got min {ids.min()} max {ids.max()}")
    special = ids < NUM_SPECIAL
    out[np.flatnonzero(special), ids[special] % NUM_KINDS] = 1
    if not special.all():
        table = level_table(level)
        rest = ids[~special] - NUM_SPECIAL
        if rest.max() >= len(table):
            raise ValueError(f"action ids at level {'23456789TJQKA'[level]} are below "
                             f"{NUM_SPECIAL + len(table)}; got {int(rest.max()) + NUM_SPECIAL}")
        out[~special] = table.counts_of(rest)
    return out
