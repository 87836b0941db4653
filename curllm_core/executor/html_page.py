"""`HtmlTaskPage`: the task's page as HTML fetched without a browser (the HTTP engine).

It stands where `TaskPage` stands for the browser engine: the `Execution` opens it before the first
step that needs a page, hands the fetched `Document` to each tool (``ctx.document``; the toolkit's
`page_html` reads it) and closes it. There is no live page (``page`` and ``session`` are None), so
only tools whose manifest says ``"html": true`` run on it (`engines.html_problem` decides that before).
"""

from __future__ import annotations

import time

from ..clock import elapsed_ms
from ..errors import NoURL, PageUnavailable
from ..events import EventBus, UrlCompleteEvent, UrlStartEvent
from ..http_fetch import Connections, Document, Fetcher
from ..jsonsafe import clean_text
from ..politeness import Politeness
from .calls import describe
from .options import RunOptions


class HtmlTaskPage:
    """The page of one task on the HTTP engine: the start URL fetched once, as a `Document`."""

    on_html = True
    page = None  # no live page: tools read ``document``
    session = None
    browser = None
    launching = False

    def __init__(
        self,
        options: RunOptions,
        events: EventBus,
        politeness: Politeness | None = None,
        connections: Connections | None = None,
    ):
        self.options, self.events = options, events
        local = (options.url or "").lower().startswith("file:")
        self.fetcher = Fetcher(
            options.browser, options.policy, local_files=local, politeness=politeness, connections=connections
        )
        self.document: Document | None = None
        self.opened = False
        self.timings: dict[str, int] = {"browser_ms": 0, "navigation_ms": 0}

    @property
    def url(self) -> str | None:
        return self.document.url if self.document is not None else self.options.url

    async def open(self) -> None:
        """Fetch the start URL (once; a no-op when fetched). One attempt per call, as `TaskPage.open`."""
        if self.opened:
            return
        if not self.options.url:
            raise NoURL(
                "this step needs a web page but no URL was given: give the task a start URL (or name"
                " a site the installed tools know)"
            )
        url = self.options.url
        self.events.emit(UrlStartEvent(url=url))
        started = time.perf_counter()
        try:
            self.document = await self.fetcher.get(url)
        except PageUnavailable as e:
            self.timings["navigation_ms"] += elapsed_ms(started)
            self.events.emit(UrlCompleteEvent(url=url, error=describe(e), duration_ms=elapsed_ms(started)))
            raise
        self.opened = True
        self.timings["navigation_ms"] += elapsed_ms(started)
        title = self.document.title
        self.events.emit(
            UrlCompleteEvent(
                url=self.document.url,
                duration_ms=elapsed_ms(started),
                title=clean_text(title) if title else None,
            )
        )

    async def fetch(self, url: str) -> Document:
        """A further page of the task (a pager's next page), fetched the same way, with its events."""
        self.events.emit(UrlStartEvent(url=url))
        started = time.perf_counter()
        try:
            doc = await self.fetcher.get(url)
        except PageUnavailable as e:
            self.events.emit(UrlCompleteEvent(url=url, error=describe(e), duration_ms=elapsed_ms(started)))
            raise
        title = doc.title
        self.events.emit(
            UrlCompleteEvent(
                url=doc.url, duration_ms=elapsed_ms(started), title=clean_text(title) if title else None
            )
        )
        return doc

    async def close(self) -> None:
        await self.fetcher.aclose()
