"""A toy fourth game defined outside cardrl: "Duel", a two-player shedding game, to show that a game is added through
the registry alone (an Engine subclass, a FeatureEncoder and one register_game call; the env, the evaluation and
the agents come for free).

Rules: 6 ranks x 2 copies = 12 cards, 6 each. A move is a single or a pair of one rank; a follow must be the same
kind with a higher rank, or pass; after a pass the other player leads. The first to empty the hand wins 1 point
(the other loses 1), or 2 with the option ``double=True``.
"""

from __future__ import annotations

import numpy as np

from cardrl.features.base import FeatureEncoder
from cardrl.games.engine import Engine, IllegalMoveError, check_action_type, check_seed
from cardrl.games.registry import EvalProtocol, GameSpec

RANKS = 6
PASS = 2 * RANKS  # ids: 0..5 singles of rank r, 6..11 pairs of rank r, 12 pass
_DECK = np.zeros(54, dtype=np.int64)
_DECK[[4 * r + c for r in range(RANKS) for c in range(2)]] = 1


def _kind_and_rank(action: int) -> tuple[int, int]:
    return (1, action) if action < RANKS else (2, action - RANKS)


class DuelView:
    def __init__(self, game: DuelGame, seat: int, oracle: bool):
        self.seat, self.role = seat, ("north", "south")[seat]
        self.hand = game.hands[seat].copy()
        self.last_move = game.last_move
        self.cards_left = game.hands.sum(axis=1)
        self.hands = game.hands.copy() if oracle else None
        self._game = game.copy()

    def move_cards(self, ids) -> np.ndarray:
        return self._game.move_cards(ids)


class DuelGame(Engine):
    name = "duel"
    num_players = 2
    rewards = ("points",)
    deck = _DECK
    view_class = DuelView
    copied_arrays = ("hands", "played")
    copied_lists = ("history", "actions")

    def __init__(self, double: bool = False):
        if not isinstance(double, bool):
            raise TypeError(f"double must be a bool, got {double!r}")
        self.double = double
        super().__init__()

    @property
    def num_actions(self) -> int:
        return PASS + 1

    def reset(self, seed: int) -> "DuelGame":
        self.seed = check_seed(seed)
        order = np.random.default_rng(self.seed).permutation(np.repeat(np.arange(RANKS), 2))
        self.hands = np.stack([np.bincount(order[:6], minlength=RANKS), np.bincount(order[6:], minlength=RANKS)])
        self.played = np.zeros_like(self.hands)
        self.history: list[int] = []
        self.current_player, self.last_move, self.winner = 0, None, None
        self.actions = []
        self.phase = "play"
        return self

    def legal_moves(self) -> np.ndarray:
        self._require_deal()
        if self.is_over:
            return np.zeros(0, dtype=np.int64)
        hand = self.hands[self.current_player]
        out = [r for r in range(RANKS) if hand[r] >= 1] + [RANKS + r for r in range(RANKS) if hand[r] >= 2]
        if self.last_move is not None:
            kind, rank = _kind_and_rank(self.last_move)
            out = [a for a in out if _kind_and_rank(a)[0] == kind and _kind_and_rank(a)[1] > rank] + [PASS]
        return np.array(sorted(out), dtype=np.int64)

    def step(self, action: int) -> "DuelGame":
        self._require_running()
        action = check_action_type(action)
        if not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action} is out of range: ids are 0..{self.num_actions - 1}")
        if action not in self.legal_moves():
            raise IllegalMoveError(f"action {action} ({self.move_string(action)}) is not legal now; legal: "
                                   f"{self.legal_moves().tolist()}")
        seat = self.current_player
        self.actions.append(action)
        self.history.append(action)
        if action == PASS:
            self.last_move = None
        else:
            count, rank = _kind_and_rank(action)
            self.hands[seat, rank] -= count
            self.played[seat, rank] += count
            self.last_move = action
            if not self.hands[seat].any():
                self.winner, self.phase = seat, "over"
                return self
        self.current_player = 1 - seat
        return self

    def payoffs(self, reward: str | None = None) -> np.ndarray:
        self._check_reward(reward)
        out = np.zeros(2)
        if self.winner is not None:
            out[self.winner], out[1 - self.winner] = (2.0, -2.0) if self.double else (1.0, -1.0)
        return out

    def payoff_bounds(self, reward: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        top = 2.0 if self.double else 1.0
        return np.full(2, -top), np.full(2, top)

    def _cards(self, counts: np.ndarray) -> np.ndarray:
        out = np.zeros(counts.shape[:-1] + (54,), dtype=np.int64)
        for r in range(RANKS):
            for c in range(2):
                out[..., 4 * r + c] = counts[..., r] > c
        return out

    def move_cards(self, ids) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_actions):
            raise ValueError(f"action ids are 0..{self.num_actions - 1}")
        counts = np.zeros((len(ids), RANKS), dtype=np.int64)
        for i, a in enumerate(ids):
            if a != PASS:
                count, rank = _kind_and_rank(int(a))
                counts[i, rank] = count
        return self._cards(counts).astype(np.uint8)

    def move_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        count, rank = _kind_and_rank(int(action))
        return str(rank + 1) * count

    def cards_held(self) -> np.ndarray:
        return self._cards(self.hands)

    def cards_played(self) -> np.ndarray:
        return self._cards(self.played)

    def render(self) -> str:
        return "\n".join(f"seat {s}: {self.hands[s].tolist()}" for s in range(2))


class DuelFeatures(FeatureEncoder):
    """Own hand (54) | cards left of both (2 x 7 one-hot) | the move to beat (54)."""

    name = "duel_v1"

    def state_dim(self, agent=None) -> int:
        return 54 + 14 + 54

    def _encode(self, hand_cards, left, last_cards, seat) -> np.ndarray:
        out = np.zeros(self.state_dim(), dtype=np.float32)
        out[:54] = hand_cards
        for k in range(2):
            out[54 + 7 * k + int(left[(seat + k) % 2])] = 1
        out[68:] = last_cards
        return out

    def encode(self, game: DuelGame, seat: int, out=None) -> np.ndarray:
        last = game.move_cards([game.last_move])[0] if game.last_move is not None else np.zeros(54)
        return self._encode(game.cards_held()[seat], game.cards_left(), last, seat)

    def encode_view(self, view: DuelView, out=None) -> np.ndarray:
        last = view.move_cards([view.last_move])[0] if view.last_move is not None else np.zeros(54)
        return self._encode(view._game._cards(view.hand), view.cards_left, last, view.seat)


DUEL = GameSpec(
    name="duel", title="Duel", engine=DuelGame, agents=("north", "south"), rule_options={"double": False},
    features={"duel": DuelFeatures},
    protocol=EvalProtocol(arrangements=((0,), (1,)), labels=("A first", "A second"), sides=("first", "second")),
)
