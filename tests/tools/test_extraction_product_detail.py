"""extraction.product_detail on product pages in several markups and languages (tests/fixtures/
product_detail/), including pages whose metadata disagrees with what they show; and through the
real CLI on the example shop's product pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curllm_core.tools.extraction.product_detail import FIELDS, extract

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "product_detail"

#: (fixture, page URL, the fields the page states, as a reader of the page sees them)
CASES = [
    (
        # JSON-LD says 199,00 zł and InStock; the page shows 149,99 zł (199,00 crossed out) and
        # "Produkt niedostępny": what it shows wins.
        "pl_jsonld_stale.html",
        "https://sklep.example.pl/produkt/sluchawki-soundfree",
        {
            "name": "Słuchawki douszne SoundFree",
            "price": 149.99,
            "currency": "PLN",
            "price_regular": 199.0,
            "availability": "OutOfStock",
            "sku": "SF-100",
            "mpn": "SF100-BLK",
            "gtin": "5901234123457",
            "brand": "SoundFree",
            "rating": 4.6,
            "reviews": 128,
            "image": "https://sklep.example.pl/img/soundfree.jpg",
            "url": "https://sklep.example.pl/produkt/sluchawki-soundfree",
        },
    ),
    (
        "en_microdata.html",
        "https://outdoor.example.com/p/bottle",
        {
            "name": "Trail Bottle 750 ml",
            "price": 24.99,
            "currency": "USD",
            "price_regular": 29.99,
            "availability": "InStock",
            "sku": "TB-750-GR",
            "mpn": "750GR",
            "gtin": None,
            "brand": "Outdoor Co.",
            "description": "Insulated steel bottle, keeps drinks cold for 24 hours.",
            "rating": 4.2,
            "reviews": 37,
            "image": "https://outdoor.example.com/img/bottle.png",
        },
    ),
    (
        # A product group: this URL's variant (red, M) gives SKU, GTIN and price, not the parent.
        "de_variant.html",
        "https://mode.example.de/t-shirt-basic?farbe=rot&groesse=m",
        {
            "name": "T-Shirt Basic Rot M",
            "price": 19.99,
            "currency": "EUR",
            "price_regular": 24.99,
            "availability": "InStock",
            "sku": "TS-BASIC-ROT-M",
            "gtin": "4006381333948",
            "brand": "Kleidwerk",
        },
    ),
    (
        # Meta tags only; they say 59,90 € and out of stock, the page 49,90 € (59,90 crossed out), "En stock".
        "fr_meta.html",
        "https://maison.example.fr/lampe-nova",
        {
            "name": "Lampe de bureau Nova",
            "price": 49.9,
            "currency": "EUR",
            "price_regular": 59.9,
            "availability": "InStock",
            "sku": "NOVA-2231",
            "brand": "Lumière & Co",
            "description": "Lampe LED orientable, trois intensités.",
            "image": "https://maison.example.fr/img/nova.jpg",
            "url": "https://maison.example.fr/lampe-nova",
        },
    ),
    (
        # RDFa says InStock; the page says "Sold out".
        "en_rdfa_gbp.html",
        "https://tea.example.co.uk/tin",
        {
            "name": "Loose Leaf Tea Tin",
            "price": 12.5,
            "currency": "GBP",
            "price_regular": None,
            "availability": "OutOfStock",
            "sku": "LT-200",
            "brand": "Leafy",
        },
    ),
    (
        # No structured data at all: the visible page only (the "Promocja dnia: 99 zł" banner is not it).
        "pl_plain.html",
        "https://kubki.example.pl/kubek",
        {
            "name": "Kubek ceramiczny Poranek 350 ml",
            "price": 39.0,
            "currency": "PLN",
            "price_regular": None,
            "availability": "InStock",
            "sku": "KP-350",
            "brand": "Poranek",
            "description": "Kubek z grubej ceramiki.",
        },
    ),
]


@pytest.mark.parametrize(("fixture", "url", "truth"), CASES, ids=[c[0] for c in CASES])
def test_product_pages(fixture, url, truth):
    product = extract((FIXTURES / fixture).read_text(encoding="utf-8"), url)["product"]
    assert list(product) == list(FIELDS)
    assert {k: product[k] for k in truth} == truth


def test_a_page_without_a_product_says_nothing_it_does_not_know():
    product = extract(
        "<html><body><h1>Kontakt</h1><p>Napisz do nas.</p></body></html>", "https://x.example.pl/k"
    )["product"]
    assert product["price"] is None and product["availability"] is None and product["sku"] is None


def test_a_broken_json_ld_block_leaves_the_other_forms():
    html = (
        (FIXTURES / "en_microdata.html")
        .read_text(encoding="utf-8")
        .replace("<head>", '<head><script type="application/ld+json">{"@type": "Product", "name": </script>')
    )
    assert extract(html, "https://outdoor.example.com/p/bottle")["product"]["sku"] == "TB-750-GR"


@pytest.mark.browser
def test_the_shops_product_page_through_the_cli(tmp_path, browser_path):
    import os
    import threading

    from tests.design.test_design_plans import _serve, curllm

    serve = _serve()
    serve.ShopHandler.quiet = True
    server = serve.make_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/produkt/p02"
        plan = tmp_path / "plan.json"
        plan.write_text(
            json.dumps({"plan": [{"tool": "extraction.product_detail"}], "expected_output": "product"})
        )
        env = {**os.environ, "CURLLM_CACHE_DIR": str(tmp_path / "cache")}
        env.pop("CURLLM_TOOLS_PATH", None)
        done = curllm("--plan", str(plan), "--url", url, "--format", "json", env=env)
        assert done.returncode == 0, done.stderr
        product = json.loads(done.stdout)["data"]["product"]
    finally:
        server.shutdown()
    truth = next(p for p in serve.catalog()["products"] if p["id"] == "p02")
    assert product["name"] == truth["name"] and product["price"] == truth["price"]
    assert product["price_regular"] == truth["old_price"] and product["currency"] == "PLN"
    assert product["url"] == url
