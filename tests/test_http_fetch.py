"""The HTTP engine's fetching (`http_fetch.Fetcher`, `politeness.Politeness`) against a real local
server on 127.0.0.1: headers, redirects hop by hop under the network policy, charset, cookies and
``--session``, robots.txt, ``Retry-After`` and the per-host limit. No browser."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from curllm_core.browser import BrowserOptions
from curllm_core.errors import HTTPStatusError, NavigationRefused, PolicyError, RobotsDisallowed
from curllm_core.http_fetch import Fetcher
from curllm_core.policy import NetworkPolicy
from curllm_core.politeness import Politeness, retry_after_s

LATIN2_PAGE = "<html><head><title>Zażółć</title></head><body><p>Gęślą jaźń: 129,00 zł</p></body></html>"


class _State:
    def __init__(self) -> None:
        self.headers: dict[str, dict[str, str]] = {}
        self.hits: dict[str, int] = {}
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()


STATE = _State()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def send(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        path = self.path
        with STATE.lock:
            STATE.hits[path] = STATE.hits.get(path, 0) + 1
            STATE.headers[path] = {k.lower(): v for k, v in self.headers.items()}
        if path == "/robots.txt":
            self.send(200, b"User-agent: *\nDisallow: /private\n", "text/plain")
        elif path == "/page":
            self.send(200, b"<html><head><title>A page</title></head><body><p>Hello</p></body></html>")
        elif path.startswith("/hop/"):
            n = int(path.rsplit("/", 1)[1])
            self.send(302, b"", Location="/page" if n == 0 else f"/hop/{n - 1}")
        elif path == "/loop":
            self.send(302, b"", Location="/loop")
        elif path == "/to-blocked":
            self.send(302, b"", Location="http://blocked.example/x")
        elif path == "/to-metadata":  # checked, never sent: no traffic goes there
            self.send(302, b"", Location="http://169.254.169.254/latest/meta-data/")
        elif path == "/to-file":
            self.send(302, b"", Location="file:///etc/hostname")
        elif path == "/latin2":  # Polish text in windows-1250, no charset anywhere
            self.send(200, LATIN2_PAGE.encode("cp1250"), "text/html")
        elif path == "/gzip":
            self.send(200, gzip.compress(b"<html><body><p>packed</p></body></html>"), Content_Encoding="gzip")
        elif path == "/set":
            self.send(200, b"<html><body>set</body></html>", Set_Cookie="sid=abc123; Path=/")
        elif path == "/json":
            self.send(200, b"{}", "application/json")
        elif path == "/missing":
            self.send(404, b"<html><body>no</body></html>")
        elif path == "/busy":  # 429 with Retry-After the first time, then the page
            first = STATE.hits[path] == 1
            if first:
                self.send(429, b"slow down", "text/plain", Retry_After="1")
            else:
                self.send(200, b"<html><body>ok now</body></html>")
        elif path.startswith("/slow/"):
            with STATE.lock:
                STATE.running += 1
                STATE.most = max(STATE.most, STATE.running)
            time.sleep(0.15)
            with STATE.lock:
                STATE.running -= 1
            self.send(200, b"<html><body>slow</body></html>")
        else:
            self.send(404, b"")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def fetcher(policy: NetworkPolicy | None = None, **options) -> Fetcher:
    return Fetcher(BrowserOptions(**options), policy or NetworkPolicy())


async def test_a_page_with_the_headers_a_browser_sends(server):
    f = fetcher(locale="pl-PL")
    try:
        doc = await f.get(server + "/page")
    finally:
        await f.aclose()
    assert doc.url == server + "/page" and doc.status == 200 and doc.title == "A page"
    sent = STATE.headers["/page"]
    assert "Chrome/" in sent["user-agent"] and sent["accept-language"].startswith("pl-PL")
    assert sent["accept"].startswith("text/html") and sent["sec-fetch-mode"] == "navigate"
    assert "gzip" in sent["accept-encoding"]


async def test_redirects_are_followed_one_hop_at_a_time_to_a_limit(server):
    f = fetcher()
    try:
        doc = await f.get(server + "/hop/3")
        assert doc.url == server + "/page"
        assert all(STATE.hits[f"/hop/{n}"] >= 1 for n in range(4))
        with pytest.raises(NavigationRefused, match="more than 20 redirects"):
            await f.get(server + "/loop")
    finally:
        await f.aclose()


async def test_every_hop_is_checked_by_the_network_policy(server):
    """A hop to a blocked domain or to a local file is refused before anything is sent there."""
    f = fetcher(NetworkPolicy(block=("blocked.example",)))
    try:
        with pytest.raises(PolicyError, match="blocked.example"):
            await f.get(server + "/to-blocked")
        with pytest.raises(PolicyError, match="only web pages"):
            await f.get(server + "/to-file")
    finally:
        await f.aclose()
    bare = fetcher()  # no policy at all: link-local targets are still refused, as in the browser
    try:
        with pytest.raises(PolicyError, match="169.254.169.254"):
            await bare.get(server + "/to-metadata")
    finally:
        await bare.aclose()
    allowed = fetcher(NetworkPolicy(allow=("127.0.0.1",)))  # active: through the egress proxy
    try:
        assert (await allowed.get(server + "/hop/1")).title == "A page"
        assert allowed._egress is not None and allowed._egress.requests >= 2
    finally:
        await allowed.aclose()


async def test_the_charset_is_decided_from_the_bytes_and_bodies_are_decompressed(server):
    f = fetcher()
    try:
        doc = await f.get(server + "/latin2")
        packed = await f.get(server + "/gzip")
    finally:
        await f.aclose()
    assert "Gęślą jaźń: 129,00 zł" in doc.html and doc.title == "Zażółć"
    assert "packed" in packed.html


async def test_errors_say_what_went_wrong(server):
    f = fetcher()
    try:
        with pytest.raises(HTTPStatusError, match="HTTP 404"):
            await f.get(server + "/missing")
        with pytest.raises(NavigationRefused, match="not an HTML page"):
            await f.get(server + "/json")
        with pytest.raises(RobotsDisallowed, match="robots.txt"):
            await f.get(server + "/private/page")
    finally:
        await f.aclose()


async def test_cookies_are_kept_and_saved_to_the_session_file(server, tmp_path):
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"cookies": [], "origins": [{"origin": "x", "localStorage": []}]}))
    f = fetcher(session_file=str(session))
    try:
        await f.get(server + "/set")
        await f.get(server + "/page")
    finally:
        await f.aclose()
    assert "sid=abc123" in STATE.headers["/page"].get("cookie", "")
    saved = json.loads(session.read_text())
    assert [c["name"] for c in saved["cookies"]] == ["sid"] and saved["origins"][0]["origin"] == "x"
    again = fetcher(session_file=str(session))
    try:
        await again.get(server + "/page")
    finally:
        await again.aclose()
    assert "sid=abc123" in STATE.headers["/page"].get("cookie", "")


async def test_retry_after_is_honoured(server):
    f = fetcher()
    started = time.monotonic()
    try:
        doc = await f.get(server + "/busy")
    finally:
        await f.aclose()
    assert "ok now" in doc.html and STATE.hits["/busy"] == 2
    assert time.monotonic() - started >= 0.9


async def test_requests_to_one_host_are_limited():
    """At most ``per_host`` requests to one host at once, however many tasks ask."""
    politeness = Politeness(per_host=2)
    running = most = 0

    async def request() -> None:
        nonlocal running, most
        async with politeness.slot("shop.example"):
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.02)
            running -= 1

    await asyncio.gather(*(request() for _ in range(8)))
    assert most == 2


async def test_a_shared_politeness_limits_real_fetches(server):
    politeness = Politeness(per_host=2)
    fetchers = [Fetcher(BrowserOptions(), NetworkPolicy(), politeness=politeness) for _ in range(5)]
    STATE.most = 0
    try:
        await asyncio.gather(*(f.get(f"{server}/slow/{i}") for i, f in enumerate(fetchers)))
    finally:
        for f in fetchers:
            await f.aclose()
    assert STATE.most == 2


def test_retry_after_values():
    assert retry_after_s("3") == 3.0
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_s("soon") is None and retry_after_s(None) is None


async def test_tasks_share_connections_but_not_cookies(server):
    """Fetchers of one Runner borrow its connections; closing one leaves them to the others, and each
    keeps its own cookies."""
    from curllm_core.http_fetch import Connections

    shared = Connections()
    first = Fetcher(BrowserOptions(), NetworkPolicy(), connections=shared)
    second = Fetcher(BrowserOptions(), NetworkPolicy(), connections=shared)
    try:
        await first.get(server + "/set")
        await first.aclose()
        await second.get(server + "/page")  # the shared transport still works
        assert "sid=" not in STATE.headers["/page"].get("cookie", "")
    finally:
        await second.aclose()
        await shared.aclose()


def test_plain_http_makes_no_tls_context(server):
    """Tasks sharing connections to http:// pages (a fresh process, as a batch) load no CA bundle;
    https:// requests go to a transport of their own, verified with the CA bundle, HTTP/2 where
    offered."""
    import subprocess
    import sys

    from curllm_core.http_fetch import Connections, ssl_context

    code = (
        "import asyncio, sys\n"
        "from curllm_core.browser import BrowserOptions\n"
        "from curllm_core.http_fetch import Connections, Fetcher, ssl_context\n"
        "from curllm_core.policy import NetworkPolicy\n"
        "async def main():\n"
        "    shared = Connections()\n"
        "    for _ in range(2):\n"
        "        f = Fetcher(BrowserOptions(), NetworkPolicy(), connections=shared)\n"
        f"        assert (await f.get({server + '/page'!r})).title == 'A page'\n"
        "        await f.aclose()\n"
        "    await shared.aclose()\n"
        "asyncio.run(main())\n"
        "print(ssl_context.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.split() == ["0"], out.stderr
    shared = Connections()
    tls, plain = shared.transport("https"), shared.transport("http")
    assert tls is not plain and shared.transport("https") is tls
    assert tls._pool._ssl_context is ssl_context() and tls._pool._http2 and not plain._pool._http2


async def test_a_host_that_cannot_be_reached_is_said_so_not_blamed_on_robots_txt():
    import socket

    from curllm_core.errors import NavigationError

    with socket.socket() as s:  # a port nothing listens on (bound, then closed)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = fetcher()
    try:
        with pytest.raises(NavigationError, match="could not open") as caught:
            await f.get(f"http://127.0.0.1:{port}/")
    finally:
        await f.aclose()
    assert not isinstance(caught.value, RobotsDisallowed)
