"""Readiness in a real browser: pages that are ready and pages that are not (content fetched after
`load`, skeletons, loading words, a request held by the test), and the bound of the wait.

Delays are driven by the test: a request it holds (Playwright routing) is in flight until the test
lets it go, so no test sleeps for a guessed time.
"""

from __future__ import annotations

import asyncio

import pytest

from curllm_core.readiness import INIT_JS, probe, verdict, wait_ready

pytestmark = pytest.mark.browser


@pytest.fixture
async def tracked(pw_browser):
    """A page whose context tracks readiness from the first script on, as curllm's sessions do."""
    context = await pw_browser.new_context()
    await context.add_init_script(INIT_JS)
    page = await context.new_page()
    yield page
    await context.close()


async def test_a_static_page_is_ready_at_the_first_look(tracked, site_url):
    await tracked.goto(site_url + "/test/table.html")
    got = await wait_ready(tracked, 5000)
    assert got.ready and got.probes == 1 and got.reason is None


async def test_the_example_shop_is_ready_at_the_first_look(tracked, site_url):
    await tracked.goto(site_url + "/")
    got = await wait_ready(tracked, 5000)
    assert got.ready and got.probes == 1


@pytest.mark.parametrize("markup", ["soup", "bem", "hashed", "testid"])
async def test_a_client_rendered_listing_is_not_ready_until_its_prices_are_in(tracked, site_url, markup):
    held: list = []
    release = asyncio.Event()

    async def hold(route):
        held.append(route)
        await release.wait()
        await route.continue_()

    await tracked.route("**/app-api/prices**", hold)
    await tracked.goto(
        f"{site_url}/app/render?markup={markup}&lang=pl&delay=0", wait_until="domcontentloaded"
    )
    first = await probe(tracked)
    assert verdict(first) is not None  # skeletons and the loading line, at least
    # the bound stops a wait while the prices are held, and says why
    stopped = await wait_ready(tracked, 400)
    assert not stopped.ready and stopped.reason
    release.set()
    got = await wait_ready(tracked, 5000)
    assert got.ready, got.reason
    prices = await tracked.eval_on_selector_all("[data-price-of]", "els => els.map((e) => e.textContent)")
    assert len(prices) == 12 and all(p.endswith("zł") for p in prices)


@pytest.mark.parametrize(
    ("body", "ready_at_once"),
    [
        ("<p>Ładowanie…</p>", False),
        ("<p>Wird geladen …</p>", False),
        ("<div aria-busy='true'>x</div>", False),
        ("<div class='card card--skeleton' style='height:90px'></div>", False),
        ("<div class='ProductList_shimmer__x9k2' style='height:90px'></div>", False),
        ("<div class='ROW SKELETON-ROW' style='height:90px'></div>", False),
        ("<div data-testid='results-loading' style='height:90px'></div>", False),
        ("<div role='progressbar' style='height:9px; width:90px'></div>", False),
        ("<script>const label = 'Loading…';</script><p>Gotowe: 12 produktów</p>", True),
        ("<p>Free loading bay at the back of the shop, open 8-18.</p>", True),
        ("<input placeholder='Loading…' class='placeholder'>", True),
        ("<div class='skeleton' style='display:none'></div>", True),
        (
            "<div class='product placeholder-free'>A real product with a long name and its price 12 zł</div>",
            True,
        ),
    ],
)
async def test_signs_of_loading(tracked, body, ready_at_once):
    await tracked.set_content(f"<html><body><h1>Shop</h1>{body}</body></html>")
    assert (not (await probe(tracked)).signs) == ready_at_once


async def test_a_placeholder_that_stays_is_part_of_the_page_and_costs_a_bounded_wait(tracked):
    await tracked.set_content("<html><body><h1>Shop</h1><p>Loading…</p></body></html>")
    got = await wait_ready(tracked, 5000)
    assert got.ready  # stale after STALE_MS with nothing else happening
    assert got.waited_ms < 4000


async def test_a_page_that_never_settles_is_read_when_the_bound_passes(tracked):
    await tracked.set_content(
        "<html><body><p id=t></p><script>setInterval(() => { t.textContent = Date.now(); }, 30);</script></body></html>"
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    got = await wait_ready(tracked, 500)
    assert not got.ready and "changed" in got.reason
    assert loop.time() - started < 2.0


async def test_strict_waits_for_work_the_page_scheduled(tracked):
    await tracked.set_content("<html><body><ul id=l></ul></body></html>")
    await tracked.evaluate("setTimeout(() => { l.innerHTML = '<li>one</li><li>two</li>'; }, 300)")
    got = await wait_ready(tracked, 5000, strict=True)
    assert got.ready
    assert await tracked.eval_on_selector_all("li", "els => els.length") == 2


async def test_a_page_without_the_tracker_gets_it_at_the_first_look(page, site_url):
    await page.goto(site_url + "/test/table.html")
    got = await wait_ready(page, 5000)
    assert got.ready and await page.evaluate("!!window.__curllmReady")


# --- work the page scheduled as it loaded (tests/site_late.py) -------------------------------------

LATE_CASES = [
    ("load-timeout", "list", "en"),
    ("body-timeout", "cards", "pl"),
    ("onload-attr", "table", "de"),
    ("chain", "cards", "en"),
    ("frames", "list", "pl"),
    ("promise", "table", "de"),
]


@pytest.mark.parametrize(("how", "markup", "lang"), LATE_CASES)
async def test_a_listing_filled_just_after_load_is_waited_for(tracked, site_url, how, markup, lang):
    # Nothing on the page says more is coming: only the timer, frames or promise its scripts set.
    await tracked.goto(f"{site_url}/late/{how}?markup={markup}&lang={lang}&ms=300")  # waits for `load`
    got = await wait_ready(tracked, 5000)
    assert got.ready, got.reason
    rows = await tracked.eval_on_selector_all("#items > *", "els => els.length")
    assert rows == 24


async def test_loops_the_page_starts_as_it_loads_cost_a_bounded_wait(tracked):
    # An animation frame loop and a ticker, both going on forever: waited for at most the first
    # second after `load` (LOAD_WORK_MS), never the whole bound.
    await tracked.set_content(
        "<html><body><p id=t>0</p><canvas id=c></canvas><script>"
        "let n = 0; const spin = () => { n++; requestAnimationFrame(spin); }; requestAnimationFrame(spin);"
        "const tick = () => { c.dataset.n = n; setTimeout(tick, 40); }; tick();"
        "</script></body></html>"
    )
    got = await wait_ready(tracked, 5000)
    # Ready, not given up at the bound (which says why: the page still at work), the loop going on.
    assert got.ready, got.reason
    assert await tracked.evaluate("n") > 4  # the loop went on meanwhile
    # The wait ended once the first second after `load` was over, by the page's own clock.
    assert await tracked.evaluate("performance.now() - window.__curllmReady.loadAt") < 5000


async def test_timers_set_long_after_load_are_not_load_work(tracked, site_url):
    await tracked.goto(site_url + "/test/table.html")
    await tracked.wait_for_function("performance.now() > window.__curllmReady.loadAt + 1100", polling=100)
    await tracked.evaluate("setTimeout(() => {}, 400); requestAnimationFrame(() => {})")
    look = await probe(tracked)
    assert look.timer_ms > 0 and look.load_work_ms == 0
    assert verdict(look) is None and verdict(look, strict=True) is not None
