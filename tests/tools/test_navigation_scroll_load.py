"""navigation.scroll_load in a real browser: stops early on an ending feed, at its bound on an endless one."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.navigation.scroll_load import run

PATH = manifests_dir() / "navigation" / "scroll_load.json"
MANIFEST = load_manifest(PATH)
WAIT_MS = 1500  # generous: a loaded CI machine delays the pages' timers


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["scroll_load"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert load_callable(MANIFEST) is run


@pytest.mark.browser
async def test_feed_that_ends_stops_early(page, site_url, on_page):
    await page.goto(site_url + "/test/scroll-ending.html?loads=3")
    report = checked(await on_page(MANIFEST.key, times=10, wait_ms=WAIT_MS))
    # three loads, then one scroll that brings nothing
    assert report == {**report, "scrolls": 4, "loads": 3, "stopped": "no_new_content"}
    assert await page.locator(".item").count() == 40
    assert report["height_after"] > report["height_before"]


@pytest.mark.browser
async def test_endless_feed_stops_at_the_bound(page, site_url, on_page):
    await page.goto(site_url + "/test/scroll-endless.html")
    report = checked(await on_page(MANIFEST.key, times=3, wait_ms=WAIT_MS))
    assert report == {**report, "scrolls": 3, "loads": 3, "stopped": "times"}
    assert await page.locator(".item").count() == 40


@pytest.mark.browser
async def test_shop_infinite_scroll_loads_the_whole_catalogue(page, site_url, on_page):
    await page.goto(site_url + "/inspiracje")
    assert await page.locator(".product-card").count() == 8
    report = checked(await on_page(MANIFEST.key, times=10, wait_ms=WAIT_MS))
    assert report["loads"] == 2 and report["stopped"] == "no_new_content"
    assert await page.locator(".product-card").count() == 24
    assert await page.inner_text("#feed-status") == "To już wszystko"


@pytest.mark.browser
async def test_page_that_does_not_scroll(page, site_url, on_page):
    await page.goto(site_url + "/test/buttons.html")
    report = checked(await on_page(MANIFEST.key, times=5, wait_ms=300))
    assert report["scrolls"] == 1 and report["stopped"] == "no_new_content" and report["elements_added"] == 0
