"""navigation.pagination: next-link finding on local and real pages, and multi-page extraction."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.testing import make_registry
from curllm_core.tool import ToolContext, load_callable, tool
from curllm_core.tools.navigation.pagination import find_next_link, next_score, prev_score, run
from curllm_core.tools.page_helpers import Clickable
from tests.conftest import realpage
from tests.site_server import load_shop, open_snapshot

PATH = manifests_dir() / "navigation" / "pagination.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output


#: The pages `shop_cards` ran on, in order (the pager runs its extraction once per page).
SHOP_CARD_PAGES: list[str] = []


@tool(category="extraction", produces=["products"], dependencies=["page"], timeout_ms=10000)
async def shop_cards(ctx: ToolContext) -> dict:
    """A tiny extraction for these tests: the shop's product cards."""
    SHOP_CARD_PAGES.append(ctx.page.url)
    return {
        "products": await ctx.page.eval_on_selector_all(
            ".product-list .product-card",
            "els => els.map((e) => ({name: e.querySelector('h3').innerText, url: e.querySelector('h3 a').href}))",
        )
    }


@tool(category="extraction", produces=["stories"], dependencies=["page"], timeout_ms=10000)
async def stories(ctx: ToolContext) -> dict:
    """A tiny extraction for these tests: titles of HN-like and reddit-like lists."""
    return {
        "stories": await ctx.page.eval_on_selector_all(
            ".titleline > a, a.title", "els => els.map((a) => ({title: a.innerText, url: a.href}))"
        )
    }


@tool(category="extraction", produces=["products"], dependencies=["page"], timeout_ms=10000)
async def item_names(ctx: ToolContext) -> dict:
    """A tiny extraction for these tests: the names of a plain list's items (`li.item a`)."""
    return {
        "products": await ctx.page.eval_on_selector_all(
            "li.item a", "els => els.map((a) => ({name: a.innerText}))"
        )
    }


@pytest.fixture
def curllm_registry():
    """curllm's tools and this module's extractions, which the pager runs through ctx.run_tool."""
    return make_registry(shop_cards, stories, item_names)


async def pager(on_page, **params) -> dict:
    """navigation.pagination on the test's page through curllm's fixture; the output as checked."""
    return checked(await on_page(MANIFEST.key, **params))


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert MANIFEST.produces == ("products",) and MANIFEST.effects == "write"
    assert load_callable(MANIFEST) is run


def link(**fields) -> Clickable:
    base = {"ref": "1", "order": 0, "tag": "a", "href": "https://shop.pl/?page=2", "raw_href": "?page=2"}
    return Clickable(**{**base, **fields})


def test_next_scores():
    here = "https://shop.pl/"
    assert next_score(link(text="Następna"), here)[0] >= 5
    assert next_score(link(text="›"), here)[0] > next_score(link(text="»"), here)[0] > 0
    assert next_score(link(text="", aria="Zur nächsten Seite"), here)[0] >= 5
    assert next_score(link(text="Next", around="div carousel"), here)[0] < 5  # "next slide"
    assert next_score(link(text="Next", href="https://other.com/?page=2"), here)[0] == 0  # off-site
    assert next_score(link(text="Next", disabled=True), here)[0] == 0
    assert next_score(link(text="Poprzednia"), here)[0] == 0
    assert next_score(link(text="Read more"), here)[0] < 5


@pytest.mark.browser
async def test_three_shop_pages_collect_24_products(page, site_url, on_page):
    await page.goto(site_url + "/")
    SHOP_CARD_PAGES.clear()
    out = await pager(on_page, max_pages=5, extract="extraction.shop_cards")
    assert len(out["products"]) == 24 and len({p["url"] for p in out["products"]}) == 24
    assert out["pagination"] == {
        "pages": 3,
        "urls": [site_url + "/", site_url + "/?strona=2", site_url + "/?strona=3"],
        "items_per_page": [8, 8, 8],
        "stopped": "no_next_link",
        "read": 24,
        "stated_total": 24,  # "24 produkty": what was read is all there is
    }
    assert SHOP_CARD_PAGES == out["pagination"]["urls"]  # the extraction ran once on every page


@pytest.mark.browser
async def test_max_pages_bounds_the_walk(page, site_url, on_page):
    await page.goto(site_url + "/?price_max=150")
    out = await pager(on_page, max_pages=1, extract="extraction.shop_cards")
    assert len(out["products"]) == 8 and out["pagination"]["stopped"] == "max_pages"
    assert page.url == site_url + "/?price_max=150"


@pytest.mark.browser
async def test_limit_counts_over_all_pages_and_stops_the_walk(page, site_url, on_page):
    await page.goto(site_url + "/")
    out = await pager(on_page, max_pages=5, limit=10, extract="extraction.shop_cards")
    assert len(out["products"]) == 10
    assert out["pagination"]["pages"] == 2 and out["pagination"]["stopped"] == "limit"


@pytest.mark.browser
async def test_repeated_items_are_dropped_and_end_the_walk(page, site_url, curllm_run_tool):
    @tool(category="extraction", produces=["products"], dependencies=["page"])
    async def promo_only(ctx: ToolContext) -> dict:
        """The same promoted product on every page."""
        return {"products": [{"name": "Robot kuchenny MaxiMix", "url": site_url + "/promocje"}]}

    await page.goto(site_url + "/")
    params = {"max_pages": 5, "extract": "extraction.promo_only"}
    out = checked(
        await curllm_run_tool(MANIFEST.key, page=page, params=params, registry=make_registry(promo_only))
    )
    assert out["products"] == [{"name": "Robot kuchenny MaxiMix", "url": site_url + "/promocje"}]
    assert out["pagination"]["pages"] == 2 and out["pagination"]["stopped"] == "no_new_items"


@pytest.mark.browser
@pytest.mark.parametrize(
    ("start", "second", "count"), [("hn.html", "hn-2.html", 8), ("reddit.html", "reddit-2.html", 6)]
)
async def test_more_and_next_links(page, site_url, start, second, count, on_page):
    await page.goto(f"{site_url}/test/{start}")
    out = await pager(on_page, max_pages=5, extract="extraction.stories")
    assert len(out["stories"]) == count
    assert out["pagination"]["urls"] == [f"{site_url}/test/{start}", f"{site_url}/test/{second}"]


@pytest.mark.browser
async def test_with_the_generic_product_extraction(page, site_url, on_page):
    await page.goto(site_url + "/?price_max=150")
    out = await pager(on_page, max_pages=5)  # extract's default: extraction.products_generic, really run
    assert out["pagination"]["pages"] == 2
    cheap = [p["name"] for p in load_shop().catalog()["products"] if p["price"] <= 150]
    assert sorted(p["name"] for p in out["products"]) == sorted(cheap)


@pytest.mark.browser
async def test_without_run_tool_it_says_so(page, site_url):
    await page.goto(site_url + "/")
    with pytest.raises(ToolError, match="no run_tool"):
        await run(ToolContext(page=page))


@pytest.mark.browser
@pytest.mark.parametrize(
    ("snapshot", "url", "expected"),
    [
        (
            "ceneo_search_canon.html",
            "https://www.ceneo.pl/;szukaj-canon",
            "https://www.ceneo.pl/;szukaj-canon;0020-30-0-0-1.htm",
        ),
        (
            "bing_serp_microsoft_wikipedia.html",
            "https://www.bing.com/search?q=Microsoft+wikipedia",
            "https://www.bing.com/search?q=Microsoft+wikipedia&FPIG=7DE503E4162940FA9A03BF17C440033D&first=11&FORM=PORE",
        ),
        (
            "ebay_de_search_apple.html",
            "https://www.ebay.de/sch/i.html?_nkw=apple&_sacat=58058",
            "https://www.ebay.de/sch/i.html?_from=R40&_nkw=apple&_sacat=58058&_pgn=2",
        ),
        (
            "reddit_old_dataisbeautiful_top.html",
            "https://old.reddit.com/r/dataisbeautiful/top/",
            "http://www.reddit.com/r/dataisbeautiful/top/?sort=top&count=25&after=t3_1k5xw4&t=month",
        ),
        ("hn_front_2026.html", "https://news.ycombinator.com/news", "https://news.ycombinator.com/news?p=2"),
    ],
)
async def test_next_link_on_real_pages(page, snapshot, url, expected):
    await open_snapshot(page, realpage(snapshot), url)
    found = await find_next_link(page)
    assert found is not None and found.href == expected


@pytest.mark.browser
async def test_off_site_and_missing_next_links_are_not_taken(page):
    # Old reddit's "next ›" is absolute (http://www.reddit.com/...): off-site for the file it is opened from
    await open_snapshot(page, realpage("reddit_old_dataisbeautiful_top.html"))
    assert await find_next_link(page) is None
    await open_snapshot(page, realpage("pricespy_nz_cpu_listing.html"))  # no pagination in this dump
    assert await find_next_link(page) is None


@pytest.mark.browser
@pytest.mark.parametrize("dropped, pages, stopped", [(8, 3, "no_next_link"), (None, 2, "no_new_items")])
async def test_a_page_whose_items_the_extraction_left_out_is_no_end(
    page, site_url, dropped, pages, stopped, curllm_run_tool
):
    """An extraction with a price bound reports the items it left out ("dropped"): a page with none in
    range does not end the walk; a page that adds nothing for another reason does."""

    @tool(category="extraction", produces=["products"], dependencies=["page"])
    async def bounded(ctx: ToolContext) -> dict:
        """The shop's cards, but none of page 2's (left out by a bound, when ``dropped`` says so)."""
        out = await shop_cards(ctx)
        if "strona=2" in ctx.page.url:
            return {"products": [], **({"dropped": dropped} if dropped else {})}
        return out

    await page.goto(site_url + "/")
    params = {"max_pages": 5, "extract": "extraction.bounded"}
    out = checked(
        await curllm_run_tool(MANIFEST.key, page=page, params=params, registry=make_registry(bounded))
    )
    assert out["pagination"]["pages"] == pages and out["pagination"]["stopped"] == stopped
    assert len(out["products"]) == 8 * (pages - 1)


def test_previous_page_scores():
    here = "https://shop.pl/?page=3"
    pager = "nav pagination"
    assert prev_score(link(text="Poprzednia strona"), here) >= 5
    assert prev_score(link(text="‹ Previous"), here) >= 5
    assert prev_score(link(text="Vorherige Seite"), here) >= 5
    assert prev_score(link(text="‹", aria="Zur vorherigen Seite"), here) >= 5
    assert prev_score(link(tag="link", rel="prev", text="", visible=False), here) >= 5
    assert prev_score(link(text="Zurück", around=pager), here) >= 5  # "Zurück" in a pager
    assert prev_score(link(text="Zurück zum Shop"), here) == 0  # back to the shop, not a page
    assert prev_score(link(text="Wstecz"), here) == 0
    assert prev_score(link(text="Previous", around="div carousel"), here) < 5  # "previous slide"
    assert prev_score(link(text="Previous", href="https://other.com/?page=2"), here) == 0  # off-site
    assert prev_score(link(text="Previous", href=here, raw_href="?page=3"), here) == 0  # this very page
    assert prev_score(link(text="Previous", disabled=True), here) == 0
    assert prev_score(link(text="Następna"), here) == 0
    assert prev_score(link(text="« First"), here) == 0


@pytest.mark.browser
@pytest.mark.parametrize(
    "path",
    [
        "/test/paged-last-en.html",
        "/test/paged-last-pl.html",
        "/test/paged-last-de.html",
        "/test/paged-en.html",
        "/?strona=2",
        "/test/inert-filter.html",
    ],
)
async def test_the_pages_a_page_links_are_the_same_in_the_browser_and_on_html(page, site_url, path):
    """Whether a page links its listing's next and previous pages: one scan in the browser, the same
    rule on its HTML (the last pages link only the previous one, a middle page both, a whole listing
    neither)."""
    import httpx

    from curllm_core.tools.navigation.pagination import Pages, html_links_pages, links_pages

    await page.goto(site_url + path)
    html = httpx.get(site_url + path).text
    expected = {
        "/test/paged-en.html": Pages(True, False),
        "/?strona=2": Pages(True, True),
        "/test/inert-filter.html": Pages(False, False),
    }.get(path, Pages(False, True))
    assert await links_pages(page) == expected
    assert html_links_pages(html, site_url + path) == expected


@pytest.mark.browser
@pytest.mark.parametrize(
    "name",
    [
        "ceneo_search_canon.html",
        "amazon_de_search_katzenfutter.html",
        "ebay_de_search_apple.html",
        "geizhals_de_grafikkarten_2024.html",
        "bing_serp_microsoft_wikipedia.html",
        "hackernews_front_2020.html",
        "reddit_old_dataisbeautiful_top.html",
    ],
)
async def test_the_scans_prefilter_never_changes_the_next_link(page, name):
    """find_next_link describes only elements that could score (CANDIDATE); scoring every element
    must choose the same link."""
    from curllm_core.tools.navigation.pagination import CANDIDATE
    from curllm_core.tools.page_helpers import scan_clickables

    await open_snapshot(page, realpage(name))

    async def best(prefilter: str):
        scan = await scan_clickables(page, head_links=True, limit=8000, prefilter=prefilter)
        scored = [(next_score(c, scan.url)[0], c.href, c.text) for c in scan.items]
        return max((s for s in scored if s[0] >= 5), default=None), len(scan.items)

    (everything, all_count), (candidates, few) = await best(""), await best(CANDIDATE)
    assert everything == candidates and few < all_count / 4


@pytest.mark.browser
@pytest.mark.parametrize(("max_pages", "warned"), [(2, True), (3, False)])
async def test_a_listing_longer_than_the_pages_read_says_so(site_url, browser_path, max_pages, warned):
    """Three pages of products: reading two of them is what was asked, but whatever is ordered or
    counted over them is not the whole listing, and the result's warnings say so; reading all three
    (the last has no next link) says nothing."""
    from curllm_core import execute_plan

    plan = {
        "plan": [
            {
                "tool": "navigation.pagination",
                "parameters": {"max_pages": max_pages, "extract": "extraction.products_generic"},
            }
        ],
        "expected_output": "products",
    }
    result = await execute_plan(plan, site_url + "/")
    assert result.ok and len(result.data["products"]) == 8 * max_pages
    notes = [w for w in result.warnings if w.startswith("navigation.pagination: ")]
    assert bool(notes) is warned, result.warnings
    if warned:
        assert f"max_pages={max_pages}" in notes[0]


@pytest.mark.browser
async def test_a_next_page_that_fails_to_load_says_so(site_url, browser_path, tmp_path):
    """A saved listing whose next link leads nowhere: its own items, and a warning that the listing
    may go on (one page read, said in the singular)."""
    from curllm_core import execute_plan

    page = tmp_path / "listing.html"
    page.write_text(
        "<h1>Produkte</h1><ul>"
        + "".join(
            f'<li class="p"><a href="/p/{i}">Becher {i}</a> <span>{i},99 €</span></li>' for i in range(1, 7)
        )
        + '</ul><a href="missing-page-2.html" rel="next">Weiter</a>'
    )
    plan = {
        "plan": [{"tool": "navigation.pagination", "parameters": {"extract": "extraction.products_generic"}}],
        "expected_output": "products",
    }
    result = await execute_plan(plan, str(page))
    assert result.ok and len(result.data["products"]) == 6
    assert any(
        w.startswith("navigation.pagination: read 1 page; the next one failed") for w in result.warnings
    ), result.warnings


@pytest.mark.browser
async def test_a_page_that_is_the_whole_listing_costs_one_look_at_its_end(
    page, site_url, on_page, monkeypatch
):
    """A listing of 24 items on one page: no next link, no load-more button, no scrolling. The pager
    finds that out in one browser call (its next link, a load-more button, the size the listing states
    and its scroll listeners in one look), not four (the extraction here reads without evaluate)."""
    await page.goto(site_url + "/test/inert-filter.html")
    looks: list[str] = []
    evaluate = page.evaluate

    async def counted(expression, *args, **kwargs):
        looks.append(expression[:60])
        return await evaluate(expression, *args, **kwargs)

    monkeypatch.setattr(page, "evaluate", counted)
    out = await pager(on_page, max_pages=5, extract="extraction.item_names")
    assert out["pagination"]["stopped"] == "no_next_link" and len(out["products"]) == 24
    assert len(looks) == 1, looks


@pytest.mark.browser
@pytest.mark.parametrize(
    "where",
    [
        "/?strona=3",
        "/?strona=1",
        "/test/hn.html",
        "/test/paged-pl.html",
        "/test/paged-de.html",
        "/test/short-en.html",
        "/app/loadmore?markup=plain&lang=pl",
        "/app/loadmore?markup=bem&lang=de",
        "/app/scroll?markup=testid&lang=en",
        "/app/virtual?markup=plain&lang=en",
        "hackernews_front_2020.html",
        "reddit_old_dataisbeautiful_top.html",
        "geizhals_de_grafikkarten_2024.html",
    ],
)
async def test_one_look_at_the_way_on_finds_what_the_separate_looks_find(page, site_url, where):
    """`way_on`'s one scan (the candidates of both rules) and its texts find the same next link, the
    same load-more control, the same stated size and the same scroll listeners as `find_next_link`,
    `find_load_more`, `read_stated_total` and the readiness probe, each looking for itself."""
    from curllm_core.readiness import probe, wait_ready
    from curllm_core.tools.navigation.more_on_page import find_load_more
    from curllm_core.tools.navigation.pagination import way_on
    from curllm_core.tools.stated_count import read_stated_total

    if where.startswith("/"):
        await page.goto(site_url + where)
        await wait_ready(page)
    else:
        await open_snapshot(page, realpage(where))
    one = await way_on(page)
    nxt, more = await find_next_link(page), await find_load_more(page)
    assert (one.next and (one.next.href, one.next.element.text, one.next.score)) == (
        nxt and (nxt.href, nxt.element.text, nxt.score)
    )
    assert (one.seen.load_more and one.seen.load_more.text) == (more and more.text)
    assert one.stated == await read_stated_total(page)
    assert one.seen.scroll_listeners == (await probe(page)).scroll_listeners
