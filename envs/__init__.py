"""PettingZoo AEC environments of the registered card games (``cardrl.envs.doudizhu_v0``, ``big2_v0``,
``guandan_v0``), the generic :class:`~cardrl.envs.card_game.CardGameEnv` behind them, and an RLlib adapter
(:mod:`cardrl.envs.rllib`).

``make_env(game, **options)`` builds the raw env of any registered game by name or env name.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["make_env"]


def make_env(game: str, **options: Any):
    """The raw AEC env of ``game`` (``"doudizhu"`` or ``"doudizhu_v0"``, ...) built with ``options``: the game's env
    module when the registry names one, else :class:`~cardrl.envs.card_game.CardGameEnv`."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    if spec.env is not None:
        return importlib.import_module(spec.env).raw_env(**options)
    from cardrl.envs.card_game import CardGameEnv

    return CardGameEnv(spec.name, **options)
