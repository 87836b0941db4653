"""navigation.category_select in a real browser: a tree of links, and a collapsed tree that opens in place."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.navigation.category_select import run

PATH = manifests_dir() / "navigation" / "category_select.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["category_select"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert load_callable(MANIFEST) is run


@pytest.mark.browser
async def test_shop_tree_elektronika_laptopy(page, site_url, on_page):
    await page.goto(site_url + "/")
    report = checked(await on_page(MANIFEST.key, path=["Elektronika", "Laptopy"]))
    assert [c["text"] for c in report["clicked"]] == ["Elektronika", "Laptopy"]
    assert all(c["navigated"] for c in report["clicked"])
    assert page.url == site_url + "/kategoria/laptopy"
    names = await page.locator(".product-list .product-card__name").all_inner_texts()
    assert len(names) == 3 and all(n.startswith("Laptop ") for n in names)


@pytest.mark.browser
async def test_case_and_accents_do_not_matter(page, site_url, on_page):
    await page.goto(site_url + "/")
    report = checked(await on_page(MANIFEST.key, path=["dom", " OGROD "]))
    assert report["clicked"][1]["text"] == "Ogród" and page.url.endswith("/kategoria/ogrod")


@pytest.mark.browser
async def test_collapsed_tree_opens_in_place(page, site_url, on_page):
    await page.goto(site_url + "/test/menu.html")
    report = checked(await on_page(MANIFEST.key, path=["Elektronika", "Laptopy"]))
    first, second = report["clicked"]
    assert first["tag"] == "summary" and not first["navigated"]
    # the tree's "Laptopy", not the promo link "Laptopy do 3000 zł" that was visible all along
    assert second["text"] == "Laptopy" and second["match"] == "exact"
    assert page.url == site_url + "/kategoria/laptopy"


@pytest.mark.browser
async def test_unknown_category_is_a_clear_error(page, site_url, on_page):
    await page.goto(site_url + "/")
    with pytest.raises(
        ToolError, match=r"category 'Tablety' \(level 2 of \['Elektronika', 'Tablety'\]\) not found"
    ):
        await on_page(MANIFEST.key, path=["Elektronika", "Tablety"])
