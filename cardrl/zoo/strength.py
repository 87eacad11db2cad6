"""A zoo agent's strength: one ``cardrl eval`` result per opponent, kept as a JSON file beside the entry
(``eval/vs_OPPONENT.json``), and the figures read back from those files (docs/strength.md).

DouDiZhu and Big2 are evaluated on seeded deals, each played in every arrangement of the two sides (duplicate
evaluation; the figure is the average difference in points, ADP); GuanDan in whole seeded matches, each played with
the teams swapped (the figure is points per deal, with the match win rate beside it)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from cardrl.games.registry import get_game
from cardrl.machine_load import load_1m
from cardrl.atomic_file import replace_text

__all__ = ["Strength", "evaluate_against", "strength_of", "read_strength", "write_result", "eval_file", "rule_opponents",
           "EVAL_DIR"]

EVAL_DIR = "eval"


def rule_opponents(game: str) -> tuple[str, ...]:
    """The fixed opponents a zoo agent of ``game`` is measured against: random play and the game's own agent kinds
    (its rule agents; RLCard's rule agent in DouDiZhu)."""
    return ("random", *get_game(game).agent_kinds)


def eval_file(entry_dir: str | Path, opponent: str) -> Path:
    """Where the result against ``opponent`` is kept (characters other than letters, digits, ``_.-`` become ``_``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", opponent)
    return Path(entry_dir) / EVAL_DIR / f"vs_{name}.json"


@dataclass(frozen=True)
class Strength:
    """One row of a strength table: the agent against ``opponent``, ``mean`` [``low``, ``high``] (95% interval) in
    ``unit``, over ``count`` deals or matches, and the win rate (of deals, or of whole matches for GuanDan)."""

    opponent: str
    unit: str
    count: int
    games: int
    mean: float
    low: float
    high: float
    win_rate: float
    win_low: float
    win_high: float

    @property
    def above_zero(self) -> bool:
        return self.low > 0


def _is_match_game(game: str) -> bool:
    return get_game(game).protocol.unit == "match"


def evaluate_against(agent: str, opponent: str, game: str, count: int, *, label: str | None = None, seed: int = 0,
                     workers: int = 1, options: Mapping[str, Any] | None = None) -> dict:
    """Play ``agent`` against ``opponent`` (agent specs) on ``count`` seeded deals (matches for GuanDan), as
    ``cardrl eval GAME --a AGENT --b OPPONENT --deals COUNT --seed SEED --workers WORKERS`` does; the record of a
    result file (``label`` names the agent in it, e.g. ``zoo:doudizhu``)."""
    from cardrl.eval.agents import build_agent

    options = dict(options or {})
    started = time.perf_counter()
    if _is_match_game(game):
        from cardrl.eval.matches import run_matches

        a, b = build_agent(agent, game, options, seed=seed), build_agent(opponent, game, options, seed=seed + 1)
        a.name, b.name = label or agent, opponent
        result = run_matches(a, b, count, seed, game, num_workers=workers, options=options).to_dict()
    else:
        from cardrl.eval.tournament import run_tournament

        result = run_tournament(agent, opponent, count, game, seed=seed, num_workers=workers).to_dict()
    seconds = time.perf_counter() - started
    return {"game": game, "agent": label or agent, "opponent": opponent, "unit": get_game(game).protocol.unit,
            "count": count, "seed": seed, "workers": workers,
            "command": f"cardrl eval {game} --a {label or agent} --b {opponent} --deals {count} --seed {seed} "
                       f"--workers {workers}",
            "seconds": round(seconds, 1), "load_1m_after": load_1m(),
            "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "result": result}


def strength_of(record: Mapping[str, Any]) -> Strength:
    """The row of one result record (:func:`evaluate_against`)."""
    r = record["result"]
    if record["unit"] == "match":
        return Strength(record["opponent"], "points per deal", int(r["matches"]), int(r["games"]),
                        r["points_per_deal"], r["points_per_deal_low"], r["points_per_deal_high"],
                        r["win_rate"], r["win_rate_low"], r["win_rate_high"])
    return Strength(record["opponent"], "ADP", int(r["deals"]), int(r["games"]), r["adp"], r["adp_low"],
                    r["adp_high"], r["wp"], r["wp_low"], r["wp_high"])


def read_strength(entry_dir: str | Path) -> dict[str, Strength]:
    """opponent -> its row, from every result file of an entry (none yet: empty)."""
    folder = Path(entry_dir) / EVAL_DIR
    rows = {}
    for file in sorted(folder.glob("vs_*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(file.read_text())
            row = strength_of(record)
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{file}: not a zoo evaluation result ({type(err).__name__}: {err})") from None
        rows[row.opponent] = row
    return rows


def write_result(entry_dir: str | Path, record: Mapping[str, Any]) -> Path:
    """Keep a result record beside the entry (written whole, then renamed into place)."""
    file = eval_file(entry_dir, record["opponent"])
    file.parent.mkdir(parents=True, exist_ok=True)
    return replace_text(file, json.dumps(record, indent=1) + "\n")
