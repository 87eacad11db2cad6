"""The ``cardrl`` command line: ``train``, ``tune``, ``eval``, ``play``, ``plot``, ``report``, ``bench``.

``cardrl train doudizhu --algo dmc --stop-time 10m`` trains DouZero-style DMC on an embedded local Ray (or on
the cluster named by ``RAY_ADDRESS``), prints a progress line per iteration, evaluates against the random agent
every few minutes and writes RLlib checkpoints. ``cardrl bench env doudizhu`` measures the environment against
the peers installed beside us; ``cardrl bench train doudizhu`` measures DMC's frames/s against DouZero's trainer.
"""

from __future__ import annotations

import argparse
import sys

from cardrl.presets import expand_preset


def _games() -> tuple[str, ...]:
    from cardrl.games.registry import game_names

    return game_names()


# --algo -> the settings dataclass of its own flags (besides RunSettings); "module:attr" so --help imports no Ray.
_ALGO_SETTINGS = {"dmc": "cardrl.algorithms.dmc.settings:DMCSettings",
                  "topk-ppo": "cardrl.algorithms.topk_ppo.settings:TopKPPOSettings",
                  "ppo": "cardrl.algorithms.masked_ppo.settings:PPOSettings"}
_UNSET = object()


def _algo_settings(algo: str) -> type:
    from cardrl.games.registry import resolve

    return resolve(_ALGO_SETTINGS[algo])


def _add_algorithm_flags(train: argparse.ArgumentParser) -> None:
    """The flags of the algorithms other than DMC; a flag DMC already has (--lr, ...) is shared, its help names each
    algorithm's default, and each algorithm takes its own default unless the flag is given."""
    from dataclasses import fields

    from cardrl.algorithms.dmc.settings import add_arguments, field_default

    dmc = {f.name for f in fields(_algo_settings("dmc"))}
    for algo in ("topk-ppo", "ppo"):
        settings = _algo_settings(algo)
        have = {a.dest: a for a in train._actions}
        for f in fields(settings):
            if f.name in have and f.metadata.get("cli", True):
                action = have[f.name]
                if f.name in dmc and not action.help.startswith("dmc: "):
                    action.help = "dmc: " + action.help
                default = field_default(f)
                action.help += f"; {algo}: {f.metadata['help']} (default: {default})"
        add_arguments(train, settings, skip=tuple(have))
        for action in train._actions:
            if action.dest not in have and action.help:
                action.help = f"{algo}: {action.help}"


def _given_train_flags(argv: list[str]) -> set[str]:
    """The option names given on a ``cardrl train`` command line (whatever their value)."""
    from dataclasses import fields

    from cardrl.algorithms.dmc.settings import RunSettings

    parser = build_parser()
    names = {f.name for settings in (RunSettings, *map(_algo_settings, _ALGO_SETTINGS)) for f in fields(settings)}
    parser._cardrl_train.set_defaults(**dict.fromkeys(names, _UNSET))
    args = parser.parse_args(argv)
    return {name for name in names if getattr(args, name, _UNSET) is not _UNSET}


def _check_algorithm_flags(algo: str, given: set[str]) -> None:
    """ValueError naming the given flags that belong to other algorithms than ``algo`` (none is ignored silently)."""
    from dataclasses import fields

    from cardrl.algorithms.dmc.settings import RunSettings

    own = {f.name for settings in (RunSettings, _algo_settings(algo)) for f in fields(settings)}
    foreign = sorted(given - own)
    if foreign:
        owners = {a: {f.name: "--" + (f.metadata.get("flag") or f.name).replace("_", "-")
                      for f in fields(_algo_settings(a))} for a in _ALGO_SETTINGS}
        flags = ", ".join(next(o[name] for o in owners.values() if name in o) + " (" +
                          "/".join(a for a, o in owners.items() if name in o) + ")" for name in foreign)
        raise ValueError(f"option(s) {flags} do not apply to --algo {algo}")


def build_parser() -> argparse.ArgumentParser:
    from cardrl.algorithms.dmc.settings import DMCSettings, RunSettings, add_arguments, path_arg

    games = _games()
    parser = argparse.ArgumentParser(prog="cardrl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    train = sub.add_parser("train", help="train an agent (DMC) and write checkpoints")
    train.add_argument("game", choices=games, help="the game to train on")
    train.add_argument("--algo", default="dmc", choices=list(_ALGO_SETTINGS),
                       help="the algorithm: dmc, topk-ppo (DanZero+'s PPO over a frozen DMC's k best moves) or ppo "
                            "(RLlib's PPO with an action-masking module) (default: dmc)")
    add_arguments(train, RunSettings)
    add_arguments(train, DMCSettings)
    _add_algorithm_flags(train)

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
    from cardrl.algorithms.dmc.tune import add_tune_arguments

    tune = sub.add_parser("tune", help="Ray Tune sweep of DMC options from a space file, ranked on evaluation ADP")
    tune.add_argument("game", choices=games, help="the game to train on")
    add_tune_arguments(tune)
    for command in (train, evaluate, tune):  # the commands that start Ray
        command.add_argument("--verbose", action="store_true",
                             help="show every line Ray and RLlib print, the known-harmless startup lines included "
                                  "(cardrl/quiet.py lists them)")
    parser._cardrl_train = train  # the train subparser, for _given_train_flags
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = expand_preset(argv)
    args = build_parser().parse_args(argv)
    if args.command == "train":
        from cardrl.algorithms.dmc.train import run_training

        try:
            given = _given_train_flags(sys.argv[1:] if argv is None else argv)
            _check_algorithm_flags(args.algo, given)
            if args.algo != "dmc" and getattr(args, "resume", False):
                raise ValueError(f"--resume applies to --algo dmc only; --algo {args.algo} starts from a checkpoint "
                                 f"with --restore PATH")
            if args.algo != "dmc" and getattr(args, "eval_every_frames", 0):
                raise ValueError(f"--eval-every-frames applies to --algo dmc only; --algo {args.algo} evaluates by "
                                 f"the clock, --eval-every")
            if args.algo != "dmc" and getattr(args, "eval_unpruned", False):
                raise ValueError(f"--eval-unpruned applies to --algo dmc with --prune mcs only (ODMC); --algo "
                                 f"{args.algo} does not prune")
            if args.algo == "topk-ppo":
                from cardrl.algorithms.topk_ppo.train import run_training as run_topk_ppo

                return run_topk_ppo(args, given)
            if args.algo == "ppo":
                from cardrl.algorithms.masked_ppo.train import run_training as run_ppo

                return run_ppo(args, given)
            return run_training(args)
        except ValueError as err:
            print(f"cardrl train: error: {err}", file=sys.stderr)
            return 2
    if args.command == "tune":
        from cardrl.algorithms.dmc.tune import run_tune

        args.argv = list(sys.argv[1:] if argv is None else argv)
        try:
            return run_tune(args)
        except (ValueError, FileNotFoundError) as err:
            print(f"cardrl tune: error: {err}", file=sys.stderr)
            return 2
    if args.command == "bench":
        from cardrl.bench.cli import main_bench

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
