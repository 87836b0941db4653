"""Pages as they are served today, end to end: `curllm` against the test site's client-rendered listings (tests/site_apps.py: items fetched after `load`, skeletons, prices from a
second request, load-more, infinite scroll, a virtualized list, a listing that shows fewer items
than it states), in four markups and PL/EN/DE. Every answer is exact, or says what it missed.

The server holds each API answer for the page's ``delay`` (ms): the requests are in flight
meanwhile, as on a real network, and curllm must wait for them; no test sleeps.

Every task runs as `curllm run` runs it, in this process with one browser (tests/in_process.py):
the single tasks, a given plan (as ``--plan`` gives it) and the matrix (as one `curllm batch -j 2`,
by the same engine). The commands' own contracts (``--plan``, ``curllm batch``, exit codes) are
tested with real processes in tests/core/test_cli.py and tests/batch/test_cli.py.
"""

from __future__ import annotations

import pytest
import pytest_asyncio

from tests import site_apps
from tests.in_process import InProcessCurllm

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def expected(pattern: str, lang: str, hi: float = float("inf")) -> list[tuple[str, float]]:
    return [
        (p["name"], p["price"])
        for p in site_apps.catalogue(lang, site_apps.PATTERNS[pattern])
        if p["price"] <= hi
    ]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser."""
    curllm_here = InProcessCurllm(curllm_browser)
    yield curllm_here
    await curllm_here.aclose()


async def run(here: InProcessCurllm, site_url: str, instruction: str, page: str) -> dict:
    """The ``--format json`` document of a run that succeeded (the CLI's exit 0)."""
    result = await here.json(instruction, f"{site_url}/app/{page}")
    assert result["ok"], result["errors"]
    return result


CURRENCY = {"pl": "PLN", "en": "GBP", "de": "EUR"}


@pytest.mark.parametrize(
    ("page", "lang", "instruction", "hi"),
    [
        # rendered after load: skeletons, then the items, then their prices by a second request
        ("render?markup=bem&lang=pl&delay=900", "pl", "znajdź wszystkie produkty", None),
        ("render?markup=testid&lang=de&delay=400", "de", "alle Produkte", None),
        # an empty shell: nothing says content is coming; the empty first read is read again
        ("render?markup=soup&lang=en&bare=1&hydrate=900&delay=300", "en", "find all products", None),
        # read to the end by the page's own mechanism, in any markup and language
        ("loadmore?markup=hashed&lang=de&delay=300", "de", "Produkte unter 300 €", 300),
        ("loadmore?markup=testid&lang=pl&delay=300", "pl", "wszystkie produkty", None),
        ("scroll?markup=testid&lang=pl&delay=300", "pl", "produkty poniżej 200 zł", 200),
        ("virtual?markup=soup&lang=en&delay=300", "en", "products under £150", 150),
    ],
)
async def test_every_item_exactly(here, browser_path, site_url, page, lang, instruction, hi):
    pattern = page.split("?")[0]
    result = await run(here, site_url, instruction, page)
    got = sorted((p["name"], p["price"]) for p in result["data"]["products"])
    assert got == sorted(expected(pattern, lang, float("inf") if hi is None else hi))
    assert {p["currency"] for p in result["data"]["products"]} == {CURRENCY[lang]}
    assert not result.get("warnings"), result.get("warnings")


async def test_an_order_over_the_whole_listing_behind_a_load_more_button(here, browser_path, site_url):
    result = await run(here, site_url, "the 5 cheapest products", "loadmore?markup=bem&lang=en&delay=300")
    got = [(p["name"], p["price"]) for p in result["data"]["products"]]
    assert got == sorted(expected("loadmore", "en"), key=lambda t: t[1])[:5]


async def test_a_listing_that_shows_fewer_items_than_it_states_says_so(here, browser_path, site_url):
    result = await run(here, site_url, "Produkte unter 300 €", "short?markup=bem&lang=de&delay=300")
    got = sorted((p["name"], p["price"]) for p in result["data"]["products"])
    shown = site_apps.catalogue("de", 42)[:12]  # the page shows its first 12 and never more
    assert got == sorted((p["name"], p["price"]) for p in shown if p["price"] <= 300)
    assert any("states 42 items and 12 were read" in w for w in result["warnings"]), result.get("warnings")


@pytest.mark.parametrize(
    ("page", "lang", "instruction", "lo", "hi"),
    [
        # a filter that applies itself: inputs with a debounce, no button
        ("filter?markup=bem&lang=pl&delay=300", "pl", "produkty od 100 do 200 zł", 100, 200),
        ("filter?markup=testid&lang=de&delay=300", "de", "Produkte zwischen 50 und 150 €", 50, 150),
    ],
)
async def test_a_filter_that_applies_itself_is_waited_for(
    here, browser_path, site_url, page, lang, instruction, lo, hi
):
    result = await run(here, site_url, instruction, page)
    got = sorted((p["name"], p["price"]) for p in result["data"]["products"])
    want = sorted((p["name"], p["price"]) for p in site_apps.catalogue(lang, 24) if lo <= p["price"] <= hi)
    assert got == want
    form = result["steps"][0]
    assert form["tool"] == "forms.price_filter" and form["success"], result["errors"]


@pytest.mark.parametrize(
    ("page", "lang", "instruction", "chosen"),
    [
        ("sort?markup=hashed&lang=en&delay=300", "en", "the 5 cheapest products", "Price: low to high"),
        ("sort?markup=testid&lang=pl&delay=300", "pl", "5 najtańszych produktów", "Cena: od najniższej"),
        # a div dropdown without roles
        ("sort?markup=soup&lang=de&delay=300", "de", "die 5 günstigsten Produkte", "Preis aufsteigend"),
    ],
)
async def test_a_custom_sort_control_is_used(here, browser_path, site_url, page, lang, instruction, chosen):
    result = await run(here, site_url, instruction, page)
    got = [(p["name"], p["price"]) for p in result["data"]["products"]]
    want = sorted(((p["name"], p["price"]) for p in site_apps.catalogue(lang, 24)), key=lambda t: t[1])[:5]
    assert got == want
    sort = result["steps"][0]
    assert sort["tool"] == "forms.dropdown_select" and sort["success"], result["errors"]
    assert sort["result"]["dropdown_select"]["selected"]["text"] == chosen


async def test_a_bound_that_stops_the_reading_says_so(here, browser_path, site_url):
    plan = {"plan": [{"tool": "navigation.pagination", "parameters": {"max_pages": 2}}]}
    url = f"{site_url}/app/loadmore?markup=hashed&lang=en&delay=200"
    result = await here.json(None, url, plan=plan)
    assert result["ok"], result["errors"]  # the CLI's exit 0
    got = sorted((p["name"], p["price"]) for p in result["data"]["products"])
    assert got == sorted(expected("loadmore", "en")[:24])  # the first page and one load
    assert any("and the listing goes on (max_loads)" in w for w in result["warnings"]), result["warnings"]


#: Every pattern in PL, EN and DE, the markup turning (each pattern meets three markups, each markup
#: every kind of pattern): one batch, so the matrix costs a task a cell, not a process.
MATRIX = [
    (pattern, site_apps.MARKUPS[(i + k) % len(site_apps.MARKUPS)], lang)
    for i, pattern in enumerate(site_apps.PATTERNS)
    for k, lang in enumerate(site_apps.LANGS)
]
ALL = {"pl": "wszystkie produkty", "en": "all products", "de": "alle Produkte"}
RANGE = {  # (instruction, low, high)
    "pl": ("produkty od 100 do 200 zł", 100, 200),
    "en": ("products from £100 to £200", 100, 200),
    "de": ("Produkte zwischen 100 und 200 €", 100, 200),
}
CHEAPEST = {
    "pl": "5 najtańszych produktów",
    "en": "the 5 cheapest products",
    "de": "die 5 günstigsten Produkte",
}


def matrix_task(site_url: str, pattern: str, markup: str, lang: str) -> dict:
    words = RANGE[lang][0] if pattern == "filter" else CHEAPEST[lang] if pattern == "sort" else ALL[lang]
    url = f"{site_url}/app/{pattern}?markup={markup}&lang={lang}&delay=150&hydrate=100"
    return {"id": f"{pattern}/{markup}-{lang}", "url": url, "instruction": words}


def matrix_answer(pattern: str, lang: str) -> list[tuple[str, float]]:
    items = [(p["name"], p["price"]) for p in site_apps.catalogue(lang, site_apps.PATTERNS[pattern])]
    if pattern == "filter":
        return sorted(i for i in items if RANGE[lang][1] <= i[1] <= RANGE[lang][2])
    if pattern == "sort":
        return sorted(items, key=lambda t: t[1])[:5]
    if pattern == "short":
        return sorted(items[: site_apps.PAGE_SIZE])  # it shows its first page and never more
    return sorted(items)


async def test_every_pattern_in_every_language(here, browser_path, site_url):
    tasks = [matrix_task(site_url, *cell) for cell in MATRIX]
    lines = {r["id"]: r for r in await here.batch(tasks, concurrency=2)}
    assert len(lines) == len(MATRIX)
    wrong = {}
    for pattern, markup, lang in MATRIX:
        line = lines[f"{pattern}/{markup}-{lang}"]
        got = [(p["name"], p["price"]) for p in (line.get("data") or {}).get("products", [])]
        got = got if pattern == "sort" else sorted(got)
        warned = any("were read" in w for w in line.get("warnings") or [])
        if got != matrix_answer(pattern, lang) or warned != (pattern == "short"):
            wrong[line["id"]] = (got[:3], len(got), line.get("warnings"), line.get("errors"))
    assert not wrong, wrong
