"""``cardrl bench env GAME``: environment speed of any registered game, side by side with its peers when installed.

One call of :func:`bench_env` measures, on this machine and in one process, for the game's registry entry
(:mod:`cardrl.games.registry`; single deals, ``spec.protocol.deal_options``):

* random play through the bare engine (``spec.make_engine``), the engine plus the game's default features
  (``encode`` of the player to move at every step: DouZero's for DouDiZhu, Zha et al. 2021, "DouZero: Mastering
  DouDizhu with Self-Play Deep Reinforcement Learning"; Luo & Tan 2024's unified features for Big2; DanZero's for
  GuanDan, Lu et al. 2023, "DanZero: Mastering GuanDan Game with Reinforcement Learning"), and the PettingZoo env
  (``cardrl.envs.make_env``: observation and action mask at every step); games/s and steps/s;
* the default features' ``encode`` alone, us per call, on positions sampled from random play;
* legal-move generation for a leader (the player to move may play anything), mean and p99 CPU us per call and the
  mean and largest number of legal moves, on lead hands of the sizes the first deal gives its seats (DouDiZhu 20 and
  17, Big2 13, GuanDan 27) and on smaller ones (10 and 5 cards): a seat's hand the first time it holds that many cards
  in random play, dealt hands for the dealt sizes (:func:`lead_hands`);
* with ``--moves`` (:func:`bench_moves`), legal-move generation only: the lead table above and, for an engine with
  wild cards (``wild_kinds()``), dealt leads by the number of wild cards held (0, 1, 2 for GuanDan's two heart level
  cards), mean and p99 us;
* every peer the registry names for the game (``spec.peers``) that is installed, measured by
  ``cardrl.bench.peers_<game>`` on the same lead hands, with the ratios ours / theirs: steps/s through our env over
  theirs with features, and their us over ours for move generation on the largest lead they both measure.

A step is one action of a player (passes included; chance nodes excluded). Every implementation picks uniformly
random legal moves. Every timed function is warmed up first and rates are per CPU-second (:mod:`cardrl.bench.common`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from cardrl.bench.common import (RATE_NOTE, call_times_us, check_seconds, format_number, format_ratio, header_lines,
                                 load_average, machine_description, random_env_play, random_game_play, rate_loop,
                                 ratio, table_row, us_per_call)
from cardrl.games.registry import GameSpec, game_names, get_game

__all__ = ["bench_env", "format_bench_env", "print_bench_env", "bench_moves", "format_bench_moves", "wild_lead_hands",
           "lead_sizes", "lead_hands", "lead_move_generator",
           "sample_positions", "peer_module", "no_peer_line", "SMALLER_LEADS", "HANDS_PER_SIZE"]

SMALLER_LEADS = (10, 5)  # lead sizes measured below the dealt ones
HANDS_PER_SIZE = 200
POSITIONS = 200
_LABEL = 48
_CELL = 18


# ---- lead positions ----------------------------------------------------------------------------------------------
def _deal_options(spec: GameSpec) -> dict[str, Any]:
    return dict(spec.protocol.deal_options)


def lead_sizes(spec: GameSpec | str) -> tuple[int, ...]:
    """The lead hand sizes measured for a game, largest first: the distinct sizes of the first deal's hands, then
    :data:`SMALLER_LEADS` below the smallest of them."""
    spec = get_game(spec)
    dealt = sorted({int(n) for n in spec.make_engine(**_deal_options(spec)).reset(0).cards_held().sum(axis=1)},
                   reverse=True)
    return tuple(dealt) + tuple(n for n in SMALLER_LEADS if n < dealt[-1])


def lead_hands(spec: GameSpec | str, sizes: tuple[int, ...] | None = None, count: int = HANDS_PER_SIZE,
               seed: int = 0) -> dict[int, list[np.ndarray]]:
    """``count`` hands per size (default :func:`lead_sizes`) as the engine's 54-count card vectors
    (``cards_held()``): from deals ``seed * 100_000 + 0, 1, ...`` played with uniformly random legal moves, a seat's
    hand the first time it holds exactly that many cards (the dealt hand for a dealt size). The same on every run;
    a size no seat reaches in ``50 * count + 100`` deals gets the hands found so far (ValueError if none)."""
    spec = get_game(spec)
    dealt = lead_sizes(spec)
    sizes = dealt if sizes is None else tuple(int(n) for n in sizes)
    if not sizes or any(not 1 <= n <= dealt[0] for n in sizes):
        raise ValueError(f"a {spec.title} lead hand has 1..{dealt[0]} cards, got sizes {sizes}")
    if count < 1:
        raise ValueError(f"count must be >= 1 hand per size, got {count}")
    out: dict[int, list[np.ndarray]] = {n: [] for n in sizes}
    engine = spec.make_engine(**_deal_options(spec))
    rng = np.random.default_rng(seed)
    for deal in range(50 * count + 100):
        need = [n for n in sizes if len(out[n]) < count]
        if not need:
            break
        engine.reset(seed * 100_000 + deal)
        taken: set[tuple[int, int]] = set()
        while True:
            held = engine.cards_held()
            held_n = held.sum(axis=1)
            for seat, n in enumerate(held_n.tolist()):
                if n in out and len(out[n]) < count and (seat, n) not in taken:
                    out[n].append(held[seat].copy())
                    taken.add((seat, n))
            need = [n for n in sizes if len(out[n]) < count]
            if not need or engine.is_over or int(held_n.max()) < min(need):
                break
            legal = engine.legal_moves()
            engine.step(int(legal[rng.integers(len(legal))]))
    missing = [n for n in sizes if not out[n]]
    if missing:
        raise ValueError(f"no {spec.title} seat held exactly {missing} cards in random play; lead sizes must be "
                         f"hand sizes the game reaches")
    return out


def lead_move_generator(engine) -> tuple[Callable[[np.ndarray], Any], Callable[[Any], np.ndarray]]:
    """``(prepare, generate)``: ``generate(prepare(hand))`` is the sorted action ids a player leading with ``hand``
    (a 54-count vector as ``engine.cards_held()`` gives it) may take, what the engine's ``legal_moves()`` computes for
    a leader. ``prepare`` puts the hand in the engine's own form and is not timed.

    Engines with a move table (``engine.table``, :class:`~cardrl.games.move_table.MoveTable`) lead through
    ``table.legal_moves(hand_bits, None)``; engines with ``set_hands(hands, current_player)`` (hands replaced, the
    trick reset to a lead) through ``legal_moves()`` after it, so their figure includes ``set_hands`` (a few us).
    The engine must have been dealt (``reset``). TypeError for an engine with neither.
    """
    from cardrl.cards import vector_to_bits
    from cardrl.games.move_table import MoveTable

    table = getattr(engine, "table", None)
    if isinstance(table, MoveTable):
        legal = table.legal_moves
        return vector_to_bits, lambda bits: legal(bits, None)
    if callable(getattr(engine, "set_hands", None)):
        shape = engine.cards_held().shape

        def prepare(hand: np.ndarray) -> np.ndarray:
            hands = np.zeros(shape, dtype=np.int8)
            hands[0] = hand
            return hands

        return prepare, lambda hands: engine.set_hands(hands, 0).legal_moves()
    raise TypeError(f"{type(engine).__name__} has neither a move table nor set_hands: the benchmark cannot put a "
                    "hand in a lead position")


def sample_positions(spec: GameSpec | str, count: int = POSITIONS, seed: int = 0,
                     share: float = 0.25) -> list[tuple[Any, int]]:
    """``count`` ``(engine copy, seat to move)`` positions of random single deals, each step kept with probability
    ``share`` (spread over whole deals)."""
    spec = get_game(spec)
    rng = np.random.default_rng(seed)
    engine = spec.make_engine(**_deal_options(spec))
    out: list[tuple[Any, int]] = []
    deal = 0
    while len(out) < count:
        engine.reset(deal)
        deal += 1
        while not engine.is_over and len(out) < count:
            if rng.random() < share:
                out.append((engine.copy(), engine.current_player))
            legal = engine.legal_moves()
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


# ---- ours --------------------------------------------------------------------------------------------------------
def _ours_play(spec: GameSpec, seconds: float, features: bool) -> dict[str, Any]:
    encode = None
    if features:
        try:
            encode = spec.make_features().encode
        except ImportError as err:
            return {"skipped": f"{spec.title} features not importable ({err})"}
    return rate_loop(random_game_play(spec.make_engine(**_deal_options(spec)), encode), seconds)


def _ours_env(spec: GameSpec, seconds: float) -> dict[str, Any]:
    from cardrl.envs import make_env

    try:
        env = make_env(spec.name, **_deal_options(spec))
    except ImportError as err:
        return {"skipped": f"the {spec.env_name} env is not importable ({err})"}
    return rate_loop(random_env_play(env), seconds)


def _ours_encode(spec: GameSpec, seconds: float) -> float | None:
    try:
        encode = spec.make_features().encode
    except ImportError:
        return None
    return us_per_call(lambda p: encode(p[0], p[1]), sample_positions(spec), seconds)


def _ours_leads(spec: GameSpec, hands: dict[int, list[np.ndarray]], seconds: float) -> dict[str, dict[int, float]]:
    """Mean us (batch CPU time, half of each size's share of ``seconds``) and p99 us (per call, the other half) of
    lead-move generation, with the mean and largest legal-set sizes."""
    engine = spec.make_engine(**_deal_options(spec)).reset(0)
    prepare, generate = lead_move_generator(engine)
    share = seconds / (2 * len(hands))
    out: dict[str, dict[int, float]] = {"movegen_us": {}, "movegen_p99_us": {}, "lead_moves": {},
                                        "lead_moves_max": {}}
    for n, hs in hands.items():
        inputs = [prepare(h) for h in hs]
        sizes = [len(generate(x)) for x in inputs]  # also the warm-up (tables, compilation)
        out["movegen_us"][n] = us_per_call(generate, inputs, share, warmup=False)
        out["movegen_p99_us"][n] = float(np.percentile(call_times_us(generate, inputs, share, warmup=False), 99))
        out["lead_moves"][n] = float(np.mean(sizes))
        out["lead_moves_max"][n] = float(np.max(sizes))
    return out


def wild_lead_hands(spec: GameSpec | str, count: int = HANDS_PER_SIZE, seed: int = 0) -> dict[int, list[np.ndarray]]:
    """Dealt hands of the largest lead size by the number of wild cards they hold, ``{wilds: [count hands]}``, for
    an engine with ``wild_kinds()`` (the kinds that are wild at its level); ``{}`` for one without. Deals
    ``seed * 100_000 + 0, 1, ...`` in seat order, until every count 0 .. (copies of the wild kinds) has ``count``
    hands (at most ``400 * count`` deals; a count never dealt is left out)."""
    spec = get_game(spec)
    engine = spec.make_engine(**_deal_options(spec))  # each deal below resets it
    if not callable(getattr(engine, "wild_kinds", None)):
        return {}
    size = lead_sizes(spec)[0]
    out: dict[int, list[np.ndarray]] = {}
    for deal in range(400 * count):
        engine.reset(seed * 100_000 + deal)
        held = engine.cards_held()
        kinds = list(engine.wild_kinds())
        if not out:  # every count from none to all copies of the wild kinds (every card is dealt)
            out = {w: [] for w in range(int(held[:, kinds].sum()) + 1)}
        for hand in held:
            w = int(hand[kinds].sum())
            if int(hand.sum()) == size and len(out[w]) < count:
                out[w].append(np.array(hand))
        if all(len(v) >= count for v in out.values()):
            break
    return {w: hs for w, hs in out.items() if hs}


def bench_moves(game: str, seconds: float = 3.0, hands: int = HANDS_PER_SIZE) -> dict[str, Any]:
    """Legal-move generation only (``cardrl bench env GAME --moves``): the lead table of :func:`bench_env` and, for a
    game with wild cards, leads of the dealt size by wild cards held (mean and p99 us, mean and largest legal
    sets; :func:`wild_lead_hands`). Returns ``{"game", "title", "seconds", "machine", "load_before", "options",
    "labels", "ours": {"movegen_us", ..., "wild": {"size", "movegen_us", "movegen_p99_us", "lead_moves",
    "lead_moves_max": {wilds: value}}}}``."""
    spec = get_game(game)
    seconds = check_seconds(seconds)
    load = load_average()
    ours: dict[str, Any] = _ours_leads(spec, lead_hands(spec, count=hands), seconds)
    by_wilds = wild_lead_hands(spec, count=hands)
    if by_wilds:
        ours["wild"] = {"size": lead_sizes(spec)[0], **_ours_leads(spec, by_wilds, seconds)}
    return {"game": spec.name, "title": spec.title, "seconds": seconds, "machine": machine_description(),
            "load_before": load, "options": _deal_options(spec), "ours": ours,
            "labels": {"movegen": "cardrl legal moves"}}


def format_bench_moves(result: dict[str, Any]) -> str:
    """:func:`bench_moves`' result as text: the machine, the lead table, the table by wild cards held."""
    ours = result["ours"]
    options = ", ".join(f"{k}={v!r}" for k, v in result.get("options", {}).items())
    title = (f"{result['title']} legal-move benchmark (cardrl bench env {result['game']} --moves"
             f"{'; ' + options if options else ''}): {result['seconds']:g} s per measurement after a warm-up")
    lines = header_lines(title, result["machine"], result.get("load_before"), RATE_NOTE)
    lines += [""] + _lead_table(ours, result["labels"]["movegen"], "legal moves of a leader, us/call (moves)",
                                lambda n: f"{n} cards")
    if "wild" in ours:
        lines += [""] + _lead_table(ours["wild"], result["labels"]["movegen"],
                                    f"{ours['wild']['size']}-card leads by wild cards held, us/call (moves)",
                                    lambda w: f"{w} wild{'s' if w != 1 else ''}")
    return "\n".join(line.rstrip() for line in lines)


def _lead_table(part: dict[str, Any], label: str, heading: str, column) -> list[str]:
    keys = list(part["movegen_us"])
    return [table_row(heading, [column(k) for k in keys], _LABEL, _CELL),
            table_row(f"{label}: mean (mean moves)",
                      [f"{part['movegen_us'][k]:,.1f} ({part['lead_moves'][k]:,.0f})" for k in keys], _LABEL, _CELL),
            table_row(f"{label}: p99 (most moves)",
                      [f"{part['movegen_p99_us'][k]:,.1f} ({part['lead_moves_max'][k]:,.0f})" for k in keys],
                      _LABEL, _CELL)]


# ---- peers ------------------------------------------------------------------------------------------------------
def peer_module(spec: GameSpec | str):
    """``cardrl.bench.peers_<game>``, the measurements of a game's peers, or ``None`` when there is none."""
    spec = get_game(spec)
    name = f"cardrl.bench.peers_{spec.name}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name:
            return None
        raise


def _all_peers() -> list[str]:
    seen: list[str] = []
    for game in game_names():
        seen += [p for p in get_game(game).peers if p not in seen]
    return seen


def no_peer_line(spec: GameSpec | str) -> str:
    """The summary of a game without peers: which known peers lack it."""
    spec = get_game(spec)
    known = _all_peers()
    among = f" ({', '.join(known)} have no {spec.title})" if known else ""
    return f"no {spec.title} peer is registered{among}: cardrl only"


def _measure_peers(spec: GameSpec, seconds: float, hands: dict[int, list[np.ndarray]]) -> dict[str, Any]:
    module = peer_module(spec)
    out = {}
    for name in spec.peers:
        if module is None:
            out[name] = {"skipped": f"no module cardrl.bench.peers_{spec.name} measures {spec.title} peers"}
        else:
            out[name] = module.measure_peer(name, seconds, hands)
    return out


def _peer_ratios(ours: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    rate = lambda part: (peer.get(part) or {}).get("steps_per_s")  # noqa: E731
    common = sorted(set(peer.get("movegen_us", {})) & set(ours["movegen_us"]))
    lead = common[-1] if common else None
    return {"steps": ratio(ours["env"].get("steps_per_s"), rate("env")),
            "bare": ratio(ours["engine"].get("steps_per_s"), rate("game")),
            "movegen": None if lead is None else ratio(peer["movegen_us"][lead], ours["movegen_us"][lead]),
            "lead": lead}


def _summary_line(name: str, r: dict[str, Any]) -> str:
    lead = "" if r["lead"] is None else f" ({r['lead']}-card leads)"
    return f"vs {name}: {format_ratio(r['steps'])} steps/s, {format_ratio(r['movegen'])} movegen{lead}"


# ---- the benchmark ----------------------------------------------------------------------------------------------
def bench_env(game: str, seconds: float = 3.0, peers: bool = True, hands: int = HANDS_PER_SIZE) -> dict[str, Any]:
    """Measure a game's environment speeds (module docstring); ``seconds`` per measurement, ``hands`` lead hands
    per size.

    Returns ``{"game", "title", "seconds", "machine", "load_before", "options", "labels", "ours": {"engine",
    "features", "env": rates, "encode_us", "movegen_us", "movegen_p99_us", "lead_moves", "lead_moves_max": {cards:
    value}}, "peers": {name: {...}}, "ratios": {name: {"steps", "bare", "movegen", "lead"}}, "summary": [lines]}``.
    Rates are dicts with ``games_per_s`` and ``steps_per_s``; a part or peer that could not run is
    ``{"skipped": reason}``. A peer measured gets a ``vs <peer>: ...`` summary line whatever its ratios.
    """
    spec = get_game(game)
    seconds = check_seconds(seconds)
    load = load_average()
    by_size = lead_hands(spec, count=hands)
    try:
        features_name = spec.make_features().name
    except ImportError:
        features_name = spec.default_features
    ours: dict[str, Any] = {
        "engine": _ours_play(spec, seconds, features=False),
        "features": _ours_play(spec, seconds, features=True),
        "env": _ours_env(spec, seconds),
        "encode_us": _ours_encode(spec, seconds),
    }
    ours.update(_ours_leads(spec, by_size, seconds))
    result: dict[str, Any] = {
        "game": spec.name, "title": spec.title, "seconds": seconds, "machine": machine_description(),
        "load_before": load, "options": _deal_options(spec), "ours": ours, "peers": {}, "ratios": {}, "summary": [],
        "labels": {"engine": f"cardrl engine ({spec.engine_class.__name__}), no features",
                   "features": f"cardrl engine + {features_name} features",
                   "env": f"cardrl {spec.env_name} env (features + mask)",
                   "encode": f"{features_name} encode", "movegen": "cardrl legal moves"},
    }
    if not spec.peers:
        result["summary"] = [no_peer_line(spec)]
        return result
    if not peers:
        result["summary"] = [f"{spec.title} peers not measured (--no-peers): {', '.join(spec.peers)}"]
        return result
    result["peers"] = _measure_peers(spec, seconds, by_size)
    for name, peer in result["peers"].items():
        if "skipped" in peer:
            continue
        r = result["ratios"][name] = _peer_ratios(ours, peer)
        result["summary"].append(_summary_line(name, r))
    return result


# ---- printing -------------------------------------------------------------------------------------------------
def _rate_row(label: str, rate: dict[str, Any] | None, games_fmt: str, versus: float | None = None) -> str | None:
    if rate is None:
        return None
    if "skipped" in rate:
        return f"{label:<{_LABEL}}  skipped: {rate['skipped']}"
    cells = [format_number(rate["games_per_s"], games_fmt), format_number(rate["steps_per_s"])]
    cells.append("" if versus is None else format_ratio(versus))
    return f"{label:<{_LABEL}}{cells[0]:>11}{cells[1]:>11}{cells[2]:>13}"


def _games_format(rate: dict[str, Any]) -> str:
    return "{:,.2f}" if 0 < rate.get("games_per_s", 1.0) < 100 else "{:,.1f}"


def format_bench_env(result: dict[str, Any]) -> str:
    """The result as text: the machine first, the random-play table (ours and every measured peer with its ratio),
    the encoding cost, the lead-move table, then the summary lines (one ``vs <peer>: ...`` per measured peer)."""
    ours, labels = result["ours"], result["labels"]
    options = ", ".join(f"{k}={v!r}" for k, v in result.get("options", {}).items())
    title = (f"{result['title']} env benchmark (cardrl bench env {result['game']}"
             f"{'; ' + options if options else ''}): {result['seconds']:g} s per measurement after a warm-up")
    lines = header_lines(title, result["machine"], result.get("load_before"), RATE_NOTE)
    games_fmt = _games_format(ours["engine"])
    measured = {n: p for n, p in result["peers"].items() if "skipped" not in p}
    versus = f"{'ours/theirs':>13}" if measured else ""
    lines += ["", f"{'random play':<{_LABEL}}{'games/s':>11}{'steps/s':>11}{versus}"]
    for part in ("engine", "features", "env"):
        lines.append(_rate_row(labels[part], ours[part], games_fmt))
    for name, peer in result["peers"].items():
        if name not in measured:
            lines.append(f"{name:<{_LABEL}}  skipped: {peer['skipped']}")
            continue
        r = result["ratios"].get(name, {})
        for part, key in (("env", "steps"), ("game", "bare")):
            row = _rate_row(peer.get("labels", {}).get(part, f"{name} {part}"), peer.get(part), games_fmt, r.get(key))
            if row is not None:
                lines.append(row)
    if measured:
        lines.append("(ours/theirs: our env over theirs with features; our bare engine over theirs without)")
    if ours.get("encode_us") is not None:
        lines += ["", f"{labels['encode'] + ', us/call':<{_LABEL}}{ours['encode_us']:>11.1f}"]
    sizes = list(ours["movegen_us"])
    lines += ["", table_row("legal moves of a leader, us/call (moves)", [f"{n} cards" for n in sizes], _LABEL, _CELL)]
    lines.append(table_row(f"{labels['movegen']}: mean (mean moves)",
                           [f"{ours['movegen_us'][n]:,.1f} ({ours['lead_moves'][n]:,.0f})" for n in sizes],
                           _LABEL, _CELL))
    lines.append(table_row(f"{labels['movegen']}: p99 (most moves)",
                           [f"{ours['movegen_p99_us'][n]:,.1f} ({ours['lead_moves_max'][n]:,.0f})" for n in sizes],
                           _LABEL, _CELL))
    for name, peer in measured.items():
        if not peer.get("movegen_us"):
            continue
        cells = []
        for n in sizes:
            us, moves = peer["movegen_us"].get(n), peer.get("lead_moves", {}).get(n)
            cells.append("-" if us is None else f"{us:,.1f} ({format_number(moves)})")
        lines.append(table_row(f"{peer.get('labels', {}).get('movegen', name)}: mean", cells, _LABEL, _CELL))
    notes = [peer["note"] for peer in measured.values() if peer.get("note")]
    lines += [f"({note})" for note in notes]
    if result["summary"]:
        lines.append("")
        if measured:
            lines.append("steps/s: ours through the env (with features) / theirs with features; "
                         "movegen: their us / ours on the largest lead both measure")
        lines += result["summary"]
    return "\n".join(line.rstrip() for line in lines if line is not None)


def print_bench_env(result: dict[str, Any]) -> None:
    print(format_bench_env(result), flush=True)
