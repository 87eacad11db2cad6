"""``cardrl serve [PATH ...]``: the web app on uvicorn, on 127.0.0.1 unless ``--host`` says otherwise (docs/web.md)."""

from __future__ import annotations

import argparse
import sys

from cardrl.web.guard import LOOPBACK_HOSTS

__all__ = ["add_serve_arguments", "main_serve", "check_serve"]


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    from cardrl.args import positive_float, positive_int

    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="what to serve: run directories (curves, latest evaluation, their checkpoints as "
                             "agents), game records (.json, docs/records.md) or directories of them (cardrl eval "
                             "--save-games DIR), league tables (.csv of cardrl eval --league --out)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default: %(default)s; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: %(default)s, this machine only; another address lets "
                             "other machines in, with a warning: there is no authentication)")
    parser.add_argument("--agent", action="append", default=[], metavar="SPEC",
                        help="an agent spec the pages may pick besides the built-in ones and the runs' checkpoints "
                             "(repeat for several), e.g. checkpoint:runs/dmc_big2/checkpoint")
    parser.add_argument("--agent-timeout", type=positive_float, default=10.0, metavar="S",
                        help="seconds an agent may take for one move before the game stops with an error "
                             "(default: %(default)s)")
    parser.add_argument("--max-sessions", type=positive_int, default=20,
                        help="play sessions one client (a browser) may hold at once; a client starting another game "
                             "drops its own least recently used one (default: %(default)s)")
    parser.add_argument("--max-stuck", type=int, default=2, metavar="N",
                        help="moves of one agent that may still be running past --agent-timeout (a thread cannot be "
                             "stopped); then that agent's new moves are refused (503) until one finishes "
                             "(default: %(default)s)")


def check_serve(args: argparse.Namespace):
    """What ``cardrl serve`` checks before it listens: the port, the agent specs, the paths (read into the catalog,
    which it returns). ValueError naming what is wrong."""
    from cardrl.eval.agents import parse_agent_spec
    from cardrl.web.catalog import build_catalog

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535 (0: any free port), got {args.port}")
    if not 1 <= args.max_stuck <= 64:
        raise ValueError(f"--max-stuck must be 1..64, got {args.max_stuck}")
    for spec in args.agent:
        parse_agent_spec(spec)
    return build_catalog(args.paths, args.agent)


def main_serve(args: argparse.Namespace) -> int:
    """Build the catalog (bad paths or agent specs: one error line, 2) and serve until interrupted."""
    try:
        import uvicorn

        from cardrl.web.app import create_app
    except ImportError as err:
        print(f"cardrl serve: error: {err.name} is missing: pip install 'cardrl[web]'", file=sys.stderr)
        return 2
    try:
        catalog = check_serve(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"cardrl serve: error: {err}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK_HOSTS:
        print(f"cardrl serve: warning: listening on {args.host}: anyone who can reach this address can use the app "
              f"(there is no authentication); the default 127.0.0.1 keeps it to this machine", file=sys.stderr)
    print(f"cardrl serve: {len(catalog.runs)} run(s), {len(catalog.records())} game record(s), "
          f"{len(catalog.leagues)} league table(s); http://{args.host}:{args.port}/ (ctrl-C stops)", flush=True)
    hosts = LOOPBACK_HOSTS if args.host in LOOPBACK_HOSTS else None  # a loopback server checks the Host header
    app = create_app(catalog, agent_timeout_s=args.agent_timeout, max_sessions=args.max_sessions,
                     max_stuck=args.max_stuck, allowed_hosts=hosts)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
