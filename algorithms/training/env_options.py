"""The env options of a run, the same for every algorithm: ``--reward``, ``--features`` and ``--match-bonus``
(:class:`~cardrl.algorithms.training.settings.RunSettings`), checked against the game."""

from __future__ import annotations

from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["env_config_of"]


def env_config_of(spec: RunSpec) -> dict:
    """The env options of a run (``--reward``, ``--features``, ``--match-bonus``), checked against its game."""
    from cardrl.games.registry import game_names, get_game

    game, run = get_game(spec.game), spec.run
    env_config = {}
    if run.reward is not None:
        if run.reward not in game.rewards:
            raise ValueError(f"--reward {run.reward} does not apply to {game.name}; its rewards: "
                             f"{', '.join(game.rewards)}")
        env_config["reward"] = run.reward
    if run.features is not None:
        game.make_features(run.features)  # an unknown encoder fails here, naming the game's
        env_config["features"] = run.features
    if run.match_bonus:
        if "match_bonus" not in game.rule_options:
            games = [name for name in game_names() if "match_bonus" in get_game(name).rule_options]
            raise ValueError(f"--match-bonus does not apply to {game.name} (no matches); it applies to "
                             f"{', '.join(games)}")
        env_config["match_bonus"] = True
    return env_config
