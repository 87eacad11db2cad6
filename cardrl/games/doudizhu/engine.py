"""The DouDiZhu rules engine (docs/rules.md "DouDiZhu"): a small, cheaply copied value, no gym/torch/ray.

Seats are 0, 1, 2 in play order. Without bidding the landlord is seat 0 (DouZero's fixed-landlord setting,
used by DouZero, DouZero+ and OADMCDou); with ``bidding=True`` one round of bids (pass, 1, 2, 3; a bid must
exceed the last; 3 ends it) decides the landlord, and a deal where all pass is re-dealt.
Roles are ``landlord``, ``landlord_down`` (plays after the landlord) and ``landlord_up`` (plays before).

Payoffs are zero-sum per seat: ADP pays the landlord ``+-2 x base`` and each peasant ``-+base`` with
``base = bid x 2^(bombs + rockets)`` (x2 for a spring when ``spring=True``); WP pays ``+-2`` / ``-+1``.
Divide the landlord's payoff by 2 for DouZero's per-side targets.

Moves are ids into :func:`~cardrl.games.doudizhu.moves.doudizhu_move_table`; during bidding the actions are
``num_moves + b`` for ``b`` in 0 (pass), 1, 2, 3.
"""

from __future__ import annotations

import numpy as np

from cardrl.cards import NUM_KINDS, NUM_RANKS_WITH_JOKERS, rank_counts_to_bits, rank_counts_to_string
from cardrl.games.doudizhu.moves import Category, doudizhu_move_table
from cardrl.games.engine import Engine, IllegalMoveError, check_action_type, check_seed, table_move_reason

NUM_PLAYERS = 3
ROLES = ("landlord", "landlord_down", "landlord_up")
REWARDS = ("adp", "wp")
_DECK = np.array([r for r in range(13) for _ in range(4)] + [13, 14], dtype=np.int64)
_BOMB_CATEGORIES = (int(Category.BOMB), int(Category.ROCKET))
_DECK_VECTOR = np.ones(NUM_KINDS, dtype=np.int64)
_DECK_VECTOR.setflags(write=False)


def normalise_options(options: dict) -> dict:
    """DouDiZhu's rule options checked (``kickers`` "douzero" or "distinct", ``bidding`` and ``spring`` bools)."""
    from cardrl.games.doudizhu.moves import KICKER_RULES

    if options["kickers"] not in KICKER_RULES:
        raise ValueError(f"doudizhu kickers={options['kickers']!r}; allowed: {', '.join(map(repr, KICKER_RULES))}")
    for name in ("bidding", "spring"):
        if not isinstance(options[name], (bool, np.bool_)):
            raise ValueError(f"doudizhu {name}={options[name]!r}; allowed: True, False")
    return {**options, "bidding": bool(options["bidding"]), "spring": bool(options["spring"])}


def _thermometer(counts: np.ndarray) -> np.ndarray:
    """Rank counts ``(..., 15)`` -> 54-dim thermometer card vectors ``(..., 54)`` (int64)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(counts.shape[:-1] + (NUM_KINDS,), dtype=np.int64)
    out[..., :52] = (np.arange(4) < counts[..., :13, None]).reshape(counts.shape[:-1] + (52,))
    out[..., 52:] = counts[..., 13:] > 0
    return out


class DouDizhuView:
    """A player's view of a :class:`DouDizhuGame` (copied arrays; ``oracle=True`` adds every hand).

    ``unseen`` are the cards this player cannot see (the other two hands together), which DouZero's
    features encode as "other hand cards". ``table`` is the game's (shared, read-only) move table.
    """

    __slots__ = ("seat", "role", "hand", "unseen", "played", "cards_left", "history", "history_seats",
                 "last_move", "last_mover", "bomb_count", "landlord", "bottom", "hands", "phase", "bids", "table",
                 "num_moves", "hand_bits")

    def __init__(self, game: DouDizhuGame, seat: int, oracle: bool):
        self.seat = seat
        self.table = game.table
        self.num_moves = game.num_moves
        self.landlord = game.landlord
        self.role = game.role(seat) if game.landlord >= 0 else None
        self.phase = game.phase
        self.hand = game.hands[seat].copy()
        self.hand_bits = game.hand_bits(seat)
        self.unseen = game.hands.sum(axis=0, dtype=np.int8) - self.hand
        self.played = game.played.copy()
        self.cards_left = game.hands.sum(axis=1).astype(np.int64)
        self.history = tuple(game.history)
        self.history_seats = tuple(game.history_seats)
        self.last_move = game.last_move
        self.last_mover = game.last_mover
        self.bomb_count = game.bomb_count
        self.bids = tuple(game.bids)
        self.bottom = game.bottom.copy() if game.landlord >= 0 else None  # shown face up once taken
        self.hands = game.hands.copy() if oracle else None

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` uint8 card vectors of action ids (bids: zeros)."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        out = np.zeros((len(ids), NUM_KINDS), dtype=np.uint8)
        moves = ids < self.num_moves
        out[moves] = self.table.cards[ids[moves]]
        return out


class DouDizhuGame(Engine):
    """One deal of DouDiZhu; see the module docstring for seats, roles, bidding and payoffs.

    ``reset(seed)`` deals; ``legal_moves()``, ``step(move)``, ``current_player``, ``is_over`` and
    ``payoffs()`` play it; ``view(seat)`` and ``oracle_view()`` expose what a player (or an oracle) sees;
    ``copy()`` is cheap and ``replay(seed, actions)`` rebuilds a state exactly.
    """

    name = "doudizhu"
    num_players = NUM_PLAYERS
    rewards = REWARDS
    suits_matter = False  # hidden-card labels: per card (True) or per rank (False)
    deck = _DECK_VECTOR
    view_class, copied_arrays, copied_lists = DouDizhuView, ("hands", "played", "num_played_moves", "bottom"), (
        "history", "history_seats", "bids", "actions", "_bits_cache")

    def __init__(self, kickers: str = "douzero", bidding: bool = False, spring: bool = False):
        super().__init__()
        for option, value in (("bidding", bidding), ("spring", spring)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{option} must be a bool, got {type(value).__name__} {value!r}")
        self.table = doudizhu_move_table(kickers)
        self.num_moves = len(self.table)
        self.kickers = kickers
        self.bidding = bool(bidding)
        self.spring = bool(spring)

    # ---- setup -------------------------------------------------------------------------------
    def reset(self, seed: int) -> "DouDizhuGame":
        self.seed = check_seed(seed)
        self.actions = []
        self.redeals = 0
        self._bits_cache: list[tuple[bytes, int]] = [(b"", 0)] * NUM_PLAYERS
        self._deal(np.random.default_rng(self.seed))
        return self

    def _deal(self, rng: np.random.Generator) -> None:
        order = rng.permutation(_DECK)
        self.hands = np.zeros((NUM_PLAYERS, NUM_RANKS_WITH_JOKERS), dtype=np.int8)
        for seat in range(NUM_PLAYERS):
            np.add.at(self.hands[seat], order[seat * 17:(seat + 1) * 17], 1)
        self.bottom = np.zeros(NUM_RANKS_WITH_JOKERS, dtype=np.int8)
        np.add.at(self.bottom, order[51:], 1)
        self.played = np.zeros((NUM_PLAYERS, NUM_RANKS_WITH_JOKERS), dtype=np.int8)
        self.num_played_moves = np.zeros(NUM_PLAYERS, dtype=np.int16)
        self.history: list[int] = []  # move ids of the play phase, passes included
        self.history_seats: list[int] = []
        self.bids: list[int] = []
        self.last_move: int | None = None  # the move to beat; None when the player to move leads
        self.last_mover: int | None = None
        self.bomb_count = 0
        self.winner: int | None = None
        if self.bidding:
            self.phase = "bid"
            self.first_bidder = int(rng.integers(NUM_PLAYERS))
            self.current_player = self.first_bidder
            self.landlord = -1
            self.bid = 0
            self.bid_winner = -1  # the highest bidder so far (none yet); set anew every deal
        else:
            self.phase = "play"
            self._make_landlord(0, bid=1)

    def _make_landlord(self, seat: int, bid: int) -> None:
        self.landlord = seat
        self.bid = bid
        self.hands[seat] += self.bottom
        self.current_player = seat
        self.phase = "play"

    # ---- queries -----------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        """Move ids ``0 .. num_moves - 1``, then (with bidding) the bids pass, 1, 2, 3."""
        return self.num_moves + (4 if self.bidding else 0)

    def move_cards(self, ids) -> np.ndarray:
        """``(n, 54)`` uint8 thermometer card vectors of action ids (bids: zeros)."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_actions):
            raise ValueError(f"action ids are 0..{self.num_actions - 1}; got min {ids.min()} max {ids.max()}")
        out = np.zeros((len(ids), NUM_KINDS), dtype=np.uint8)
        moves = ids < self.num_moves
        out[moves] = self.table.cards[ids[moves]]
        return out

    def move_string(self, action: int) -> str:
        action = int(action)
        if 0 <= action < self.num_moves:
            return self.table.strings[action]
        if self.num_moves <= action < self.num_actions:
            return "bid pass" if action == self.num_moves else f"bid {action - self.num_moves}"
        raise ValueError(f"action ids are 0..{self.num_actions - 1}, got {action}")

    def cards_held(self) -> np.ndarray:
        return _thermometer(self.hands)

    def cards_played(self) -> np.ndarray:
        return _thermometer(self.played)

    def undealt_cards(self) -> np.ndarray:
        """The three bottom cards until the landlord takes them (bidding), else zeros."""
        if self.landlord < 0:
            return _thermometer(self.bottom)
        return np.zeros(NUM_KINDS, dtype=np.int64)

    def hand_bits(self, seat: int) -> int:
        """The seat's hand as a 54-bit card set (cached until the hand changes)."""
        key = self.hands[seat].tobytes()
        cached = self._bits_cache[seat]
        if cached[0] != key:
            cached = self._bits_cache[seat] = (key, rank_counts_to_bits(self.hands[seat]))
        return cached[1]

    def role(self, seat: int) -> str:
        """``landlord``, ``landlord_down`` or ``landlord_up`` (only once the landlord is known)."""
        if self.landlord < 0:
            raise RuntimeError("roles are not known before bidding has ended")
        return ROLES[(seat - self.landlord) % NUM_PLAYERS]

    def seat_of(self, role: str) -> int:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; roles are {ROLES}")
        if self.landlord < 0:
            raise RuntimeError("roles are not known before bidding has ended")
        return (self.landlord + ROLES.index(role)) % NUM_PLAYERS

    def legal_moves(self) -> np.ndarray:
        """Sorted ids of the legal actions of the player to move (bid actions during bidding)."""
        self._require_deal()
        if self.phase == "play":
            return self.table.legal_moves(self.hand_bits(self.current_player), self.last_move)
        if self.phase == "bid":
            return np.array([self.num_moves] + [self.num_moves + b for b in range(self.bid + 1, 4)])
        return np.zeros(0, dtype=np.int64)

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int id) is legal for the player to move; a non-int raises TypeError."""
        self._require_deal()
        action = check_action_type(action)
        if self.phase == "bid":
            return action == self.num_moves or self.num_moves + self.bid < action <= self.num_moves + 3
        if self.phase != "play" or not 0 <= action < self.num_moves:
            return False
        bits = int(self.table.bits[action])
        return bits & ~self.hand_bits(self.current_player) == 0 and self.table.beats(
            action, self.last_move)

    def min_combination_rules(self) -> tuple:
        """What Minimum Combination Search needs of this move set: (fixed moves, variable categories, thermometer
        hands, jokers in the deck) (see :mod:`cardrl.search.mcs`)."""
        from cardrl.games.doudizhu.moves import MCS_FIXED_MOVES, MCS_VARIABLE_CATEGORIES

        return (MCS_FIXED_MOVES[self.kickers], tuple(int(c) for c in MCS_VARIABLE_CATEGORIES), True, True)

    # ---- transitions -------------------------------------------------------------------------
    def step(self, action: int) -> "DouDizhuGame":
        """Apply a legal action of the player to move. Raises (and changes nothing) otherwise."""
        self._require_running()
        action = check_action_type(action)
        if not self.is_legal(action):
            raise IllegalMoveError(self._illegal_reason(action))
        self.actions.append(action)
        if self.phase == "bid":
            self._step_bid(action - self.num_moves)
        else:
            self._step_play(action)
        return self

    def _illegal_reason(self, action: int) -> str:
        who = f"seat {self.current_player}"
        if self.phase == "bid":
            allowed = ["pass"] + [str(b) for b in range(self.bid + 1, 4)]
            return (f"{who} is bidding: action {action} is not a bid; allowed are {self.num_moves} (pass) and "
                    f"{self.num_moves}+b for b in {allowed[1:]}")
        hand = rank_counts_to_string(self.hands[self.current_player])
        return table_move_reason(self.table, action, rank_counts_to_bits(self.hands[self.current_player]),
                                 self.last_move, who, hand)

    def _step_bid(self, bid: int) -> None:
        self.bids.append(bid)
        if bid:
            self.bid = bid
            self.bid_winner = self.current_player
        if bid == 3 or len(self.bids) == NUM_PLAYERS:
            if self.bid == 0:  # all passed: re-deal with a seed derived from the deal's seed
                self.redeals += 1
                self._deal(np.random.default_rng([self.seed, self.redeals]))
                return
            self._make_landlord(self.bid_winner, self.bid)
            return
        self.current_player = (self.current_player + 1) % NUM_PLAYERS

    def _step_play(self, move: int) -> None:
        seat = self.current_player
        self.history.append(move)
        self.history_seats.append(seat)
        if move != self.table.pass_id:
            delta = self.table.rank_counts[move]
            self.hands[seat] -= delta
            self.played[seat] += delta
            self.num_played_moves[seat] += 1
            if self.table.category[move] in _BOMB_CATEGORIES:
                self.bomb_count += 1
            self.last_move, self.last_mover = move, seat
            if not self.hands[seat].any():
                self.winner = seat
                self.phase = "over"
                return
        nxt = (seat + 1) % NUM_PLAYERS
        if nxt == self.last_mover:  # two passes in a row: the last player leads
            self.last_move = None
        self.current_player = nxt

    # ---- results -----------------------------------------------------------------------------
    def winning_side(self) -> str | None:
        """``"landlord"``, ``"peasants"``, or ``None`` while the game runs."""
        if self.winner is None:
            return None
        return "landlord" if self.winner == self.landlord else "peasants"

    def multiplier(self) -> int:
        """``bid x 2^(bombs + rockets)``, x2 for a spring or anti-spring when that option is on."""
        mult = self.bid * 2 ** self.bomb_count
        if self.spring and self.winner is not None:
            peasants = [s for s in range(NUM_PLAYERS) if s != self.landlord]
            if self.winner == self.landlord and not any(self.num_played_moves[p] for p in peasants):
                mult *= 2
            elif self.winner != self.landlord and self.num_played_moves[self.landlord] == 1:
                mult *= 2
        return mult

    def payoffs(self, reward: str | None = None) -> np.ndarray:
        """Zero-sum payoff per seat (see module docstring; ``reward`` "adp", the default, or "wp"); all zeros
        while the game runs."""
        reward = self._check_reward(reward)
        out = np.zeros(NUM_PLAYERS, dtype=np.float64)
        if self.winner is None:
            return out
        base = float(self.multiplier()) if reward == "adp" else 1.0
        sign = 1.0 if self.winner == self.landlord else -1.0
        out[:] = -sign * base
        out[self.landlord] = 2.0 * sign * base
        return out

    def payoff_bounds(self, reward: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The landlord wins or loses at most 2 x the largest base, a peasant the base: with ADP the base is at most
        bid 3 (1 without bidding) x 2 per bomb (13) and the rocket, x2 for a spring when that option is on."""
        reward = self._check_reward(reward)
        base = 1.0
        if reward == "adp":
            base = (3.0 if self.bidding else 1.0) * 2.0 ** 14 * (2.0 if self.spring else 1.0)
        high = np.full(NUM_PLAYERS, base)
        if self.bidding:  # any seat may become the landlord
            high[:] = 2 * base
        else:
            high[0] = 2 * base  # the landlord is seat 0
        return -high, high

    def render(self) -> str:
        """A readable text picture of the deal: hands, the trick to beat, and the recent moves."""
        lines = []
        if self.phase == "bid":
            lines.append(f"bidding: bids so far {self.bids}, seat {self.current_player} to bid")
        for seat in range(NUM_PLAYERS):
            role = self.role(seat) if self.landlord >= 0 else f"seat {seat}"
            mark = "*" if seat == self.current_player and not self.is_over else " "
            hand = _pretty(rank_counts_to_string(self.hands[seat])) or "-"
            lines.append(f"{mark} {role:<14} [{int(self.hands[seat].sum()):2d}] {hand}")
        if self.phase != "bid":
            last = "(lead)" if self.last_move is None else _pretty(self.table.strings[self.last_move])
            lines.append(f"to beat: {last}    bombs: {self.bomb_count}    bid: {self.bid}")
            recent = [f"{self.role(s)}: {_pretty(self.table.strings[m])}"
                      for s, m in zip(self.history_seats[-6:], self.history[-6:])]
            lines.append("recent: " + (" | ".join(recent) if recent else "-"))
        if self.is_over:
            lines.append(f"over: {self.winning_side()} win, ADP payoffs {self.payoffs('adp').tolist()}")
        return "\n".join(lines)


def _pretty(move: str) -> str:
    """``"TTJB"`` -> ``"10 10 J BJ"``: one token per card, jokers as BJ (black) and RJ (red)."""
    if move == "pass":
        return "pass"
    names = {"T": "10", "B": "BJ", "R": "RJ"}
    return " ".join(names.get(ch, ch) for ch in move)
