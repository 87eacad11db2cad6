"""argparse value types shared by cardrl's commands (``train``, ``eval``, ``play``, ``tune``, ``plot``, ``report``).

Paths are made absolute when the command line is parsed: a run may read them from another working directory (Ray
workers), and pyarrow's file systems, which RLlib's checkpoints go through, refuse a relative path ("URI has empty
scheme")."""

from __future__ import annotations

import argparse
import math
import os
import re

__all__ = ["path_arg", "int_at_least", "positive_int", "non_negative_int", "positive_float",
           "float_in", "SignedValuesParser"]


_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")  # s3://, gs://, hdfs://, file://, ...


def path_arg(text: str) -> str:
    """A path option's value made absolute against the current directory when the command line is parsed: the run
    may read it from another directory (Ray workers), and pyarrow's file systems, which RLlib's checkpoints go
    through, refuse a relative path ("URI has empty scheme"). A URI is refused: cardrl's run directories and
    checkpoints live on a filesystem (their atomic swap is a rename), local or mounted on every machine that reads
    them (docs/operations.md, "Storage that a new head can read")."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("a path must not be empty")
    if _URI.match(str(text).strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r} is a URI; cardrl reads and writes files on a filesystem path: a local disk, or shared storage "
            f"mounted at the same path on every machine that needs it (NFS, CephFS, Lustre, EFS; docs/operations.md, "
            f"\"Storage that a new head can read\")")
    return os.path.abspath(os.path.expanduser(str(text)))


path_arg.allowed = "a non-empty filesystem path (not a URI)"  # what option_problems says is allowed


def int_at_least(low: int, what: str = ""):
    """An argparse type: an int ``>= low`` (``what`` says what the bound means, e.g. ``"0: never"``)."""
    def parse(text: str) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an int; give an int >= {low}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}; give an int >= {low}"
                                             + (f" ({what})" if what else ""))
        return value

    parse.__name__ = f"int >= {low}"
    parse.allowed = f"an int >= {low}" + (f" ({what})" if what else "")  # what option_problems says is allowed
    return parse


positive_int = int_at_least(1)
non_negative_int = int_at_least(0)


def float_in(low: float, high: float = math.inf, *, low_open: bool = False, high_open: bool = False):
    """An argparse type: a finite number in ``[low, high]`` (``(low, ...`` with ``low_open``, ``..., high)`` with
    ``high_open``); NaN refused, inf too (a finite ``high`` bounds it anyway)."""
    if high == math.inf:
        allowed = f"a finite number {'>' if low_open else '>='} {low:g}"
    else:
        allowed = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number; give {allowed}") from None
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low) \
                or (high_open and value == high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}")
        return value

    parse.__name__ = parse.allowed = allowed
    return parse


positive_float = float_in(0.0, low_open=True)
positive_float.__doc__ = "An argparse type: a finite number > 0 (NaN and inf refused)."


class SignedValuesParser(argparse.ArgumentParser):
    """An ArgumentParser that takes any word of a minus and a digit (``-1m``, ``-3x``) as a value, not only plain
    negative numbers: ``--duration -1m`` then reaches the flag's own check, which says what is allowed, instead of
    argparse's "expected one argument". No cardrl flag starts with a digit."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d")  # argparse's own: plain numbers only
