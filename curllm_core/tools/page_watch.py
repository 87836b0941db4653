"""Watching a page while an action runs, and waiting (bounded) for what the action set off.

`PageWatch` sees both sides: the browser's (requests, navigations of the main frame and of the
page's frames) and the page's (`_WATCH_JS`, armed in the page and its same-origin frames: DOM
changes, submit events, fetch/XHR calls, timers and messages an action's handlers scheduled). `settle` decides from them, as soon as it can, whether the action
did anything at all, and waits for what it did: an action after which nothing starts costs a grace
of `GRACE_MS`, not a fixed sleep. A frame the action loads a new document into (a search form in a
frame whose results show there) is waited for as the page itself would be: its document committed,
its ``load``, then its readiness (`readiness.wait_ready`), all within the action's time limit. A form submit that would only load the same address again (a
GET form whose fields are not part of its query: the server is told nothing new) is not sent; the
watch says so (`Settled.same_page`).

Every browser call costs a round trip, so the watch makes few: with ``look`` set, the last look of
`settle` also takes the listing's fingerprint (`listing_change.LOOK_JS`), which the caller compares
instead of looking again. (Its network listeners are the watch's own, added and removed with it: kept
for the page's life, they would save three calls a watch and have the driver send three events for
every request the page makes later.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Playwright's error types from the module its API takes them from: importing playwright.async_api
# costs ~0.15 s of CPU, and the HTTP engine reads pages with these modules' rules (the pager's next
# link on HTML) without a browser. They are the very classes playwright.async_api exports (a test says so).
from playwright._impl._errors import Error as PlaywrightError
from playwright._impl._errors import TimeoutError as PlaywrightTimeout

from ..events import UrlCompleteEvent, UrlStartEvent
from ..readiness import READY_TIMEOUT_MS, wait_ready
from .listing_change import LOOK_JS


@dataclass
class Settled:
    """What happened after an action: a navigation (and how its response ended), network traffic,
    DOM changes, whether a form's submit event was fired."""

    navigated: bool
    requests: int
    mutations: int
    submitted: bool = False
    status: int | None = None  # HTTP status of the main frame's last document response
    url: str = ""  # the page's URL afterwards
    target: str = ""  # the URL the last navigation asked for (a chrome-error page does not show it)
    #: A form submit that would only have loaded this same address again (a GET form whose fields
    #: are not in its query: the server would be told nothing new) was not sent.
    same_page: bool = False
    #: With `PageWatch.look` set and nothing seen happening: what `listing_change.LOOK_JS` answered in
    #: the same call as the watch's last look (``first`` of `listing_change.wait_changed`).
    look: Any = None

    @property
    def reacted(self) -> bool:
        """Whether the page did anything at all."""
        return self.navigated or self.requests > 0 or self.mutations > 0

    @property
    def broken(self) -> bool:
        """The action navigated to an HTTP error (400 or more) or a browser error page."""
        if not self.navigated:
            return False
        return (self.status is not None and self.status >= 400) or self.url.startswith("chrome-error:")


# The in-page side of PageWatch. It counts DOM changes, and notes the work an action has set going
# that a moment later shows as a reaction: a submit or link click that no script prevented, or a
# form.submit() (the browser is about to load another document), fetches and XHRs (requests), and
# timers due soon (a debounced handler). The page's same-origin frames are watched with it (into
# the same counts): a search form in a frame is submitted there. Listeners and wrappers go in once
# per document; each reset starts afresh. Armed for a form's submit (``{forms: true}``), what the form's own controls do to
# their attributes (a validity class, a button's pressed or busy state, a focus ring) is no
# reaction, and a submit that would load this same address again is not sent (``again``).
_WATCH_JS = r"""(opts) => {
  const forms = !!(opts && opts.forms);
  // The watch lives in the window armed (the page's), and keeps that window's clock; the same-origin
  // frames below it are armed too (`arm`), reporting into it: a form submitted or a link followed in
  // a frame, a frame's DOM changes and the work its handlers schedule are the action's reaction too.
  const top = window, clock = top.performance;
  const watch = () => top.__curllmWatch;
  // What a script may keep for the next document besides the query: cookies and storage (bounded:
  // null, "unknown", when there is too much of it to compare). A same-origin frame shares them.
  top.__curllmKept = () => {
    let s = "";
    try {
      s = document.cookie || "";
      for (const st of [localStorage, sessionStorage]) {
        if (st.length > 200) return null;
        for (let i = 0; i < st.length; i++) { const k = st.key(i); s += "\u0000" + k + "=" + st.getItem(k); }
      }
    } catch (e) { /* cookies or storage refused (an opaque document): what could be read */ }
    return s.length > 200000 ? null : s;
  };
  // Whether a form (or a button's formaction) of this window or its same-origin frames submits to the
  // address of its own window: only such a submit can be one to "this same address" (`again`), which
  // compares what was kept; reading cookies and storage asks the browser (a few ms), so it is read
  // only then. (Not read, it is null: a submit to this address is sent, as one the page changed is.)
  const toItself = (w) => {
    try {
      const here = w.location;
      for (const el of w.document.querySelectorAll("form, [formaction]")) {
        const to = new w.URL(el.tagName === "FORM" ? el.action : el.formAction, here.href);
        if (to.origin === here.origin && to.pathname === here.pathname) return true;
      }
      for (let i = 0; i < w.frames.length; i++) if (toItself(w.frames[i])) return true;
    } catch (e) { /* a frame of another origin: not armed, its forms are not watched */ }
    return false;
  };
  top.__curllmWatch = {count: 0, last: clock.now(), submits: 0, event: null, leaving: false,
                       calls: 0, due: 0, waiting: 0, messages: 0, messagesDue: 0, again: false, forms, structural: 0,
                       kept: forms && toItself(top) ? top.__curllmKept() : null};
  const CONTROL = /^(INPUT|SELECT|TEXTAREA|BUTTON|OPTION|OPTGROUP|LABEL|FIELDSET|LEGEND|FORM|OUTPUT)$/;
  // Whether a form or link target loads into this page: its own window, a parent, or a frame of the
  // page by name (not a new window).
  const framed = (name) => {
    const find = (w) => {
      for (let i = 0; i < w.frames.length; i++) {
        try { if (w.frames[i].name === name || find(w.frames[i])) return true; } catch (e) { /* another origin */ }
      }
      return false;
    };
    return find(top);
  };
  const arm = (window) => {
    const document = window.document, location = window.location, performance = clock;
    if (window.__curllmObserver) window.__curllmObserver.disconnect();
    window.__curllmObserver = new window.MutationObserver((records) => {
      const w = watch();
      for (const r of records) {
        if (r.type === "attributes" && ((r.attributeName && r.attributeName.startsWith("data-curllm")) ||
                                        (w.forms && CONTROL.test(r.target.nodeName)))) continue;
        w.count++; w.last = performance.now();
        if (r.type !== "attributes") w.structural++;
      }
    });
    if (document.documentElement) {
      window.__curllmObserver.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
    }
    for (let i = 0; i < window.frames.length; i++) {
      let child = null;
      try { child = window.frames[i].document ? window.frames[i] : null; } catch (e) { /* another origin */ }
      if (child) arm(child);
    }
    if (window.__curllmListening) return;
    window.__curllmListening = true;
    const here = (t) => !t || t === "_self" || t === window.name;
    const lands = (t) => here(t) || /^_(parent|top)$/i.test(t) || framed(t);
    // A GET submit to this same address with this same query (the fields filled are not in it) would
    // load the page the server already sent: the server is told nothing new, unless a script kept
    // something for the next document (a cookie, storage), which is compared.
    const again = (f, by) => {
      try {
        const method = ((by && by.getAttribute("formmethod")) || f.getAttribute("method") || "get").toLowerCase();
        if (method !== "get") return false;
        const to = new window.URL((by && by.hasAttribute("formaction")) ? by.formAction : f.action, location.href);
        let data;
        try { data = new window.FormData(f, by || undefined); } catch (err) { data = new window.FormData(f); }
        const query = new window.URLSearchParams(data).toString();
        const page = new window.URL(location.href);
        return to.origin === page.origin && to.pathname === page.pathname &&
               query === new window.URLSearchParams(page.search).toString();
      } catch (err) { return false; }
    };
    // Capture phase on window: first to see the event, even when a handler stops its propagation;
    // whether a script prevented its default is read later, when that is final.
    window.addEventListener("submit", (e) => {
      const w = watch(), f = e.target;
      w.submits++;
      const by = e.submitter || null;
      const target = (by && by.getAttribute("formtarget")) || f.getAttribute("target");
      if (!lands(target) || /^\s*javascript:/i.test(f.getAttribute("action") || "")) return;
      w.event = e;
      if (!here(target) || !w.forms || !again(f, by)) return;
      // Decided after the form's own handlers (the last listener of the form itself): a submit that
      // no script prevented and that would only load this page again is not sent.
      f.addEventListener("submit", (ev) => {
        const now = watch();
        if (ev !== e || ev.defaultPrevented || now.kept === null || top.__curllmKept() !== now.kept) return;
        ev.preventDefault();
        now.again = true;
      }, {once: true});
    }, true);
    window.addEventListener("click", (e) => {
      const a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
      if (!a || a.hasAttribute("download") || !lands(a.getAttribute("target"))) return;
      const href = a.href || "";
      if (/^(https?|file):/i.test(href) && href.split("#")[0] !== location.href.split("#")[0]) watch().event = e;
    }, true);
    window.addEventListener("beforeunload", () => { watch().leaving = true; });
    const submit = window.HTMLFormElement.prototype.submit;
    window.HTMLFormElement.prototype.submit = function () { watch().leaving = true; return submit.apply(this, arguments); };
    if (window.fetch) {
      const fetch = window.fetch;
      window.fetch = function () { watch().calls++; return fetch.apply(this, arguments); };
    }
    const send = window.XMLHttpRequest.prototype.send;
    window.XMLHttpRequest.prototype.send = function () { watch().calls++; return send.apply(this, arguments); };
    // Work scheduled for later by a handler of what the user (curllm) did: when it is due, the page may
    // react (a debounced handler, a framework's render in the next frame or after a message). Counted:
    // what is scheduled within 30 ms of such an event, and what the callbacks scheduled so run in turn,
    // three generations deep; an animation or a poller (a callback scheduling itself) is not waited on.
    const ACTIONS = ["click", "submit", "keydown", "keyup", "input", "change", "pointerup", "mouseup"];
    for (const type of ACTIONS) window.addEventListener(type, () => { window.__curllmActingUntil = performance.now() + 30; }, true);
    let generation = null, running = null;  // the counted callback running now, and its generation
    const acting = () => generation !== null ? generation : performance.now() < (window.__curllmActingUntil || 0) ? 0 : null;
    // A counted callback is waited for until it has run (or was cancelled), not only until it is
    // due: on a loaded machine a 150 ms timer runs when the page's thread gets to it (`waiting`).
    const later = (obj, name, delayOf, callbackAt, cancel) => {
      const orig = obj && obj[name];
      if (typeof orig !== "function") return;
      const pending = new Map();  // id -> the watch counting it, for a counted callback not run yet
      const over = (id) => { const w = pending.get(id); if (w) { pending.delete(id); w.waiting--; } };
      const stop = cancel && obj[cancel];
      if (typeof stop === "function") obj[cancel] = function (id) { over(id); return stop.apply(this, arguments); };
      obj[name] = function () {
        const gen = acting();
        const fn = callbackAt === null ? null : arguments[callbackAt];
        let counted = false, id;
        // a callback that schedules itself again is a loop (an animation, a poller), not a reaction
        if (gen !== null && gen < 3 && !(fn && fn === running)) {
          const delay = delayOf(arguments);
          if (delay <= 1500) {
            const w = watch();
            w.due = Math.max(w.due, performance.now() + delay);
            counted = typeof fn === "function";
          }
          if (typeof fn === "function") {
            arguments[callbackAt] = function () {
              over(id);
              const outer = [generation, running];
              generation = gen + 1;
              running = fn;
              try { return fn.apply(this, arguments); } finally { [generation, running] = outer; }
            };
          } else if (callbackAt === null) {  // a message: the wait lasts until it arrives (see `arrived`)
            const w = watch();
            w.messages++;
            w.messagesDue = performance.now() + 1500;
          }
        }
        id = orig.apply(this, arguments);
        if (counted) { const w = watch(); pending.set(id, w); w.waiting++; }
        return id;
      };
    };
    // A counted message arriving: what its handler schedules counts too (it runs right after this
    // listener, which is added before the page's own), and the wait for it is over. However loaded the
    // machine, the wait lasts until the message is handled (up to 1.5 s), not a guessed delay.
    const arrived = () => {
      const w = watch();
      if (w.messages <= 0) return;
      w.messages--;
      window.__curllmActingUntil = Math.max(window.__curllmActingUntil || 0, performance.now() + 30);
    };
    window.addEventListener("message", arrived, true);
    const receiving = (proto) => {
      if (!proto) return;
      const ours = new WeakSet();
      const listen = (target) => {
        if (!ours.has(target)) { ours.add(target); add.call(target, "message", arrived); }
      };
      const add = proto.addEventListener;
      proto.addEventListener = function (type) {
        if (type === "message") listen(this);
        return add.apply(this, arguments);
      };
      const prop = Object.getOwnPropertyDescriptor(proto, "onmessage");
      if (prop && prop.set) {
        Object.defineProperty(proto, "onmessage", {...prop, set(fn) { listen(this); prop.set.call(this, fn); }});
      }
    };
    receiving(window.MessagePort && window.MessagePort.prototype);
    receiving(window.Worker && window.Worker.prototype);
    later(window, "setTimeout", (a) => Number(a[1]) || 0, 0, "clearTimeout");
    later(window, "requestAnimationFrame", () => 20, 0, "cancelAnimationFrame");
    later(window, "requestIdleCallback", (a) => Math.min(Number(a[1] && a[1].timeout) || 50, 50), 0, "cancelIdleCallback");
    later(window, "postMessage", () => 5, null);
    later(window.MessagePort && window.MessagePort.prototype, "postMessage", () => 5, null);
    // work handed to another thread: its answer comes back as a message, a little later
    later(window.Worker && window.Worker.prototype, "postMessage", () => 100, null);
  };
  arm(window);
  return true;
}"""
# [DOM changes, ms since the last one, submit events, a navigation is coming, fetch/XHR calls,
#  ms until the last timer set since the reset is due (1 while one is overdue but has not run yet),
#  or a message posted since has arrived,
#  a submit to this same address was not sent, the changes were all of attributes and nothing that
#  could change more (a request, a timer, a message, a CSS animation or transition) is under way]
_STATE_JS = r"""() => {
  const w = window.__curllmWatch;
  if (!w) return null;
  const now = performance.now();
  return [w.count, now - w.last, w.submits, (!!w.event && !w.event.defaultPrevented) || w.leaving, w.calls,
          Math.max(0, w.due - now, w.messages > 0 ? w.messagesDue - now : 0, w.waiting > 0 ? 1 : 0), !!w.again,
          w.forms && w.count > 0 && !w.structural && !w.calls && w.due <= now && w.waiting <= 0 && w.messages <= 0 &&
            !((!!w.event && !w.event.defaultPrevented) || w.leaving) &&
            !(document.getAnimations && document.getAnimations().some((a) => a.playState === "running"))];
}"""


#: The watch's state and a look at the listing (`listing_change.LOOK_JS`), in one call.
_STATE_LOOK_JS = "(opts) => [(" + _STATE_JS + ")(), (" + LOOK_JS + ")(opts)]"


#: How long an action has to show a reaction (a request, a DOM change) when it set nothing going
#: that the page watch can see: an action after which nothing happens costs about this much. Work
#: it scheduled (timers, animation frames, messages) extends the wait to when that is due (up to
#: 1.5 s); a submit or link click that no script prevented waits for the next document (its first
#: request within PENDING_MS).
GRACE_MS = 10
PENDING_MS = 3000
TIMERS_MS = 1600


class PageWatch:
    """Watches a page while an action runs; ``await watch.settle()`` waits, within bounds, for the effects.

    With ``emit`` (a tool's ``ctx.emit``), a page the action loads is reported like every page the run
    visits: ``url_start`` when its navigation starts, ``url_complete`` when ``settle`` has waited for it.

    >>> async with PageWatch(page, emit=ctx.emit) as watch:
    ...     await page.click("text=Filtruj")
    ...     settled = await watch.settle()
    """

    def __init__(self, page: Any, *, arm: bool = True, emit: Callable[..., object] | None = None):
        self.page = page
        self.arm = arm  # False: the caller arms the in-page side within its own call (submit_from)
        self.emit = emit
        self.loading: tuple[str, float] | None = None  # a reported page not yet complete: (url, start)
        self.inflight: set = set()
        self.requests = 0
        self.nav_started = False
        self.navigated = asyncio.Event()
        self.status: int | None = None
        self.target = ""
        #: The argument of `listing_change.LOOK_JS` (`listing_change.look_options`): set, the last look
        #: of `settle` at a page where nothing was seen happening takes the listing's fingerprint too
        #: (`Settled.look`).
        self.look: dict | None = None
        #: Frames (not the main one) the action sent to another document: each with its navigation's
        #: latest request and whether that document has committed (or the request ended without one).
        self.frame_loads: dict[Any, tuple[Any, asyncio.Event]] = {}

    def _frame_navigation(self, request: Any) -> Any:
        """The frame (not the main one) ``request`` loads a document into, else None."""
        try:
            if request.is_navigation_request() and request.frame != self.page.main_frame:
                return request.frame
        except PlaywrightError:
            pass  # a service worker's request: no frame's
        return None

    def _main_navigation(self, request: Any) -> bool:
        try:
            return request.is_navigation_request() and request.frame == self.page.main_frame
        except PlaywrightError:
            return False  # a service worker's request: not a navigation of this page

    def _on_request(self, request: Any) -> None:
        self.requests += 1
        self.inflight.add(request)
        frame = self._frame_navigation(request)
        if frame is not None:
            # A redirect's next hop is the same visit; a new navigation of the frame waits afresh.
            _, committed = self.frame_loads.get(frame, (None, None))
            if committed is None or committed.is_set():
                committed = asyncio.Event()
            self.frame_loads[frame] = (request, committed)
        if self._main_navigation(request):
            self.nav_started = True
            self.target = request.url
            # A redirect's next hop is the same page visit, still loading.
            if self.emit is not None and self.loading is None and request.redirected_from is None:
                self.loading = (request.url, time.perf_counter())
                self.emit(UrlStartEvent(url=request.url))

    def _on_response(self, response: Any) -> None:
        if self._main_navigation(response.request):
            self.status = response.status

    def _on_done(self, request: Any) -> None:
        self.inflight.discard(request)
        # A frame's navigation that ended without a new document (a 204, a download, a failure): no
        # commit to wait for. A redirect's hop is followed by the next one, not the end.
        frame = self._frame_navigation(request)
        loading = self.frame_loads.get(frame) if frame is not None else None
        if loading is not None and loading[0] is request and request.redirected_to is None:
            loading[1].set()

    def _on_navigated(self, frame: Any) -> None:
        if frame == self.page.main_frame:
            self.navigated.set()
        elif frame in self.frame_loads:
            self.frame_loads[frame][1].set()

    def _listeners(self) -> tuple:
        return (
            ("request", self._on_request),
            ("response", self._on_response),
            ("requestfinished", self._on_done),
            ("requestfailed", self._on_done),
            ("framenavigated", self._on_navigated),
        )

    async def __aenter__(self) -> PageWatch:
        for event, fn in self._listeners():
            self.page.on(event, fn)
        if self.arm:
            try:
                await self.reset()
            except BaseException:
                self._remove_listeners()  # not entered: __aexit__ will not run
                raise
        return self

    def _remove_listeners(self) -> None:
        for event, fn in self._listeners():
            self.page.remove_listener(event, fn)

    async def __aexit__(self, *exc: Any) -> None:
        self._remove_listeners()
        # A page loaded after `settle` (going back after a broken submit) or while the action failed.
        await self.report()

    async def report(self, *, error: str | None = None) -> None:
        """``url_complete`` for the page reported loading: its title, or why it failed."""
        if self.loading is None or self.emit is None:
            return
        url, started = self.loading
        self.loading = None
        ms = int((time.perf_counter() - started) * 1000)
        if error is None and self.status is not None and self.status >= 400:
            error = f"HTTP {self.status}"
        if error is None and self.page.url.startswith("chrome-error:"):
            error = "the browser showed an error page"
        if error is not None:
            self.emit(UrlCompleteEvent(url=url, duration_ms=ms, error=error))
            return
        try:
            title = await asyncio.wait_for(self.page.title(), 2.0)
        except Exception:  # a page stuck in JavaScript, or gone: no title, no reason to wait
            title = None
        self.emit(UrlCompleteEvent(url=self.page.url, duration_ms=ms, title=title))

    def clear(self) -> None:
        """Forget what this side has seen so far (the in-page side is reset by arming it)."""
        self.requests = 0
        self.nav_started = False
        self.navigated.clear()
        self.status = None
        self.target = ""
        self.frame_loads = {}

    async def reset(self, *, forms: bool = False) -> None:
        """Start counting afresh (before the next action); ``forms``: the action submits a form."""
        self.clear()
        await self._evaluate(_WATCH_JS, {"forms": forms})

    async def _evaluate(self, script: str, arg: Any = None) -> Any:
        try:
            return await self.page.evaluate(script, arg)
        except PlaywrightError:
            return None  # the document is being replaced: a navigation, which the events report

    async def settle(self, timeout_ms: int = 10000, grace_ms: int = GRACE_MS) -> Settled:
        """Wait until the page is done reacting, never longer than ``timeout_ms``.

        A navigation is waited for to its ``load`` event and then for the fetches still in flight;
        otherwise fetches, when the action started any, until none is in flight for 300 ms (capped at
        5 s, since pages with polling never go quiet); DOM changes until none for 200 ms. ``grace_ms``
        is how long a reaction may take to start at all: an action after which nothing happened costs
        about that much, unless a submit or link click went through unprevented (then the next
        document is waited for).
        """
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + timeout_ms / 1000
        pending_until = min(deadline, start + PENDING_MS / 1000)
        timers_until = start + TIMERS_MS / 1000  # a page that keeps setting timers is not waited on forever

        def left() -> float:
            return max(0.0, deadline - loop.time())

        # 1. did anything start? A navigation request shows within a few ms of a click or submit;
        # a fetch or a DOM change shows the page reacted in place.
        submitted, state, seen = False, None, None
        pause = grace_ms / 1000  # the first look after the grace: a look costs a round trip
        while not (self.nav_started or self.navigated.is_set()):
            await asyncio.sleep(pause)
            pause = 0.02
            if self.nav_started or self.navigated.is_set():
                break
            if self.look is None:
                state = await self._evaluate(_STATE_JS)
            else:
                state, seen = await self._evaluate(_STATE_LOOK_JS, self.look) or (None, None)
            if state:
                submitted = submitted or state[2] > 0
            if state and len(state) > 7 and state[7] and not self.requests:
                # a submit after which only attributes changed, with nothing more under way: a class
                # on the page (a pressed button's, a focus style's) is all it did; nothing to wait for
                return Settled(
                    False, 0, state[0], submitted, None, self.page.url, same_page=bool(state[6]), look=seen
                )
            if self.requests or (state and (state[0] or state[4])):
                break
            if state is None or state[3]:  # the document is going away, or about to be replaced
                until = pending_until
            else:  # nothing seen yet: a short grace, or until the timers set since are due
                due = loop.time() + state[5] / 1000 + 0.02 if state[5] else 0.0
                until = min(deadline, timers_until, max(start + grace_ms / 1000, due))
            if loop.time() >= until:
                break
        navigated = self.nav_started or self.navigated.is_set()
        same_page = bool(state and len(state) > 6 and state[6])
        fetched = bool(self.requests or (state and state[4]))
        if not (navigated or fetched or (state and state[0])):
            return Settled(False, 0, 0, submitted, None, self.page.url, same_page=same_page, look=seen)
        if navigated:
            try:
                await asyncio.wait_for(self.navigated.wait(), left())
                await self.page.wait_for_load_state("load", timeout=max(1.0, left() * 1000))
            except (TimeoutError, PlaywrightTimeout):
                pass  # bounded: a page still loading after the deadline is used as it is
        framed = await self._frames_loaded(deadline)
        # 2. network quiet: nothing in flight for 300 ms; after a navigation, whose load event has
        # already waited for the document and its resources, only what is still in flight. An action
        # that started no request (a change in place) has no network to wait for.
        if navigated or fetched:
            await self._network_quiet(0.0 if navigated or framed else 0.3, min(deadline, loop.time() + 5.0))
        # 3. DOM quiet (same document only: a new document starts with its own changes)
        mutations = 0
        if not (navigated or self.navigated.is_set()):
            while loop.time() < deadline:
                state = await self._evaluate(_STATE_JS)
                if not state:
                    break
                mutations = state[0]
                submitted = submitted or state[2] > 0
                same_page = same_page or bool(len(state) > 6 and state[6])
                if state[1] >= 200:
                    break
                await asyncio.sleep(0.1)
            if not fetched and (self.requests or self.inflight):  # a request its changes started
                await self._network_quiet(0.3, min(deadline, loop.time() + 5.0))
        navigated = navigated or self.navigated.is_set()
        await self.report()
        return Settled(
            navigated,
            self.requests,
            mutations,
            submitted,
            self.status,
            self.page.url,
            self.target,
            same_page=same_page and not navigated,
        )

    async def _frames_loaded(self, deadline: float) -> bool:
        """Wait, until ``deadline`` (event-loop time), for each frame the action sent to another
        document: the document committed, its ``load`` event, then its readiness (`wait_ready`: what
        its scripts fetch or render as it loads). Whether any frame was waited for."""
        loop = asyncio.get_running_loop()
        done: set = set()
        while True:
            todo = [(f, c) for f, (_, c) in self.frame_loads.items() if f not in done]
            if not todo:
                return bool(done)
            frame, committed = todo[0]
            done.add(frame)
            try:
                await asyncio.wait_for(committed.wait(), max(0.0, deadline - loop.time()))
                if frame.is_detached():
                    continue
                await frame.wait_for_load_state("load", timeout=max(1.0, (deadline - loop.time()) * 1000))
            except (TimeoutError, PlaywrightTimeout):
                return True  # bounded: a frame still loading after the deadline is read as it is
            except PlaywrightError:
                continue  # the frame went away meanwhile
            left_ms = int((deadline - loop.time()) * 1000)
            if left_ms > 0 and not frame.is_detached():
                await wait_ready(frame, min(READY_TIMEOUT_MS, left_ms))

    async def _network_quiet(self, quiet_s: float, until: float) -> None:
        """Until no request of the page has been in flight for ``quiet_s`` (looked at every 50 ms; no
        wait at all when nothing is in flight and nothing needs to stay quiet), or ``until``."""
        loop = asyncio.get_running_loop()
        quiet_since = None
        while loop.time() < until:
            if self.inflight:
                quiet_since = None
            else:
                quiet_since = loop.time() if quiet_since is None else quiet_since
                if loop.time() - quiet_since >= quiet_s:
                    return
            await asyncio.sleep(0.05)
