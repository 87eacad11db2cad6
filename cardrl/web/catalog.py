"""What ``cardrl serve`` may show: the run directories, game records and league tables named on its command line,
and the agents a page may pick, each under an id. A request names ids, never paths, so nothing outside what was
given can be read (docs/web.md, "Security")."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardrl.eval.records import FORMAT

__all__ = ["Catalog", "NotFound", "build_catalog", "record_id", "short_agent_id", "evaluation_lines"]

MAX_RECORDS = 5000  # record files listed from the directories given


class NotFound(KeyError):
    """An id the catalog does not have (the message says which ids exist)."""

    def __str__(self) -> str:
        return str(self.args[0])


def _is_run(path: Path) -> bool:
    return (path / "progress.jsonl").is_file() or (path / "config.json").is_file()


def _is_record(path: Path) -> bool:
    if path.suffix != ".json" or not path.is_file():
        return False
    with path.open("rb") as f:
        return FORMAT.encode() in f.read(200)


@dataclass
class Catalog:
    """Ids of what may be served: ``runs`` and ``leagues`` (id -> path), ``record_dirs`` and ``record_files``
    (scanned by :meth:`records`), ``agents`` (id -> agent spec, per game by :meth:`agents_for`)."""

    runs: dict[str, Path] = field(default_factory=dict)
    leagues: dict[str, Path] = field(default_factory=dict)
    record_dirs: list[Path] = field(default_factory=list)
    record_files: list[Path] = field(default_factory=list)
    extra_agents: list[str] = field(default_factory=list)

    def records(self) -> dict[str, Path]:
        """Record id -> path: the files given and the records in the directories given (listed afresh: a running
        ``cardrl eval --save-games`` adds to them). An id is derived from the file's path (:func:`record_id`), so
        it names the same file on every listing however many files come and go."""
        return {record_id(path): path for path, _ in self._found()}

    def record_list(self) -> list[dict[str, str]]:
        """Each record's id and name: a file given by its name, one in a directory given by its path there."""
        return [{"id": record_id(path), "name": name} for path, name in self._found()]

    def _found(self) -> list[tuple[Path, str]]:
        found = [(path, path.name) for path in self.record_files]
        for folder in self.record_dirs:
            paths = sorted(p for p in folder.rglob("*.json") if _is_record(p))[:MAX_RECORDS]
            found += [(path, path.relative_to(folder).as_posix()) for path in paths]
        return found

    def record_path(self, rid: str) -> Path:
        records = self.records()
        if rid not in records:
            raise NotFound(f"no game record {rid!r}: this server serves {len(records)} record(s) (GET /api/records)")
        return records[rid]

    def run_path(self, run_id: str) -> Path:
        if run_id not in self.runs:
            raise NotFound(f"no run {run_id!r}: this server serves the runs {sorted(self.runs) or 'none'}")
        return self.runs[run_id]

    def league_path(self, league_id: str) -> Path:
        if league_id not in self.leagues:
            raise NotFound(f"no league table {league_id!r}: this server serves {sorted(self.leagues) or 'none'}")
        return self.leagues[league_id]

    def agents_for(self, game: str) -> dict[str, str]:
        """Agent id -> spec for ``game``: the built-in kinds, the game's own kinds, the zoo's agents of the game, the
        checkpoints of the runs of this game, and the ``--agent`` specs (their id is the spec itself)."""
        from cardrl.games.registry import get_game
        from cardrl.zoo.catalog import entry_game, zoo_entries

        spec = get_game(game)
        agents = {"random": "random"}
        agents.update({kind: kind for kind in spec.agent_kinds})
        if spec.search is not None:
            agents["mcs-greedy"] = "mcs-greedy"
        for name in zoo_entries():  # the agents shipped with the package (docs/strength.md)
            if entry_game(name) == spec.name:
                agents[f"zoo:{name}"] = f"zoo:{name}"
        for run_id, path in self.runs.items():
            config = _read_json(path / "config.json")
            if config.get("game") in (spec.name, spec.env_name) and (path / "checkpoint").is_dir():
                agents[run_id] = f"{config.get('agent_kind') or 'checkpoint'}:{path / 'checkpoint'}"
        for text in self.extra_agents:
            agents[short_agent_id(text, agents)] = text
        return agents

    def agent_spec(self, game: str, agent_id: str) -> str:
        """The spec of ``agent_id``: an id of :meth:`agents_for`, or an ``--agent`` spec as given."""
        agents = self.agents_for(game)
        if agent_id not in agents and agent_id in self.extra_agents:
            return agent_id
        if agent_id not in agents:
            raise NotFound(f"unknown agent {agent_id!r} for {game}; this server offers {sorted(agents)} (more with "
                           f"cardrl serve --agent SPEC or a run directory)")
        return agents[agent_id]

    def run_summary(self, run_id: str) -> dict[str, Any]:
        from cardrl.run_dir import read_progress

        path = self.run_path(run_id)
        config = _read_json(path / "config.json")
        try:
            records = read_progress(path, torn_last_line=True)
        except (FileNotFoundError, ValueError):
            records = []
        evals = [r for r in records if r.get("eval")]
        latest = evals[-1].get("eval") if evals else None
        return {"id": run_id, "name": path.name, "game": config.get("game"), "algo": config.get("algo"),
                "iterations": records[-1].get("iteration", len(records)) if records else 0, "frames": records[-1].get("frames_trained") if records else None,
                "latest_eval": latest, "latest_eval_lines": evaluation_lines(latest or {}),
                "checkpoint": (path / "checkpoint").is_dir()}

    def league_table(self, league_id: str) -> dict[str, Any]:
        path = self.league_path(league_id)
        with path.open(newline="") as f:
            rows = list(csv.reader(f))
        return {"id": league_id, "name": path.name, "header": rows[0] if rows else [], "rows": rows[1:]}


def record_id(path: Path) -> str:
    """A game record's id: a digest of its path, the same on every listing and across restarts."""
    return "r" + hashlib.blake2s(str(path).encode(), digest_size=6).hexdigest()


def short_agent_id(spec: str, taken: Mapping[str, str] | None = None) -> str:
    """The id under which the pages show an ``--agent`` spec: its path cut to the last two parts
    (``checkpoint:/home/me/runs/dmc/checkpoint`` -> ``checkpoint:dmc/checkpoint``), so no server path is shown and
    a name fits a seat's box; ``~2``, ``~3`` ... after it when another spec already has that id."""
    kind, colon, rest = spec.partition(":")
    path, plus, extra = rest.partition("+")
    short = spec if "/" not in path else f"{kind}{colon}{'/'.join(Path(path).parts[-2:])}{plus}{extra}"
    candidate, n, taken = short, 1, taken or {}
    while candidate in taken and taken[candidate] != spec:
        n += 1
        candidate = f"{short}~{n}"
    return candidate


def evaluation_lines(evaluation: Mapping[str, Any]) -> list[str]:
    """A run's latest evaluation as lines: ``+2.33 [+2.03, +2.62] vs random`` per baseline (the score of side A,
    ADP or points per deal, with its 95% interval), best first."""
    rows = [(float(ev["adp"]), name, ev) for name, ev in evaluation.items()
            if isinstance(ev, Mapping) and isinstance(ev.get("adp"), (int, float))]
    lines = []
    for score, name, ev in sorted(rows, key=lambda row: -row[0]):
        low, high = ev.get("adp_low"), ev.get("adp_high")
        interval = f" [{low:+.2f}, {high:+.2f}]" if isinstance(low, (int, float)) and isinstance(high, (int, float)) \
            else ""
        lines.append(f"{score:+.2f}{interval} vs {short_agent_id(str(name))}")
    return lines


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def build_catalog(paths: list[str], agents: list[str] | None = None) -> Catalog:
    """Sort the paths given to ``cardrl serve``: run directories, directories of records, record files (``.json``)
    and league tables (``cardrl eval --league --out PREFIX``'s ``PREFIX.csv``); ValueError for anything else."""
    catalog = Catalog(extra_agents=list(agents or []))
    for text in paths:
        path = Path(text).expanduser().resolve()
        if path.is_dir() and _is_run(path):
            catalog.runs[f"run{len(catalog.runs)}"] = path
        elif path.is_dir():
            catalog.record_dirs.append(path)
        elif path.suffix == ".csv" and path.is_file():
            catalog.leagues[f"league{len(catalog.leagues)}"] = path
        elif _is_record(path):
            catalog.record_files.append(path)
        else:
            raise ValueError(f"{text}: not a run directory, a directory of game records, a game record (.json, "
                             f"docs/records.md) or a league table (.csv of cardrl eval --league --out)")
    return catalog
