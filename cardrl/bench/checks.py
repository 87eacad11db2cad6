"""The checks the ``cardrl bench`` commands share, run before anything is measured or trained
(:func:`cardrl.bench.cli.check_bench` runs each command's): durations above 0, baseline agent specs, and the split of
the flags a benchmark passes on to ``cardrl train`` (checked by the run spec they make: :func:`split_train_flags`). Each
raises a ValueError naming the option, what is wrong with it and what is allowed (the CLI prints it as one line and
exits 2); counts and seconds are checked by their argparse types (:mod:`cardrl.args`)."""

from __future__ import annotations

import shlex

__all__ = ["split_train_flags", "check_positive_durations", "check_specs"]


def split_train_flags(text: str, game: str | None = None, flag: str = "--train-args") -> list[str]:
    """``text`` split into ``cardrl train`` flags; ValueError when it does not split or, given the ``game``, when
    ``cardrl train GAME`` refuses them (the run spec they make is built to check them)."""
    from cardrl.algorithms.training.run_spec import RunSpec

    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ValueError(f"{flag} {text!r} does not split into flags ({err}): give them as one quoted string, e.g. "
                         f"{flag} \"--eval-every 1m\"") from None
    if game is not None and words:
        try:
            RunSpec.from_flags(game, words)
        except ValueError as err:
            raise ValueError(f"{flag} {text!r}: cardrl train {game} refuses it: {err}") from None
    return words


def check_positive_durations(**durations: float | None) -> None:
    """ValueError naming the first of ``durations`` (option name -> seconds, None: not given) that is not above 0."""
    for name, value in durations.items():
        if value is not None and not value > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be a duration > 0 (e.g. 90s, 10m), got {value:g}s")


def check_specs(game: str, specs: list[str] | None, flag: str) -> None:
    """Every agent spec of option ``flag`` built for ``game`` now; ValueError naming the first that does not."""
    from cardrl.eval.agents import build_agent

    for spec in specs or ():
        try:
            build_agent(spec, game)
        except (ValueError, FileNotFoundError) as err:
            raise ValueError(f"{flag} {spec!r}: {err}") from None
