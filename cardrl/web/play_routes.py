"""The Play page's requests: a new game, its state, the person's move (a legal move's id, selected cards or typed
text) and the next deal. A refused move leaves the game as it was and says why, with the legal moves that use the
cards given (docs/web.md, "Play")."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import FastAPI, Request

from cardrl.web.catalog import Catalog
from cardrl.web.compare import bidder, game_spec
from cardrl.web.schema import MoveRequest, PlayRequest
from cardrl.web.selection import read_selection, web_message
from cardrl.web.sessions import AgentError, AgentRunner, PlayGame
from cardrl.web.store import SessionStore

__all__ = ["play_routes", "MoveRefused", "apply_move"]


class MoveRefused(ValueError):
    """A move refused (400) with legal moves the page offers instead: ``choices`` (the moves the cards given make,
    to choose from) or ``using`` (the legal moves that use those cards)."""

    def __init__(self, message: str, moves: list[dict[str, Any]], kind: str):
        super().__init__(message)
        self.extra = {"moves": moves, "moves_kind": kind}


def _moves_json(session: PlayGame, ids) -> list[dict[str, Any]]:
    return [{"id": int(a), "text": session.notation.move_text(session.engine, a)} for a in ids]


def _check_turn(session: PlayGame) -> None:
    if session.failed is not None:
        raise AgentError(f"this game stopped: {session.failed}; start a new game", 409)
    if session.engine.is_over:
        raise ValueError("the game is over: press Next deal, or start a new game")
    if session.deal_over is not None:
        raise ValueError("this deal is over: press Next deal to go on with the match")
    if not session.my_turn:
        raise ValueError("it is not your turn")


def _by_cards(session: PlayGame, tokens: list[str], legal: list[int]) -> int:
    """The legal move of exactly the selected cards; MoveRefused with the reason and what to choose otherwise."""
    from cardrl.play.input import parse_input

    if not tokens:
        raise ValueError("no cards selected: click the cards to play, or Pass")
    found = read_selection(session.notation, session.engine, tokens, legal)
    if found.action is not None:
        return found.action
    typed = " ".join(tokens)
    if found.choices:
        raise MoveRefused(f"{typed} makes {len(found.choices)} legal moves: choose one", _moves_json(
            session, found.choices), "choices")
    parsed = parse_input(session.notation, session.engine, typed, legal)
    reason = web_message(parsed.message) if parsed.kind == "error" else f"{typed} is not a legal move now"
    using = "; the legal moves with these cards are below" if found.using else "; no legal move uses these cards"
    raise MoveRefused(reason + using, _moves_json(session, found.using), "using")


def _by_text(session: PlayGame, text: str, legal: list[int]) -> int:
    """The legal move typed as in ``cardrl play`` (``33``, ``5h 5d``, ``pass``, ``#N`` of the page's list)."""
    from cardrl.play.input import parse_input

    parsed = parse_input(session.notation, session.engine, text, legal)
    if parsed.kind == "move":
        return int(parsed.action)
    if parsed.kind == "ambiguous":
        raise MoveRefused(f"ambiguous: {text!r} fits {len(parsed.candidates)} legal moves: choose one",
                          _moves_json(session, parsed.candidates[:12]), "choices")
    raise ValueError("not a legal move: " + web_message(parsed.message or f"{text!r} is a command of the terminal, "
                                                                          f"not a move"))


def apply_move(session: PlayGame, req: MoveRequest) -> None:
    """The person's move by id, selected cards or typed text; ValueError (or MoveRefused) saying what is allowed,
    the game unchanged."""
    from cardrl.play.input import display_order

    _check_turn(session)
    given = [x for x in (req.action, req.text, req.cards) if x is not None]
    if len(given) != 1:
        raise ValueError("give one of 'action' (a legal move id), 'cards' (the selected cards' tokens) or 'text' "
                         "(cards as typed, e.g. 33 or 5h 5d)")
    legal = display_order(session.notation, session.engine, session.engine.legal_moves())
    if req.action is not None:
        if req.action not in legal:
            raise ValueError(f"action {req.action} is not a legal move now; the legal moves are listed in 'legal'")
        action = req.action
    elif req.cards is not None:
        action = _by_cards(session, req.cards, legal)
    else:
        action = _by_text(session, req.text, legal)
    session.apply(int(action))


def _client(request: Request, cookie: str) -> str:
    return f"{request.client.host if request.client else '?'}/{request.cookies.get(cookie, '-')}"


def play_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner, store: SessionStore, cookie: str) -> None:
    from cardrl.web.options import DEALS_OPTION, play_options
    from cardrl.eval.protocols import bids
    from cardrl.zoo.catalog import default_agent

    @app.post("/api/play")
    async def start(req: PlayRequest, request: Request) -> dict[str, Any]:
        spec = game_spec(req.game)
        if req.seat >= spec.num_players:
            raise ValueError(f"seat {req.seat}: {spec.title} has seats 0..{spec.num_players - 1}")
        options = play_options(spec, req.rules, req.deals)
        agent_id = req.agent if req.agent is not None else \
            default_agent(spec.name, bidding=bids(spec.name, spec.full_options(options)))
        opponent = agent_id if req.agent is None else catalog.agent_spec(spec.name, agent_id)  # a default: no lookup
        hint = None if req.hint_agent is None else catalog.agent_spec(spec.name, req.hint_agent)
        seed = req.seed if req.seed is not None else secrets.randbelow(1_000_000)
        others = [s for s in range(spec.num_players) if s != req.seat]
        agents = {s: bidder(spec, options, await runner.agent(opponent, spec.name, options, (seed + s) % 2**63),
                            "play against you") for s in others}
        hint_agent = None if hint is None else await runner.agent(hint, spec.name, options, seed)
        session = PlayGame(spec.name, req.seat, seed, options, agents, {s: agent_id for s in others}, hint_agent,
                           req.hint_agent, pauses=DEALS_OPTION in spec.rule_options)
        store.add(session, _client(request, cookie))
        return await _advance_state(session)

    async def _advance_state(session: PlayGame) -> dict[str, Any]:
        async with session.lock:
            if session.failed is None:
                try:
                    await session.advance(runner)
                except AgentError as err:
                    if err.status != 503:  # refused for now (a stuck agent): the game waits, a later request goes on
                        session.failed = str(err)
                    raise
            state = session.state()
            state["hints"] = await session.hints(runner) if session.failed is None else None
            return state

    @app.get("/api/play/{sid}")
    async def get_state(sid: str) -> dict[str, Any]:
        return await _advance_state(store.get(sid))

    @app.post("/api/play/{sid}/move")
    async def move(sid: str, req: MoveRequest) -> dict[str, Any]:
        session = store.get(sid)
        async with session.lock:
            apply_move(session, req)
        return await _advance_state(session)

    @app.post("/api/play/{sid}/next")
    async def next_deal(sid: str) -> dict[str, Any]:
        session = store.get(sid)
        async with session.lock:
            if session.failed is not None:
                raise AgentError(f"this game stopped: {session.failed}; start a new game", 409)
            session.next_deal()
        return await _advance_state(session)
