"""Environment speed benchmark for DouDiZhu: our engine, features and PettingZoo env against the peers.

One call of :func:`bench_env_doudizhu` measures, on this machine and in one process:

* ours: random play through the bare engine (``DouDizhuGame``), the engine plus DouZero's features
  (``DouZeroFeatures().encode`` for the player to move at every step), and the PettingZoo env
  ``cardrl.envs.doudizhu_v0`` (observation with features and action mask at every step); games/s and steps/s;
* legal-move generation on leads (the player to move may play anything) of 20, 17, 10 and 5 cards, in
  microseconds per call, on the same random hands for every implementation (DESIGN.md, layer 2);
* when importable, the same figures for DouZero (``douzero.env.env.Env`` with features, the bare
  ``douzero.env.game.GameEnv``, ``MovesGener``), RLCard (``rlcard.make("doudizhu")`` step loop, the lead
  generator ``DoudizhuJudger.playable_cards_from_hand``) and OpenSpiel (``pyspiel.load_game("dou_dizhu")``
  random games with and without ``observation_tensor``; its ``legal_actions`` on the same 20-card leads).

A step is one action of a player (passes and, in OpenSpiel, bids included; chance nodes excluded). Every
implementation picks uniformly random legal moves. Each measurement runs for ``seconds`` of wall time; rates
are per CPU-second of the benchmark process, so that other load on a shared machine does not skew them.
Peers are imported lazily: the benchmark runs without them. The summary ratios are ours with features
through our env over theirs with features (steps/s), and their microseconds over ours on 20-card leads
(movegen).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cardrl.cards import RANK_JOKER_CHARS, rank_counts_to_bits, rank_counts_to_string
from cardrl.games.doudizhu import DouDizhuGame

__all__ = ["bench_env_doudizhu", "format_bench_env", "print_bench_env", "add_bench_env_arguments",
           "main_bench_env", "LEAD_SIZES", "PEERS"]

LEAD_SIZES = (20, 17, 10, 5)
PEERS = ("douzero", "rlcard", "open_spiel")
_HANDS_PER_SIZE = 200
_DECK_RANKS = np.array([r for r in range(13) for _ in range(4)] + [13, 14], dtype=np.int64)
_DOUZERO_CARD = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)  # DouZero's ints for ranks 3..A 2 B R


# ---- timing helpers ---------------------------------------------------------------------------
def random_game_play(game, encode: Callable | None = None, seed: int = 0) -> Callable[[int], int]:
    """``play(i) -> steps``: one game of uniformly random legal moves on an engine (reset with seed ``i``), encoding
    the mover's features first when ``encode(game, seat)`` is given. Legal moves are ids (DouDiZhu, Big2) or a list
    of moves that the engine also takes by index (GuanDan)."""
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        game.reset(i)
        steps = 0
        while not game.is_over:
            if encode is not None:
                encode(game, game.current_player)
            legal = game.legal_moves()
            j = int(rng.integers(len(legal)))
            game.step(int(legal[j]) if isinstance(legal, np.ndarray) else j)
            steps += 1
        return steps

    return play


def random_env_play(env, seed: int = 0) -> Callable[[int], int]:
    """``play(i) -> steps``: one game of uniformly random legal moves through a PettingZoo env of ours (reset with
    seed ``i``), the legal moves read from the observation's action mask as an agent would."""
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        env.reset(seed=i)
        steps = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                # a 0/1 int8 mask read as bool: numpy's nonzero is ~10x slower on int8
                legal = np.flatnonzero(obs["action_mask"].view(bool))
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        return steps

    return play


def play_rate_lines(game: str, result: dict[str, Any], play: str, games: str, labels: dict[str, str],
                    games_format: str) -> list[str]:
    """The head of a no-peer env benchmark table: title, rate note and one random-play row per part of
    ``labels`` (``"engine"``, ``"features"``, ``"env"`` -> row label), games/s formatted by ``games_format``."""
    lines = [f"{game} env benchmark: {result['seconds']:g} s per measurement; {result['machine']}",
             "(rates per CPU-second of the benchmark process: equal to wall time on an idle machine)", "",
             f"{play:<50}{games:>10}{'steps/s':>11}"]
    for part, label in labels.items():
        rate = result["ours"][part]
        lines.append(f"{label:<50}{_num(rate['games_per_s'], games_format):>10}{_num(rate['steps_per_s']):>11}")
    return lines


def _rate_loop(play_one: Callable[[int], int], seconds: float) -> dict[str, float]:
    """Run ``play_one(game_index) -> steps`` for ``seconds`` of wall time (at least one game).

    Rates are per CPU-second of this process (``time.process_time``), which on an idle machine equals wall
    time and on a shared one does not count the time other processes held the cores.
    """
    games = steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        steps += play_one(games)
        games += 1
        wall = time.perf_counter() - wall0
        if wall >= seconds:
            break
    cpu = max(time.process_time() - cpu0, 1e-9)
    return {"games": games, "steps": steps, "seconds": cpu, "wall_seconds": wall,
            "games_per_s": games / cpu, "steps_per_s": steps / cpu}


def _us_per_call(call: Callable[[Any], Any], inputs: Sequence[Any], seconds: float) -> float:
    """Mean CPU microseconds of ``call(x)`` cycling over ``inputs`` for ``seconds`` of wall time (one pass at
    least)."""
    calls = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        for x in inputs:
            call(x)
        calls += len(inputs)
        if time.perf_counter() - wall0 >= seconds:
            break
    return 1e6 * max(time.process_time() - cpu0, 1e-9) / calls


def _movegen(call: Callable[[Any], Any], hands_by_size: dict[int, list], seconds: float) -> dict[int, float]:
    """us/call per lead size; the ``seconds`` budget is shared equally by the sizes."""
    return {n: _us_per_call(call, hands, seconds / len(hands_by_size)) for n, hands in hands_by_size.items()}


def lead_hands(num_cards: int, count: int = _HANDS_PER_SIZE, seed: int = 0) -> list[np.ndarray]:
    """``count`` random hands of ``num_cards`` cards as rank counts (15,), the same for every implementation."""
    if not 1 <= num_cards <= 20:
        raise ValueError(f"a DouDiZhu hand has 1..20 cards, got num_cards={num_cards}")
    rng = np.random.default_rng([seed, num_cards])
    return [np.bincount(rng.choice(_DECK_RANKS, num_cards, replace=False), minlength=15).astype(np.int8)
            for _ in range(count)]


# ---- ours ---------------------------------------------------------------------------------------
def _ours_engine(seconds: float, features: bool) -> dict[str, Any]:
    encode = None
    if features:
        try:
            from cardrl.features.douzero import DouZeroFeatures
        except ImportError as err:
            return {"skipped": f"cardrl.features.douzero not importable ({err})"}
        encode = DouZeroFeatures().encode
    return _rate_loop(random_game_play(DouDizhuGame(), encode), seconds)


def _ours_env(seconds: float) -> dict[str, Any]:
    import importlib

    try:
        doudizhu_v0 = importlib.import_module("cardrl.envs.doudizhu_v0")
    except ImportError as err:
        return {"skipped": f"cardrl.envs.doudizhu_v0 not importable ({err})"}
    return _rate_loop(random_env_play(doudizhu_v0.env()), seconds)


def _ours_movegen(hands_by_size: dict[int, list], seconds: float) -> dict[str, Any]:
    table = DouDizhuGame().table

    def leads(counts: np.ndarray) -> np.ndarray:  # what DouDizhuGame.legal_moves does for a leader
        return table.legal_moves(rank_counts_to_bits(counts), None)

    moves = {n: float(np.mean([len(leads(h)) for h in hands])) for n, hands in hands_by_size.items()}
    return {"movegen_us": _movegen(leads, hands_by_size, seconds), "lead_moves": moves}


# ---- DouZero ------------------------------------------------------------------------------------
def _douzero_cards(counts: np.ndarray) -> list[int]:
    return [_DOUZERO_CARD[r] for r in range(15) for _ in range(int(counts[r]))]


class _DouZeroRandomPlayer:
    """A player for ``douzero.env.game.GameEnv``: a uniformly random legal action."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, infoset):
        legal = infoset.legal_actions
        return legal[self.rng.integers(len(legal))]


def _peer_douzero(seconds: float, hands_by_size: dict[int, list]) -> dict[str, Any]:
    import douzero
    from douzero.env.env import Env
    from douzero.env.game import GameEnv
    from douzero.env.move_generator import MovesGener

    out: dict[str, Any] = {"version": getattr(douzero, "__version__", "?")}
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

        out["env"] = _rate_loop(play_env, seconds)
    finally:
        np.random.set_state(saved)

    roles = ("landlord", "landlord_down", "landlord_up")  # our seats 0, 1, 2
    players = {role: _DouZeroRandomPlayer(rng) for role in roles}
    game_env = GameEnv(players)
    game = DouDizhuGame()

    def play_game(i: int) -> int:
        game.reset(i)  # the same deals as ours
        data = {role: _douzero_cards(game.hands[seat]) for seat, role in enumerate(roles)}
        data["three_landlord_cards"] = _douzero_cards(game.bottom)
        game_env.reset()
        game_env.card_play_init(data)
        while not game_env.game_over:
            game_env.step()
        return len(game_env.card_play_action_seq)

    out["game"] = _rate_loop(play_game, seconds)
    cards = {n: [_douzero_cards(h) for h in hands] for n, hands in hands_by_size.items()}
    out["lead_moves"] = {n: float(np.mean([len({tuple(sorted(m)) for m in MovesGener(c).gen_moves()}) for c in cs]))
                         for n, cs in cards.items()}
    out["movegen_us"] = _movegen(lambda c: MovesGener(c).gen_moves(), cards, seconds)
    return out


# ---- RLCard -------------------------------------------------------------------------------------
def _peer_rlcard(seconds: float, hands_by_size: dict[int, list]) -> dict[str, Any]:
    import rlcard
    from rlcard.games.doudizhu.judger import DoudizhuJudger

    out: dict[str, Any] = {"version": getattr(rlcard, "__version__", "?")}
    env = rlcard.make("doudizhu", config={"seed": 0})
    rng = np.random.default_rng(0)

    def play(i: int) -> int:
        state, _player = env.reset()
        steps = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    out["env"] = _rate_loop(play, seconds)
    strings = {n: [rank_counts_to_string(h, RANK_JOKER_CHARS) for h in hands] for n, hands in hands_by_size.items()}
    out["lead_moves"] = {n: float(np.mean([len(DoudizhuJudger.playable_cards_from_hand(s)) for s in ss]))
                         for n, ss in strings.items()}
    out["movegen_us"] = _movegen(DoudizhuJudger.playable_cards_from_hand, strings, seconds)
    return out


# ---- OpenSpiel ----------------------------------------------------------------------------------
def _open_spiel_lead_state(game, counts: np.ndarray, rng: np.random.Generator):
    """An OpenSpiel dou_dizhu state where player 0 is landlord and leads holding exactly ``counts`` (20 cards).

    OpenSpiel deals card ids 0..53 (rank ``id % 13`` below 52, then the black and the red joker) one at a time
    to players 0, 1, 2 in turn after a first chance outcome (0 makes player 0 bid first); the last 3 go to the
    landlord. Player 0 bids 3, so its 17 cards plus those 3 are the hand.
    """
    ids = [r + 13 * j for r in range(13) for j in range(int(counts[r]))] + [
        52 + (r - 13) for r in (13, 14) if counts[r]]
    others = [c for c in range(54) if c not in set(ids)]
    rng.shuffle(others)
    mine, bottom = ids[:17], ids[17:]
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


def _peer_open_spiel(seconds: float, hands_by_size: dict[int, list]) -> dict[str, Any]:
    import pyspiel

    out: dict[str, Any] = {"version": getattr(pyspiel, "__version__", "?")}
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

    out["game"] = _rate_loop(loop(False), seconds)
    out["env"] = _rate_loop(loop(True), seconds)
    twenty = hands_by_size.get(20)
    if twenty:
        states = [_open_spiel_lead_state(game, h, rng) for h in twenty]
        out["lead_moves"] = {20: float(np.mean([len(s.legal_actions()) for s in states]))}
        out["movegen_us"] = {20: _us_per_call(lambda s: s.legal_actions(), states, seconds)}
    return out


_PEER_RUNNERS = {"douzero": _peer_douzero, "rlcard": _peer_rlcard, "open_spiel": _peer_open_spiel}
_PEER_MODULES = {"douzero": "douzero", "rlcard": "rlcard", "open_spiel": "pyspiel"}


def _run_peer(name: str, seconds: float, hands_by_size: dict[int, list]) -> dict[str, Any]:
    import importlib.util

    if importlib.util.find_spec(_PEER_MODULES[name]) is None:
        return {"skipped": f"{_PEER_MODULES[name]} is not installed"}
    try:
        return _PEER_RUNNERS[name](seconds, hands_by_size)
    except ImportError as err:
        return {"skipped": f"{name} failed to import: {err}"}


# ---- the benchmark ----------------------------------------------------------------------------
def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den


def _summary_line(peer: str, steps_ratio: float | None, movegen_ratio: float | None) -> str:
    def fmt(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.1f}x"
    return f"vs {peer}: {fmt(steps_ratio)} steps/s, {fmt(movegen_ratio)} movegen"


def bench_env_doudizhu(seconds: float = 3.0, peers: bool = True) -> dict[str, Any]:
    """Measure DouDiZhu environment speeds (module docstring); ``seconds`` per measurement.

    Returns ``{"seconds", "machine", "ours": {...}, "peers": {name: {...}}, "ratios": {name: {"steps",
    "movegen"}}, "summary": [lines]}``. Rates are dicts with ``games_per_s`` and ``steps_per_s``;
    ``movegen_us`` maps lead sizes to microseconds per call and ``lead_moves`` to the mean number of leads.
    A peer that is not installed appears as ``{"skipped": reason}`` and gets no summary line.
    """
    if not seconds > 0:
        raise ValueError(f"seconds must be > 0 (time spent per measurement), got {seconds!r}")
    hands = {n: lead_hands(n) for n in LEAD_SIZES}
    ours: dict[str, Any] = {
        "engine": _ours_engine(seconds, features=False),
        "features": _ours_engine(seconds, features=True),
        "env": _ours_env(seconds),
    }
    ours.update(_ours_movegen(hands, seconds))
    result: dict[str, Any] = {"seconds": seconds, "machine": _machine(), "ours": ours, "peers": {},
                              "ratios": {}, "summary": []}
    if not peers:
        return result
    our_steps = ours["env"].get("steps_per_s")
    for name in PEERS:
        peer = _run_peer(name, seconds, hands)
        result["peers"][name] = peer
        if "skipped" in peer:
            continue
        steps = _ratio(our_steps, peer.get("env", {}).get("steps_per_s"))
        movegen = _ratio(peer.get("movegen_us", {}).get(20), ours["movegen_us"].get(20))
        result["ratios"][name] = {"steps": steps, "movegen": movegen}
        result["summary"].append(_summary_line(name, steps, movegen))
    return result


def _machine() -> str:
    import os

    cpu = platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cpus, python {platform.python_version()}"


# ---- printing -----------------------------------------------------------------------------------
_ROWS = (  # (implementation key, part, label)
    ("ours", "engine", "cardrl engine, no features"),
    ("ours", "features", "cardrl engine + DouZero features"),
    ("ours", "env", "cardrl PettingZoo env (features + mask)"),
    ("douzero", "env", "douzero Env (features)"),
    ("douzero", "game", "douzero GameEnv (no features)"),
    ("rlcard", "env", "rlcard env (features)"),
    ("open_spiel", "env", "open_spiel + observation_tensor"),
    ("open_spiel", "game", "open_spiel (no features)"),
)


def _num(x: float | None, fmt: str = "{:,.0f}") -> str:
    return "-" if x is None else fmt.format(x)


def format_bench_env(result: dict[str, Any]) -> str:
    """The benchmark result as a text table, ending with one ``vs <peer>: ...`` line per measured peer."""
    ours = result["ours"]
    parts = {"ours": ours, **result["peers"]}
    ref = ours["env"].get("steps_per_s")
    lines = [f"DouDiZhu env benchmark: {result['seconds']:g} s per measurement; {result['machine']}",
             "(rates per CPU-second of the benchmark process: equal to wall time on an idle machine)", "",
             f"{'random play':<42}{'games/s':>10}{'steps/s':>11}{'our env vs':>12}"]
    for key, part, label in _ROWS:
        impl = parts.get(key)
        if impl is None:
            continue
        if "skipped" in impl or "skipped" in impl.get(part, {}):
            reason = impl.get("skipped") or impl[part]["skipped"]
            lines.append(f"{label:<42}  skipped: {reason}")
            continue
        rate = impl.get(part)
        if rate is None:
            continue
        ratio = _ratio(ref, rate["steps_per_s"])
        lines.append(f"{label:<42}{_num(rate['games_per_s'], '{:,.1f}'):>10}{_num(rate['steps_per_s']):>11}"
                     f"{_num(ratio, '{:.2f}x'):>12}")
    lines += ["", f"{'lead move generation, us/call (moves)':<42}" + "".join(f"{f'{n} cards':>16}"
                                                                               for n in LEAD_SIZES)]
    for key in ("ours", *PEERS):
        impl = parts.get(key)
        if impl is None or "skipped" in impl or "movegen_us" not in impl:
            continue
        cells = []
        for n in LEAD_SIZES:
            us, moves = impl["movegen_us"].get(n), impl.get("lead_moves", {}).get(n)
            cells.append("-" if us is None else f"{us:,.1f} ({moves:,.0f})")
        label = {"ours": "cardrl MoveTable.legal_moves", "douzero": "douzero MovesGener.gen_moves",
                 "rlcard": "rlcard playable_cards_from_hand", "open_spiel": "open_spiel legal_actions"}[key]
        lines.append(f"{label:<42}" + "".join(f"{c:>16}" for c in cells))
    if "douzero" in parts and "movegen_us" in parts["douzero"]:
        lines.append("(moves: mean number of leads; DouZero's generator also makes plane/bomb moves with both "
                     "jokers as kickers, which its 27,472-move list lacks)")
    if result["summary"]:
        lines += ["", "steps/s: ours through the env (with features) / theirs with features; "
                      "movegen: their us / ours on 20-card leads"]
        lines += result["summary"]
    return "\n".join(lines)


def print_bench_env(result: dict[str, Any]) -> None:
    print(format_bench_env(result), flush=True)


# ---- command line -------------------------------------------------------------------------------
def add_bench_env_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Arguments of ``cardrl bench env``: ``game`` (doudizhu, big2), ``--seconds``, ``--no-peers``."""
    parser.add_argument("game", nargs="?", default="doudizhu", choices=["doudizhu", "big2", "guandan"],
                        help="which game to benchmark (big2, guandan: cardrl only, no peer exists)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--no-peers", action="store_true", help="skip douzero, rlcard and open_spiel")
    return parser


def main_bench_env(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Entry point of ``cardrl bench env doudizhu [--seconds N] [--no-peers]``: runs and prints; returns 0.

    ``args`` is an ``argparse.Namespace`` with ``seconds`` and ``no_peers`` (and optionally ``game``), or a list
    of command-line strings, or None for ``sys.argv``.
    """
    if args is None or not isinstance(args, argparse.Namespace):
        parser = add_bench_env_arguments(argparse.ArgumentParser(prog="cardrl bench env"))
        args = parser.parse_args(args)
    game = getattr(args, "game", "doudizhu")
    if game == "big2":
        from cardrl.bench_big2 import main_bench_env_big2

        return main_bench_env_big2(args)
    if game == "guandan":
        from cardrl.bench_guandan import main_bench_env_guandan

        return main_bench_env_guandan(args)
    if game != "doudizhu":
        raise ValueError(f"no environment benchmark for game {game!r}; available: doudizhu, big2, guandan")
    result = bench_env_doudizhu(seconds=float(args.seconds), peers=not getattr(args, "no_peers", False))
    print_bench_env(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main_bench_env())
