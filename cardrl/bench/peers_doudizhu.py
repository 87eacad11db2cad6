"""The DouDiZhu peers of ``cardrl bench env``: DouZero, RLCard and OpenSpiel, measured as cardrl is.

:mod:`cardrl.bench.env` calls :func:`measure_peer` for every peer the registry names for DouDiZhu
(``GameSpec.peers``), with the lead hands it timed cardrl on. Measured, when importable:

* DouZero (Zha et al. 2021, "DouZero: Mastering DouDizhu with Self-Play Deep Reinforcement Learning"): random play
  through ``douzero.env.env.Env`` (its features at every step), through the bare ``douzero.env.game.GameEnv`` on
  cardrl's deals, and ``MovesGener(hand).gen_moves()`` on the leads;
* RLCard (Zha et al. 2019, "RLCard: A Toolkit for Reinforcement Learning in Card Games"): its DouDiZhu env's step
  loop (features at every step) and the lead generator ``DoudizhuJudger.playable_cards_from_hand``;
* OpenSpiel (Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games"):
  ``pyspiel.load_game("dou_dizhu")`` random games with and without ``observation_tensor``, and its
  ``legal_actions`` on the same 20-card leads (the landlord's, set up by dealing them to player 0 who bids 3).

A step is one action of a player (passes and OpenSpiel's bids included, chance nodes excluded). Every timed function
runs once untimed first (:mod:`cardrl.bench.common`). Each measurement returns ``{"version", "env": rate with
features, "game": rate without (where measured), "movegen_us": {cards: us}, "lead_moves": {cards: mean number},
"labels": {part: row label}, "note"?}``, or ``{"skipped": reason}`` when the peer is not installed.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

from cardrl.bench.common import rate_loop, us_per_call
from cardrl.cards import RANK_JOKER_CHARS, rank_counts_to_string

__all__ = ["PEERS", "IMPORT_NAMES", "measure_peer", "rank_counts", "douzero_cards", "open_spiel_lead_state"]

IMPORT_NAMES = {"douzero": "douzero", "rlcard": "rlcard", "open_spiel": "pyspiel"}
_DOUZERO_CARD = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)  # DouZero's ints for ranks 3..A 2 B R
_ROLES = ("landlord", "landlord_down", "landlord_up")  # our seats 0, 1, 2
_LANDLORD_CARDS = 20


def rank_counts(hand: np.ndarray) -> np.ndarray:
    """A 54-count card vector -> DouDiZhu rank counts ``(15,)`` (3..A, 2, black joker, red joker)."""
    hand = np.asarray(hand, dtype=np.int64)
    return np.concatenate([hand[:52].reshape(13, 4).sum(axis=1), hand[52:54]]).astype(np.int8)


def douzero_cards(counts: np.ndarray) -> list[int]:
    """Rank counts -> DouZero's card list."""
    return [_DOUZERO_CARD[r] for r in range(15) for _ in range(int(counts[r]))]


def _movegen(call: Callable[[Any], Any], hands_by_size: dict[int, list], seconds: float) -> dict[int, float]:
    """us/call per lead size; the ``seconds`` budget is shared equally by the sizes."""
    return {n: us_per_call(call, hands, seconds / len(hands_by_size)) for n, hands in hands_by_size.items()}


# ---- DouZero ---------------------------------------------------------------------------------------------------
class _DouZeroRandomPlayer:
    """A player for ``douzero.env.game.GameEnv``: a uniformly random legal action."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, infoset):
        legal = infoset.legal_actions
        return legal[self.rng.integers(len(legal))]


def _douzero(seconds: float, counts_by_size: dict[int, list[np.ndarray]]) -> dict[str, Any]:
    import douzero
    from douzero.env.env import Env
    from douzero.env.game import GameEnv
    from douzero.env.move_generator import MovesGener

    from cardrl.games.doudizhu import DouDizhuGame

    out: dict[str, Any] = {"version": getattr(douzero, "__version__", "?"),
                           "labels": {"env": "douzero Env (features)", "game": "douzero GameEnv (no features)",
                                      "movegen": "douzero MovesGener.gen_moves"},
                           "note": "douzero's generator also makes plane/bomb moves with both jokers as kickers, "
                                   "which its 27,472-move list lacks"}
    rng = np.random.default_rng(0)
    saved = np.random.get_state()  # DouZero's Env deals with the global numpy RNG: seed it, then restore it
    np.random.seed(0)
    try:
        env = Env("adp")

        def play_env(i: int) -> int:
            obs = env.reset()
            steps = 0
            while True:
                legal = obs["legal_actions"]
                obs, _reward, done, _ = env.step(legal[rng.integers(len(legal))])
                steps += 1
                if done:
                    return steps

        out["env"] = rate_loop(play_env, seconds)
    finally:
        np.random.set_state(saved)

    players = {role: _DouZeroRandomPlayer(rng) for role in _ROLES}
    game_env = GameEnv(players)
    game = DouDizhuGame()

    def play_game(i: int) -> int:
        game.reset(i)  # the same deals as ours
        data = {role: douzero_cards(game.hands[seat]) for seat, role in enumerate(_ROLES)}
        data["three_landlord_cards"] = douzero_cards(game.bottom)
        game_env.reset()
        game_env.card_play_init(data)
        while not game_env.game_over:
            game_env.step()
        return len(game_env.card_play_action_seq)

    out["game"] = rate_loop(play_game, seconds)
    cards = {n: [douzero_cards(c) for c in cs] for n, cs in counts_by_size.items()}
    out["lead_moves"] = {n: float(np.mean([len({tuple(sorted(m)) for m in MovesGener(c).gen_moves()}) for c in cs]))
                         for n, cs in cards.items()}
    out["movegen_us"] = _movegen(lambda c: MovesGener(c).gen_moves(), cards, seconds)
    return out


# ---- RLCard ------------------------------------------------------------------------------------------------------
def _rlcard(seconds: float, counts_by_size: dict[int, list[np.ndarray]]) -> dict[str, Any]:
    import rlcard
    from rlcard.games.doudizhu.judger import DoudizhuJudger

    from cardrl.games.doudizhu import DouDizhuGame

    out: dict[str, Any] = {"version": getattr(rlcard, "__version__", "?"),
                           "labels": {"env": "rlcard env (features)",
                                      "movegen": "rlcard playable_cards_from_hand"}}
    env = rlcard.make(DouDizhuGame.name, config={"seed": 0})  # RLCard's id is our engine's (and registry's) name
    rng = np.random.default_rng(0)

    def play(i: int) -> int:
        state, _player = env.reset()
        steps = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    out["env"] = rate_loop(play, seconds)
    strings = {n: [rank_counts_to_string(c, RANK_JOKER_CHARS) for c in cs] for n, cs in counts_by_size.items()}
    out["lead_moves"] = {n: float(np.mean([len(DoudizhuJudger.playable_cards_from_hand(s)) for s in ss]))
                         for n, ss in strings.items()}
    out["movegen_us"] = _movegen(DoudizhuJudger.playable_cards_from_hand, strings, seconds)
    return out


# ---- OpenSpiel ----------------------------------------------------------------------------------------------------
def open_spiel_lead_state(game, counts: np.ndarray, rng: np.random.Generator):
    """An OpenSpiel dou_dizhu state where player 0 is landlord and leads holding exactly ``counts`` (20 cards).

    OpenSpiel deals card ids 0..53 (rank ``id % 13`` below 52, then the black and the red joker) one at a time
    to players 0, 1, 2 in turn after a first chance outcome (0 makes player 0 bid first); the last 3 go to the
    landlord. Player 0 bids 3, so its 17 cards plus those 3 are the hand.
    """
    ids = [r + 13 * j for r in range(13) for j in range(int(counts[r]))] + [
        52 + (r - 13) for r in (13, 14) if counts[r]]
    if len(ids) != _LANDLORD_CARDS:
        raise ValueError(f"an OpenSpiel lead state is set up for the landlord's {_LANDLORD_CARDS} cards, "
                         f"got {len(ids)}")
    others = [c for c in range(54) if c not in set(ids)]
    rng.shuffle(others)
    mine = ids[:17]
    order = []
    for i in range(51):
        order.append(mine[i // 3] if i % 3 == 0 else others.pop())
    state = game.new_initial_state()
    state.apply_action(0)
    for c in order[:51]:
        state.apply_action(51 + c)
    if state.current_player() != 0:
        raise RuntimeError("OpenSpiel dou_dizhu dealt in an unexpected order: player 0 does not bid first")
    state.apply_action(state.legal_actions()[-1])  # bid 3
    return state


def _sample_outcome(outcomes: list[tuple[int, float]], rng: np.random.Generator) -> int:
    """A chance outcome drawn from OpenSpiel's ``(action, probability)`` list (uniform ones without numpy's
    slow weighted choice: every DouDiZhu deal node is uniform)."""
    probs = [p for _, p in outcomes]
    if max(probs) - min(probs) < 1e-12:
        return outcomes[int(rng.integers(len(outcomes)))][0]
    return outcomes[int(np.searchsorted(np.cumsum(probs), rng.random() * sum(probs), side="right"))][0]


def _open_spiel(seconds: float, counts_by_size: dict[int, list[np.ndarray]]) -> dict[str, Any]:
    import pyspiel

    out: dict[str, Any] = {"version": getattr(pyspiel, "__version__", "?") or "?",
                           "labels": {"env": "open_spiel + observation_tensor", "game": "open_spiel (no features)",
                                      "movegen": "open_spiel legal_actions"}}
    game = pyspiel.load_game("dou_dizhu")
    rng = np.random.default_rng(0)

    def loop(features: bool) -> Callable[[int], int]:
        def play(i: int) -> int:
            state = game.new_initial_state()
            steps = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(_sample_outcome(state.chance_outcomes(), rng))
                    continue
                if features:
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
            return steps
        return play

    out["env"] = rate_loop(loop(True), seconds)
    out["game"] = rate_loop(loop(False), seconds)
    landlord = counts_by_size.get(_LANDLORD_CARDS)
    if landlord:
        states = [open_spiel_lead_state(game, c, rng) for c in landlord]
        out["lead_moves"] = {_LANDLORD_CARDS: float(np.mean([len(s.legal_actions()) for s in states]))}
        out["movegen_us"] = {_LANDLORD_CARDS: us_per_call(lambda s: s.legal_actions(), states, seconds)}
    return out


# ---- dispatch ---------------------------------------------------------------------------------------------------
PEERS: dict[str, Callable[[float, dict[int, list[np.ndarray]]], dict[str, Any]]] = {
    "douzero": _douzero, "rlcard": _rlcard, "open_spiel": _open_spiel}


def measure_peer(name: str, seconds: float, hands: dict[int, list[np.ndarray]]) -> dict[str, Any]:
    """Measure peer ``name`` for ``seconds`` per measurement on ``hands`` (lead size -> 54-count card vectors, as
    :func:`cardrl.bench.positions.lead_hands` gives them); ``{"skipped": reason}`` when it is not installed or
    unknown."""
    if name not in PEERS:
        return {"skipped": f"no DouDiZhu measurement for peer {name!r}; known: {', '.join(PEERS)}"}
    module = IMPORT_NAMES[name]
    if importlib.util.find_spec(module) is None:
        return {"skipped": f"{module} is not installed"}
    counts = {n: [rank_counts(h) for h in hs] for n, hs in hands.items()}
    try:
        return PEERS[name](seconds, counts)
    except ImportError as err:
        return {"skipped": f"{name} failed to import: {err}"}
