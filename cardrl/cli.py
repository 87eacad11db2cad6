"""The ``cardrl`` command line: ``train``, ``tune``, ``eval``, ``play``, ``serve``, ``plot``, ``report``, ``bench``.

``cardrl train doudizhu --algo dmc --stop-time 10m`` trains DouZero-style DMC on an embedded local Ray (or on
the cluster named by ``RAY_ADDRESS``), prints a progress line per iteration, evaluates against the random agent
every few minutes and writes RLlib checkpoints. ``cardrl bench env doudizhu`` measures the environment against
the peers installed beside us; ``cardrl bench train doudizhu`` measures DMC's frames/s against DouZero's trainer.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields

from cardrl.args import SignedValuesParser
from cardrl.presets import expand_preset

DEFAULT_ALGO = "dmc"


def _games() -> tuple[str, ...]:
    from cardrl.games.registry import game_names

    return game_names()


def _flags(settings: type) -> dict[str, str]:
    """A settings dataclass's command-line flags -> their field names."""
    from cardrl.algorithms.training.settings import flag_of

    return {flag_of(f): f.name for f in fields(settings) if f.metadata.get("cli", True)}


def _add_train_parser(sub, algo: str, games: tuple[str, ...]) -> argparse.ArgumentParser:
    """``cardrl train``'s parser for ``--algo algo``: the run options it takes and the algorithm's own."""
    from cardrl.algorithms.training.registry import ALGORITHMS, HELP, driver
    from cardrl.algorithms.training.settings import OPTIONAL_RUN_OPTIONS, RunSettings, add_arguments

    own = driver(algo)
    train = sub.add_parser("train", help="train an agent (DMC, top-k PPO or RLlib's PPO) and write checkpoints",
                           epilog=f"These are the options of --algo {algo}; another algorithm's: cardrl train GAME "
                                  f"--algo {{{','.join(ALGORITHMS)}}} --help")
    train.add_argument("game", choices=games, help="the game to train on")
    train.add_argument("--algo", default=DEFAULT_ALGO, choices=list(ALGORITHMS), help=HELP)
    add_arguments(train, RunSettings, skip=tuple(set(OPTIONAL_RUN_OPTIONS) - own.run_options))
    add_arguments(train, own.settings)
    return train


class CardrlParser(SignedValuesParser):
    """cardrl's parser: ``cardrl train`` takes the options of its ``--algo`` only, so a command line is parsed by
    the parser built for the algorithm it names (:func:`build_parser`)."""

    algo = DEFAULT_ALGO

    def parse_known_args(self, args=None, namespace=None):
        argv = list(sys.argv[1:] if args is None else args)
        algo = _algo_in(argv)
        if algo != self.algo:
            return build_parser(algo).parse_known_args(argv, namespace)
        return super().parse_known_args(argv, namespace)


def build_parser(algo: str = DEFAULT_ALGO) -> argparse.ArgumentParser:
    """The ``cardrl`` parser, ``cardrl train`` with the options of ``--algo algo``; a command line that names another
    algorithm is parsed by that algorithm's (:class:`CardrlParser`)."""
    from cardrl.args import path_arg

    games = _games()
    parser = CardrlParser(prog="cardrl", description=__doc__.splitlines()[0])
    parser.algo = algo
    sub = parser.add_subparsers(dest="command", required=True, parser_class=SignedValuesParser)
    train = _add_train_parser(sub, algo, games)

    from cardrl.bench.cli import add_bench_parsers

    add_bench_parsers(sub)

    plot = sub.add_parser("plot", help="learning curves of a training run directory as a PNG")
    plot.add_argument("run_dir", type=path_arg, help="run directory of `cardrl train` (its --out)")
    plot.add_argument("--out", default=None, type=path_arg, help="PNG path (default RUN_DIR/learning_curves.png)")
    report = sub.add_parser("report", help="one self-contained HTML page of a training run, to share it")
    report.add_argument("run_dir", type=path_arg, help="run directory of `cardrl train` (its --out)")
    report.add_argument("--out", default=None, type=path_arg, help="HTML path (default RUN_DIR/report.html)")

    from cardrl.eval.cli import add_eval_arguments

    evaluate = sub.add_parser("eval", help="duplicate tournaments and leagues on seeded deal files (WP, ADP)")
    evaluate.add_argument("game", choices=games, help="the game to evaluate on")
    add_eval_arguments(evaluate)

    from cardrl.play import add_play_arguments

    play = sub.add_parser("play", help="play a deal against agents in the terminal")
    play.add_argument("game", choices=games, help="the game to play")
    add_play_arguments(play)
    from cardrl.web.cli import add_serve_arguments

    serve = sub.add_parser("serve", help="a local web app: replays with the agents' values, two agents on one deal, "
                                         "play against any agent, runs' curves (docs/web.md)")
    add_serve_arguments(serve)
    from cardrl.algorithms.tune.arguments import add_tune_arguments

    tune = sub.add_parser("tune", help="Ray Tune sweep of DMC options from a space file, ranked on evaluation ADP")
    tune.add_argument("game", choices=games, help="the game to train on")
    add_tune_arguments(tune)
    for command in (train, evaluate, tune):  # the commands that start Ray
        command.add_argument("--verbose", action="store_true",
                             help="show every line Ray and RLlib print, the known-harmless startup lines included "
                                  "(cardrl/quiet.py lists them)")
    for command in (train, tune):  # cardrl.presets expands these before the parse; here for --help
        command.add_argument("--preset", metavar="NAME",
                             help="start from a preset of the papers' table (docs/presets.md): its game, algorithm "
                                  "and options take the place of the flag, and a flag after it wins")
        command.add_argument("--list-presets", action="store_true", help="print the presets and exit")
    return parser


def _algo_in(argv: list[str]) -> str:
    """The ``--algo`` of a ``cardrl train`` command line (its parser depends on it), else the default; an unknown
    name is left for the parse to refuse."""
    from cardrl.algorithms.training.registry import ALGORITHMS

    if argv[:1] != ["train"]:
        return DEFAULT_ALGO
    for i, word in enumerate(argv):
        name, eq, value = word.partition("=")
        if len(name) > 4 and "--algo".startswith(name):  # argparse takes a unique prefix too
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            return value if value in ALGORITHMS else DEFAULT_ALGO
    return DEFAULT_ALGO


def _refuse_other_algorithms(algo: str, extras: list[str]) -> None:
    """ValueError naming the flags among ``extras`` that belong to other algorithms, or to run options ``algo``
    does not take (none is ignored silently)."""
    from cardrl.algorithms.training.registry import ALGORITHMS, driver
    from cardrl.algorithms.training.settings import OPTIONAL_RUN_OPTIONS, RunSettings

    given = {word.partition("=")[0] for word in extras if word.startswith("--")}
    run_flags = _flags(RunSettings)
    for flag in sorted(given & set(run_flags)):
        name = run_flags[flag]
        owners = "/".join(a for a in ALGORITHMS if name in driver(a).run_options)
        raise ValueError(f"{flag} applies to --algo {owners}" + OPTIONAL_RUN_OPTIONS[name].format(algo=algo))
    owners = {a: _flags(driver(a).settings) for a in ALGORITHMS if a != algo}
    foreign = sorted((name, flag) for flag in given for o in owners.values() if (name := o.get(flag)))
    if foreign:
        named = dict.fromkeys(flag for _, flag in foreign)
        raise ValueError("option(s) " + ", ".join(f"{flag} (" + "/".join(a for a, o in owners.items() if flag in o)
                                                  + ")" for flag in named) + f" do not apply to --algo {algo}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed once, ``cardrl train`` with the options of its ``--algo``. A flag of another algorithm is a
    ValueError naming it (SystemExit with argparse's message for any other unknown word); the run options the
    algorithm does not take are set to their defaults."""
    from cardrl.algorithms.training.settings import RunSettings, field_default

    parser = build_parser()
    for word in argv:  # argparse drops a value of '--' and keeps the option's default: refuse it instead
        if word.startswith("--") and word.endswith("=--"):
            parser.error(f"argument {word[:-3]}: '--' is not a value; give the option a value")
    args, extras = parser.parse_known_args(argv)
    if extras and args.command == "train":
        _refuse_other_algorithms(args.algo, extras)
    if extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    if args.command == "train":
        for f in fields(RunSettings):
            if not hasattr(args, f.name):
                setattr(args, f.name, field_default(f))
    return args


# each command's check of its options, the step it runs before anything heavy (Ray, training, a server, games):
# check_command_line runs it alone
CHECKS = {"train": "cardrl.algorithms.training.registry:check_train_args",
          "tune": "cardrl.algorithms.tune.sweep:check_tune",
          "bench": "cardrl.cli:check_bench_command",
          "eval": "cardrl.eval.cli:check_eval",
          "play": "cardrl.play.cli:check_play",
          "serve": "cardrl.web.cli:check_serve",
          "report": "cardrl.run_dir:check_run_dir_args",
          "plot": "cardrl.run_dir:check_run_dir_args"}


def check_bench_command(args: argparse.Namespace) -> None:
    """``cardrl bench TARGET``'s check (:func:`cardrl.bench.cli.check_bench`), then the flags it passes on to
    ``cardrl train`` (``--train-args``) parsed by ``cardrl train GAME``'s parser, which lives here."""
    import io
    from contextlib import redirect_stderr

    from cardrl.bench.checks import split_train_flags
    from cardrl.bench.cli import check_bench

    check_bench(args)
    text = getattr(args, "train_args", None)
    if not text or not hasattr(args, "game"):
        return
    said = io.StringIO()
    try:
        with redirect_stderr(said):
            parse_args(["train", args.game, *split_train_flags(text)])
    except SystemExit:
        why = (said.getvalue().strip().splitlines() or ["refused"])[-1].partition("error: ")[2]
        raise ValueError(f"--train-args {text!r}: cardrl train {args.game} refuses it: {why}") from None


def check_command_line(argv: list[str]) -> int:
    """``cardrl ARGV`` parsed and checked as the command checks it before it starts anything, without running it:
    0 when it would start, else 2 with the command's one-line error on stderr (argparse's exit 2 for what the parse
    refuses). The fuzz tests (tests/fuzz/test_fuzz_cli.py) drive it."""
    from cardrl.games.registry import resolve

    argv = list(expand_preset(list(argv)))
    args = parse_args(argv) if argv[:1] != ["train"] else _parse_train(argv)
    if args is None:
        return 2
    try:
        resolve(CHECKS[args.command])(args)
    except (ValueError, FileNotFoundError) as err:
        command = " ".join([args.command, *([args.target] if args.command == "bench" else [])])
        print(f"cardrl {command}: error: {err}", file=sys.stderr)
        return 2
    return 0


def _parse_train(argv: list[str]) -> argparse.Namespace | None:
    """``cardrl train``'s parse: None after printing the error of a flag of another algorithm."""
    try:
        return parse_args(argv)
    except ValueError as err:
        print(f"cardrl train: error: {err}", file=sys.stderr)
        return None


def _train(argv: list[str]) -> int:
    from cardrl.algorithms.training.loop import run_training
    from cardrl.algorithms.training.registry import driver

    try:
        args = parse_args(argv)
        return run_training(driver(args.algo), args)
    except ValueError as err:
        print(f"cardrl train: error: {err}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = expand_preset(argv)
    if argv[:1] == ["train"]:
        return _train(argv)
    args = parse_args(argv)
    if args.command == "tune":
        from cardrl.algorithms.tune.sweep import run_tune

        args.argv = argv
        try:
            return run_tune(args)
        except (ValueError, FileNotFoundError) as err:
            print(f"cardrl tune: error: {err}", file=sys.stderr)
            return 2
    if args.command == "bench":
        from cardrl.bench.cli import main_bench

        try:
            check_bench_command(args)
        except ValueError as err:
            print(f"cardrl bench {args.target}: error: {err}", file=sys.stderr)
            return 2
        return main_bench(args)
    if args.command == "plot":
        from cardrl.eval.plot import main_plot

        return main_plot(args) or 0
    if args.command == "report":
        from cardrl.eval.report import main_report

        return main_report(args)
    if args.command == "eval":
        from cardrl.eval.cli import main_eval

        return main_eval(args) or 0
    if args.command == "play":
        from cardrl.play import main_play

        return main_play(args)
    if args.command == "serve":
        from cardrl.web.cli import main_serve

        return main_serve(args)
    return 2


def console_main() -> int:
    """The ``cardrl`` console script: :func:`main`, with Ray's and RLlib's known-harmless startup lines kept off
    stderr (:mod:`cardrl.quiet`) unless ``--verbose`` is given."""
    argv = sys.argv[1:]
    if "--verbose" not in argv and argv[:1] in (["train"], ["eval"], ["tune"], ["bench"]):
        from cardrl.quiet import filter_stderr

        filter_stderr()
    return main(argv)


if __name__ == "__main__":
    sys.exit(console_main())
