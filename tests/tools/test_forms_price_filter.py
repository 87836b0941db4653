"""forms.price_filter in a real browser: the local shops (PL/EN/DE) and real Ceneo/Amazon/eBay markup."""

from __future__ import annotations

import re

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.forms.price_filter import run
from tests.conftest import realpage
from tests.site_server import open_snapshot

PATH = manifests_dir() / "forms" / "price_filter.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    """The output, after checking it against the manifest's output_schema."""
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["price_filter"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert MANIFEST.key == "forms.price_filter" and MANIFEST.effects == "write"
    assert load_callable(MANIFEST) is run
    params = Draft202012Validator(MANIFEST.parameters)
    assert not params.is_valid({}) and not params.is_valid({"min": None, "max": None})
    assert params.is_valid({"max": 150}) and params.is_valid({"min": 10, "max": None, "submit": False})


@pytest.mark.browser
async def test_shop_under_150_lists_only_cheaper_products(page, site_url, on_page):
    await page.goto(site_url + "/")
    report = checked(await on_page(MANIFEST.key, max=150))
    assert report["filled"] == {"min": None, "max": "150"}
    assert report["fields"]["max"]["label"] == "Cena do"
    assert report["submitted"] and report["navigated"] and report["method"] == "button: Filtruj"
    assert "price_max=150" in page.url
    prices = [
        float(re.sub(r"[^\d,]", "", t).replace(",", "."))
        for t in await page.locator(".product-list .price--current").all_text_contents()
    ]
    assert len(prices) == 8 and max(prices) <= 150
    assert "Znaleziono 12 produktów" in await page.locator(".listing__count").inner_text()


@pytest.mark.browser
async def test_english_price_from_to_with_apply(page, site_url, on_page):
    await page.goto(site_url + "/test/en-shop.html")
    report = checked(await on_page(MANIFEST.key, min=10, max=30))
    assert report["filled"] == {"min": "10", "max": "30"}
    assert report["method"] == "button: Apply"
    assert await page.locator("#products li").all_inner_texts() == [
        "Classic mug $12.99",
        "Travel mug $19.00",
        "Thermo mug $24.95",
    ]


@pytest.mark.browser
async def test_german_nearby_text_and_enter(page, site_url, on_page):
    await page.goto(site_url + "/test/de-shop.html")
    report = checked(await on_page(MANIFEST.key, min=10, max=25.5))
    assert report["fields"]["min"]["name"] == "preis_von" and report["fields"]["max"]["name"] == "preis_bis"
    assert report["filled"]["max"] == "25,5"  # a German page's text field gets a decimal comma
    assert report["method"] == "enter" and report["navigated"]
    assert await page.locator("#products .product a").all_inner_texts() == ["Kaffeetasse", "Thermobecher"]


@pytest.mark.browser
async def test_fill_without_submitting(page, site_url, on_page):
    await page.goto(site_url + "/")
    report = checked(await on_page(MANIFEST.key, min=50, submit=False))
    assert report["submitted"] is False and report["method"] is None
    assert await page.input_value("#price_min") == "50" and page.url == site_url + "/"


@pytest.mark.browser
async def test_real_ceneo_price_min_max(page, on_page):
    await open_snapshot(page, realpage("ceneo_search_canon.html"), "https://www.ceneo.pl/;szukaj-canon")
    report = checked(await on_page(MANIFEST.key, min=100, max=500, submit=False))
    assert report["fields"]["min"]["name"] == "price-min" and report["fields"]["max"]["name"] == "price-max"
    assert await page.input_value("input[name=price-min]") == "100"
    assert await page.input_value("input[name=price-max]") == "500"
    assert await page.input_value("#form-head-search-q") == "canon"  # the search box is left alone


@pytest.mark.browser
async def test_real_amazon_low_high_price(page, on_page):
    await open_snapshot(
        page, realpage("amazon_de_search_katzenfutter.html"), "https://www.amazon.de/s?k=katzenfutter"
    )
    report = checked(await on_page(MANIFEST.key, min=5, max=20, submit=False))
    assert report["fields"]["min"]["id"] == "low-price" and report["fields"]["max"]["id"] == "high-price"
    assert await page.input_value("#low-price") == "5" and await page.input_value("#high-price") == "20"


@pytest.mark.browser
async def test_real_ebay_aria_labelled_range(page, on_page):
    await open_snapshot(
        page, realpage("ebay_de_search_apple.html"), "https://www.ebay.de/sch/i.html?_nkw=apple"
    )
    checked(await on_page(MANIFEST.key, max=500, submit=False))
    assert await page.input_value("[aria-label='Höchstwert in EUR']") == "500"
    assert await page.input_value("[aria-label='Mindestwert in EUR']") == ""


@pytest.mark.browser
async def test_no_price_field_is_a_clear_error(page, site_url, on_page):
    await page.goto(site_url + "/test/dates-pl.html")  # "Data od/do": od/do, but no price
    with pytest.raises(
        ToolError,
        match=r"no price filter field found on http://127\.0\.0\.1:\d+/test/dates-pl\.html"
        r": looked for max fields",
    ):
        await on_page(MANIFEST.key, max=150)


@pytest.mark.browser
async def test_bad_range_is_refused(page, site_url, on_page):
    await page.goto(site_url + "/")
    with pytest.raises(ToolError, match="greater than max"):
        await on_page(MANIFEST.key, min=200, max=100)
