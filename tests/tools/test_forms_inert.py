"""Forms that do nothing are found out at once, and forms that work are never taken for them: the price
filter in a real browser on the test site's `/forms/` pages (tests/site_forms.py), every kind in PL,
EN and DE, the markups taking turns."""

from __future__ import annotations

import asyncio

import pytest

from curllm_core.errors import NoEffect
from curllm_core.tool import ToolContext
from curllm_core.tools.forms.price_filter import run as price_filter
from tests.site_forms import INERT, ITEMS, LANGS, LIMITS, MARKUPS, WORKING, in_range

pytestmark = pytest.mark.browser
#: Finding out that nothing happened waits a few tens of ms (a reaction's grace, a look or two); this
#: bound on the waits the tool asks for is far above that and below every wait the decision could fall
#: back to (the 1 s debounce bound, the 3 s change bound, a navigation's), so that a regression to
#: waiting shows. Counted in waits asked for, not in time taken: a loaded machine makes the browser
#: calls slower, never the waits longer.
INERT_BOUND_S = 0.9


class Waits:
    """The waits code asks for while this is entered: each ``asyncio.sleep``'s seconds and each
    ``asyncio.wait_for`` that ran out, its timeout (every wait of curllm's is one of the two, or a
    navigation, which the tests see by the document)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.monkeypatch = monkeypatch
        self.asked: list[tuple[str, float]] = []

    def __enter__(self) -> Waits:
        sleep, wait_for = asyncio.sleep, asyncio.wait_for

        async def counted_sleep(delay: float, *args, **kwargs):
            if delay > 0:  # sleep(0) only yields to the loop (Playwright's calls do, many times)
                self.asked.append(("sleep", float(delay)))
            return await sleep(delay, *args, **kwargs)

        async def counted_wait_for(awaitable, timeout, *args, **kwargs):
            try:
                return await wait_for(awaitable, timeout, *args, **kwargs)
            except TimeoutError:
                self.asked.append(("wait_for", float(timeout or 0)))
                raise

        self.monkeypatch.setattr(asyncio, "sleep", counted_sleep)
        self.monkeypatch.setattr(asyncio, "wait_for", counted_wait_for)
        return self

    def __exit__(self, *exc) -> None:
        self.monkeypatch.undo()

    @property
    def seconds(self) -> float:
        return sum(s for _, s in self.asked)


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
    with pytest.MonkeyPatch.context() as mp, Waits(mp) as waits, pytest.raises(NoEffect) as caught:
        await price_filter(ToolContext(page=page), max=LIMITS[lang])
    assert "the listing did not change" in caught.value.message
    if kind == "samepage":  # not loaded again: the same document, told so
        assert "would only have loaded this same address again" in caught.value.message
    assert await page.evaluate("() => window.firstDocument === true"), "the page was loaded again"
    assert page.url == url
    assert await shown_names(page) == [n for n, _ in ITEMS[lang]]
    assert waits.seconds < INERT_BOUND_S, f"{kind}: waited {waits.asked} to find out that nothing happened"
    # cookies and storage (what a submit to this same address compares) are read only for a form that
    # submits to the page's own address (no action, or this one): reading them asks the browser
    kept = await page.evaluate("() => window.__curllmWatch.kept")
    assert (kept is None) == (kind in ("listener", "button")), f"{kind}: kept {kept!r}"


class Calls:
    """The in-page calls (``evaluate``) made on ``page`` while the monkeypatch holds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, page):
        self.evaluate: list[str] = []
        evaluate = page.evaluate

        async def counted_evaluate(expression, *args, **kwargs):
            self.evaluate.append(expression)
            return await evaluate(expression, *args, **kwargs)

        monkeypatch.setattr(page, "evaluate", counted_evaluate)


def call_kind(expression: str) -> str:
    """What an in-page call of the price filter is: a look at the listing on its own, the watch's state
    with such a look, the state alone, or another (the fields' scan, the submit's prepare)."""
    from curllm_core.tools.listing_change import LOOK_JS, SHOWN_JS
    from curllm_core.tools.page_watch import _STATE_JS, _STATE_LOOK_JS

    kinds = {LOOK_JS: "look", SHOWN_JS: "look", _STATE_LOOK_JS: "state and look", _STATE_JS: "state"}
    return kinds.get(expression, "other")


@pytest.mark.parametrize(
    "kind, lang, markup", [(k, LANGS[i % 3], MARKUPS[i % 3]) for i, k in enumerate(INERT)]
)
async def test_finding_out_that_nothing_happened_costs_no_call_of_its_own(page, site_url, kind, lang, markup):
    # The fields found (one call), set and submitted (one call, the listing's fingerprint taken first),
    # then the watch's state and the fingerprint again in one call: no look of its own before the
    # submit or after it (a page the probe finds not ready yet is looked at again, as ever), on a
    # page's first submit and on its second.
    await page.goto(f"{site_url}/forms/{kind}?markup={markup}&lang={lang}")
    for _ in range(2):
        with pytest.MonkeyPatch.context() as mp, pytest.raises(NoEffect):
            calls = Calls(mp, page)
            await price_filter(ToolContext(page=page), max=LIMITS[lang])
        kinds = [call_kind(e) for e in calls.evaluate]
        assert kinds[:3] == ["other", "other", "state and look"], f"{kind}: {kinds}"
        assert set(kinds[3:]) <= {"state and look", "look"}, f"{kind}: {kinds}"


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
