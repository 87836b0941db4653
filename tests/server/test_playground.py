"""The playground page at / in a real Chromium: type, click, watch the steps arrive, read the rows."""

from __future__ import annotations

import csv
import io
import json

import httpx
import pytest
from conftest import start_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(server_tmp, browser_path):
    running = start_server(server_tmp)
    yield running
    running.stop()


async def test_a_task_from_the_page(server, site_url, page, tmp_path):
    expected = httpx.post(
        server.url + "/api/scrape",
        json={"instruction": "find products under 150zł", "url": f"{site_url}/"},
        timeout=60,
    ).json()["data"]["products"]

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    await page.goto(server.url + "/")
    await page.fill("#instruction", "find products under 150zł")
    await page.fill("#url", f"{site_url}/")
    await page.click("#run")

    # Steps arrive one by one while the task runs, then the rows.
    await page.wait_for_selector("#events li[data-type='step']")
    await page.wait_for_selector("#events li[data-type='complete']", timeout=60000)
    steps = await page.locator("#events li").all_inner_texts()
    assert any("price_range_check" in s for s in steps) and any("opened" in s for s in steps)
    assert await page.locator("#run").is_enabled()

    rows = page.locator("#results table tbody tr")
    assert await rows.count() == len(expected)
    headers = await page.locator("#results table thead th").all_inner_texts()
    assert headers[:2] == ["name", "price"]
    names = await page.locator("#results table tbody tr td:first-child").all_inner_texts()
    assert names == [p["name"] for p in expected]
    assert (await page.locator("#count").inner_text()) == f"{len(expected)} products"

    # The plan that ran, and the JSON view.
    plan_text = await page.locator("#plan-body").inner_text()
    assert "extraction" in plan_text or "navigation.pagination" in plan_text
    assert "validation.price_range_check" in plan_text
    await page.click("#show-json")
    shown = json.loads(await page.locator("#json").inner_text())
    assert shown["ok"] and [p["name"] for p in shown["data"]["products"]] == names
    assert await page.locator("#results").is_hidden()

    # Downloads: CSV of the rows, JSON of the whole result.
    async with page.expect_download() as info:
        await page.click("#download-csv")
    path = tmp_path / "out.csv"
    await (await info.value).save_as(path)
    table = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert [r["name"] for r in table] == names and float(table[0]["price"]) == expected[0]["price"]
    async with page.expect_download() as info:
        await page.click("#download-json")
    await (await info.value).save_as(tmp_path / "out.json")
    assert (
        json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["data"]["products"]
        == shown["data"]["products"]
    )

    # Nothing came from anywhere but the server itself (no CDN).
    assert all(u.startswith(server.url) or u.startswith("blob:") for u in requests), requests


async def test_tables_render_as_tables_and_errors_show(server, site_url, page):
    await page.goto(server.url + "/")
    await page.fill("#instruction", "extract the table")
    await page.fill("#url", f"{site_url}/test/table.html")
    await page.click("#run")
    await page.wait_for_selector("#events li[data-type='complete']", timeout=60000)
    expected = httpx.post(
        server.url + "/api/scrape",
        json={"instruction": "extract the table", "url": f"{site_url}/test/table.html"},
        timeout=60,
    ).json()["data"]["tables"]
    tables = page.locator("#results table")
    assert await tables.count() == len(expected) >= 1  # one HTML table per table found
    assert await tables.first.locator("thead th").all_inner_texts() == expected[0]["headers"]
    assert await tables.first.locator("tbody tr").count() == len(expected[0]["rows"])
    assert (await page.locator("#count").inner_text()) == f"{len(expected)} table(s)"

    # A request the server refuses: its code and message on the page.
    await page.fill("#url", "file:///etc/hostname")
    await page.click("#run")
    # A selector, not a predicate: the page's CSP lets no string be evaluated as script in it.
    await page.locator("#status", has_text="BAD_URL").wait_for()
    assert "bad" in (await page.locator("#status").get_attribute("class"))


async def test_the_page_runs_only_its_own_script_in_no_frame_and_its_csv_runs_no_formula(server, page):
    r = httpx.get(server.url + "/", timeout=30)
    csp = r.headers["content-security-policy"]
    assert "script-src 'sha256-" in csp and "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert r.headers["x-frame-options"] == "DENY"
    await page.goto(server.url + "/")  # the page works under its policy (the tests above use it)
    text = await page.evaluate(
        """() => { last = {ok: true, data: {products: [
            {name: "=HYPERLINK(\\"http://x.example\\")", note: "+1", by: "@me", price: -5, plain: "Lamp"}]}};
            return csvText(); }"""
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][:3] == ['\'=HYPERLINK("http://x.example")', "'+1", "'@me"], rows
    assert rows[1][3:] == ["-5", "Lamp"], rows  # numbers and plain text stay as they are
