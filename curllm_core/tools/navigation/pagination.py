"""Follow a listing's "next page" links, extracting on every page, and return everything found.

The next link is found by ``rel=next`` (links and ``<link>`` in the head), by its text ("Next",
"Następna", "Weiter", "Dalej", "More", "›", "»"), its aria-label or title ("Zur nächsten Seite",
"Next page") and its class ("pagination__next"). Links to other sites, disabled links and the
controls of carousels are never taken. Each page is extracted with ``ctx.run_tool(extract, ...)``;
list outputs are concatenated (items with a ``url`` deduplicated by it).

On the HTTP engine (no live page: ``ctx.document``) the same rule scores the links of the HTML
(`html_links.html_clickables`), the next page is fetched as the first was (``ctx.fetch``) and
extracted by the same tool (`paginate_html`). What only a script does (a next control without an
address, a load-more button) is not tried: the pager warns, and ``--engine auto`` reads the listing
in the browser instead.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag

from ...errors import CurllmError, ToolError
from ...events import UrlCompleteEvent, UrlStartEvent
from ...prices import filter_by_price
from ...readiness import timeout_for
from ...sites import same_site
from ...text import fold
from ...tool import ToolContext, require_page
from ..page_helpers import (
    Clickable,
    PageWatch,
    PlaywrightError,
    Scan,
    deadline,
    followable,
    has_word,
    scan_clickables,
    words,
)
from ..stated_count import (
    STATED_TEXTS_JS,
    STATED_WORD_JS,
    PagesLeft,
    Shortfall,
    html_stated_texts,
    html_stated_total,
    read_stated_total,
    shortfall,
    stated_listing,
    stated_texts_of,
    stated_total,
)
from .more_on_page import (
    LOAD_MORE_CANDIDATE,
    SCROLL_LISTENERS_JS,
    More,
    Seen,
    best_load_more,
    load_more_score,
    read_more,
)

NEXT_WORDS = (
    r"next|next page|nastepna|nastepna strona|nastepne|dalej|kolejna|kolejna strona|weiter|nachste|"
    r"nachste seite|vorwarts|more|suivant|siguiente|volgende|successiva|avanti"
)
# Within a longer text "more" is "Read more" / "Show more", not a page link.
NEXT_WORDS_IN = NEXT_WORDS.replace("|more|", "|")
ARROWS = "›»→>⟩❯"
NOT_NEXT = (
    r"prev\w*|previous|poprzedni\w*|wstecz|zuruck|vorherig\w*|back|last|ostatni\w*|letzte|first|"
    r"pierwsz\w*|erste"
)
CAROUSEL = r"carousel|slider|swiper|slick|glide|gallery|galeria|lightbox|slide\w*|owl"
PAGER = r"pagination|pager|paging|pagenav|page nav|pages|strony|stronicowanie|seiten|nav|navigation|nextprev|morelink"
# What an element must show somewhere (folded rel, text, labels, class, id) to score at all in
# `next_score`: the scan describes only those (a listing's product links never get that far).
CANDIDATE = (
    "next|nast|dalej|kolejn|weiter|nachst|vorwart|more|suiv|sigui|volgend|success|avanti|pag|"
    + "|".join(ARROWS)
)
#: `next_step`'s and `way_on`'s first test: what a control must show to be scored by the next-page
#: rule or the load-more rule (on HTML and in the browser, both are read from one scan).
STEP_CANDIDATE = f"{CANDIDATE}|{LOAD_MORE_CANDIDATE}"

# The listing's previous page: words that say only that, and words that say it inside a pager
# ("Zurück" and "Wstecz" also lead back to a shop or a category elsewhere on a page; "Back" mostly does).
PREV_WORDS = (
    r"prev|previous|previous page|poprzednia|poprzednia strona|poprzednie|vorherige|vorherige seite|"
    r"precedent|precedente|anterior|vorige|indietro"
)
PREV_WORDS_PAGER = r"zuruck|wstecz"
PREV_ARROWS = "‹«←<⟨❮"
#: `links_pages`' first test: what a control must show to be scored by the previous-page rule.
PREV_CANDIDATE = "prev|poprz|vorherig|preced|anterior|vorig|indietro|zuruck|wstecz|pag|" + "|".join(
    PREV_ARROWS
)


def address_of(c: Clickable) -> str:
    """Where a control leads when loaded directly; "" for script-driven ones ("#", "javascript:")."""
    raw = c.raw_href.strip().lower()
    if not c.href or raw.startswith(("#", "javascript:")) or not followable(c.href):
        return ""
    return c.href


@dataclass
class NextLink:
    """The chosen "next page" control and why it was chosen."""

    element: Clickable
    score: float
    reasons: list[str]

    @property
    def href(self) -> str:
        """The next page's address; "" when only a click reaches it."""
        return address_of(self.element)


def next_score(c: Clickable, page_url: str) -> tuple[float, list[str]]:
    """How clearly a clickable is the listing's "next page" control (0: it is not)."""
    if c.disabled or has_word(words(c.cls), r"disabled|inactive"):
        return 0.0, []
    rel_next = "next" in c.rel.split()
    text = c.text.strip()
    core = fold(text.strip(ARROWS + " ").strip())
    if not rel_next and has_word(words(text, c.aria), NOT_NEXT):
        return 0.0, []
    score, why = 0.0, []
    if rel_next:
        score += 10
        why.append("rel=next")
    if core and len(core) <= 25 and re.fullmatch(f"(?:{NEXT_WORDS})", core):
        score += 6
        why.append(f"text {text!r}")
    elif core and len(core) <= 25 and has_word(words(core), NEXT_WORDS_IN):
        score += 4  # "Następna strona ›", "Next 20"
        why.append(f"text {text!r}")
    elif not core and text:  # arrows only: "›" is next, "»" is often "last page"
        arrow = text.strip()
        score += 6 if arrow in ("›", "→", ">", "❯", "⟩") else 4 if arrow == "»" else 0
        why.append(f"arrow {arrow!r}")
    if c.aria and has_word(words(c.aria), NEXT_WORDS_IN + r"|nachsten|nastepnej"):
        score += 5
        why.append(f"label {c.aria!r}")
    if has_word(words(c.cls, c.id), r"next|nastepna|weiter|pag n|pagn"):
        score += 3
        why.append("class")
    if score <= 0:
        return 0.0, []
    around = words(c.around)
    if has_word(around, PAGER):
        score += 2
    if has_word(around, CAROUSEL) or has_word(words(c.cls), CAROUSEL):
        score -= 8  # "next slide" buttons
    address = address_of(c)
    if address:
        if not same_site(address, page_url):
            return 0.0, []
        if urldefrag(address)[0] == urldefrag(page_url)[0]:
            return 0.0, []  # a link to this very page
    elif c.tag == "link":
        return 0.0, []
    else:
        score -= 2  # script-driven: only a click can tell what it does
    if not c.visible and c.tag != "link":
        score -= 3
    return score, why


def prev_score(c: Clickable, page_url: str) -> float:
    """How clearly a control is the listing's "previous page" control (0: it is not): ``rel=prev``, its
    text ("Previous", "Poprzednia strona", "Vorherige Seite", "‹"; "Zurück" and "Wstecz" only inside
    a pager), its label or its class. As for the next page: never a disabled control, a carousel's,
    another site's or a link to this very page. A page that links its previous page is a later page
    of its listing: the items it does not show are on the pages before it."""
    if c.disabled or has_word(words(c.cls), r"disabled|inactive"):
        return 0.0
    rel_prev = bool({"prev", "previous"} & set(c.rel.split()))
    text = c.text.strip()
    core = fold(text.strip(PREV_ARROWS + " ").strip())
    if not rel_prev and has_word(
        words(text, c.aria), NEXT_WORDS + r"|first|last|pierwsz\w*|ostatni\w*|erste|letzte"
    ):
        return 0.0
    around = words(c.around)
    pager = has_word(around, PAGER) is not None
    score = 0.0
    if rel_prev:
        score += 10
    if core and len(core) <= 25 and re.fullmatch(f"(?:{PREV_WORDS})", core):
        score += 6
    elif core and len(core) <= 25 and has_word(words(core), PREV_WORDS):
        score += 4  # "‹ Poprzednia strona", "Previous 20"
    elif core and len(core) <= 25 and pager and has_word(words(core), PREV_WORDS_PAGER):
        score += 4  # "Zurück" in a pager
    elif not core and text:
        score += 6 if text in ("‹", "←", "<", "❮", "⟨") else 0  # "«" is often "first page"
    if c.aria and has_word(words(c.aria), PREV_WORDS + r"|vorherigen|poprzedniej"):
        score += 5
    if has_word(words(c.cls, c.id), r"prev|previous|poprzednia|zuruck"):
        score += 3
    if score <= 0:
        return 0.0
    if pager:
        score += 2
    if has_word(around, CAROUSEL) or has_word(words(c.cls), CAROUSEL):
        score -= 8  # "previous slide" buttons
    address = address_of(c)
    if address:
        if not same_site(address, page_url) or urldefrag(address)[0] == urldefrag(page_url)[0]:
            return 0.0
    elif c.tag == "link":
        return 0.0
    else:
        score -= 2  # script-driven
    if not c.visible and c.tag != "link":
        score -= 3
    return score


@dataclass(frozen=True)
class Pages:
    """Whether a page links other pages of its listing: its next page, its previous page."""

    next: bool
    previous: bool


def pages_of(scan: Scan) -> Pages:
    """The next and previous pages a scan's described controls link (`best_next`, `prev_score`)."""
    previous = any(prev_score(c, scan.url) >= 5 for c in scan.items)
    return Pages(best_next(scan) is not None, previous)


async def links_pages(page: Any) -> Pages:
    """Whether the page links its listing's next page (any next control: the browser's pager also
    clicks one) and its previous page (one browser call)."""
    return pages_of(
        await scan_clickables(page, head_links=True, limit=8000, prefilter=f"{CANDIDATE}|{PREV_CANDIDATE}")
    )


def html_links_pages(html: str, url: str) -> Pages:
    """`links_pages` on HTML: the next page by its address (`next_step`: a page reached only by a
    script is not linked on HTML), the previous page by `prev_score`."""
    from .html_links import html_clickables

    previous = any(prev_score(c, url) >= 5 for c in html_clickables(html, url, prefilter=PREV_CANDIDATE))
    return Pages(next_step(html, url)[0] is not None, previous)


async def find_next_link(page: Any) -> NextLink | None:
    """The "next page" control of the current page, or None (one browser call)."""
    return best_next(await scan_clickables(page, head_links=True, limit=8000, prefilter=CANDIDATE))


def best_next(scan: Scan) -> NextLink | None:
    """The "next page" control among a scan's described controls, or None."""
    best: NextLink | None = None
    for c in scan.items:
        score, why = next_score(c, scan.url)
        if score >= 5 and (best is None or score > best.score):
            best = NextLink(c, score, why)
    return best


@dataclass(frozen=True)
class WayOn:
    """How a page's listing goes on, as one look found it: its next-page control; and, for a page
    without one, what `read_more` needs (`Seen`) and the size the listing states of itself."""

    next: NextLink | None
    seen: Seen
    stated: int | None
    #: The page links its listing's previous page (`prev_score`): a pager that starts here starts on
    #: a later page, and the items before it are not read.
    previous: bool = False


#: Run with the scan of `way_on`: the page's short texts stating a size, and its scroll listeners.
_WAY_ON_JS = "(word) => [(" + STATED_TEXTS_JS + ")(word), " + SCROLL_LISTENERS_JS + "]"


async def way_on(page: Any) -> WayOn:
    """The next-page control, the load-more control, the stated size and the scroll listeners of the
    page, in one browser call (one scan described the candidates of both rules, as on HTML): a page
    that is the whole listing is found so with one round trip, not four."""
    scan = await scan_clickables(
        page,
        head_links=True,
        limit=8000,
        prefilter=f"{STEP_CANDIDATE}|{PREV_CANDIDATE}",
        also=(_WAY_ON_JS, STATED_WORD_JS),
    )
    texts, scroll = scan.also
    stated = stated_total(stated_texts_of(texts))
    previous = any(prev_score(c, scan.url) >= 5 for c in scan.items)
    return WayOn(best_next(scan), Seen(best_load_more(scan.items), int(scroll or 0)), stated, previous)


def identity(item: Any) -> str:
    """What makes two list items one: the url, else the whole item."""
    if isinstance(item, dict) and item.get("url"):
        return f"url:{item['url']}"
    return "json:" + json.dumps(item, sort_keys=True, default=str)


def merge(total: dict[str, Any], output: dict[str, Any], seen: dict[str, set]) -> int:
    """Add one page's extraction output to ``total``; the number of new list items."""
    added = 0
    for key, value in output.items():
        if isinstance(value, list):
            bucket = total.setdefault(key, [])
            keys = seen.setdefault(key, set())
            for item in value:
                ident = identity(item)
                if ident in keys:
                    continue
                keys.add(ident)
                bucket.append(item)
                added += 1
        elif isinstance(value, dict):
            total[key] = value  # metadata of the last page (e.g. an extraction report)
    return added


async def go_next(page: Any, link: NextLink, timeout_ms: int) -> bool:
    """Load the next page: by its address when it has one, else by clicking. True when it changed."""
    c = link.element
    if link.href:
        response = await page.goto(link.href, wait_until="domcontentloaded", timeout=timeout_ms)
        if response is not None and response.status >= 400:
            raise ToolError(f"next page {link.href} answered HTTP {response.status}")
        try:
            await page.wait_for_load_state("load", timeout=min(timeout_ms, 5000))
        except PlaywrightError:
            pass  # slow images or trackers: the content is there after domcontentloaded
        return True
    async with PageWatch(page) as watch:
        await page.locator(c.selector).first.click(timeout=5000)
        settled = await watch.settle(timeout_ms)
    return settled.reacted


async def run(
    ctx: ToolContext,
    max_pages: int = 5,
    extract: str = "extraction.products_generic",
    extract_parameters: dict | None = None,
    limit: int | None = None,
    **_: Any,
) -> dict:
    """Extract this page and up to ``max_pages - 1`` following pages; concatenate what was extracted.

    A page without a next link is read to its end by its own mechanism (`more_on_page`: a load-more
    button, infinite scroll, a virtualized list), each load counting as a page. ``limit`` caps the
    items over all pages ("the first 10"): reading stops once there are enough. What was read is
    compared with the size the listing states of itself (`stated_count`): fewer is a warning.
    """
    run_tool = getattr(ctx, "run_tool", None)
    if run_tool is None:
        raise ToolError(
            "pagination runs an extraction tool on every page, but this context has no run_tool "
            "(it is set by the executor; in tests set ToolContext.run_tool)"
        )
    if max_pages < 1:
        raise ToolError(f"pagination: max_pages must be at least 1, got {max_pages}")
    params = dict(extract_parameters or {})
    if ctx.page is None and ctx.document is not None and ctx.fetch is not None:
        return await paginate_html(ctx, max_pages, extract, params, limit)
    page = require_page(ctx)
    finish_by = deadline(ctx, 180000)
    loop = asyncio.get_running_loop()
    total: dict[str, Any] = {}
    seen: dict[str, set] = {}
    urls: list[str] = []
    counts: list[int] = []
    read = 0  # items read before any price bound left some out: what the page's own count counts
    read_here = 0
    warned = False
    more: More | None = None
    stated_before_more: int | None = None  # what the page stated before `read_more` looked at it
    stopped = "max_pages"
    first_previous: bool | None = None  # the first page links its previous page (known from its look)
    while True:
        urls.append(page.url)
        output = await run_tool(extract, **params)
        if not isinstance(output, dict):
            raise ToolError(f"pagination: {extract} returned {type(output).__name__}, not an object")
        added = merge(total, output, seen)
        counts.append(added)
        read_here = added + int(output.get("dropped") or 0)
        read += read_here
        ctx.log.debug("pagination: page %d (%s) added %d items", len(urls), page.url, added)
        # The "next" page repeated what we have: a loop or the end. A page whose items the extraction
        # left out by its own bounds ("dropped": none in the price range) is no end.
        if len(urls) > 1 and added == 0 and not output.get("dropped"):
            stopped = "no_new_items"
            break
        if limit and any(isinstance(v, list) and len(v) >= limit for v in total.values()):
            stopped = "limit"
            break
        if len(urls) >= max_pages:
            if await find_next_link(page) is not None:
                warned = True
                ctx.warn(PagesLeft(max_pages))
            else:
                stopped = "no_next_link"
            break
        if loop.time() > finish_by:
            stopped = "time_limit"  # return what we have rather than be cancelled with nothing
            warned = True
            ctx.warn(f"read {_pages(len(urls))} before the step's time ran out; the listing goes on")
            break
        look = await way_on(page)
        if len(urls) == 1:
            first_previous = look.previous
        link = look.next
        if link is None:
            stopped = "no_next_link"
            # The rest of this page's listing, by its own mechanism (load more, scrolling).
            stated = stated_before_more = look.stated
            reader = _MoreReader(ctx, total, seen, extract, params, limit)
            more = await read_more(
                page,
                reader.read,
                enough=reader.enough,
                max_loads=max_pages - len(urls),
                finish_by=finish_by,
                ready_timeout_ms=timeout_for(ctx),
                scroll_anyway=stated is not None and read < stated,
                seen=look.seen,
            )
            if more.mechanism is not None:
                stopped = more.stopped
                counts[-1] += reader.added
                read = read - read_here + len(reader.ids)
                total = reader.finish(total)
            stated_now = await read_stated_total(page) if more.bound else None
            if more.bound and not (stated_now is not None and read >= stated_now):  # else all was read
                warned = True
                ctx.warn(
                    f"read {read} items by {more.mechanism or 'scrolling'} and the listing goes on "
                    f"({more.stopped}): what was filtered, ordered or counted covers those only"
                )
            break
        if link.href and urldefrag(link.href)[0] in {urldefrag(u)[0] for u in urls}:
            stopped = "next_link_already_visited"
            break
        # Every page the run visits has its url_start/url_complete events, not only the first.
        ctx.emit(UrlStartEvent(url=link.href or page.url))
        opened = loop.time()
        try:
            changed = await go_next(page, link, timeout_ms=20000)
        except (PlaywrightError, ToolError) as e:
            stopped = f"next page failed to load: {str(e).splitlines()[0]}"
            ctx.warn(f"read {_pages(len(urls))}; the next one failed to load, the listing may go on")
            ctx.emit(
                UrlCompleteEvent(
                    url=link.href or page.url, error=stopped, duration_ms=int((loop.time() - opened) * 1000)
                )
            )
            break
        ctx.emit(
            UrlCompleteEvent(
                url=page.url, duration_ms=int((loop.time() - opened) * 1000), title=await page.title()
            )
        )
        if not changed:
            stopped = "next_control_did_nothing"
            break
    enough = limit is not None and any(isinstance(v, list) and len(v) >= limit for v in total.values())
    if limit:
        total = {k: v[:limit] if isinstance(v, list) else v for k, v in total.items()}
    report: dict[str, Any] = {"pages": len(urls), "urls": urls, "items_per_page": counts, "stopped": stopped}
    if more is not None and more.mechanism is not None:
        report["more"] = {"mechanism": more.mechanism, "loads": more.loads, "scrolls": more.steps}
    # The listing's own size against what was read (before price bounds left items out): fewer is
    # said, unless a bound already said the listing goes on or the count asked for was reached.
    if not warned and not enough:
        if more is not None and more.mechanism is None:
            stated = stated_before_more  # nothing was clicked or scrolled since: the same page
        else:
            try:
                stated = await read_stated_total(page)
            except PlaywrightError:
                stated = None
        report["read"], report["stated_total"] = read, stated
        gap = shortfall(stated, read)
        if gap is not None:
            if first_previous is None and len(urls) == 1:  # the first page, never looked at: here now
                try:
                    first_previous = (await links_pages(page)).previous
                except PlaywrightError:
                    first_previous = False
            ctx.warn(_started_later(stated, read) if first_previous and stated is not None else gap)
    total["pagination"] = report
    return total


def next_step(html: str, url: str) -> tuple[str | None, str | None]:
    """The listing's next page in ``html``: (its address, None) by `pagination.next_score`; else
    (None, what only a script does): a next control without an address, or a load-more button
    (`more_on_page.load_more_score`); (None, None) when the listing shows no way on."""
    from .html_links import html_clickables

    best: tuple[float, Clickable] | None = None
    more: Clickable | None = None
    # Only the controls either rule can score at all are described, as the browser's scans do.
    for c in html_clickables(html, url, prefilter=STEP_CANDIDATE):
        score, _ = next_score(c, url)
        if score >= 5 and (best is None or score > best[0]):
            best = (score, c)
        if more is None and load_more_score(c) >= 5:
            more = c
    if best is not None and address_of(best[1]):
        return address_of(best[1]), None
    if best is not None:
        return None, f"a next-page control without an address ({(best[1].text or best[1].aria)[:40]!r})"
    if more is not None:
        return None, f"a load-more button ({(more.text or more.aria)[:40]!r})"
    return None, None


async def paginate_html(
    ctx: ToolContext, max_pages: int, extract: str, params: dict, limit: int | None
) -> dict[str, Any]:
    """The pager on the HTTP engine: extract this document and up to ``max_pages - 1`` next pages."""
    assert ctx.run_tool is not None and ctx.fetch is not None and ctx.document is not None
    document = ctx.document
    first = document
    total: dict[str, Any] = {}
    seen: dict[str, set] = {}
    urls: list[str] = []
    counts: list[int] = []
    read = 0
    stopped = "max_pages"
    warned = False
    while True:
        urls.append(document.url)
        ctx.document = document  # the nested extraction reads this page
        output = await ctx.run_tool(extract, **params)
        if not isinstance(output, dict):
            raise ToolError(f"pagination: {extract} returned {type(output).__name__}, not an object")
        added = merge(total, output, seen)
        counts.append(added)
        read += added + int(output.get("dropped") or 0)
        if len(urls) > 1 and added == 0 and not output.get("dropped"):
            stopped = "no_new_items"
            break
        if limit and any(isinstance(v, list) and len(v) >= limit for v in total.values()):
            stopped = "limit"
            break
        following, scripted = next_step(document.html, document.url)
        if following is None:
            stopped = "no_next_link"
            if scripted:
                warned = True
                ctx.warn(
                    f"read {read} items; the listing goes on by script ({scripted}), which the HTTP engine"
                    " does not run: --engine browser reads it to its end"
                )
            break
        if len(urls) >= max_pages:
            warned = True
            # A first page short of what it says it shows lacks what its scripts add (the browser's).
            shown = stated_listing(html_stated_texts(first.html))[1]
            ctx.warn(PagesLeft(max_pages, short=shown is not None and counts[0] < shown))
            break
        if urldefrag(following)[0] in {urldefrag(u)[0] for u in urls}:
            stopped = "next_link_already_visited"
            break
        try:
            document = await ctx.fetch(following)
        except CurllmError as e:
            stopped = f"next page failed to load: {e.message.splitlines()[0]}"
            warned = True
            ctx.warn(f"read {_pages(len(urls))}; the next one failed to load, the listing may go on")
            break
    ctx.document = first
    enough = limit is not None and any(isinstance(v, list) and len(v) >= limit for v in total.values())
    if limit:
        total = {k: v[:limit] if isinstance(v, list) else v for k, v in total.items()}
    report: dict[str, Any] = {"pages": len(urls), "urls": urls, "items_per_page": counts, "stopped": stopped}
    if not warned and not enough:
        stated = html_stated_total(first.html)
        report["read"], report["stated_total"] = read, stated
        gap = shortfall(stated, read)
        if gap is not None:
            later = html_links_pages(first.html, first.url).previous
            ctx.warn(_started_later(stated, read) if later and stated is not None else gap)
    total["pagination"] = report
    return total


class _MoreReader:
    """Reads the page as a load or a scroll left it: the extraction without its price bounds (rows
    read once are counted once, by identity, whether in range or not), merged into the pager's total;
    `finish` applies the price bounds to everything at the end."""

    def __init__(
        self, ctx: ToolContext, total: dict, seen: dict, extract: str, params: dict, limit: int | None
    ):
        assert ctx.run_tool is not None  # the pager checked it first
        self.run_tool = ctx.run_tool
        self.total, self.seen, self.extract, self.limit = total, seen, extract, limit
        self.bounds = (params.get("min_price"), params.get("max_price"))
        self.params = {k: v for k, v in params.items() if k not in ("min_price", "max_price")}
        self.ids: set[str] = set()
        self.added = 0

    async def read(self) -> int:
        output = await self.run_tool(self.extract, **self.params)
        if not isinstance(output, dict):
            raise ToolError(f"pagination: {self.extract} returned {type(output).__name__}, not an object")
        new = 0
        for value in output.values():
            if isinstance(value, list):
                for item in value:
                    ident = identity(item)
                    if ident not in self.ids:
                        self.ids.add(ident)
                        new += 1
        self.added += merge(self.total, output, self.seen)
        return new

    def kept(self, items: list) -> list:
        lo, hi = self.bounds
        if lo is None and hi is None:
            return items
        return filter_by_price([i for i in items if isinstance(i, dict)], lo, hi)

    def enough(self) -> bool:
        return bool(self.limit) and any(
            isinstance(v, list) and len(self.kept(v)) >= (self.limit or 0) for v in self.total.values()
        )

    def finish(self, total: dict) -> dict:
        return {k: self.kept(v) if isinstance(v, list) else v for k, v in total.items()}


def _started_later(stated: int, read: int) -> Shortfall:
    """The pager's shortfall when it started on a later page of the listing (its first page links the
    previous one): the items before it were not read, which the browser's pager would not read
    either; the warning says to start from the first page (`Shortfall.earlier`)."""
    return Shortfall("", stated, read, earlier=True)


def _pages(n: int) -> str:
    return "1 page" if n == 1 else f"{n} pages"
