"""The PettingZoo AEC env every registered card game gets: an engine and a feature encoder behind PettingZoo's turns.

============================  ==========================================================================
Agents                        the game's agent names by seat (``GameSpec.agents``), in play order
Observation                   ``Dict(observation=Box(obs_low, obs_high, (obs_dim,), float32),
                              action_mask=Box(0, 1, (num_actions,), int8))`` per agent
Action                        ``Discrete(num_actions)``: the engine's action ids
Reward                        each agent's zero-sum payoff (``reward=`` one of the engine's payoff kinds) at the end
Options                       ``features=`` (a registered encoder), ``reward=``, ``render_mode`` (None or ``"ansi"``)
                              and the game's rule options (``GameSpec.rule_options``)
============================  ==========================================================================

:class:`CardGameEnv` is used as is for a game registered without an env module, and the three games' envs
(:mod:`cardrl.envs.doudizhu_v0`, :mod:`cardrl.envs.big2_v0`, :mod:`cardrl.envs.guandan_v0`) subclass it for what is
theirs (DouDiZhu's bidding observation, GuanDan's per-deal rewards). :func:`cardrl.envs.make_env` builds the env of
any game by name.

An illegal or out-of-range action, a wrong action type, or a step after the episode is over raises an error that
says what was wrong and what is allowed; the state is unchanged. Bad options raise at construction.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import numpy as np
from pettingzoo import AECEnv

from cardrl.envs.turns import DeclaredSpaces, OrderEnforcing, check_action_int, leave_if_done, masked_spaces, settle_rewards
from cardrl.games.engine import IllegalMoveError, check_seed
from cardrl.games.registry import GameSpec, get_game

__all__ = ["CardGameEnv", "env_for"]


class CardGameEnv(DeclaredSpaces, AECEnv):
    """A PettingZoo AEC env over a registered game (module docstring). ``game`` names it unless a subclass sets
    ``game_name``."""

    game_name: ClassVar[str | None] = None
    episode_word: ClassVar[str] = "deal"  # what an episode is called in messages

    def __init__(self, game: str | None = None, *, features: str | None = None, reward: str | None = None,
                 render_mode: str | None = None, **rule_options: Any):
        super().__init__()
        if game is not None and self.game_name is not None and game != self.game_name:
            raise ValueError(f"{type(self).__name__} plays {self.game_name}, not {game!r}")
        name = game or self.game_name
        if name is None:
            raise ValueError("CardGameEnv needs the game's name, e.g. CardGameEnv('doudizhu')")
        self.spec: GameSpec = get_game(name)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, 'ansi'")
        rewards = self.spec.rewards
        if reward is not None and reward not in rewards:
            raise ValueError(f"reward={reward!r} is unknown for {self.spec.name}; allowed: {rewards}")
        self.reward = rewards[0] if reward is None else reward
        self.render_mode = render_mode
        self.metadata = {"render_modes": ["ansi"], "name": self.spec.env_name, "is_parallelizable": False}
        self.game = self.spec.make_engine(**rule_options)
        self.features = self.spec.make_features(features)
        self.num_actions = self.game.num_actions
        self.possible_agents = list(self._agent_names())
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = masked_spaces(
            {a: self._obs_dim(a) for a in self.possible_agents}, self.num_actions,
            low=self.features.obs_low, high=self.features.obs_high)
        self._seed_rng: np.random.Generator | None = None
        self._legal: np.ndarray | None = None

    # ---- hooks a game's env may override ---------------------------------------------------------------
    def _agent_names(self) -> tuple[str, ...]:
        return self.spec.agents

    def _obs_dim(self, agent: str) -> int:
        return self.features.obs_dim(agent)

    def _encode(self, seat: int) -> np.ndarray:
        return self.features.encode(self.game, seat)

    def _info(self, agent: str) -> dict:
        return {"seat": self._seat_of[agent]}

    def _after_step(self, agent: str) -> None:
        """Rewards and terminations after ``agent`` moved: every agent's payoff when the game is over."""
        settle_rewards(self, agent, (lambda: self.game.payoffs(self.reward)) if self.game.is_over else None,
                       self._seat)

    # ---- scoring segments (what a DMC runner labels its frames by) ------------------------------------------
    @property
    def segments_done(self) -> int:
        """Scoring segments finished in this episode: here the episode itself (1 once it is over)."""
        return int(self.game.is_over)

    def segment_payoffs(self, k: int) -> np.ndarray:
        """Payoff per seat of segment ``k`` (here: the episode's payoffs)."""
        return self.game.payoffs(self.reward)

    @property
    def segment_payoffs_final(self) -> bool:
        """Whether the finished segments' payoffs can no longer change."""
        return True

    @property
    def segment_bonus(self) -> np.ndarray:
        """Per seat, the part of every finished segment's payoff that rewards the episode's outcome (GuanDan's match
        bonus); zeros here."""
        return np.zeros(len(self.possible_agents))

    # ---- seats and moves ---------------------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        try:
            return self._seat_of[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None

    def legal_moves(self) -> np.ndarray:
        """Legal action ids of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_moves()
        return self._legal

    def action_features(self, action_ids) -> np.ndarray:
        """``(n, action_dim)`` float32 action features of action ids (the encoder's, at the current state)."""
        return self.features.action_features(self.game, action_ids)

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` without building the action mask (the DMC runner's fast path)."""
        return self._encode(self._seat(agent))

    # ---- AEC API -------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` (a non-negative int) makes the sequence of deals reproducible.

        ``options`` (None or a dict) is accepted and ignored, as PettingZoo's API expects: rule options are
        constructor keywords (module docstring).
        """
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"reset options must be None or a dict (they are ignored: rule options such as "
                            f"{', '.join(self.spec.rule_options)} go to env(...) / raw_env(...)), got "
                            f"{type(options).__name__} {options!r}")
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        elif self._seed_rng is None:
            self._seed_rng = np.random.default_rng()
        self.game.reset(int(self._seed_rng.integers(2**63 - 1)))
        self._legal = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def _require_reset(self, call: str) -> None:
        if self.game.phase is None:
            raise RuntimeError(f"no deal yet: call reset(seed) before {call}")

    def observe(self, agent: str) -> dict:
        self._require_reset(f"observe({agent!r})")
        seat = self._seat(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self.legal_moves()] = 1
        return {"observation": self._encode(seat), "action_mask": mask}

    def step(self, action) -> None:
        self._require_reset(f"step({action!r})")
        agent = self.agent_selection
        if leave_if_done(self, action, episode=self.episode_word):
            return
        action = check_action_int(agent, action, self.num_actions, "an action id")
        try:
            self.game.step(action)
        except IllegalMoveError as err:
            raise IllegalMoveError(f"{agent}: {err}") from None
        self._legal = None
        self._after_step(agent)
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.game.render()

    def close(self) -> None:
        pass


def env_for(game: str, **kwargs) -> AECEnv:
    """:class:`CardGameEnv` of ``game`` wrapped in PettingZoo's order-enforcing checks."""
    return OrderEnforcing(CardGameEnv(game, **kwargs))
