"""forms.dropdown_select: option matching (unit), and selects in a real browser (local and real markup)."""

from __future__ import annotations

import re

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.forms.dropdown_select import option_score, run, sort_concept
from tests.conftest import realpage
from tests.site_server import open_snapshot

PATH = manifests_dir() / "forms" / "dropdown_select.json"
MANIFEST = load_manifest(PATH)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["dropdown_select"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert load_callable(MANIFEST) is run


@pytest.mark.parametrize(
    ("phrase", "concept"),
    [
        ("Cena: od najniższej", "price_asc"),
        ("Cena: od najwyższej", "price_desc"),
        ("Price: Low to High", "price_asc"),
        ("Price: High to Low", "price_desc"),
        ("price-desc-rank", "price_desc"),
        ("Preis aufsteigend", "price_asc"),
        ("cheapest first", "price_asc"),
        ("od najtańszych", "price_asc"),
        ("Najnowsze", "newest"),
        ("Newest Arrivals", "newest"),
        ("Trafność", "relevance"),
        ("Avg. Customer Review", "rating"),
        ("Radius", None),
    ],
)
def test_sort_concepts(phrase, concept):
    assert sort_concept(phrase) == concept


def test_option_matching_order():
    opt = {"text": "Cena: od najniższej", "value": "cena_rosnaco"}
    assert (
        option_score("Cena: od najniższej", opt)
        > option_score("cena: OD najnizszej", opt)
        > option_score("cena_rosnaco", opt)
        > option_score("najniższej", opt)
        > option_score("lowest price first", opt)
        > 0
    )
    assert option_score("Najnowsze", opt) == 0
    assert option_score("Cena: od najniższej", {**opt, "disabled": True}) == 0


@pytest.mark.browser
async def test_shop_sort_by_label_navigates_and_sorts(page, site_url, on_page):
    await page.goto(site_url + "/?price_max=150")
    report = checked(await on_page(MANIFEST.key, option="Cena: od najniższej"))
    assert report["selected"] == {"text": "Cena: od najniższej", "value": "cena_rosnaco"}
    assert report["navigated"] and report["changed"] and not report["submitted"]  # onchange submits by itself
    assert "sort=cena_rosnaco" in page.url and "price_max=150" in page.url  # the filter is kept
    prices = [
        float(re.sub(r"[^\d,]", "", t).replace(",", "."))
        for t in await page.locator(".product-list .price--current").all_text_contents()
    ]
    assert prices == sorted(prices) and prices[0] == 24.99


@pytest.mark.browser
async def test_shop_sort_by_meaning(page, site_url, on_page):
    await page.goto(site_url + "/")
    report = checked(await on_page(MANIFEST.key, option="highest price first", field="sortuj"))
    assert report["selected"]["value"] == "cena_malejaco" and "sort=cena_malejaco" in page.url


@pytest.mark.browser
async def test_select_without_onchange_presses_the_obvious_apply(page, site_url, on_page):
    await page.goto(site_url + "/test/en-shop.html")
    report = checked(await on_page(MANIFEST.key, option="price: high to low"))
    assert report["submitted"] and report["method"] == "button" and "sort=price_desc" in page.url
    assert (await page.locator("#products li").all_inner_texts())[0] == "Smart heated mug $49.99"


@pytest.mark.browser
async def test_submit_false_only_selects(page, site_url, on_page):
    await page.goto(site_url + "/test/en-shop.html")
    report = checked(await on_page(MANIFEST.key, option="price_asc", submit=False))
    assert not report["submitted"] and not report["navigated"]
    assert await page.input_value("#f-sort") == "price_asc" and page.url.endswith("en-shop.html")


@pytest.mark.browser
async def test_real_amazon_sort_select(page, on_page):
    await open_snapshot(
        page, realpage("amazon_de_search_katzenfutter.html"), "https://www.amazon.de/s?k=katzenfutter"
    )
    report = checked(await on_page(MANIFEST.key, option="price ascending"))
    assert report["field"]["id"] == "s-result-sort-select"
    assert report["selected"]["value"] == "price-asc-rank"
    assert await page.input_value("#s-result-sort-select") == "price-asc-rank"


@pytest.mark.browser
async def test_real_ebay_category_select_is_not_submitted(page, on_page):
    await open_snapshot(
        page, realpage("ebay_de_search_apple.html"), "https://www.ebay.de/sch/i.html?_nkw=apple"
    )
    report = checked(await on_page(MANIFEST.key, option="handys & kommunikation"))
    assert report["field"]["id"] == "gh-cat" and report["selected"]["text"] == "Handys & Kommunikation"
    # the select sits in the search form: submitting it would run a different search
    assert not report["submitted"] and await page.input_value("#gh-cat") == report["selected"]["value"]


@pytest.mark.browser
async def test_real_userbenchmark_selects(page, on_page):
    await open_snapshot(page, realpage("userbenchmark_cpu_table.html"), "https://cpu.userbenchmark.com/")
    report = checked(await on_page(MANIFEST.key, option="UK", field="currency"))
    assert report["selected"]["value"] == "uk" and await page.input_value("select.prcloc-sel") == "uk"
    # a select hidden behind a select2 widget is still set (the widget reads it)
    report = checked(await on_page(MANIFEST.key, option="Best value for money"))
    assert (
        report["selected"]["value"] == "MC_VALUE" and await page.input_value("#mh-td-chooser") == "MC_VALUE"
    )


@pytest.mark.browser
async def test_unknown_option_lists_what_there_is(page, site_url, on_page):
    await page.goto(site_url + "/")
    with pytest.raises(
        ToolError, match=r"no option 'Ocena klientów' in a select on .*Sortuj według: 'Trafność'"
    ):
        await on_page(MANIFEST.key, option="Ocena klientów")
    with pytest.raises(ToolError, match="matching field 'kolor'"):
        await on_page(MANIFEST.key, option="Najnowsze", field="kolor")
