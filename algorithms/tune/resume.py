"""``cardrl tune --resume``: the record of what a sweep is (``<out>/sweep.json``: its space by content and every
option of its command line), the check that a ``--resume`` continues the same sweep, and Tune's saved trial
states."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cardrl.algorithms.tune.results import label
from cardrl.algorithms.tune.settings import Sweep
from cardrl.algorithms.tune.space import SweepSpace

__all__ = ["SWEEP_RECORD", "sweep_record", "can_resume", "check_resume", "trial_states", "trial_statuses"]

SWEEP_RECORD = "sweep.json"  # in --out: the space and options a sweep was started with, checked by --resume
# what --resume does not compare with the sweep's start: how this invocation runs, not what the sweep is (the space is
# compared by content)
_NOT_COMPARED = ("resume", "space", "out")


def _normal(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples as lists, paths as strings), so a record compares with a fresh one."""
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def sweep_record(sweep: Sweep, space: SweepSpace) -> dict[str, Any]:
    """What a sweep is: its space (by content, not by path) and every option of the command line."""
    return {"space": space.path, "command": sweep.command,
            "space_content": _normal({"fixed": space.fixed, "sweep": space.sweep, "num_samples": space.num_samples}),
            "options": _normal({k: v for k, v in sorted(sweep.options().items()) if k not in _NOT_COMPARED})}


def can_resume(experiment: Path) -> bool:
    """Tune can restore the sweep in ``experiment``: its ``tuner.pkl`` and a saved experiment state (a driver that
    died right after starting Tune leaves the one without the other)."""
    from ray import tune

    return tune.Tuner.can_restore(str(experiment)) and any(experiment.glob("experiment_state-*.json"))


def check_resume(out: Path, now: dict[str, Any]) -> dict[str, Any]:
    """The record of the sweep in ``out`` when ``now`` (this command's) continues it; ValueError naming what
    differs otherwise: Tune restores the scheduler, the search and the failure config as the sweep started them, so
    another value of any option would be ignored or would change trials half-way."""
    path = out / SWEEP_RECORD
    if not path.is_file():
        raise ValueError(f"--resume: {out / 'tune'} holds a sweep, but {path}, the record of the space and options "
                         f"it was started with, is missing, so this command can not be checked against it; start a "
                         f"new sweep in another --out")
    then = json.loads(path.read_text())
    if then["space_content"] != now["space_content"]:
        parts = [f"{k} {json.dumps(now['space_content'].get(k))} (was {json.dumps(then['space_content'].get(k))})"
                 for k in ("fixed", "sweep", "num_samples")
                 if now["space_content"].get(k) != then["space_content"].get(k)]
        raise ValueError(f"--resume: --space {now['space']} is not the space the sweep in {out} was started with "
                         f"({then['space']}): {'; '.join(parts)}; give that space, or start a new sweep in another "
                         f"--out")
    differ = [f"--{k.replace('_', '-')} {label(now['options'].get(k))} (was {label(then['options'].get(k))})"
              for k in sorted(set(now["options"]) | set(then["options"]))
              if now["options"].get(k) != then["options"].get(k)]
    if differ:
        raise ValueError(f"--resume continues the sweep in {out} with the options it was started with"
                         + (f" ({then['command']})" if then.get("command") else "")
                         + f"; these differ: {', '.join(differ)}; give those, or start a new sweep in another --out")
    return then


def trial_states(experiment: Path) -> dict[str, Any]:
    """Trial id -> Tune's record of the trial (its status and ``num_failures``), from the sweep's saved state."""
    from ray.tune import ExperimentAnalysis

    try:
        return {t.trial_id: t for t in ExperimentAnalysis(str(experiment)).trials}
    except Exception as err:  # the table and results are still worth writing without restarts and statuses
        print(f"could not read Tune's trial states in {experiment}: {err}", file=sys.stderr)
        return {}


def trial_statuses(experiment: Path) -> str:
    """``"2 trial(s): 1 to continue, 1 finished"``, from the sweep's saved state."""
    from collections import Counter

    counts = Counter("finished" if t.status == "TERMINATED" else "failed with no restart left"
                     if t.status == "ERROR" else "to continue" for t in trial_states(experiment).values())
    return f"{sum(counts.values())} trial(s): " + ", ".join(f"{n} {what}" for what, n in counts.items())
