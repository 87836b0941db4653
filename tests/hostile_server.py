"""A local server of hostile pages, on 127.0.0.1, counting every request it receives.

Routes: /ok (a small listing), /status/N, /hang (never answers), /trickle (a byte a second,
forever), /loop (redirects to itself), /redirect?to=URL, /dialogs (alert and confirm on load),
/popup (opens popups, then tries to navigate away), /throws (its script throws), /iframes (content
inside iframes), /big?mb=N (an N MB DOM), /slow?s=N (answers after N seconds).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LISTING = """<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1><ul class="items">
{items}</ul>{extra}</body></html>"""
ITEM = '<li class="item"><a href="/p/{i}">Product {i}</a> <span class="price">{price},00 zł</span></li>'


def listing(title: str = "Shop", n: int = 6, extra: str = "") -> bytes:
    items = "\n".join(ITEM.format(i=i, price=40 * i + 9) for i in range(1, n + 1))
    return LISTING.format(title=title, items=items, extra=extra).encode()


class Handler(BaseHTTPRequestHandler):
    server: HostileServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def send(
        self, body: bytes, status: int = 200, ctype: str = "text/html; charset=utf-8", headers=None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: C901 - one branch per route reads best here
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.server.hits[parts.path] += 1
        path = parts.path
        try:
            if path == "/ok":
                self.send(listing())
            elif path.startswith("/status/"):
                code = int(path.rsplit("/", 1)[1])
                self.send(listing(f"Error {code}"), status=code)
            elif path == "/hang":
                self.server.stop_event.wait(120)
            elif path == "/trickle":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<html><body>")
                while not self.server.stop_event.wait(1):
                    self.wfile.write(b"<p>.</p>")
                    self.wfile.flush()
            elif path == "/loop":
                self.send(b"", status=302, headers={"Location": "/loop"})
            elif path == "/redirect":
                self.send(b"", status=302, headers={"Location": query["to"][0]})
            elif path == "/dialogs":
                self.send(
                    listing(
                        "Dialogs",
                        extra="<script>alert('hi'); confirm('sure?'); prompt('name?');"
                        "document.title = 'after dialogs';</script>",
                    )
                )
            elif path == "/popup":
                self.send(
                    listing(
                        "Popups",
                        extra="<script>window.open('/ok?popup=1');window.open('about:blank');</script>",
                    )
                )
            elif path == "/throws":
                self.send(
                    listing(
                        "Throws", extra="<script>null.boom();</script><script>throw new Error('x')</script>"
                    )
                )
            elif path == "/iframes":
                self.send(
                    listing(
                        "Frames",
                        n=2,
                        extra='<iframe src="/ok?frame=1"></iframe><iframe src="/status/404"></iframe>',
                    )
                )
            elif path == "/big":
                mb = float(query.get("mb", ["50"])[0])
                row = b'<div class="row"><span>cell</span><span>another cell of text</span></div>\n'
                body = b"<html><body>" + row * int(mb * 1024 * 1024 / len(row)) + listing("Big")[12:]
                self.send(body)
            elif path == "/slow":
                self.server.stop_event.wait(float(query.get("s", ["2"])[0]))
                self.send(listing("Slow"))
            elif path == "/busy":  # loads, then its script never gives the thread back
                self.send(
                    listing("Busy", extra="<script>addEventListener('load', () => { for (;;) {} })</script>")
                )
            elif path == "/favicon.ico":
                self.send(b"", status=204)
            else:
                self.send(b"not found", status=404, ctype="text/plain")
        except (BrokenPipeError, ConnectionResetError):
            pass


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.hits: Counter = Counter()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def stop(self) -> None:
        self.stop_event.set()
        self.shutdown()
        self.server_close()


def start_hostile() -> HostileServer:
    return HostileServer()


if __name__ == "__main__":
    server = start_hostile()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
