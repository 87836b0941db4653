"""Map steps on the local shop, in a real browser: each product's own page read and merged, with
concurrency, partial failures (a 404 page, an unknown dynamic tool, a refused URL), dynamic tool
names, max_items, merge and collect, the map's and the task's time limits (pages closed)."""

from __future__ import annotations

import asyncio

import pytest

from curllm_core.events import EventBus, events_schema
from curllm_core.executor import RunOptions, execute
from curllm_core.plan import check_plan
from curllm_core.plugins import load_registry
from curllm_core.policy import NetworkPolicy
from curllm_core.tool import tool

pytestmark = pytest.mark.browser

ACTIVE = {"now": 0, "max": 0}
SESSIONS: list = []


@tool(category="extraction", produces=["note"], dependencies=["page"], timeout_ms=5000)
async def page_note(ctx, label: str = "", wait_s: float = 0.2) -> dict:
    """The item page's heading and a label, after a short wait; counts how many run at once."""
    ACTIVE["now"] += 1
    ACTIVE["max"] = max(ACTIVE["max"], ACTIVE["now"])
    try:
        await asyncio.sleep(wait_s)
        return {"note": {"heading": await ctx.page.inner_text("h1"), "label": label}}
    finally:
        ACTIVE["now"] -= 1


@tool(category="extraction", produces=["note"], dependencies=["page"], timeout_ms=60000)
async def stalls(ctx) -> dict:
    """Never finishes in time; remembers its session so the test can see its pages closed."""
    SESSIONS.append(ctx.browser)
    await asyncio.sleep(60)
    return {"note": {}}


@tool(category="validation", produces=["pages"], dependencies=["page"])
async def open_pages(ctx) -> dict:
    """How many pages the task's browser context has open."""
    return {"pages": {"open": len(ctx.browser.context.pages), "own": len(ctx.browser.own_pages)}}


@pytest.fixture(scope="module")
def registry():
    r = load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False)
    for t in (page_note, stalls, open_pages):
        r.register(t, source="test")
    return r


@pytest.fixture(scope="module")
def browser(curllm_browser):
    """The session's browser (`curllm_browser`: one Chromium for every module)."""
    return curllm_browser


@pytest.fixture(scope="module")
def catalog():
    from site_server import load_shop

    return {p["id"]: p for p in load_shop().catalog()["products"]}


async def run(doc, registry, browser, url, *, events=None, data=None, **options):
    bus = EventBus([events.append]) if events is not None else EventBus()
    opts = RunOptions(url=url, data=data or {}, backoff_s=0.01, **options)
    plan = check_plan(doc, registry, initial_keys=set(opts.data))
    return await execute(plan, registry, opts, events=bus, browser=browser)


def detail_map(**extra) -> dict:
    return {
        "map": {
            "over": "products",
            "as": "item",
            "open": "{item.url}",
            "concurrency": 4,
            "steps": [{"tool": "extraction.product_detail", "parameters": {}}],
            "merge": True,
            **extra,
        }
    }


async def test_each_product_of_a_listing_gains_its_own_pages_details(registry, browser, site_url, catalog):
    events: list = []
    doc = {
        "plan": [{"tool": "extraction.products_generic", "parameters": {"max_price": 150}}, detail_map()],
        "expected_output": "products",
    }
    result = await run(doc, registry, browser, f"{site_url}/?price_max=150", events=events)
    assert result.ok, result.errors
    # The plan reads the listing's first page only: the page's own count says what may be missing,
    # and its next-page link where the rest is.
    assert result.warnings == [
        "extraction.products_generic: the page states 12 items and 8 were read: the result may miss 4 of them;"
        ' the page links its next page: ask for more pages (e.g. "from the first 5 pages", "ze wszystkich'
        ' stron", "von allen Seiten") to read them'
    ]
    products = result.data["products"]
    truth = {p["id"]: p for p in catalog.values() if p["price"] <= 150}
    listed = [p for p in truth.values() if p["id"] in {u["url"].rsplit("/", 1)[-1] for u in products}]
    assert len(products) == len(listed) == 8  # the first page of the listing
    for product in products:
        p = catalog[product["url"].rsplit("/", 1)[-1]]
        assert product["name"] == p["name"] and product["price"] == p["price"]
        assert product["availability"] == ("InStock" if p["in_stock"] else "OutOfStock")
        assert product["sku"] == p["sku"] and product["brand"] == p["brand"]
        assert product["description"] == p["description"]
    report = result.steps[-1].result["map"]
    assert (report["items"], report["run"], report["succeeded"], report["failed"]) == (8, 8, 8, 0)
    assert [o["index"] for o in report["outcomes"]] == list(range(8))
    # Every item page reported, every event as the published schema says.
    opened = [e["data"]["url"] for e in events if e["type"] == "url_complete"][1:]
    assert sorted(opened) == sorted(p["url"] for p in products)
    items = [e for e in events if e["type"] == "step" and "map_item" in e["data"]["extracted_data"]]
    assert sorted(e["data"]["extracted_data"]["map_item"]["index"] for e in items) == list(range(8))
    assert all(e["data"]["status"] == "completed" and e["data"]["plan_index"] == 2 for e in items)
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(events_schema())
    assert [list(validator.iter_errors(e)) for e in events] == [[] for _ in events]


async def test_concurrency_bounds_the_items_running_at_once(registry, browser, site_url):
    items = [{"url": f"/produkt/p{i:02d}"} for i in range(1, 7)]
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "concurrency": 2,
                    "steps": [{"tool": "page_note", "parameters": {"label": "#{index}", "wait_s": 0.3}}],
                    "merge": True,
                }
            }
        ],
        "expected_output": "products",
    }
    ACTIVE.update(now=0, max=0)
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items})
    assert result.ok, result.errors
    assert ACTIVE["max"] == 2
    assert [p["label"] for p in result.data["products"]] == [f"#{i}" for i in range(6)]
    assert all(p["heading"] for p in result.data["products"])


async def test_failures_fail_their_items_only_and_the_result_says_so(registry, browser, site_url):
    items = [
        {"url": "/produkt/p02", "tool": "extraction.product_detail"},
        {"url": "/produkt/p99", "tool": "extraction.product_detail"},  # 404
        {"url": "/produkt/p03", "tool": "extraction.no_such_tool"},
        {"url": "/produkt/p04", "tool": "page_note"},
        {"name": "no url", "tool": "page_note"},
    ]
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "steps": [{"tool": "{item.tool}"}],
                    "collect": "details",
                }
            }
        ],
        "expected_output": "details",
    }
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items})
    assert result.ok, result.errors  # some items worked: the step did, with a warning
    outcomes = result.data["details"]
    assert [o["index"] for o in outcomes] == [0, 1, 2, 3, 4]
    assert [set(o) >= {"index", "tool", "success", "result", "error"} for o in outcomes] == [True] * 5
    assert [o["success"] for o in outcomes] == [True, False, False, True, False]
    assert outcomes[0]["result"]["product"]["sku"] == "SD-0002-SOU"
    assert outcomes[1]["code"] == "HTTP_ERROR" and "404" in outcomes[1]["error"]
    assert outcomes[2]["error"] == "Unknown tool: extraction.no_such_tool"
    assert outcomes[2]["tool"] == "extraction.no_such_tool"
    assert outcomes[3]["tool"] == "extraction.page_note" and outcomes[3]["result"]["note"]["heading"]
    assert "has no field 'url'" in outcomes[4]["error"]
    assert result.data["products"] == items  # merge is off: the list is as it was
    [warning] = result.warnings
    assert "3 of 5 items failed" in warning and "Unknown tool: extraction.no_such_tool" in warning
    assert result.steps[-1].result["map"]["failed"] == 3


async def test_every_item_failing_fails_the_step(registry, browser, site_url):
    doc = {"plan": [detail_map()], "expected_output": "products"}
    items = [{"url": "/produkt/p98"}, {"url": "/produkt/p99"}]
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items})
    assert not result.ok
    assert result.errors[0]["code"] == "MAP_FAILED" and "all 2 items failed" in result.errors[0]["message"]
    assert result.steps[-1].result["map"]["failed"] == 2


async def test_max_items_runs_the_first_and_warns_about_the_rest(registry, browser, site_url):
    items = [{"url": f"/produkt/p0{i}", "name": f"n{i}"} for i in (2, 3, 5)]
    doc = {"plan": [detail_map(max_items=2)], "expected_output": "products"}
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items})
    assert result.ok
    products = result.data["products"]
    assert [p["name"] for p in products] == ["n2", "n3", "n5"]  # the item's own values stay
    assert products[0]["sku"] == "SD-0002-SOU" and products[1]["sku"] == "SD-0003-POR"
    assert products[2] == items[2]
    assert result.warnings == ["step 1 (map over products): max_items=2: 1 of 3 items were not run"]


async def test_an_item_url_the_network_policy_refuses_fails_that_item(registry, browser, site_url):
    items = [{"url": "/produkt/p02"}, {"url": "http://blocked.example/produkt/p03"}]
    doc = {"plan": [detail_map()], "expected_output": "products"}
    policy = NetworkPolicy(block=("blocked.example",))
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items}, policy=policy)
    assert result.ok
    ok, refused = result.steps[-1].result["map"]["outcomes"]
    assert ok["success"] and ok["result"]["product"]["sku"] == "SD-0002-SOU"
    assert not refused["success"] and refused["code"] == "BLOCKED_URL"
    assert result.data["products"][1] == items[1]
    assert "1 of 2 items failed" in result.warnings[0]


async def test_the_maps_time_limit_stops_its_items_and_closes_their_pages(registry, browser, site_url):
    items = [{"url": "/produkt/p02", "tool": "page_note"}, {"url": "/produkt/p03", "tool": "stalls"}]
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "steps": [{"tool": "{item.tool}", "parameters": {}}],
                    "merge": True,
                },
                "timeout_ms": 3000,
                "optional": True,
            },
            {"tool": "open_pages"},
        ],
        "expected_output": "products",
    }
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items})
    step = result.steps[0]
    assert not step.success and step.code == "STEP_TIMEOUT"
    done, stopped = step.result["map"]["outcomes"]
    assert done["success"] and not stopped["success"] and stopped["code"] == "STEP_TIMEOUT"
    assert result.data["products"][0]["heading"]  # the item done is kept
    assert result.data["pages"] == {"open": 1, "own": 0}  # the task's page only


async def test_the_tasks_time_limit_closes_the_item_pages_and_keeps_what_was_done(
    registry, browser, site_url
):
    SESSIONS.clear()
    items = [{"url": "/produkt/p02", "tool": "page_note"}, {"url": "/produkt/p03", "tool": "stalls"}]
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "steps": [{"tool": "{item.tool}"}],
                    "merge": True,
                }
            }
        ],
        "expected_output": "products",
    }
    result = await run(doc, registry, browser, f"{site_url}/", data={"products": items}, timeout_s=3)
    assert not result.ok and result.errors[-1]["code"] == "TASK_TIMEOUT"
    assert result.data["products"][0]["heading"] and "heading" not in result.data["products"][1]
    [session] = SESSIONS
    assert session.own_pages == set()


@pytest.fixture(scope="module")
def hostile():
    from hostile_server import start_hostile

    server = start_hostile()
    yield server
    server.stop()


async def test_an_item_page_redirecting_to_a_refused_host_never_reaches_it(registry, browser, hostile):
    from urllib.parse import quote

    before = len(hostile.requests_to("localhost"))
    to = quote(f"http://localhost:{hostile.port}/x", safe="")
    items = [{"url": f"{hostile.url}/ok"}, {"url": f"{hostile.url}/redirect?to={to}"}]
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "steps": [{"tool": "page_note", "parameters": {"wait_s": 0}}],
                    "collect": "notes",
                }
            }
        ],
        "expected_output": "notes",
    }
    policy = NetworkPolicy(block=("localhost",))
    result = await run(doc, registry, browser, f"{hostile.url}/ok", data={"products": items}, policy=policy)
    fine, refused = result.data["notes"]
    assert fine["success"] and not refused["success"] and refused["code"] == "BLOCKED_URL", refused
    assert len(hostile.requests_to("localhost")) == before, "a refused host received a request"
