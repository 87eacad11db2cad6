"""GuanDan as a PettingZoo AEC environment (RULES.md "GuanDan"; DanZero's features and rewards, Lu et al. 2023).

Agents ``player_0`` .. ``player_3`` are the seats in play order; teams sit opposite (``player_0`` & ``player_2``,
``player_1`` & ``player_3``). One episode is a whole match (``match=True``, DanZero's episode; ``max_deals``
cuts it short, reported as a truncation) or a single deal at ``level`` (``match=False``).

Observation: ``Dict(observation=Box(513), action_mask=Box(int8, N))``; ``observation`` is DanZero's 513-dim
state (:mod:`cardrl.features.danzero`, ``danzero_v1``) of the observing seat.

Action space (measured on this 2-core machine; the engine identifies moves by value, see
:mod:`cardrl.games.guandan_moves`):

* Every move some 27-card hand can make at a level is a lead move of the full 108-card deck (or pass): that
  *move universe* holds 132,169 .. 135,070 moves depending on the level (2, K, A: 135,070; 3, Q: 133,407;
  4, J: 132,788; 5 .. 10: 132,169), and it changes with the level (the wild card and the level rank move), so one
  id space for every level would need up to 13 x ~133k = ~1.7M ids.
* A padded list of the legal moves is not an exact design at a practical size: random 27-card leads have 713
  legal moves on average (p99 2,748, max 3,895 over 3,000 deals), but a hill-climb over hands holding both wild
  cards found a lead with 15,947 legal moves (3..8 of every suit, 9d 9s and both wild 8h, at level 8), so an
  exact padded list would need more than 16k rows of 54 values per observation, and no proven bound exists.
* Design chosen (exact): ``Discrete(N)``, ``N = 108 + 1 + 135,070 = 135,179``. Ids ``0..53`` are the tribute
  decisions (the card kind given), ``54..107`` the return decisions (``tribute_decisions=True`` only), and
  ``108 + i`` is move ``i`` of the *current level's* move table: pass (``i = 0``) and the level's universe,
  sorted by (category, rank, cards), see :class:`LevelMoveTable`. A move's id depends on the level (which the
  observation carries); ids past a smaller level's table are never legal. The dense mask is 135 KB of int8 per
  observation (``np.flatnonzero(mask.view(bool))`` reads it in ~20 us; on int8 it takes ~300 us). A table takes
  1.5-3 s to build the first time its level is met and holds ~3.8 MB (cached per process, 13 at most). Mapping a
  legal list to ids costs ~0.7 us per move.
  ``legal_moves()`` gives the legal ids, ``legal_move_values()`` the engine's ``Move`` values in the same order,
  ``action_features(ids)`` their 54-dim DanZero action vectors, ``move_of(id)`` the ``Move`` of an id.

Tribute and return: by default the engine's DanZero+ heuristics decide them as each deal starts; with
``tribute_decisions=True`` the payer / receiver is the agent to move and chooses among the legal tribute /
return ids.

Rewards (DanZero): when a deal ends each agent gets its team's deal points (+3 / +2 / +1 to the first
finisher's team when the partner finishes 2nd / 3rd / 4th, the negative to the other; 0 for a win at the own
level A with the partner last); with ``match_bonus=True`` the +-1 per deal of a won match is paid when the match
ends. Rewards are zero-sum by team, and an agent's rewards over the episode sum to ``game.payoffs()``.

An illegal or out-of-range action, a wrong action type, or a step after the episode is over raises an error
that says what was wrong and what is allowed; the state is unchanged. Bad options raise at construction.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain

import numpy as np
from pettingzoo import AECEnv

from cardrl.envs.doudizhu_v0 import OrderEnforcing
from cardrl.envs.turns import DeclaredSpaces, check_action_int, leave_if_done, masked_spaces
from cardrl.features.danzero import STATE_DIM, DanZeroFeatures, moves_to_counts
from cardrl.games.common import IllegalMoveError, check_seed
from cardrl.games.guandan import RETURN, TRIBUTE, GuanDanGame, team_of
from cardrl.games.guandan_moves import DECK, NUM_KINDS, PASS, Category, Move, check_level, legal_moves

SEATS = ("player_0", "player_1", "player_2", "player_3")
NUM_SPECIAL = 2 * NUM_KINDS  # tribute ids 0..53, return ids 54..107
MAX_TABLE_SIZE = 135_071  # pass + the largest level move universe (level 2); the tests check all 13 levels
NUM_ACTIONS = NUM_SPECIAL + MAX_TABLE_SIZE
_POW3 = 3 ** np.arange(27, dtype=np.int64)
_POW3_F = (3.0 ** (np.arange(54) % 27)).astype(np.float64)  # per kind, for _keys_of_moves
_CATEGORY_INT = {c: int(c) for c in Category}
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)

__all__ = ["env", "raw_env", "LevelMoveTable", "level_table", "NUM_ACTIONS", "MAX_TABLE_SIZE", "SEATS"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's order-enforcing checks."""
    return OrderEnforcing(raw_env(**kwargs))


def _move_keys(counts: np.ndarray, categories: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys (hi, lo) of moves: base-3 card counts of kinds 0..26 (lo) and 27..53 (hi, plus
    (rank + 1) << 44 and category << 49, so that sorting by (hi, lo) sorts by category, rank, cards)."""
    c = counts.astype(np.int64, copy=False)
    lo = c[:, :27] @ _POW3
    hi = c[:, 27:] @ _POW3 + ((ranks.astype(np.int64) + 1) << 44) + (categories.astype(np.int64) << 49)
    return hi, lo


def _keys_of_moves(moves: list[Move]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_move_keys` straight from ``Move`` values (no (n, 54) matrix; float64 sums of powers of 3 below
    2**53 are exact)."""
    n = len(moves)
    lengths = np.fromiter((len(m[2]) for m in moves), dtype=np.int64, count=n)
    flat = np.fromiter(chain.from_iterable(m[2] for m in moves), dtype=np.int64, count=int(lengths.sum()))
    rows = np.repeat(np.arange(n), lengths)
    weights = _POW3_F[flat]
    high = flat >= 27
    lo = np.bincount(rows[~high], weights=weights[~high], minlength=n).astype(np.int64)
    hi = np.bincount(rows[high], weights=weights[high], minlength=n).astype(np.int64)
    cats = np.fromiter((_CATEGORY_INT[m[0]] for m in moves), dtype=np.int64, count=n)  # no IntEnum __index__
    ranks = np.fromiter((m[1] for m in moves), dtype=np.int64, count=n)
    hi += ((ranks + 1) << 44) + (cats << 49)
    return hi, lo


def _hash(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return hi.astype(np.uint64) * _HASH_MUL + lo.astype(np.uint64)


class LevelMoveTable:
    """The move universe of one level (pass and every lead move of the 108-card deck) with stable ids.

    Ids are positions in the universe sorted by (category, rank, cards); a move is stored as its exact key
    (see :func:`_move_keys`), so :meth:`ids_of` maps ``Move`` values to ids with one vectorised lookup and
    :meth:`move_of` / :meth:`counts_of` decode ids. Built by :func:`level_table` (cached per level).
    """

    def __init__(self, level: int):
        self.level = check_level(level)
        moves = [PASS] + legal_moves(DECK, None, self.level)
        counts = moves_to_counts(moves)
        cats = np.fromiter((m[0] for m in moves), dtype=np.int64, count=len(moves))
        ranks = np.fromiter((m[1] for m in moves), dtype=np.int64, count=len(moves))
        hi, lo = _move_keys(counts, cats, ranks)
        order = np.lexsort((lo, hi))
        self.hi, self.lo = hi[order], lo[order]
        hashes = _hash(self.hi, self.lo)
        self._hash_order = np.argsort(hashes, kind="stable").astype(np.int32)
        self._hash_sorted = hashes[self._hash_order]
        if (np.diff(self._hash_sorted) == 0).any():  # pragma: no cover (a 64-bit collision among ~135k keys)
            raise RuntimeError(f"move-key hash collision in the level {self.level} table")
        self.size = len(moves)

    def __len__(self) -> int:
        return self.size

    def ids_of(self, moves: list[Move]) -> np.ndarray:
        """Table ids (0..size-1) of ``moves`` (card-play moves of this level, pass included). Raises
        ``ValueError`` for a move that is not in the table."""
        if not moves:
            return np.zeros(0, dtype=np.int64)
        hi, lo = _keys_of_moves(moves)
        pos = np.searchsorted(self._hash_sorted, _hash(hi, lo))
        pos = np.minimum(pos, self.size - 1)
        ids = self._hash_order[pos].astype(np.int64)
        bad = (self.hi[ids] != hi) | (self.lo[ids] != lo)
        if bad.any():
            raise ValueError(f"{moves[int(np.flatnonzero(bad)[0])]} is not a move of the level {self.level} table")
        return ids

    def counts_of(self, ids: np.ndarray) -> np.ndarray:
        """``(n, 54)`` int8 card counts of table ids."""
        ids = np.asarray(ids, dtype=np.int64)
        lo = (self.lo[ids][:, None] // _POW3) % 3
        hi = ((self.hi[ids][:, None] & ((1 << 44) - 1)) // _POW3) % 3
        return np.concatenate([lo, hi], axis=1).astype(np.int8)

    def move_of(self, table_id: int) -> Move:
        """The ``Move`` value of a table id."""
        if not 0 <= table_id < self.size:
            raise ValueError(f"table id must be in 0..{self.size - 1} at level {self.level}, got {table_id}")
        hi = int(self.hi[table_id])
        counts = self.counts_of(np.array([table_id]))[0]
        cards = tuple(int(k) for k in np.repeat(np.arange(NUM_KINDS), counts))
        return Move(Category(hi >> 49), ((hi >> 44) & 31) - 1, cards)


@lru_cache(maxsize=None)
def level_table(level: int) -> LevelMoveTable:
    """The (immutable, cached) :class:`LevelMoveTable` of ``level`` (0..12 for 2..A)."""
    return LevelMoveTable(level)


class raw_env(DeclaredSpaces, AECEnv):  # noqa: N801 (PettingZoo naming convention)
    """GuanDan AEC env over :class:`~cardrl.games.guandan.GuanDanGame`; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "name": "guandan_v0", "is_parallelizable": False}

    def __init__(self, match: bool = True, level: int = 0, max_deals: int | None = None,
                 a_level_attempts: int | None = 3, match_bonus: bool = False, tribute_decisions: bool = False,
                 return_level_card: bool = False, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, 'ansi'")
        for name, value in (("match", match), ("match_bonus", match_bonus),
                            ("tribute_decisions", tribute_decisions), ("return_level_card", return_level_card)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
        if max_deals is not None and (isinstance(max_deals, bool) or not isinstance(max_deals, int)
                                      or max_deals < 1):
            raise ValueError(f"max_deals must be a positive int or None, got {max_deals!r}")
        self.render_mode = render_mode
        self.game = GuanDanGame(match=match, level=level, a_level_attempts=a_level_attempts,
                                return_level_card=return_level_card, match_bonus=match_bonus,
                                tribute_decisions=tribute_decisions, max_deals=max_deals)
        self.features = DanZeroFeatures()
        self.num_actions = NUM_ACTIONS
        self.possible_agents = list(SEATS)
        self.observation_spaces, self.action_spaces = masked_spaces(
            {a: STATE_DIM for a in self.possible_agents}, NUM_ACTIONS, low=-1.0, high=2.0)
        self._seed_rng: np.random.Generator | None = None
        self._legal_ids: np.ndarray | None = None

    # ---- moves and ids -----------------------------------------------------------------------
    @property
    def table(self) -> LevelMoveTable:
        """The move table of the level the current deal is played at."""
        return level_table(self.game.level)

    def legal_move_values(self) -> list[Move]:
        """The engine's legal ``Move`` values of the agent to move (same order as :meth:`legal_moves`)."""
        return self.game.legal_moves()

    def legal_moves(self) -> np.ndarray:
        """Legal action ids of the agent to move (cached until the next step)."""
        if self._legal_ids is None:
            self._legal_ids = self._ids_of(self.game.legal_moves())
        return self._legal_ids

    def _ids_of(self, moves: list[Move]) -> np.ndarray:
        if not moves:
            return np.zeros(0, dtype=np.int64)
        if moves[0].category in (TRIBUTE, RETURN):
            base = 0 if moves[0].category == TRIBUTE else NUM_KINDS
            return np.array([base + m.cards[0] for m in moves], dtype=np.int64)
        return NUM_SPECIAL + self.table.ids_of(moves)

    def move_of(self, action: int) -> Move:
        """The ``Move`` an action id stands for at the current level."""
        action = check_action_int(None, action, NUM_ACTIONS, "an action id")
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action ids are 0..{NUM_ACTIONS - 1}, got {action}")
        if action < NUM_SPECIAL:
            kind = action % NUM_KINDS
            return Move(TRIBUTE if action < NUM_KINDS else RETURN, kind // 4 if kind < 52 else kind - 38, (kind,))
        return self.table.move_of(action - NUM_SPECIAL)

    def action_features(self, legal) -> np.ndarray:
        """``(n, 54)`` float32 DanZero action vectors of action ids (or of a list of ``Move`` values)."""
        if isinstance(legal, list) and all(isinstance(m, Move) for m in legal):
            return self.features.action_features(legal)
        ids = np.asarray(legal)
        if ids.ndim != 1 or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
            raise ValueError(f"legal must be a 1-d sequence of int action ids or a list of Move, got shape "
                             f"{ids.shape} dtype {ids.dtype}")
        if ids.size and (ids.min() < 0 or ids.max() >= NUM_SPECIAL + len(self.table)):
            raise ValueError(f"action ids at this level are 0..{NUM_SPECIAL + len(self.table) - 1}; got min "
                             f"{ids.min()} max {ids.max()}")
        out = np.zeros((len(ids), NUM_KINDS), dtype=np.float32)
        special = ids < NUM_SPECIAL
        out[np.flatnonzero(special), ids[special] % NUM_KINDS] = 1.0
        if (~special).any():
            out[~special] = self.table.counts_of(ids[~special] - NUM_SPECIAL)
        return out

    # ---- seats ---------------------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        return SEATS.index(agent)

    # ---- AEC API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        elif self._seed_rng is None:
            self._seed_rng = np.random.default_rng()
        self.game.reset(int(self._seed_rng.integers(2**63 - 1)))
        self._legal_ids = None
        self._paid = np.zeros(4)
        self._deals_paid = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"seat": s, "team": team_of(s)} for s, a in enumerate(self.agents)}
        self.agent_selection = SEATS[self.game.current_player]

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` without the action mask (the DMC runner's fast path)."""
        return self.features.encode(self.game, self._seat(agent))

    def observe(self, agent: str) -> dict:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self.legal_moves()] = 1
        return {"observation": self.features.encode(self.game, self._seat(agent)), "action_mask": mask}

    def _index_of(self, agent: str, action: int) -> int:
        """The position of action id ``action`` in the engine's legal list, or a clear error."""
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalMoveError(f"{agent}: action {action} is out of range: ids are 0..{NUM_ACTIONS - 1}")
        hits = np.flatnonzero(self.legal_moves() == action)
        if hits.size:
            return int(hits[0])
        phase = self.game.phase
        try:
            move = self.move_of(action)
        except ValueError:
            raise IllegalMoveError(f"{agent}: action {action} is no move at level "
                                   f"{'23456789TJQKA'[self.game.level]} (its table has ids {NUM_SPECIAL}.."
                                   f"{NUM_SPECIAL + len(self.table) - 1})") from None
        if phase in ("tribute", "return") or move.category in (TRIBUTE, RETURN):
            allowed = ", ".join(str(i) for i in self.legal_moves())
            raise IllegalMoveError(f"{agent}: action {action} ({move}) is not a legal {phase} decision; "
                                   f"legal ids: {allowed}")
        self.game._resolve(move)  # raises IllegalMoveError with the engine's reason
        raise IllegalMoveError(f"{agent}: action {action} ({move}) is not legal now")  # pragma: no cover

    def step(self, action) -> None:
        agent = self.agent_selection
        if leave_if_done(self, action, episode="episode"):
            return
        action = check_action_int(agent, action, NUM_ACTIONS, "an action id")
        try:
            index = self._index_of(agent, action)
        except IllegalMoveError as err:
            msg = str(err)
            raise IllegalMoveError(msg if msg.startswith(agent) else f"{agent}: {msg}") from None
        self.game.step(index)
        self._legal_ids = None
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        if len(game.deal_rewards) != self._deals_paid or game.is_over:
            payoffs = game.payoffs()
            delta = payoffs - self._paid
            self._paid = payoffs
            self._deals_paid = len(game.deal_rewards)
            for a in self.agents:
                self.rewards[a] = float(delta[self._seat(a)])
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        if game.is_over:
            cut = game.match and game.match_winner is None  # max_deals reached without a winner
            for a in self.agents:
                if cut:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True
        self.agent_selection = SEATS[game.current_player]
        self._accumulate_rewards()

    @property
    def deals_done(self) -> int:
        """Deals finished in this episode (DMC labels each deal's frames with that deal's points)."""
        return len(self.game.deal_rewards) if self.game.phase is not None else 0

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.game.render()

    def close(self) -> None:
        pass
