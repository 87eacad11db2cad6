"""A run's ``<out>/config.json`` (how the run was made; ``cardrl report`` shows it), written by the run loop of every
``cardrl train`` driver; the run directory's layout is :mod:`cardrl.run_dir`'s.

``config.json`` holds ``game``, ``title``, ``algo``, ``agent_kind`` (the agent-spec kind that loads the run's
checkpoint: ``cardrl eval --a KIND:PATH``), ``command`` (the ``cardrl train`` command line with every option that
differs from its default), ``args`` (the run's options: :class:`RunSettings` and the algorithm's settings, each with
the value the algorithm was given), ``<algo>`` (the algorithm's settings as its config resolved them), ``env_config``
and ``rllib`` (the JSON-representable entries of the RLlib config). No Ray or torch is imported here.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import fields
from pathlib import Path
from typing import Any

from cardrl import run_dir as files
from cardrl.algorithms.training.settings import RunSettings, field_default, flag_of, parse_duration, values_from_args

__all__ = ["run_dir", "command_line", "write_config"]


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _json_only(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if _jsonable(v)}


def run_dir(args) -> Path:
    """The run directory: ``--out``, else ``runs/<algo>_<game>`` (each game and algorithm its own)."""
    return Path(args.out or f"runs/{args.algo}_{args.game}").resolve()


def command_line(game: str, algo: str, sections: list[tuple[type, dict[str, Any]]]) -> str:
    """The ``cardrl train`` command of a run: the game, the algorithm and every option of each ``(settings class,
    values)`` section that differs from its default (durations written with their unit, as ``--stop-time`` takes
    them)."""
    words = ["cardrl", "train", game, "--algo", algo]
    for settings, values in sections:
        for f in fields(settings):
            if f.name not in values or not f.metadata.get("cli", True):
                continue
            value, default = values[f.name], field_default(f)
            if value == default or (isinstance(value, (list, tuple)) and isinstance(default, (list, tuple))
                                    and list(value) == list(default)):
                continue
            flag = flag_of(f)
            if isinstance(value, bool):
                words += [flag] if value else []
            elif isinstance(value, (list, tuple)):
                words += [flag, *map(str, value)]
            elif value is not None:
                words += [flag, f"{value:g}s" if f.metadata.get("type") is parse_duration else str(value)]
    return shlex.join(words)


def write_config(out: Path, args, config, settings: type, values: dict[str, Any], agent_kind: str) -> Path:
    """Write ``<out>/config.json`` (module docstring) of a run of ``args.algo`` on ``args.game``: ``values`` are the
    algorithm's ``settings`` as given to ``config`` (the command line's, or the algorithm's defaults); what the
    config made of them is read back from its attributes where it has them."""
    from cardrl.games.registry import get_game

    spec = get_game(args.game)
    run = values_from_args(args, RunSettings)
    resolved = {f.name: getattr(config, f.name, values.get(f.name)) for f in fields(settings)}
    record = {"game": spec.name, "title": spec.title, "algo": args.algo, "agent_kind": agent_kind,
              "command": command_line(spec.name, args.algo, [(RunSettings, run), (settings, values)]),
              "args": _json_only({"game": spec.name, "algo": args.algo, **run, **values}),
              args.algo: _json_only(resolved),
              "env_config": _json_only(dict(config.env_config or {})),
              "rllib": _json_only(config.to_dict())}
    return files.write_config(out, record)
