"""forms.search_query in a real browser: the local shop, and real Bing/Ceneo/eBay/Wikipedia markup."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.forms.search_query import run
from tests.conftest import realpage
from tests.site_server import open_snapshot

PATH = manifests_dir() / "forms" / "search_query.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["search_query"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert MANIFEST.effects == "write" and MANIFEST.produces == ()
    assert load_callable(MANIFEST) is run


@pytest.mark.browser
async def test_shop_search_finds_the_product(page, site_url, on_page):
    await page.goto(site_url + "/?price_max=150")  # a price field is on the page too: not a search box
    report = checked(await on_page(MANIFEST.key, query="kubek"))
    assert report["field"] == {
        "tag": "input",
        "type": "search",
        "name": "q",
        "placeholder": "Szukaj produktów",
    }
    assert report["submitted"] and report["navigated"] and report["method"] == "button: Szukaj"
    assert page.url == site_url + "/?q=kubek"
    assert await page.locator(".product-list .product-card__name").all_inner_texts() == [
        "Kubek ceramiczny Poranek 350 ml"
    ]


@pytest.mark.browser
async def test_enter_submits_a_form_without_button(page, site_url, on_page):
    await page.goto(site_url + "/test/reddit.html")  # old-reddit search: a lone input, no button
    report = checked(await on_page(MANIFEST.key, query="maps"))
    assert report["method"] == "enter" and page.url.endswith("/test/reddit.html?q=maps")


@pytest.mark.browser
async def test_real_bing_textarea_q(page, on_page):
    await open_snapshot(
        page,
        realpage("bing_serp_microsoft_wikipedia.html"),
        "https://www.bing.com/search?q=Microsoft+wikipedia",
    )
    report = checked(await on_page(MANIFEST.key, query="curllm browser automation", submit=False))
    assert report["field"]["tag"] == "textarea" and report["field"]["name"] == "q"
    assert await page.input_value("textarea#sb_form_q") == "curllm browser automation"


@pytest.mark.browser
@pytest.mark.parametrize(
    ("snapshot", "url", "selector"),
    [
        ("ceneo_search_canon.html", "https://www.ceneo.pl/;szukaj-canon", "#form-head-search-q"),
        (
            "reddit_old_dataisbeautiful_top.html",
            "https://old.reddit.com/r/dataisbeautiful/top/",
            "#search input[name=q]",
        ),
        ("wikipedia_microsoft.html", None, "#searchInput"),
    ],
)
async def test_real_search_boxes(page, snapshot, url, selector, on_page):
    await open_snapshot(page, realpage(snapshot), url)
    checked(await on_page(MANIFEST.key, query="nikon z6", submit=False))
    assert await page.input_value(selector) == "nikon z6"


@pytest.mark.browser
async def test_no_search_box_is_a_clear_error(page, site_url, on_page):
    await page.goto(site_url + "/test/table.html")
    with pytest.raises(
        ToolError, match="no search box found on http://127.0.0.1:.*/test/table.html: looked for"
    ):
        await on_page(MANIFEST.key, query="ryzen")


@pytest.mark.browser
@pytest.mark.parametrize(("markup", "lang"), [("cssmod", "de"), ("utility", "pl")])
async def test_a_search_in_a_frame_waits_for_the_frames_slow_results(page, site_url, on_page, markup, lang):
    """A search form in a frame, submitted by its script a moment after the press, whose results the
    server streams slowly (a card every HOLD_MS): when the tool returns, the frame shows every result,
    read at once (the main page itself never navigated)."""
    import site_pagecontent as pages

    await page.goto(f"{site_url}/pc/search-frame-slow/{markup}-{lang}.html")
    report = checked(await on_page(MANIFEST.key, query="Luna"))
    assert (
        report["submitted"]
        and not report["navigated"]
        and page.url.endswith("-slow/" + f"{markup}-{lang}.html")
    )
    (frame,) = [f for f in page.frames if f != page.main_frame]
    assert frame.url.endswith(f"/pc/results-slow/{markup}-{lang}.html?q=Luna")
    names = await frame.evaluate(
        "() => [...document.querySelectorAll('main a')].map((a) => a.textContent.trim())"
    )
    assert names == [n for n, _ in pages.PRODUCTS[lang] if "Luna" in n]
