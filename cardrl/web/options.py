"""The rule options a web page may set (docs/web.md, "Rule options"): every rule option of the game in the registry
(docs/rules.md) as a form field, and a request's options checked on the server before any game starts, with an
error that names the option and what is allowed. A GuanDan match's length is the play request's ``deals``
(``max_deals``); a compare request plays single deals of the game's duplicate protocol, so the options its protocol
fixes are not offered there."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["DEALS_OPTION", "rule_fields", "play_options", "compare_options"]

DEALS_OPTION = "max_deals"  # the play request's ``deals`` sets it; never a field of its own


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
    try:
        return json.loads(value)
    except ValueError:
        return {"true": True, "false": False, "none": None}.get(value.strip().lower(), value)


def _checked(spec: Any, options: Mapping[str, Any], changed: set[str]) -> dict[str, Any]:
    """The full options, built into an engine once so every value is checked; ValueError naming the option."""
    try:
        full = spec.full_options(options)
        spec.make_engine(**full)
    except TypeError as err:  # an engine's type check (a bool given as text)
        raise ValueError(f"{spec.title} rule options: {err}; allowed: true, false") from None
    except ValueError as err:
        raise ValueError(f"{spec.title} rule options: {err}") from None
    return {k: full[k] for k in changed}


def _given(spec: Any, rules: Mapping[str, Any], allowed: list[str]) -> dict[str, Any]:
    unknown = sorted(set(rules) - set(allowed))
    if unknown:
        raise ValueError(f"unknown {spec.title} rule option(s) {unknown} here; allowed: {allowed or 'none'} "
                         f"(docs/rules.md)")
    return {name: _coerce(spec, name, value) for name, value in rules.items()}


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
