"""Forms that do nothing are found out at once, and forms that work are never taken for them: the price
filter in a real browser on the test site's `/forms/` pages (tests/site_forms.py), every kind in PL,
EN and DE, the markups taking turns."""

from __future__ import annotations

import time

import pytest

from curllm_core.errors import NoEffect
from curllm_core.tool import ToolContext
from curllm_core.tools.forms.price_filter import run as price_filter
from tests.site_forms import INERT, ITEMS, LANGS, LIMITS, MARKUPS, WORKING, in_range

pytestmark = pytest.mark.browser
#: Finding out that nothing happened is a few browser calls (tens of ms); this bound is far above
#: that and below every wait the decision could fall back to (the 1 s debounce bound, the 3 s change
#: bound, a reload), so that a regression to waiting shows even on a loaded machine.
INERT_BOUND_S = 0.9


def cases(kinds: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """Every kind in every language, the markup turning with each case (a compact matrix)."""
    out = []
    for i, kind in enumerate(kinds):
        for j, lang in enumerate(LANGS):
            out.append((kind, lang, MARKUPS[(i + j) % len(MARKUPS)]))
    return out


async def shown_names(page) -> list[str]:
    """The names of the items a user sees (hidden ones left out)."""
    return await page.evaluate(
        "() => [...document.querySelectorAll('[data-price] a')].filter((a) => a.checkVisibility())"
        ".map((a) => a.textContent)"
    )


@pytest.mark.parametrize("kind, lang, markup", cases(INERT))
async def test_a_form_that_does_nothing_is_found_out_at_once(page, site_url, kind, lang, markup):
    url = f"{site_url}/forms/{kind}?markup={markup}&lang={lang}"
    await page.goto(url)
    await page.evaluate("() => { window.firstDocument = true; }")
    started = time.perf_counter()  # the tool alone (the executor's first call imports and compiles)
    with pytest.raises(NoEffect) as caught:
        await price_filter(ToolContext(page=page), max=LIMITS[lang])
    took = time.perf_counter() - started
    assert "the listing did not change" in caught.value.message
    if kind == "samepage":  # not loaded again: the same document, told so
        assert "would only have loaded this same address again" in caught.value.message
    assert await page.evaluate("() => window.firstDocument === true"), "the page was loaded again"
    assert page.url == url
    assert await shown_names(page) == [n for n, _ in ITEMS[lang]]
    assert took < INERT_BOUND_S, f"{kind}: {took:.2f} s to find out that nothing happened"


@pytest.mark.parametrize("kind, lang, markup", cases(WORKING))
async def test_a_form_that_works_is_waited_for(page, site_url, on_page, kind, lang, markup):
    await page.goto(f"{site_url}/forms/{kind}?markup={markup}&lang={lang}")
    report = (await on_page("forms.price_filter", max=LIMITS[lang]))["price_filter"]
    assert report["submitted"]
    assert report["navigated"] is (kind in ("get", "post"))
    assert await shown_names(page) == [n for n, _ in in_range(lang, LIMITS[lang])]


def test_the_fixtures_keep_some_items_and_drop_others():
    for lang in LANGS:
        kept = in_range(lang, LIMITS[lang])
        assert 0 < len(kept) < len(ITEMS[lang])
