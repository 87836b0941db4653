"""The browser layer: one Chromium per process (`Browser`), a fresh context per task (`Session`).

Playwright is imported here and nowhere else in the engine, only when a page is really needed.
A session enforces the network policy on every request and redirect hop, blocks images, media and
fonts unless asked for (broken images make pages seconds slower), dismisses JS dialogs and closes
popups so that they cannot derail a task.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .browser_path import find_browser
from .errors import (
    BrowserLaunchFailed,
    NavigationError,
    NavigationRefused,
    NavigationTimeout,
    PolicyError,
    http_status_error,
)
from .policy import NetworkPolicy
from .urls import normalize_url

log = logging.getLogger("curllm.browser")

LAUNCH_ARGS = [
    # This machine's network is closed: without these Chromium retries Google services at every start.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
]
HEAVY_RESOURCES = {"image", "media", "font"}
MAX_REDIRECTS = 20
# Chromium net errors that will not go away by trying again.
PERMANENT_NET_ERRORS = (
    "ERR_NAME_NOT_RESOLVED",
    "ERR_BLOCKED_BY_CLIENT",
    "ERR_INVALID_URL",
    "ERR_FILE_NOT_FOUND",
    "ERR_UNKNOWN_URL_SCHEME",
    "ERR_TOO_MANY_REDIRECTS",
    "ERR_ABORTED",
)


@dataclass(frozen=True)
class BrowserOptions:
    """Per-task browser settings (the CLI's browser options)."""

    headless: bool = True
    locale: str | None = None
    user_agent: str | None = None
    viewport: tuple[int, int] = (1280, 900)
    proxy: str | None = None
    session_file: str | None = None
    load_images: bool = False
    screenshots: str | None = None
    navigation_timeout_ms: int = 30000


def parse_viewport(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
        if w > 0 and h > 0:
            return w, h
    except ValueError:
        pass
    raise ValueError(f"viewport must look like 1280x800, got {text!r}")


class Browser:
    """One Chromium for the process. Start it lazily; share it between tasks (batch runs)."""

    def __init__(self, executable: str | None = None, headless: bool = True):
        self.executable = executable
        self.headless = headless
        self._pw = None
        self._browser = None
        self._lock = asyncio.Lock()

    @property
    def started(self) -> bool:
        return self._browser is not None

    @property
    def open_contexts(self) -> int:
        """Browser contexts open now (one per running task; a server reports it); 0 if not started."""
        return len(self._browser.contexts) if self._browser is not None else 0

    async def start(self) -> Any:
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if self._browser is not None:  # it crashed: start a new one for the tasks still to come
                log.warning("the browser is gone (crashed?); starting a new one")
                self._browser = None
                await _quietly(self._pw.stop())
                self._pw = None
            executable = self.executable or find_browser()
            from playwright.async_api import async_playwright

            headless = self.headless
            if not headless and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
                log.warning("--headful needs a display (DISPLAY is not set); running headless")
                headless = True
            self._pw = await async_playwright().start()
            try:
                # curllm handles Ctrl-C itself (a batch records its running tasks as cancelled): the
                # driver must not close the browser under it. It still does when Python dies.
                self._browser = await self._pw.chromium.launch(
                    executable_path=executable,
                    headless=headless,
                    args=LAUNCH_ARGS,
                    handle_sigint=False,
                    handle_sigterm=False,
                    handle_sighup=False,
                )
            except Exception as e:
                await self._pw.stop()
                self._pw = None
                raise BrowserLaunchFailed(
                    f"could not start the browser {executable}: {str(e).splitlines()[0]}"
                ) from e
            return self._browser

    async def new_session(
        self, options: BrowserOptions | None = None, policy: NetworkPolicy | None = None
    ) -> Session:
        browser = await self.start()
        session = Session(options or BrowserOptions(), policy or NetworkPolicy())
        await session.start(browser)
        return session

    async def close(self) -> None:
        async with self._lock:
            if self._browser is not None:
                try:
                    await self._browser.close()
                finally:
                    self._browser = None
                    await self._pw.stop()
                    self._pw = None


class Session:
    """A browser context and its main page, for one task."""

    def __init__(self, options: BrowserOptions, policy: NetworkPolicy):
        self.options = options
        self.policy = policy
        self.context = None
        self.page = None
        self.blocked: list[PolicyError] = []

    async def start(self, browser) -> None:
        o = self.options
        kwargs: dict[str, Any] = {"viewport": {"width": o.viewport[0], "height": o.viewport[1]}}
        if o.locale:
            kwargs["locale"] = o.locale
        if o.user_agent:
            kwargs["user_agent"] = o.user_agent
        if o.proxy:
            kwargs["proxy"] = {"server": o.proxy}
        if o.session_file and Path(o.session_file).is_file():
            kwargs["storage_state"] = o.session_file
        self.context = await browser.new_context(**kwargs)
        self.context.set_default_timeout(o.navigation_timeout_ms)
        # Always routed: besides the policy and heavy resources, documents get their charset checked.
        await self.context.route("**/*", self._route)
        self.page = await self.context.new_page()
        self.page.on("dialog", lambda dialog: asyncio.ensure_future(_quietly(dialog.dismiss())))
        # Popups (window.open, target=_blank) are closed: the task stays on its own page.
        self.context.on(
            "page", lambda p: None if p is self.page else asyncio.ensure_future(_quietly(p.close()))
        )

    async def _route(self, route) -> None:
        request = route.request
        if not self.options.load_images and request.resource_type in HEAVY_RESOURCES:
            await route.abort()
            return
        if self.policy.active:
            try:
                await self.policy.check(request.url)
            except PolicyError as e:
                self.blocked.append(e)
                await route.abort("blockedbyclient")
                return
            if request.url.startswith("http"):
                await self._fetch_checked(route)
                return
        if request.resource_type == "document" and await _fulfill_document(route):
            return
        await _quietly(route.continue_())

    async def _fetch_checked(self, route) -> None:
        """Fetch a request hop by hop, checking every redirect target before it is requested.

        Chromium follows redirects of an intercepted request without routing them again, so the
        whole chain is walked and checked here first; then the browser gets the first response and
        follows the (checked) chain itself.
        """
        timeout = self.options.navigation_timeout_ms
        try:
            first = response = await route.fetch(max_redirects=0, timeout=timeout)
            url, hops = route.request.url, 0
            while 300 <= response.status < 400 and response.headers.get("location") and hops < MAX_REDIRECTS:
                hops += 1
                url = urljoin(url, response.headers["location"])
                await self.policy.check(url)
                response = await route.fetch(url=url, method="GET", max_redirects=0, timeout=timeout)
        except PolicyError as e:
            self.blocked.append(e)
            await _quietly(route.abort("blockedbyclient"))
            return
        except Exception:  # a network failure: let the browser's own request report it
            await _quietly(route.continue_())
            return
        if route.request.resource_type == "document" and await _fulfill_document(route, first):
            return
        await _quietly(route.fulfill(response=first))

    async def open(self, url: str, timeout_ms: int | None = None) -> Any:
        """Navigate the main page. Raises PolicyError or NavigationError naming the status or cause."""
        url = normalize_url(url)
        await self.policy.check(url)
        timeout = timeout_ms or self.options.navigation_timeout_ms
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        try:
            response = await self.page.goto(url, wait_until="domcontentloaded", timeout=timeout)
        except PlaywrightTimeout:
            raise NavigationTimeout(f"timed out after {timeout} ms opening {url}") from None
        except PlaywrightError as e:
            if self.blocked:
                raise self.blocked[-1] from None
            reason = str(e).splitlines()[0].replace("Page.goto: ", "")
            permanent = any(code in reason for code in PERMANENT_NET_ERRORS)
            raise (NavigationRefused if permanent else NavigationError)(
                f"could not open {url}: {reason}"
            ) from None
        if response is not None and response.status >= 400:
            raise http_status_error(
                response.status, f"HTTP {response.status} {response.status_text} for {url}"
            )
        if await _redirect_target_misread(response):
            await self.page.goto(self.page.url, wait_until="domcontentloaded", timeout=timeout)
        try:
            # The DOM is there; give scripts a moment to finish, but a slow sub-resource is no failure.
            await self.page.wait_for_load_state("load", timeout=min(timeout, 5000))
        except PlaywrightTimeout:
            pass
        return self.page

    async def screenshot(self, path: Path) -> str | None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            await self.page.screenshot(path=str(path), timeout=5000)
            return str(path)
        except Exception as e:  # a screenshot is a diagnostic extra: never fail the task for it
            log.warning("screenshot failed: %s", e)
            return None

    async def close(self) -> None:
        if self.context is None:
            return
        if self.options.session_file:
            try:
                await self.context.storage_state(path=self.options.session_file)
            except Exception as e:
                log.warning("could not save the session to %s: %s", self.options.session_file, e)
        await _quietly(self.context.close())
        self.context = None


async def _fulfill_document(route, response=None) -> bool:
    """Hand a document to the browser read with the encoding its bytes show (`charset.sniff`), when
    its declaration is missing or wrong; False when the caller should go on as usual.

    Over http(s) the document is fetched here (``response``, when the caller fetched it already) and
    fulfilled with a corrected ``charset`` in its Content-Type, which a browser puts before any
    ``<meta>``. A ``file:`` document is read from disk and fulfilled only when it needs the fix. A
    redirect is passed on as it is: Chromium does not route the hops it follows (the target of a
    redirect keeps its own declaration).
    """
    from .charset import content_type_with, is_html_type, sniff

    url = route.request.url
    try:
        if url.startswith("file:"):
            from urllib.parse import urlsplit
            from urllib.request import url2pathname

            path = Path(url2pathname(urlsplit(url).path))
            if path.suffix.lower() not in (".html", ".htm", ".xhtml", ".shtml", ""):
                return False
            enc = sniff(path.read_bytes(), None)
            if not enc.fixes:
                return False
            await route.fulfill(status=200, path=path, content_type=content_type_with(None, enc.name))
            return True
        if not url.startswith("http"):
            return False
        if response is None:
            response = await route.fetch(max_redirects=0)
        content_type = response.headers.get("content-type")
        if 300 <= response.status < 400 or not is_html_type(content_type):
            await route.fulfill(response=response)
            return True
        enc = sniff(await response.body(), content_type)
        if not enc.fixes:
            await route.fulfill(response=response)
            return True
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-type"}
        headers["content-type"] = content_type_with(content_type, enc.name)
        await route.fulfill(response=response, headers=headers)
        return True
    except Exception:  # a missing file, a network failure, a closed page: the caller goes on as usual
        return False


async def _redirect_target_misread(response) -> bool:
    """Whether a navigation ended, through redirects, on a document the browser read with the wrong
    charset: Chromium does not route the hops it follows, so `_fulfill_document` never saw it.
    Opening the final URL again goes through the route (one more request, only in this case)."""
    try:
        if response is None or response.request.redirected_from is None:
            return False
        from .charset import is_html_type, sniff

        content_type = response.headers.get("content-type")
        return is_html_type(content_type) and sniff(await response.body(), content_type).fixes
    except Exception:  # no body (a download, a closed page): nothing to fix
        return False


async def _quietly(awaitable) -> None:
    """Await a browser call whose failure only means the target is already gone."""
    try:
        await awaitable
    except Exception:  # closed page, handled route, dismissed dialog: nothing left to do
        pass
