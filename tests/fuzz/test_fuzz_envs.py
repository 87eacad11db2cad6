"""Fuzzing the three games' PettingZoo envs and the RLlib adapter (hypothesis stateful tests).

Random sequences of legal, illegal and malformed actions (out-of-range, negative and huge ids; strings, floats, bools,
None, numpy arrays and scalars), steps after the end, resets mid-game and before the first deal, and seeds of every
form: every call either does what the env's contract says or raises a clear error (a TypeError / ValueError, or
GameOverError / RuntimeError for a step out of turn, naming what was wrong), and a refused call leaves the whole env
as it was (every agent's observation and mask, rewards, terminations, agent to move, the engine's every field and the
seed generator). docs/operations.md, "Fuzzing".
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from cardrl.envs import make_env
from cardrl.envs.rllib import RLlibMultiAgentEnv
from cardrl.envs.turns import OrderEnforcing
from cardrl.games.engine import GameOverError, IllegalMoveError
from helpers.fuzz import bad_action_values, bad_seeds, fuzz_settings, good_seeds, int_like
from helpers.game_state import snapshot as game_snapshot

# each game with its rule options worth fuzzing (GuanDan: whole matches, cut at 2 deals so that some end)
CASES = {
    "doudizhu": {},
    "doudizhu_bidding": {"bidding": True, "spring": True},
    "doudizhu_distinct": {"kickers": "distinct", "reward": "wp"},
    "big2": {},
    "big2_low": {"straight_order": "low", "open_with_three_diamonds": False},
    "guandan_deal": {"match": False, "level": "A"},
    "guandan_match": {"max_deals": 2, "tribute_decisions": True, "match_bonus": True},
}
STEPS = 30
ANY_INT = int_like(st.integers(-2**70, 2**70))
RESET_OPTIONS = st.sampled_from([None, {}, {"unknown": 1}])
BAD_RESET_OPTIONS = st.sampled_from(["low", 3, ["bidding"], b"x"])


def _plain(value):
    """A value as something ``==`` compares by content (arrays by dtype, shape and bytes; a Generator by its state)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.random.Generator):
        return ("rng", repr(value.bit_generator.state))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


SKIPPED = {"game", "features", "spec", "observation_spaces", "action_spaces", "table", "metadata", "_legal"}


def env_snapshot(env) -> dict:
    """Everything a refused call must leave as it was (module docstring)."""
    raw = env.unwrapped
    out = {k: _plain(v) for k, v in vars(raw).items() if k not in SKIPPED}
    if raw.game.phase is not None:
        out["game"] = game_snapshot(raw.game)
        out["observe"] = {a: _plain(raw.observe(a)) for a in raw.possible_agents}
    return out


def is_int(action) -> bool:
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))


class AECMachine(RuleBasedStateMachine):
    """One env (through :class:`OrderEnforcing`, what ``env()`` returns) driven by hypothesis."""

    game = "doudizhu"
    options: dict = {}

    def __init__(self):
        super().__init__()
        self.env = OrderEnforcing(make_env(self.game, **self.options))
        self.raw = self.env.unwrapped
        self.twin = make_env(self.game, **self.options)  # a second env: the same seed deals the same game
        self.has_reset = False

    # ---- expectations ------------------------------------------------------------------------------------
    def expected(self, action):
        """None when ``step(action)`` must succeed, else the error type it must raise."""
        if not self.has_reset:
            return RuntimeError
        if not self.raw.agents:
            return GameOverError
        agent = self.raw.agent_selection
        if self.raw.terminations[agent] or self.raw.truncations[agent]:
            return None if action is None else GameOverError
        if not is_int(action):
            return TypeError
        return None if int(action) in set(self.raw.legal_moves().tolist()) else IllegalMoveError

    def check_message(self, err: Exception, action, agent) -> None:
        text = str(err)
        if isinstance(err, IllegalMoveError):
            assert text.startswith(f"{agent}: ") and str(int(action)) in text, text
        elif isinstance(err, TypeError):
            assert f"{agent}'s action must be an int in Discrete(" in text and type(action).__name__ in text, text
        elif isinstance(err, GameOverError):
            assert "reset()" in text, text
        else:
            assert "reset" in text, text

    def do_step(self, action) -> None:
        want = self.expected(action)
        agent = self.raw.agent_selection if self.has_reset else None
        before = env_snapshot(self.env)
        try:
            self.env.step(action)
        except Exception as err:  # noqa: BLE001 (the type is what is checked)
            assert want is not None and isinstance(err, want), f"step({action!r}) raised {err!r}; expected {want}"
            self.check_message(err, action, agent)
            assert env_snapshot(self.env) == before, f"refused step({action!r}) changed the env"
            return
        assert want is None, f"step({action!r}) was accepted; expected {want.__name__}"

    # ---- rules ------------------------------------------------------------------------------------------
    @rule(seed=good_seeds(), options=RESET_OPTIONS)
    def reset(self, seed, options):
        self._seed_first(seed)
        self.env.reset(seed=seed, options=options)
        self.has_reset = True
        if seed is not None:
            self.twin.reset(seed=seed)
            assert game_snapshot(self.twin.game) == game_snapshot(self.raw.game), f"seed {seed!r} deals differently"

    def _seed_first(self, seed) -> None:
        """A first reset(seed=None) deals from fresh OS entropy; seeded first, the next deals replay (hypothesis
        needs that to reproduce a failure)."""
        if seed is None and not self.has_reset:
            self.raw.reset(seed=0)

    @rule(seed=bad_seeds())
    def refused_seed(self, seed):
        self._refused_reset(seed=seed, options=None, match="seed must be a non-negative int")

    @rule(options=BAD_RESET_OPTIONS)
    def refused_options(self, options):
        self._refused_reset(seed=1, options=options, match="reset options must be None or a dict")

    def _refused_reset(self, seed, options, match):
        before = env_snapshot(self.env)
        with pytest.raises((TypeError, ValueError), match=match):
            self.raw.reset(seed=seed, options=options)
        assert env_snapshot(self.env) == before

    @rule(pick=st.integers(0, 2**16))
    def step_legal(self, pick):
        if self.has_reset and self.raw.agents and self.expected(0) is not GameOverError \
                and not self.raw.game.is_over:
            legal = self.raw.legal_moves()
            self.do_step(int(legal[pick % len(legal)]))

    @rule(moves=st.integers(1, 120), pick=st.integers(0, 2**16))
    def play_on(self, moves, pick):
        """Legal moves (and step(None) for finished agents) to get near or past the end."""
        for _ in range(moves):
            if not self.has_reset or not self.raw.agents:
                return
            agent = self.raw.agent_selection
            if self.raw.terminations[agent] or self.raw.truncations[agent]:
                self.do_step(None)
            else:
                legal = self.raw.legal_moves()
                self.do_step(int(legal[(pick + 7 * len(self.raw.game.actions)) % len(legal)]))

    @rule(action=st.one_of(ANY_INT, st.integers(0, 140_000)))
    def step_int(self, action):
        self.do_step(action)

    @rule(action=bad_action_values())
    def step_malformed(self, action):
        self.do_step(action)

    @invariant()
    def observations_fit_their_spaces(self):
        if not self.has_reset or self.raw.game.phase is None:
            return
        agent = self.raw.agent_selection
        obs = self.raw.observe(agent)
        assert self.raw.observation_space(agent).contains(obs), f"{agent}'s observation is outside its space"
        if self.raw.agents and not self.raw.game.is_over:
            assert np.array_equal(np.flatnonzero(obs["action_mask"]), self.raw.legal_moves())


class RLlibMachine(AECMachine):
    """The RLlib adapter over the same env: actions as ``{agent: action}``, malformed dicts too."""

    def __init__(self):
        super().__init__()
        self.renv = RLlibMultiAgentEnv(self.raw)
        self.returns = None

    def expected(self, action):
        if self.has_reset and not self.renv.agents:
            return GameOverError
        return super().expected(action)

    def snap(self) -> dict:
        return {"env": env_snapshot(self.env), "pending": dict(self.renv._pending), "agents": list(self.renv.agents)}

    def do_step(self, action) -> None:
        want = self.expected(action)
        agent = self.raw.agent_selection if self.has_reset else None
        before = self.snap()
        try:
            obs, rewards, terms, truncs, _ = self.renv.step({agent: action} if agent else {"player_0": action})
        except Exception as err:  # noqa: BLE001
            assert want is not None and isinstance(err, want), f"step({action!r}) raised {err!r}; expected {want}"
            if not isinstance(err, GameOverError) or self.renv.agents:
                self.check_message(err, action, agent)
            assert self.snap() == before, f"refused step({action!r}) changed the env"
            return
        assert want is None, f"step({action!r}) was accepted; expected {want.__name__}"
        for a, o in obs.items():
            assert self.renv.observation_spaces[a].contains(o)
        for a, r in rewards.items():
            self.returns[a] += r
        if terms["__all__"] or truncs["__all__"]:
            assert abs(sum(self.returns.values())) < 1e-9, f"returns {self.returns} are not zero-sum"

    @rule(seed=good_seeds(), options=RESET_OPTIONS)
    def reset(self, seed, options):
        self._seed_first(seed)
        obs, infos = self.renv.reset(seed=seed, options=options)
        self.has_reset = True
        self.returns = dict.fromkeys(self.renv.possible_agents, 0.0)
        assert list(obs) == [self.raw.agent_selection] and list(infos) == list(obs)

    @rule(actions=st.one_of(st.none(), st.just([]), st.just({}), st.text(max_size=3),
                            st.dictionaries(st.sampled_from(["nobody", "player_9", "landlord"]), st.integers(0, 9),
                                            min_size=1, max_size=2)))
    def malformed_action_dict(self, actions):
        # {the agent to move: an id} is not malformed: a legal or an illegal move, the other rules' business
        assume(not (isinstance(actions, dict) and self.has_reset and set(actions) == {self.raw.agent_selection}))
        before = self.snap()
        with pytest.raises((TypeError, ValueError, RuntimeError)) as info:
            self.renv.step(actions)
        assert "reset" in str(info.value) or "turn" in str(info.value) or "action" in str(info.value)
        assert self.snap() == before

    @rule(extra=st.sampled_from(["nobody", 3]))
    def actions_for_others_are_refused(self, extra):
        """An action for an agent not to move is a caller's mistake, not something to drop silently."""
        if self.has_reset and self.renv.agents:
            agent = self.raw.agent_selection
            before = self.snap()
            with pytest.raises(ValueError, match="not to move"):
                self.renv.step({agent: int(self.raw.legal_moves()[0]), extra: 0})
            assert self.snap() == before


def _test_cases(machine: type, prefix: str):
    for name, options in CASES.items():
        cls = type(f"{prefix}_{name}", (machine,), {"game": name.split("_")[0], "options": options})
        case = cls.TestCase
        case.settings = fuzz_settings(6, stateful_step_count=STEPS)
        yield f"Test{prefix}_{name}", case


for _name, _case in [*_test_cases(AECMachine, "AEC"), *_test_cases(RLlibMachine, "RLlib")]:
    globals()[_name] = _case
del _name, _case


# ---- regression tests: one per failure the fuzzers found (docs/operations.md, "Fuzzing") ----------------------
def _finished(game: str, **options):
    env = OrderEnforcing(make_env(game, **options))
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(env.unwrapped.legal_moves())))
    return env


@pytest.mark.parametrize("game,options", [("doudizhu", {}), ("big2", {}), ("guandan", {"match": False})])
def test_regression_step_after_every_agent_left_raises_not_warns(game, options):
    """Found: ``env().step(0)`` after the end was PettingZoo's warning and did nothing."""
    env = _finished(game, **options)
    before = env_snapshot(env)
    with pytest.raises(GameOverError, match=r"every agent has left it; call reset\(\)"):
        env.step(0)
    assert env_snapshot(env) == before


def test_regression_step_and_observe_before_reset_say_to_reset():
    """Found: before the first reset, ``raw_env().step(0)`` / ``observe`` raised AttributeError ('no attribute
    agent_selection') and ``env().step(0)`` an AssertionError."""
    with pytest.raises(RuntimeError, match=r"call reset\(seed\) before step\(0\)"):
        OrderEnforcing(make_env("big2")).step(0)
    raw = make_env("doudizhu")
    with pytest.raises(RuntimeError, match=r"call reset\(seed\) before step\(0\)"):
        raw.step(0)
    with pytest.raises(RuntimeError, match=r"call reset\(seed\) before observe\('landlord'\)"):
        raw.observe("landlord")


def test_regression_rllib_adapter_refuses_malformed_steps_and_changes_nothing():
    """Found: the adapter's ``step(None)`` raised "argument of type 'NoneType' is not iterable", a step before reset an
    AttributeError, actions for agents not to move were dropped silently, and a step after the end reached the AEC
    env (``{agent: None}`` removed an agent there)."""
    renv = RLlibMultiAgentEnv(make_env("doudizhu"))
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        renv.step({"landlord": 0})
    renv.reset(seed=1)
    agent = renv.aec.agent_selection
    legal = int(renv.aec.legal_moves()[0])
    before = env_snapshot(renv.aec)
    with pytest.raises(TypeError, match=r"step\(\) takes a dict \{agent: action\} with landlord's action, got NoneType"):
        renv.step(None)
    with pytest.raises(ValueError, match=r"'landlord_up' not to move"):
        renv.step({agent: legal, "landlord_up": 0})
    assert env_snapshot(renv.aec) == before
    rng = np.random.default_rng(0)
    done = {"__all__": False}
    while not done["__all__"]:
        *_, done, trunc, _ = renv.step({renv.aec.agent_selection: int(rng.choice(renv.aec.legal_moves()))})
    after = env_snapshot(renv.aec)
    for action in (None, 0):
        with pytest.raises(GameOverError, match=r"episode is over; call reset\(\)"):
            renv.step({renv.aec.agent_selection: action})
    assert env_snapshot(renv.aec) == after


def test_regression_doudizhu_bidding_reset_forgets_the_last_deals_bid_winner():
    """Found: with ``bidding=True`` a reset kept ``bid_winner`` from the deal before, so that ``reset(seed)`` mid-game
    was not the game a fresh env deals with that seed."""
    env, fresh = make_env("doudizhu", bidding=True), make_env("doudizhu", bidding=True)
    env.reset(seed=0)
    while env.game.phase == "bid":
        env.step(int(env.legal_moves()[-1]))  # the highest bid
    env.reset(seed=0)
    fresh.reset(seed=0)
    assert game_snapshot(env.game) == game_snapshot(fresh.game)
