"""The Browser object: one per process, sessions per task, a new Chromium after a crash."""

from __future__ import annotations

import pytest

from curllm_core.browser import Browser, BrowserOptions
from curllm_core.policy import NetworkPolicy

pytestmark = pytest.mark.browser


async def test_sessions_are_separate_contexts_and_a_crashed_browser_is_replaced(browser_path, tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<title>x</title><script>document.cookie = 'a=1'</script>")
    browser = Browser()
    try:
        one = await browser.new_session(BrowserOptions(), NetworkPolicy())
        two = await browser.new_session(BrowserOptions(locale="de-DE"), NetworkPolicy())
        assert one.context is not two.context
        await one.open(str(page))
        assert await two.page.evaluate("navigator.language") == "de-DE"
        await one.close()
        await two.close()
        first = await browser.start()
        # The driver's own process is not involved: close the Chromium connection as a crash would.
        await first.close()
        second = await browser.start()
        assert second is not first and second.is_connected()
        session = await browser.new_session()
        await session.open(page.as_uri())
        assert await session.page.title() == "x"
        await session.close()
    finally:
        await browser.close()


async def test_contexts_share_one_egress_proxy_each_with_its_own_policy_and_credentials(browser_path):
    """Two tasks at once in one browser, one refusing ``localhost`` and one allowing it, each sent a
    redirect to it: the hop is refused for the first alone (reported to it), the second reaches it,
    both through the browser's one proxy; a closed context's credentials are refused, and the proxy
    is closed with the browser."""
    import asyncio

    from hostile_server import start_hostile

    from curllm_core.egress import basic_auth
    from curllm_core.errors import PolicyError

    hostile = start_hostile()
    browser = Browser()
    try:
        strict = await browser.new_session(BrowserOptions(), NetworkPolicy(block=("localhost",)))
        lenient = await browser.new_session(BrowserOptions(), NetworkPolicy(block=("blocked.test",)))
        assert strict.egress.server is lenient.egress.server
        assert strict.egress.username != lenient.egress.username
        hop = f"{hostile.url}/redirect?to=http://localhost:{hostile.port}/ok"
        refused, opened = await asyncio.gather(strict.open(hop), lenient.open(hop), return_exceptions=True)
        assert isinstance(refused, PolicyError) and refused.host == "localhost", refused
        assert not isinstance(opened, BaseException) and opened.url.startswith("http://localhost:")
        assert [e.host for e in strict.blocked] == ["localhost"] and lenient.blocked == []
        assert len(hostile.requests_to("localhost")) == 1  # the lenient task's hop, and no other
        egress = strict.egress.server
        gone = basic_auth(strict.egress.username, strict.egress.password)
        await strict.close()
        assert egress.clients == 1
        host, port = egress.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET {hostile.url}/ok HTTP/1.1\r\nProxy-Authorization: {gone}\r\n\r\n".encode())
        assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 407 ")
        writer.close()
        await lenient.close()
        assert egress.clients == 0
    finally:
        await browser.close()
        hostile.stop()
    with pytest.raises(OSError):  # the proxy went with the browser
        await asyncio.open_connection(host, int(port))


async def test_a_service_worker_and_a_websocket_of_a_policed_context_reach_an_allowed_host(browser_path):
    """A page whose first requests through Chromium are its service worker's script and a WebSocket:
    the context authenticated to the egress proxy as it started (the primer), so the script, the
    worker's own request and the WebSocket reach the allowed server; without that each got a 407
    no page answers (the WebSocket failed at once, as a live listing's feed would)."""
    import asyncio
    import base64
    import hashlib
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    paths: list[str] = []
    bodies = {
        "/sw.js": (b"fetch('/from-sw').catch(() => 0);", "text/javascript"),
        "/page": (
            b"<title>W</title><script>navigator.serviceWorker.register('/sw.js');"
            b"new WebSocket('ws://' + location.host + '/ws')</script>",
            "text/html",
        ),
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            paths.append(self.path)
            if self.path == "/ws":  # the handshake: the connection was made, nothing more is needed
                key = self.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
                self.send_response(101)
                self.send_header("Upgrade", "websocket")
                self.send_header("Connection", "Upgrade")
                accept = base64.b64encode(hashlib.sha1(key.encode()).digest()).decode()
                self.send_header("Sec-WebSocket-Accept", accept)
                self.end_headers()
                return
            body, ctype = bodies.get(self.path, (b"ok", "text/plain"))
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    browser = Browser()
    try:
        session = await browser.new_session(BrowserOptions(), NetworkPolicy(allow=("127.0.0.1",)))
        await session.open(f"http://127.0.0.1:{server.server_address[1]}/page")
        for _ in range(100):
            if "/from-sw" in paths and "/ws" in paths:
                break
            await asyncio.sleep(0.05)
        assert "/sw.js" in paths and "/from-sw" in paths and "/ws" in paths, paths
        await session.close()
    finally:
        await browser.close()
        server.shutdown()
        server.server_close()
