"""products_ceneo on the real Ceneo listing: exactly the 30 listing products, checked against TRUTH.json."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import products_ceneo
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import (
    assert_valid_output,
    open_offline,
    page_text,
    selectors,
    truth,
)

PAGE = "ceneo_search_canon.html"
SAVED_URL = "file:///snapshots/ceneo_search_canon.html"  # resolved through the page's canonical link


def extract(**params):
    return products_ceneo.extract(page_text(PAGE), SAVED_URL, selectors=selectors("products_ceneo"), **params)


def assert_matches_truth(products: list[dict]) -> None:
    expected = truth()[PAGE]["items"]
    assert len(products) == len(expected) == 30
    for i, (product, item) in enumerate(zip(products, expected, strict=True)):
        for key, value in item.items():
            assert product[key] == value, (i, key, product[key], value)


def test_listing_matches_truth_item_by_item():
    out = extract()
    assert out["layout"] == "list"
    assert_matches_truth(out["products"])
    assert_valid_output("products_ceneo", out)


def test_promoted_boxes_are_not_part_of_the_listing():
    names = {p["name"] for p in extract()["products"]}
    # The four "Polecane" boxes above the list (read off the page): promoted, not results.
    for promoted in (
        "Kivi 43U740NB",
        "PHILIPS 5400 LatteGo EP5441/50 czarny",
        "De'Longhi Magnifica Evo ECAM290.61.B",
        "De'Longhi Eletta Explore ECAM450.65.S",
    ):
        assert promoted not in names
    assert not any("redirect.ceneo.pl" in p["url"] for p in extract()["products"])


def test_extras_and_absolute_urls():
    first = extract()["products"][0]
    assert first["url"] == "https://www.ceneo.pl/95247987"
    assert first["id"] == "95247987"
    assert first["rating"] == 4.9 and first["reviews"] == 137 and first["offers"] == 21
    assert first["category"] == "Aparaty bezlusterkowe"
    assert first["image"].startswith("https://image.ceneostatic.pl/")
    # Lazy-loaded images keep the real address in data-original, not the placeholder in src.
    assert not any("pix-empty" in (p.get("image") or "") for p in extract()["products"])


def test_limit():
    out = extract(limit=5)
    assert [p["name"] for p in out["products"]] == [i["name"] for i in truth()[PAGE]["items"][:5]]
    with pytest.raises(ToolError):
        extract(limit=0)


def test_changed_markup_falls_back_to_the_generic_detector():
    broken = {"layouts": [{"name": "list", "item": "div.no-such-row", "fields": {"name": ".x"}}]}
    out = products_ceneo.extract(page_text(PAGE), SAVED_URL, selectors=broken)
    assert out["layout"] == "generic"
    assert [(p["name"], p["price"]) for p in out["products"]] == [
        (i["name"], i["price"]) for i in truth()[PAGE]["items"]
    ]


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage(PAGE))
    out = await on_page("extraction.products_ceneo")
    assert_matches_truth(out["products"])
    assert_valid_output("products_ceneo", out)


# --- the design's parameters: price bounds and a category ------------------------------------------


@pytest.mark.parametrize(
    "bounds", [{"max_price": 150}, {"min_price": 200, "max_price": 600}, {"min_price": 5000}]
)
def test_price_bounds(bounds):
    lo, hi = bounds.get("min_price", 0), bounds.get("max_price", float("inf"))
    expected = [i for i in truth()[PAGE]["items"] if lo <= i["price"] <= hi]
    out = extract(**bounds)
    assert_valid_output("products_ceneo", out)
    assert [(p["name"], p["price"]) for p in out["products"]] == [(i["name"], i["price"]) for i in expected]
    assert out["dropped"] == 30 - len(expected)


def test_category():
    everything = extract()["products"]
    printers = extract(category="drukarki")["products"]
    assert printers and [p["name"] for p in printers] == [
        p["name"] for p in everything if p["category"].lower().startswith("drukarki")
    ]
    # Every word begins a word of the row's category, case and accents aside.
    mfp = extract(category="urzadzenia wielofunkcyjne atram")["products"]
    assert {p["category"] for p in mfp} == {"Urządzenia wielofunkcyjne atramentowe"}
    both = extract(category="drukarki", max_price=600, limit=2)["products"]
    assert [p["name"] for p in both] == [p["name"] for p in printers if p["price"] <= 600][:2]
    assert extract(category="lodówki")["products"] == []


def test_category_of_a_category_page_without_categories_on_its_rows():
    # The older grid names no category per tile: the page's heading is every product's category.
    html = page_text("ceneo_pl_gitary_yamaha_grid.html")
    out = products_ceneo.extract(
        html, "https://www.ceneo.pl/x", selectors=selectors("products_ceneo"), category="gitary"
    )
    assert len(out["products"]) == 30
    out = products_ceneo.extract(
        html, "https://www.ceneo.pl/x", selectors=selectors("products_ceneo"), category="perkusje"
    )
    assert out["products"] == []
