"""Game records: one JSON format for a played game (docs/records.md), read by ``cardrl play --replay FILE`` and
``cardrl serve``, written by ``cardrl eval --save-games DIR`` and the web app.

A record holds what rebuilds the game exactly (game, full rule options, deal seed, action ids: the engine's
``replay(seed, actions, **options)``), who sat where (the agent spec of each seat), and at each decision the values
the deciding agent gave its top legal moves when it has values (Q for DMC agents, probabilities for PPO agents).
:func:`validate_record` replays the actions on the engine and checks every field, so a record that does not fit the
engine (another rule option, a changed move table) is refused rather than shown wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from cardrl.atomic_file import replace_text

__all__ = ["FORMAT", "VERSION", "VALUE_KINDS", "GameRecord", "validate_record", "read_record", "write_record",
           "replay_engine"]

FORMAT = "cardrl-game-record"
VERSION = 1
VALUE_KINDS = ("q", "prob")  # Q-values (DMC), policy probabilities (PPO)
MAX_RECORD_BYTES = 20_000_000  # a whole GuanDan match with values is well under 1 MB


@dataclass
class GameRecord:
    """A played game (docs/records.md). ``values[i]`` belongs to ``actions[i]``: ``None`` when the agent that chose
    it has no values, else ``{"kind": "q" | "prob", "moves": [[action id, value], ...]}`` best first."""

    game: str
    options: dict[str, Any]
    seed: int
    seats: list[str]
    actions: list[int]
    values: list[dict[str, Any] | None] = field(default_factory=list)
    payoffs: list[float] | None = None
    label: str = ""
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "game": self.game, "options": self.options,
                "seed": self.seed, "seats": self.seats, "actions": self.actions,
                "values": self.values or [None] * len(self.actions), "payoffs": self.payoffs,
                "label": self.label, "source": self.source}


def _fail(why: str) -> None:
    raise ValueError(f"not a valid {FORMAT} (docs/records.md): {why}")


def _check_fields(data: Any) -> None:
    if not isinstance(data, Mapping):
        _fail(f"a record is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        _fail(f"'format' must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        _fail(f"'version' {data.get('version')!r} is not supported (this cardrl reads version {VERSION})")
    kinds = {"game": str, "options": Mapping, "seed": int, "seats": list, "actions": list, "values": list}
    for key, kind in kinds.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            _fail(f"'{key}' must be a {kind.__name__}, got {data.get(key)!r:.80}")
    if data["seed"] < 0:
        _fail(f"'seed' must be >= 0, got {data['seed']}")
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in data["actions"]):
        _fail("'actions' must be a list of integer action ids")
    if not all(isinstance(s, str) for s in data["seats"]):
        _fail("'seats' must be a list of agent specs (strings), one per seat")
    if len(data["values"]) != len(data["actions"]):
        _fail(f"'values' has {len(data['values'])} entries for {len(data['actions'])} actions (one per action, "
              f"null where the agent has no values)")


def _check_values(entry: Any, legal: set[int], index: int) -> None:
    if entry is None:
        return
    if not isinstance(entry, Mapping) or entry.get("kind") not in VALUE_KINDS or not isinstance(entry.get("moves"),
                                                                                                 list):
        _fail(f"values[{index}] must be null or {{'kind': one of {list(VALUE_KINDS)}, 'moves': [[id, value], ...]}}")
    for pair in entry["moves"]:
        ok = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int) and isinstance(
            pair[1], (int, float)) and not isinstance(pair[1], bool) and math.isfinite(pair[1])
        if not ok:
            _fail(f"values[{index}] has {pair!r:.60}; each move is [action id, finite value]")
        if pair[0] not in legal:
            _fail(f"values[{index}] scores action {pair[0]}, which was not legal at that decision")


def validate_record(data: Any) -> GameRecord:
    """The :class:`GameRecord` of parsed JSON ``data``, checked against the engine by replaying it: ValueError
    saying what is wrong (a field, an illegal action, a value for a move that was not legal)."""
    from cardrl.games.registry import get_game

    _check_fields(data)
    spec = get_game(data["game"])
    options = spec.full_options(dict(data["options"]))
    if len(data["seats"]) != spec.num_players:
        _fail(f"'seats' has {len(data['seats'])} agent specs; {spec.title} has {spec.num_players} seats")
    engine = spec.make_engine(**options).reset(data["seed"])
    for i, (action, entry) in enumerate(zip(data["actions"], data["values"])):
        if engine.is_over:
            _fail(f"the game is over after {i} actions; {len(data['actions']) - i} are left over")
        legal = {int(a) for a in engine.legal_moves()}
        if action not in legal:
            _fail(f"action {i} ({action}) is not legal there (another seed, rule option or cardrl version?)")
        _check_values(entry, legal, i)
        engine.step(action)
    payoffs = data.get("payoffs")
    return GameRecord(spec.name, options, data["seed"], list(data["seats"]), list(data["actions"]),
                      list(data["values"]), None if payoffs is None else [float(p) for p in payoffs],
                      str(data.get("label", "")), str(data.get("source", "")))


def read_record(path: str | Path) -> GameRecord:
    """Read and validate a record file (ValueError naming the file and what is wrong)."""
    path = Path(path)
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{path}: {path.stat().st_size} bytes is more than a game record can be")
    try:
        return validate_record(json.loads(path.read_text()))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON ({err})") from None
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def write_record(record: GameRecord, path: str | Path) -> Path:
    """Write ``record`` as JSON (atomically: a reader never sees half a file; a write that fails, e.g. on a full
    disk, leaves neither the record nor its temporary file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return replace_text(path, json.dumps(record.to_json(), separators=(",", ":")) + "\n")


def replay_engine(record: GameRecord, steps: int | None = None) -> Any:
    """The engine after the record's first ``steps`` actions (all by default)."""
    from cardrl.games.registry import get_game

    actions: Sequence[int] = record.actions if steps is None else record.actions[:steps]
    return get_game(record.game).engine_class.replay(record.seed, actions, **record.options)
