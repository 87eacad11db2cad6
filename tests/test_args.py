"""cardrl.args: the argparse value types shared by the commands (each bound, open or closed, and the refusals)."""

import argparse

import pytest

from cardrl.args import float_in, int_at_least, positive_float, SignedValuesParser


@pytest.mark.parametrize("parse, text, expected", [
    (positive_float, "2.5", 2.5), (positive_float, " 1e-9 ", 1e-9),
    (float_in(0.0, 1.0), "0", 0.0), (float_in(0.0, 1.0), "1", 1.0),
    (float_in(0.0), "0", 0.0), (float_in(0.0), "1e6", 1e6),
    (float_in(0.0, 1.0, low_open=True), "1", 1.0),
])
def test_numbers_inside_the_bounds_are_taken(parse, text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("parse, text, message", [
    (positive_float, "0", "'0' is not a finite number > 0"),
    (positive_float, "-1", "'-1' is not a finite number > 0"),
    (positive_float, "inf", "'inf' is not a finite number > 0"),
    (positive_float, "nan", "'nan' is not a finite number > 0"),
    (positive_float, "x", "'x' is not a number; give a finite number > 0"),
    (float_in(0.0, 1.0), "1.5", "'1.5' is not a number in [0, 1]"),
    (float_in(0.0, 1.0), "-0.1", "'-0.1' is not a number in [0, 1]"),
    (float_in(0.0, 1.0), "nan", "'nan' is not a number in [0, 1]"),
    (float_in(0.0, 1.0, low_open=True), "0", "'0' is not a number in (0, 1]"),
    (float_in(0.0), "-1", "'-1' is not a finite number >= 0"),
    (float_in(0.0), "inf", "'inf' is not a finite number >= 0"),
])
def test_numbers_outside_the_bounds_are_refused_saying_what_is_allowed(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_a_flag_of_these_types_reports_the_flag_and_the_allowed_values():
    parser = SignedValuesParser(prog="p", exit_on_error=False)
    parser.add_argument("--gamma", type=float_in(0.0, 1.0))
    parser.add_argument("--lr", type=positive_float)
    parser.add_argument("--n", type=int_at_least(1))
    assert parser.parse_args(["--gamma", "0.5", "--lr", "3e-4", "--n", "2"]) == argparse.Namespace(
        gamma=0.5, lr=3e-4, n=2)
    with pytest.raises(argparse.ArgumentError, match=r"argument --lr: '-1' is not a finite number > 0"):
        parser.parse_args(["--lr", "-1"])  # a minus-digit word is the flag's value, checked by its type
    assert parser.parse_args(["--gamma", "1"]).gamma == 1.0  # the closed upper bound
