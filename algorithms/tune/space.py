"""A ``cardrl tune`` space file: DMC options held fixed and swept, each with its domain, checked before any trial runs.

A space file (JSON) names DMC options (the fields of :class:`~cardrl.algorithms.dmc.settings.DMCSettings`, by field
name or by their ``cardrl train`` flag) and the values to try::

    {"description": "ODMC's slack (Luo & Tan 2024, eq. 2: N/n + d, plus prune_extra)",
     "fixed": {"prune": "mcs"},
     "sweep": {"prune_extra": {"grid": [0, 1, 2]},
               "lr": {"loguniform": [1e-5, 1e-3]}},
     "num_samples": 1}

``fixed`` holds options at one value in every trial; ``sweep`` gives each swept option one domain: ``grid`` (every
value, crossed with the other grids), ``choice`` (one value drawn per sample), ``uniform`` / ``loguniform``
([low, high] floats) or ``randint`` ([low, high] ints, both included). ``num_samples`` repeats the grid (Tune's
meaning: each repeat draws the sampled options anew). An unknown option, an unknown domain, a value of the wrong
type and a combination that :meth:`DMCConfig.validate` refuses (e.g. ``prune_extra`` without ``prune``) are refused
before any trial runs, naming what is allowed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardrl.algorithms.training.registry import driver
from cardrl.algorithms.training.run_spec import RunSpec, settings_class
from cardrl.algorithms.training.settings import RunSettings, field_default
from cardrl.algorithms.tune.settings import ALGO

__all__ = ["SpaceError", "SweepSpace", "load_space", "check_space", "DOMAINS"]

DOMAINS = ("grid", "choice", "uniform", "loguniform", "randint")
_SPACE_KEYS = ("description", "fixed", "sweep", "num_samples")
_MAX_CHECKED_COMBINATIONS = 64  # beyond this many, each swept option's values are checked one at a time


class SpaceError(ValueError):
    """A space file that cannot be swept; the message names the file, the entry and what is allowed."""


@dataclass
class SweepSpace:
    """A parsed space file: options held fixed, swept options with their domain, and Tune's ``num_samples``."""

    path: str
    fixed: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, tuple[str, list]] = field(default_factory=dict)  # option -> (domain, values or [low, high])
    num_samples: int = 1
    description: str = ""

    def representatives(self, option: str) -> list:
        """The values of a swept option that the checks try: every grid/choice value, or both bounds."""
        return list(self.sweep[option][1])

    def param_space(self) -> dict[str, Any]:
        """Tune's ``param_space``: one search domain per swept option."""
        from ray import tune

        out = {}
        for name, (domain, values) in self.sweep.items():
            if domain == "grid":
                out[name] = tune.grid_search(list(values))
            elif domain == "choice":
                out[name] = tune.choice(list(values))
            elif domain == "uniform":
                out[name] = tune.uniform(*values)
            elif domain == "loguniform":
                out[name] = tune.loguniform(*values)
            else:  # randint: both bounds included (Tune's upper bound is exclusive)
                out[name] = tune.randint(values[0], values[1] + 1)
        return out


def _options() -> dict[str, Any]:
    """Every name a space file may use for a DMC option (field name, or its ``cardrl train`` flag without dashes)
    -> its dataclass field."""
    out = {}
    for f in fields(settings_class(ALGO)):
        out[f.name] = f
        flag = f.metadata.get("flag")
        if flag:
            out[flag.replace("-", "_")] = f
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_kind(f) -> type | None:
    """int or float for an option that holds one (by its annotation: ``int``, ``float | None``), else None."""
    return {"int": int, "float": float}.get(str(f.type).replace(" | None", ""))


def _coerce(f, value: Any, where: str) -> Any:
    """``value`` as DMC option ``f`` takes it (its CLI type and choices), or a SpaceError naming the expected form."""
    meta = f.metadata
    kind = meta.get("type")
    default = field_default(f)
    if value is None:
        if default is None:
            return None
        raise SpaceError(f"{where}: {f.name} can not be null (its default is {default!r})")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SpaceError(f"{where}: {f.name} is true or false, got {value!r}")
        return value
    if meta.get("nargs"):  # hidden_sizes: a list of ints
        if not isinstance(value, list) or not value or not all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in value):
            raise SpaceError(f"{where}: {f.name} is a list of ints (e.g. [512, 512]) or null, got {value!r}")
        return tuple(value)
    if _number_kind(f) is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise SpaceError(f"{where}: {f.name} is an int, got {value!r}")
    if _number_kind(f) is float and not _number(value):
        raise SpaceError(f"{where}: {f.name} is a number, got {value!r}")
    if kind is not None:  # the option's own CLI parser, with its bounds (prune_slack: 'paper' or a number)
        if isinstance(value, bool):
            raise SpaceError(f"{where}: {f.name} does not take {value!r}")
        try:
            return kind(str(value))
        except (argparse.ArgumentTypeError, ValueError) as err:
            raise SpaceError(f"{where}: {err}") from None
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise SpaceError(f"{where}: {f.name}={value!r} is not one of {list(meta['choices'])} (or null)")
        return value
    if f.name == "coach_beta":  # ((learner step, beta), ...)
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 and all(map(_number, p))
                                                  for p in value):
            raise SpaceError(f"{where}: coach_beta is a list of [learner step, beta] pairs, e.g. "
                             f"[[0, 0.0], [20000, 0.1]], got {value!r}")
        return tuple((int(p[0]), float(p[1])) for p in value)
    if f.name == "target_scale":
        if not isinstance(value, dict) or not all(map(_number, value.values())):
            raise SpaceError(f"{where}: target_scale is an object of agent: factor, got {value!r}")
        return dict(value)
    if not isinstance(value, str):
        raise SpaceError(f"{where}: {f.name} is a string, got {value!r}")
    return value


def _domain(name: str, spec: Any, f, where: str) -> tuple[str, list]:
    """One swept option's ``{"grid": [...]}`` (or choice, uniform, loguniform, randint), checked."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SpaceError(f"{where}: give one domain as an object, e.g. {{\"grid\": [1, 2]}}; domains: "
                         f"{', '.join(DOMAINS)}; got {spec!r}")
    (domain, values), = spec.items()
    if domain not in DOMAINS:
        raise SpaceError(f"{where}: unknown domain {domain!r}; domains: {', '.join(DOMAINS)}")
    if not isinstance(values, list) or not values:
        raise SpaceError(f"{where}.{domain}: give a non-empty list, got {values!r}")
    if domain in ("grid", "choice"):
        return domain, [_coerce(f, v, f"{where}.{domain}") for v in values]
    if len(values) != 2:
        raise SpaceError(f"{where}.{domain}: give [low, high], got {values!r}")
    kind = _number_kind(f)
    if domain == "randint":
        if kind is not int:
            raise SpaceError(f"{where}: randint needs an int option; {name} is not one (use uniform or grid)")
    elif kind is not float:
        raise SpaceError(f"{where}: {domain} needs a number option; {name} is not one (use grid or choice)")
    low, high = (_coerce(f, v, f"{where}.{domain}") for v in values)
    if not low < high:
        raise SpaceError(f"{where}.{domain}: low {low!r} must be below high {high!r}")
    if domain == "loguniform" and low <= 0:
        raise SpaceError(f"{where}.loguniform: low {low!r} must be > 0")
    return domain, [low, high]


def load_space(path: str | Path) -> SweepSpace:
    """Parse a space file (module docstring); SpaceError naming the entry and what is allowed. The values are
    checked against the options' types here; :func:`check_space` checks them against a game with DMCConfig."""
    path = Path(path)
    if not path.is_file():
        what = "is a directory; give a JSON space file (examples in cardrl/spaces/)" if path.is_dir() \
            else "does not exist"
        raise FileNotFoundError(f"space file {path} {what}")
    try:
        raw = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise SpaceError(f"space file {path} is not JSON: {err}") from None
    if not isinstance(raw, dict):
        raise SpaceError(f"space file {path}: give an object with keys {', '.join(_SPACE_KEYS)}")
    unknown = sorted(set(raw) - set(_SPACE_KEYS))
    if unknown:
        raise SpaceError(f"space file {path}: unknown key(s) {unknown}; allowed: {', '.join(_SPACE_KEYS)}")
    options = _options()
    run_options = {f.name for f in fields(RunSettings)}

    def option(name: str, where: str):
        key = str(name).replace("-", "_")
        if key in options:
            return options[key]
        if key in run_options:
            raise SpaceError(f"{where}: {name} is a run option, the same for every trial: give it on the command "
                             f"line (--{key.replace('_', '-')})")
        allowed = ", ".join(sorted(f.name for f in fields(settings_class(ALGO))))
        raise SpaceError(f"{where}: unknown DMC option {name!r}; options: {allowed}")

    space = SweepSpace(str(path), description=str(raw.get("description", "")))
    fixed = raw.get("fixed", {})
    if not isinstance(fixed, dict):
        raise SpaceError(f"space file {path}: fixed is an object of option: value, got {fixed!r}")
    for name, value in fixed.items():
        f = option(name, f"space file {path}: fixed.{name}")
        space.fixed[f.name] = _coerce(f, value, f"space file {path}: fixed.{name}")
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or not sweep:
        raise SpaceError(f"space file {path}: sweep must name at least one option with its domain, e.g. "
                         f"{{\"lr\": {{\"grid\": [1e-4, 3e-4]}}}}")
    for name, spec in sweep.items():
        where = f"space file {path}: sweep.{name}"
        f = option(name, where)
        if f.name in space.fixed or f.name in space.sweep:
            raise SpaceError(f"{where}: {f.name} is given twice (fixed and swept, or under two names)")
        space.sweep[f.name] = _domain(f.name, spec, f, where)
    samples = raw.get("num_samples", 1)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise SpaceError(f"space file {path}: num_samples must be an int >= 1, got {samples!r}")
    space.num_samples = samples
    return space


def check_space(space: SweepSpace, base: RunSpec) -> int:
    """Build and validate the DMC config of the sweep's combinations over ``base`` (the trials' common spec): every
    combination of the swept options' representative values when there are at most 64, else each option's values in
    turn with the others at their first; SpaceError with DMCConfig.validate()'s reasons. Returns the configs
    checked."""
    names = list(space.sweep)
    reps = [space.representatives(n) for n in names]
    if math.prod(len(r) for r in reps) <= _MAX_CHECKED_COMBINATIONS:
        combos = [dict(zip(names, c)) for c in itertools.product(*reps)]
    else:
        first = {n: r[0] for n, r in zip(names, reps)}
        combos = [{**first, n: v} for n, r in zip(names, reps) for v in r]
    for combo in combos:
        try:
            trial = base.replace(**{**space.fixed, **combo})
            driver(trial.algo).build_config(trial, lambda _: None).validate()
        except ValueError as err:
            shown = ", ".join(f"{k}={v!r}" for k, v in {**space.fixed, **combo}.items())
            raise SpaceError(f"space file {space.path} does not apply to {base.game} ({shown}): {err}") from None
    return len(combos)
