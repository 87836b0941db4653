"""Documents whose declared charset is missing or wrong, opened by the real browser layer.

A stdlib server on 127.0.0.1 sends each page's bytes with the Content-Type given for it; the page
is opened through `Session.open` (as every task does), in a session of its own in the session's
browser (`curllm_browser`), and its text read back from the DOM.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from curllm_core.browser import BrowserOptions
from curllm_core.policy import NetworkPolicy

pytestmark = pytest.mark.browser

FR = "Voiture Rhône, très bon état, 19 500 €"
PL = "Kubek żółty, cena 39,99 zł, dostawa: Łódź"
DE = "Größe: Übergröße, Straße, 24,99 €"


def doc(text: str, head: str = "", lang: str = "") -> str:
    lang_attr = f' lang="{lang}"' if lang else ""
    return f'<!doctype html><html{lang_attr}><head>{head}<title>t</title></head><body><p id="x">{text}</p></body></html>'


#: path -> (body, Content-Type header or None, the text the page shows)
PAGES = {
    # declares UTF-8 in a <meta>, written in Latin-1 (a saved page re-encoded by an old tool)
    "/meta-utf8-latin1": (doc(FR, '<meta charset="utf-8">').encode("cp1252"), "text/html", FR),
    # declares nothing, served without a charset: UTF-8 read as windows-1252 without the fix
    "/no-charset-utf8": (doc(PL).encode(), "text/html", PL),
    "/no-header-utf8": (doc(DE).encode(), None, DE),
    # the server's header says UTF-8, the bytes are windows-1250
    "/header-utf8-cp1250": (doc(PL, lang="pl").encode("cp1250"), "text/html; charset=utf-8", PL),
    # right declarations stay as they are
    "/declared-right": (doc(PL, '<meta charset="windows-1250">').encode("cp1250"), "text/html", PL),
    "/utf8-declared": (doc(DE, '<meta charset="utf-8">').encode(), "text/html; charset=utf-8", DE),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/no-charset-utf8")
            self.end_headers()
            return
        body, content_type, _ = PAGES[self.path]
        self.send_response(200)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


async def shown(session, url: str) -> str:
    await session.open(url)
    return await session.page.inner_text("#x")


@pytest.mark.parametrize(
    "options, policy",
    [
        (BrowserOptions(), NetworkPolicy()),  # the default: images blocked, no policy
        (BrowserOptions(load_images=True), NetworkPolicy()),  # nothing else routed
        (BrowserOptions(), NetworkPolicy(allow=("127.0.0.1",))),  # the policy fetches hop by hop
    ],
    ids=["default", "load-images", "policy"],
)
async def test_documents_read_with_the_charset_their_bytes_show(curllm_browser, server, options, policy):
    session = await curllm_browser.new_session(options, policy)
    try:
        for path, (_, _, text) in PAGES.items():
            assert await shown(session, server + path) == text, path
        # The page keeps its own URL, and its scripts see the right characters.
        assert session.page.url == server + "/utf8-declared"
        await session.open(server + "/meta-utf8-latin1")
        assert await session.page.evaluate("document.characterSet") == "windows-1252"
    finally:
        await session.close()


async def test_saved_files_with_a_wrong_declaration(curllm_browser, tmp_path):
    wrong = tmp_path / "wrong.html"
    wrong.write_bytes(doc(FR, '<meta charset="utf-8">').encode("cp1252"))
    right = tmp_path / "right.html"
    right.write_bytes(doc(PL, '<meta charset="utf-8">').encode())
    session = await curllm_browser.new_session()
    try:
        assert await shown(session, str(wrong)) == FR
        assert session.page.url == wrong.as_uri()
        assert await shown(session, str(right)) == PL
    finally:
        await session.close()


@pytest.mark.parametrize(
    "policy", [NetworkPolicy(), NetworkPolicy(allow=("127.0.0.1",))], ids=["default", "policy"]
)
async def test_the_target_of_a_redirect(curllm_browser, server, policy):
    session = await curllm_browser.new_session(BrowserOptions(), policy)
    try:
        # Chromium does not route the hops it follows: the target is opened again, through the route.
        assert await shown(session, server + "/redirect") == PL
        assert session.page.url == server + "/no-charset-utf8"
    finally:
        await session.close()
