"""The rest of a listing shown on one page: "Load more" buttons, infinite scroll, virtualized rows.

Chosen from the page at run time, never from the instruction's words:

- **a load-more button** (a visible, enabled button or script link whose whole text says "load /
  show more" in PL/EN/DE: "Load more", "Show more results", "Pokaż więcej", "Załaduj więcej",
  "Mehr laden", "Mehr anzeigen", "Weitere Produkte"...; not inside an item, a filter panel or a
  carousel) is clicked, and clicked again, until it is gone or a click brings nothing new;
- else, when **the page listens to scrolling** (scroll listeners, observed elements: the readiness
  tracker counts them) or states more items than were read, its listing is **scrolled**: the
  scrolling box holding the most links (a virtualized list's) or else the window, most of a screen
  at a time, reading the items after every step, until the end is reached and nothing new comes.
  A virtualized list keeps only the rows in view in the DOM: reading at every step and merging by
  identity (the caller's ``read``) collects them all.

`read_more` drives either, within the caller's bounds (items, loads, time), and says why it stopped.
After every click or scroll the page is waited for (`readiness.wait_ready`), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ...readiness import probe, wait_ready
from ...text import fold
from ..page_helpers import (
    Clickable,
    PageWatch,
    PlaywrightError,
    click_like_user,
    has_word,
    scan_clickables,
    words,
)

# Whole texts of a load-more control, folded (no accents, ł as l), PL/EN/DE.
LOAD_MORE = (
    r"(?:load|show|see|view|display|get) (?:more|more (?:results|products|items|offers|articles|posts))|"
    r"more (?:results|products|items)|load next \d*|show next \d*|"
    r"(?:pokaz|zaladuj|wczytaj|zobacz|wyswietl|doladuj) (?:wiecej|kolejne|nastepne)(?: \w+){0,2}|"
    r"wiecej (?:produktow|wynikow|ofert|artykulow)|"
    r"(?:mehr|weitere) (?:laden|anzeigen|produkte|ergebnisse|artikel|angebote)(?: \w+){0,2}|"
    r"mehr (?:produkte|ergebnisse) (?:laden|anzeigen)"
)
_LOAD_MORE_RE = re.compile(rf"(?:{LOAD_MORE})(?: ?\(\d+\))?")
# The cheap first test in the page (folded text, labels, classes): only these are described.
LOAD_MORE_CANDIDATE = r"more|next|wiecej|kolejne|nastepne|mehr|weitere|load"
# Where a "show more" expands something else than the listing.
_ELSEWHERE = r"filter\w*|facet\w*|sidebar|aside|refine\w*|filtr\w*|carousel|slider|swiper|review\w*|opini\w*|description|opis|beschreibung|faq|comments?|komentarz\w*"

# One step of scrolling: the box holding the listing (the scrollable element with the most links,
# when it has a few) or the window, most of a screen down; then two animation frames, so that a
# virtualized list has painted its rows and an observer has fired. Reports where it got.
_SCROLL_STEP_JS = r"""async () => {
  const doc = document.scrollingElement || document.documentElement;
  let box = null, links = 2;
  for (const el of document.querySelectorAll("body *")) {
    if (el.scrollHeight <= el.clientHeight + 2 || el.clientHeight < 100) continue;
    const oy = getComputedStyle(el).overflowY;
    if (oy !== "auto" && oy !== "scroll") continue;
    const n = el.querySelectorAll("a[href]").length;
    if (n > links) { links = n; box = el; }
  }
  const view = box ? box.clientHeight : window.innerHeight;
  const before = box ? box.scrollTop : window.scrollY;
  const height = box ? box.scrollHeight : doc.scrollHeight;
  const by = Math.max(100, Math.round(view * 0.8));
  if (box) box.scrollTop = before + by; else window.scrollTo(0, before + by);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const after = box ? box.scrollTop : window.scrollY;
  return {box: !!box, moved: Math.round(after - before), height, at_end: after + view >= height - 4};
}"""
_HEIGHT_JS = r"""() => {
  const doc = document.scrollingElement || document.documentElement;
  let box = null, links = 2;
  for (const el of document.querySelectorAll("body *")) {
    if (el.scrollHeight <= el.clientHeight + 2 || el.clientHeight < 100) continue;
    const oy = getComputedStyle(el).overflowY;
    if (oy !== "auto" && oy !== "scroll") continue;
    const n = el.querySelectorAll("a[href]").length;
    if (n > links) { links = n; box = el; }
  }
  return box ? box.scrollHeight : doc.scrollHeight;
}"""

#: Most scroll steps in one listing (a virtualized list of ~2,000 rows at a screen a step).
MAX_SCROLL_STEPS = 300


def load_more_score(c: Clickable) -> float:
    """How clearly a control is the listing's "load more" button (0: it is not)."""
    if c.disabled or not c.visible or c.in_card or c.in_head:
        return 0.0
    text = fold(c.text or c.aria).strip(" .…›»+↓")
    text = re.sub(r"\s+", " ", text)
    if not text or len(text) > 40 or not _LOAD_MORE_RE.fullmatch(text):
        return 0.0
    score = 6.0
    if c.tag == "button" or c.role == "button":
        score += 2
    elif c.tag == "a" and c.raw_href.strip() and not c.raw_href.strip().startswith(("#", "javascript:")):
        score -= 1  # a link may be a next page's address: the pager follows those itself
    if has_word(words(c.around, c.cls, c.id), _ELSEWHERE):
        score -= 7
    return max(score, 0.0)


async def find_load_more(page: Any) -> Clickable | None:
    """The page's load-more control, or None (one browser call)."""
    return best_load_more((await scan_clickables(page, limit=4000, prefilter=LOAD_MORE_CANDIDATE)).items)


def best_load_more(items: list[Clickable]) -> Clickable | None:
    """The load-more control among the described ``items`` of a scan, or None."""
    best, best_score = None, 0.0
    for c in items:
        score = load_more_score(c)
        if score >= 5 and score > best_score:
            best, best_score = c, score
    return best


@dataclass(frozen=True)
class Seen:
    """What the caller's own look at the page found for `read_more` (in a call it made anyway): the
    load-more control or None, and how many scroll listeners and observed elements the page has."""

    load_more: Clickable | None
    scroll_listeners: int


#: What `Seen.scroll_listeners` counts, read in the page (the readiness tracker's count; 0 without it).
SCROLL_LISTENERS_JS = "(window.__curllmReady && window.__curllmReady.scroll) || 0"


@dataclass
class More:
    """What `read_more` did: the mechanism (``load_more``, ``scroll`` or None), how many loads
    brought items, and why it stopped (``bound`` says a caller's bound did, so the listing may go on)."""

    mechanism: str | None = None
    loads: int = 0
    steps: int = 0
    stopped: str = "nothing_more"
    bound: bool = False


async def read_more(
    page: Any,
    read: Callable[[], Awaitable[int]],
    *,
    enough: Callable[[], bool],
    max_loads: int,
    finish_by: float,
    ready_timeout_ms: int,
    scroll_anyway: bool = False,
    seen: Seen | None = None,
) -> More:
    """Read the rest of the listing on ``page`` by its own mechanism.

    ``read()`` extracts the page as it is now and returns how many new items it merged; ``enough()``
    says the caller has all it needs (a count asked for); ``max_loads`` bounds the clicks and the
    scrolls that made the listing grow; ``finish_by`` is the event-loop time to stop by.
    ``scroll_anyway`` scrolls even a page that sets no scroll listener (it states more items than
    were read). ``seen``: the page as the caller just looked at it (`Seen`), instead of a look here.
    """
    loop = asyncio.get_running_loop()
    more = More()
    button = seen.load_more if seen is not None else await find_load_more(page)
    if button is not None:
        more.mechanism = "load_more"
        await read()  # the items shown now, counted before the first click
        tried: set[str] = set()
        while button is not None:
            if more.loads >= max_loads:
                more.stopped, more.bound = "max_loads", True
                return more
            if loop.time() > finish_by:
                more.stopped, more.bound = "time_limit", True
                return more
            key = fold(button.text or button.aria)
            async with PageWatch(page) as watch:
                try:
                    await click_like_user(page, button.selector, visible=button.visible)
                except PlaywrightError:
                    more.stopped = "load_more_failed"
                    return more
                await watch.settle(10000, grace_ms=100)
            await wait_ready(page, ready_timeout_ms)
            added = await read()
            if added == 0:
                if key in tried:
                    more.stopped = "load_more_did_nothing"
                    return more
                tried.add(key)  # one more chance: a slow answer that came after the wait
            else:
                more.loads += 1
                tried.discard(key)
            if enough():
                more.stopped = "limit"
                return more
            button = await find_load_more(page)
        more.stopped = "load_more_gone"
        return more
    if seen is not None:
        listens = seen.scroll_listeners > 0
    else:
        try:
            listens = (await probe(page)).scroll_listeners > 0
        except PlaywrightError:
            listens = False
    if not (listens or scroll_anyway):
        return more
    more.mechanism = "scroll"
    await read()  # the rows in view now: a virtualized list drops them at the first step
    idle_at_end = 0
    while more.steps < MAX_SCROLL_STEPS:
        if loop.time() > finish_by:
            more.stopped, more.bound = "time_limit", True
            return more
        step = await page.evaluate(_SCROLL_STEP_JS)
        more.steps += 1
        await wait_ready(page, ready_timeout_ms)
        grew = (await page.evaluate(_HEIGHT_JS)) > step["height"] + 4
        added = await read()
        if grew:
            more.loads += 1
            if more.loads >= max_loads:
                more.stopped, more.bound = "max_loads", True
                return more
        if enough():
            more.stopped = "limit"
            return more
        if step["at_end"] and not grew and added == 0:
            # The end, unless a load is about to start (an observer's callback, a throttled handler).
            idle_at_end += 1
            if idle_at_end >= 2:
                more.stopped = "end_of_list"
                return more
            async with PageWatch(page) as watch:
                await watch.settle(5000, grace_ms=250)
            await wait_ready(page, ready_timeout_ms)
        else:
            idle_at_end = 0
    more.stopped, more.bound = "max_scroll_steps", True
    return more
