"""The game registry: one :class:`GameSpec` per game, the single place where what differs by game is written down.

Everything outside a game's own modules asks the registry: the envs (agent names, features, the env module), the
evaluation (seat arrangements and scoring), DMC (each encoder's default Q-network), the search
(Minimum Combination Search and eq. 2's N) and the agent specs (rule agents). A new game is an engine (a subclass of
:class:`~cardrl.games.engine.Engine`), a feature encoder, optionally an env module and rule agents, and one
:func:`register_game` call; docs/extending.md walks through it.

References to code are ``"module:qualified.name"`` strings resolved on first use (or the objects themselves), so
importing the registry imports no engine, env, agent or search module.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Union

__all__ = ["GameSpec", "EvalProtocol", "register_game", "unregister_game", "get_game", "game_names", "resolve",
           "Ref"]

Ref = Union[str, Callable[..., Any]]


def resolve(ref: Ref) -> Any:
    """The object a reference names: ``"package.module:Class.attr"`` is imported, a callable is returned as is."""
    if not isinstance(ref, str):
        return ref
    module, _, qualname = ref.partition(":")
    if not qualname:
        raise ValueError(f"a reference must look like 'package.module:name', got {ref!r}")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class EvalProtocol:
    """How a deal is replayed with sides swapped and how side A is scored (Luo & Tan 2024, Sec. 5.1; DouZero's
    ``evaluate.py``; DanZero, Sec. V-B).

    ``arrangements[k]`` are the seats side A takes in arrangement ``k`` (side B takes the others),
    ``labels[k]`` names it in tables and ``sides[k]`` in results (the key of A's mean score in that arrangement); ``scored[k]`` are the seats whose payoffs sum to A's score (default: A's seats; a
    GuanDan team's points are one seat's, since both seats of a team get them). ``reward`` is the payoff kind
    scored and ``win_reward`` the kind whose sign decides a win (``None``: the game's default / the score's sign).
    ``required_options`` are rule options the protocol needs (DouDiZhu: a fixed landlord), ``deal_options`` the
    options that make one game a single deal (GuanDan: ``match=False``), ``unit`` what ``cardrl eval`` plays
    by default: ``"deal"`` (duplicate deal files) or ``"match"`` (GuanDan's whole matches), and
    ``training_options`` the rule options that shape only what an agent learns from (GuanDan's ``match_bonus``):
    a training run's evaluations play without them, so that scores stay in the game's units.
    ``bidding_option`` is the rule option under which the players bid for their roles (DouDiZhu's ``bidding``): a
    whole-game tournament sets it and rotates the sides over every split of the seats (:mod:`cardrl.eval.whole_game`).
    """

    arrangements: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    sides: tuple[str, ...]
    scored: tuple[tuple[int, ...], ...] | None = None
    reward: str | None = None
    win_reward: str | None = None
    required_options: Mapping[str, Any] = field(default_factory=dict)
    deal_options: Mapping[str, Any] = field(default_factory=dict)
    unit: str = "deal"
    training_options: tuple[str, ...] = ()
    bidding_option: str | None = None

    @property
    def score_name(self) -> str:
        """What an evaluation's mean is called: points per deal where the episode is a match (its deals are
        evaluated singly), ADP otherwise (Luo & Tan 2024, Sec. 5.1)."""
        return "points/deal" if self.unit == "match" else "ADP"

    @property
    def arrangements_text(self) -> str:
        """How a final evaluation line counts the plays of each deal: "2 (teams swapped)" where the episode is a
        match (GuanDan), else "N arrangements"."""
        return "2 (teams swapped)" if self.unit == "match" else f"{len(self.arrangements)} arrangements"

    def __post_init__(self):
        if not len(self.labels) == len(self.sides) == len(self.arrangements):
            raise ValueError("EvalProtocol: one label and one side name per arrangement")
        if self.scored is not None and len(self.scored) != len(self.arrangements):
            raise ValueError("EvalProtocol: one tuple of scored seats per arrangement")
        if self.unit not in ("deal", "match"):
            raise ValueError(f"EvalProtocol.unit must be 'deal' or 'match', got {self.unit!r}")
        object.__setattr__(self, "required_options", _frozen(self.required_options))
        object.__setattr__(self, "deal_options", _frozen(self.deal_options))

    def scored_seats(self, k: int) -> tuple[int, ...]:
        return self.arrangements[k] if self.scored is None else self.scored[k]


@dataclass(frozen=True)
class GameSpec:
    """Everything about one game that the rest of cardrl needs (module docstring).

    Fields:
        name: the registry key (``"doudizhu"``), also the CLI's game argument.
        title: the name people write (``"DouDiZhu"``).
        engine: the :class:`~cardrl.games.engine.Engine` subclass; ``engine(**rule_options)`` builds one game.
        agents: the env agent names by seat (DouDiZhu's roles, Big2's compass points, GuanDan's players).
        rule_options: every rule option of the engine with its default (docs/rules.md).
        normalise_options: optional ``f(options) -> options`` that checks a full option dict and returns its
            canonical form (e.g. JSON-read values back to their types); raise ValueError naming what is allowed.
        upgrade_stored_options: optional ``f(options) -> options`` reading rule options as an older cardrl stored
            them (deal files) in today's form.
        features: feature encoder name -> class (constructed without arguments); the first is the default.
        protocol: the :class:`EvalProtocol`.
        search: optional ``f(engine) -> search`` giving the game's Minimum Combination Search (Luo & Tan, Alg. 2).
        average_initial_cards: N of Luo & Tan's eq. 2 (the average number of cards a player is dealt).
        agent_kinds: agent-spec kind -> ``f(options) -> Agent`` for the game's own agents (``rule``, ...).
        env: the env module (``raw_env`` / ``env`` inside), or ``None`` for the generic
            :class:`cardrl.envs.card_game.CardGameEnv`.
        env_name: the env's versioned name (``"doudizhu_v0"``), also its RLlib registration ``cardrl/<env_name>``.
        peers: other implementations of the game the benchmarks measure when installed.

    How a person types and reads the game (``cardrl play``) is not here: it is the ``notation`` module beside the
    engine (:func:`cardrl.games.notation.notation_of`).
    """

    name: str
    title: str
    engine: Ref
    agents: tuple[str, ...]
    rule_options: Mapping[str, Any]
    features: Mapping[str, Ref]
    protocol: EvalProtocol
    normalise_options: Ref | None = None
    upgrade_stored_options: Ref | None = None
    search: Ref | None = None
    average_initial_cards: float | None = None
    agent_kinds: Mapping[str, Ref] = field(default_factory=dict)
    env: str | None = None
    env_name: str = ""
    peers: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.features:
            raise ValueError(f"game {self.name!r}: a GameSpec needs at least one feature encoder")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"game {self.name!r}: agent names must be distinct, got {self.agents}")
        for k, seats in enumerate(self.protocol.arrangements):
            if not seats or any(not 0 <= s < len(self.agents) for s in seats):
                raise ValueError(f"game {self.name!r}: arrangement {k} names seats {seats} outside 0..{len(self.agents) - 1}")
        if (self.search is None) != (self.average_initial_cards is None):
            raise ValueError(f"game {self.name!r}: search and average_initial_cards come together")
        for name in ("rule_options", "features", "agent_kinds"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        if not self.env_name:
            object.__setattr__(self, "env_name", f"{self.name}_v0")

    # ---- derived ------------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.agents)

    @property
    def default_features(self) -> str:
        return next(iter(self.features))

    @property
    def engine_class(self) -> type:
        return resolve(self.engine)

    @property
    def rewards(self) -> tuple[str, ...]:
        """The payoff kinds of the engine; the first is the default."""
        return tuple(self.engine_class.rewards)

    def seat_of(self, agent: str) -> int:
        try:
            return self.agents.index(agent)
        except ValueError:
            raise ValueError(f"{self.name} has no agent {agent!r}; its agents are {list(self.agents)}") from None

    # ---- options ------------------------------------------------------------------------------------
    def full_options(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The rule options with defaults filled in, checked and normalised; unknown keys raise ValueError."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.rule_options))
        if unknown:
            raise ValueError(f"unknown {self.name} rule option(s) {unknown}; allowed: {sorted(self.rule_options)}")
        full = {**self.rule_options, **given}
        if self.normalise_options is not None:
            full = dict(resolve(self.normalise_options)(full))
        return full

    def stored_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Rule options read from a file an older cardrl may have written, in today's form (not yet checked)."""
        if self.upgrade_stored_options is None:
            return dict(options)
        return dict(resolve(self.upgrade_stored_options)(dict(options)))

    # ---- builders -----------------------------------------------------------------------------------
    def make_engine(self, **options: Any):
        """An engine with ``options`` (rule options; unknown ones raise ValueError naming the allowed)."""
        unknown = sorted(set(options) - set(self.rule_options))
        if unknown:
            raise ValueError(f"unknown {self.name} rule option(s) {unknown}; allowed: {sorted(self.rule_options)}")
        return self.engine_class(**options)

    def make_features(self, name: str | None = None):
        """A feature encoder by name (default: the game's first)."""
        name = self.default_features if name is None else name
        if name not in self.features:
            raise ValueError(f"features={name!r} is unknown; allowed: {sorted(self.features)} (the {self.name} encoders)")
        return resolve(self.features[name])()

    def make_search(self, engine):
        """The game's Minimum Combination Search for ``engine``'s move set (ValueError if the game has none)."""
        if self.search is None:
            raise ValueError(f"{self.name} has no Minimum Combination Search; games with one: "
                             f"{[g for g in game_names() if get_game(g).search is not None]}")
        return resolve(self.search)(engine)

    def agent_kind(self, kind: str) -> Callable[[Mapping[str, Any]], Any] | None:
        """The factory ``f(options) -> Agent`` of a game-specific agent kind, or None."""
        ref = self.agent_kinds.get(kind)
        return None if ref is None else resolve(ref)


_GAMES: dict[str, GameSpec] = {}


def register_game(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the registry (``replace=True`` to overwrite a game of the same name); returns it."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game takes a GameSpec, got {type(spec).__name__}")
    if spec.name in _GAMES and not replace:
        raise ValueError(f"a game named {spec.name!r} is already registered (pass replace=True to overwrite)")
    _GAMES[spec.name] = spec
    return spec


def unregister_game(name: str) -> None:
    """Remove a game (tests that register a toy game clean up with this)."""
    _GAMES.pop(name, None)


def game_names() -> tuple[str, ...]:
    """The registered games, in registration order."""
    return tuple(_GAMES)


def get_game(name: str) -> GameSpec:
    """The spec of a game by name or env name (``"doudizhu"`` or ``"doudizhu_v0"``); ValueError listing the games."""
    if isinstance(name, GameSpec):
        return name
    spec = _GAMES.get(name)
    if spec is None:
        spec = next((s for s in _GAMES.values() if s.env_name == name), None)
    if spec is None:
        raise ValueError(f"game {name!r} is unknown; available: {sorted(_GAMES)}")
    return spec


# ---- the games -------------------------------------------------------------------------------------------
register_game(GameSpec(
    name="doudizhu", title="DouDiZhu",
    engine="cardrl.games.doudizhu:DouDizhuGame",
    agents=("landlord", "landlord_down", "landlord_up"),
    rule_options={"kickers": "douzero", "bidding": False, "spring": False},
    normalise_options="cardrl.games.doudizhu:normalise_options",
    features={"douzero": "cardrl.features.douzero:DouZeroFeatures",
              "unified": "cardrl.features.unified:UnifiedFeatures"},
    protocol=EvalProtocol(arrangements=((0,), (1, 2)), labels=("A landlord", "A peasants"),
                          sides=("landlord", "peasants"),
                          reward="adp", win_reward="wp", required_options={"bidding": False},
                          bidding_option="bidding"),
    search="cardrl.search.mcs:search_for_table_game", average_initial_cards=54 / 3,
    agent_kinds={"rule": "cardrl.agents.doudizhu_rule:DouDizhuRuleAgent.from_rule_options",
                 "rlcard": "cardrl.agents.rlcard_rule:RLCardRuleAgent.from_rule_options"},
    env="cardrl.envs.doudizhu_v0", peers=("douzero", "rlcard", "open_spiel"),
))
register_game(GameSpec(
    name="big2", title="Big2",
    engine="cardrl.games.big2:Big2Game",
    agents=("west", "south", "east", "north"),
    rule_options={"straight_order": "bigzero", "open_with_three_diamonds": True, "penalty_multipliers": None},
    normalise_options="cardrl.games.big2:normalise_options",
    features={"unified": "cardrl.features.unified:UnifiedFeatures"},
    protocol=EvalProtocol(arrangements=((0,), (1,), (2,), (3,)),
                          labels=("A seat 0", "A seat 1", "A seat 2", "A seat 3"),
                          sides=("west", "south", "east", "north")),
    search="cardrl.search.mcs:search_for_table_game", average_initial_cards=13.0,
    agent_kinds={"rule": "cardrl.agents.big2_rule:Big2RuleAgent.from_rule_options"},
    env="cardrl.envs.big2_v0",
))
register_game(GameSpec(
    name="guandan", title="GuanDan",
    engine="cardrl.games.guandan:GuanDanGame",
    agents=("player_0", "player_1", "player_2", "player_3"),
    rule_options={"match": True, "level": "2", "a_level_attempts": 3, "return_level_card": False,
                  "match_bonus": False, "tribute_decisions": False, "max_deals": None},
    normalise_options="cardrl.games.guandan:normalise_options",
    upgrade_stored_options="cardrl.games.guandan:upgrade_stored_options",
    features={"danzero": "cardrl.features.danzero:DanZeroFeatures",
              "danzero_keyed": "cardrl.features.danzero:DanZeroKeyedFeatures"},
    protocol=EvalProtocol(arrangements=((0, 2), (1, 3)), labels=("A team 0", "A team 1"),
                          sides=("team_0", "team_1"), scored=((0,), (1,)),
                          deal_options={"match": False}, unit="match", training_options=("match_bonus",)),
    search="cardrl.search.guandan_mcs:search_for_engine", average_initial_cards=108 / 4,
    agent_kinds={"rule": "cardrl.agents.guandan_rule:GuanDanShedAgent.from_rule_options",
                 "rule-control": "cardrl.agents.guandan_rule:GuanDanControlAgent.from_rule_options"},
    env="cardrl.envs.guandan_v0",
))
