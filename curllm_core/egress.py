"""The egress proxy: the only way out of a browser context that has a network policy.

Playwright's request routing does not see everything a page sends: Chromium follows redirects of a
routed request on its own, WebSockets, workers' requests and others bypass it. So a policed context
gets a proxy on 127.0.0.1 (Playwright also proxies loopback), and every connection the browser opens
comes through here and is put to `NetworkPolicy` first:

- ``CONNECT host:port`` (https, wss, ws): the host is checked, then tunnelled;
- ``GET http://host/path`` (plain http, every redirect hop): checked, then sent upstream with
  ``Connection: close`` and answered with ``Connection: close``, so that the browser opens a new
  connection (and gets a new check) for its next request.

With ``--block-private`` the proxy connects to exactly the addresses the check passed, so a host
cannot answer the check with a public address and the connection with a private one. A refused
request gets no response (the browser reports a network error) and is recorded in ``blocked``.
With a user ``--proxy`` (http only) the checked request is sent on to that proxy.

One proxy serves every context of a browser (`EgressServer`: one listening socket for the browser
process); each context is a client of its own (`EgressClient`: random credentials given to
Playwright as the context's proxy credentials, its own policy and upstream, its own refusals and
failures). Every request head names its client by those credentials and is checked with that
client's policy alone, so contexts with different policies never share a rule; a connection serves
one request (or one tunnel) of one client. Anything without a live client's credentials is answered
407 without looking further: another local process cannot send requests through it, nor have the
user's upstream ``Proxy-Authorization`` added to them, and a closed context's credentials are
refused at once. That header goes only to the user's proxy; the browser's own (the context's
credentials) is never forwarded. `EgressProxy` is a server with a single client (an HTTP client's).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import logging
import secrets
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from .errors import PolicyError, UsageError
from .policy import NetworkPolicy
from .urls import URLParseError, canonical_host, parse_web_url

log = logging.getLogger("curllm.egress")

HEAD_LIMIT = 256 * 1024  # request or response head
CONNECT_TIMEOUT_S = 30.0
HEAD_TIMEOUT_S = 60.0
CHUNK = 64 * 1024
#: Plain-http requests to one host at a time, as many as a browser opens without a proxy (through a
#: proxy Chromium sends up to 32 at once, each on a new connection: too many for a small server).
PER_HOST = 6
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "upgrade",
    "te",
}
#: A request to this host is answered by the proxy itself (204), once authorised: the browser context
#: sends one when it starts, so that Chromium has the credentials before any request of a worker or a
#: service worker, whose 407 no page would answer (`Session.start`).
PRIMER_HOST = "curllm-egress.invalid"
#: The answer to a caller without this proxy's credentials (another local process).
AUTH_REQUIRED = (
    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
    b'Proxy-Authenticate: Basic realm="curllm egress"\r\n'
    b"Content-Length: 0\r\nConnection: close\r\n\r\n"
)


class EgressClient:
    """One browser context's share of an egress server (or an HTTP client's): its credentials, its
    policy and upstream proxy, and what it refused (``on_block``) or could not reach (``failures``)."""

    def __init__(
        self,
        server: EgressServer,
        policy: NetworkPolicy,
        upstream: str | None = None,
        on_block: Callable[[PolicyError], None] | None = None,
    ):
        self.server = server
        self.policy = policy
        self.upstream = parse_upstream(upstream) if upstream else None
        self.on_block = on_block or (lambda e: None)
        #: (host, Chromium error name) of connections that failed: a navigation that fails because
        #: of one reports it as the browser would have (ERR_NAME_NOT_RESOLVED is not worth a retry).
        self.failures: list[tuple[str, str]] = []
        self.requests = 0  # connections and plain requests checked (for tests and diagnostics)
        #: The credentials only this client is given (`playwright_proxy`): random, both halves, so
        #: that neither can be guessed from another context's.
        self.username = f"curllm-{secrets.token_hex(8)}"
        self.password = secrets.token_urlsafe(24)
        self.authorization = basic_auth(self.username, self.password).encode("latin-1")
        self.closed = False
        self._tasks: set[asyncio.Task] = set()  # its connections being served
        self._per_host: dict[tuple[str, int], asyncio.Semaphore] = {}

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def client_url(self) -> str:
        """The proxy's address with its credentials, for an HTTP client (httpx sends them at once)."""
        return self.url.replace("http://", f"http://{self.username}:{self.password}@", 1)

    def playwright_proxy(self) -> dict[str, str]:
        """The ``proxy`` setting of the browser context this client is (the address and credentials)."""
        return {"server": self.url, "username": self.username, "password": self.password}

    async def prime(self, page: Any) -> None:
        """Have the browser context of ``page`` authenticate once (a request the proxy answers itself),
        before its routing and its documents: Chromium then sends the credentials with every request,
        a service worker's included. Bounded; a failure only leaves those requests refused."""
        script = f"fetch('http://{PRIMER_HOST}/', {{mode: 'no-cors', cache: 'no-store'}}).catch(() => 0)"
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.evaluate(script), CONNECT_TIMEOUT_S / 3)

    async def close(self) -> None:
        """Revoke the credentials (a request with them is answered 407 from now on) and end the
        connections being served for this client."""
        await self.server.release(self)

    # --- one request of this client --------------------------------------------------------------

    async def _connect(self, target, reader, writer):
        host, port = _split_authority(target)
        self.requests += 1
        what = f"connection to {host}:{port}"
        self.policy.check_host(host, what=what)
        upstream_reader, upstream_writer = await self._open(host, port, what)
        if self.upstream is not None:
            # The user's proxy answers the CONNECT itself; its answer goes back as it is.
            upstream_writer.write(self._upstream_connect(host, port))
        else:
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await _pipe_both(reader, writer, upstream_reader, upstream_writer)
        return upstream_writer

    async def _forward(self, method, target, headers, reader, writer):
        try:
            url = parse_web_url(target)
        except URLParseError as e:
            raise PolicyError(f"blocked URL {target[:300]}: it cannot be checked ({e})") from None
        self.requests += 1
        if url.scheme not in ("http", "ws"):
            raise PolicyError(f"blocked URL {target[:300]}: scheme {url.scheme!r} through the proxy")
        what = f"URL {target[:300]}"
        self.policy.check_host(url.host, what=what)
        port = url.effective_port or 80
        body = _request_body_length(headers)  # a bad framing is refused before connecting
        async with self._per_host.setdefault((url.host, port), asyncio.Semaphore(PER_HOST)):
            return await self._send(method, target, headers, reader, writer, url, port, body, what)

    async def _send(self, method, target, headers, reader, writer, url, port, body, what):
        """A checked plain-http request sent on and its answer relayed back."""
        upstream_reader, upstream_writer = await self._open(url.host, port, what)
        path = target if self.upstream is not None else (url.rest or "/")
        # Chunked wins over a Content-Length beside it (RFC 9112 6.3), and only one goes on: two
        # framings are how one request is smuggled inside another.
        dropped = HOP_BY_HOP | ({"content-length"} if body == "chunked" else set())
        out = [f"{method} {path} HTTP/1.1"]
        out += [f"{k}: {v}" for k, v in headers if k.lower() not in dropped]
        if self.upstream is not None and self.upstream[2]:
            out.append(f"Proxy-Authorization: {self.upstream[2]}")
        out.append("Connection: close")
        upstream_writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
        client_done = asyncio.ensure_future(_relay_request_body(reader, upstream_writer, body))
        response = asyncio.ensure_future(_relay_response(upstream_reader, writer, method))
        try:
            # Done when the answer is relayed, or when the browser goes away (it gave up).
            await asyncio.wait({client_done, response}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (client_done, response):
                task.cancel()
            await asyncio.gather(client_done, response, return_exceptions=True)
        return upstream_writer

    async def _open(self, host: str, port: int, what: str):
        """A connection to the target (or the user's proxy), to an address the policy passed."""
        if self.upstream is not None:
            if self.policy.block_private:
                await self.policy.addresses(host, what=what)  # the user's proxy resolves it again
            return await asyncio.wait_for(
                asyncio.open_connection(self.upstream[0], self.upstream[1], limit=HEAD_LIMIT),
                CONNECT_TIMEOUT_S,
            )
        targets = [host.strip("[]")]
        if self.policy.block_private:
            targets = await self.policy.addresses(host, what=what)
        error: Exception | None = None
        for address in targets:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(address, port, limit=HEAD_LIMIT), CONNECT_TIMEOUT_S
                )
            except (OSError, TimeoutError) as e:
                error = e
        self.failures.append((host, _net_error(error)))
        raise ConnectionError(f"cannot connect to {host}:{port}: {error}")

    def _upstream_connect(self, host: str, port: int) -> bytes:
        lines = [f"CONNECT {host}:{port} HTTP/1.1", f"Host: {host}:{port}"]
        if self.upstream and self.upstream[2]:
            lines.append(f"Proxy-Authorization: {self.upstream[2]}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class EgressServer:
    """The policy-checking HTTP proxy on 127.0.0.1 of one browser: one listening socket, a client
    per browser context (`client`), each request put to its own client's policy."""

    def __init__(self) -> None:
        self.refused_callers = 0  # requests without a live client's credentials, answered 407
        self._clients: dict[str, EgressClient] = {}  # by user name
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    @property
    def clients(self) -> int:
        """Clients whose credentials are accepted now (one per open browser context)."""
        return len(self._clients)

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        return self.url

    def client(
        self,
        policy: NetworkPolicy,
        upstream: str | None = None,
        on_block: Callable[[PolicyError], None] | None = None,
    ) -> EgressClient:
        """A client of its own, for one browser context: new credentials, this policy and upstream
        (UsageError for an upstream the proxy cannot chain to). Close it with the context."""
        client = EgressClient(self, policy, upstream, on_block)
        self._clients[client.username] = client
        return client

    async def release(self, client: EgressClient) -> None:
        """Refuse ``client``'s credentials from now on and end its connections."""
        client.closed = True
        if self._clients.get(client.username) is client:
            del self._clients[client.username]
        tasks = list(client._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop listening, refuse every client and end every connection."""
        if self._server is not None:
            self._server.close()
        for client in list(self._clients.values()):
            client.closed = True
        self._clients.clear()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._server = None

    def _client_of(self, headers: list[tuple[str, str]]) -> EgressClient | None:
        """The live client whose credentials the request carries, None for any other caller."""
        given = _header(headers, "proxy-authorization")
        if given is None:
            return None
        scheme, _, token = given.partition(" ")
        try:
            user = base64.b64decode(token.strip(), validate=True).decode("latin-1").partition(":")[0]
        except ValueError:  # not base64 (binascii.Error is a ValueError)
            return None
        client = self._clients.get(user)
        if scheme.lower() != "basic" or client is None:
            return None
        if not hmac.compare_digest(given.encode("latin-1", "replace"), client.authorization):
            return None
        return client

    # --- one client connection -----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        client: EgressClient | None = None
        upstream_writer = None
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            method, target, headers = _parse_request_head(head)
            client = self._client_of(headers)
            if client is None:
                # Not a live client's browser context: nothing is checked, connected or forwarded.
                self.refused_callers += 1
                writer.write(AUTH_REQUIRED)
                await writer.drain()
            else:
                client._tasks.add(task)  # before any wait: closing the client ends this request
                if target.startswith(f"http://{PRIMER_HOST}/"):
                    writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
                    await writer.drain()
                elif method == "CONNECT":
                    upstream_writer = await client._connect(target, reader, writer)
                else:
                    upstream_writer = await client._forward(method, target, headers, reader, writer)
        except PolicyError as e:
            if client is not None:  # a refusal is its client's (the task that asked) alone
                client.on_block(e)
            log.info("%s", e.message)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, TimeoutError):
            pass  # a malformed or abandoned request: close, the browser reports a network error
        except (ConnectionError, OSError) as e:
            log.debug("egress: %s", e)
        except asyncio.CancelledError:
            pass
        finally:
            for w in (writer, upstream_writer):
                if w is not None:
                    w.close()
            self._writers.discard(writer)
            self._tasks.discard(task)
            if client is not None:
                client._tasks.discard(task)


class EgressProxy(EgressServer):
    """An egress server with a single client, made with it: one task's HTTP client (`http_fetch`)."""

    def __init__(
        self,
        policy: NetworkPolicy,
        upstream: str | None = None,
        on_block: Callable[[PolicyError], None] | None = None,
    ):
        super().__init__()
        self.only = self.client(policy, upstream, on_block)

    @property
    def policy(self) -> NetworkPolicy:
        return self.only.policy

    @property
    def username(self) -> str:
        return self.only.username

    @property
    def password(self) -> str:
        return self.only.password

    @property
    def failures(self) -> list[tuple[str, str]]:
        return self.only.failures

    @property
    def requests(self) -> int:
        return self.only.requests

    @property
    def client_url(self) -> str:
        return self.only.client_url

    def playwright_proxy(self) -> dict[str, str]:
        return self.only.playwright_proxy()


def _net_error(error: Exception | None) -> str:
    """The Chromium error name for a failed connection."""
    if isinstance(error, socket.gaierror):
        return "net::ERR_NAME_NOT_RESOLVED"
    if isinstance(error, ConnectionRefusedError):
        return "net::ERR_CONNECTION_REFUSED"
    if isinstance(error, TimeoutError):
        return "net::ERR_CONNECTION_TIMED_OUT"
    return "net::ERR_CONNECTION_FAILED"


# --- HTTP/1.1 framing ----------------------------------------------------------------------------


def parse_upstream(proxy: str) -> tuple[str, int, str | None]:
    """Host, port and Proxy-Authorization of a user's ``--proxy``; UsageError unless it is http://."""
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if parts.scheme != "http" or not parts.hostname:
        raise UsageError(
            f"--proxy {proxy}: with --allow-domain, --block-domain or --block-private only an "
            "http:// proxy is supported (every request is checked on its way to it)"
        )
    auth = None
    if parts.username is not None:
        auth = basic_auth(unquote(parts.username), unquote(parts.password or ""))
    return parts.hostname, parts.port or 3128, auth


def basic_auth(username: str, password: str) -> str:
    """The value of a Basic (Proxy-)Authorization header."""
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


def _parse_request_head(head: bytes) -> tuple[str, str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    method, target, version = lines[0].split(" ")
    if not version.startswith("HTTP/1."):
        raise ValueError(f"unsupported protocol {version!r}")
    return method.upper(), target, _parse_headers(lines[1:])


def _parse_headers(lines: list[str]) -> list[tuple[str, str]]:
    headers = []
    for line in lines:
        if not line:
            continue
        if line[0] in " \t" or ":" not in line:
            raise ValueError("malformed header line")
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    return headers


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    values = [v for k, v in headers if k.lower() == name]
    return ", ".join(values) if values else None


def _split_authority(target: str) -> tuple[str, int]:
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad CONNECT target {target!r}")
    try:
        return canonical_host(host), int(port)
    except URLParseError:
        raise PolicyError(f"blocked connection to {target[:300]}: the host cannot be checked") from None


def _request_body_length(headers) -> int | str:
    if (_header(headers, "transfer-encoding") or "").lower().endswith("chunked"):
        return "chunked"
    length = _header(headers, "content-length")
    if length is None:
        return 0
    if not length.isdigit():
        raise ValueError("bad Content-Length")
    return int(length)


async def _relay_request_body(reader, writer, body: int | str) -> None:
    """The request body up; then wait for the browser to go away (nothing more is forwarded)."""
    if body == "chunked":
        await _relay_chunked(reader, writer)
    elif body:
        await _relay_exactly(reader, writer, int(body))
    await writer.drain()
    # The answer carries Connection: close, so nothing else should come; keep reading to notice
    # the browser closing (it gave up), but never forward it anywhere.
    while await reader.read(CHUNK):
        pass
    raise ConnectionResetError("the browser closed the connection")


async def _relay_response(reader, writer, method: str) -> None:
    while True:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S * 5)
        lines = head.decode("latin-1").split("\r\n")
        status_line, headers = lines[0], _parse_headers(lines[1:])
        status = int(status_line.split(" ")[1])
        kept = [f"{k}: {v}" for k, v in headers if k.lower() not in HOP_BY_HOP]
        writer.write(
            (
                "\r\n".join([status_line, *kept, "Connection: close", "Proxy-Connection: close"]) + "\r\n\r\n"
            ).encode("latin-1")
        )
        if 100 <= status < 200 and status != 101:
            continue  # an interim answer; the real one follows
        break
    if method == "HEAD" or status in (101, 204, 304):
        await writer.drain()
        return
    encoding = (_header(headers, "transfer-encoding") or "").lower()
    length = _header(headers, "content-length")
    if encoding.endswith("chunked"):
        await _relay_chunked(reader, writer)
    elif length is not None and length.isdigit():
        await _relay_exactly(reader, writer, int(length))
    else:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    await writer.drain()


async def _relay_exactly(reader, writer, n: int) -> None:
    while n > 0:
        data = await reader.read(min(n, CHUNK))
        if not data:
            raise asyncio.IncompleteReadError(b"", n)
        writer.write(data)
        await writer.drain()
        n -= len(data)


async def _relay_chunked(reader, writer) -> None:
    while True:
        line = await reader.readuntil(b"\r\n")
        writer.write(line)
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            break
        await _relay_exactly(reader, writer, size + 2)  # data and its CRLF
    while True:  # trailers, then the empty line
        line = await reader.readuntil(b"\r\n")
        writer.write(line)
        if line == b"\r\n":
            break
    await writer.drain()


async def _pipe(reader, writer) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()


async def _pipe_both(client_reader, client_writer, upstream_reader, upstream_writer) -> None:
    """Tunnel both ways until either side closes."""
    up = asyncio.ensure_future(_pipe(client_reader, upstream_writer))
    down = asyncio.ensure_future(_pipe(upstream_reader, client_writer))
    try:
        await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        up.cancel()
        down.cancel()
        await asyncio.gather(up, down, return_exceptions=True)
