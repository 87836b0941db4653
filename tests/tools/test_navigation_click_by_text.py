"""navigation.click_by_text: text matching (unit), and clicks that navigate or change the page."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.navigation.click_by_text import run
from curllm_core.tools.page_helpers import text_match

PATH = manifests_dir() / "navigation" / "click_by_text.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["click_by_text"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert load_callable(MANIFEST) is run


def test_text_match_tiers():
    assert text_match("Pokaż więcej", "Pokaż więcej") == (3, "exact")
    assert text_match("pokaz  WIĘCEJ", "Pokaż więcej") == (2, "normalized")
    assert text_match("Elektronika", "Elektronika (10)") == (2, "normalized")
    assert text_match("więcej", "Pokaż więcej") == (1, "contains")
    assert text_match("mniej", "Pokaż więcej") == (0, "")


@pytest.mark.browser
async def test_load_more_button_loads_more(page, site_url, curllm_run_tool):
    await page.goto(site_url + "/nowosci")
    assert await page.locator(".product-card").count() == 8
    events: list[dict] = []
    params = {"text": "Pokaż więcej"}
    report = checked(await curllm_run_tool(MANIFEST.key, page=page, params=params, on_event=events.append))
    assert events == []  # the page changed in place: no page was visited
    assert report["clicked"] == {"tag": "button", "text": "Pokaż więcej"}
    assert report["match"] == "exact" and report["dom_changed"] and not report["navigated"]
    assert await page.locator(".product-card").count() == 16  # waited for the fetch and the new cards


@pytest.mark.browser
async def test_link_click_waits_for_the_navigation(page, site_url, curllm_run_tool):
    await page.goto(site_url + "/test/hn.html")
    events: list[dict] = []
    params = {"text": "More"}
    report = checked(await curllm_run_tool(MANIFEST.key, page=page, params=params, on_event=events.append))
    assert report["navigated"] and page.url == site_url + "/test/hn-2.html"
    # The page the click opened is reported like every page the run visits.
    assert [e["type"] for e in events] == ["url_start", "url_complete"]
    assert events[0]["data"]["url"] == events[1]["data"]["url"] == page.url
    assert events[1]["data"]["status"] == "completed" and events[1]["data"]["title"] == await page.title()
    assert await page.locator("tr.athing").count() == 3


@pytest.mark.browser
async def test_exact_then_normalized_then_contains(page, site_url, on_page):
    await page.goto(site_url + "/test/buttons.html")
    assert (
        checked(await on_page(MANIFEST.key, text="Zapisz"))["clicked"]["text"] == "Zapisz"
    )  # not "Zapisz zmiany"
    report = checked(await on_page(MANIFEST.key, text="zapisz  ZMIANY"))
    assert report["match"] == "normalized" and report["clicked"]["text"] == "Zapisz zmiany"
    report = checked(await on_page(MANIFEST.key, text="szczegóły"))
    assert report["match"] == "contains" and report["clicked"]["tag"] == "span"  # role=button
    assert await page.locator("#log li").all_inner_texts() == ["save", "save-all", "details"]
    report = checked(await on_page(MANIFEST.key, text="Więcej opcji"))
    assert report["clicked"]["tag"] == "summary" and await page.locator("details[open]").count() == 1
    report = checked(await on_page(MANIFEST.key, text="Wyślij"))
    assert report["clicked"]["tag"] == "input" and report["navigated"] and page.url.endswith("?sent=1")


@pytest.mark.browser
async def test_hidden_or_missing_text_is_a_clear_error(page, site_url, on_page):
    await page.goto(site_url + "/test/buttons.html")
    with pytest.raises(
        ToolError, match="nothing visible and clickable shows the text 'Usuń konto'.*1 hidden"
    ):
        await on_page(MANIFEST.key, text="Usuń konto")
    with pytest.raises(ToolError, match="nothing visible and clickable shows the text 'Zamów'"):
        await on_page(MANIFEST.key, text="Zamów")
    assert await page.locator("#log li").count() == 0
