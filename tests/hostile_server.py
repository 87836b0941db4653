"""A local server of hostile pages, on 127.0.0.1, counting every request it receives.

Routes: /ok (a small listing), /status/N, /hang (never answers), /trickle (a byte a second,
forever), /loop (redirects to itself), /redirect?to=URL, /dialogs (alert and confirm on load),
/popup (opens popups, then tries to navigate away), /throws (its script throws), /iframes (content
inside iframes), /big?mb=N (an N MB DOM), /bigld?mb=N (an N MB product page, nearly all JSON-LD), /slow?s=N (answers after N seconds), /gate?name=N (answers once the test calls open_gate(N)), /busy (loads, then
its script loops forever), /links-to?to=URL (a listing whose every product link, and a
hidden category link "Lamps", is URL), /lone (a product page whose JSON-LD holds lone surrogates, NaN and 1e309,
whose script sets a title with a lone surrogate).

For the network policy: every request is also logged as (method, host, path) in ``log`` (the host
from the Host header, or from the URL when the server is used as an HTTP proxy: it answers
``GET http://any.host/path`` like ``GET /path``, and ``CONNECT any.host:80`` by serving the requests
inside the tunnel, so tests can use names that do not resolve). Every Proxy-Authorization it gets is
logged in ``proxy_auth``; with ``require_proxy_auth`` set, it answers a proxy request without those
credentials 407, as an authenticated proxy does.
/redirect?to=URL sends the URL as raw bytes in Location (backslashes, tabs, UTF-8 unchanged),
/redirect?to=URL&status=307 with that status, /gz302?to=URL a redirect whose gzip body is garbage,
/switch?to=URL redirects to /ok the first time and to URL afterwards, POST /post?to=URL answers 303,
/kinds?target=ORIGIN&ws=ORIGIN a page that reaches for the target in every way a page can, /sw.js
its service worker.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
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

    def redirect(self, location: str, status: int = 302, extra: bytes = b"") -> None:
        """A redirect whose Location goes out byte for byte as given (UTF-8, backslashes, tabs)."""
        head = f"HTTP/1.1 {status} Moved\r\nContent-Length: {len(extra)}\r\n".encode()
        if extra:
            head += b"Content-Encoding: gzip\r\n"
        self.wfile.write(head + b"Location: " + location.encode("utf-8") + b"\r\n\r\n" + extra)
        self.close_connection = True

    def record(self) -> tuple:
        parts = urlsplit(self.path)
        host = parts.netloc if parts.scheme else (self.headers.get("Host") or "")
        path = parts.path or "/"
        self.server.log.append((self.command, host.lower(), path))
        return parts, path

    def proxy_gate(self) -> bool:
        """Every Proxy-Authorization is logged (whether the request was a proxy request: CONNECT or
        an absolute URL, or one to a server); with ``require_proxy_auth`` a proxy request without
        those credentials is answered 407. False when it was."""
        given = self.headers.get("Proxy-Authorization")
        as_proxy = self.command == "CONNECT" or "://" in self.path
        if given is not None:
            self.server.proxy_auth.append((as_proxy, given))
        wanted = self.server.require_proxy_auth
        if wanted and as_proxy and given != wanted:
            self.send(b"", status=407, headers={"Proxy-Authenticate": 'Basic realm="upstream"'})
            self.close_connection = True
            return False
        return True

    def do_CONNECT(self) -> None:
        """As an HTTP proxy: accept the tunnel and serve the requests inside it (plain HTTP)."""
        if not self.proxy_gate():
            return
        self.server.log.append(("CONNECT", self.path.lower(), ""))
        self.wfile.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        self.close_connection = False

    def do_POST(self) -> None:
        if not self.proxy_gate():
            return
        parts, path = self.record()
        self.server.hits[f"POST {path}"] += 1
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if path == "/post":
            self.redirect(parse_qs(parts.query)["to"][0], 303)
        else:
            self.send(b"not found", status=404, ctype="text/plain")

    def do_GET(self) -> None:  # noqa: C901 - one branch per route reads best here
        if not self.proxy_gate():
            return
        parts, path = self.record()
        query = parse_qs(parts.query)
        self.server.hits[path] += 1
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
                self.redirect(query["to"][0], int(query.get("status", ["302"])[0]))
            elif path == "/gz302":
                self.redirect(query["to"][0], 302, extra=b"\x1f\x8b\x08garbage, not gzip at all")
            elif path == "/switch":
                first = self.server.hits[path] == 1
                self.redirect("/ok" if first else query["to"][0])
            elif path == "/post-form":
                to = query["to"][0]
                self.send(
                    listing(
                        "Form",
                        extra=f'<form method="post" action="/post?to={to}"><input name="a" value="1">'
                        "</form><script>document.forms[0].submit()</script>",
                    )
                )
            elif path == "/kinds":
                self.send(kinds_page(query["target"][0], query["ws"][0]).encode())
            elif path == "/sw.js":
                target = query["target"][0]
                self.send(f"fetch('{target}/from-sw').catch(() => 0);".encode(), ctype="text/javascript")
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
            elif path == "/bigld":
                self.send(big_product_page(float(query.get("mb", ["25"])[0])))
            elif path == "/slow":
                self.server.stop_event.wait(float(query.get("s", ["2"])[0]))
                self.send(listing("Slow"))
            elif path == "/gate":  # held until the test opens the gate of that name (60 s at most)
                self.server.gates[query["name"][0]].wait(60)
                self.send(listing("Gate"))
            elif path == "/busy":  # loads, then its script never gives the thread back
                self.send(
                    listing("Busy", extra="<script>addEventListener('load', () => { for (;;) {} })</script>")
                )
            elif path == "/echo-cookie":  # a page that shows the session cookie it was sent
                self.send(listing(f"Cookie {self.headers.get('Cookie') or 'none'}"))
            elif path == "/links-to":  # a listing whose product links (and a hidden category) go to ?to=
                to = query["to"][0].replace('"', "%22")
                items = "\n".join(
                    f'<li class="item"><a href="{to}#{i}">Product {i}</a> <span class="price">{40 * i + 9},00 zł</span></li>'
                    for i in range(1, 7)
                )
                menu = f'<nav><a href="/ok">Home</a><a href="{to}" style="display:none">Lamps</a></nav>'
                self.send(LISTING.format(title="Links", items=items, extra=menu).encode())
            elif path == "/lone":  # a product page of unwritable text and numbers JSON cannot spell
                self.send(LONE_PAGE)
            elif path == "/favicon.ico":
                self.send(b"", status=204)
            else:
                self.send(b"not found", status=404, ctype="text/plain")
        except (BrokenPipeError, ConnectionResetError):
            pass


#: Page data no JSON may hold: lone surrogates (JSON-LD escapes, a title a script sets), 1e309 and NaN.
LONE_PAGE = (
    b"<!doctype html><html><head><title>Lamp</title>"
    b'<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", '
    b'"name": "Lamp \\ud83d", "description": "Half \\udc00 an emoji", "sku": "L-\\ud800",'
    b'"aggregateRating": {"ratingValue": 1e309, "ratingCount": 3}, '
    b'"offers": {"price": NaN, "priceCurrency": "PLN", "availability": "InStock"}}</script>'
    b"</head><body><h1>Lamp</h1>"
    b"<script>document.title = 'Lamp ' + String.fromCharCode(0xD83D);</script></body></html>"
)


def big_product_page(mb: float) -> bytes:
    """A product page of ``mb`` MB, nearly all JSON-LD: blocks of 1.9 MB (under the 2 MB a block may
    have), each an ``@graph`` of 26,000 products written as tightly as JSON allows (the most products
    per byte: parsing costs by the product, the browser's copies by the byte); cheap for a browser,
    seconds of parsing for product_detail."""
    graph = [{"@type": "Product", "name": f"L{i}", "offers": {"price": i}} for i in range(26000)]
    block = json.dumps({"@context": "https://schema.org", "@graph": graph}, separators=(",", ":"))
    script = f'<script type="application/ld+json">{block}</script>'
    return (
        "<html><head><title>Lamp</title>" + script * max(1, int(mb * 1e6) // len(script)) + "</head><body>"
        "<h1>Lamp</h1><p class='price'>12,00 EUR</p></body></html>"
    ).encode()


def kinds_page(target: str, ws: str) -> str:
    """A page reaching for ``target`` (an http origin) and ``ws`` (a ws origin) in every way a page can."""
    return f"""<!doctype html><html><head><title>Kinds</title>
<link rel="stylesheet" href="{target}/style.css"><link rel="prefetch" href="{target}/prefetch">
<link rel="preload" as="fetch" href="{target}/preload" crossorigin>
<script src="{target}/script.js"></script>
<style>@import url("{target}/import.css"); body {{ background: url("{target}/bg.png") }}</style>
</head><body><h1>Kinds</h1><ul class="items"><li class="item">one</li></ul>
<iframe src="{target}/frame"></iframe>
<img src="{target}/img.png"><video src="{target}/video.mp4"></video>
<a id="ping" href="/ok?ping=1" target="sink" ping="{target}/ping">ping</a>
<form id="f" method="post" action="{target}/form-post" target="sink"><input name="a" value="1"></form>
<iframe name="sink"></iframe>
<script>
fetch("{target}/fetch").catch(() => 0);
fetch("{target}/fetch-post", {{method: "POST", body: "x"}}).catch(() => 0);
const x = new XMLHttpRequest(); x.open("GET", "{target}/xhr"); x.send();
navigator.sendBeacon("{target}/beacon", "x");
try {{ new EventSource("{target}/events"); }} catch (e) {{}}
try {{ new WebSocket("{ws}/socket"); }} catch (e) {{}}
try {{ new Worker(URL.createObjectURL(new Blob(["fetch('{target}/worker').catch(() => 0)"]))); }} catch (e) {{}}
try {{ navigator.serviceWorker.register("/sw.js?target={target}"); }} catch (e) {{}}
document.getElementById("f").submit();
document.getElementById("ping").click();
</script></body></html>"""


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.hits: Counter = Counter()
        self.log: list[tuple[str, str, str]] = []  # (method, host, path) of every request
        self.require_proxy_auth: str | None = None  # as a proxy: the Proxy-Authorization it wants
        self.proxy_auth: list[tuple[bool, str]] = []  # (a proxy request?, value) of each one sent
        self.stop_event = threading.Event()
        self.gates: defaultdict[str, threading.Event] = defaultdict(threading.Event)  # /gate?name=N
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def port(self) -> int:
        return self.server_address[1]

    def requests_to(self, host: str) -> list[tuple[str, str, str]]:
        """Logged requests whose host (without the port) is ``host``."""
        return [r for r in self.log if r[1].rsplit(":", 1)[0] == host]

    def open_gate(self, name: str) -> None:
        """Let the requests held at ``/gate?name=NAME`` (and those to come) be answered."""
        self.gates[name].set()

    def stop(self) -> None:
        self.stop_event.set()
        for gate in list(self.gates.values()):
            gate.set()
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
