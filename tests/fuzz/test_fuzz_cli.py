"""Fuzzing the command line: every ``cardrl`` command given bad values (wrong types, counts below their range,
probabilities outside [0, 1], unknown games, algorithms, presets, choices and flags, options that do not apply to
the game or algorithm, contradictory combinations, malformed durations, paths that do not exist or are files where a
directory is wanted) must exit with status 2 and one error line naming the option, never a Python traceback and
never a silent run. The commands that would start Ray, train, measure, listen or play are driven through
:func:`cardrl.cli.check_command_line`, the check each of them runs before anything heavy; a few cases run the real
``cardrl`` in a subprocess. docs/operations.md, "Fuzzing".
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardrl.cli import check_command_line
from helpers.fuzz import fuzz_settings

GAMES = ("doudizhu", "big2", "guandan")
SPACE = str(Path(__file__).resolve().parents[2] / "cardrl" / "spaces" / "lr.json")
TRAIN = ["train", "doudizhu"]
EVAL = ["eval", "doudizhu", "--a", "random", "--b", "rule"]


def outcome(argv: list[str]) -> tuple[int, str]:
    """(exit status, stderr) of ``cardrl ARGV`` checked in-process as the command checks it before it starts."""
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        try:
            code = check_command_line(argv)
        except SystemExit as exit_:
            code = exit_.code
    return code, err.getvalue()


def assert_refused(argv: list[str], *named: str) -> str:
    """``cardrl ARGV`` exits 2 with one ``error:`` line that names each of ``named``; returns that line."""
    code, err = outcome(argv)
    assert "Traceback" not in err, err
    assert code == 2, f"{argv} was not refused (exit {code}): {err}"
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0] == err.strip().splitlines()[-1], err
    for name in named:  # the flag itself, also where the config's validate() finds the problem
        assert name in errors[0], f"{name!r} not named in: {errors[0]}"
    return errors[0]


# ---- counts below their range, and values that are not numbers -------------------------------------------------
# (command line, flag, lowest allowed value)
COUNTS = [
    (TRAIN, "--stop-frames", 1), (TRAIN, "--num-env-runners", 0), (TRAIN, "--num-learners", 0),
    (TRAIN, "--eval-deals", 1), (TRAIN, "--eval-every-frames", 0), (TRAIN, "--seed", 0),
    (TRAIN, "--frames-per-update", 1), (TRAIN, "--num-envs-per-env-runner", 1), (TRAIN, "--updates-per-iteration", 1),
    (TRAIN, "--hidden-sizes", 1), (TRAIN, "--driver-sample-frames", 0),
    (["tune", "doudizhu", "--space", SPACE], "--num-env-runners", 0),
    (["tune", "doudizhu", "--space", SPACE], "--num-samples", 1),
    (EVAL, "--deals", 1), (EVAL, "--workers", 0), (EVAL, "--chunk-size", 1), (EVAL, "--seed", 0),
    (EVAL, "--save-games-count", 1), (["eval", "guandan", "--a", "random", "--b", "rule"], "--max-deals", 1),
    (["play", "doudizhu"], "--show", 0), (["play", "doudizhu"], "--seed", 0), (["play", "guandan"], "--deals", 0),
    (["serve"], "--max-sessions", 1),
    (["bench", "env", "doudizhu"], "--hands", 1), (["bench", "mcs", "doudizhu"], "--deals", 1),
    (["bench", "mcs", "doudizhu"], "--prune-steps", 1), (["bench", "train", "doudizhu"], "--num-env-runners", 0),
    (["bench", "chaos", "doudizhu"], "--eval-deals", 1), (["bench", "chaos", "doudizhu"], "--frames", 1),
    (["bench", "soak", "doudizhu"], "--num-env-runners", 0), (["bench", "learning", "doudizhu"], "--frames", 1),
    (["bench", "learning", "doudizhu"], "--seeds", 1), (["bench", "learning", "doudizhu"], "--eval-deals", 1),
]
def _not_an_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return True
    return False


NOT_INTS = st.one_of(st.sampled_from(["", " ", "1.5", "1e3", "0x10", "nan", "inf", "ten", "--", "²", "1_000x"]),
                     st.text(max_size=6).filter(_not_an_int))


@fuzz_settings(30)
@given(case=st.sampled_from(COUNTS), data=st.data())
def test_counts_below_their_range_or_not_ints_are_refused_naming_the_flag(case, data):
    argv, flag, low = case
    value = data.draw(st.one_of(st.integers(-10**12, low - 1).map(str), NOT_INTS), label="value")
    assert_refused([*argv, f"{flag}={value}"], flag)


# (command line, flag): numbers that must be finite and > 0
POSITIVE_NUMBERS = [(TRAIN, "--lr"), (TRAIN, "--grad-clip"), (TRAIN, "--rmsprop-eps"), (["serve"], "--agent-timeout"),
                    (["bench", "env", "doudizhu"], "--seconds"), (["bench", "train", "doudizhu"], "--seconds"),
                    (["bench", "learning", "doudizhu"], "--hours"), (["bench", "scale", "doudizhu"], "--seconds")]


@fuzz_settings(40)
@given(case=st.sampled_from(POSITIVE_NUMBERS),
       value=st.one_of(st.floats(max_value=0), st.sampled_from([float("nan"), float("inf"), float("-inf")])))
def test_numbers_that_must_be_finite_and_positive_are_refused(case, value):
    argv, flag = case
    assert_refused([*argv, f"{flag}={value!r}"], flag)


@fuzz_settings(40)
@given(flag=st.sampled_from(["--epsilon", "--rmsprop-alpha"]),
       value=st.one_of(st.floats(max_value=-1e-9), st.floats(min_value=1.0 + 1e-9), st.just(float("nan"))))
def test_probabilities_out_of_range_are_refused(flag, value):
    if flag == "--rmsprop-alpha" and value == 1.0:
        return
    line = assert_refused([*TRAIN, f"{flag}={value!r}"], flag)
    assert re.search(r"is not a number in \[0, 1[\])]", line)


# ---- durations ----------------------------------------------------------------------------------------------------
DURATIONS = [(TRAIN, "--stop-time"), (TRAIN, "--eval-every"), (TRAIN, "--checkpoint-every"),
             (["tune", "doudizhu", "--space", SPACE], "--eval-every"),
             (["bench", "soak", "doudizhu"], "--duration"), (["bench", "soak", "doudizhu"], "--every"),
             (["bench", "chaos", "doudizhu"], "--duration"), (["bench", "chaos", "doudizhu"], "--stall-bound"),
             (["bench", "chaos", "doudizhu"], "--kill-runner-every")]
MALFORMED = st.one_of(st.sampled_from(["5x", "", "-1m", "1.5", "10", "m", "10 m", "1e3s", "nans", "infh", "٣m", "1mm",
                                       "5d5", "--", "1h30m"]),
                      st.text(max_size=5).filter(lambda t: not re.fullmatch(r"\s*(\d+(\.\d+)?[smhd]|0|0\.0)\s*", t,
                                                                          re.ASCII)))


@fuzz_settings(30)
@given(case=st.sampled_from(DURATIONS), text=MALFORMED)
def test_malformed_durations_are_refused_naming_the_flag(case, text):
    argv, flag = case
    line = assert_refused([*argv, f"{flag}={text}"], flag)
    assert "90s" in line or "'--' is not a value" in line  # the allowed form


@pytest.mark.parametrize("argv, flag", [(TRAIN, "--stop-time"), (TRAIN, "--checkpoint-every"),
                                        (["bench", "soak", "doudizhu"], "--duration"),
                                        (["bench", "soak", "doudizhu"], "--stall-bound"),
                                        (["bench", "chaos", "doudizhu"], "--kill-runner-every")])
def test_regression_zero_durations_that_mean_nothing_are_refused(argv, flag):
    assert_refused([*argv, f"{flag}=0"], flag)


# ---- unknown names ------------------------------------------------------------------------------------------------
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=8)


@fuzz_settings(40)
@given(command=st.sampled_from([["train"], ["eval"], ["play"], ["tune"], ["bench", "env"], ["bench", "soak"]]),
       game=NAMES.filter(lambda g: g not in GAMES and not g.startswith("-")))
def test_unknown_games_are_refused_with_the_games_allowed(command, game):
    line = assert_refused([*command, game])
    assert all(g in line for g in GAMES), line


@fuzz_settings(40)
@given(case=st.sampled_from([(TRAIN, "--algo"), (TRAIN, "--model"), (TRAIN, "--optimizer"), (TRAIN, "--prune"),
                             (TRAIN, "--opponent-model"), (EVAL, "--kickers"), (["eval", "big2", "--a", "random",
                                                                                 "--b", "rule"], "--straight-order"),
                             (["tune", "doudizhu", "--space", SPACE], "--scheduler")]),
       value=NAMES.filter(lambda v: not v.startswith("-")))
def test_unknown_choices_are_refused_with_the_choices(case, value):
    argv, flag = case
    code, err = outcome([*argv, f"{flag}={value}"])
    if code == 0:  # the value drawn is one of the choices
        return
    line = assert_refused([*argv, f"{flag}={value}"], flag)
    assert "choose from" in line


@fuzz_settings(30)
@given(command=st.sampled_from([TRAIN, EVAL, ["play", "doudizhu"], ["serve"], ["report", "."], ["bench", "env",
                                                                                               "doudizhu"]]),
       flag=st.from_regex(r"--[a-z][a-z0-9-]{2,12}", fullmatch=True))
def test_unknown_flags_are_refused(command, flag):
    code, err = outcome([*command, flag])
    if code == 2:
        assert "Traceback" not in err and "error:" in err.strip().splitlines()[-1]
    else:  # a prefix of a real flag, which argparse takes
        assert code == 0 or "Traceback" not in err


@pytest.mark.parametrize("argv", [[*TRAIN, "--stop-frames=--"], [*EVAL, "--deals=--"], ["serve", "--port=--"]])
def test_regression_a_double_dash_value_is_refused_not_replaced_by_the_default(argv):
    """argparse takes ``--flag=--`` as the flag without a value and keeps its default: the run went on silently."""
    assert_refused(argv, argv[-1][:-3], "'--' is not a value")


def test_unknown_preset_is_refused_with_the_presets():
    assert_refused([*TRAIN, "--preset", "no_such_preset"], "no_such_preset", "dmc_doudizhu")


# ---- options that do not apply, and contradictions -----------------------------------------------------------------
@pytest.mark.parametrize("argv, named", [
    ([*TRAIN, "--algo", "ppo", "--prune", "mcs"], "--prune"),
    ([*TRAIN, "--algo", "ppo", "--resume"], "--resume"),
    ([*TRAIN, "--eval-unpruned"], "--prune mcs"),
    ([*TRAIN, "--match-bonus"], "--match-bonus"),
    ([*TRAIN, "--final-matches", "3"], "--final-matches"),
    (["train", "guandan", "--algo", "topk-ppo", "--final-matches", "0"], "--final-matches"),
    (["train", "big2", "--bidding"], "bidding"),
    ([*TRAIN, "--resume", "--restore", "."], "--restore"),
    ([*TRAIN, "--coach-lr", "0.1"], "coach"),
    ([*TRAIN, "--prune-extra", "1"], "prune"),
    (["eval", "big2", "--a", "random", "--b", "rule", "--kickers", "douzero"], "--kickers"),
    (["eval", "big2", "--a", "random", "--b", "rule", "--bidding"], "--bidding"),
    ([*EVAL, "--max-deals", "3"], "--max-deals"),
    ([*EVAL, "--out", "x"], "--out"),
    (["eval", "doudizhu", "--league", "random", "rule", "--save-games", "x"], "--save-games"),
    (["eval", "doudizhu", "--a", "random"], "--b"),
    (["eval", "doudizhu", "--a", "random", "--b", "rule", "--league", "random", "rule"], "--league"),
    (["play", "doudizhu", "--deals", "2"], "--deals"),
    (["play", "doudizhu", "--tribute-decisions"], "--tribute-decisions"),
    (["play", "big2", "--bidding"], "--bidding"),
    (["play", "doudizhu", "--rule", "bidding=false", "--bidding"], "--bidding"),
    (["play", "doudizhu", "--rule", "kickers"], "--rule"),
    (["play", "doudizhu", "--seat", "7"], "--seat"),
    (["bench", "chaos", "doudizhu", "--kill-runner-every", "1m", "--num-env-runners", "0"], "--kill-runner-every"),
    (["bench", "chaos", "doudizhu", "--kill-driver-at", "20m"], "--kill-driver-at"),
    (["bench", "chaos", "doudizhu", "--kill-node-at", "1m"], "--kill-node-at"),
    (["bench", "chaos", "doudizhu", "--nodes", "1"], "--nodes"),
    (["bench", "chaos", "doudizhu", "--nodes", "3", "--num-env-runners", "3"], "--num-env-runners"),
    (["bench", "chaos", "doudizhu", "--nodes", "3", "--kill-node-at", "1m", "--num-env-runners", "0"],
     "--kill-node-at"),
    (["bench", "chaos", "doudizhu", "--nodes", "3", "--kill-node-at", "20m"], "--kill-node-at"),
    (["bench", "soak", "doudizhu", "--warmup", "3h"], "--warmup"),
    (["bench", "learning", "doudizhu", "--frames", "1000", "--eval-every-frames", "2000"], "--eval-every-frames"),
    (["bench", "learning", "doudizhu", "--variants", "dmc", "dmc"], "--variants"),
    (["bench", "learning", "big2", "--variants", "danzero"], "danzero"),
    (["bench", "train", "doudizhu", "--opponent-model", "luo_tan"], "opponent_model"),
])
def test_options_that_do_not_apply_or_contradict_are_refused(argv, named):
    assert_refused(argv, named)


@pytest.mark.parametrize("target", ["soak", "chaos", "learning"])
def test_regression_bench_train_args_are_parsed_before_the_run(target):
    assert_refused(["bench", target, "doudizhu", "--train-args=--no-such-flag"], "--train-args", "--no-such-flag")
    assert_refused(["bench", target, "doudizhu", "--train-args='unclosed"], "--train-args", "closing quotation")


# ---- paths --------------------------------------------------------------------------------------------------------
def _paths(tmp_path):
    missing, a_file = tmp_path / "missing", tmp_path / "a_file.json"
    a_file.write_text("{}")
    return str(missing), str(a_file), str(tmp_path)


def test_regression_paths_that_do_not_exist_or_are_the_wrong_kind_are_refused(tmp_path):
    missing, a_file, a_dir = _paths(tmp_path)
    assert_refused([*TRAIN, "--restore", missing], "--restore", missing)
    assert_refused([*TRAIN, "--restore", a_file], "--restore", a_file)
    assert_refused([*TRAIN, "--restore", a_dir], "--restore", a_dir)  # a directory without a checkpoint
    assert_refused([*TRAIN, "--out", a_file], "--out", a_file)
    assert_refused(["tune", "doudizhu", "--space", missing], missing)
    assert_refused(["tune", "doudizhu", "--space", a_dir], a_dir, "directory")
    assert_refused([*EVAL, "--deal-file", missing], missing)
    assert_refused([*EVAL, "--deal-file", a_dir], "--deal-file", "directory")
    assert_refused([*EVAL, "--save-games", a_file], "--save-games", "is a file")
    assert_refused([*EVAL, "--save-deals", a_dir], "--save-deals", "directory")
    assert_refused(["eval", "doudizhu", "--league", "random", "rule", "--out", a_dir], "--out", "directory")
    assert_refused(["play", "doudizhu", "--replay", missing + ".json"], "--replay", missing)
    assert_refused(["serve", missing], missing)
    assert_refused(["serve", a_file], a_file)
    for command in ("report", "plot"):
        assert_refused([command, missing], missing)
        assert_refused([command, a_file], a_file, "is a file")
        assert_refused([command, a_dir], a_dir, "progress.jsonl")
    assert_refused(["bench", "chaos", "doudizhu", "--undisturbed", missing], "--undisturbed", missing)
    for command in (["report"], [*TRAIN, "--out"], ["play", "doudizhu", "--opponents"]):
        assert_refused([*command, ""], "empty" if command != ["play", "doudizhu", "--opponents"] else "''")


def test_regression_report_and_plot_refuse_an_out_that_is_a_directory(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "progress.jsonl").write_text("")
    for command in ("report", "plot"):
        assert_refused([command, str(run), "--out", str(tmp_path)], "--out", "directory")


# ---- regression tests: values the fuzzing found a check missing -------------------------------------------------
@pytest.mark.parametrize("argv, named", [
    ([*TRAIN, "--lr", "0"], "--lr"), ([*TRAIN, "--lr", "inf"], "--lr"), ([*TRAIN, "--grad-clip", "nan"], "--grad-clip"),
    ([*TRAIN, "--rmsprop-alpha", "1.5"], "--rmsprop-alpha"), ([*TRAIN, "--hidden-sizes", "512", "0"], "--hidden-sizes"),
    ([*TRAIN, "--updates-per-iteration", "0"], "--updates-per-iteration"),
])
def test_regression_dmc_learner_numbers_out_of_range_are_refused(argv, named):
    assert_refused(argv, named)


@pytest.mark.parametrize("flag, value", [
    ("--lr", "0"), ("--lr", "nan"), ("--gamma", "1.5"), ("--gae-lambda", "-0.1"), ("--clip-param", "0"),
    ("--vf-loss-coeff", "-1"), ("--entropy-coeff", "inf"), ("--num-epochs", "0"), ("--minibatch-size", "0"),
    ("--train-batch-size", "0"), ("--grad-clip", "inf"), ("--hidden-sizes", "0"), ("--embedding-dim", "0"),
])
def test_regression_masked_ppo_numbers_out_of_range_are_refused(flag, value):
    # RLlib's PPO trained with --lr 0 or NaN and crashed deep inside its learner with --num-epochs 0
    assert_refused([*TRAIN, "--algo", "ppo", flag, value], flag)


@pytest.mark.parametrize("argv, flag", [
    ([*TRAIN, "--num-env-runners", "-1"], "--num-env-runners"), ([*TRAIN, "--stop-frames", "0"], "--stop-frames"),
    ([*TRAIN, "--eval-deals", "0"], "--eval-deals"), ([*TRAIN, "--seed", "-1"], "--seed"),
    (["play", "doudizhu", "--show", "-1"], "--show"), (["serve", "--agent-timeout", "nan"], "--agent-timeout"),
    (["serve", "--agent-timeout", "inf"], "--agent-timeout"),
])
def test_regression_counts_and_seconds_accepted_out_of_range(argv, flag):
    assert_refused(argv, flag)


@pytest.mark.parametrize("argv, flag", [
    ([*TRAIN, "--stop-time", "-1m"], "--stop-time"), (["bench", "soak", "doudizhu", "--duration", "-1m"], "--duration"),
    (["bench", "chaos", "doudizhu", "--kill-driver-at", "1m", "-2m"], "--kill-driver-at"),
])
def test_regression_a_negative_duration_reaches_the_flags_check(argv, flag):
    # argparse took "-1m" for a flag and said "expected one argument"
    assert "is not a duration" in assert_refused(argv, flag)


@pytest.mark.parametrize("argv, flag", [
    (["bench", "env", "doudizhu", "--hands", "0"], "--hands"),
    (["bench", "mcs", "doudizhu", "--deals", "-1"], "--deals"),
    (["bench", "soak", "doudizhu", "--every", "0"], "--every"), (["bench", "chaos", "doudizhu", "--eval-deals", "0"],
                                                                 "--eval-deals"),
    (["bench", "learning", "doudizhu", "--frames", "0"], "--frames"),
    (["bench", "train", "doudizhu", "--seconds", "0"], "--seconds"),
])
def test_regression_bench_bad_values_exit_2_without_a_traceback(argv, flag, capsys):
    """``cardrl bench`` raised these ValueErrors out of ``main`` (a traceback); now the real entry point prints one
    line and returns 2, before anything is measured."""
    assert _main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and flag in err.strip().splitlines()[-1]


def test_regression_eval_save_games_onto_a_file_is_refused_before_playing(tmp_path, capsys):
    """``cardrl eval --save-games FILE`` played the whole tournament, then died with FileExistsError."""
    a_file = tmp_path / "records"
    a_file.write_text("")
    assert _main([*EVAL, "--deals", "2", "--workers", "0", "--save-games", str(a_file)]) == 2
    captured = capsys.readouterr()
    assert "--save-games" in captured.err and "ADP" not in captured.out


def _main(argv: list[str]) -> int:
    """The exit status of :func:`cardrl.cli.main` (argparse's SystemExit included)."""
    from cardrl.cli import main

    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code


# ---- the real command in a subprocess: no traceback reaches the user ------------------------------------------------
@pytest.mark.parametrize("argv, named", [
    (["bench", "soak", "doudizhu", "--every", "0"], "--every"),
    (["eval", "big2", "--a", "rule+bidder=random", "--b", "random"], "bidder"),
])
def test_the_real_command_prints_one_line_and_exits_2(argv, named):
    proc = subprocess.run([sys.executable, "-m", "cardrl.cli", *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardrl {argv[0]}") and named in lines[0], proc.stderr


@fuzz_settings(30)
@given(value=st.integers(0, 10**6), unit=st.sampled_from([("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]))
def test_durations_take_seconds_minutes_hours_and_days(value, unit):
    from cardrl.algorithms.training.settings import parse_duration

    assert parse_duration(f"{value}{unit[0]}") == value * unit[1]
