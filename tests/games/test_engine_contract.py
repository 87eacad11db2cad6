"""The engine contract, checked on every registered game (OpenSpiel's shared random-simulation test, in spirit) and on
a toy fourth game added through the registry alone (tests/helpers/toy_game.py).

Random games: legal ids sorted, unique and in range, non-empty until the end; every legal move held by the player
(its card vector within the hand) and accepted by ``is_legal``; cards conserved; payoffs zero-sum for every reward
kind; nothing legal and every step refused after the end. Copies are independent and ``replay(seed, actions)``
rebuilds the state. Bad input (wrong types, ids out of range, an illegal id, a step before the deal or after the
end, a bad seat or reward) raises with the state unchanged. The envs' contract is test_env_contract.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.envs import make_env
from cardrl.games.engine import GameOverError, IllegalMoveError
from cardrl.games.registry import game_names, get_game, register_game, unregister_game
from helpers.game_state import snapshot
from helpers.toy_game import DUEL

# rule options that matter for the contract, beyond each game's defaults (a new game is tested with its defaults)
EXTRA_OPTIONS = {
    "doudizhu": [{"kickers": "distinct"}, {"bidding": True, "spring": True}],
    "big2": [{"straight_order": "low", "penalty_multipliers": {10: 2, 13: 3}}, {"open_with_three_diamonds": False}],
    "guandan": [{"match": False}, {"max_deals": 2, "tribute_decisions": True, "match_bonus": True}],
    "duel": [{"double": True}],
}
GAMES_PER_CASE = {"guandan": 2}  # whole GuanDan matches are long: fewer games


@pytest.fixture(scope="module", autouse=True)
def toy_game_registered():
    register_game(DUEL, replace=True)
    yield
    unregister_game("duel")


def _cases() -> list[tuple[str, dict]]:
    names = list(dict.fromkeys([*game_names(), "duel"]))
    return [(g, options) for g in names for options in [{}] + EXTRA_OPTIONS.get(g, [])]


def _state(game) -> tuple:
    """What must not change on a refused action, and what a replay must rebuild."""
    return (game.phase, game.current_player, list(game.actions), game.cards_held().tolist(),
            game.cards_played().tolist(), game.payoffs().tolist())


def _by_rank(cards: np.ndarray) -> np.ndarray:
    """Counts per rank (13 groups of 4 kinds) and of each joker."""
    return np.concatenate([cards[:52].reshape(13, 4).sum(axis=1), cards[52:]])


def _check_position(game, rng) -> None:
    legal = game.legal_moves()
    assert legal.dtype == np.int64 and legal.ndim == 1 and len(legal) > 0
    assert (np.diff(legal) > 0).all() and legal.min() >= 0 and legal.max() < game.num_actions
    held = game.cards_held()[game.current_player]
    cards = game.move_cards(legal)
    assert cards.shape == (len(legal), 54) and (cards <= held).all()  # every legal move is held
    assert all(game.is_legal(int(a)) for a in legal[:20])
    total = game.cards_held().sum(axis=0) + game.cards_played().sum(axis=0) + game.undealt_cards()
    assert (_by_rank(total) == _by_rank(game.deck)).all()  # cards are conserved (DouDiZhu's kinds are per rank)
    assert game.payoffs().shape == (game.num_players,)
    assert isinstance(game.move_string(int(legal[0])), str)
    not_legal = np.setdiff1d(rng.integers(0, game.num_actions, size=20), legal)
    if len(not_legal):
        assert not game.is_legal(int(not_legal[0]))


@pytest.mark.parametrize("name,options", _cases(), ids=lambda x: str(x))
def test_random_games_keep_the_contract(name, options):
    spec = get_game(name)
    game = spec.make_engine(**options)
    rng = np.random.default_rng(0)
    for g in range(GAMES_PER_CASE.get(name, 6)):
        game.reset(100 + g)
        steps = 0
        while not game.is_over:
            if steps % 7 == 0:
                _check_position(game, rng)
            game.step(int(rng.choice(game.legal_moves())))
            steps += 1
            assert steps < 100_000
        for reward in spec.rewards:
            assert abs(game.payoffs(reward).sum()) < 1e-9  # zero-sum
        assert len(game.legal_moves()) == 0
        with pytest.raises(GameOverError):
            game.step(0)
        assert game.actions and len(game.actions) == steps


@pytest.mark.parametrize("name,options", _cases(), ids=lambda x: str(x))
def test_copy_is_independent_and_replay_rebuilds_the_state(name, options):
    spec = get_game(name)
    rng = np.random.default_rng(1)
    game = spec.make_engine(**options).reset(7)
    for _ in range(int(rng.integers(5, 60))):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_moves())))
    before = _state(game)
    twin = game.copy()
    if not twin.is_over:
        twin.step(int(twin.legal_moves()[-1]))
        assert _state(twin) != before
    assert _state(game) == before
    assert _state(spec.engine_class.replay(7, game.actions, **options)) == before


# (action, error, message) refused in every game; "n" stands for num_actions
BAD_ACTIONS = [(-1, IllegalMoveError, r"action -1 is out of range"), ("n", IllegalMoveError, r"{n} is out of range"),
               (10**30, IllegalMoveError, r"out of range"), (1.5, TypeError, r"an action must be an int.*float 1\.5"),
               (3.0, TypeError, r"int.*float 3\.0"), (np.float64(2), TypeError, r"int.*float"),
               ("3", TypeError, r"int.*str '3'"), (None, TypeError, r"int.*NoneType None"),
               (True, TypeError, r"int.*bool True"), ([3], TypeError, r"int.*list")]
BAD_SEEDS = [(1.5, TypeError), ("3", TypeError), (-1, ValueError), (True, TypeError), (None, TypeError),
             (np.float64(4), TypeError), (-(2**70), ValueError)]


def _leading_and_following(spec) -> list:
    """A position where the player to move leads, and one after a first move."""
    lead = spec.make_engine().reset(3)
    follow = spec.make_engine().reset(3)
    follow.step(int(follow.legal_moves()[0]))
    return [lead, follow]


@pytest.mark.parametrize("name", list(dict.fromkeys([*game_names(), "duel"])))
def test_bad_input_raises_and_changes_nothing(name):
    spec = get_game(name)
    with pytest.raises(RuntimeError, match="reset"):
        spec.make_engine().legal_moves()
    for game in _leading_and_following(spec):
        before, every_field = _state(game), snapshot(game)
        illegal = int(np.setdiff1d(np.arange(game.num_actions), game.legal_moves())[0])
        for bad, error, message in BAD_ACTIONS + [(illegal, IllegalMoveError, "")]:
            bad = game.num_actions if bad == "n" else bad
            with pytest.raises(error, match=message.format(n=game.num_actions)):
                game.step(bad)
            if error is TypeError:
                with pytest.raises(TypeError, match="action must be an int"):
                    game.is_legal(bad)
            else:
                assert not game.is_legal(bad)
        assert _state(game) == before and snapshot(game) == every_field
    game = spec.make_engine().reset(3)
    for seat in (-1, spec.num_players, 1.0, True):
        with pytest.raises(ValueError, match="seat"):
            game.view(seat)
    with pytest.raises(ValueError, match="reward"):
        game.payoffs("no-such-reward")
    with pytest.raises(ValueError, match="unknown .* rule option"):
        spec.make_engine(no_such_option=1)


@pytest.mark.parametrize("name", list(dict.fromkeys([*game_names(), "duel"])))
def test_bad_seeds_raise_and_change_nothing(name):
    spec = get_game(name)
    game = _leading_and_following(spec)[1]
    before = snapshot(game)
    for seed, error in BAD_SEEDS:
        with pytest.raises(error, match="seed") as info:
            game.reset(seed)
        assert repr(seed) in str(info.value) or str(seed) in str(info.value)
        with pytest.raises(error, match="seed"):
            spec.engine_class.replay(seed, [])
    assert snapshot(game) == before
    assert snapshot(spec.make_engine().reset(np.int64(5))) == snapshot(spec.make_engine().reset(5))


@pytest.mark.parametrize("name", list(dict.fromkeys([*game_names(), "duel"])))
def test_a_step_after_the_end_raises_and_changes_nothing(name):
    spec = get_game(name)
    game = spec.make_engine(**({"match": False} if name == "guandan" else {})).reset(3)
    rng = np.random.default_rng(3)
    while not game.is_over:
        game.step(int(rng.choice(game.legal_moves())))
    assert game.legal_moves().size == 0
    before = snapshot(game)
    for action in (0, -1, game.num_actions - 1):
        with pytest.raises(GameOverError, match="over"):
            game.step(action)
        assert not game.is_legal(action)
    assert snapshot(game) == before


@pytest.mark.parametrize("name", list(dict.fromkeys([*game_names(), "duel"])))
def test_views_hide_the_other_hands_and_the_oracle_shows_them(name):
    game = get_game(name).make_engine().reset(4)
    view = game.view(game.current_player)
    assert view.hands is None and view.role == get_game(name).agents[game.current_player]
    oracle = game.oracle_view()
    assert oracle.hands is not None
    legal = game.legal_moves()
    assert (view.move_cards(legal) == game.move_cards(legal)).all()


def test_a_new_game_gets_env_evaluation_and_agents_from_the_registry():
    """The toy game plays a duplicate tournament, a mcs-less spec refuses mcs-greedy, and its generic env encodes
    with its own features."""
    from cardrl.eval.agents import build_agent
    from cardrl.eval.tournament import run_tournament

    result = run_tournament("random:1", "random:2", 40, game="duel", seed=0)
    assert result.scores.shape == (40, 2) and np.isin(result.scores, (-1.0, 1.0)).all()
    with pytest.raises(ValueError, match="Minimum Combination Search"):
        build_agent("mcs-greedy", "duel")
    with pytest.raises(ValueError, match="rule"):
        build_agent("rule", "duel")
    env = make_env("duel", double=True)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == (122,) and obs["action_mask"].shape == (13,)


def test_every_cardrl_game_has_a_notation_beside_its_engine():
    """``cardrl play`` finds a game's notation by convention (cardrl.games.notation.notation_of): every game cardrl
    registers has one; the toy game, which has none, is refused with the games that can be played."""
    from cardrl.games.notation import GameNotation, notation_of
    from cardrl.play import notation_for

    for name in game_names():
        notation = notation_of(get_game(name).engine_class)
        if name == "duel":
            assert notation is None
        else:
            assert isinstance(notation, GameNotation) and notation.title == get_game(name).title
    with pytest.raises(ValueError, match="Duel cannot be played in the terminal.*doudizhu, big2, guandan"):
        notation_for("duel")
