"""The ASGI app (Starlette): routes, the token and host checks, body limits, errors as JSON.

``create_app(settings)`` builds it; ``curllm serve`` runs it on uvicorn. Every route is a thin
adapter over `TaskService`; every failure is ``{"error": {"code", "message"}}`` with a status.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.responses import JSONResponse as _JSONResponse
from starlette.routing import BaseRoute, Route

from .. import __version__
from ..errors import (
    BadContentType,
    BadHost,
    BadJSON,
    BodyTimeout,
    BodyTooLarge,
    CurllmError,
    InternalError,
    MethodNotAllowed,
    RequestError,
    RouteNotFound,
    ToolNotFound,
    Unauthorized,
)
from ..jsonsafe import dumps
from ..limits import TooDeep, loads
from ..registry import Registry
from .errors import HTTPError, error_body, status_for
from .openapi import openapi
from .settings import ServerSettings, is_loopback
from .sse import ClientGone, EventStream, Receive, Scope, Send, until_disconnect
from .tasks import TaskService, parse_task, tool_info

log = logging.getLogger("curllm.server")

PLAYGROUND = Path(__file__).resolve().parent / "playground.html"
#: How long a request body may take to arrive.
#: Routes anyone may read without the token: the page (it holds no data), health and the API description.
PUBLIC_PATHS = {"/", "/api/health", "/openapi.json"}


class JSONResponse(_JSONResponse):
    """Always JSON in UTF-8: a page's lone surrogate or infinite number never makes an answer a 500."""

    def render(self, content: Any) -> bytes:
        return dumps(content, separators=(",", ":")).encode("utf-8")


def error_response(error: CurllmError) -> JSONResponse:
    status = status_for(error)
    problems = [p.to_dict() for p in error.problems] or None
    headers = error.headers if isinstance(error, HTTPError) else None
    return JSONResponse(
        error_body(code=error.code, message=error.message, problems=problems),
        status_code=status,
        headers=headers,
    )


def playground_csp(html: str) -> str:
    """The playground's Content-Security-Policy: its own inline script (by hash) and nothing else runs;
    it talks to this server only, and no other page may frame it."""
    import base64
    import hashlib
    import re

    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
        for body in re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    ]
    return (
        f"default-src 'none'; script-src {' '.join(hashes)}; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


# --- middleware (pure ASGI: a streaming response must not be buffered) ---------------------------


async def _send_json(
    scope: Scope, receive: Receive, send: Send, status: int, body: dict, headers: dict[str, str] | None = None
) -> None:
    await JSONResponse(body, status_code=status, headers=headers)(scope, receive, send)


class GuardMiddleware:
    """The Host header (loopback servers) and the bearer token, before any route runs.

    A server on loopback answers only requests addressed to a loopback name: a web page that
    rebinds its own domain to 127.0.0.1 cannot reach it. With a token, every route but
    `PUBLIC_PATHS` needs ``Authorization: Bearer TOKEN`` (compared in constant time).
    """

    def __init__(self, app, settings: ServerSettings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not self.settings.exposed:
            host = headers.get("host", "")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if host and not is_loopback(name):
                await _send_json(
                    scope,
                    receive,
                    send,
                    400,
                    error_body(
                        code=BadHost.code,
                        message=f"this server answers requests to 127.0.0.1/localhost only, not {host!r}",
                    ),
                )
                return
        token = self.settings.token
        if token and scope["path"] not in PUBLIC_PATHS and scope["method"] != "OPTIONS":
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
                await _send_json(
                    scope,
                    receive,
                    send,
                    401,
                    error_body(
                        code=Unauthorized.code,
                        message="this server needs a token: send the header 'Authorization: Bearer TOKEN'"
                        + (" (the one given did not match)" if given else ""),
                    ),
                    headers={"WWW-Authenticate": "Bearer"},
                )
                return
        await self.app(scope, receive, send)


# --- the app ---------------------------------------------------------------------------------------


class Api:
    """The route handlers, over one `TaskService`."""

    def __init__(self, settings: ServerSettings, service: TaskService, mcp_enabled: bool):
        self.settings, self.service, self.mcp_enabled = settings, service, mcp_enabled

    async def read_json(self, request: Request) -> Any:
        """The JSON body: application/json, at most ``max_body_bytes`` (413), valid JSON (400)."""
        limit = self.settings.max_body_bytes
        too_large = HTTPError(
            413,
            code=BodyTooLarge.code,
            message=f"the body is larger than {limit} bytes; send less data per request",
        )
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise too_large
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            # A web page may post text/plain to 127.0.0.1 without asking first; application/json it may not.
            raise HTTPError(
                415,
                code=BadContentType.code,
                message=f"send the body as Content-Type: application/json (got {ctype or 'none'!r})",
            )
        chunks, size = [], 0
        try:
            # A body sent a byte at a time holds a connection: it has body_timeout_s to arrive.
            async with asyncio.timeout(self.settings.body_timeout_s):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise too_large
                    chunks.append(chunk)
        except TimeoutError:
            raise HTTPError(
                408,
                code=BodyTimeout.code,
                message=f"the body did not arrive within {self.settings.body_timeout_s:g} s",
            ) from None
        except ClientDisconnect:
            raise ClientGone() from None  # nobody to answer: no error, no traceback
        raw = b"".join(chunks)
        if not raw.strip():
            raise HTTPError(
                400,
                code=BadJSON.code,
                message='the body is empty: send a JSON object like {"instruction": "…"}',
            )
        try:
            return loads(raw.decode("utf-8"))
        except TooDeep as e:
            raise HTTPError(400, code=BadJSON.code, message=f"the body is {e}") from None
        except UnicodeDecodeError:
            raise HTTPError(400, code=BadJSON.code, message="the body is not UTF-8 text") from None
        except json.JSONDecodeError as e:
            raise HTTPError(
                400,
                code=BadJSON.code,
                message=f"the body is not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
            ) from None

    # routes

    async def playground(self, request: Request) -> Response:
        html = PLAYGROUND.read_text(encoding="utf-8")
        headers = {
            "cache-control": "no-cache",
            "content-security-policy": playground_csp(html),
            "x-frame-options": "DENY",  # no other page frames it (clickjacking)
            "x-content-type-options": "nosniff",
        }
        return HTMLResponse(html, headers=headers)

    async def health(self, request: Request) -> Response:
        service = self.service
        browser = "ready" if service.browser.started else (service.browser_problem or "not started")
        return JSONResponse(
            {
                "ok": True,
                "version": __version__,
                "browser": browser,
                "contexts": service.browser.open_contexts,
                "running": service.slots.running,
                "waiting": service.slots.waiting,
                "concurrency": service.slots.concurrency,
                "queue": service.slots.queue,
                "token": bool(self.settings.token),
                "mcp": self.mcp_enabled,
            }
        )

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi(secured=bool(self.settings.token)))

    async def tools(self, request: Request) -> Response:
        return JSONResponse([tool_info(m) for m in self.service.registry])

    async def tool(self, request: Request) -> Response:
        try:
            manifest = self.service.registry.resolve(request.path_params["name"])
        except ToolNotFound as e:
            raise HTTPError(404, code=e.code, message=e.message) from None
        return JSONResponse(tool_info(manifest))

    async def plan(self, request: Request) -> Response:
        task = parse_task(await self.read_json(request), need_instruction=True)
        return JSONResponse(await self.service.plan(task))

    async def scrape(self, request: Request) -> Response:
        task = await self.service.prepare(parse_task(await self.read_json(request)))
        ticket = self.service.slots.reserve()
        try:
            result = await until_disconnect(request.receive, self.service.result(task, ticket))
        except ClientGone:
            return Response(status_code=499)  # nobody reads it; for the access log
        finally:
            ticket.release()
        return JSONResponse(result.to_dict())

    async def stream(self, request: Request) -> Response | EventStream | _Stream:
        task = await self.service.prepare(parse_task(await self.read_json(request)))
        ticket = self.service.slots.reserve()
        return _Stream(EventStream(self.service.events(task, ticket)), ticket)


class _Stream:
    """An event stream that gives its slot back however it ends (even if it never started)."""

    def __init__(self, stream: EventStream, ticket):
        self.stream, self.ticket = stream, ticket

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.stream(scope, receive, send)
        finally:
            self.ticket.release()


def _handle(handler):
    """A route: CurllmError becomes its JSON error; anything else is logged and a bare 500."""

    async def endpoint(request: Request):
        try:
            return await handler(request)
        except CurllmError as e:
            return error_response(e)
        except ClientGone:
            return Response(status_code=499)  # the client left mid-request: nobody reads an answer
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return JSONResponse(
                error_body(
                    code=InternalError.code,
                    message="the server failed unexpectedly (a bug: the server log has the details)",
                ),
                status_code=500,
            )

    endpoint.__name__ = handler.__name__
    return endpoint


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        body = error_body(code=RouteNotFound.code, message=f"no route {request.url.path} (see /openapi.json)")
    elif exc.status_code == 405:
        body = error_body(
            code=MethodNotAllowed.code, message=f"{request.method} is not allowed on {request.url.path}"
        )
    else:
        body = error_body(code=RequestError.code, message=str(exc.detail))
    return JSONResponse(body, status_code=exc.status_code, headers=getattr(exc, "headers", None))


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse(
        error_body(
            code=InternalError.code,
            message="the server failed unexpectedly (a bug: the server log has the details)",
        ),
        status_code=500,
    )


def create_app(
    settings: ServerSettings | None = None, *, registry: Registry | None = None, **overrides: Any
) -> Starlette:
    """The curllm HTTP API as an ASGI app (Starlette), for `curllm serve` or embedding.

    ``settings`` (or keyword overrides of the defaults, e.g. ``token=..., concurrency=4``) are
    checked first: UsageError if they are not safe (another host without a token). The browser is
    started by the app's lifespan and shared by every request; when mounting this app inside another,
    enter ``app.router.lifespan_context(app)`` from the outer app's lifespan.
    """
    from dataclasses import replace

    settings = replace(settings or ServerSettings(), **overrides).checked()
    service = TaskService(settings, registry)
    mcp_routes, mcp_lifespan = _mcp(settings, service)
    api = Api(settings, service, mcp_enabled=bool(mcp_routes))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.start()
        try:
            async with mcp_lifespan():
                yield
        finally:
            await service.close()

    routes: list[BaseRoute] = [
        Route("/", _handle(api.playground), methods=["GET"]),
        Route("/api/health", _handle(api.health), methods=["GET"]),
        Route("/openapi.json", _handle(api.openapi), methods=["GET"]),
        Route("/api/tools", _handle(api.tools), methods=["GET"]),
        Route("/api/tools/{name:path}", _handle(api.tool), methods=["GET"]),
        Route("/api/plan", _handle(api.plan), methods=["POST"]),
        Route("/api/scrape", _handle(api.scrape), methods=["POST"]),
        Route("/api/scrape/stream", _handle(api.stream), methods=["POST"]),
        *mcp_routes,
    ]
    middleware = [Middleware(GuardMiddleware, settings=settings)]
    if settings.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        middleware.insert(
            0,
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version"],
                expose_headers=["Mcp-Session-Id"],
            ),
        )
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={StarletteHTTPException: _http_exception, Exception: _unexpected},
    )
    app.state.curllm = service
    return app


def _mcp(settings: ServerSettings, service: TaskService):
    """The MCP endpoint's routes and the lifespan its session manager needs (none without `mcp`)."""

    @contextlib.asynccontextmanager
    async def nothing() -> AsyncIterator[None]:
        yield

    if not settings.mcp:
        return [], nothing
    try:
        from .mcp_server import build_server
    except ImportError as e:  # `pip install 'curllm[mcp]'` adds it
        log.info("no MCP endpoint at /mcp (%s): pip install 'curllm[mcp]'", e)
        return [], nothing
    server = build_server(service)
    sub = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=settings.host,
        max_request_body_size=settings.max_body_bytes,
        session_idle_timeout=settings.mcp_idle_s,
        max_sessions=settings.mcp_sessions,
        # Each call is answered in full; progress notifications go on the call's own stream.
        stateless_http=False,
    )

    @contextlib.asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    from .mcp_sessions import MakeRoom

    routes = [
        Route(r.path, MakeRoom(r.endpoint, server.session_manager), methods=r.methods)
        if isinstance(r, Route) and r.path == "/mcp"
        else r
        for r in sub.routes
    ]
    return routes, running
