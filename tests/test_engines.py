"""Which plans run on HTML, what makes ``auto`` go back to the browser, and the HTML readings the
HTTP engine decides by (a client-rendered shell, the listing's stated size, its next page), in
several markups and languages. Pure: no browser, no network."""

from __future__ import annotations

import pytest

from curllm_core.browser import BrowserOptions
from curllm_core.engines import browser_reason, html_problem, may_need_live_page, switch_reason
from curllm_core.html_shell import shell_signs
from curllm_core.http_fetch import Document
from curllm_core.manifest import Manifest
from curllm_core.plan.model import Plan, Step
from curllm_core.plugins import load_registry
from curllm_core.result import ErrorEntry, Result
from curllm_core.tools.navigation.pagination import next_step
from curllm_core.tools.stated_count import PagesLeft, Shortfall, html_stated_total


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_every_built_in_manifest_says_whether_it_reads_html(registry):
    builtin = [m for m in registry if m.source == "builtin"]
    assert builtin and all(m.html is not None for m in builtin)
    assert not registry.get("extraction.products_generic").live_page
    assert not registry.get("navigation.pagination").live_page
    assert registry.get("forms.price_filter").live_page and registry.get("navigation.click_by_text").live_page


def test_a_manifest_without_the_field_is_judged_safely():
    """An old plugin's page tool needs a live page; a data-only tool does not; `to_dict` leaves it out."""
    doc = {"name": "x", "version": "1", "description": "d", "category": "extraction", "parameters": {}}
    page_tool = Manifest.from_dict({**doc, "output_schema": {}, "dependencies": ["page"]})
    data_tool = Manifest.from_dict({**doc, "output_schema": {}})
    assert page_tool.live_page and not data_tool.live_page
    assert "html" not in page_tool.to_dict()
    assert not Manifest.from_dict(
        {**doc, "output_schema": {}, "dependencies": ["page"], "html": True}
    ).live_page


def test_which_plans_run_on_html(registry):
    extract = Step("navigation.pagination", {"extract": "extraction.products_generic", "max_pages": 5})
    check = Step("validation.price_range_check", {"max": 150})
    price_form = Step("forms.price_filter", {"max_price": 150})
    assert html_problem(Plan(steps=[extract, check]), registry) is None
    # an optional page action (the validation step checks the range) is skipped on HTML
    optional = Step("forms.price_filter", {"max_price": 150}, optional=True)
    assert html_problem(Plan(steps=[optional, extract, check]), registry) is None
    assert "forms.price_filter" in (html_problem(Plan(steps=[price_form, extract, check]), registry) or "")
    clicks = Step("navigation.click_by_text", {"text": "Laptops"})
    assert "needs a live page" in (html_problem(Plan(steps=[clicks, extract]), registry) or "")


def test_which_plans_auto_reads_in_the_browser_from_the_start(registry):
    """A step that needs a live page, or a consent mode asked for (only a browser answers a dialog);
    read alike from a plan document before its check (the browser then starts during the check)."""
    extract = Step("navigation.pagination", {"extract": "extraction.products_generic", "max_pages": 5})
    on_html = Plan(steps=[Step("forms.price_filter", {"max_price": 150}, optional=True), extract])
    clicks = Plan(steps=[Step("navigation.click_by_text", {"text": "Laptops"}), extract])
    assert browser_reason(on_html, registry, BrowserOptions()) is None
    assert "needs a live page" in (browser_reason(clicks, registry, BrowserOptions()) or "")
    for mode in ("reject", "accept", "leave"):
        asked = browser_reason(on_html, registry, BrowserOptions(consent=mode, consent_asked=True)) or ""
        assert f"--consent {mode}" in asked and "consent dialogs" in asked
    assert browser_reason(on_html, registry, BrowserOptions(consent="accept"))  # set by hand, not the default
    for plan, live in ((on_html, False), (clicks, True)):
        assert may_need_live_page(plan, registry) is live
        assert may_need_live_page(plan.to_dict(), registry) is live
    assert may_need_live_page({"plan": [{"map": {"over": "products", "steps": []}}]}, registry)
    assert not may_need_live_page({"plan": "not steps"}, registry)


def _result(ok: bool, *codes: str) -> Result:
    return Result(ok=ok, errors=[ErrorEntry(code=c, message=c) for c in codes])


LISTING = (
    "<html><body><h1>Shop</h1>"
    + "".join(
        f'<div class="card"><a href="/p/{i}">Kubek {i}</a> <span>{i},00 zł</span></div>' for i in range(30)
    )
    + "</body></html>"
)


def test_when_auto_goes_back_to_the_browser():
    doc = Document("http://127.0.0.1/", LISTING)
    assert switch_reason(_result(True), doc, []) is None
    assert "empty" in (switch_reason(_result(False, "EMPTY_OUTPUT"), doc, []) or "")
    assert "HTTP_ERROR" in (switch_reason(_result(False, "HTTP_ERROR"), doc, []) or "")
    assert "warning" in (switch_reason(_result(True), doc, ["x: a listing that goes on by script"]) or "")
    # fewer items than the page states: a reason unless the page's pagination explains it
    assert "warning" in (switch_reason(_result(True), doc, [Shortfall("x", 42, 12)]) or "")
    assert switch_reason(_result(True), doc, [Shortfall("x", 120, 20, paged=True, shown=20)]) is None
    assert switch_reason(_result(True), doc, [Shortfall("x", 120, 20, paged=True)]) is None
    short = Shortfall("x", 96, 4, paged=True, shown=24)  # linked pages, but this one is short of its 24
    assert "warning" in (switch_reason(_result(True), doc, [short]) or "")
    # the last page of a listing: the rest is on the pages before it, which it links
    assert switch_reason(_result(True), doc, [Shortfall("x", 24, 8, earlier=True)]) is None
    assert switch_reason(_result(True), doc, [Shortfall("x", 120, 12, earlier=True, shown=12)]) is None
    assert "warning" in (
        switch_reason(_result(True), doc, [Shortfall("x", 120, 4, earlier=True, shown=12)]) or ""
    )
    # a pager that read the pages asked for while more are linked: the browser follows the same links
    assert switch_reason(_result(True), doc, [PagesLeft(5, "navigation.pagination")]) is None
    assert "warning" in (switch_reason(_result(True), doc, [PagesLeft(5, short=True)]) or "")
    explained = Shortfall("x", 120, 20, paged=True)
    assert "goes on by script" in (
        switch_reason(_result(True), doc, [explained, "y: goes on by script"]) or ""
    )
    # the browser is refused what the policy refused
    assert switch_reason(_result(False, "BLOCKED_URL"), doc, []) is None
    assert switch_reason(_result(False, "SSRF_BLOCKED_URL"), doc, []) is None
    # robots.txt keeps crawlers out, not a person's browser
    assert "robots.txt" in (switch_reason(_result(False, "ROBOTS_DISALLOWED"), doc, []) or "")
    # nor is a time limit that ran out: the same page, the same tool, less time
    assert switch_reason(_result(False, "STEP_TIMEOUT"), doc, []) is None
    assert switch_reason(_result(False, "TASK_TIMEOUT"), doc, []) is None
    shell = Document(
        "http://127.0.0.1/", '<html><body><div id="root"></div><script src="/app.js"></script></body></html>'
    )
    assert "client-rendered shell" in (switch_reason(_result(True), shell, []) or "")


@pytest.mark.parametrize(
    "body",
    [
        '<div class="grid"><div class="animate-pulse rounded bg-gray-200 h-40"></div></div>',  # utility classes
        '<ul class="product-list"><li class="product-tile product-tile--skeleton"></li></ul>',  # BEM
        '<div data-testid="skeleton-card"></div>',  # test ids
        '<div aria-busy="true">  </div>',
        "<main><h1>Produkty</h1><p>Ładowanie…</p></main>",  # PL
        "<main><h1>Products</h1><p>Loading...</p></main>",  # EN
        "<main><h1>Produkte</h1><p>Wird geladen…</p></main>",  # DE
        '<div id="__next"></div><script src="/_next/main.js"></script>',  # an empty mount
    ],
)
def test_a_client_rendered_shell_is_told_from_its_markup(body):
    assert shell_signs(f"<html><head><title>Shop</title></head><body>{body}</body></html>")


@pytest.mark.parametrize(
    "body",
    [
        LISTING,
        # placeholders the markup hides, a real item styled as a skeleton, "loading" inside a sentence
        '<div class="skeleton" hidden></div>' + LISTING,
        '<div class="product-card skeleton-fade"><a href="/p/1">Lampa stojąca Nova z abażurem lnianym</a></div>'
        + LISTING,
        "<p>Free loading bay for deliveries at the back of the store, open daily.</p>" + LISTING,
        # a short listing with scripts that cannot fill anything: empty, or data blocks
        '<h1>Kubki</h1><ul><li><a href="/p/1">Kubek</a> 29,99 zł</li><li><a href="/p/2">Dzbanek</a> 49 zł</li></ul>'
        "<script></script><script> </script>",
        '<h1>Tassen</h1><ul><li><a href="/p/1">Tasse</a> 9,99 €</li><li><a href="/p/2">Krug</a> 19 €</li></ul>'
        '<script type="application/ld+json">{"@type": "ItemList"}</script>'
        '<script type="text/template"><li>{{name}}</li></script>',
    ],
)
def test_a_complete_page_is_no_shell(body):
    assert shell_signs(body) == []


@pytest.mark.parametrize(
    "toolbar, total",
    [
        ("<p>Wyniki 1–24 z 312</p>", 312),
        ("<div class='count'><span>Showing 1-20 of 95 results</span></div>", 95),
        ("<span>12 von 42 Produkten</span>", 42),
        ("<p>42 products</p>", 42),
        ("<p hidden>99 products</p><p>42 products</p>", 42),
        ("<p>Page 2 of 9</p>", None),
    ],
)
def test_the_stated_size_of_a_listing_from_its_html(toolbar, total):
    assert html_stated_total(f"<html><body>{toolbar}{LISTING}</body></html>") == total


@pytest.mark.parametrize(
    "pager, wanted",
    [
        ('<link rel="next" href="/list?page=2">', "http://127.0.0.1/list?page=2"),
        (
            '<nav class="pagination"><a href="?p=1">1</a><a href="?p=2">Następna</a></nav>',
            "http://127.0.0.1/list?p=2",
        ),
        ('<div class="pager"><a href="/list/2">Weiter ›</a></div>', "http://127.0.0.1/list/2"),
        (
            '<ul class="pages"><li><a href="/list/2" aria-label="Next page">›</a></li></ul>',
            "http://127.0.0.1/list/2",
        ),
    ],
)
def test_the_next_page_by_its_link(pager, wanted):
    assert next_step(f"<html><head></head><body>{LISTING}{pager}</body></html>", "http://127.0.0.1/list") == (
        wanted,
        None,
    )


@pytest.mark.parametrize(
    "control",
    [
        '<button class="listing__more">Load more</button>',
        '<button type="button">Pokaż więcej</button>',
        '<button class="more">Mehr laden</button>',
        '<nav class="pagination"><button class="pagination__next">Next</button></nav>',
    ],
)
def test_a_listing_that_goes_on_by_script_is_told(control):
    address, scripted = next_step(f"<html><body>{LISTING}{control}</body></html>", "http://127.0.0.1/list")
    assert address is None and scripted


def test_no_next_page_and_no_way_on():
    assert next_step(f"<html><body>{LISTING}</body></html>", "http://127.0.0.1/list") == (None, None)
    carousel = '<div class="carousel"><a class="slick-next" href="/list?slide=2">Next</a></div>'
    assert next_step(f"<html><body>{LISTING}{carousel}</body></html>", "http://127.0.0.1/list")[0] is None


# Pagers and load-more controls the pager's rules score, in several markups and languages: accented
# words, arrows only, a label or a class alone, an image's alt, text split over elements.
_CONTROLS = [
    '<nav class="pagination"><a href="?p=2">Następna strona</a></nav>',
    '<div class="pager"><a href="/list/2">Nächste Seite</a> <a href="/list/9">Letzte</a></div>',
    '<a href="/list/2">Vorwärts »</a>',
    '<ul class="pages"><li><a href="/list/2" aria-label="Następna">›</a></li></ul>',
    '<a class="pagNext" href="/list/2"><img src="n.png" alt="Weiter"></a>',
    '<a id="nextLink" href="/list/2"><span>Dalej</span></a>',
    '<a href="/list/2" title="Suivant">→</a>',
    '<button type="button">Pokaż <b>więcej</b></button>',
    '<button class="more">Mehr laden</button>',
    '<a href="/list?offset=20">Show next 20</a>',
    '<link rel="next" href="/list?page=2">',
]


def _listing_pages() -> list[tuple[str, str]]:
    from pathlib import Path

    pages = [(f"<html><head></head><body>{LISTING}{c}</body></html>", c) for c in _CONTROLS]
    site = Path(__file__).parent / "site"
    return pages + [(f.read_text(encoding="utf-8"), f.name) for f in sorted(site.glob("*.html"))]


def test_the_pagers_first_test_keeps_every_control_its_rules_score():
    """`next_step` describes only the controls that pass the browser scans' first test (folded rel,
    text, labels, class, id): every control the next-page rule or the load-more rule scores at all
    passes it, described exactly as without it, and a listing's product links are not described.
    (The same held on the real page snapshots and the testbed's pages: 344 pages, 85 with a way on.)"""
    from curllm_core.tools.navigation.html_links import html_clickables
    from curllm_core.tools.navigation.more_on_page import load_more_score
    from curllm_core.tools.navigation.pagination import STEP_CANDIDATE, next_score

    url = "http://127.0.0.1/list"
    scored = 0
    for html, name in _listing_pages():
        every = html_clickables(html, url)
        tested = {c.ref: c for c in html_clickables(html, url, prefilter=STEP_CANDIDATE)}
        for c in every:
            if next_score(c, url)[0] > 0 or load_more_score(c) > 0:
                scored += 1
                assert tested.get(c.ref) == c, (name, c)
    assert scored >= len(_CONTROLS)
    plain = f"<html><body>{LISTING}{_CONTROLS[0]}</body></html>"
    assert len(html_clickables(plain, url, prefilter=STEP_CANDIDATE)) == 1 < len(html_clickables(plain, url))
    assert next_step(plain, url) == ("http://127.0.0.1/list?p=2", None)
    assert next_step(f"<html><body>{LISTING}{_CONTROLS[9]}</body></html>", url) == (
        None,
        "a load-more button ('Show next 20')",
    )


def test_the_load_more_scans_first_test_keeps_every_control_its_rule_scores():
    """`find_load_more` describes only the controls that pass its first test: every control the
    load-more rule scores passes it ("Show next 20" did not: the rule took "next", the test did not)."""
    from curllm_core.tools.navigation.html_links import html_clickables
    from curllm_core.tools.navigation.more_on_page import LOAD_MORE_CANDIDATE, load_more_score

    url = "http://127.0.0.1/list"
    extra = ['<button type="button">Load next 20</button>', "<button>Zobacz kolejne</button>"]
    pages = _listing_pages() + [(f"<html><body>{LISTING}{c}</body></html>", c) for c in extra]
    scored = 0
    for html, name in pages:
        tested = {c.ref: c for c in html_clickables(html, url, prefilter=LOAD_MORE_CANDIDATE)}
        for c in html_clickables(html, url):
            if load_more_score(c) > 0:
                scored += 1
                assert tested.get(c.ref) == c, (name, c)
    assert scored >= 5


def test_the_html_pager_rules_need_no_playwright():
    """The HTTP engine's reading of a page's next link (a shortfall's check after every extraction)
    imports no Playwright API (~0.15 s of a batch's start); the error types the browser tools catch
    are Playwright's own."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import curllm_core.tools.navigation.pagination, curllm_core.tools.navigation.html_links\n"
        "import curllm_core.executor.run\n"
        "sys.stdout.write(str('playwright.async_api' in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False", out.stderr
    import playwright.async_api

    from curllm_core.tools.page_helpers import PlaywrightError
    from curllm_core.tools.page_watch import PlaywrightTimeout

    assert (
        PlaywrightError is playwright.async_api.Error
        and PlaywrightTimeout is playwright.async_api.TimeoutError
    )


def test_the_api_and_the_config_check_the_engine():
    import curllm_core
    from curllm_core.errors import UsageError
    from curllm_core.option_rules import option_problem

    with pytest.raises(UsageError, match="engine=: engine must be one of auto, http, browser, not 'fast'"):
        curllm_core.run("find products", url="http://127.0.0.1:9/", engine="fast")
    assert option_problem("engine", "Auto") is None and option_problem("engine", 1)
