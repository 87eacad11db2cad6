"""The rule options a web page may set (docs/web.md, "Rule options"): every rule option of the game in the registry
(docs/rules.md) as a form field, and a request's options checked on the server before any game starts, with an
error that names the option and what is allowed. A GuanDan match's length is the play request's ``deals``
(``max_deals``); a compare request plays single deals of the game's duplicate protocol, so the options its protocol
fixes are not offered there."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from cardrl.web.guard import JsonRefused, strict_json

__all__ = ["DEALS_OPTION", "rule_fields", "play_options", "compare_options"]

DEALS_OPTION = "max_deals"  # the play request's ``deals`` sets it; never a field of its own
MAX_OPTION_CHARS = 1000  # a rule option typed as text (JSON of a mapping such as Big2's penalty_multipliers)
MAX_OPTION_NUMBER = 1e6


def _kind(default: Any) -> str:
    return "bool" if isinstance(default, bool) else "text"


def _text(default: Any) -> str:
    return "" if default is None else default if isinstance(default, str) else json.dumps(default)


def rule_fields(spec: Any) -> list[dict[str, Any]]:
    """The form fields of ``spec``'s rule options: name, ``kind`` (``bool``: a checkbox; ``text``: typed, JSON for
    numbers and mappings, empty for none), the default (as the field shows it), and whether Compare offers it."""
    from cardrl.eval.protocols import protocol_for

    fixed = set(protocol_for(spec.name).required) - {spec.protocol.bidding_option}
    return [{"name": name, "kind": _kind(default), "default": default if isinstance(default, bool) else _text(default),
             "compare": name not in fixed}
            for name, default in spec.rule_options.items() if name != DEALS_OPTION]


def _coerce(spec: Any, name: str, value: Any) -> Any:
    """A field's value as the engine takes it: text of an option whose default is not text is read as JSON (``3``,
    ``null``, ``{"10": 2}``); empty text is none."""
    default = spec.rule_options[name]
    if not isinstance(value, str) or isinstance(default, str):
        return value
    if not value.strip():
        return None
    if len(value) > MAX_OPTION_CHARS:
        raise ValueError(f"{spec.title} rule option {name}: {len(value)} characters; at most {MAX_OPTION_CHARS}")
    try:
        return strict_json(value)
    except JsonRefused as err:
        raise ValueError(f"{spec.title} rule option {name}: {err}") from None
    except ValueError:
        return {"true": True, "false": False, "none": None}.get(value.strip().lower(), value)


def _numbers(value: Any):
    """Every number in ``value`` (a rule option's value: a number, text, or a mapping or list of them)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(key)
            yield from _numbers(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def _bounded(spec: Any, name: str, value: Any) -> Any:
    """``value`` when each of its numbers is finite and at most :data:`MAX_OPTION_NUMBER` in size (a payoff
    multiplier of 1e300 would overflow the payoffs); ValueError otherwise."""
    for number in _numbers(value):
        if not math.isfinite(number) or abs(number) > MAX_OPTION_NUMBER:
            raise ValueError(f"{spec.title} rule option {name}: {number!r} is out of range; numbers of rule options "
                             f"are finite and at most {MAX_OPTION_NUMBER:g} in size")
    return value


def _checked(spec: Any, options: Mapping[str, Any], changed: set[str]) -> dict[str, Any]:
    """The full options, built into an engine once so every value is checked; ValueError naming the option."""
    try:
        full = spec.full_options(options)
        spec.make_engine(**full)
    except TypeError as err:  # an engine's type check (a bool given as text)
        raise ValueError(f"{spec.title} rule options: {err}; allowed: true, false") from None
    except Exception as err:  # any other failure of the engine on a value it was given is the value's fault too
        raise ValueError(f"{spec.title} rule options: {err}") from None
    return {k: full[k] for k in changed}


def _given(spec: Any, rules: Mapping[str, Any], allowed: list[str]) -> dict[str, Any]:
    unknown = sorted(set(rules) - set(allowed))
    if unknown:
        raise ValueError(f"unknown {spec.title} rule option(s) {unknown} here; allowed: {allowed or 'none'} "
                         f"(docs/rules.md)")
    return {name: _bounded(spec, name, _coerce(spec, name, value)) for name, value in rules.items()}


def play_options(spec: Any, rules: Mapping[str, Any], deals: int) -> dict[str, Any]:
    """The options a play session's engine gets beyond the defaults: ``rules`` checked, and ``deals`` as the match
    length of a game played as a match (``max_deals``; 1 for a game of one deal)."""
    options = _given(spec, rules, [f["name"] for f in rule_fields(spec)])
    if DEALS_OPTION in spec.rule_options:
        options[DEALS_OPTION] = deals
    elif deals != 1:
        raise ValueError(f"deals={deals}: {spec.title} plays one deal")
    return _checked(spec, options, set(options))


def compare_options(spec: Any, rules: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The protocol (the whole game's when the options bid) and the full options of a compared deal."""
    from cardrl.eval.protocols import protocol_of_options

    options = _given(spec, rules, [f["name"] for f in rule_fields(spec) if f["compare"]])
    _checked(spec, options, set())
    protocol = protocol_of_options(spec.name, options)
    return protocol, protocol.normalise_options(options)
