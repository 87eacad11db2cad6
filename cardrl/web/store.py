"""The play sessions of ``cardrl serve`` by id, with limits per client (docs/web.md, "Security and robustness"): a
client that starts more games than its share drops its own least recently used game, never anyone else's, so a
burst of requests from one page cannot block Play for the others."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from cardrl.web.sessions import AgentError

__all__ = ["SessionStore"]


class SessionStore:
    """Sessions (anything with ``id`` and ``last_used``) by id: at most ``per_client`` for one client (its least
    recently used one goes when it starts another) and ``limit`` in all (the least recently used idle one goes;
    when every session was used in the last ``busy_s`` seconds, a new one is refused, 503). Idle ones expire after
    ``idle_s``."""

    def __init__(self, per_client: int = 20, limit: int = 1000, idle_s: float = 3600.0, busy_s: float = 60.0):
        self.per_client, self.limit = int(per_client), int(limit)
        self.idle_s, self.busy_s = float(idle_s), float(busy_s)
        self._sessions: OrderedDict[str, Any] = OrderedDict()  # least recently used first
        self._client: dict[str, str] = {}  # session id -> client

    def add(self, session: Any, client: str) -> None:
        now = time.monotonic()
        for sid in [s for s, g in self._sessions.items() if now - g.last_used > self.idle_s]:
            self._drop(sid)
        own = [sid for sid in self._sessions if self._client[sid] == client]
        if len(own) >= self.per_client:
            self._drop(own[0])
        if len(self._sessions) >= self.limit:
            oldest = next(iter(self._sessions))
            if now - self._sessions[oldest].last_used < self.busy_s:
                raise AgentError(f"{self.limit} games are in progress on this server; try again in a minute", 503)
            self._drop(oldest)
        self._sessions[session.id] = session
        self._client[session.id] = client

    def get(self, sid: str) -> Any:
        session = self._sessions.get(sid)
        if session is None:
            raise KeyError(f"no play session {sid!r} (it ended, expired after {self.idle_s:g} s idle, was replaced "
                           f"by a newer game of the same client, or the server restarted): start a new game")
        session.last_used = time.monotonic()
        self._sessions.move_to_end(sid)
        return session

    def of_client(self, client: str) -> int:
        return sum(1 for c in self._client.values() if c == client)

    def _drop(self, sid: str) -> None:
        del self._sessions[sid]
        del self._client[sid]

    def __len__(self) -> int:
        return len(self._sessions)
