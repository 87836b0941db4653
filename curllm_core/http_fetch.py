"""Fetching pages without a browser (the HTTP engine): `Fetcher` gets a `Document` with httpx.

What a browser would do, as far as a document goes: the headers Chromium sends for a navigation,
HTTP/2 where the server offers it (ALPN; the ``h2`` package), compressed bodies, cookies kept for
the task (loaded from and saved back to ``--session FILE``, the browser's storage-state format),
and the charset decided from the bytes exactly as the browser path decides it (`charset.decode_html`).

Redirects are followed one hop at a time, and every hop goes through the rule of every navigation
(`check_target`: a web URL under the task's `NetworkPolicy`, a local file only for a task that
started on one). With an active policy every connection also goes through the browser's own
`EgressProxy`, which connects only to the addresses the policy passed (no DNS rebinding between the
check and the connection). `Politeness` (shared by a batch) bounds requests per host, honours
``Retry-After`` and obeys robots.txt.

httpx is imported when the first fetcher is made: the browser path never pays for it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.request import url2pathname

from .browser import BrowserOptions, navigation_target, read_session_file
from .charset import decode_html, is_html_type
from .errors import (
    NavigationError,
    NavigationRefused,
    NavigationTimeout,
    PageUnavailable,
    RobotsDisallowed,
    http_status_error,
)
from .files import write_json_atomic
from .policy import NetworkPolicy
from .politeness import MAX_RETRIES, MAX_RETRY_AFTER_S, Politeness, retry_after_s
from .scrub import add_cookies

#: Redirect hops followed at most (Chromium's limit).
MAX_REDIRECTS = 20
#: The biggest document read (a browser would render more, but no listing page is this big).
MAX_BODY_BYTES = 32 * 1024 * 1024
#: What Chromium sends for a top-level navigation; User-Agent and Accept-Language follow the options.
USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)
NAVIGATION_HEADERS = {
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,"
    "*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    "Upgrade-Insecure-Requests": "1",
    "Sec-Fetch-Dest": "document",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Site": "none",
    "Sec-Fetch-User": "?1",
}
_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Document:
    """A fetched page: its final ``url`` (after redirects), its HTML as text, its HTTP status (0 for a
    local file) and Content-Type."""

    url: str
    html: str
    status: int = 200
    content_type: str | None = None

    @property
    def title(self) -> str | None:
        found = _TITLE_RE.search(self.html[:200_000])
        if not found:
            return None
        from html import unescape

        return " ".join(unescape(found.group(1)).split()) or None


@cache
def ssl_context() -> Any:
    """One TLS context for the process (loading the CA bundle costs ~0.1 s; a context per task would
    pay it per task)."""
    import httpx

    return httpx.create_ssl_context()


def _http2() -> bool:
    try:
        import h2  # noqa: F401 - HTTP/2 when the server offers it (ALPN)
    except ImportError:
        return False
    return True


class Connections:
    """Connections shared by the tasks of a Runner (keep-alive to the same hosts, one TLS context):
    each task's client borrows the transports (its own cookies, headers and redirect rule stay its
    own) and never closes them; `aclose` does, when the Runner is done. Tasks behind a proxy (an
    active policy's egress proxy, ``--proxy``) connect on their own.

    Plain-HTTP and HTTPS requests go to a transport each, made on first use: a batch of ``http://``
    pages loads no CA bundle (`ssl_context`, ~0.1 s); HTTP/2 is offered over TLS only."""

    def __init__(self) -> None:
        self._transports: dict[bool, Any] = {}  # by TLS or not

    def borrow(self) -> Any:
        return _Borrowed(self)

    def transport(self, scheme: str) -> Any:
        """The shared transport for requests to a ``scheme`` address."""
        tls = scheme == "https"
        found = self._transports.get(tls)
        if found is None:
            import httpx

            found = self._transports[tls] = httpx.AsyncHTTPTransport(
                verify=ssl_context() if tls else _no_tls(),
                http2=tls and _http2(),
                trust_env=False,
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
            )
        return found

    async def aclose(self) -> None:
        transports, self._transports = list(self._transports.values()), {}
        for transport in transports:
            await transport.aclose()


def _no_tls() -> Any:
    """The plain-HTTP transport's TLS context: it never speaks TLS (its requests are http://), and a
    context that trusts no certificate would refuse every server if it ever did."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class _Borrowed:
    """The shared transports as one client sees them: requests go through, closing is the owner's."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    async def handle_async_request(self, request: Any) -> Any:
        return await self.connections.transport(request.url.scheme).handle_async_request(request)

    async def __aenter__(self) -> _Borrowed:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass

    async def aclose(self) -> None:
        pass


def accept_language(locale: str | None) -> str:
    """The Accept-Language Chromium sends for ``locale`` (en-US when none is set)."""
    tag = (locale or "en-US").replace("_", "-")
    base = tag.split("-")[0]
    return f"{tag},{base};q=0.9" if base != tag else tag


@cache
def accept_encoding() -> str:
    """The encodings this httpx can decode (brotli and zstd only with their packages)."""
    import importlib.util

    names = ["gzip", "deflate"]
    if importlib.util.find_spec("brotli") or importlib.util.find_spec("brotlicffi"):
        names.append("br")
    if importlib.util.find_spec("zstandard"):
        names.append("zstd")
    return ", ".join(names)


class Fetcher:
    """The HTTP engine's client for one task (its cookies are the task's). Close it (`aclose`) to
    save ``--session``. ``local_files``: the task started on a local file, which it may then read."""

    def __init__(
        self,
        options: BrowserOptions,
        policy: NetworkPolicy,
        *,
        local_files: bool = False,
        politeness: Politeness | None = None,
        connections: Connections | None = None,
    ):
        self.options, self.policy, self.local_files = options, policy, local_files
        self.politeness = politeness or Politeness()
        self.connections = connections
        self.loaded_state: dict | None = None
        self.requests = 0  # requests sent (for tests and diagnostics)
        self._client: Any = None
        self._egress: Any = None
        self._starting = asyncio.Lock()

    async def _http(self) -> Any:
        """The httpx client, made on first use (with the egress proxy when the policy is active)."""
        async with self._starting:
            if self._client is None:
                import httpx

                proxy = self.options.proxy
                if self.policy.active:
                    from .egress import EgressProxy

                    self._egress = EgressProxy(self.policy, upstream=self.options.proxy)
                    await self._egress.start()
                    proxy = self._egress.client_url  # only this client may use it: its credentials
                headers = {
                    "User-Agent": self.options.user_agent or USER_AGENT,
                    "Accept-Language": accept_language(self.options.locale),
                    "Accept-Encoding": accept_encoding(),
                    **NAVIGATION_HEADERS,
                }
                timeout = httpx.Timeout(self.options.navigation_timeout_ms / 1000)
                shared = self.connections is not None and proxy is None
                self._client = httpx.AsyncClient(
                    headers=headers,
                    timeout=timeout,
                    follow_redirects=False,
                    # A borrowed transport has its own TLS context and HTTP/2 setting: none made here.
                    verify=True if shared else ssl_context(),
                    http2=not shared and _http2(),
                    proxy=proxy,
                    transport=self.connections.borrow() if shared and self.connections else None,
                    trust_env=False,  # the proxy is the options', as for the browser
                )
                if self.options.session_file:
                    self.loaded_state = read_session_file(self.options.session_file)
                    for c in (self.loaded_state or {}).get("cookies") or []:
                        if isinstance(c, dict) and isinstance(c.get("name"), str):
                            self._client.cookies.set(
                                c["name"],
                                str(c.get("value", "")),
                                domain=str(c.get("domain") or ""),
                                path=str(c.get("path") or "/"),
                            )
        return self._client

    async def check_target(self, url: str) -> str:
        """The rule of every navigation (as `browser.Session.check_navigation`): a web URL under the
        policy; a local file only when the task started on one. Returns the URL to fetch."""
        target = navigation_target(url, self.local_files)
        await self.policy.check_request(target)  # the check every request and hop gets, browser or not
        return target

    async def get(self, url: str) -> Document:
        """The document at ``url``, redirects followed hop by hop, each hop checked. Raises like the
        browser's navigation: PolicyError, HTTPStatusError (400 or more), NavigationError,
        NavigationTimeout, and RobotsDisallowed."""
        target = await self.check_target(url)
        for _hop in range(MAX_REDIRECTS + 1):
            if target.startswith("file:"):
                return _read_file(target)
            response = await self._send(target)
            location = response.headers.get("location")
            if response.status_code in (301, 302, 303, 307, 308) and location:
                target = await self.check_target(urljoin(target, location.strip()))
                continue
            if response.status_code >= 400:
                raise http_status_error(
                    response.status_code,
                    f"HTTP {response.status_code} {response.reason_phrase} for {target}",
                )
            content_type = response.headers.get("content-type")
            if not is_html_type(content_type):
                raise NavigationRefused(
                    f"{target} is not an HTML page (Content-Type {content_type}): the HTTP engine reads HTML"
                )
            return Document(
                target, decode_html(response.content, content_type), response.status_code, content_type
            )
        raise NavigationRefused(f"could not open {url}: more than {MAX_REDIRECTS} redirects")

    async def text(self, url: str) -> tuple[int, str]:
        """``(status, text)`` of a plain resource (robots.txt): no robots check, redirects followed
        under the same rules."""
        target = await self.check_target(url)
        for _hop in range(MAX_REDIRECTS + 1):
            response = await self._send(target, robots=False)
            location = response.headers.get("location")
            if response.status_code in (301, 302, 303, 307, 308) and location:
                target = await self.check_target(urljoin(target, location.strip()))
                continue
            return response.status_code, decode_html(response.content, response.headers.get("content-type"))
        return 508, ""

    async def _send(self, url: str, *, robots: bool = True) -> Any:
        """One GET (no redirect followed) in the host's slot, sent again after a ``Retry-After`` the
        politeness rules let it wait for."""
        import httpx

        client = await self._http()
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if robots and not await self.politeness.allowed(url, f"{parts.scheme}://{parts.netloc}", self.text):
            raise RobotsDisallowed(
                f"{url} is disallowed by its site's robots.txt: the HTTP engine does not fetch it"
            )
        for attempt in range(MAX_RETRIES + 1):
            async with self.politeness.slot(host):
                self.requests += 1
                failures = len(self._egress.failures) if self._egress is not None else 0
                try:
                    response = await client.get(url)
                    if len(response.content) > MAX_BODY_BYTES:
                        raise NavigationRefused(
                            f"could not open {url}: the document is over {MAX_BODY_BYTES} bytes"
                        )
                except httpx.TimeoutException:
                    raise NavigationTimeout(
                        f"timed out after {self.options.navigation_timeout_ms} ms opening {url}"
                    ) from None
                except (httpx.HTTPError, OSError) as e:
                    raise self._refused(url, e, failures) from None
            if response.status_code in (429, 503) and attempt < MAX_RETRIES:
                wait = retry_after_s(response.headers.get("retry-after"))
                if wait is not None and wait <= MAX_RETRY_AFTER_S:
                    self.politeness.hold(host, wait)
                    continue
            return response
        return response  # pragma: no cover - the loop returns

    def _refused(self, url: str, error: Exception, failures: int) -> PageUnavailable:
        """A failed request as the browser path reports it: why the egress proxy could not connect
        (failures past the first ``failures``), else a navigation error naming the cause."""
        if self._egress is not None and self._egress.failures[failures:]:
            host, why = self._egress.failures[-1]
            return NavigationError(f"could not open {url}: {why} (connecting to {host})")
        reason = str(error) or type(error).__name__
        return NavigationError(f"could not open {url}: {reason}")

    async def aclose(self) -> None:
        """Save the cookies to ``--session`` (the local storage the file had kept as it was), close."""
        try:
            if self._client is not None and self.options.session_file:
                self._save_session()
        finally:
            if self._client is not None:
                await self._client.aclose()
                self._client = None
            if self._egress is not None:
                await self._egress.close()
                self._egress = None

    def _save_session(self) -> None:
        assert self.options.session_file is not None
        cookies = []
        for c in self._client.cookies.jar:
            cookies.append(
                {
                    "name": c.name,
                    "value": c.value or "",
                    "domain": c.domain,
                    "path": c.path or "/",
                    "expires": float(c.expires) if c.expires else -1,
                    "httpOnly": bool(c.has_nonstandard_attr("HttpOnly")),
                    "secure": bool(c.secure),
                    "sameSite": "Lax",
                }
            )
        state = {"cookies": cookies, "origins": (self.loaded_state or {}).get("origins", [])}
        add_cookies(state)
        path = Path(self.options.session_file)
        try:
            write_json_atomic(path, state, prefix=f".{path.name}.")
        except OSError as e:
            import logging

            logging.getLogger("curllm.http").warning(
                "could not save the session to %s: %s", path, e.strerror or e
            )


def _read_file(url: str) -> Document:
    """A local page (a task that started on one), read and decoded as the browser path reads it."""
    path = Path(url2pathname(urlsplit(url).path))
    try:
        body = path.read_bytes()
    except OSError as e:
        raise NavigationRefused(f"could not open {url}: {e.strerror or e}") from None
    return Document(url, decode_html(body, None), 0, None)
