"""products_amazon on real Amazon pages: the search listing against TRUTH.json, both Best Sellers grids."""

from __future__ import annotations

import pytest

from curllm_core.prices import parse_price
from curllm_core.tools.extraction import products_amazon
from curllm_core.tools.extraction._html import parse_html, visible_text
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import (
    assert_valid_output,
    open_offline,
    page_text,
    selectors,
    truth,
)

SEARCH = "amazon_de_search_katzenfutter.html"
BEST_COM = "amazon_com_bestsellers_tools.html"
BEST_DE = "amazon_de_bestsellers_electronics.html"


def extract(name: str, url: str = "file:///snapshots/amazon.html", **params):
    return products_amazon.extract(page_text(name), url, selectors=selectors("products_amazon"), **params)


def assert_matches_truth(products: list[dict]) -> None:
    expected = truth()[SEARCH]["items"]
    assert len(products) == len(expected) == 60
    for i, (product, item) in enumerate(zip(products, expected, strict=True)):
        for key, value in item.items():  # name, price, currency, sponsored
            assert product[key] == value, (i, key, product[key], value)


def test_search_matches_truth_item_by_item():
    out = extract(SEARCH, "https://www.amazon.de/s?k=katzenfutter")
    assert out["layout"] == "search"
    assert_matches_truth(out["products"])
    assert_valid_output("products_amazon", out)


def test_search_sponsored_and_unpriced():
    products = extract(SEARCH, "https://www.amazon.de/s?k=katzenfutter")["products"]
    assert sum(p["sponsored"] for p in products) == 12
    unpriced = [p for p in products if p["price"] is None]
    assert [p["name"] for p in unpriced] == ["Whiskas Cat Food Dry Adult 1+ Various Varieties and Sizes"]
    assert all(p["url"].startswith("https://www.amazon.de/") for p in products)
    first = products[0]
    assert first["id"] == "B013JF5F0C" and first["list_price"] == 3.39 and first["rating"] == 4.7
    organic = extract(SEARCH, include_sponsored=False)["products"]
    assert len(organic) == 48 and not any(p["sponsored"] for p in organic)
    assert len(extract(SEARCH, limit=3, include_sponsored=False)["products"]) == 3


@pytest.mark.parametrize("name, currency", [(BEST_COM, "USD"), (BEST_DE, "EUR")])
def test_bestseller_grids(name, currency):
    out = extract(name)
    products = out["products"]
    assert out["layout"] == "bestsellers"
    # Read off the page independently: every grid cell's title block and price label.
    tree = parse_html(page_text(name))
    cells = tree.css("#gridItemRoot")
    names = [visible_text(c.css_first('[class*="p13n-sc-css-line-clamp"]')) for c in cells]
    prices = [parse_price(c.css_first('[class*="p13n-sc-price"]').text()).amount for c in cells]
    assert len(products) == len(cells) == 30
    assert [p["name"] for p in products] == names
    assert [p["price"] for p in products] == prices
    assert [p["rank"] for p in products] == list(range(1, 31))
    assert {p["currency"] for p in products} == {currency}
    assert not any(p["sponsored"] for p in products)
    assert all("/dp/" in p["url"] for p in products)
    assert_valid_output("products_amazon", out)


def test_bestseller_spot_checks():
    de = extract(BEST_DE)["products"]
    assert (de[0]["name"], de[0]["price"]) == (
        "Der neue Echo Dot (5. Generation, 2022) | Smarter Lautsprecher mit Alexa | Anthrazit",
        24.99,
    )
    assert de[0]["rating"] == 4.4 and de[0]["reviews"] == 558 and de[0]["id"] == "B09B8X9RGM"
    com = extract(BEST_COM)["products"]
    assert (com[-1]["rank"], com[-1]["price"]) == (30, 19.99)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/bestsellers", "https://shop.example.com/bestsellers"])
def test_a_bare_dollar_takes_the_currency_the_page_states(url):
    # Without a country domain, what the page states decides; here a price-currency meta tag.
    html = page_text(BEST_COM).replace("<head>", '<head><meta property="og:price:currency" content="CAD">', 1)
    out = products_amazon.extract(html, url, selectors=selectors("products_amazon"))
    assert len(out["products"]) == 30 and {p["currency"] for p in out["products"]} == {"CAD"}
    assert {p["currency"] for p in extract(BEST_COM, url)["products"]} == {"USD"}  # nothing stated


def test_price_bounds():
    everything = extract(SEARCH)["products"]
    kept = extract(SEARCH, max_price=10)["products"]
    assert kept and [p["name"] for p in kept] == [
        p["name"] for p in everything if p["price"] is not None and p["price"] <= 10
    ]
    both = extract(SEARCH, min_price=10, max_price=20, include_sponsored=False, limit=3)["products"]
    assert [p["name"] for p in both] == [
        p["name"]
        for p in everything
        if not p["sponsored"] and p["price"] is not None and 10 <= p["price"] <= 20
    ][:3]


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage(SEARCH))
    out = await on_page("extraction.products_amazon")
    assert_matches_truth(out["products"])
    assert_valid_output("products_amazon", out)
