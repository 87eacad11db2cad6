"""The env options of a ``cardrl train`` command line, the same for every algorithm: ``--reward``, ``--features``
and ``--match-bonus``, checked against the game."""

from __future__ import annotations

from argparse import Namespace

__all__ = ["env_config_from_args"]


def env_config_from_args(args: Namespace) -> dict:
    """The env options of a ``cardrl train`` command line (``--reward``, ``--features``, ``--match-bonus``), checked
    against the game."""
    from cardrl.games.registry import game_names, get_game

    spec = get_game(args.game)
    env_config = {}
    if getattr(args, "reward", None) is not None:
        if args.reward not in spec.rewards:
            raise ValueError(f"--reward {args.reward} does not apply to {spec.name}; its rewards: "
                             f"{', '.join(spec.rewards)}")
        env_config["reward"] = args.reward
    if getattr(args, "features", None) is not None:
        spec.make_features(args.features)  # an unknown encoder fails here, naming the game's
        env_config["features"] = args.features
    if getattr(args, "match_bonus", False):
        if "match_bonus" not in spec.rule_options:
            games = [name for name in game_names() if "match_bonus" in get_game(name).rule_options]
            raise ValueError(f"--match-bonus does not apply to {spec.name} (no matches); it applies to "
                             f"{', '.join(games)}")
        env_config["match_bonus"] = True
    return env_config
