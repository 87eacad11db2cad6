"""The ``cardrl`` command line: ``train``, ``tune``, ``eval``, ``play``, ``serve``, ``export``, ``zoo``, ``plot``,
``report``, ``bench``.

``cardrl train doudizhu --algo dmc --stop-time 10m`` trains DouZero-style DMC on an embedded local Ray (or on
the cluster named by ``RAY_ADDRESS``), prints a progress line per iteration, evaluates against the random agent
every few minutes and writes RLlib checkpoints. ``cardrl bench env doudizhu`` measures the environment against
the peers installed beside us; ``cardrl bench train doudizhu`` measures DMC's frames/s against DouZero's trainer.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass

from cardrl.args import SignedValuesParser
from cardrl.checkpoint_trust import trusting
from cardrl.presets import expand_preset

DEFAULT_ALGO = "dmc"


def _games() -> tuple[str, ...]:
    from cardrl.games.registry import game_names

    return game_names()


def _add_train_parser(sub, algo: str, games: tuple[str, ...]) -> argparse.ArgumentParser:
    """``cardrl train``'s parser for ``--algo algo``: the run options it takes and the algorithm's own."""
    from cardrl.algorithms.training.registry import ALGORITHMS
    from cardrl.algorithms.training.run_spec import add_train_arguments

    train = sub.add_parser("train", help="train an agent (DMC, top-k PPO or RLlib's PPO) and write checkpoints",
                           epilog=f"These are the options of --algo {algo}; another algorithm's: cardrl train GAME "
                                  f"--algo {{{','.join(ALGORITHMS)}}} --help")
    add_train_arguments(train, algo, games=games)
    return train


def build_parser(algo: str = DEFAULT_ALGO) -> argparse.ArgumentParser:
    """The ``cardrl`` parser, ``cardrl train`` with the options of ``--algo algo`` (:func:`parse_args` builds the
    one of the algorithm a command line names)."""
    from cardrl.args import path_arg

    games = _games()
    parser = SignedValuesParser(prog="cardrl", description=__doc__.splitlines()[0])
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
    export, zoo_add = _add_export_parsers(sub)
    from cardrl.algorithms.tune.settings import add_tune_arguments

    tune = sub.add_parser("tune", help="Ray Tune sweep of DMC options from a space file, ranked on evaluation ADP")
    tune.add_argument("game", choices=games, help="the game to train on")
    add_tune_arguments(tune)
    for command in (train, evaluate, tune):  # the commands that start Ray
        command.add_argument("--verbose", action="store_true",
                             help="show every line Ray and RLlib print, the known-harmless startup lines included "
                                  "(cardrl/quiet.py lists them)")
    _add_trust_flag((train, tune, evaluate, play, serve, export, zoo_add))
    for command in (train, tune):  # cardrl.presets expands these before the parse; here for --help
        command.add_argument("--preset", metavar="NAME",
                             help="start from a preset of the papers' table (docs/presets.md): its game, algorithm "
                                  "and options take the place of the flag, and a flag after it wins")
        command.add_argument("--list-presets", action="store_true", help="print the presets and exit")
    return parser


def _add_export_parsers(sub) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """``cardrl export`` and ``cardrl zoo``: their parsers, and ``zoo add``'s (both load a checkpoint)."""
    from cardrl.algorithms.export import add_export_arguments
    from cardrl.algorithms.zoo import add_zoo_arguments

    export = sub.add_parser("export", help="a DMC checkpoint's Q-networks as ONNX or safetensors files that play "
                                           "without RLlib or pickle (onnx:DIR, weights:DIR; docs/export.md)")
    add_export_arguments(export)
    zoo = sub.add_parser("zoo", help="the model zoo shipped with the package (zoo:GAME): list it; add a checkpoint "
                                     "when measured stronger (docs/strength.md)")
    return export, add_zoo_arguments(zoo)


def _add_trust_flag(commands) -> None:
    """``--trust-checkpoint`` on the commands that may load a checkpoint (cardrl/checkpoint_trust.py)."""
    for command in commands:
        command.add_argument("--trust-checkpoint", action="store_true",
                             help="load the RLlib checkpoints this command names without the warning that they may "
                                  "run code: for checkpoints from someone you trust that this machine did not write "
                                  "(the same as CARDRL_TRUST_CHECKPOINTS=1; docs/operations.md, \"Security\")")


def _algo_in(argv: list[str]) -> str:
    """The ``--algo`` of a ``cardrl train`` command line (its parser depends on it; pre-parsed), else the default;
    an unknown name is left for the parse to refuse."""
    from cardrl.algorithms.training.run_spec import algo_of

    if argv[:1] != ["train"]:
        return DEFAULT_ALGO
    try:
        return algo_of(argv[1:])
    except ValueError:
        return DEFAULT_ALGO


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed once, ``cardrl train`` by the parser of its ``--algo``. A flag of another algorithm, or a run
    option the algorithm does not take, is a ValueError naming it (SystemExit with argparse's message for any other
    unknown word)."""
    from cardrl.algorithms.training.run_spec import refused_flags

    parser = build_parser(_algo_in(argv))
    for word in argv:  # argparse drops a value of '--' and keeps the option's default: refuse it instead
        if word.startswith("--") and word.endswith("=--"):
            parser.error(f"argument {word[:-3]}: '--' is not a value; give the option a value")
    args, extras = parser.parse_known_args(argv)
    if extras and args.command == "train":
        why = refused_flags(args.algo, extras)
        if not why.startswith("unrecognized"):
            raise ValueError(why)
    if extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    args.argv = list(argv)  # the command line as given, for the records (a sweep's command)
    return args


def train_spec(args: argparse.Namespace):
    """The :class:`~cardrl.algorithms.training.run_spec.RunSpec` of a parsed ``cardrl train`` command line."""
    from cardrl.algorithms.training.run_spec import RunSpec

    return RunSpec.from_values(args.game, args.algo, vars(args))


def tune_sweep(args: argparse.Namespace):
    """The :class:`~cardrl.algorithms.tune.settings.Sweep` of a parsed ``cardrl tune`` command line."""
    from cardrl.algorithms.tune.settings import Sweep

    return Sweep.from_values(args.game, vars(args), command=shlex.join(["cardrl", *args.argv]))


def check_train(args: argparse.Namespace) -> None:
    from cardrl.algorithms.training.loop import check_training

    check_training(train_spec(args), say=lambda _: None)


def run_train(args: argparse.Namespace) -> int:
    from cardrl.algorithms.training.loop import run_training

    return run_training(train_spec(args))


def check_tune(args: argparse.Namespace) -> None:
    from cardrl.algorithms.tune.sweep import check_tune as check

    check(tune_sweep(args))


def run_tune(args: argparse.Namespace) -> int:
    from cardrl.algorithms.tune.sweep import run_tune as run

    return run(tune_sweep(args))


@dataclass(frozen=True)
class Command:
    """A ``cardrl`` command: its check (the step it runs before anything heavy: Ray, training, a server, games;
    :func:`check_command_line` runs it alone) and what runs it, each ``"module:function"`` of the parsed command
    line."""

    check: str
    run: str


COMMANDS = {"train": Command("cardrl.cli:check_train", "cardrl.cli:run_train"),
            "tune": Command("cardrl.cli:check_tune", "cardrl.cli:run_tune"),
            "bench": Command("cardrl.bench.cli:check_bench", "cardrl.bench.cli:main_bench"),
            "eval": Command("cardrl.eval.cli:check_eval", "cardrl.eval.cli:main_eval"),
            "play": Command("cardrl.play.cli:check_play", "cardrl.play.cli:main_play"),
            "serve": Command("cardrl.web.cli:check_serve", "cardrl.web.cli:main_serve"),
            "export": Command("cardrl.algorithms.export:check_export", "cardrl.algorithms.export:main_export"),
            "zoo": Command("cardrl.algorithms.zoo:check_zoo", "cardrl.algorithms.zoo:main_zoo"),
            "report": Command("cardrl.run_dir:check_run_dir_args", "cardrl.eval.report:main_report"),
            "plot": Command("cardrl.run_dir:check_run_dir_args", "cardrl.eval.plot:main_plot")}
# the commands checked here before they run; the others' runs check first themselves (train inside run_training;
# eval, play, serve, export, report and plot print their one-line errors themselves)
_CHECKED_FIRST = ("tune", "bench")


def _name(args: argparse.Namespace) -> str:
    return " ".join([args.command, *([args.target] if args.command == "bench" else [])])


def _parsed(argv: list[str]) -> argparse.Namespace | None:
    """``argv`` parsed (SystemExit with argparse's message for what it refuses), or None after printing the error of
    a flag that belongs to another algorithm."""
    try:
        return parse_args(argv)
    except ValueError as err:
        print(f"cardrl {argv[0] if argv else ''}: error: {err}", file=sys.stderr)
        return None


def check_command_line(argv: list[str]) -> int:
    """``cardrl ARGV`` parsed and checked as the command checks it before it starts anything, without running it:
    0 when it would start, else 2 with the command's one-line error on stderr (argparse's exit 2 for what the parse
    refuses). The fuzz tests (tests/fuzz/test_fuzz_cli.py) drive it."""
    from cardrl.games.registry import resolve

    args = _parsed(list(expand_preset(list(argv))))
    if args is None:
        return 2
    try:
        with trusting(vars(args).get("trust_checkpoint", False)):
            resolve(COMMANDS[args.command].check)(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"cardrl {_name(args)}: error: {err}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """``cardrl ARGV``: parse, check and run the command; one error line and exit status 2 for bad input."""
    from cardrl.games.registry import resolve

    argv = expand_preset(list(sys.argv[1:] if argv is None else argv))
    args = _parsed(argv)
    if args is None:
        return 2
    command = COMMANDS[args.command]
    try:
        with trusting(vars(args).get("trust_checkpoint", False)):  # --trust-checkpoint, for this command only
            if args.command in _CHECKED_FIRST:
                resolve(command.check)(args)
            return resolve(command.run)(args) or 0
    except (ValueError, FileNotFoundError) as err:
        print(f"cardrl {_name(args)}: error: {err}", file=sys.stderr)
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
