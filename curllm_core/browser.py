"""The browser layer: one Chromium per process (`Browser`), a fresh context per task (`Session`).

Playwright is imported here and nowhere else in the engine, only when a page is really needed.
A session with a network policy sends every connection through the browser's egress proxy
(`egress.py`: one per browser, a client with its own credentials and policy per session) and
checks what routing sees before it leaves. It blocks images, media and fonts unless asked for
(broken images make pages seconds slower), dismisses JS dialogs and closes popups so that they
cannot derail a task, and bounds every call a hung page would never answer.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .browser_path import find_browser
from .errors import (
    BrowserError,
    BrowserLaunchFailed,
    NavigationError,
    NavigationRefused,
    NavigationTimeout,
    PolicyError,
    UsageError,
    http_status_error,
)
from .files import write_json_atomic
from .policy import NetworkPolicy
from .readiness import INIT_JS as READINESS_INIT_JS
from .readiness import READY_TIMEOUT_MS, wait_ready
from .scrub import add_cookies
from .urls import normalize_url, parse_web_url, web_url

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
    # WebRTC would send STUN/TURN over UDP straight to any address, around the egress proxy.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
]
HEAVY_RESOURCES = {"image", "media", "font"}
# Time limits of calls a page stuck in JavaScript would never answer.
SAVE_SESSION_TIMEOUT_S = 5.0
CLOSE_TIMEOUT_S = 10.0
# Chromium net errors that will not go away by trying again.
PERMANENT_NET_ERRORS = (
    "ERR_NAME_NOT_RESOLVED",
    "ERR_BLOCKED_BY_CLIENT",
    "ERR_INVALID_URL",
    "ERR_FILE_NOT_FOUND",
    "ERR_UNKNOWN_URL_SCHEME",
    "ERR_TOO_MANY_REDIRECTS",
    "ERR_ABORTED",
    "ERR_UNSAFE_REDIRECT",  # a redirect to file: or data:, refused by Chromium every time
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
    consent: str = "reject"  # what to answer consent dialogs: reject, accept, leave (consent.py)
    #: Whether ``consent`` was asked for (an option, the config, a task, a request) rather than left
    #: at its default: the user cares about the dialogs, which only a browser answers (``--engine auto``
    #: then runs the task in the browser, `engines.browser_reason`).
    consent_asked: bool = False
    #: How long reading a page waits for its content to be there (readiness.py), at most.
    ready_timeout_ms: int = READY_TIMEOUT_MS


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
        self._pw: Any = None  # playwright's driver, once started
        self._browser: Any = None  # playwright Browser, once started
        self._lock = asyncio.Lock()
        self._closing = False
        #: The egress proxy of every policed context of this browser (`egress`), once one needs it.
        self._egress: Any = None
        self._egress_lock = asyncio.Lock()
        #: How many times the browser went away without being closed (a crash, a killed process):
        #: a task that ran while this changed lost its page through no fault of its own.
        self.crashes = 0

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
            self._closing = False
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
                self._browser.on("disconnected", self._on_disconnected)
            except Exception as e:
                await self._pw.stop()
                self._pw = None
                raise BrowserLaunchFailed(
                    f"could not start the browser {executable}: {str(e).splitlines()[0]}"
                ) from e
            return self._browser

    async def new_session(
        self,
        options: BrowserOptions | None = None,
        policy: NetworkPolicy | None = None,
        *,
        local_files: bool = True,
    ) -> Session:
        """A fresh context and page; ``local_files``: whether a navigation may open a non-web target
        (`Session.check_navigation`; a task's session allows it only when the task started on one)."""
        browser = await self.start()
        session = Session(options or BrowserOptions(), policy or NetworkPolicy(), local_files=local_files)
        egress = await self.egress() if session.needs_egress else None
        try:
            await asyncio.wait_for(session.start(browser, egress), CLOSE_TIMEOUT_S * 3)
        except TimeoutError:
            await session.close()
            raise BrowserError(f"the browser did not open a page within {CLOSE_TIMEOUT_S * 3:g} s") from None
        except BaseException:
            await session.close()  # its egress client and a half-made context
            raise
        return session

    async def egress(self) -> Any:
        """The egress proxy (`egress.EgressServer`) of this browser's policed contexts, started on
        first use and closed with the browser; each session is a client of its own."""
        async with self._egress_lock:
            if self._egress is None:
                from .egress import EgressServer

                server = EgressServer()
                await server.start()
                self._egress = server
            return self._egress

    def _on_disconnected(self, _browser=None) -> None:
        if not self._closing:
            self.crashes += 1

    async def close(self) -> None:
        async with self._lock:
            self._closing = True
            try:
                if self._browser is not None:
                    try:
                        await _bounded(self._browser.close(), CLOSE_TIMEOUT_S, "closing the browser")
                    finally:
                        self._browser = None
                        await self._pw.stop()
                        self._pw = None
            finally:
                async with self._egress_lock:
                    egress, self._egress = self._egress, None
                    if egress is not None:
                        await egress.close()


def one_script(parts: list[str]) -> str:
    """Scripts a document runs before its own, as one init script (one call to the browser), each in
    a block of its own so that one failing leaves the others working."""
    return "\n".join(f"try {{\n{part.strip()}\n}} catch (e) {{}}" for part in parts)


def navigation_target(url: str, local_files: bool) -> str:
    """The first half of the rule of every navigation, the browser's and the HTTP engine's: a web URL
    as it is; a non-web target (a ``file:`` URL, a plain path, ``data:``) only where ``local_files``
    allows it (PolicyError otherwise). Returns the URL to open; the network policy is the other half."""
    target = web_url(url)
    if target is not None:
        return target
    if not local_files:
        raise PolicyError(
            f"blocked URL {url[:300]}: this task opens only web pages (http, https): a task that "
            "starts on a web page or runs on a server never opens local files or other non-web targets"
        )
    return normalize_url(url)


class Session:
    """A browser context and its main page, for one task."""

    def __init__(self, options: BrowserOptions, policy: NetworkPolicy, *, local_files: bool = True):
        self.options = options
        self.policy = policy
        self.local_files = local_files  # whether navigations may open file: (and other non-web) targets
        self.context: Any = None  # playwright BrowserContext, once started
        self.page: Any = None  # playwright Page, once started
        self.blocked: list[PolicyError] = []  # every request the policy refused
        self.blocked_navigations: list[PolicyError] = []  # those that were the main page's own
        self.egress: Any = None  # its client of the browser's egress proxy (`egress.EgressClient`)
        self.loaded_state: dict | None = None  # what --session FILE held when the task started
        self.own_pages: set[Any] = set()  # pages opened by `new_page` (a map's items), not popups
        self._titles: dict[Any, str | None] = {}  # each page's title when `open` found it ready
        self._creating = 0  # `new_page` calls under way: a new page is a popup only once they are done
        self._created = asyncio.Event()
        #: What was done about consent dialogs, in order (`consent.listen`); ``on_consent`` is told
        #: of each as it happens (the task's events).
        self.consent_actions: list[Any] = []
        self.on_consent: Any = None

    @property
    def needs_egress(self) -> bool:
        """Whether this context's connections go through the egress proxy: with a policy, and without
        one for the link-local rule (unless ``--allow-link-local``, or a ``--proxy`` it cannot chain to)."""
        return self.policy.active or (self.policy.needs_proxy and _http_proxy(self.options.proxy))

    async def start(self, browser, egress: Any = None) -> None:
        """Open the context and its page in ``browser``; its connections through ``egress`` (the
        browser's `egress.EgressServer`), which `needs_egress` says it must have."""
        o = self.options
        kwargs: dict[str, Any] = {"viewport": {"width": o.viewport[0], "height": o.viewport[1]}}
        if o.locale:
            kwargs["locale"] = o.locale
        if o.user_agent:
            kwargs["user_agent"] = o.user_agent
        if o.proxy:
            kwargs["proxy"] = user_proxy(o.proxy)
        if self.needs_egress:
            # Every connection of this context goes through the policy-checking proxy: redirect
            # hops, WebSockets, workers and every other request kind that routing does not see.
            # Without a policy it still refuses link-local targets (a redirect hop to one included).
            # The context is a client of its own: its credentials, its policy, its refusals.
            if egress is None:
                raise BrowserError("a context with a network policy needs the browser's egress proxy")
            self.egress = egress.client(self.policy, upstream=o.proxy, on_block=self.blocked.append)
            kwargs["proxy"] = self.egress.playwright_proxy()
        if o.session_file:
            self.loaded_state = read_session_file(o.session_file)
            if self.loaded_state is not None:
                kwargs["storage_state"] = self.loaded_state
        self.context = await browser.new_context(**kwargs)
        self.context.set_default_timeout(o.navigation_timeout_ms)
        # Every document, before its own scripts, counts its requests in flight and its DOM changes, so
        # that a wait for its content (readiness.py) costs one look when it is already there; and it
        # answers consent dialogs (consent.py), whose reports are taken from before any page opens.
        # One script, one call.
        from .consent import listen, page_script

        scripts = [READINESS_INIT_JS]
        if listen(self.context, o.consent, self._consent):
            scripts.append(page_script(o.consent))
        script = one_script(scripts)
        # Always routed: besides the policy and heavy resources, documents get their charset checked.
        # Calls that do not depend on each other go out together (one wait for the driver, not two).
        if self.egress is not None:
            # The proxy is primed before routing (it answers the primer itself); the script, added
            # meanwhile, applies to the page from its first navigation on.
            page = await self.context.new_page()
            await asyncio.gather(self.egress.prime(page), self.context.add_init_script(script))
            await self.context.route("**/*", self._route)
        else:
            await asyncio.gather(
                self.context.route("**/*", self._route), self.context.add_init_script(script)
            )
            page = await self.context.new_page()  # after the script: its first document runs it
        self.page = self._guarded(page)
        self.page.on("dialog", lambda dialog: asyncio.ensure_future(_quietly(dialog.dismiss())))
        self.page.on("requestfailed", self._on_request_failed)
        # Popups (window.open, target=_blank) are closed: the task stays on its own page.
        self.context.on("page", lambda p: None if p is self.page else asyncio.ensure_future(self._popup(p)))

    def _consent(self, action: Any) -> None:
        self.consent_actions.append(action)
        if self.on_consent is not None:
            self.on_consent(action)

    async def _popup(self, page) -> None:
        """Close a page the task did not open; `new_page`'s own pages are told apart once it returns."""
        while self._creating:
            self._created.clear()
            await self._created.wait()
        if page is not self.page and page not in self.own_pages:
            await _quietly(page.close())

    async def new_page(self) -> Any:
        """A further page in this session's context (same cookies, routing and network policy), e.g.
        for one item of a map. The caller closes it (`close_page`)."""
        self._creating += 1
        try:
            page = self._guarded(await self.context.new_page())
            self.own_pages.add(page)
        finally:
            self._creating -= 1
            if not self._creating:
                self._created.set()
        page.on("dialog", lambda dialog: asyncio.ensure_future(_quietly(dialog.dismiss())))
        return page

    async def check_navigation(self, url: str) -> str:
        """The one rule of every navigation a task makes (its start, a map's item, a tool's
        ``page.goto``): a web URL (http, https) under the network policy; a non-web target (a
        ``file:`` URL, a plain path, ``data:``) only in a session that allows local files, as a task
        that started on a local file does, never a task that started on the web or runs on a server
        (as Chromium refuses a redirect from the web to a local file). The refusal is the same
        whether such a file exists or not. Returns the URL to open."""
        target = navigation_target(url, self.local_files)
        await self.policy.check(target)
        return target

    def _guarded(self, page: Any) -> Any:
        """``page`` whose ``goto`` (what a tool calls, with a URL a page may have given it) goes
        through `check_navigation` first."""
        goto = page.goto

        async def guarded_goto(url: str, *args: Any, **kwargs: Any) -> Any:
            return await goto(await self.check_navigation(url), *args, **kwargs)

        page.goto = guarded_goto
        return page

    async def close_page(self, page) -> None:
        """Close a page of `new_page`; bounded in time, a page stuck in JavaScript is no reason to wait."""
        self.own_pages.discard(page)
        self._titles.pop(page, None)
        await _quietly(_bounded(page.close(), CLOSE_TIMEOUT_S, "closing a page"))

    def opened_title(self, page: Any) -> str | None:
        """``page``'s title when `open` last found it ready (read in the same look, no call of its
        own); None when that look did not answer (ask the page)."""
        return self._titles.get(page)

    async def _route(self, route) -> None:
        """Images and the like are dropped; a request the policy refuses never leaves the browser.

        Allowed requests continue to the network through the egress proxy, which checks every
        connection again (redirect hops are not routed here: Chromium follows them itself).
        """
        request = route.request
        if not self.options.load_images and request.resource_type in HEAVY_RESOURCES:
            await _quietly(route.abort())
            return
        try:
            await self.policy.check_request(request.url)
        except PolicyError as e:
            self.blocked.append(e)
            await _quietly(route.abort("blockedbyclient"))
            return
        if request.resource_type == "document" and await _fulfill_document(route):
            return
        await _quietly(route.continue_())

    def _on_request_failed(self, request) -> None:
        """Remember a navigation of the main page that the policy stopped (the result says so)."""
        if not self.blocked or not request.is_navigation_request():
            return
        try:
            if request.frame != self.page.main_frame:
                return
            host = parse_web_url(request.url).host
        except Exception:  # the frame is gone already, or a URL the policy refused to read
            host = None
        for error in reversed(self.blocked):
            if host is None or getattr(error, "host", None) == host:
                if error not in self.blocked_navigations:
                    self.blocked_navigations.append(error)
                return

    async def open(self, url: str, timeout_ms: int | None = None, page: Any = None) -> Any:
        """Navigate the main page (or ``page``, one of `new_page`). Raises PolicyError or
        NavigationError naming the status or cause."""
        url = await self.check_navigation(url)
        main = page is None or page is self.page
        page = self.page if page is None else page
        timeout = timeout_ms or self.options.navigation_timeout_ms
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        blocked_before = len(self.blocked)
        failures_before = len(self.egress.failures) if self.egress is not None else 0
        try:
            response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout)
        except PlaywrightTimeout:
            raise NavigationTimeout(f"timed out after {timeout} ms opening {url}") from None
        except PlaywrightError as e:
            # The navigation failed while the policy refused something: the page or a redirect hop.
            # (Another page's refusals are not this one's: only those since this navigation began.)
            refused = (self.blocked_navigations if main else []) or self.blocked[blocked_before:]
            if refused:
                raise refused[-1] from None
            reason = str(e).splitlines()[0].replace("Page.goto: ", "")
            if self.egress is not None and self.egress.failures[failures_before:]:
                # Through the egress proxy the browser only sees a closed connection: say why.
                host, why = self.egress.failures[-1]
                reason = f"{why} (connecting to {host})"
            permanent = any(code in reason for code in PERMANENT_NET_ERRORS)
            raise (NavigationRefused if permanent else NavigationError)(
                f"could not open {url}: {reason}"
            ) from None
        if response is not None and response.status >= 400:
            raise http_status_error(
                response.status, f"HTTP {response.status} {response.status_text} for {url}"
            )
        if await _redirect_target_misread(response):
            await page.goto(page.url, wait_until="domcontentloaded", timeout=timeout)
        try:
            # The DOM is there; give scripts a moment to finish, but a slow sub-resource is no failure.
            await page.wait_for_load_state("load", timeout=min(timeout, 5000))
        except PlaywrightTimeout:
            pass
        # Content rendered after `load` (a listing fetched by script, skeletons): waited for, bounded.
        self._titles[page] = (await wait_ready(page, self.options.ready_timeout_ms)).last.title
        return page

    async def screenshot(self, path: Path) -> str | None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            await self.page.screenshot(path=str(path), timeout=5000)
            return str(path)
        except Exception as e:  # a screenshot is a diagnostic extra: never fail the task for it
            log.warning("screenshot failed: %s", e)
            return None

    async def close(self) -> None:
        """Save the session file (when asked), close the context and the egress proxy; bounded in time.

        A page stuck in JavaScript never answers: saving its storage state or closing it must not
        wait for it forever, so each gets a time limit and the task still ends. The closing runs as a
        task of its own, to its end: a cancellation (a client that hangs up as its task ends) that
        arrives meanwhile waits for it and is raised afterwards, instead of leaving the context (a
        renderer, ~100 MB) and the egress proxy open for good.
        """
        await run_to_end(self._close())

    async def _close(self) -> None:
        if self.context is None:
            if self.egress is not None:
                await self.egress.close()
            return
        context, self.context = self.context, None
        if self.options.session_file:
            await self._save_session(context)
        await _quietly(_bounded(context.close(), CLOSE_TIMEOUT_S, "closing the browser context"))
        if self.egress is not None:
            await self.egress.close()

    async def _save_session(self, context) -> None:
        """Storage state to the session file, atomically. A page that does not answer (stuck in
        JavaScript) cannot give its local storage: then the cookies are saved, with the local
        storage the file had before, and a warning says so."""
        assert self.options.session_file is not None  # called only with one
        path = Path(self.options.session_file)
        try:
            state = await asyncio.wait_for(context.storage_state(), SAVE_SESSION_TIMEOUT_S)
        except Exception as e:  # timed out, or the page went away while it was asked
            why = (
                f"the page did not answer within {SAVE_SESSION_TIMEOUT_S:g} s"
                if isinstance(e, TimeoutError)
                else str(e).splitlines()[0]
                if str(e).strip()
                else type(e).__name__
            )
            try:
                # Cookies live in the browser's network service, not in the page: they still come.
                cookies = await asyncio.wait_for(context.cookies(), SAVE_SESSION_TIMEOUT_S)
            except Exception:
                log.warning("could not save the session to %s: %s, and the browser did not answer", path, why)
                return
            state = {"cookies": cookies, "origins": (self.loaded_state or {}).get("origins", [])}
            log.warning("%s: saved the cookies to %s, not the local storage", why, path)
        add_cookies(state)
        try:
            write_json_atomic(path, state, prefix=f".{path.name}.")  # a reader never sees half
        except OSError as e:
            log.warning("could not save the session to %s: %s", path, e.strerror or e)


#: Closings under way (`run_to_end`): a running task needs a reference to be kept.
_closing: set[asyncio.Future] = set()


async def run_to_end(closing: Coroutine[Any, Any, None]) -> None:
    """Await ``closing`` (a clean-up whose parts are each bounded in time) as a task of its own: a
    cancellation that arrives meanwhile does not cut it short; it is raised once the clean-up is done."""
    task = asyncio.ensure_future(closing)
    _closing.add(task)
    task.add_done_callback(_closing.discard)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait({task})
        raise


SESSION_FILE_LIMIT = 64 * 1024 * 1024


def read_session_file(name: str) -> dict | None:
    """The storage state in a ``--session`` file, None when there is none yet; UsageError when bad.

    Tasks of a batch sharing one file read the same parsed copy while it is unchanged (it is
    replaced atomically when a task saves it, never rewritten in place).
    """
    path = Path(name)
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise UsageError(f"--session {name}: cannot read it: {e.strerror}") from None
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    cached = _session_cache.get(key)
    if cached is not None:
        return cached
    if not path.is_file():
        raise UsageError(f"--session {name}: not a file")
    if st.st_size > SESSION_FILE_LIMIT:
        raise UsageError(f"--session {name}: {st.st_size} bytes is too big for a session file")
    import json

    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise UsageError(f"--session {name}: cannot read it: {e.strerror}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise UsageError(
            f"--session {name}: not a session file (JSON storage state saved by curllm): {e}"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cookies", []), list):
        raise UsageError(f"--session {name}: not a session file (a JSON object with cookies and origins)")
    _session_cache.clear()
    _session_cache[key] = doc
    add_cookies(doc)
    return doc


_session_cache: dict[tuple, dict] = {}


def user_proxy(proxy: str) -> dict[str, str]:
    """A ``--proxy`` URL as Playwright's setting: credentials written in it go in their own fields
    (Chromium answers the proxy's 407 with them; they are never sent to any other host)."""
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if parts.username is None:
        return {"server": proxy}
    server = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    return {"server": server, "username": unquote(parts.username), "password": unquote(parts.password or "")}


def _http_proxy(proxy: str | None) -> bool:
    """No user proxy, or an http:// one: the egress proxy can stand in front of it."""
    return proxy is None or urlsplit(proxy if "://" in proxy else f"http://{proxy}").scheme == "http"


async def _bounded(awaitable, seconds: float, what: str) -> None:
    """Await a browser call for at most ``seconds``; a hung browser must not hang curllm."""
    try:
        await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        log.warning("%s did not finish within %g s; going on without it", what, seconds)


async def _fulfill_document(route, response=None) -> bool:
    """Hand a document to the browser read with the encoding its bytes show (`charset.sniff`), when
    its declaration is missing or wrong; False when the caller should go on as usual.

    Over http(s) the document is fetched here (``response``, when the caller fetched it already) and
    fulfilled with a corrected ``charset`` in its Content-Type, which a browser puts before any
    ``<meta>``. A ``file:`` document is read from disk and fulfilled only when it needs the fix. A
    redirect is passed on as it is: Chromium does not route the hops it follows (the target of a
    redirect keeps its own declaration; the egress proxy still checks it when there is a policy).
    A fetch that fails is not retried by the browser (the request is sent once): the navigation
    fails with the matching network error.
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
            try:
                response = await route.fetch(max_redirects=0)
            except Exception as e:
                # The request may have reached the server already: continuing would send it twice.
                await _quietly(route.abort(_abort_reason(e)))
                return True
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


def _abort_reason(error: Exception) -> str:
    """The Playwright abort code for a failed ``route.fetch``, so the navigation fails as it would have."""
    text = str(error)
    for needle, reason in (
        ("ENOTFOUND", "namenotresolved"),
        ("EAI_AGAIN", "namenotresolved"),
        ("ECONNREFUSED", "connectionrefused"),
        ("ECONNRESET", "connectionreset"),
        ("socket hang up", "connectionclosed"),
        ("ETIMEDOUT", "timedout"),
        ("Timeout", "timedout"),
    ):
        if needle in text:
            return reason
    return "failed"


async def _quietly(awaitable) -> None:
    """Await a browser call whose failure only means the target is already gone."""
    try:
        await awaitable
    except Exception:  # closed page, handled route, dismissed dialog: nothing left to do
        pass
