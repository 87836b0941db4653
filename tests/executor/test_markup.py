"""Tools chosen by the page (curllm_core.executor.markup): the manifest's ``detect`` field, which tool may stand
in for which, and the single browser call that tests every candidate's markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from curllm_core.executor.markup import alternatives, carry, choose, empty
from curllm_core.manifest import Manifest, check_manifest
from curllm_core.plugins import load_registry
from tests.conftest import realpage
from tests.core.test_manifest import good_doc

SITE = Path(__file__).resolve().parent.parent / "site"


@pytest.fixture(scope="module")
def registry():
    return load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False)


def test_detect_is_a_selector_or_a_list_of_them_and_must_be_valid_css():
    assert Manifest.from_dict(good_doc(detect="li.offer")).detect == ("li.offer",)
    m = Manifest.from_dict(good_doc(detect=["li.offer", "div[data-sku]"]))
    assert m.detect == ("li.offer", "div[data-sku]") and check_manifest(m.to_dict()) == []
    assert Manifest.from_dict(good_doc()).detect == ()
    (bad,) = check_manifest(good_doc(detect=["li.offer", ""]))
    assert (bad.pointer, bad.message) == ("/detect/1", "'' should be non-empty")
    (bad,) = check_manifest(good_doc(detect={"css": "li"}))
    assert bad.pointer == "/detect" and "is not of type 'string', 'array'" in bad.message
    (bad,) = check_manifest(good_doc(detect="a >>> b"))
    assert bad.pointer == "/detect" and bad.message == "not a valid CSS selector: 'a >>> b'"
    (bad,) = check_manifest(good_doc(detect=["li.offer", "div[["]))
    assert bad.pointer == "/detect/1" and "not a valid CSS selector" in bad.message


def test_the_builtin_site_tools_declare_their_markup(registry):
    declared = {m.key for m in registry if m.detect}
    assert declared == {
        "extraction.articles_hn",
        "extraction.articles_reddit",
        "extraction.products_amazon",
        "extraction.products_ceneo",
    }
    assert all(m.sites for m in registry if m.detect)


def test_parameters_carry_over_by_name_and_a_set_one_is_never_dropped(registry):
    reddit, hn = registry.resolve("articles_reddit"), registry.resolve("articles_hn")
    generic = registry.resolve("products_generic")
    # include_promoted at reddit's own default is not "set"; limit goes over
    assert carry({"limit": 5, "include_promoted": False}, reddit, hn) == ({"limit": 5}, [])
    # points are one concept: each takes the other's name for the threshold
    assert carry({"min_score": 100}, reddit, hn) == ({"min_score": 100}, [])
    assert carry({"min_points": 100, "limit": 3}, hn, reddit)[0] == {
        "min_points": 100,
        "limit": 3,
        "include_promoted": False,
    }
    assert carry({"include_promoted": True}, reddit, hn) == (None, ["include_promoted"])
    amazon = registry.resolve("products_amazon")
    assert carry({"limit": 3}, generic, amazon) == ({"limit": 3, "include_sponsored": True}, [])
    assert carry({"include_sponsored": False}, amazon, generic) == (None, ["include_sponsored"])


def test_empty_means_every_produced_list_is_empty():
    assert empty({"products": []}, ["products"])
    assert not empty({"products": [{"name": "x"}]}, ["products"])
    assert not empty({"report": {}}, ["report"])  # no list: nothing to say
    assert not empty(None, ["products"])


class CountingPage:
    """A real page that counts the browser calls made through it."""

    def __init__(self, page):
        self.page, self.calls = page, 0

    async def evaluate(self, *args):
        self.calls += 1
        return await self.page.evaluate(*args)


@pytest.mark.browser
@pytest.mark.parametrize(
    "name, planned, params, chosen",
    [
        ("hn_front_2026.html", "extraction.articles_reddit", {"limit": 5}, "extraction.articles_hn"),
        ("hn_item_36817231.html", "extraction.articles_reddit", {}, "extraction.articles_hn"),
        ("reddit_old_dataisbeautiful_top.html", "extraction.articles_hn", {}, "extraction.articles_reddit"),
        ("ceneo_search_canon.html", "extraction.products_generic", {}, "extraction.products_ceneo"),
        (
            "amazon_de_search_katzenfutter.html",
            "extraction.products_generic",
            {},
            "extraction.products_amazon",
        ),
        ("amazon_com_bestsellers_tools.html", "extraction.products_ceneo", {}, "extraction.products_amazon"),
    ],
)
async def test_one_browser_call_picks_the_tool_whose_markup_the_page_shows(
    page, registry, name, planned, params, chosen
):
    await page.goto(realpage(name).as_uri(), wait_until="domcontentloaded")
    counting = CountingPage(page)
    choice = await choose(counting, registry, registry.resolve(planned), params)
    assert counting.calls == 1
    assert choice.manifest.key == chosen and choice.chosen == chosen and choice.planned == planned
    assert choice.params == {k: v for k, v in params.items()} | (
        {"include_promoted": False} if chosen.endswith("reddit") else {}
    ) | ({"include_sponsored": True} if chosen.endswith("amazon") else {})
    assert choice.reason.startswith(f"the page shows {chosen}'s markup (")


@pytest.mark.browser
async def test_the_tool_a_pager_runs_is_chosen_too(page, registry):
    await page.goto(realpage("ceneo_search_canon.html").as_uri(), wait_until="domcontentloaded")
    pager = registry.resolve("pagination")
    params = {"extract": "extraction.products_generic", "extract_parameters": {"limit": 40}, "max_pages": 2}
    choice = await choose(page, registry, pager, params)
    assert choice.manifest is pager and choice.chosen == "extraction.products_ceneo"
    assert choice.params == {
        **params,
        "extract": "extraction.products_ceneo",
        "extract_parameters": {"limit": 40},
    }


@pytest.mark.browser
@pytest.mark.parametrize("name", ["inert-filter.html", "en-shop.html", "table.html"])
async def test_no_site_markup_no_choice(page, registry, name):
    await page.goto((SITE / name).as_uri())
    counting = CountingPage(page)
    for tool in ("products_generic", "products_ceneo", "articles_hn"):
        assert await choose(counting, registry, registry.resolve(tool), {}) is None
    assert await choose(counting, registry, registry.resolve("tables_to_json"), {}) is None
    assert counting.calls == 3  # tables: no tool declares markup for them, so no call at all


@pytest.mark.browser
async def test_after_an_empty_extraction_the_sighted_tools_then_the_generic_ones(page, registry):
    await page.goto(realpage("hn_front_2026.html").as_uri(), wait_until="domcontentloaded")
    reddit = registry.resolve("articles_reddit")
    alts = await alternatives(page, registry, reddit, {"limit": 3}, {reddit.key})
    assert [a.chosen for a in alts][:1] == ["extraction.articles_hn"]
    assert alts[0].reason.startswith("extraction.articles_reddit found no articles; the page shows")
    ceneo = registry.resolve("products_ceneo")
    alts = await alternatives(page, registry, ceneo, {"limit": 3}, {ceneo.key})
    assert [a.chosen for a in alts] == ["extraction.products_generic"]
    assert alts[0].params == {"limit": 3}
    assert await alternatives(page, registry, registry.resolve("price_range_check"), {"max": 3}, set()) == []


class NavigatingPage:
    """A real page whose first markup call is cut short by a real navigation (a form's submit that
    lands while the next step looks at the page): the call waits in the page, and the page leaves."""

    def __init__(self, page, to: str, times: int = 1):
        self._page, self._to, self.left = page, to, times

    async def evaluate(self, *args):
        if self.left:
            self.left -= 1
            await self._page.evaluate("to => setTimeout(() => { location.href = to }, 50)", self._to)
            return await self._page.evaluate("() => new Promise(done => setTimeout(done, 5000))")
        return await self._page.evaluate(*args)

    def __getattr__(self, name):
        return getattr(self._page, name)


@pytest.mark.browser
async def test_a_page_that_navigates_during_the_markup_call_is_asked_again(page, registry, tmp_path):
    """The page navigates while its markup is counted ("Execution context was destroyed"): it is asked
    again once loaded, and the tool its new document's markup calls for is chosen; a page that keeps
    leaving leaves the planned tool (no choice), never an error."""
    await page.goto((SITE / "en-shop.html").as_uri())
    rows = "".join(
        f'<div class="cat-prod-row js_category-list-item"><a href="/p/{i}">Aparat {i}</a> {i}99 zł</div>'
        for i in range(3)
    )
    landing = tmp_path / "landing.html"  # a small page in a site tool's markup: loaded at once
    landing.write_text(f"<html><body>{rows}</body></html>", encoding="utf-8")
    choice = await choose(
        NavigatingPage(page, landing.as_uri()), registry, registry.resolve("products_generic"), {}
    )
    assert choice is not None and choice.chosen == "extraction.products_ceneo"
    await page.goto((SITE / "en-shop.html").as_uri())
    leaving = NavigatingPage(page, (SITE / "table.html").as_uri(), times=3)
    assert await choose(leaving, registry, registry.resolve("products_generic"), {}) is None
