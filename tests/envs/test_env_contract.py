"""The env contract, checked on every registered game's PettingZoo env (and the toy game's generic one,
tests/helpers/toy_game.py): PettingZoo's api_test and seed_test under each game's option cases; bad action types
and ids out of range refused with an error naming the agent, and bad seeds and reset options refused, each with the
state unchanged; a step after the end refused; render modes. What is one game's own (its pass, its rules, its
observation layout) is tested in test_<game>_env.py.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardrl.envs import make_env
from cardrl.games.engine import GameOverError, IllegalMoveError
from cardrl.games.registry import game_names, get_game, register_game, resolve, unregister_game
from helpers.aec_play import play_random, snapshot
from helpers.toy_game import DUEL

# (env options, api_test cycles, whether seed_test runs too) per game; a game not named runs ({}, 200, True)
ENV_CASES = {
    "doudizhu": [({}, 300, True), ({"bidding": True}, 300, True), ({"features": "unified"}, 100, False),
                 ({"features": "unified", "bidding": True}, 100, False)],
    "big2": [({}, 200, True), ({"open_with_three_diamonds": False, "straight_order": "low"}, 200, True)],
    "guandan": [({"match": False}, 200, True), ({"max_deals": 2, "tribute_decisions": True}, 400, False)],
}
ONE_DEAL = {"guandan": {"match": False}}  # options of the single-deal checks below (a whole match is long)
BAD_TYPES = ((1.0, "float"), ("3", "str"), (True, "bool"), (None, "NoneType"), ([1], "list"))


@pytest.fixture(scope="module", autouse=True)
def toy_game_registered():
    register_game(DUEL, replace=True)
    yield
    unregister_game("duel")


def _names() -> list[str]:
    return list(dict.fromkeys([*game_names(), "duel"]))


def _env_cases() -> list[tuple[str, dict, int, bool]]:
    return [(name, *case) for name in _names() for case in ENV_CASES.get(name, [({}, 200, True)])]


@pytest.mark.parametrize("name,options,cycles,seeded", _env_cases(), ids=lambda x: str(x))
def test_pettingzoo_api_and_seed(name, options, cycles, seeded):
    env = make_env(name, **options)
    assert env.metadata["name"] == get_game(name).env_name
    api_test(env, num_cycles=cycles)
    if seeded:
        seed_test(lambda: make_env(name, **options), num_cycles=cycles)


@pytest.mark.parametrize("name", _names())
def test_bad_actions_raise_naming_the_agent_and_change_nothing(name):
    env = make_env(name, **ONE_DEAL.get(name, {}))
    env.reset(seed=5)
    agent = env.agent_selection
    n = env.action_space(agent).n
    before = snapshot(env)
    for action in (n, -1):
        with pytest.raises(IllegalMoveError, match=f"{agent}: .*out of range"):
            env.step(action)
    for action, kind in BAD_TYPES:
        with pytest.raises(TypeError, match=rf"{agent}'s action must be an int in Discrete\({n}\).*got {kind}"):
            env.step(action)
    assert snapshot(env) == before
    env.step(int(env.unwrapped.legal_moves()[0]))  # still playable after the rejections


@pytest.mark.parametrize("name", _names())
def test_bad_seeds_and_reset_options_change_nothing(name):
    env = make_env(name, **ONE_DEAL.get(name, {}))
    env.reset(seed=4)
    before = snapshot(env)
    for bad in (1.5, "3", [1], True):
        with pytest.raises(TypeError, match="seed must be a non-negative int"):
            env.reset(seed=bad)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        env.reset(seed=-1)
    with pytest.raises(TypeError, match="reset options must be None or a dict"):
        env.reset(seed=1, options="low")
    assert snapshot(env) == before


@pytest.mark.parametrize("name", _names())
def test_a_step_after_the_end_is_refused(name):
    env = make_env(name, **ONE_DEAL.get(name, {}))
    env.reset(seed=2)
    play_random(env, np.random.default_rng(1))
    assert env.agents == []
    with pytest.raises(GameOverError, match="reset"):
        env.unwrapped.step(0)
    raw = make_env(name, **ONE_DEAL.get(name, {})).unwrapped
    raw.reset(seed=2)
    rng = np.random.default_rng(1)
    while not raw.game.is_over:
        raw.step(int(rng.choice(raw.legal_moves())))
    with pytest.raises(GameOverError, match=r"step\(None\)"):
        raw.step(0)


@pytest.mark.parametrize("name", _names())
def test_render_modes(name):
    with pytest.raises(ValueError, match="render_mode"):
        make_env(name, render_mode="human")
    quiet = make_env(name, **ONE_DEAL.get(name, {}))
    quiet.reset(seed=4)
    assert quiet.render() is None
    env = make_env(name, render_mode="ansi", **ONE_DEAL.get(name, {}))
    env.reset(seed=4)
    env.step(int(env.unwrapped.legal_moves()[0]))
    assert isinstance(env.render(), str) and env.render()


@pytest.mark.parametrize("name", game_names())
def test_pettingzoo_make_builds_each_registered_env(name):
    """Importing cardrl.envs registers each game with PettingZoo's registry (PettingZoo 1.27, ``pettingzoo.make``):
    ``cardrl/<Title>-v0`` and the env name's id build the module constructor's env, keywords passed through, and it
    passes PettingZoo's api_test."""
    import pettingzoo

    from cardrl.envs import pettingzoo_ids

    spec = get_game(name)
    reward = resolve(spec.engine).rewards[-1]  # not the default: the keyword reaches the env
    titled, named = pettingzoo_ids(name)
    assert titled == f"cardrl/{spec.title}-v0"
    env = pettingzoo.make("aec", titled, reward=reward, **ONE_DEAL.get(name, {}))
    assert type(env) is type(importlib.import_module(spec.env).env(**ONE_DEAL.get(name, {})))
    assert env.metadata["name"] == spec.env_name and env.unwrapped.reward == reward
    api_test(env, num_cycles=100)
    assert pettingzoo.make("aec", f"cardrl/{spec.env_name}", **ONE_DEAL.get(name, {})).metadata["name"] \
        == spec.env_name  # PettingZoo reads the env name's "_v0" as "-v0"
