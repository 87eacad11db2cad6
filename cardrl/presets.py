"""Presets: named ``cardrl train`` / ``cardrl tune`` command lines, one per paper row, read from the presets table
(:mod:`cardrl.preset_table`; docs/presets.md).

``cardrl train --preset odmc_doudizhu --stop-time 1h`` is ``cardrl train doudizhu --algo dmc --prune mcs --out
runs/odmc_doudizhu --stop-time 1h``: :func:`expand_preset` replaces ``--preset NAME`` where it stands with the
preset's flags and puts its game first, before the command line is parsed, so a flag given after ``--preset`` wins
(argparse keeps the last value) and one given before it loses. A preset without a game (the learning benchmark's
variants, e.g. ``odmc``) takes the game from the command line: ``cardrl train big2 --preset odmc``.
``cardrl train --list-presets`` prints the table. Importing this module imports no Ray, torch or algorithm.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cardrl.preset_table import PRESETS, Preset

__all__ = ["PresetError", "presets", "get_preset", "variants", "expand", "expand_preset", "format_presets",
           "presets_markdown", "space_path", "START_SHARE"]

# A benchmark variant that continues another variant's run (Preset.starts_from) takes over at this share of the budget.
START_SHARE = 0.5
COMMANDS = ("train", "tune")


class PresetError(ValueError):
    """A preset that does not exist or does not fit the command line; the message says what would."""


def presets() -> dict[str, Preset]:
    """Every preset by name, in table order."""
    table = {p.name: p for p in PRESETS}
    if len(table) != len(PRESETS):
        raise PresetError("the presets table names a preset twice")
    return table


def get_preset(name: str) -> Preset:
    """The preset called ``name``; PresetError listing every name if there is none."""
    table = presets()
    if name not in table:
        raise PresetError(f"unknown preset {name!r}; presets: {', '.join(table)} (cardrl train --list-presets)")
    return table[name]


def variants() -> dict[str, Preset]:
    """The learning benchmark's variants (``cardrl bench learning --variants``), in table order."""
    return {name: p for name, p in presets().items() if p.variant}


def space_path(preset: Preset) -> str:
    """The sweep's space file, installed with the package (``cardrl/spaces/``)."""
    from importlib.resources import files

    return str(files("cardrl") / "spaces" / preset.space)


# ---- expanding a command line ---------------------------------------------------------------------------------------
def _find_preset(rest: list[str]) -> tuple[int, str] | None:
    """Where ``--preset NAME`` / ``--preset=NAME`` stands in ``rest`` and the name; PresetError if given twice."""
    found = [(i, a.partition("=")[2]) if a.startswith("--preset=") else (i, rest[i + 1] if i + 1 < len(rest) else "")
             for i, a in enumerate(rest) if a == "--preset" or a.startswith("--preset=")]
    if len(found) > 1:
        raise PresetError("--preset is given more than once; give one preset and the flags to change after it")
    if found and not found[0][1]:
        raise PresetError("--preset needs a name (cardrl train --list-presets)")
    return found[0] if found else None


def _game_for(preset: Preset, given: str | None) -> str:
    """The game the expanded command line names: the preset's, which the command line may repeat."""
    if preset.game is not None:
        if given is not None and given != preset.game:
            raise PresetError(f"preset {preset.name} trains {preset.game}, the command line names {given}")
        return preset.game
    from cardrl.games.registry import game_names

    fits = [g for g in game_names() if preset.applies_to(g)]
    if given is None:
        raise PresetError(f"preset {preset.name} applies to any of {', '.join(fits)}: name the game "
                          f"(e.g. cardrl train {fits[0]} --preset {preset.name})")
    if given not in fits:
        raise PresetError(f"preset {preset.name} does not apply to {given}; it applies to {', '.join(fits)}")
    return given


def _preset_flags(preset: Preset, command: str, game: str) -> list[str]:
    """What ``--preset NAME`` stands for on ``command``'s command line."""
    if command == "train":
        if preset.space:
            raise PresetError(f"preset {preset.name} is a Tune sweep: cardrl tune --preset {preset.name}")
        return ["--algo", preset.algo, *preset.flags(), "--out", preset.out(game)]
    if preset.space:
        return ["--space", space_path(preset), *preset.flags(), "--out", preset.out(game)]
    if preset.algo != "dmc":
        raise PresetError(f"preset {preset.name} trains --algo {preset.algo}; cardrl tune sweeps DMC options only")
    return [*preset.flags(), "--out", f"runs/tune_{preset.name}" + (f"_{game}" if preset.game is None else "")]


def expand(argv: Sequence[str]) -> list[str]:
    """``argv`` (the arguments after ``cardrl``) with ``--preset NAME`` replaced by the preset's flags where it
    stands and its game put first; unchanged without ``--preset`` or outside ``train`` and ``tune``."""
    argv = list(argv)
    if not argv or argv[0] not in COMMANDS:
        return argv
    command, rest = argv[0], argv[1:]
    found = _find_preset(rest)
    if found is None:
        return argv
    index, name = found
    preset = get_preset(name)
    given = rest[0] if rest and not rest[0].startswith("-") else None
    game = _game_for(preset, given)
    skip = 2 if rest[index] == "--preset" else 1
    before, after = rest[:index], rest[index + skip:]
    if given is not None:
        before = before[1:]
    return [command, game, *before, *_preset_flags(preset, command, game), *after]


def expand_preset(argv: Sequence[str] | None) -> Sequence[str] | None:
    """:func:`expand` for ``cardrl``'s ``main`` (``None``: ``sys.argv[1:]``), with argparse's manners: a preset
    error is printed as ``cardrl train: error: ...`` and exits 2; ``--list-presets`` prints the table and exits 0.
    Returns ``argv`` itself where there is nothing to expand."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in COMMANDS:
        return argv
    if "--list-presets" in args[1:]:
        print(format_presets(args[0]))
        raise SystemExit(0)
    if not any(a == "--preset" or a.startswith("--preset=") for a in args[1:]):
        return argv
    try:
        return expand(args)
    except PresetError as err:
        print(f"cardrl {args[0]}: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


# ---- showing the table ---------------------------------------------------------------------------------------------
def format_presets(command: str | None = None) -> str:
    """The presets of ``command`` (``train``: the training presets; ``tune``: the sweeps and the DMC presets a sweep
    can start from; None: all) as aligned text, one line each, for ``--list-presets``."""
    rows = [("name", "game", "algo", "reproduces")]
    for p in presets().values():
        if command == "train" and p.space or command == "tune" and not p.space and p.algo != "dmc":
            continue
        what = "; ".join(x for x in (p.paper, p.reproduces) if x)
        rows.append((p.name, p.game or "any", "tune" if p.space else p.algo, what))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(width[i]) for i in range(3)) + "  " + r[3] for r in rows]
    usage = (f"cardrl {command or 'train'} --preset NAME [more flags: a flag after --preset wins]; a preset of "
             f"'any' game takes it from the command line (cardrl train GAME --preset NAME); docs/presets.md")
    return "\n".join([*lines, "", usage])


def presets_markdown() -> str:
    """The table as docs/presets.md shows it (a test keeps the page in step with the table)."""
    lines = ["| name | game | algorithm | flags | paper | reproduces | expected |", "|---|---|---|---|---|---|---|"]
    for p in presets().values():
        flags = " ".join(p.options) + (f" --space {p.space}" if p.space else "")
        cells = [p.name + (" (variant)" if p.variant else ""), p.game or "any", "tune" if p.space else p.algo,
                 f"`{flags}`" if flags else "", p.paper, p.reproduces, p.expected]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    notes = [f"- `{p.name}`: {p.notes}" for p in presets().values() if p.notes]
    return "\n".join([*lines, "", "Notes:", "", *notes]) + "\n"
