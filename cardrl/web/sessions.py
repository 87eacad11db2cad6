"""The web app's games in progress: agents run off the event loop with a time limit (a slow or failing agent gives
the page an error, never stops the server), play sessions (a person at one seat, agents at the others, each session
its own engine and agents, shown only what its seat sees) and the session store."""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cardrl.agents.base import Agent, agent_view
from cardrl.eval.recording import decision_values
from cardrl.web.selection import hand_cards, move_cards_json
from cardrl.web.table import TrickTracker, table_state, values_json

__all__ = ["AgentError", "AgentRunner", "PlayGame"]

HINT_MOVES = 10  # hint values shown: the hint agent's best moves


class AgentError(RuntimeError):
    """An agent failed or took too long; ``status`` is the HTTP status the page gets (500, 504)."""

    def __init__(self, message: str, status: int = 500):
        super().__init__(message)
        self.status = status


class AgentRunner:
    """Runs agent calls (building, acting, values) on worker threads with a time limit per call.

    A Python thread cannot be stopped, so a call past its time limit goes on running. Each agent (``key``: its spec)
    has its own pool of ``max_stuck + 2`` threads: a stuck agent holds only its own threads, and once ``max_stuck`` of
    its calls are still running past their limit, its new calls are refused at once (503) until one finishes; the
    other agents and the pages are served as before (docs/web.md, "Security and robustness").
    """

    def __init__(self, timeout_s: float, workers: int = 4, max_stuck: int = 2):
        self.timeout_s = float(timeout_s)
        self.max_stuck = int(max_stuck)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardrl-pages")
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._stuck: dict[str, int] = {}
        self._lock = threading.Lock()  # _stuck is released from the worker threads
        self._shared: dict[tuple, Agent] = {}
        self._loading: dict[tuple, asyncio.Future] = {}

    def stuck(self, key: str) -> int:
        """How many calls of ``key`` are still running past their time limit."""
        with self._lock:
            return self._stuck.get(key, 0)

    def _pool(self, key: str) -> ThreadPoolExecutor:
        if key not in self._pools:
            self._pools[key] = ThreadPoolExecutor(max_workers=self.max_stuck + 2, thread_name_prefix="cardrl-agent")
        return self._pools[key]

    def _mark_stuck(self, key: str, work) -> None:
        def release(_) -> None:
            with self._lock:
                self._stuck[key] -= 1

        with self._lock:
            self._stuck[key] = self._stuck.get(key, 0) + 1
        work.add_done_callback(release)  # at once when it finished meanwhile

    async def call(self, what: str, fn: Callable[..., Any], *args: Any, timeout_s: float | None = None,
                   key: str | None = None) -> Any:
        """``fn(*args)`` on ``key``'s threads (default: ``what``); AgentError 504 past the time limit, 503 when
        ``max_stuck`` of ``key``'s calls are still running past theirs, 500 when ``fn`` raised."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        key = what if key is None else key
        stuck = self.stuck(key)
        if stuck >= self.max_stuck:
            raise AgentError(f"{what} is refused for now: {stuck} earlier call(s) of {key!r} are still running past "
                             f"their time limit (at most {self.max_stuck} may be, cardrl serve --max-stuck); try again "
                             f"when they finish, or choose another agent", 503)
        work = self._pool(key).submit(fn, *args)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(work), limit)
        except asyncio.TimeoutError:
            if not work.done():  # a queued call was cancelled; a running one goes on: it is stuck
                self._mark_stuck(key, work)
            raise AgentError(f"{what} took longer than {limit:g} s (cardrl serve --agent-timeout)", 504) from None
        except (AgentError, KeyError):
            raise
        except Exception as err:  # an agent's own failure: reported to the page, the server goes on
            raise AgentError(f"{what} failed: {type(err).__name__}: {err}") from err

    async def agent(self, spec: str, game: str, options: dict[str, Any], seed: int) -> Agent:
        """The agent of ``spec``. Agents without per-deal state (their class keeps :meth:`Agent.reset`) are built once
        and shared: a checkpoint is loaded once for every session, and requests that ask for it while it loads wait
        for that one load."""
        key = (spec, game, tuple(sorted(options.items())))
        if key in self._shared:
            return self._shared[key]
        loading = self._loading.get(key)
        if loading is not None:  # wait for that load; an agent with per-deal state is then built for this request
            await asyncio.wait([loading])
            return self._shared[key] if key in self._shared else await self._build(spec, game, options, seed)
        loading = self._loading[key] = asyncio.ensure_future(self._build(spec, game, options, seed))
        try:
            agent = await loading
        finally:
            self._loading.pop(key, None)
        if type(agent).reset is Agent.reset:
            self._shared[key] = agent
        return agent

    async def _build(self, spec: str, game: str, options: dict[str, Any], seed: int) -> Agent:
        from cardrl.eval.agents import build_agent

        return await self.call(f"loading agent {spec!r}", build_agent, spec, game, options, seed,
                               timeout_s=max(self.timeout_s, 120.0), key=spec)

    def close(self) -> None:
        for pool in (self.pool, *self._pools.values()):
            pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class PlayGame:
    """One person's games, deal after deal: ``seat`` is theirs, ``agents`` play the others, ``hint_agent`` (or None)
    gives hints. ``seed`` is the deal being played; the next deal is ``seed + 1``. A match (a game of several deals,
    ``pauses``) stops between its deals until the person asks for the next (``deal_over``: the lines saying how the
    last deal ended)."""

    game_name: str
    seat: int
    seed: int
    options: dict[str, Any]
    agents: dict[int, Agent]
    specs: dict[int, str]
    hint_agent: Agent | None
    hint_spec: str | None = None
    pauses: bool = False
    id: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    failed: str | None = None
    last_used: float = field(default_factory=time.monotonic)
    results: list[float] = field(default_factory=list)  # the person's payoff of each finished game before this one

    def __post_init__(self) -> None:
        from cardrl.play.session import notation_for

        self.notation = notation_for(self.game_name)
        self._deal(self.seed)

    def _deal(self, seed: int) -> None:
        from cardrl.games.registry import get_game

        self.seed = seed
        self.engine = get_game(self.game_name).make_engine(**self.options).reset(seed)
        for agent in {id(a): a for a in self.agents.values()}.values():
            agent.reset(seed)
        self.tracker = TrickTracker(self.notation, self.engine)
        self.events: list[str] = []
        self.deal_over: list[str] | None = None
        self._hints: tuple[int, Any] | None = None

    @property
    def my_turn(self) -> bool:
        return not self.engine.is_over and self.deal_over is None and int(self.engine.current_player) == self.seat

    def apply(self, action: int) -> None:
        deal = self.tracker.deal
        self.tracker.before(self.engine, action, self.seat)
        self.engine.step(int(action))
        lines = self.tracker.after(self.engine, self.seat)
        self.events += lines
        if self.pauses and self.tracker.deal != deal and not self.engine.is_over:
            self.deal_over = lines

    def next_deal(self) -> None:
        """Go on after a deal: the match's next deal, or a new game on the next seed; ValueError while a deal is
        being played."""
        if self.deal_over is not None:
            self.deal_over = None
            self.events = []
        elif self.engine.is_over:
            self.results.append(self.my_payoff())
            self._deal((self.seed + 1) % 2**63)
        else:
            raise ValueError("this deal is still being played: finish it first (or start a new game)")

    def my_payoff(self) -> float:
        """The person's payoff so far in this game: of the finished game, or of a match's finished deals."""
        return float(np.asarray(self.engine.payoffs())[self.seat])

    async def advance(self, runner: AgentRunner) -> None:
        """Let the agents move until it is the person's turn, a deal of a match has ended, or the game is over."""
        while not self.engine.is_over and self.deal_over is None and not self.my_turn:
            seat = int(self.engine.current_player)
            agent = self.agents[seat]
            view = agent_view(agent, self.engine, seat)
            action = await runner.call(f"agent {self.specs[seat]!r} (seat {seat})", agent.act, view,
                                       self.engine.legal_moves(), key=self.specs[seat])
            if int(action) not in {int(a) for a in self.engine.legal_moves()}:
                raise AgentError(f"agent {self.specs[seat]!r} (seat {seat}) chose an illegal move {action}")
            self.apply(int(action))

    async def hints(self, runner: AgentRunner) -> dict[str, Any] | None:
        """The hint agent's values of the person's legal moves (best first), once per decision."""
        if self.hint_agent is None or not self.my_turn:
            return None
        step = len(self.engine.actions)
        if self._hints is None or self._hints[0] != step:
            view = self.engine.view(self.seat)
            entry = await runner.call(f"the hint agent {self.hint_spec!r}", decision_values, self.hint_agent, view,
                                      self.engine.legal_moves(), HINT_MOVES, key=self.hint_spec)
            self._hints = (step, values_json(self.notation, self.engine, entry))
        return self._hints[1]

    def state(self) -> dict[str, Any]:
        """What the person sees: their hand card by card, the others' card counts, the table, their legal moves with
        the cards each uses, the log, the session's score; at the end the result and the actions."""
        from cardrl.play.input import display_order

        game, n = self.engine, self.notation
        out = table_state(n, game, self.tracker, self.seat)
        legal = display_order(n, game, game.legal_moves()) if self.my_turn else []
        cards = move_cards_json(n, game, legal)
        out.update(session=self.id, game=self.game_name, seat=self.seat, seed=str(self.seed), your_turn=self.my_turn,
                   seats_agents={str(s): spec for s, spec in self.specs.items()},
                   my_cards=hand_cards(n, game, self.seat),
                   legal=[{"id": int(a), "text": n.move_text(game, a), "cards": c} for a, c in zip(legal, cards)],
                   log=self.tracker.deal_log(), events=self.events[-12:], failed=self.failed,
                   to_beat=(n.to_beat(game) or (None,))[0], has_hints=self.hint_agent is not None,
                   deal_over=self.deal_over, score=self.score())
        if game.is_over:
            out["result"] = n.result_lines(game, self.seat)
            out["actions"] = [int(a) for a in game.actions]
        return out

    def score(self) -> dict[str, Any]:
        """The session's running score: games finished and the person's total payoff (a match in progress counts
        its finished deals)."""
        now = self.my_payoff()
        return {"games": len(self.results) + int(self.engine.is_over), "total": sum(self.results) + now,
                "this_game": now}
