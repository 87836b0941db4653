"""Room for a new /mcp session: when every session place is taken, the longest-idle session is closed.

The SDK's session manager keeps at most ``max_sessions`` sessions and closes one after
``session_idle_timeout`` seconds without a request; a new session beyond the limit gets its 503
("Too many open sessions"). `MakeRoom` wraps the /mcp endpoint: before a request that opens a
session (no ``mcp-session-id`` header) while the manager is full, it closes the session idle the
longest (no request in flight) the way an idle timeout does, so only a server whose every session
is busy refuses. It reads the manager's and transports' session state (mcp 2.x).
"""

from __future__ import annotations

import logging
import math
from typing import Any

import anyio

log = logging.getLogger("curllm.mcp")

_CLOSE_WAIT_S = 5.0  # how long the closed session may take to leave the manager


class MakeRoom:
    """An ASGI app: the /mcp endpoint, closing the longest-idle session when a new one finds no room."""

    def __init__(self, app: Any, manager: Any):
        self.app, self.manager = app, manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not any(k == b"mcp-session-id" for k, _ in scope["headers"]):
            await self._make_room()
        await self.app(scope, receive, send)

    def _full(self) -> bool:
        limit = self.manager.max_sessions
        return limit is not None and len(self.manager._server_instances) >= limit

    async def _make_room(self) -> None:
        if not self._full():
            return
        idle = [
            t
            for t in self.manager._server_instances.values()
            if getattr(t, "_requests_in_flight", 1) == 0 and getattr(t, "idle_scope", None) is not None
        ]
        if not idle:
            return  # every session is busy: the manager answers 503
        # An idle session's deadline is its last request's end plus the idle timeout: the earliest is the oldest.
        oldest = min(
            idle, key=lambda t: t.idle_scope.deadline if math.isfinite(t.idle_scope.deadline) else math.inf
        )
        log.info("MCP sessions full (%d): closing the longest-idle session", self.manager.max_sessions)
        oldest.idle_scope.cancel()
        with anyio.move_on_after(_CLOSE_WAIT_S):
            while oldest in self.manager._server_instances.values():
                await anyio.sleep(0.01)
