"""extraction.products_allegro on a hand-written page in allegro.pl's markup: pure and in a browser."""

from __future__ import annotations

import json

import pytest
from conftest import LISTING, LISTING_URL
from curllm_core.errors import PlanError, ToolError

from curllm_allegro.plugin import MANIFESTS
from curllm_allegro.products import extract, offer_id, offer_url, page_base

SELECTORS = json.loads((MANIFESTS / "extraction" / "products_allegro.json").read_text(encoding="utf-8"))[
    "selectors"
]


def listing() -> dict:
    return extract(LISTING.read_text(encoding="utf-8"), LISTING_URL, SELECTORS)


def by_id(products: list[dict]) -> dict[str, dict]:
    return {p["offer_id"]: p for p in products}


def test_every_offer_of_the_listing_once_in_page_order():
    products = listing()["products"]
    # 8 offer cards: the Redmi offer appears twice (regular, then sponsored), the promo banner and
    # the recommendation below the listing are no offers.
    assert [p["offer_id"] for p in products] == [
        "13371337001",
        "13371337002",
        "13371337003",
        "13371337004",
        "13371337005",
        "13371337006",
        "13371337007",
    ]
    assert all(p["currency"] == "PLN" for p in products)
    assert "Etui na słuchawki AirPods silikonowe" not in {p["name"] for p in products}


def test_prices_are_the_current_price_not_the_old_or_delivery_one():
    offers = by_id(listing()["products"])
    sony = offers["13371337002"]
    assert (sony["price"], sony["old_price"], sony["price_with_delivery"]) == (1299.0, 1599.0, 1299.0)
    tws = offers["13371337004"]
    assert (tws["price"], tws["price_with_delivery"]) == (24.5, 38.49)
    assert offers["13371337007"]["price"] == 4999.0  # "4&nbsp;999,<span>00</span>"
    airpods = offers["13371337005"]
    assert (airpods["price"], airpods["price_from"]) == (949.0, True)  # "od 949,00 zł"


def test_sponsored_links_are_unwrapped_to_the_offer():
    jbl = listing()["products"][0]
    assert jbl["sponsored"] is True
    assert jbl["url"] == "https://allegro.pl/oferta/sluchawki-bezprzewodowe-jbl-tune-520bt-czarne-13371337001"
    assert jbl["name"] == "Słuchawki bezprzewodowe JBL Tune 520BT czarne"


def test_card_details():
    offers = by_id(listing()["products"])
    jbl = offers["13371337001"]
    assert jbl | {"attributes": None} == jbl | {
        "smart": True,
        "super_seller": True,
        "company": False,
        "rating": 4.86,
        "ratings": 2345,
        "bought_recently": 1234,
        "condition": "Nowy",
        "delivery": "dostawa jutro",
        "attributes": None,
        "image": "https://a.allegroimg.com/s360/11ab2c/jbl-tune-520bt.jpg",
    }
    assert jbl["attributes"] == {"Stan": "Nowy", "Kolor": "czarny", "Łączność": "bezprzewodowa"}
    redmi = offers["13371337003"]
    assert redmi["image"].endswith("redmi-buds-4-lite.jpg")  # data-src, not the lazy-load placeholder
    assert (redmi["ratings"], redmi["bought_recently"], redmi["sponsored"]) == (10412, 5678, False)
    used = offers["13371337006"]
    assert (used["condition"], used["smart"], used["rating"]) == ("Używany", False, None)
    assert offers["13371337007"]["name"] == "Słuchawki Bang & Olufsen Beoplay H95 Gold Tone"
    assert offers["13371337007"]["company"] is True


def test_without_sponsored_and_limit():
    products = extract(LISTING.read_text(encoding="utf-8"), LISTING_URL, SELECTORS, include_sponsored=False)[
        "products"
    ]
    assert not any(p["sponsored"] for p in products)
    # The Redmi offer's regular card stays; only the JBL offer was sponsored-only.
    assert [p["offer_id"] for p in products][:2] == ["13371337002", "13371337003"]
    assert len(extract(LISTING.read_text(encoding="utf-8"), LISTING_URL, SELECTORS, limit=2)["products"]) == 2


def test_price_bounds():
    html = LISTING.read_text(encoding="utf-8")
    prices = {p["offer_id"]: p["price"] for p in listing()["products"]}
    kept = extract(html, LISTING_URL, SELECTORS, max_price=150)["products"]
    assert [p["offer_id"] for p in kept] == [k for k, v in prices.items() if v <= 150]
    kept = extract(html, LISTING_URL, SELECTORS, min_price=100, max_price=1300, limit=2)["products"]
    assert [p["offer_id"] for p in kept] == [k for k, v in prices.items() if 100 <= v <= 1300][:2]
    assert {p["price"] for p in kept} <= {v for v in prices.values() if 100 <= v <= 1300}


def test_next_page():
    assert listing()["next_page"] == "https://allegro.pl/listing?string=s%C5%82uchawki%20bezprzewodowe&p=2"


def test_url_helpers():
    tracked = (
        "/events/clicks?type=OFFER&redirect=https%3A%2F%2Fallegro.pl%2Foferta%2Fx-12345678%3Fbi_s%3Dads"
        "%26variant%3D2"
    )
    assert (
        offer_url(tracked, "https://allegro.pl/listing") == "https://allegro.pl/oferta/x-12345678?variant=2"
    )
    assert offer_url("#top", "https://allegro.pl/") is None
    assert offer_id("https://allegro.pl/oferta/kubek-termiczny-16234567890") == "16234567890"
    assert offer_id("https://allegro.pl/produkt/abc?offerId=42") == "42"
    # A saved page resolves links against its canonical URL, a live one against itself.
    html = LISTING.read_text(encoding="utf-8")
    assert page_base(html, LISTING.as_uri()).startswith("https://allegro.pl/listing")
    assert page_base(html, "https://allegro.pl/kategoria/x") == "https://allegro.pl/kategoria/x"


def test_a_page_without_offers_gives_an_empty_list():
    assert extract("<html><body><h1>Brak wyników</h1></body></html>", LISTING_URL, SELECTORS) == {
        "products": [],
        "next_page": None,
    }


def test_bad_selectors_are_a_tool_error():
    with pytest.raises(ToolError, match="selector"):
        layout = {**SELECTORS["layouts"][0], "item": "article[data-role="}
        extract("<p>x</p>", LISTING_URL, {**SELECTORS, "layouts": [layout]})


# --- through curllm's executor, in a real browser ----------------------------------------------------


async def test_runs_in_a_browser_on_the_saved_page(curllm_run_tool):
    out = await curllm_run_tool("extraction.products_allegro", path=LISTING, url=LISTING_URL)
    assert len(out["products"]) == 7
    assert out["products"][1]["url"].startswith("https://allegro.pl/oferta/sony-wh-1000xm5")


async def test_html_is_served_at_the_tools_own_site(curllm_run_tool):
    html = LISTING.read_text(encoding="utf-8")
    out = await curllm_run_tool(
        "extraction.products_allegro", html=html, params={"limit": 3, "include_sponsored": False}
    )
    assert [p["offer_id"] for p in out["products"]] == ["13371337002", "13371337003", "13371337004"]
    assert out["next_page"].startswith("https://allegro.pl/listing")


async def test_a_plan_with_the_designs_price_bound(curllm_run_tool):
    html = LISTING.read_text(encoding="utf-8")
    out = await curllm_run_tool("extraction.products_allegro", html=html, params={"max_price": 100})
    assert out["products"] and all(p["price"] <= 100 for p in out["products"])
    assert len(out["products"]) == sum(1 for p in listing()["products"] if p["price"] <= 100)


async def test_parameters_are_checked_before_running(curllm_run_tool):
    with pytest.raises(PlanError, match="limit"):
        await curllm_run_tool("extraction.products_allegro", html="<p></p>", params={"limit": 0})
