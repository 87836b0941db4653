"""`TaskPage`: the task's browser session (a context and its page), made before the plan exists.

It is made before planning, so that a model can be shown the page the steps then use (no second
navigation) and the browser can start while the rules plan (`TaskPage.warm_up`); the `Execution`
takes it over and closes it.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..browser import Browser, Session, run_to_end
from ..clock import elapsed_ms
from ..errors import NoURL, PageUnavailable
from ..events import ConsentEvent, EventBus, UrlCompleteEvent, UrlStartEvent
from ..jsonsafe import clean_text
from .calls import describe
from .options import RunOptions

log = logging.getLogger("curllm.executor")


async def page_title(page, session: Session | None = None) -> str | None:
    """The title for the event: the one ``session`` read when it opened ``page`` (`Session.open`: no
    call of its own), else asked; a page stuck in JavaScript does not answer, and that is no reason to wait."""
    known = session.opened_title(page) if session is not None else None
    if known is not None:
        return clean_text(known)
    try:
        title = await asyncio.wait_for(page.title(), 2.0)
    except Exception:  # timed out, or the page is gone
        return None
    return clean_text(title)


class TaskPage:
    """The page of one task: a browser session (a context and its page) opened once at the start URL.

    It exists before the plan does, so that a model can be shown the page the steps then use (no
    second navigation), and the browser can start while the rules plan (`warm_up`). The `Execution`
    takes it over and closes it. ``browser`` is shared when given; else one is started on demand and
    closed with the page.
    """

    on_html = False  # a live page in the browser (`HtmlTaskPage` is the HTTP engine's)
    document = None  # tools read ``page``; only the HTTP engine has a fetched document
    fetch = None

    def __init__(self, options: RunOptions, events: EventBus, browser: Browser | None = None):
        self.options, self.events = options, events
        self.browser = browser
        self.owns_browser = browser is None
        self.session: Session | None = None
        self.opened = False  # the start URL is loaded in the session's page
        self.warming: asyncio.Task | None = None  # a browser launch started early (`warm_up`)
        self._making = asyncio.Lock()  # `ensure_session`: one session per task
        #: What getting the page cost, before and during the run (the task's timings start here).
        self.timings: dict[str, int] = {"browser_ms": 0, "navigation_ms": 0}

    @property
    def page(self):
        return self.session.page if self.session else None

    @property
    def url(self) -> str | None:
        return self.page.url if self.page is not None and self.page.url != "about:blank" else self.options.url

    @property
    def launching(self) -> bool:
        """Whether the browser is being started early (`warm_up`) and is not up yet."""
        return self.warming is not None and not self.warming.done()

    async def warm_up(self) -> None:
        """Start launching the browser in a task and return at once (a failed launch is reported by
        the first step that needs a page, not here)."""
        if self.browser is None:
            self.browser = Browser(headless=self.options.browser.headless)
        elif self.browser.started:
            return
        browser = self.browser

        async def launch() -> None:
            try:
                await browser.start()
            except Exception as e:  # reported where a page is needed (BrowserNotFound before any step)
                log.debug("browser warm-up failed: %s", e)

        self.warming = asyncio.create_task(launch())
        await asyncio.sleep(0)  # the task imports Playwright and spawns its driver, then waits

    async def ensure_session(self) -> Session:
        """The task's browser session (context), started without opening the start URL; one, however
        many callers ask at once (a map's items, when no start page made it before them).

        Its navigations may open local files only when the task started on one (`Session.check_navigation`).
        """
        async with self._making:
            if self.session is None:
                started = time.perf_counter()
                if self.browser is None:
                    self.browser = Browser(headless=self.options.browser.headless)
                local = (self.options.url or "").lower().startswith("file:")
                self.session = await self.browser.new_session(
                    self.options.browser, self.options.policy, local_files=local
                )
                # A consent dialog answered on any page of the task (no page is open yet) is an event.
                self.session.on_consent = lambda action: self.events.emit(ConsentEvent(**action.to_dict()))
                self.timings["browser_ms"] += elapsed_ms(started)
        return self.session

    async def open(self) -> None:
        """Start the browser and open the start URL (once; a no-op when it is open).

        One attempt per call: a failed opening raises, and the step's own retries try again.
        """
        if self.opened:
            return
        if not self.options.url:
            raise NoURL(
                # Worded for every entry point: a library caller has no --url to pass.
                "this step needs a web page but no URL was given: give the task a start URL (or name"
                " a site the installed tools know)"
            )
        await self.options.policy.check(self.options.url)  # refuse before starting anything
        session = await self.ensure_session()
        url = self.options.url
        self.events.emit(UrlStartEvent(url=url))
        started = time.perf_counter()
        try:
            await session.open(url)
        except PageUnavailable as e:
            self.timings["navigation_ms"] += elapsed_ms(started)
            self.events.emit(UrlCompleteEvent(url=url, error=describe(e), duration_ms=elapsed_ms(started)))
            raise
        self.opened = True
        self.timings["navigation_ms"] += elapsed_ms(started)
        self.events.emit(
            UrlCompleteEvent(
                url=self.page.url, duration_ms=elapsed_ms(started), title=await page_title(self.page, session)
            )
        )

    async def close(self) -> None:
        """Close the session (and a browser of its own), to the end even when the task is cancelled
        meanwhile (`browser.run_to_end`)."""
        await run_to_end(self._close())

    async def _close(self) -> None:
        if self.warming is not None:
            await self.warming  # never raises: a failed launch is reported where a page is needed
        if self.session is not None:
            await self.session.close()
        if self.owns_browser and self.browser is not None:
            await self.browser.close()
