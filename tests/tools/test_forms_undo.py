"""Forms that break the page are undone, and forms that do nothing cost no long wait: the form tools
in a real browser on local pages (PL/EN/DE, served over http and opened as files) and real snapshots."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from curllm_core.errors import NoEffect, SubmitFailed
from tests.conftest import realpage

pytestmark = pytest.mark.browser
SITE = Path(__file__).resolve().parent.parent / "site"


def address(site_url: str, name: str, how: str) -> str:
    return f"{site_url}/test/{name}" if how == "http" else (SITE / name).as_uri()


async def undone(page, action) -> SubmitFailed:
    """Run ``action``; it must raise SubmitFailed with the page taken back."""
    with pytest.raises(SubmitFailed) as caught:
        await action
    err = caught.value
    assert err.code == "SUBMIT_FAILED" and err.undone, err.message
    assert "went back to the page as it was" in err.message
    return err


@pytest.mark.parametrize("how", ["http", "file"])
@pytest.mark.parametrize(
    "name, params, items, landed_http",
    [
        ("broken-pl.html", {"min": 100, "max": 200}, "#lista li", "HTTP 501"),  # POST: not answered
        ("broken-en.html", {"max": 30}, "#items li", "HTTP 404"),  # GET to a missing page
        ("broken-de.html", {"min": 20, "max": 40}, "#produkte li", "HTTP 501"),  # Enter, form.submit()
    ],
)
async def test_a_price_filter_that_breaks_the_page_is_undone(
    page, site_url, how, name, params, items, landed_http, curllm_run_tool
):
    url = address(site_url, name, how)
    await page.goto(url)
    before = await page.locator(items).count()
    events: list[dict] = []
    err = await undone(
        page, curllm_run_tool("forms.price_filter", page=page, params=params, on_event=events.append)
    )
    assert (landed_http if how == "http" else "a browser error page") in err.message
    assert page.url == url and await page.locator(items).count() == before
    # Both pages the submit visited are reported: the broken one (failed), then the page back again.
    kinds = [(e["type"], e["data"].get("status")) for e in events]
    assert kinds == [
        ("url_start", None),
        ("url_complete", "failed"),
        ("url_start", None),
        ("url_complete", "completed"),
    ]
    assert events[1]["data"]["error"] and events[3]["data"]["url"] == url


@pytest.mark.parametrize("how", ["http", "file"])
async def test_a_search_and_a_sort_that_break_the_page_are_undone(page, site_url, how, on_page):
    url = address(site_url, "broken-pl.html", how)
    await page.goto(url)
    err = await undone(page, on_page("forms.search_query", query="kubek"))
    assert "the search" in err.message and "szukaj-nie-ma" in err.message
    assert page.url == url
    err = await undone(page, on_page("forms.dropdown_select", option="Cena: od najniższej"))
    assert "choosing 'Cena: od najniższej'" in err.message and "sortuj-nie-ma" in err.message
    assert page.url == url and await page.locator("#lista li").count() == 6


@pytest.mark.parametrize("how", ["http", "file"])
@pytest.mark.parametrize(
    "name, params, landed_http",
    [
        ("ceneo_search_canon.html", {"min": 100, "max": 200}, "HTTP 501"),
        ("amazon_de_search_katzenfutter.html", {"max": 15}, "HTTP 404"),
    ],
)
async def test_real_snapshots_whose_filter_form_breaks_the_page(
    page, realpages_url, how, name, params, landed_http, on_page
):
    url = f"{realpages_url}/{name}" if how == "http" else realpage(name).as_uri()
    await page.goto(url, wait_until="domcontentloaded")
    err = await undone(page, on_page("forms.price_filter", **params))
    assert (landed_http if how == "http" else "a browser error page") in err.message
    assert page.url == url


async def test_a_filter_that_does_nothing_fails_saying_so(page, site_url, on_page):
    url = f"{site_url}/test/inert-filter.html"
    await page.goto(url)
    with pytest.raises(NoEffect) as caught:
        await on_page("forms.price_filter", max=150)
    assert "applied (button: Filtruj), and the listing did not change" in caught.value.message
    assert page.url == url and await page.locator("#lista li").count() == 24


@pytest.mark.parametrize("mode", ["sync", "timer", "fetch", "frame", "message", "busy", "worker"])
async def test_a_scripted_filter_is_waited_for(page, site_url, mode, on_page):
    """A reaction in place, at once, after a timer (a debounced handler), a request, animation frames,
    a scheduler's message (also one held up behind a long script, as on a loaded machine) or a
    worker's answer: the tool returns once the list shows it."""
    await page.goto(f"{site_url}/test/js-filter.html?mode={mode}")
    report = (await on_page("forms.price_filter", max=20))["price_filter"]
    assert report["submitted"] and report["navigated"] is False
    assert await page.locator("#produkte .produkt a").all_inner_texts() == ["Becher", "Kaffeetasse"]


async def test_a_filter_that_loads_a_good_page_is_not_undone(page, site_url, on_page):
    await page.goto(site_url + "/test/en-shop.html")
    report = (await on_page("forms.price_filter", max=20))["price_filter"]
    assert report["navigated"] and "max=20" in page.url


BUSY_PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Busy</title></head><body>
<form id="f"><label for="hi">Price to</label> <input id="hi" name="hi"> <button>Apply</button></form>
<ul><li>Mug <span>$9</span></li><li>Cup <span>$19</span></li></ul>
<script>
  document.getElementById("f").addEventListener("submit", (e) => e.preventDefault());  // does nothing
  let frames = 0;
  (function spin() { frames++; requestAnimationFrame(spin); })();  // an animation that never stops
  (function poll() { setTimeout(poll, 200); })();  // a poller that never stops
</script></body></html>"""


async def test_an_animation_or_a_poller_is_not_waited_on_as_a_reaction(page, on_page):
    """Only work scheduled by the action's handlers (three generations deep) counts as a coming
    reaction, and a callback that schedules itself again is a loop: a page that animates and polls for
    ever has nothing due once the poller's first turn after the action is over."""
    from curllm_core.tools.page_helpers import _STATE_JS, PageWatch

    await page.set_content(BUSY_PAGE)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(NoEffect):  # the listing did not change, the poller notwithstanding
        await on_page("forms.price_filter", max=10)
    assert loop.time() - started < 2.5  # the poller's timer is not a debounce: not waited for long
    async with PageWatch(page) as watch:
        await page.click("button")
        # The poller's first turn after the action (200 ms) may run late on a busy machine: look
        # until nothing is due, or 5 s (a loop taken for a coming reaction stays due for ever).
        deadline = loop.time() + 5
        while True:
            mutations, _, submits, coming, calls, due_in, *_ = await page.evaluate(_STATE_JS)
            if (calls, due_in) == (0, 0) or loop.time() > deadline:
                break
            await asyncio.sleep(0.05)
        settled = await watch.settle(2000)
    assert (mutations, submits, coming, calls, due_in) == (0, 1, False, 0, 0)
    assert not settled.reacted
