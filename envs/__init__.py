"""PettingZoo AEC environments of the registered card games (``cardrl.envs.doudizhu_v0``, ``big2_v0``,
``guandan_v0``), the generic :class:`~cardrl.envs.card_game.CardGameEnv` behind them, and an RLlib adapter
(:mod:`cardrl.envs.rllib`).

``make_env(game, **options)`` builds the raw env of any registered game by name or env name.

Importing this package registers each game's env with PettingZoo's registry (PettingZoo 1.27's ``pettingzoo.make``,
which PettingZoo prefers to the per-module ``xxx_v0.env()`` constructors; those stay): ``cardrl/DouDiZhu-v0``,
``cardrl/Big2-v0``, ``cardrl/GuanDan-v0`` (the game's title and its env version), and under the env name as well
(``cardrl/doudizhu_v0``, the name RLlib's registry uses). ``pettingzoo.make("aec", "cardrl/DouDiZhu-v0",
reward="wp")`` passes its keywords to ``doudizhu_v0.env``.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["make_env", "register_pettingzoo_envs", "pettingzoo_ids"]


def make_env(game: str, **options: Any):
    """The raw AEC env of ``game`` (``"doudizhu"`` or ``"doudizhu_v0"``, ...) built with ``options``: the game's env
    module when the registry names one, else :class:`~cardrl.envs.card_game.CardGameEnv`."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    if spec.env is not None:
        return importlib.import_module(spec.env).raw_env(**options)
    from cardrl.envs.card_game import CardGameEnv

    return CardGameEnv(spec.name, **options)


def pettingzoo_ids(game: str) -> tuple[str, str]:
    """The two PettingZoo registry ids of ``game``'s env: ``cardrl/<Title>-v<N>`` and ``cardrl/<name>-v<N>`` (the
    env name ``doudizhu_v0``, which PettingZoo writes ``doudizhu-v0``)."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    name, _, version = spec.env_name.rpartition("_v")
    return f"cardrl/{spec.title.replace(' ', '')}-v{version}", f"cardrl/{name}-v{version}"


def register_pettingzoo_envs() -> list[str]:
    """Register the env module of every registered game that has one with PettingZoo's AEC registry (module
    docstring); returns the ids registered. Ids already registered to the same constructor are left as they are."""
    from pettingzoo import aec_registry, register

    from cardrl.games.registry import game_names, get_game

    done = []
    for game in game_names():
        spec = get_game(game)
        if spec.env is None:
            continue
        entry_point = f"{spec.env}:env"
        for env_id in pettingzoo_ids(game):
            if getattr(aec_registry.get(env_id), "entry_point", None) != entry_point:
                register("aec", env_id, entry_point=entry_point)
            done.append(env_id)
    return done


register_pettingzoo_envs()
