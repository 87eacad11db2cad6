"""``cardrl serve``'s ASGI app (FastAPI): the pages (static HTML, CSS and JavaScript, no build step) and the JSON API
of the replay, compare, play and runs pages (docs/web.md). Every request passes :class:`~cardrl.web.guard.RequestGuard`
first and is validated; every error is JSON ``{"error": "..."}`` with a 4xx/5xx status and no server path in it;
requests name games, agents, records and runs by id, never by path."""

from __future__ import annotations

import asyncio
import secrets
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardrl.web.catalog import Catalog, NotFound
from cardrl.web.guard import LOOPBACK_HOSTS, MAX_BODY_BYTES, RequestGuard, public_message
from cardrl.web.sessions import AgentError, AgentRunner
from cardrl.web.store import SessionStore

__all__ = ["create_app", "CLIENT_COOKIE"]

STATIC = Path(__file__).parent / "static"
CLIENT_COOKIE = "cardrl_client"  # which browser a play session belongs to (the session limits are per client)


def _error(status: int, message: str, extra: dict[str, Any] | None = None) -> JSONResponse:
    return JSONResponse({"error": public_message(message), **(extra or {})}, status_code=status)


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

    @app.exception_handler(FileNotFoundError)
    async def file_missing(request: Request, err: FileNotFoundError) -> JSONResponse:
        return _error(404, f"not found: {err}")

    @app.exception_handler(ValueError)
    async def bad(request: Request, err: ValueError) -> JSONResponse:
        return _error(400, str(err), getattr(err, "extra", None))

    @app.exception_handler(AgentError)
    async def agent_failed(request: Request, err: AgentError) -> JSONResponse:
        return _error(err.status, str(err))

    @app.exception_handler(Exception)
    async def internal(request: Request, err: Exception) -> JSONResponse:  # a bug of the server, still as JSON
        return _error(500, f"internal error of cardrl serve: {type(err).__name__}: {err}")


def _info(catalog: Catalog) -> dict[str, Any]:
    from cardrl.eval.protocols import protocol_for
    from cardrl.games.registry import get_game
    from cardrl.play.session import playable_games
    from cardrl.web.options import rule_fields
    from cardrl.zoo.catalog import default_agent

    games = []
    for name in playable_games():
        spec = get_game(name)
        games.append({"name": name, "title": spec.title, "seats": list(spec.agents),
                      "arrangements": list(spec.protocol.labels), "agents": sorted(catalog.agents_for(name)),
                      "default_agent": default_agent(name),
                      "match": "max_deals" in spec.rule_options, "rules": rule_fields(spec),
                      "bidding_option": spec.protocol.bidding_option,
                      "whole_game_arrangements": None if spec.protocol.bidding_option is None
                      else list(protocol_for(name, whole_game=True).labels)})
    return {"games": games, "runs": sorted(catalog.runs), "leagues": sorted(catalog.leagues),
            "records": len(catalog.records())}


def _record_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.records import read_record
    from cardrl.play.session import notation_for
    from cardrl.web.table import record_frames, record_json

    @app.get("/api/records")
    async def records() -> list[dict[str, Any]]:
        return catalog.record_list()

    @app.get("/api/records/{rid}")
    async def record(rid: str) -> dict[str, Any]:
        path = catalog.record_path(rid)
        data = await asyncio.get_running_loop().run_in_executor(runner.pool, _replay_json, path)
        return {"id": rid, "name": path.name, **data}

    def _replay_json(path: Path) -> dict[str, Any]:
        rec = read_record(path)
        return record_json(rec, record_frames(rec, notation_for(rec.game)))


def _run_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.plot import render_png
    from cardrl.eval.report import build_report

    @app.get("/api/runs")
    async def runs() -> list[dict[str, Any]]:
        return [catalog.run_summary(run_id) for run_id in sorted(catalog.runs)]

    @app.get("/runs/{run_id}/report", response_class=HTMLResponse)
    async def report(run_id: str) -> HTMLResponse:
        path = catalog.run_path(run_id)
        page = await asyncio.get_running_loop().run_in_executor(runner.pool, build_report, path)
        return HTMLResponse(page)

    @app.get("/runs/{run_id}/curves.png")
    async def curves(run_id: str) -> Response:
        path = catalog.run_path(run_id)
        png = await asyncio.get_running_loop().run_in_executor(runner.pool, render_png, path, 80)
        return Response(png, media_type="image/png")

    @app.get("/api/leagues")
    async def leagues() -> list[dict[str, Any]]:
        return [catalog.league_table(lid) for lid in sorted(catalog.leagues)]


def _page_routes(app: FastAPI, catalog: Catalog) -> None:
    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> FileResponse:
        page = FileResponse(STATIC / "index.html")
        if CLIENT_COOKIE not in request.cookies:
            page.set_cookie(CLIENT_COOKIE, secrets.token_urlsafe(12), httponly=True, samesite="strict")
        return page

    @app.get("/api/info")
    async def info() -> dict[str, Any]:
        return _info(catalog)


def create_app(catalog: Catalog, *, agent_timeout_s: float = 10.0, max_sessions: int = 20, max_stuck: int = 2,
               allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS, max_body: int = MAX_BODY_BYTES) -> RequestGuard:
    """The app serving ``catalog`` behind its :class:`RequestGuard` (``allowed_hosts``: the Host names it answers,
    None for any; ``max_body``: the largest request body in bytes). Agents get ``agent_timeout_s`` per move, and an
    agent with ``max_stuck`` moves still running past that limit is refused until one finishes; each client (a
    browser, or a program without its cookie) may hold ``max_sessions`` play sessions."""
    from cardrl.web.compare import compare_routes
    from cardrl.web.play_routes import play_routes

    runner = AgentRunner(agent_timeout_s, max_stuck=max_stuck)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        runner.close()

    app = FastAPI(title="cardrl serve", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    store = SessionStore(per_client=max_sessions, limit=max(1000, max_sessions))
    app.state.runner, app.state.sessions, app.state.catalog = runner, store, catalog
    _handlers(app)
    _page_routes(app, catalog)
    _record_routes(app, catalog, runner)
    compare_routes(app, catalog, runner)
    play_routes(app, catalog, runner, store, CLIENT_COOKIE)
    _run_routes(app, catalog, runner)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return RequestGuard(app, allowed_hosts, max_body)
