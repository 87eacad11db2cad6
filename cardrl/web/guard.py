"""What every request to ``cardrl serve`` passes before a route sees it (docs/web.md, "Security and robustness"): the
Host header checked on a loopback server (a page of another site that rebinds its DNS name to 127.0.0.1 is turned
away), the body's size limited, a JSON body read strictly (finite numbers only, nesting bounded), and the messages
of errors freed of the server's absolute paths and cut to a readable length."""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, Awaitable, Callable

__all__ = ["RequestGuard", "JsonRefused", "strict_json", "public_message", "LOOPBACK_HOSTS", "MAX_BODY_BYTES",
           "MAX_JSON_DEPTH", "MAX_MESSAGE_CHARS"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_BODY_BYTES = 64 * 1024  # the largest request the pages send is a play request with its rule options: < 2 KiB
MAX_JSON_DEPTH = 32
MAX_MESSAGE_CHARS = 600
MAX_INT_DIGITS = 20  # 2**64 has 20 digits; a seed is below 2**63
_ABSOLUTE_PATH = re.compile(r"(?<![\w.~/])/(?:[^\s'\"/:;,()\[\]{}<>]+/)+([^\s'\"/:;,()\[\]{}<>]*)")


class JsonRefused(ValueError):
    """JSON that parses but breaks a rule of :func:`strict_json` (a number not finite, nesting too deep)."""


def _not_finite(text: str) -> float:
    raise JsonRefused(f"{text} is not a finite number; only finite numbers are accepted")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused(f"{text[:40]} is not a finite number (too large for a 64-bit float)")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonRefused(f"a whole number of {len(text)} digits is too large (at most {MAX_INT_DIGITS} digits)")
    return int(text)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def strict_json(text: str | bytes) -> Any:
    """``text`` parsed as JSON with finite numbers only (no NaN, Infinity, 1e400, or integers of more than 20
    digits) and at most :data:`MAX_JSON_DEPTH` levels of nesting: :class:`JsonRefused` saying which rule it broke,
    or ``json.JSONDecodeError`` (a ValueError too) for text that is no JSON."""
    nested = JsonRefused(f"JSON nested too deeply (at most {MAX_JSON_DEPTH} levels)")
    try:
        value = json.loads(text, parse_constant=_not_finite, parse_float=_finite_float, parse_int=_bounded_int)
        if _depth(value) > MAX_JSON_DEPTH:
            raise nested
    except RecursionError:
        raise nested from None
    except UnicodeDecodeError:
        raise JsonRefused("the body is not UTF-8 text") from None
    return value


def _short_path(match: re.Match) -> str:
    """A path of this machine (its first part is a directory here: ``/home``, ``/tmp``) cut to its last part; a
    URL's path (``/api/...``) stays."""
    first = match.group(0)[1:].split("/", 1)[0]
    return "…/" + match.group(1) if os.path.isdir("/" + first) else match.group(0)


def public_message(message: str) -> str:
    """An error message as a page may see it: absolute paths cut to their last part (``…/checkpoint``) and the text
    cut to :data:`MAX_MESSAGE_CHARS` characters (a long bad value is not echoed back whole)."""
    text = _ABSOLUTE_PATH.sub(_short_path, str(message))
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + f" … ({len(text) - MAX_MESSAGE_CHARS} more characters)"
    return text


def _host_name(host_header: str) -> str:
    """The name of a Host header without its port: ``localhost:8000`` -> ``localhost``, ``[::1]:80`` -> ``::1``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _declared_length(headers: dict[str, str]) -> int:
    """The Content-Length a request declares (0 when none or unreadable: the body read then counts)."""
    text = headers.get("content-length", "").strip()
    return int(text) if text.isdigit() and len(text) < 19 else 0


Send = Callable[[dict], Awaitable[None]]


async def _send_error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": public_message(message)}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """ASGI middleware in front of the app: ``allowed_hosts`` (None: any) are the Host names a request may carry;
    a body longer than ``max_body`` bytes is a 413; a body that :func:`strict_json` refuses is a 400 (the API takes
    JSON only). The body, read once, is handed on to the app unchanged."""

    def __init__(self, app, allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS, max_body: int = MAX_BODY_BYTES):
        self.app, self.allowed_hosts, self.max_body = app, allowed_hosts, int(max_body)

    async def __call__(self, scope: dict, receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refused = self._refused_host(headers.get("host", ""))
        if refused:
            return await _send_error(send, 403, refused)
        if _declared_length(headers) > self.max_body:
            return await _send_error(send, 413, self._too_large())
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                return await _send_error(send, 413, self._too_large())
        if body:  # every body of the API is JSON, whatever its Content-Type says
            try:
                strict_json(body)
            except ValueError as err:
                return await _send_error(send, 400, f"invalid JSON body: {err}")
        return await self.app(scope, _replay(body, receive), send)

    def _refused_host(self, host_header: str) -> str | None:
        if self.allowed_hosts is None or _host_name(host_header) in self.allowed_hosts:
            return None
        return (f"Host {host_header[:80]!r} is not this server's: cardrl serve on a loopback address answers only "
                f"requests for {', '.join(self.allowed_hosts)} (a page of another site must not reach it through "
                f"DNS rebinding)")

    def _too_large(self) -> str:
        return f"the request body is larger than {self.max_body} bytes (cardrl serve's limit); the pages send < 2 KiB"


def _replay(body: bytes, receive):
    """A ``receive`` that hands the body read by the guard to the app, then waits on the client as usual."""
    sent = False

    async def replayed() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
