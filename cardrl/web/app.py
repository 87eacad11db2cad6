"""``cardrl serve``'s ASGI app (FastAPI): the pages (static HTML, CSS and JavaScript, no build step) and the JSON API
of the replay, compare, play and runs pages (docs/web.md). Every request is validated and every error is JSON
``{"error": "..."}`` with a 4xx/5xx status; requests name games, agents, records and runs by id, never by path."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardrl.web.catalog import Catalog, NotFound
from cardrl.web.sessions import AgentError, AgentRunner, PlayGame, SessionStore

__all__ = ["create_app"]

STATIC = Path(__file__).parent / "static"
MAX_SEED = 2**63 - 1


class PlayRequest(BaseModel):
    game: str
    seat: int = Field(0, ge=0, le=7)
    agent: str = "rule"
    hint_agent: str | None = None
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    deals: int = Field(1, ge=1, le=50)
    rules: dict[str, Any] = Field(default_factory=dict, max_length=16)


class MoveRequest(BaseModel):
    action: int | None = Field(None, ge=0)
    text: str | None = Field(None, max_length=200)


class CompareRequest(BaseModel):
    game: str
    a: str
    b: str
    seed: int = Field(0, ge=0, le=MAX_SEED)
    arrangement: int = Field(0, ge=0, le=7)
    rules: dict[str, Any] = Field(default_factory=dict, max_length=16)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _game(name: str):
    from cardrl.games.registry import game_names, get_game
    from cardrl.play.session import playable_games

    if name not in playable_games():
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(playable_games() or game_names())}")
    return get_game(name)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        return _error(err.status_code, f"{err.detail}: {request.method} {request.url.path} (the API is under /api/, "
                                       f"docs/web.md)" if err.status_code in (404, 405) else str(err.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        parts = [f"{'.'.join(str(x) for x in e.get('loc', ()) if x != 'body')}: {e.get('msg')}" for e in err.errors()]
        return _error(422, "invalid request: " + "; ".join(parts))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, err: NotFound) -> JSONResponse:
        return _error(404, str(err))

    @app.exception_handler(KeyError)
    async def missing(request: Request, err: KeyError) -> JSONResponse:
        return _error(404, str(err.args[0]) if err.args else "not found")

    @app.exception_handler(ValueError)
    async def bad(request: Request, err: ValueError) -> JSONResponse:
        return _error(400, str(err))

    @app.exception_handler(AgentError)
    async def agent_failed(request: Request, err: AgentError) -> JSONResponse:
        return _error(err.status, str(err))


def _info(catalog: Catalog) -> dict[str, Any]:
    from cardrl.eval.protocols import protocol_for
    from cardrl.games.registry import get_game
    from cardrl.play.session import playable_games
    from cardrl.web.options import rule_fields

    games = []
    for name in playable_games():
        spec = get_game(name)
        games.append({"name": name, "title": spec.title, "seats": list(spec.agents),
                      "arrangements": list(spec.protocol.labels), "agents": sorted(catalog.agents_for(name)),
                      "match": "max_deals" in spec.rule_options, "rules": rule_fields(spec),
                      "bidding_option": spec.protocol.bidding_option,
                      "whole_game_arrangements": None if spec.protocol.bidding_option is None
                      else list(protocol_for(name, whole_game=True).labels)})
    return {"games": games, "runs": sorted(catalog.runs), "leagues": sorted(catalog.leagues),
            "records": len(catalog.records())}


def _record_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.records import read_record
    from cardrl.play.session import notation_for
    from cardrl.web.table import record_frames

    @app.get("/api/records")
    async def records() -> list[dict[str, Any]]:
        return [{"id": rid, "name": path.name} for rid, path in catalog.records().items()]

    @app.get("/api/records/{rid}")
    async def record(rid: str) -> dict[str, Any]:
        path = catalog.record_path(rid)
        data = await asyncio.get_running_loop().run_in_executor(runner.pool, _replay_json, path)
        return {"id": rid, "name": path.name, **data}

    def _replay_json(path: Path) -> dict[str, Any]:
        rec = read_record(path)
        return _record_json(rec, record_frames(rec, notation_for(rec.game)))


def _record_json(rec, frames: list[dict[str, Any]]) -> dict[str, Any]:
    from cardrl.games.registry import get_game

    return {"game": rec.game, "title": get_game(rec.game).title, "seed": rec.seed, "options": rec.options,
            "seats_agents": rec.seats, "label": rec.label, "source": rec.source, "payoffs": rec.payoffs,
            "actions": rec.actions, "frames": frames}


def _compare_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.recording import play_recorded
    from cardrl.play.session import notation_for
    from cardrl.web.options import compare_options
    from cardrl.web.table import record_frames

    @app.post("/api/compare")
    async def compare(req: CompareRequest) -> dict[str, Any]:
        spec = _game(req.game)
        protocol, options = compare_options(spec, req.rules)
        if req.arrangement >= len(protocol.arrangements):
            raise ValueError(f"arrangement {req.arrangement}: {spec.title} has {len(protocol.arrangements)} "
                             f"({', '.join(f'{i}: {lab}' for i, lab in enumerate(protocol.labels))})")
        a_spec, b_spec = catalog.agent_spec(spec.name, req.a), catalog.agent_spec(spec.name, req.b)
        a = _bidder(spec, options, await runner.agent(a_spec, spec.name, options, 1), "be compared")
        b = _bidder(spec, options, await runner.agent(b_spec, spec.name, options, 2), "be compared")
        seats = protocol.arrangements[req.arrangement]
        sides = []
        for first, second, names in ((a, b, (req.a, req.b)), (b, a, (req.b, req.a))):
            agents = [first if s in seats else second for s in range(spec.num_players)]
            specs = [names[0] if s in seats else names[1] for s in range(spec.num_players)]
            engine = spec.make_engine(**options)
            rec = await runner.call("playing the compared deal", play_recorded, engine, agents, req.seed, specs,
                                    options, timeout_s=max(runner.timeout_s * 20, 60.0))
            sides.append(_record_json(rec, record_frames(rec, notation_for(spec.name))))
        left, right = sides[0]["actions"], sides[1]["actions"]
        diff = next((i for i, (x, y) in enumerate(zip(left, right)) if x != y),
                    None if len(left) == len(right) else min(len(left), len(right)))
        return {"game": spec.name, "seed": req.seed, "label": protocol.labels[req.arrangement], "seats": list(seats),
                "a": req.a, "b": req.b, "left": sides[0], "right": sides[1], "first_difference": diff}


def _bidder(spec, options: dict[str, Any], agent, purpose: str):
    """``agent``, refused (400) when the options bid and it cannot (it plays with a fixed landlord)."""
    from cardrl.eval.agents import check_bids
    from cardrl.eval.protocols import bids

    return check_bids(agent, f"the whole game (bidding): it cannot {purpose}") if bids(spec.name, options) else agent


def _play_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner, store: SessionStore) -> None:
    import secrets

    from cardrl.web.options import play_options

    @app.post("/api/play")
    async def start(req: PlayRequest) -> dict[str, Any]:
        spec = _game(req.game)
        if req.seat >= spec.num_players:
            raise ValueError(f"seat {req.seat}: {spec.title} has seats 0..{spec.num_players - 1}")
        options = play_options(spec, req.rules, req.deals)
        opponent = catalog.agent_spec(spec.name, req.agent)
        hint = None if req.hint_agent is None else catalog.agent_spec(spec.name, req.hint_agent)
        seed = req.seed if req.seed is not None else secrets.randbelow(1_000_000)
        others = [s for s in range(spec.num_players) if s != req.seat]
        agents = {s: _bidder(spec, options, await runner.agent(opponent, spec.name, options, seed + s),
                             "play against you") for s in others}
        hint_agent = None if hint is None else await runner.agent(hint, spec.name, options, seed)
        session = PlayGame(spec.name, req.seat, seed, options, agents, {s: req.agent for s in others}, hint_agent,
                           req.hint_agent)
        store.add(session)
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
            _apply_move(session, req)
        return await _advance_state(session)


def _apply_move(session: PlayGame, req: MoveRequest) -> None:
    """The person's move by id or typed text (the terminal's notation); ValueError saying what is allowed."""
    from cardrl.play.input import parse_input

    if session.failed is not None:
        raise AgentError(f"this game stopped: {session.failed}; start a new game", 409)
    if session.engine.is_over:
        raise ValueError("the game is over: start a new game")
    if not session.my_turn:
        raise ValueError("it is not your turn")
    if (req.action is None) == (req.text is None):
        raise ValueError("give one of 'action' (a legal move id) or 'text' (cards as typed, e.g. 33 or 5h 5d)")
    legal = [int(a) for a in session.engine.legal_moves()]
    if req.action is not None:
        if req.action not in legal:
            raise ValueError(f"action {req.action} is not a legal move now; the legal moves are listed in 'legal'")
        session.apply(req.action)
        return
    from cardrl.play.input import display_order

    items = display_order(session.notation, session.engine, legal)
    parsed = parse_input(session.notation, session.engine, req.text, items)
    if parsed.kind != "move":
        raise ValueError(("ambiguous: " if parsed.kind == "ambiguous" else "not a legal move: ")
                         + (parsed.message or f"{req.text!r} is a command of the terminal, not a move"))
    session.apply(int(parsed.action))


def _run_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.report import build_report

    @app.get("/api/runs")
    async def runs() -> list[dict[str, Any]]:
        return [catalog.run_summary(run_id) for run_id in sorted(catalog.runs)]

    @app.get("/runs/{run_id}/report", response_class=HTMLResponse)
    async def report(run_id: str) -> HTMLResponse:
        path = catalog.run_path(run_id)
        page = await asyncio.get_running_loop().run_in_executor(runner.pool, build_report, path)
        return HTMLResponse(page)

    @app.get("/api/leagues")
    async def leagues() -> list[dict[str, Any]]:
        return [catalog.league_table(lid) for lid in sorted(catalog.leagues)]


def create_app(catalog: Catalog, *, agent_timeout_s: float = 10.0, max_sessions: int = 200,
               max_stuck: int = 2) -> FastAPI:
    """The app serving ``catalog``; agents get ``agent_timeout_s`` per move, and an agent with ``max_stuck`` moves
    still running past that limit is refused until one finishes."""
    runner = AgentRunner(agent_timeout_s, max_stuck=max_stuck)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        runner.close()

    app = FastAPI(title="cardrl serve", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    store = SessionStore(max_sessions)
    app.state.runner, app.state.sessions, app.state.catalog = runner, store, catalog
    _handlers(app)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/info")
    async def info() -> dict[str, Any]:
        return _info(catalog)

    _record_routes(app, catalog, runner)
    _compare_routes(app, catalog, runner)
    _play_routes(app, catalog, runner, store)
    _run_routes(app, catalog, runner)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
