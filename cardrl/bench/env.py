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
from typing import Any

import numpy as np

from cardrl.bench.common import (RATE_NOTE, call_times_us, check_seconds, format_number, format_ratio, header_lines,
                                 machine_description, random_env_play, random_game_play, rate_loop,
                                 ratio, table_row, us_per_call)
from cardrl.machine_load import load_1m
from cardrl.bench.positions import (HANDS_PER_SIZE, deal_options, lead_hands, lead_move_generator, lead_sizes,
                                    sample_positions, wild_lead_hands)
from cardrl.games.registry import GameSpec, game_names, get_game

__all__ = ["bench_env", "format_bench_env", "print_bench_env", "bench_moves", "format_bench_moves", "peer_module",
           "no_peer_line"]

_LABEL = 48
_CELL = 18


# ---- ours --------------------------------------------------------------------------------------------------------
def _ours_play(spec: GameSpec, seconds: float, features: bool) -> dict[str, Any]:
    encode = None
    if features:
        try:
            encode = spec.make_features().encode
        except ImportError as err:
            return {"skipped": f"{spec.title} features not importable ({err})"}
    return rate_loop(random_game_play(spec.make_engine(**deal_options(spec)), encode), seconds)


def _ours_env(spec: GameSpec, seconds: float) -> dict[str, Any]:
    from cardrl.envs import make_env

    try:
        env = make_env(spec.name, **deal_options(spec))
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
    engine = spec.make_engine(**deal_options(spec)).reset(0)
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


def bench_moves(game: str, seconds: float = 3.0, hands: int = HANDS_PER_SIZE) -> dict[str, Any]:
    """Legal-move generation only (``cardrl bench env GAME --moves``): the lead table of :func:`bench_env` and, for a
    game with wild cards, leads of the dealt size by wild cards held (mean and p99 us, mean and largest legal
    sets; :func:`wild_lead_hands`). Returns ``{"game", "title", "seconds", "machine", "load_before", "options",
    "labels", "ours": {"movegen_us", ..., "wild": {"size", "movegen_us", "movegen_p99_us", "lead_moves",
    "lead_moves_max": {wilds: value}}}}``."""
    spec = get_game(game)
    seconds = check_seconds(seconds)
    load = load_1m()
    ours: dict[str, Any] = _ours_leads(spec, lead_hands(spec, count=hands), seconds)
    by_wilds = wild_lead_hands(spec, count=hands)
    if by_wilds:
        ours["wild"] = {"size": lead_sizes(spec)[0], **_ours_leads(spec, by_wilds, seconds)}
    return {"game": spec.name, "title": spec.title, "seconds": seconds, "machine": machine_description(),
            "load_before": load, "options": deal_options(spec), "ours": ours,
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
    load = load_1m()
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
        "load_before": load, "options": deal_options(spec), "ours": ours, "peers": {}, "ratios": {}, "summary": [],
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
    lines += ["", *_lead_table(ours, labels["movegen"], "legal moves of a leader, us/call (moves)",
                               lambda n: f"{n} cards")]
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
