"""extraction.product_detail on product pages shaped like those of many shops and marketplaces, in
many languages and currencies (tests/fixtures/product_detail/): each ``page.html`` has a
``page.json`` beside it with the page's URL and every field of the product as a reader of the page
sees it, and every field is checked exactly. Pages whose metadata disagrees with what they show,
variant pages, sold-out pages, related-product carousels, several JSON-LD blocks, locale-specific
thousands separators. Each page is read twice: by `extract` on its HTML, and through the real
executor in Chromium (served at its own URL), where the page's CSS decides what is visible."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curllm_core.tools.extraction.product_detail import FIELDS, extract
from tests.warm_cache import fresh_cache

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "product_detail"
PAGES = sorted(FIXTURES.glob("*.html"))


def _truth(page: Path) -> dict:
    return json.loads(page.with_suffix(".json").read_text(encoding="utf-8"))


def test_every_page_declares_every_field():
    assert len(PAGES) >= 30
    for page in PAGES:
        truth = _truth(page)
        assert list(truth["product"]) == list(FIELDS), page.name
        assert truth["url"].startswith("https://"), page.name


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_product_pages(page):
    truth = _truth(page)
    if truth.get("needs_browser"):
        pytest.skip("the page's stylesheet hides part of it: checked in the browser (test_in_the_browser)")
    product = extract(page.read_text(encoding="utf-8"), truth["url"])["product"]
    assert product == truth["product"]


@pytest.mark.browser
@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
async def test_in_the_browser(page, curllm_run_tool):
    truth = _truth(page)
    out = await curllm_run_tool("extraction.product_detail", path=page, url=truth["url"])
    assert out["product"] == truth["product"]


def test_a_page_without_a_product_says_nothing_it_does_not_know():
    product = extract(
        "<html><body><h1>Kontakt</h1><p>Napisz do nas.</p></body></html>", "https://x.example.pl/k"
    )["product"]
    assert product["price"] is None and product["availability"] is None and product["sku"] is None


def test_a_listing_is_not_one_products_page():
    cards = "".join(
        f'<li><a href="/p/{i}">Kubek {i}</a> <span class="price">{10 + i},99 zł</span> <span>Dostępny</span></li>'
        for i in range(12)
    )
    html = f"<html><body><h1>Kubki</h1><ul>{cards}</ul></body></html>"
    product = extract(html, "https://sklep.example.pl/kubki")["product"]
    # No product's data and no price of its own: not even the listing's heading is a product's name
    # (the task's answer is empty, EMPTY_OUTPUT, rather than a "Kubki" of nulls).
    assert (product["name"], product["price"], product["availability"], product["sku"]) == (
        None,
        None,
        None,
        None,
    )
    assert product["url"] == "https://sklep.example.pl/kubki"


def test_json_ld_as_shops_write_it():
    ld = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Tea &amp; Biscuits Hamper",
        "description": "<p>Loose leaf tea &amp; <b>shortbread</b>.</p>",
        "brand": {"@id": "https://hamper.example.com/#brand"},
        "image": [{"@type": "ImageObject", "name": "Front view", "contentUrl": "/img/hamper.jpg"}],
        "offers": {"@type": "Offer", "price": "1.299,00", "priceCurrency": "EUR", "availability": "InStock"},
    }
    html = (
        f'<html><head><script type="application/ld+json">{json.dumps(ld)}</script></head>'
        "<body><h1>Tea &amp; Biscuits Hamper</h1><p class='price'>From €1.299,00</p></body></html>"
    )
    product = extract(html, "https://hamper.example.com/p/hamper")["product"]
    assert product["name"] == "Tea & Biscuits Hamper"
    assert product["description"] == "Loose leaf tea & shortbread."
    assert product["brand"] is None  # an @id names no brand
    assert product["image"] == "https://hamper.example.com/img/hamper.jpg"
    assert (product["price"], product["currency"], product["availability"]) == (1299.0, "EUR", "InStock")


def test_microdata_of_a_product_nested_in_the_pages_product_is_its_own():
    html = """<html><body><div itemscope itemtype="https://schema.org/Product">
      <h1 itemprop="name">Stand Mixer 5 L</h1>
      <aside><h4>Bundle with</h4><div itemscope itemtype="https://schema.org/Product">
        <span itemprop="name">Dough Hook</span> <span itemprop="sku">DH-1</span>
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="19.00">
        <meta itemprop="priceCurrency" content="GBP"></div></div></aside>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="249.00">
        <meta itemprop="priceCurrency" content="GBP"><link itemprop="availability" href="https://schema.org/InStock"></div>
      <span itemprop="sku">SM-5L</span></div></body></html>"""
    product = extract(html, "https://kitchen.example.co.uk/stand-mixer")["product"]
    assert (product["name"], product["sku"], product["price"], product["currency"]) == (
        "Stand Mixer 5 L",
        "SM-5L",
        249.0,
        "GBP",
    )


def test_a_broken_json_ld_block_leaves_the_other_forms():
    html = (
        (FIXTURES / "en_microdata.html")
        .read_text(encoding="utf-8")
        .replace("<head>", '<head><script type="application/ld+json">{"@type": "Product", "name": </script>')
    )
    assert extract(html, "https://outdoor.example.com/p/bottle")["product"]["sku"] == "TB-750-GR"


@pytest.mark.parametrize(
    ("lang", "label", "stock", "availability"),
    [
        ("pl", "Kod produktu:", "Produkt chwilowo niedostępny", "OutOfStock"),
        ("en", "Product code:", "Sold out", "OutOfStock"),
        ("de", "Art.-Nr.:", "Derzeit nicht lieferbar", "OutOfStock"),
        ("sl", "Šifra:", "Ni na zalogi", "OutOfStock"),
        ("hr", "Šifra proizvoda:", "Nije dostupno", "OutOfStock"),
        ("ro", "Cod produs:", "Stoc epuizat", "OutOfStock"),
        ("pt", "Referência:", "Esgotado", "OutOfStock"),
        ("ru", "Артикул:", "Нет в наличии", "OutOfStock"),
        ("da", "Varenummer:", "Udsolgt", "OutOfStock"),
        ("el", "Κωδικός προϊόντος:", "Εξαντλημένο", "OutOfStock"),
        ("zh", "商品编号：", "缺货", "OutOfStock"),
        ("he", "קוד מוצר:", "המוצר אינו במלאי", "OutOfStock"),
        ("ko", "상품번호:", "일시품절", "OutOfStock"),
        ("sk", "Kód produktu:", "Na sklade", "InStock"),
        ("fi", "Tuotekoodi:", "Varastossa", "InStock"),
        ("el", "Κωδικός προϊόντος:", "Διαθέσιμο", "InStock"),
        ("ro", "Cod produs:", "În stoc", "InStock"),
        ("es", "Número de artículo de Mercado:", "Agotado", "OutOfStock"),
        ("pl", "Numer przedmiotu Aukcje:", "Dostępny", "InStock"),
        ("de", "Markt-Artikelnummer:", "Auf Lager", "InStock"),
    ],
)
def test_stock_words_and_sku_labels_of_many_languages(lang, label, stock, availability):
    """A page's own stock line and SKU label, in plain markup, in the languages shops write; a
    sold-out line wins over JSON-LD left at InStock."""
    ld = json.dumps({"@type": "Product", "name": "Model X2", "offers": {"price": "49.00", "priceCurrency": "EUR",
                     "availability": "https://schema.org/InStock"}})  # fmt: skip
    html = (
        f'<html lang="{lang}"><head><script type="application/ld+json">{ld}</script></head><body><main>'
        f"<h1>Model X2</h1><p class='price'>49,00 €</p><p>{stock}</p><div><span>{label}</span> "
        "<span>MX2-440</span></div></main></body></html>"
    )
    product = extract(html, "https://shop.example.com/model-x2")["product"]
    assert (product["availability"], product["sku"]) == (availability, "MX2-440")


@pytest.mark.parametrize(
    ("stated", "label", "want"),
    [
        ("KT-17", "Art.-Nr.:", "KT-17"),  # de: a carousel's number below never overrides the stated SKU
        ("Czajnik Pro 17", "Kod produktu:", "KT-17"),  # pl: a name in the SKU field yields to the label
        ("Kettle Pro 17", "Product code:", "KT-17"),  # en
    ],
)
def test_a_label_in_a_box_far_below_the_product(stated, label, want):
    ld = json.dumps({"@type": "Product", "name": "Kettle", "sku": stated, "offers": {"price": "39.90"}})
    value = "XX-999" if want == stated else want
    html = (
        f'<html><head><script type="application/ld+json">{ld}</script></head><body><main><h1>Kettle</h1>'
        "<p class='price'>39,90 €</p></main><h2>Customers also bought</h2>"
        f"<div class='tile'><div>{label}</div><div>{value}</div></div></body></html>"
    )
    assert extract(html, "https://shop.example.com/kettle")["product"]["sku"] == want


@pytest.mark.parametrize(
    "words",
    [
        "Available from these sellers.",
        "Erhältlich bei diesen Anbietern.",
        "Disponibile presso questi venditori.",
    ],
)
def test_a_product_other_sellers_sell_is_in_stock(words):
    html = f"<html><body><main><h1>Desk Fan 30 cm</h1><p>{words}</p></main></body></html>"
    assert extract(html, "https://market.example.com/desk-fan")["product"]["availability"] == "InStock"
    bare = "<html><body><main><h1>Desk Fan 30 cm</h1><p>Quiet, three speeds.</p></main></body></html>"
    assert extract(bare, "https://market.example.com/desk-fan")["product"]["availability"] is None


def _hostile_page(*blocks: str, body: str = "<h1>Kettle</h1>") -> str:
    scripts = "".join(f'<script type="application/ld+json">{b}</script>' for b in blocks)
    return f"<html><head>{scripts}</head><body>{body}</body></html>"


_VALID = json.dumps(
    {
        "@type": "Product",
        "name": "Kettle",
        "sku": "KT-17",
        "offers": {"price": "39.90", "priceCurrency": "EUR", "availability": "InStock"},
    }
)


def test_numbers_that_are_not_finite_are_no_numbers():
    ld = (
        '{"@type": "Product", "name": "Kettle", "offers": {"price": 1e309, "priceCurrency": "EUR"},'
        ' "aggregateRating": {"ratingValue": NaN, "reviewCount": -Infinity}}'
    )
    product = extract(_hostile_page(ld), "https://shop.example.de/kettle")["product"]
    assert (product["price"], product["rating"], product["reviews"]) == (None, None, None)
    json.dumps(product, allow_nan=False)  # the step's output stays valid JSON
    huge_int = '{"@type": "Product", "name": "Kettle", "offers": {"price": ' + "9" * 400 + "}}"
    assert extract(_hostile_page(huge_int), "https://shop.example.de/kettle")["product"]["price"] is None


def test_a_lone_surrogate_becomes_a_replacement_character():
    ld = '{"@type": "Product", "name": "Kettle \\ud800", "sku": "KT\\udfff17", "brand": "Aqua\\udc00"}'
    product = extract(_hostile_page(ld, body="<p>-</p>"), "https://shop.example.de/kettle")["product"]
    assert product["name"] == "Kettle \ufffd" and product["brand"] == "Aqua\ufffd"
    json.dumps(product, ensure_ascii=False).encode("utf-8")  # printable as UTF-8


@pytest.mark.parametrize("levels", [1_100, 100_000])
def test_json_ld_nested_too_deep_leaves_the_next_block(levels):
    deep_list = "[" * levels + "]" * levels
    deep_product = '{"@graph": ' * levels + _VALID.replace("KT-17", "DEEP") + "}" * levels
    for bad in (deep_list, deep_product):
        product = extract(_hostile_page(bad, _VALID), "https://shop.example.de/kettle")["product"]
        assert (product["sku"], product["price"], product["availability"]) == ("KT-17", 39.9, "InStock")


def test_a_huge_json_ld_block_is_skipped():
    huge = json.dumps({"@type": "Product", "name": "Kettle", "sku": "HUGE", "description": "x" * 3_000_000})
    product = extract(_hostile_page(huge, _VALID), "https://shop.example.de/kettle")["product"]
    assert product["sku"] == "KT-17"


def test_the_sku_in_the_address_is_a_fallback_only():
    body = "<h1>Kettle</h1><p class='price'>39,90 €</p>"
    page = _hostile_page(body=body)
    assert extract(page, "https://shop.example.de/kettle-4471209")["product"]["sku"] == "4471209"
    # A canonical address without the number: the number is a session's, not the product's.
    canonical = '<link rel="canonical" href="https://shop.example.de/kettle">'
    with_canonical = page.replace("<head>", "<head>" + canonical)
    assert extract(with_canonical, "https://shop.example.de/kettle-4471209")["product"]["sku"] is None
    # A page that names no product says no number either.
    assert (
        extract("<html><body><h1>Hilfe</h1></body></html>", "https://shop.example.de/hilfe/4471209")[
            "product"
        ]["sku"]
        is None
    )


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
        env = {**os.environ, "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache"))}
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
