"""One run, typed: :class:`RunSpec` is what every entry point builds and the run loop takes.

A run is a game, an algorithm, the algorithm's settings (its settings dataclass: DMC's
:class:`~cardrl.algorithms.dmc.settings.DMCSettings`, ...) and what the run does around the algorithm
(:class:`~cardrl.algorithms.training.settings.RunSettings`: stopping, evaluation, checkpoints, resources, the env's
reward and features). ``cardrl train`` builds one from its flags, ``--preset`` from the presets table, a ``cardrl
tune`` trial from its fixed and sampled values, ``cardrl bench learning`` from a variant, and a Python user
directly::

    from cardrl.algorithms.training import RunSpec, run_training

    spec = RunSpec.build("doudizhu", algo="dmc", stop_frames=200_000, lr=3e-4, out="runs/mine")
    run_training(spec)

A run directory's ``config.json`` holds the spec (:meth:`RunSpec.to_dict`); ``--resume`` rebuilds it from there
(:meth:`RunSpec.from_dict` also reads the flat ``args`` of run directories written before the spec existed).
No Ray or torch is imported here.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from cardrl.args import SignedValuesParser
from cardrl.algorithms.training.settings import (OPTIONAL_RUN_OPTIONS, RunSettings, add_arguments, field_default,
                                                 flag_of, option_problems, parse_duration)

__all__ = ["RunSpec", "add_train_arguments", "algo_of", "refused_flags", "settings_class", "SETTINGS", "RUN_OPTIONS",
           "DEFAULT_ALGO"]

DEFAULT_ALGO = "dmc"
ALGO_HELP = ("the algorithm: dmc, topk-ppo (DanZero+'s PPO over a frozen DMC's k best moves) or ppo (RLlib's PPO with "
             "an action-masking module) (default: dmc)")
# each algorithm's options, beside its driver in cardrl.algorithms.training.registry: its settings dataclass, and the
# optional run options (settings.OPTIONAL_RUN_OPTIONS) it takes. Data only: a spec is checked without the drivers.
SETTINGS = {"dmc": "cardrl.algorithms.dmc.settings:DMCSettings",
            "topk-ppo": "cardrl.algorithms.topk_ppo.settings:TopKPPOSettings",
            "ppo": "cardrl.algorithms.masked_ppo.settings:PPOSettings"}
RUN_OPTIONS = {"dmc": frozenset({"resume", "eval_every_frames", "eval_unpruned", "final_matches", "deterministic",
                                  "init_weights"}),
               "topk-ppo": frozenset({"resume", "eval_every_frames"}),
               "ppo": frozenset()}


def settings_class(algo: str) -> type:
    """The settings dataclass of ``--algo algo``; ValueError for an unknown name, with the algorithms."""
    from cardrl.games.registry import resolve

    if algo not in SETTINGS:
        raise ValueError(f"unknown algorithm {algo!r}; the algorithms: {', '.join(SETTINGS)}")
    return resolve(SETTINGS[algo])


def _as_default_type(default: Any, value: Any) -> Any:
    """``value`` in the container type of the option's default: a JSON list (or a nargs list) becomes the tuple an
    option defaulting to a tuple holds, nested pairs too (``coach_beta``); anything else unchanged."""
    if isinstance(default, tuple) and isinstance(value, list):
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    if default is None and isinstance(value, list):  # an option without a default (hidden_sizes): a tuple
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return value


def _settings_of(cls: type, values: Mapping[str, Any]) -> Any:
    """An instance of the settings dataclass ``cls`` from the values of its fields (others ignored)."""
    names = {f.name for f in fields(cls)}
    return cls(**_typed(cls, {k: v for k, v in values.items() if k in names}))


@dataclass(frozen=True)
class RunSpec:
    """A training run: ``game``, ``algo`` (``cardrl train --algo``), ``run`` (the run's options) and ``settings``
    (the algorithm's settings dataclass; its defaults when not given). Refuses an unknown game or algorithm, settings
    of another algorithm's class, an option outside the bounds its field declares (its type and choices: what the
    command line checks) and a run option the algorithm does not take (each with what is allowed)."""

    game: str
    algo: str = DEFAULT_ALGO
    run: RunSettings = field(default_factory=RunSettings)
    settings: Any = None

    def __post_init__(self) -> None:
        from cardrl.games.registry import get_game

        object.__setattr__(self, "game", get_game(self.game).name)
        own = settings_class(self.algo)
        if self.settings is None:
            object.__setattr__(self, "settings", own())
        elif type(self.settings) is not own:
            raise ValueError(f"--algo {self.algo} takes {own.__name__}, not {type(self.settings).__name__}")
        problems = option_problems(self.run, RunSettings) + option_problems(self.settings, own)
        if problems:
            raise ValueError(f"invalid options for --algo {self.algo}: " + "; ".join(problems))
        for name in sorted(set(_RUN_FIELDS) & {f.name for f in fields(own)}):
            if getattr(self.run, name) != getattr(self.settings, name):
                raise ValueError(f"{name} is both a run option and one of {own.__name__}'s, and they "
                                 f"differ ({getattr(self.run, name)!r} and {getattr(self.settings, name)!r}): give it "
                                 f"once, e.g. RunSpec.build(..., {name}=...)")
        for name in sorted(set(OPTIONAL_RUN_OPTIONS) - RUN_OPTIONS[self.algo]):
            f = _RUN_FIELDS[name]
            if getattr(self.run, name) != field_default(f):
                raise ValueError(f"{flag_of(f)} applies to --algo "
                                 + "/".join(_owners_of_run_option(name))
                                 + OPTIONAL_RUN_OPTIONS[name].format(algo=self.algo))

    @classmethod
    def build(cls, game: str, algo: str = DEFAULT_ALGO, **options: Any) -> "RunSpec":
        """A spec from option values by field name, run options and the algorithm's alike (``stop_frames=...,
        lr=...``); ValueError naming an option neither takes, with the options allowed."""
        return cls(game, algo).replace(**options)

    @classmethod
    def from_values(cls, game: str, algo: str, values: Mapping[str, Any]) -> "RunSpec":
        """A spec from a mapping that may hold more than options (a parsed command line's): the fields of the run
        settings and of ``algo``'s settings are taken, everything else is left."""
        return cls(game, algo, _settings_of(RunSettings, values), _settings_of(settings_class(algo), values))

    def replace(self, **options: Any) -> "RunSpec":
        """This spec with the named options changed (run options and the algorithm's, by field name)."""
        run_names, own_names = set(_RUN_FIELDS), {f.name for f in fields(self.settings)}
        unknown = sorted(set(options) - run_names - own_names)
        if unknown:
            raise ValueError(f"option(s) {', '.join(unknown)} do not apply to --algo {self.algo}; its options: "
                             f"{', '.join(sorted(own_names))}; the run's: {', '.join(_RUN_FIELDS)}")
        run = {k: v for k, v in options.items() if k in run_names}
        own = {k: v for k, v in options.items() if k in own_names}  # a run option the algorithm reads too: both
        return RunSpec(self.game, self.algo,
                       dataclasses.replace(self.run, **_typed(RunSettings, run)),
                       dataclasses.replace(self.settings, **_typed(type(self.settings), own)))

    def values(self) -> dict[str, Any]:
        """Every option by field name: the run's and the algorithm's (one flat mapping, as a command line has)."""
        return {**self.settings_values(), **self.run_values()}

    def run_values(self) -> dict[str, Any]:
        return {f.name: getattr(self.run, f.name) for f in fields(RunSettings)}

    def settings_values(self) -> dict[str, Any]:
        return {f.name: getattr(self.settings, f.name) for f in fields(self.settings)}

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON values (``config.json``'s ``spec``): ``game``, ``algo``, ``run`` and ``settings``."""
        return {"game": self.game, "algo": self.algo, "run": _jsonable(self.run_values()),
                "settings": _jsonable(self.settings_values())}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> "RunSpec":
        """The spec of :meth:`to_dict`; or of a run directory's ``config.json`` (its ``spec``, or for a run written
        before the spec existed its flat ``args``)."""
        if "spec" in record:
            record = record["spec"]
        if "run" in record and "settings" in record:
            return cls(record["game"], record.get("algo", DEFAULT_ALGO), _settings_of(RunSettings, record["run"]),
                       _settings_of(settings_class(record.get("algo", DEFAULT_ALGO)), record["settings"]))
        flat = record.get("args", record)
        if "game" not in flat:
            raise ValueError("not a run spec: no game (give a config.json's spec, or its args)")
        return cls.from_values(flat["game"], flat.get("algo", DEFAULT_ALGO), flat)

    @classmethod
    def from_flags(cls, game: str, flags: Iterable[str]) -> "RunSpec":
        """The spec of ``cardrl train GAME FLAGS`` (a preset's or a benchmark variant's flags, ``--algo`` among
        them or the default); ValueError with the parser's reason for a flag it refuses."""
        words = list(flags)
        algo = algo_of(words)
        parser = _RaisingParser(prog=f"cardrl train {game}", add_help=False)
        add_train_arguments(parser, algo, with_game=False)
        try:
            values, extras = parser.parse_known_args(words)
        except argparse.ArgumentError as err:
            raise ValueError(str(err)) from None
        if extras:
            raise ValueError(refused_flags(algo, extras))
        return cls.from_values(game, algo, vars(values))

    @classmethod
    def from_preset(cls, name: str, game: str | None = None, *, flags: Iterable[str] = ()) -> "RunSpec":
        """The spec of ``cardrl train [GAME] --preset NAME [FLAGS]`` (docs/presets.md; ``game`` for a preset of any
        game; ``flags`` after the preset win); ValueError (a PresetError) naming what does not fit."""
        from cardrl.presets import expand

        argv = expand(["train", *([game] if game else []), "--preset", name, *flags])
        if argv[1] is None:
            raise ValueError(f"preset {name} trains any game: give the game")
        return cls.from_flags(argv[1], argv[2:])

    def flags(self) -> list[str]:
        """The ``cardrl train`` flags of this spec: ``--algo`` and every option that differs from its default
        (durations with their unit); :meth:`from_flags` of them gives this spec back, but for the options that have
        no flag (``coach_beta``, ``target_scale``: Python and presets only), which only :meth:`to_dict` carries."""
        words = ["--algo", self.algo]
        for settings, values in ((RunSettings, self.run_values()), (type(self.settings), self.settings_values())):
            for f in fields(settings):
                if not f.metadata.get("cli", True):
                    continue
                value, default = values[f.name], field_default(f)
                if _same(value, default):
                    continue
                flag = flag_of(f)
                if isinstance(value, bool):
                    words += [flag] if value else []
                elif isinstance(value, (list, tuple)):
                    words += [flag, *map(str, value)]
                elif value is not None:
                    words += [flag, f"{value:g}s" if f.metadata.get("type") is parse_duration else str(value)]
        return words

    def command(self) -> str:
        """The ``cardrl train`` command line of this spec."""
        return shlex.join(["cardrl", "train", self.game, *self.flags()])


_RUN_FIELDS = {f.name: f for f in fields(RunSettings)}


def _same(value: Any, default: Any) -> bool:
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    return value == default


def _typed(cls: type, values: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name: f for f in fields(cls)}
    return {k: _as_default_type(field_default(names[k]), v) for k, v in values.items()}


def _jsonable(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


def _owners_of_run_option(name: str) -> list[str]:
    return [a for a in RUN_OPTIONS if name in RUN_OPTIONS[a]]


class _RaisingParser(SignedValuesParser):
    """A parser whose errors are ValueErrors (a preset's or a variant's flags are not a user's command line)."""

    def error(self, message: str):
        raise ValueError(message)


def algo_of(words: list[str]) -> str:
    """The ``--algo`` among ``words`` (pre-parsed: the parser of the rest depends on it), else the default;
    ValueError for an unknown name, with the algorithms."""
    pre = _RaisingParser(add_help=False)
    pre.add_argument("--algo", default=DEFAULT_ALGO)
    algo = pre.parse_known_args(words)[0].algo
    settings_class(algo)
    return algo


def add_train_arguments(parser: argparse.ArgumentParser, algo: str, *, with_game: bool = True,
                        games: tuple[str, ...] = ()) -> None:
    """``cardrl train``'s arguments for ``--algo algo``: the game (``with_game``), ``--algo``, the run options the
    algorithm takes and the algorithm's own."""
    own = settings_class(algo)
    if with_game:
        parser.add_argument("game", choices=games or None, help="the game to train on")
    parser.add_argument("--algo", default=DEFAULT_ALGO, choices=list(SETTINGS), help=ALGO_HELP)
    add_arguments(parser, RunSettings, skip=tuple(set(OPTIONAL_RUN_OPTIONS) - RUN_OPTIONS[algo]))
    add_arguments(parser, own)


def refused_flags(algo: str, extras: list[str]) -> str:
    """Why ``extras`` (words ``cardrl train --algo algo`` does not take) are refused: the flags of other algorithms
    named with their owners, the run options ``algo`` does not take with what it takes instead, else the words."""
    given = {word.partition("=")[0] for word in extras if word.startswith("--")}
    run_flags = {flag_of(f): f.name for f in fields(RunSettings)}
    for flag in sorted(given & set(run_flags)):
        name = run_flags[flag]
        return (f"{flag} applies to --algo {'/'.join(_owners_of_run_option(name))}"
                + OPTIONAL_RUN_OPTIONS[name].format(algo=algo))
    owners = {a: {flag_of(f) for f in fields(settings_class(a)) if f.metadata.get("cli", True)}
              for a in SETTINGS if a != algo}
    foreign = sorted({flag for flag in given for o in owners.values() if flag in o})
    if foreign:
        return ("option(s) " + ", ".join(f"{flag} (" + "/".join(a for a, o in owners.items() if flag in o) + ")"
                                         for flag in foreign) + f" do not apply to --algo {algo}")
    return f"unrecognized arguments: {' '.join(extras)}"
