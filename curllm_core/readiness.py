"""Readiness: whether a page's content is there yet, and waiting (bounded) until it is.

Pages today render after the ``load`` event: a listing fetched 0.3-1.5 s later, grey skeleton cards
or "Loading…" where the items will be, prices filled in by a second request. A page is **ready**
when, all at once:

- the document is parsed (``readyState`` is not ``loading``);
- the network is quiet: no fetch/XHR of the page in flight (one running for longer than
  `LONG_POLL_MS` is a long poll or a stream, not content on its way);
- the DOM is stable: no element or text added or removed for `QUIET_MS` (attribute changes, a
  carousel's classes, do not count);
- no work the page scheduled as it loaded is still due: a short timer or an animation frame set
  before ``load`` or within `LOAD_WORK_MS` after it, due by then (a listing a ``load`` listener fills
  50 ms later, nothing on the page saying so), and what such work's callbacks schedule in turn, up
  to `LOAD_WORK_DEPTH` levels (deeper, it is a loop: an animation, a ticker);
- nothing says "still loading": no visible skeleton or placeholder (class or test id naming a
  skeleton, shimmer, placeholder, loader, spinner or ``animate-pulse``), ``aria-busy="true"``,
  ``role=progressbar``, or a short visible text such as "Loading…", "Ładowanie…", "Wird geladen".

Deciding costs one browser call (`PROBE_JS`), so a page already complete and quiet costs one call,
a few milliseconds, and no wait. `INIT_JS`, added to every page of a browser context before its own
scripts run, counts the page's requests in flight, its DOM changes and its short timers; on a page
without it the probe installs it late (it then sees changes from that moment on).

A placeholder that stays while nothing else happens (no request, no change, no short timer due) for
`STALE_MS` is part of the page, not a sign of content to come (a spinner left in a footer). The wait
is bounded (`READY_TIMEOUT_MS` by default; `--ready-timeout`, the config's ``ready_timeout``, the
API's ``options.ready_timeout``): a page that never settles (polling, a ticker) is read as it is
then. ``strict`` also waits for every short timer the page has set (work it scheduled), used before
reading again an extraction that found nothing.

The API is small on purpose (an engine without a browser decides from the same `Probe`):
`wait_ready(page, timeout_ms)` waits and returns a `Readiness`; `probe(page)` takes one look;
`verdict(probe)` is the pure decision.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field, replace
from typing import Any

log = logging.getLogger("curllm.readiness")

#: Default bound of a wait for readiness (ms): a few seconds, then the page is read as it is.
READY_TIMEOUT_MS = 5000
#: How long the DOM must stay unchanged to count as stable (ms).
QUIET_MS = 150
#: A request in flight longer than this is a long poll or a stream, not content on its way (ms).
LONG_POLL_MS = 4000
#: A placeholder still shown after this long with nothing else happening is part of the page (ms).
STALE_MS = 1500
#: Short timers (at most this delay, ms) are work the page scheduled and will do soon.
SHORT_TIMER_MS = 2500
#: Work the page scheduled while it loaded (a short timer, an animation frame set before ``load`` or
#: up to this long after it, due by then) is the rest of its content on its way: waited for (ms).
LOAD_WORK_MS = 1000
#: A timer or frame set from within such work's callback is part of it, this many levels deep; one
#: deeper is a loop (an animation, a ticker), whose later rounds are not waited for.
LOAD_WORK_DEPTH = 4

# Installed before the page's scripts (context.add_init_script) or late, by the probe. Counts the
# page's fetch/XHR calls in flight (with their start), the time of the last DOM change after parsing,
# and short timers pending. Everything stays inside one object; the page's own functions keep
# working as before (the originals are called with the same arguments and their results returned).
_TRACKER_BODY = (
    r"""
  if (window.__curllmReady) return;
  const R = window.__curllmReady = {inflight: new Map(), next: 1, last: 0, changes: 0, timers: new Map()};
  const now = () => performance.now();
  const begin = () => { const id = R.next++; R.inflight.set(id, now()); return id; };
  const end = (id) => { R.inflight.delete(id); R.last = Math.max(R.last, now()); };
  const f = window.fetch;
  if (f) {
    window.fetch = function () {
      const id = begin();
      let p;
      try { p = f.apply(this, arguments); } catch (e) { end(id); throw e; }
      // The body is read after the headers: the response counts as done once its text is in.
      return p.then((r) => {
        try { r.clone().arrayBuffer().then(() => end(id), () => end(id)); } catch (e) { end(id); }
        return r;
      }, (e) => { end(id); throw e; });
    };
  }
  const X = window.XMLHttpRequest && XMLHttpRequest.prototype;
  if (X) {
    const send = X.send;
    X.send = function () {
      const id = begin();
      this.addEventListener("loadend", () => end(id), {once: true});
      try { return send.apply(this, arguments); } catch (e) { end(id); throw e; }
    };
  }
  // Work the page schedules while it loads (before `load` and up to LOAD_WORK after it, due by
  // then): a listing filled by a timer or an animation frame just after `load`. A timer or frame set
  // by such work's callback is part of it (R.depth levels deep, a loop's later rounds are not).
  R.loadAt = 0; R.depth = 0;
  if (document.readyState === "complete") {
    const nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    R.loadAt = (nav && nav.loadEventEnd) || now();
  } else {
    window.addEventListener("load", () => { R.loadAt = now(); }, {capture: true, once: true});
  }
  const loading = () => R.depth < DEPTH && (!R.loadAt || now() <= R.loadAt + LOAD_WORK);
  const run = (depth, fn, self, args) => {
    const outer = R.depth;
    R.depth = depth;
    try { return fn.apply(self, args); } finally { R.depth = outer; }
  };
  const st = window.setTimeout, ct = window.clearTimeout;
  window.setTimeout = function (fn, ms) {
    const delay = Number(ms) || 0;
    if (typeof fn !== "function" || delay > SHORT) return st.apply(window, arguments);
    const args = Array.prototype.slice.call(arguments, 2), depth = R.depth + 1, work = loading();
    let id = 0;
    id = st.call(window, function () { R.timers.delete(id); return run(work ? depth : DEPTH, fn, window, args); }, delay);
    R.timers.set(id, [now() + delay, now(), work]);  // when it is due, when it was set, load work
    return id;
  };
  window.clearTimeout = function (id) { R.timers.delete(id); return ct.apply(window, arguments); };
  R.frames = new Map();
  const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  if (raf && caf) {
    window.requestAnimationFrame = function (fn) {
      if (typeof fn !== "function") return raf.apply(window, arguments);
      const work = loading(), depth = work ? R.depth + 1 : DEPTH;
      let id = 0;
      id = raf.call(window, function () { R.frames.delete(id); return run(depth, fn, window, arguments); });
      if (work) R.frames.set(id, now() + 16);  // due at the next frame
      return id;
    };
    window.cancelAnimationFrame = function (id) { R.frames.delete(id); return caf.apply(window, arguments); };
  }
  // What the page listens to: scrolling (an infinite list, a virtualized one) and elements coming
  // into view (a sentinel). Read by the tools that read a listing to its end, never a wait.
  R.scroll = 0;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type) {
    if (type === "scroll" || type === "wheel") R.scroll++;
    return add.apply(this, arguments);
  };
  const IO = window.IntersectionObserver && IntersectionObserver.prototype;
  if (IO) { const obs = IO.observe; IO.observe = function () { R.scroll++; return obs.apply(this, arguments); }; }
  // The parser building the page is no change: records delivered until the task after
  // DOMContentLoaded (the parser's last ones may come with it) are its own.
  R.parsed = document.readyState !== "loading";
  document.addEventListener("DOMContentLoaded", () => { st.call(window, () => { R.parsed = true; }, 0); },
                            {capture: true, once: true});
  const observe = () => {
    new MutationObserver((records) => {
      if (!R.parsed) return;
      for (const r of records) {
        if (r.type === "characterData" || r.addedNodes.length || r.removedNodes.length) {
          R.last = now(); R.changes++; return;
        }
      }
    }).observe(document, {childList: true, subtree: true, characterData: true});
  };
  observe();
""".replace("SHORT", str(SHORT_TIMER_MS))
    .replace("LOAD_WORK", str(LOAD_WORK_MS))
    .replace("DEPTH", str(LOAD_WORK_DEPTH))
)
INIT_JS = "\n(() => {" + _TRACKER_BODY + "})();\n"

# One look: the tracker's counts and the visible signs of content still loading, in one call.
# The tracker's source is in it for a page without the tracker, as a declared function: V8 compiles
# a declared function when it is first called, and a parenthesised one (INIT_JS's) as the script is
# compiled, to return at once on every page that has the tracker (~1 ms of the renderer's CPU a look).
PROBE_JS = (
    "(opts) => {\n  if (!window.__curllmReady) installTracker();\n  function installTracker() {"
    + _TRACKER_BODY
    + "}\n"
    + r"""
  const R = window.__curllmReady, t = performance.now();
  let inflight = 0, longPolls = 0;
  for (const started of R.inflight.values()) (t - started > opts.longPoll ? longPolls++ : inflight++);
  let timerDue = 0, loadWork = 0;
  // Timers set between opts.since and opts.until only (a caller watching what its action set going),
  // else all.
  const workEnd = R.loadAt ? R.loadAt + LOAD_WORK : Infinity;
  for (const [id, [due, set, work]] of R.timers) {
    if (due < t - 50) { R.timers.delete(id); continue; }
    if (set >= (opts.since || 0) && set <= (opts.until || Infinity)) timerDue = Math.max(timerDue, due - t);
    if (work && due <= workEnd) loadWork = Math.max(loadWork, due - t, 1);
  }
  // a frame not run 100 ms after it was due never will be soon (a page in the background)
  for (const [id, due] of R.frames || []) (due < t - 100 ? R.frames.delete(id) : (loadWork = Math.max(loadWork, due - t, 1)));
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.bottom < 0) return false;
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden" && s.opacity !== "0";
  };
  const WORD = /(?:^|[^a-z])(skeleton|shimmer|placeholder|loading|loader|spinner|pulse|preloader)(?:[^a-z]|$)/i;
  const signs = [];
  const body = document.body;
  if (body) {
    // The elements '[aria-busy="true"], [role="progressbar"], [class*="skeleton" i], ...' selects, in
    // page order, found by one loop over the elements: a selector list of attribute substrings costs
    // the browser about five times as much on a page of thousands of elements. A regular expression
    // with the i flag and without u folds ASCII letters only, as the selector's i does.
    const CLS = /skeleton|shimmer|placeholder|loading|loader|spinner|pulse/i, TID = /skeleton|loading|placeholder/i;
    const found = [], all = body.getElementsByTagName("*");
    for (let i = 0; i < all.length && found.length < 400; i++) {
      const el = all[i], c = el.getAttribute("class"), t = el.getAttribute("data-testid");
      if ((c !== null && CLS.test(c)) || (t !== null && TID.test(t)) || el.getAttribute("aria-busy") === "true"
          || el.getAttribute("role") === "progressbar") found.push(el);
    }
    for (let i = 0; i < found.length && signs.length < 5; i++) {
      const el = found[i];
      if (el.matches("input, textarea, select, option, img, svg *, script, style")) continue;
      const busy = el.getAttribute("aria-busy") === "true" || el.getAttribute("role") === "progressbar";
      const names = (typeof el.className === "string" ? el.className : "") + " " + (el.getAttribute("data-testid") || "");
      const m = busy ? null : names.match(WORD);
      if (!busy && !m) continue;
      // A skeleton holds no content of its own: a block of text in it is a real item styled so.
      if (!busy && (el.textContent || "").replace(/\s+/g, "").length > 24) continue;
      if (!shown(el)) continue;
      signs.push(busy ? (el.getAttribute("aria-busy") ? "aria-busy" : "progressbar") : "class " + m[1].toLowerCase());
    }
    // Words that say "loading": looked for in the text first (cheap), elements only on a hit.
    const LOADING = new RegExp(opts.loading, "iu");
    if (signs.length < 5 && new RegExp(opts.words, "iu").test(body.textContent || "")) {
      const walk = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
      const CODE = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TITLE", "script", "style", "title"]);
      for (let n = walk.nextNode(), seen = 0; n && seen < 20000 && signs.length < 5; n = walk.nextNode(), seen++) {
        // a script's text (long: costly to fold) is never a sign, whatever it says (see closest below)
        if (n.parentElement !== null && CODE.has(n.parentElement.tagName)) continue;
        const text = n.data.replace(/\s+/g, " ").trim();
        if (!text || text.length > 40 || !LOADING.test(text)) continue;
        const el = n.parentElement;
        if (!el || el.closest("script, style, noscript, template, title") || !shown(el)) continue;
        signs.push("text " + JSON.stringify(text));
      }
    }
  }
  return JSON.stringify({state: document.readyState, inflight, long_polls: longPolls,
    quiet_ms: R.last ? Math.round(t - R.last) : 1000000, changes: R.changes, timer_ms: Math.round(timerDue),
    load_work_ms: Math.ceil(loadWork),
    age_ms: Math.round(t), scroll_listeners: R.scroll || 0, signs, title: String(document.title)});
}"""
).replace("LOAD_WORK", str(LOAD_WORK_MS))

# "Loading", as a page says it while its content is on the way (PL/EN/DE, and a few neighbours).
LOADING_WORDS = (
    r"loading|loading more|please wait|fetching|"
    r"ładowanie|ladowanie|wczytywanie|trwa ładowanie|trwa wczytywanie|proszę czekać|prosze czekac|"
    r"wird geladen|lädt|bitte warten|"
    r"chargement|cargando|caricamento|načítání|laddar"
)
# Whole short texts only ("Loading…", "Ładowanie produktów...", "Wird geladen …"), never a word in a
# sentence ("Free loading bay"), so the pattern is anchored and the text is at most 40 characters.
LOADING_JS_RE = r"^\s*(?:" + LOADING_WORDS + r")(?:\s+[\p{L}]+){0,2}\s*(?:\.{2,3}|…)?\s*$"
PROBE_OPTIONS = {
    "longPoll": LONG_POLL_MS,
    "loading": LOADING_JS_RE,
    # a cheap first test of the page's whole text (elements' texts run together in it: no boundaries)
    "words": LOADING_WORDS,
}


@dataclass(frozen=True)
class Probe:
    """One look at a page: what `PROBE_JS` reports."""

    state: str = "complete"
    inflight: int = 0  # fetch/XHR calls of the page in flight (not long polls)
    long_polls: int = 0
    quiet_ms: int = 1_000_000  # since the DOM last changed after parsing
    changes: int = 0
    timer_ms: int = 0  # until the latest short timer pending is due (0: none)
    load_work_ms: int = 0  # until the latest work the page scheduled as it loaded is due (0: none)
    age_ms: int = 1_000_000  # since the document started
    signs: tuple[str, ...] = ()  # visible signs of content still loading
    scroll_listeners: int = 0  # scroll/wheel listeners and IntersectionObserver targets the page set
    title: str | None = None  # the document's title then (what ``page.title()`` answers)

    @classmethod
    def from_json(cls, text: str) -> Probe:
        d = json.loads(text)
        return cls(
            state=str(d.get("state", "complete")),
            inflight=int(d.get("inflight", 0)),
            long_polls=int(d.get("long_polls", 0)),
            quiet_ms=int(d.get("quiet_ms", 0)),
            changes=int(d.get("changes", 0)),
            timer_ms=int(d.get("timer_ms", 0)),
            load_work_ms=int(d.get("load_work_ms", 0)),
            age_ms=int(d.get("age_ms", 0)),
            signs=tuple(str(s) for s in d.get("signs", ())),
            scroll_listeners=int(d.get("scroll_listeners", 0)),
            title=d["title"] if isinstance(d.get("title"), str) else None,
        )


@dataclass
class Readiness:
    """What a wait for readiness found: whether the page got ready, how long it took, and why not."""

    ready: bool
    waited_ms: int = 0
    probes: int = 1
    reason: str | None = None  # what it was still waiting for when the bound stopped it
    last: Probe = field(default_factory=Probe)


def verdict(p: Probe, *, strict: bool = False, quiet_ms: int = QUIET_MS) -> str | None:
    """Why the page is not ready yet, or None when it is (pure: decided from one `Probe`).

    ``strict`` also counts short timers pending (work the page scheduled). Placeholders count
    until nothing else has happened for `STALE_MS`, then they are part of the page.
    """
    if p.state == "loading":
        return "the document is still loading"
    if p.inflight:
        return f"{p.inflight} request{'s' if p.inflight > 1 else ''} in flight"
    if p.quiet_ms < quiet_ms:
        return f"the page changed {p.quiet_ms} ms ago"
    if strict and p.timer_ms:
        return f"the page has work scheduled in {p.timer_ms} ms"
    if p.load_work_ms:
        return f"the page has work it scheduled as it loaded due in {p.load_work_ms} ms"
    if p.signs:
        if p.timer_ms:  # a skeleton and a timer: the page is about to fetch or render
            return f"{p.signs[0]} shown, work scheduled in {p.timer_ms} ms"
        if min(p.quiet_ms, p.age_ms) < STALE_MS:
            return f"{p.signs[0]} shown"
    return None


def timeout_for(ctx: Any) -> int:
    """The readiness bound of a tool's context: its session's ``ready_timeout_ms``, else the default."""
    options = getattr(getattr(ctx, "browser", None), "options", None)
    value = getattr(options, "ready_timeout_ms", None)
    return value if isinstance(value, int) else READY_TIMEOUT_MS


async def probe(page: Any) -> Probe:
    """One look at ``page`` (one browser call)."""
    return Probe.from_json(await page.evaluate(PROBE_JS, PROBE_OPTIONS))


async def wait_ready(page: Any, timeout_ms: int | None = None, *, strict: bool = False) -> Readiness:
    """Wait until ``page``'s content is there (see the module's doc), at most ``timeout_ms``; ``page``
    may be a frame of a page as well (its own document).

    Never raises for a page that does not settle: it returns ``ready=False`` with the reason, and the
    caller reads the page as it is. A page that is being replaced (a navigation) is looked at again.
    """
    from playwright.async_api import Error as PlaywrightError

    timeout = READY_TIMEOUT_MS if timeout_ms is None else max(0, timeout_ms)
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + timeout / 1000
    probes = 0
    last = Probe()
    reason: str | None = "not looked at"
    while True:
        try:
            last = await probe(page)
            reason = verdict(last, strict=strict)
        except PlaywrightError as e:  # the document is being replaced, or the page closed
            last = replace(last, title=None)  # the document that had it is gone
            # a page closed, or a frame (this waits for a frame's document as well) gone
            if page.is_closed() if hasattr(page, "is_closed") else page.is_detached():
                return Readiness(False, int((loop.time() - start) * 1000), probes, "the page closed", last)
            reason = f"the page did not answer ({str(e).splitlines()[0][:80]})"
        probes += 1
        now = loop.time()
        if reason is None or now >= end:
            break
        # Look again when the reason may have gone: soon after a change, or when a timer is due.
        pause = 0.05
        due = max(last.timer_ms, last.load_work_ms)
        if due and not last.inflight and last.quiet_ms >= QUIET_MS:
            pause = min(0.25, due / 1000 + 0.02)
        elif last.quiet_ms < QUIET_MS:
            pause = max(0.03, (QUIET_MS - last.quiet_ms) / 1000 + 0.01)
        await asyncio.sleep(min(pause, max(0.0, end - now)))
    waited = int((loop.time() - start) * 1000)
    if reason is not None:
        log.debug("page not ready after %d ms (%s); reading it as it is", waited, reason)
    return Readiness(reason is None, waited, probes, reason, last)
