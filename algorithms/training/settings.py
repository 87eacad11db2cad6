"""Options as dataclasses, and a run's options: the machinery every algorithm's settings use.

A settings dataclass is the single source of its options: each field's default, help, argparse type and choices
(:func:`option`); ``cardrl train`` builds its flags from it (:func:`add_arguments`) and the algorithm's config takes
its defaults from it, so the CLI, the Python API and the docs cannot drift apart. :class:`RunSettings` holds what a run
does around the algorithm (stopping, evaluation, checkpoints, resources), the same for every algorithm. No Ray or
torch is imported here, so ``cardrl --help`` is fast.
"""

from __future__ import annotations

import argparse
import numbers
import re
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable

from cardrl.args import float_in, non_negative_int, path_arg, positive_int
from cardrl.eval.agents import agent_spec_arg

__all__ = ["RunSettings", "option", "add_arguments", "field_default", "flag_of", "with_flags", "parse_duration",
           "option_problems", "OPTIONAL_RUN_OPTIONS"]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$", re.ASCII)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """``"90s"`` -> 90.0, ``"10m"`` -> 600.0, ``"1.5h"`` -> 5400.0, ``"2d"`` -> 172800.0 seconds; ``"0"`` is 0; any
    other bare number is refused (its unit would be a guess)."""
    if str(text).strip() in ("0", "0.0"):
        return 0.0
    match = _DURATION.match(str(text).strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration; use a number with a unit (s, m, h or d): e.g. "
                                         f"90s, 10m, 2h or 1d")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


# a parsed duration is seconds: what option_problems checks a Python value with (the type of a value, not of its text)
parse_duration.value_type = float_in(0.0)
parse_duration.value_type.allowed = "seconds, a finite number >= 0"


def option(default: Any, help: str, *, type: Callable | None = None, choices: tuple | None = None,
           cli: bool = True, section: str = "training", nargs: str | None = None, flag: str | None = None,
           required: bool = False) -> Any:
    """A dataclass field with its CLI metadata: help text, argparse type/choices/nargs, whether ``cardrl train`` has
    a flag for it, the DMCConfig method that takes it (``training`` or ``env_runners``), and whether the command
    line must give it (``required``)."""
    meta = {"help": help, "type": type, "choices": choices, "cli": cli, "section": section, "nargs": nargs,
            "flag": flag, "required": required}
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type_copy(default), metadata=meta)
    return field(default=default, metadata=meta)


def type_copy(value):
    return type(value)(value)


# run options that only some algorithms take (Driver.run_options): how `cardrl train` refuses them to another
# algorithm, after "--FLAG applies to --algo OWNERS"
OPTIONAL_RUN_OPTIONS = {"resume": " only; --algo {algo} starts from a checkpoint with --restore PATH",
                        "eval_every_frames": " only; --algo {algo} evaluates by the clock, --eval-every",
                        "eval_unpruned": " with --prune mcs only (ODMC); --algo {algo} does not prune",
                        "final_matches": " only; --algo {algo} plays no whole matches at the end",
                        "deterministic": " only; --algo {algo} has no deterministic mode",
                        "init_weights": " only; --algo {algo} starts from a checkpoint with --restore PATH"}


@dataclass
class RunSettings:
    """What ``cardrl train`` does around the algorithm: stopping, evaluation, checkpoints, resources."""

    stop_time: float | None = option(None, "wall time to train, e.g. 90s, 10m, 2h (default: 10m unless "
                                           "--stop-frames)", type=parse_duration)
    stop_frames: int | None = option(None, "frames (state-action samples) to train", type=positive_int)
    num_env_runners: int = option(1, "Ray actors playing games (each one CPU)", type=non_negative_int)
    num_learners: int = option(0, "learner actors (0: the learner runs in the driver)",
                              type=non_negative_int)
    gpu: bool = option(False, "put the learner(s) on a GPU")
    learner_threads: int = option(1, "torch threads of each learner (the driver's with --num-learners 0); on CPU "
                                     "each learner actor reserves as many cores. The env runners take a core each",
                                  type=positive_int)
    out: str | None = option(None, "run directory: checkpoints, progress.jsonl, TensorBoard (default: "
                                   "runs/<algo>_<game>)", type=path_arg)
    restore: str | None = option(None, "checkpoint directory to start from", type=path_arg)
    init_weights: str | None = option(None, "dmc: the Q-networks start from these exported weights, weights:DIR "
                                            "(cardrl export) or zoo:NAME, instead of random ones; the optimizer "
                                            "state, counters and schedules start fresh (a run carried to another "
                                            "machine, fine-tuning; docs/operations.md); not with --restore")
    resume: bool = option(False, "dmc, topk-ppo: continue the run in --out from its latest complete checkpoint "
                                 "(counters, schedules, elapsed time, progress.jsonl); starts fresh when there is "
                                 "none; not with --restore")
    eval_every: float = option(180.0, "evaluate against the baselines this often, e.g. 5m (0: never)",
                               type=parse_duration)
    eval_every_frames: int = option(0, "dmc, topk-ppo: also evaluate each time this many more frames are trained, "
                                       "e.g. 200000 (the record's eval_frames names the milestone; 0: never); with "
                                       "--eval-every 0, evaluations happen at the same frame counts in every run",
                                    type=non_negative_int)
    eval_deals: int = option(200, "deals per evaluation (each played once per seat arrangement)",
                            type=positive_int)
    eval_against: list = option(["random"], "baseline agent specs evaluated against (random, rule, mcs-greedy, "
                                            "...)", nargs="+", type=agent_spec_arg)
    eval_unpruned: bool = option(False, "dmc, with --prune mcs: also evaluate the greedy networks without pruning "
                                        "(every legal move), labelled beside the pruned score (the default: as "
                                        "trained), with how often they pick a move pruning drops")
    final_matches: int | None = option(None, "dmc, a game played in matches (guandan): whole matches against each "
                                             "baseline at the end of the run, each played twice with the teams "
                                             "swapped (default: one per ten --eval-deals; 0: none)",
                                       type=non_negative_int)
    checkpoint_every: float = option(300.0, "write a checkpoint this often, e.g. 10m", type=parse_duration)
    features: str | None = option(None, "feature encoder of the game (default: the game's first: douzero for "
                                        "doudizhu, whose 'unified' are Luo & Tan's; unified for big2; danzero for "
                                        "guandan, or danzero_keyed)")
    reward: str | None = option(None, "payoff the agents learn (default: the game's first: adp for doudizhu, cards "
                                      "for big2, danzero for guandan)")
    match_bonus: bool = option(False, "guandan: DanZero+'s match reward, +1 / -1 for the won / lost match (dmc: "
                                      "added to every deal's samples of the match; topk-ppo: to the match's last "
                                      "decision, as the authors' actors do)")
    seed: int = option(0, "seed of the env runners' deals and exploration, the networks' initial weights, the "
                          "evaluation deals and the baselines; the whole run only in dmc's deterministic mode",
                     type=non_negative_int)
    deterministic: bool = option(False, "dmc: debugging and exact reproduction: sampling and updates take turns in "
                                        "a fixed order (one sample request to every env runner with the current "
                                        "weights, all waited for and taken in the runners' order; the driver does "
                                        "not sample; one torch thread), so --seed fixes the whole run, its progress "
                                        "records (all but their timing fields) and its weights, however busy the "
                                        "machine. Slower: the env runners idle while the learner updates and the "
                                        "learner while they sample. It stops and evaluates by frames only: give "
                                        "--stop-frames and --eval-every 0 (--eval-every-frames N evaluates during "
                                        "the run)")


def flag_of(f) -> str:
    """The command-line flag of a settings field: ``--stop-time``, or its own (``q_model``: ``--model``)."""
    return "--" + (f.metadata.get("flag") or f.name).replace("_", "-")


def with_flags(message: str, settings: type) -> str:
    """A config error's message as a command-line user reads it: each ``name=value`` of a field of ``settings`` or
    :class:`RunSettings` that is a flag becomes ``--flag=value`` (``frames_per_update=0``:
    ``--frames-per-update=0``), and a name RLlib's own checks quote in backticks becomes the flag."""
    for f in (*fields(settings), *fields(RunSettings)):
        if f.metadata.get("cli", True):
            message = re.sub(rf"(?<![\w-]){re.escape(f.name)}=", flag_of(f) + "=", message)
            message = message.replace(f"`{f.name}`", f"`{flag_of(f)}`")  # RLlib's own checks quote the name
    return message


def option_problems(values: Any, settings: type) -> list[str]:
    """What breaks the bounds the fields of the settings dataclass ``settings`` declare, in ``values`` (an instance of
    it, or a config holding its fields as attributes): one message per option, ``name=value`` with what is allowed.

    The checks of the command line, for values given in Python: a field with ``choices`` takes one of them; one with
    an argparse ``type`` a value that the type takes as text (``type(str(value))``; its ``value_type`` where the type
    parses text into something else, a duration into seconds), and a number where the type gives one; a ``nargs``
    field a non-empty list or tuple of such values; a bool field a bool. None is allowed where the default is None or
    the annotation says ``| None``."""
    return [problem for f in fields(settings) if (problem := _option_problem(f, getattr(values, f.name))) is not None]


def _option_problem(f, value: Any) -> str | None:
    meta, default, annotation = f.metadata, field_default(f), str(f.type)
    may_be_none = default is None or "None" in annotation
    if value is None:
        return None if may_be_none else f"{f.name}=None is not allowed; give {_allowed(f)}"
    if isinstance(default, bool) or annotation.replace(" | None", "") == "bool":
        return None if isinstance(value, bool) else f"{f.name}={value!r} must be True or False"
    if meta.get("choices") is not None:
        return None if value in meta["choices"] else f"{f.name}={value!r} is unknown; allowed: {_allowed(f)}"
    kind = meta.get("type")
    if kind is None:
        return None
    if meta.get("nargs") is not None:
        if isinstance(value, (list, tuple)) and value and all(_refused(kind, v) is None for v in value):
            return None
        return f"{f.name}={value!r} must be a non-empty list, each {_allowed(f)}"
    refused = _refused(kind, value)
    return None if refused is None else f"{f.name}={value!r} must be {refused}"


def _refused(kind: Callable, value: Any) -> str | None:
    """What the argparse type ``kind`` allows, when it refuses ``value`` (None: taken)."""
    kind = getattr(kind, "value_type", kind)
    try:
        parsed = kind(str(value))  # and a number, not its text ("0.1"), where the type gives one; never a bool
        taken = not isinstance(value, bool) and (isinstance(value, numbers.Real)
                                                 or not isinstance(parsed, (int, float)))
    except (argparse.ArgumentTypeError, ValueError):
        taken = False
    return None if taken else _words(kind)


def _allowed(f) -> str:
    """What a field allows, in words: its choices (None first where allowed), else its type's."""
    none = ["None"] if field_default(f) is None or "None" in str(f.type) else []
    if f.metadata.get("choices") is not None:
        return ", ".join(none + [repr(c) for c in f.metadata["choices"]])
    return _words(getattr(f.metadata.get("type"), "value_type", f.metadata.get("type")))


def _words(kind: Callable | None) -> str:
    """What an argparse type takes, in words: its ``allowed`` (cardrl.args' types say it), or int's and float's."""
    return getattr(kind, "allowed", None) or {int: "an int", float: "a number"}.get(kind, "a value its flag takes")


def field_default(f) -> Any:
    """The default of a settings dataclass field (its ``default``, else a fresh ``default_factory()``)."""
    if f.default is not MISSING:
        return f.default
    return f.default_factory()  # type: ignore[misc]


def add_arguments(parser: argparse.ArgumentParser, settings: type, *, skip: tuple[str, ...] = ()) -> None:
    """One flag per CLI field of a settings dataclass, with its help and default shown."""
    for f in fields(settings):
        meta = f.metadata
        if not meta.get("cli", True) or f.name in skip:
            continue
        default = field_default(f)
        shown = "" if default is None or meta.get("required") else f" (default: {_shown(default)})"
        kwargs: dict[str, Any] = {"dest": f.name, "default": default, "help": meta["help"] + shown}
        if meta.get("required"):
            kwargs["required"] = True
        if isinstance(default, bool):
            kwargs["action"] = "store_true"
            kwargs["help"] = meta["help"]
        else:
            for key in ("type", "choices", "nargs"):
                if meta.get(key) is not None:
                    kwargs[key] = meta[key]
            if meta.get("nargs") is None and meta.get("type") is None and meta.get("choices") is None:
                kwargs["type"] = str
        parser.add_argument(flag_of(f), **kwargs)


def _shown(value: Any) -> str:
    if isinstance(value, float) and value >= 60 and value % 60 == 0:
        return f"{value:g}s ({value / 60:g}m)"
    if isinstance(value, list):
        return " ".join(map(str, value))
    return str(value)
