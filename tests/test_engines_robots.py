"""robots.txt and the engines, through the real runner and browser on a local site: ``--engine
http`` (a crawler) refuses a page robots.txt disallows; ``auto``, the default, reads it in the
browser (which acts for a person, as the browser engine always did) and says why in its ``engine``
event; a page robots.txt allows stays on HTML."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from curllm_core.api import arun

pytestmark = pytest.mark.browser

LISTING = (
    "<!doctype html><html lang='pl'><head><meta charset='utf-8'><title>Kubki</title></head><body>"
    "<h1>Kubki</h1><ul class='products'>"
    + "".join(
        f"<li class='product'><a href='/p/{i}'>Kubek ceramiczny {i}</a> <span class='price'>{i * 40},00 zł</span></li>"
        for i in range(1, 7)
    )
    + "</ul></body></html>"
).encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/robots.txt":
            body, ctype = b"User-agent: *\nDisallow: /private/\n", "text/plain"
        elif self.path in ("/private/kubki", "/kubki"):
            body, ctype = LISTING, "text/html; charset=utf-8"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def site():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _names(result) -> list[str]:
    return sorted(p["name"] for p in result.data["products"])


async def test_a_page_robots_txt_disallows_is_refused_by_http_and_read_in_the_browser_by_auto(
    site, tmp_path, monkeypatch
):
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(tmp_path))
    instruction = "znajdź produkty poniżej 150 zł"
    refused = await arun(instruction, f"{site}/private/kubki", engine="http", use_cache=False)
    assert not refused.ok and [e.code for e in refused.errors if not e.optional] == ["ROBOTS_DISALLOWED"]

    events: list[dict] = []
    read = await arun(instruction, f"{site}/private/kubki", use_cache=False, on_event=events.append)
    assert read.ok and _names(read) == ["Kubek ceramiczny 1", "Kubek ceramiczny 2", "Kubek ceramiczny 3"]
    engines = [e for e in events if e["type"] == "engine"]
    assert [e["data"]["engine"] for e in engines] == ["http", "browser"]
    assert "robots.txt" in engines[-1]["data"]["reason"]

    events.clear()
    allowed = await arun(instruction, f"{site}/kubki", use_cache=False, on_event=events.append)
    assert _names(allowed) == _names(read)
    assert [e["data"]["engine"] for e in events if e["type"] == "engine"] == ["http"]
