"""Running the app on uvicorn: bind first (so the address is known, port 0 included), then serve."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from ..registry import Registry
from .settings import ServerSettings


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; OSError (address in use, no such address) is the caller's to report."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host.strip("[]"), port), family=family, reuse_port=False)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _protocol(head_timeout_s: float) -> type:
    """uvicorn's h11 protocol, and a time limit on request heads: a connection that has not sent a
    whole head within ``head_timeout_s`` (`ServerSettings`) of opening (or of its last answer) is closed, so slow, half-sent
    heads cannot hold the server's connections (before any token check). Bodies have the app's limit."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            old = getattr(self, "_deadline", None)
            if old is not None:
                old.cancel()
            waiting_after = self.cycle  # a new request replaces it once its head is in
            self._deadline = self.loop.call_later(head_timeout_s, self._too_slow, waiting_after)

        def _too_slow(self, waiting_after: object) -> None:
            if self.cycle is waiting_after and not self.transport.is_closing():
                self.transport.close()

    return Protocol


def serve(
    settings: ServerSettings,
    *,
    registry: Registry | None = None,
    on_ready: Callable[[str], None] | None = None,
    log_level: str = "warning",
    access_log: bool = False,
) -> None:
    """Serve the app until SIGINT/SIGTERM (uvicorn shuts down gracefully, closing the browser)."""
    import uvicorn

    from .app import create_app

    app = create_app(settings, registry=registry)
    sock = bind(settings.host, settings.port)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=5,
        http=_protocol(settings.head_timeout_s),
        # Our own logging set-up (stderr, "curllm:" prefix) stays in charge.
        log_config=None,
    )
    server = uvicorn.Server(config)
    if on_ready is not None:
        on_ready(url_of(sock))  # the socket listens already: connections wait in its backlog
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        sock.close()
