"""A run's ``<out>/config.json`` (how the run was made; ``cardrl report`` shows it), written by the run loop of every
``cardrl train`` driver; the run directory's layout is :mod:`cardrl.run_dir`'s.

``config.json`` holds ``game``, ``title``, ``algo``, ``agent_kind`` (the agent-spec kind that loads the run's
checkpoint: ``cardrl eval --a KIND:PATH``), ``command`` (the ``cardrl train`` command line with every option that
differs from its default), ``spec`` (the run's :class:`~cardrl.algorithms.training.run_spec.RunSpec`: its ``run``
options and the algorithm's ``settings``, each with the value the algorithm was given), ``<algo>`` (the algorithm's
settings as its config resolved them), ``env_config``
and ``rllib`` (the JSON-representable entries of the RLlib config). No Ray or torch is imported here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cardrl import run_dir as files
from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["run_dir", "read_spec", "write_config"]


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _json_only(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if _jsonable(v)}


def run_dir(spec: RunSpec) -> Path:
    """The run directory: ``--out``, else ``runs/<algo>_<game>`` (each game and algorithm its own)."""
    return Path(spec.run.out or f"runs/{spec.algo}_{spec.game}").resolve()


def read_spec(out: Path) -> RunSpec | None:
    """The spec of the run in ``out`` (its ``config.json``: the spec, or the flat ``args`` of a run directory written
    before the spec existed); None when there is no config.json."""
    record = files.read_config(out)
    if not record:
        return None
    return RunSpec.from_dict(record)


def write_config(out: Path, spec: RunSpec, config, agent_kind: str) -> Path:
    """Write ``<out>/config.json`` (module docstring) of the run of ``spec``; what the algorithm's config made of
    its settings is read back from the config's attributes where it has them."""
    from cardrl.games.registry import get_game

    game = get_game(spec.game)
    resolved = {name: getattr(config, name, value) for name, value in spec.settings_values().items()}
    record = {"game": game.name, "title": game.title, "algo": spec.algo, "agent_kind": agent_kind,
              "command": spec.command(), "spec": spec.to_dict(),
              spec.algo: _json_only(resolved),
              "env_config": _json_only(dict(config.env_config or {})),
              "rllib": _json_only(config.to_dict())}
    return files.write_config(out, record)
