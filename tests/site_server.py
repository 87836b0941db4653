"""The local test site: the example shop plus small test-only pages, on 127.0.0.1 (stdlib only).

``start_site()`` serves it from a background thread and returns an object with ``.url`` (e.g.
``http://127.0.0.1:PORT``, no trailing slash) and ``.stop()``.

Routes: everything of ``examples/shop/serve.py`` (``/``, ``/kategoria/<slug>``, ``/produkt/<id>``,
``/nowosci``, ``/inspiracje``, ``/api/produkty``, ...; see its docstring), plus ``/test/<page>.html``
from ``tests/site/``:

``/test/en-shop.html``        English listing: "Price from" / "Price to" (names min, max), a
                              "Sort by" select without onchange, button "Apply"; filters client-side.
``/test/de-shop.html``        German listing: "Preis von" / "Preis bis" as nearby text (names
                              preis_von, preis_bis), no submit button: Enter submits (by script).
``/test/dates.html``          input[type=date] pair "Check-in" / "Check-out".
``/test/dates-pl.html``       text dates "Data od" (placeholder DD.MM.YYYY) / "Data do" (dd.mm.rrrr).
``/test/dates-us.html``       text dates "Departure date" / "Return date" (placeholder MM/DD/YYYY).
``/test/dates-readonly.html`` read-only text dates "Przyjazd" / "Wyjazd" (format shown by their
                              value, 01.06.2024); change events are logged into ``#log``.
                              The date pages echo the submitted query into ``#echo``.
``/test/hn.html``             Hacker-News-like list, 5 stories, "More" (rel=next) to ``hn-2.html`` (3).
``/test/reddit.html``         old-reddit-like list, 4 posts, "next ›" to ``reddit-2.html`` (2).
``/test/scroll-ending.html``  infinite scroll that ends after ``?loads=N`` loads (default 3) of 10.
``/test/scroll-endless.html`` infinite scroll that never ends (10 items per load).
``/test/table.html``          a data table of CPUs with prices, and a layout table.
``/test/menu.html``           collapsed category tree (details/summary) linking into the shop.
``/test/buttons.html``        buttons, role=button, summary, input[type=submit]; clicks log to ``#log``.
``/test/inert-filter.html``   24 products and a price filter whose script cancels the submit and does
                              nothing else (a form after which nothing happens).
``/test/js-filter.html``      a price filter applied by script, as ``?mode=`` says: ``sync``, ``timer``
                              (400 ms later), ``fetch`` (after a request), ``frame`` (two animation
                              frames later), ``message`` (after a MessageChannel message), ``worker``
                              (when a worker answers), ``none``.
``/test/broken-pl.html``      forms whose submit breaks the page: a POST filter (HTTP 501), a search
                              and a sort select leading to missing pages (404).
``/test/broken-en.html``      a GET filter (number fields "Min/Max price") to a missing page (404).
``/test/broken-de.html``      "Preis von/bis" posted by the page's Enter handler (HTTP 501).
``/test/paged-{en,pl,de}.html``  one page of a listing that states more ("Showing 1–12 of 120 results",
                              "Wyniki 1–12 z 312", "12 von 42 Produkten") and links its next page
                              (rel=next, "Następna strona", an arrow labelled "Zur nächsten Seite").
``/test/paged-last-{en,pl,de}.html``  the last page of a listing that states more ("Showing 109–120
                              of 120 results", "Znaleziono 36 produktów", "37–42 von 42 Produkten") and
                              links its previous page (rel=prev and "‹ Previous", "Poprzednia strona", an
                              arrow labelled "Zur vorherigen Seite"; "Zurück zum Shop" elsewhere).
``/test/paged-last-short-en.html``  such a last page ("109–120 of 120", "Previous page") whose HTML holds
                              4 of its 12 items, a script adding the rest.
``/test/short-{en,pl}.html``  a listing whose HTML holds 4 of its 24 items, a script adding the rest
                              ("24 products"; "Wyniki 1–24 z 96" with a next page).
``/test/state-results-{en,de}.html``  search results behind skeletons, only in script state
                              (``self.__SEARCH_STATE__ = {...}``; ``var searchData = JSON.parse("...")``).
``/test/leads-elsewhere-{en,pl,de}.html``  a listing whose search, sort select and price filter all
                              submit to ``/test/elsewhere.html``: 200, a page without the listing
                              (what a served copy answers for a real site's form target).

``/forms/<kind>?markup=&lang=`` price filter forms that do nothing and forms that work (GET, and
POST for the one that posts; ``/forms-api/items`` the data of the one that fetches). See
``tests/site_forms.py``.

``/pc/...`` pages of what is on a page (shadow roots, frames, modals, consent dialogs, embedded data),
built by ``tests/site_pagecontent.py`` (see its docstring).

``/app/<pattern>?markup=&lang=&delay=`` client-rendered listings (skeletons, items and prices
fetched after ``load``, load-more, infinite scroll, a virtualized list, a filter that applies itself,
a custom sort control); ``/app-api/...`` their data. See ``tests/site_apps.py``.

``/late/<how>?markup=&lang=&ms=`` listings a script completes a moment after ``load`` (a timer, a
chain of timers, animation frames, a promise), nothing on the page saying so: ``tests/site_late.py``.

``/real/<name>.html`` serves a real page snapshot from ``../shared/realpages/`` byte for byte, as
``text/html; charset=utf-8`` (404 when the folder or the page is absent; tests skip before that).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from urllib.parse import parse_qsl, urlsplit

try:
    from . import site_apps, site_forms
except ImportError:  # run as a script: python tests/site_server.py
    import site_apps  # type: ignore[no-redef]
    import site_forms  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
SITE_DIR = Path(__file__).resolve().parent / "site"
REALPAGES = ROOT.parent / "shared" / "realpages"


def load_shop() -> ModuleType:
    """The example shop's module (examples/ is not a package, so it is loaded from its file)."""
    name = "curllm_example_shop"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "shop" / "serve.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _handler_class() -> type:
    shop = load_shop()

    class SiteHandler(shop.ShopHandler):
        """The shop's handler, plus ``/test/<name>.html`` from tests/site/."""

        def do_POST(self) -> None:  # noqa: N802 - the http.server naming
            """POST only where a test page posts (``/forms/post``); elsewhere 501, as before."""
            parts = urlsplit(self.path)
            if not parts.path.startswith("/forms/"):
                self.send_error(HTTPStatus.NOT_IMPLEMENTED)
                return
            size = min(int(self.headers.get("Content-Length") or 0), 65536)
            body = self.rfile.read(size) if size > 0 else b""
            doc = site_forms.page(parts.path.removeprefix("/forms/"), dict(parse_qsl(parts.query)), body)
            if doc is None:
                self.send_error(HTTPStatus.NOT_FOUND)
                return
            self.send_html(doc)

        def send_held(self, text: str, hold: str, hold_ms: int) -> None:
            """An HTML page streamed slowly: the part before each ``hold`` mark sent at once, the
            rest ``hold_ms`` later (the server holds it back); a page without a mark in one piece."""
            if hold not in text or self.command == "HEAD":
                self.send_html(text.replace(hold, ""))
                return
            parts = [part.encode("utf-8") for part in text.split(hold)]
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(sum(len(part) for part in parts)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            for i, part in enumerate(parts):
                if i:
                    time.sleep(hold_ms / 1000)  # the server's slowness, not the test's wait
                self.wfile.write(part)
                self.wfile.flush()

        def route(self, path: str, params: dict[str, str]) -> bool:
            if path == "/forms-api/items":
                self.send_bytes(site_forms.api(params).encode(), "application/json; charset=utf-8")
                return True
            if path.startswith("/forms/"):
                doc = site_forms.page(path.removeprefix("/forms/"), params)
                if doc is None:
                    return False
                self.send_html(doc)
                return True
            if path == "/test/app.js":
                self.send_bytes((SITE_DIR / "app.js").read_bytes(), "text/javascript; charset=utf-8")
                return True
            if path.startswith("/app-api/"):
                status, text = site_apps.api(path, params)
                self.send_bytes(text.encode(), "application/json; charset=utf-8", HTTPStatus(status))
                return True
            if path.startswith("/late/"):
                import site_late

                doc = site_late.page(path.removeprefix("/late/"), params)
                if doc is None:
                    return False
                self.send_html(doc)
                return True
            if path.startswith("/app/p/"):
                self.send_html(site_apps.product_page(path.removeprefix("/app/p/")))
                return True
            if path.startswith("/app/"):
                page = site_apps.page(path.removeprefix("/app/"), params)
                if page is None:
                    return False
                self.send_html(page)
                return True
            if path.startswith("/test/"):
                name = path.removeprefix("/test/")
                # only plain file names: no sub-folders, no way out of tests/site/
                if "/" in name or not name.endswith(".html") or not (SITE_DIR / name).is_file():
                    return False
                self.send_html((SITE_DIR / name).read_text(encoding="utf-8"))
                return True
            if path.startswith("/pc/"):
                import site_pagecontent

                if path == "/pc/consent-log":
                    site_pagecontent.record(params)
                    self.send_bytes(b"{}", "application/json")
                    return True
                doc = site_pagecontent.page(path, params)
                if doc is None:
                    return False
                self.send_held(doc, site_pagecontent.HOLD, site_pagecontent.HOLD_MS)
                return True
            if path.startswith("/real/"):
                name = path.removeprefix("/real/")
                if "/" in name or not name.endswith(".html") or not (REALPAGES / name).is_file():
                    return False
                self.send_bytes((REALPAGES / name).read_bytes(), "text/html; charset=utf-8")
                return True
            return super().route(path, params)

    return SiteHandler


@dataclass
class RunningSite:
    """A test site serving from a daemon thread."""

    server: ThreadingHTTPServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Stop serving and free the port."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_site(port: int = 0) -> RunningSite:
    """Serve the test site on 127.0.0.1 (any free port by default) until ``.stop()``."""
    server = load_shop().make_server(port, handler=_handler_class())
    thread = threading.Thread(target=server.serve_forever, name="curllm-test-site", daemon=True)
    thread.start()
    return RunningSite(server, thread)


if __name__ == "__main__":
    site = start_site()
    print(f"test site: {site.url}/", flush=True)
    try:
        site.thread.join()
    except KeyboardInterrupt:
        site.stop()


async def open_snapshot(page, path: Path, url: str | None = None) -> None:
    """Load a saved page into a Playwright ``page`` with no network access at all.

    With ``url`` the snapshot is served *as* that address (so relative links resolve as on the real
    site, and "same site" means what it meant there); without it, it is opened as a file: URL. The
    page's context is switched offline, so its scripts, images and trackers fail inside the browser
    at once (routing each of hundreds of requests through Python would cost seconds).
    """
    await page.context.set_offline(True)
    if url is None:
        await page.goto(path.as_uri(), wait_until="domcontentloaded")
        return
    body = path.read_bytes()

    async def serve(route) -> None:
        await route.fulfill(status=200, body=body, headers={"content-type": "text/html; charset=utf-8"})

    await page.route(re.compile("^" + re.escape(url) + "$"), serve)
    await page.goto(url, wait_until="domcontentloaded")
