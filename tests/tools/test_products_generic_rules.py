"""products_generic's rules, each proven on listings written here in several markups, languages and
currencies: sale and regular prices, shipping and unit prices, cents set apart in markup, ranges,
names (badges, seller names, spec lines), sponsored rows, cards whose price and title sit far apart,
header rows, the currency from the page's context, and price bounds.

The hand-written cases show each trap as shops write it; `test_any_listing` builds listings from
random combinations of all of them (hypothesis) and checks every product exactly.
"""

from __future__ import annotations

import html as html_lib
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curllm_core.tools.extraction import products_generic
from tests.tools.test_extraction_helpers import assert_valid_output


def extract(page: str, url: str = "http://127.0.0.1:8000/listing", **params) -> list[dict]:
    out = products_generic.extract(page, url, **params)
    assert_valid_output("products_generic", out)
    return out["products"]


def doc(body: str, lang: str = "en", head: str = "") -> str:
    return f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">{head}<title>Shop</title></head><body>{body}</body></html>'


def cards(*items: str, wrap: str = '<ul class="results">{}</ul>') -> str:
    return doc(wrap.format("".join(items)))


def li(name: str, price_html: str, href: str = "/p/{n}", extra: str = "", n: list[int] = [0]) -> str:  # noqa: B006
    n[0] += 1
    return (
        f'<li class="product"><a class="thumb" href="{href.format(n=n[0])}"><img src="/i/{n[0]}.jpg" alt=""></a>'
        f'<h3 class="title"><a href="{href.format(n=n[0])}">{name}</a></h3>{extra}<div class="prices">{price_html}</div></li>'
    )


def got(products: list[dict], *keys: str) -> list[tuple]:
    return [tuple(p.get(k) for k in keys) for p in products]


# --- sale and regular prices -------------------------------------------------------------------------

SALE_CASES = [
    # (language, price markup, price, regular, currency)
    ("en", "Reg. CAD 51.66 Sale CAD 34.42", 34.42, 51.66, "CAD"),
    ("en", "was £20 now £15", 15.0, 20.0, "GBP"),
    ("en", "<s>$29.99</s> <span>$19.99</span>", 19.99, 29.99, "USD"),
    ("en", '<span class="was-price">£24.00</span> <span class="now-price">£18.00</span>', 18.0, 24.0, "GBP"),
    (
        "en",
        '<span class="price">$12.99</span> <span class="list-price">List: $17.99</span>',
        12.99,
        17.99,
        "USD",
    ),
    ("de", "UVP 29,99 € 19,99 €", 19.99, 29.99, "EUR"),
    ("de", "19,99 € statt 29,99 €", 19.99, 29.99, "EUR"),
    ("de", "<del>1.299,00 €</del> <b>999,00 €</b>", 999.0, 1299.0, "EUR"),
    ("de", '<span class="streichpreis">49,90 €</span><span class="preis">39,90 €</span>', 39.9, 49.9, "EUR"),
    (
        "pl",
        '<span class="price--old">59,99 zł</span> <span class="price">49,99 zł</span>',
        49.99,
        59.99,
        "PLN",
    ),
    ("pl", "<span>przed obniżką: 59,99 zł</span> <span>49,99 zł</span>", 49.99, 59.99, "PLN"),
    (
        "pl",
        '<span class="cena">129,00 zł</span><span style="text-decoration: line-through">159,00 zł</span>',
        129.0,
        159.0,
        "PLN",
    ),
    ("fr", "<span>39,00 €</span> <span>au lieu de 49,00 €</span>", 39.0, 49.0, "EUR"),
    ("fr", "Prix barré 49,00 € 39,00 €", 39.0, 49.0, "EUR"),
    (
        "fr",
        '<span class="prix-barre"><del>1 499 €</del></span> <span class="prix">1 199 €</span>',
        1199.0,
        1499.0,
        "EUR",
    ),
    # a price of its own among the words of a long label, the regular price in an element of its own
    (
        "en",
        '<span class="sr">Sale Price:</span>$54.00<span class="sr">Original Price:</span><span class="original-price">$72.00</span>',
        54.0,
        72.0,
        "USD",
    ),
    ("de", "Angebotspreis: 19,99 € <span>Ursprünglicher Preis:</span> <s>24,99 €</s>", 19.99, 24.99, "EUR"),
    ("pl", "Cena promocyjna: 49,99 zł <span>Cena regularna:</span> <del>59,99 zł</del>", 49.99, 59.99, "PLN"),
    # a lowest-price-of-30-days note is no current price either
    (
        "pl",
        "<span>49,99 zł</span><small>Najniższa cena z 30 dni przed obniżką: 44,99 zł</small>",
        49.99,
        None,
        "PLN",
    ),
    (
        "de",
        "<span>24,99 €</span><small>Niedrigster Preis der letzten 30 Tage: 22,99 €</small>",
        24.99,
        None,
        "EUR",
    ),
]


@pytest.mark.parametrize(
    "lang, price_html, price, regular, currency", SALE_CASES, ids=[c[1][:40] for c in SALE_CASES]
)
def test_the_sale_price_is_the_price(lang, price_html, price, regular, currency):
    page = cards(*(li(f"Item {i} {lang}", price_html) for i in range(3)))
    products = extract(page)
    assert got(products, "price", "price_regular", "currency") == [(price, regular, currency)] * 3


# --- shipping, unit and monthly prices -----------------------------------------------------------------

EXTRA_CASES = [
    ("<b>EUR 14,90</b> <span>+ EUR 4,90 Versandkosten</span>", 14.9, "EUR"),
    ("<span>£89.99</span> <span>+£35.27 postage</span>", 89.99, "GBP"),
    ("<span>$24.50</span> <span>+ $5.99 shipping</span>", 24.5, "USD"),
    ("<span>24,90 zł</span><span>+ 9,99 zł dostawa</span>", 24.9, "PLN"),
    ("<span>Livraison 4,99 €</span> <span>19,99 €</span>", 19.99, "EUR"),
    ("<span>dostawa od 8,99 zł</span> <span>39,00 zł</span>", 39.0, "PLN"),
    ("<span>7,49 €</span> <span>(3,50 €/kg)</span>", 7.49, "EUR"),
    ("<span>(3,50 €/kg)</span> <span>7,49 €</span>", 7.49, "EUR"),
    ("<span>£2.40</span> <span>£1.20/100g</span>", 2.4, "GBP"),
    ("<span>Grundpreis: 12,90 €/l</span> <span>6,45 €</span>", 6.45, "EUR"),
    ("<span>1 kg = 9,98 €</span> <b>4,99 €</b>", 4.99, "EUR"),
    ("<b>25,98 zł</b> <span>12,99 zł/szt.</span>", 25.98, "PLN"),
    ('<span class="unit-price">(13,11 zł/l)</span><span class="price">59,00 zł</span>', 59.0, "PLN"),
    ("<span>ab 12,99 € mtl.</span> <b>299,00 €</b>", 299.0, "EUR"),
    ("<span>1 499 zł</span> <span>lub 149,90 zł x 10 rat</span>", 1499.0, "PLN"),
    ("<span>$899.00</span> <span>or $74.92/mo</span>", 899.0, "USD"),
]


@pytest.mark.parametrize("price_html, price, currency", EXTRA_CASES, ids=[c[0][:40] for c in EXTRA_CASES])
def test_shipping_unit_and_monthly_prices_are_never_the_price(price_html, price, currency):
    products = extract(cards(*(li(f"Article {i}", price_html) for i in range(3))))
    assert got(products, "price", "currency") == [(price, currency)] * 3
    assert not any("price_regular" in p for p in products)


def test_a_per_piece_price_is_the_price_when_nothing_else_is():
    # B2B listings price per unit only: "US $0-2550 / Unit" is the price (a range).
    page = cards(
        *(li(f"Industrial pump model {i}", f"US ${i * 10}-{i * 100} / Unit") for i in (1, 2, 3)),
    )
    assert got(extract(page), "price", "price_upper", "currency") == [
        (10.0, 100.0, "USD"),
        (20.0, 200.0, "USD"),
        (30.0, 300.0, "USD"),
    ]


# --- a price for members or card holders only --------------------------------------------------------

CONDITIONAL_CASES = [
    # (language, price markup, the price anyone pays, currency)
    (
        "en",
        '<span class="price-regular">$29.99</span> <span class="price-member">Member price $24.99</span>',
        29.99,
        "USD",
    ),
    ("en", "<span>Members</span> <span>$24.99</span> <span>$29.99</span>", 29.99, "USD"),
    ("en", "<p>£12.00</p><p><small>Club card price</small> <b>£9.50</b></p>", 12.0, "GBP"),
    ("pl", "<span>129,99 zł</span> <span>Cena klubowa:</span> <span>99,99 zł</span>", 129.99, "PLN"),
    (
        "pl",
        "<div><em>Z kartą</em> <strong>89,99 zł</strong></div><div><strong>109,99 zł</strong></div>",
        109.99,
        "PLN",
    ),
    ("de", "<span>Mitgliederpreis</span> <span>19,99 €</span> <span>24,99 €</span>", 24.99, "EUR"),
    ("de", '<span>24,99 €</span> <span class="preis-mitglied">21,99 €</span>', 24.99, "EUR"),
    ("fr", "<span>Prix adhérent</span> <span>45,00 €</span> <span>49,90 €</span>", 49.9, "EUR"),
    # a sale price for everyone stays the price to pay
    ("en", "<span>Sale $19.99</span> <s>$29.99</s> <span>Member price $17.99</span>", 19.99, "USD"),
    # shown for members only: that is the price
    ("en", "<span>Member price</span> <span>$24.99</span>", 24.99, "USD"),
]


@pytest.mark.parametrize(
    "lang, price_html, price, currency", CONDITIONAL_CASES, ids=[c[1][:40] for c in CONDITIONAL_CASES]
)
def test_a_price_for_members_only_is_not_the_price_when_another_is_shown(lang, price_html, price, currency):
    """A member's, club card's or loyalty price is conditional: the price anyone pays is the other
    price the card shows, unless none is."""
    products = extract(cards(*(li(f"Article {i}", price_html) for i in range(3))))
    assert got(products, "price", "currency") == [(price, currency)] * 3


# --- prices by quantity --------------------------------------------------------------------------------

TIER_CASES = [
    # (language, price markup, the price of one, currency)
    (
        "de",
        "<table><tr><td>ab 1 Stk.</td><td>4,99 €</td></tr><tr><td>ab 10 Stk.</td><td>3,99 €</td></tr></table>",
        4.99,
        "EUR",
    ),
    ("pl", "<div>od 1 szt. 12,50 zł</div><div>od 50 szt. 9,90 zł</div>", 12.5, "PLN"),
    ("pl", "<p>1 szt.: <b>12,50 zł</b></p><p>50 szt.: <b>9,90 zł</b></p>", 12.5, "PLN"),
    ("en", "<ul><li>1 pc: $2.40</li><li>25 pcs: $1.95</li><li>100 pcs: $1.60</li></ul>", 2.4, "USD"),
    (
        "en",
        "<p><span>1-9 units</span> <b>$8.00</b></p><p><span>10+ units</span> <b>$6.50</b></p>",
        8.0,
        "USD",
    ),
    # a price for everyone, and a cheaper one for a quantity: the first
    ("de", "<span>5,49 €</span> <small>ab 20 Stk. 4,29 €</small>", 5.49, "EUR"),
]


@pytest.mark.parametrize("lang, price_html, price, currency", TIER_CASES, ids=[c[1][:40] for c in TIER_CASES])
def test_prices_by_quantity_give_the_price_of_the_smallest(lang, price_html, price, currency):
    """A table of prices by quantity (office and trade shops): the first row's, for one piece or the
    smallest quantity, is the price; a lower one for fifty is no reduction."""
    products = extract(cards(*(li(f"Artikel {i}", price_html) for i in range(3))))
    assert got(products, "price", "currency") == [(price, currency)] * 3


# --- what a reduction saves, a price for several, a price per piece --------------------------------------

SAVING_CASES = [
    # (language, price markup, the price to pay, currency): the saving is never the price
    ("en", "<div>Save 40p</div><div>£3.10</div><div>Was £3.50</div>", 3.1, "GBP"),
    ("en", "<span>You save $12.00</span> <span>$47.99</span>", 47.99, "USD"),
    ("de", "<span>24,99 €</span> <span>Sie sparen 5,00 €</span>", 24.99, "EUR"),
    ("pl", "<p>Oszczędzasz 50 zł</p><p>249 zł</p>", 249.0, "PLN"),
    ("fr", "<span>Économisez 10,00 €</span> <span>39,99 €</span>", 39.99, "EUR"),
    ("it", "<span>Risparmi € 20,00</span><span>€ 79,00</span>", 79.0, "EUR"),
    ("es", "<span>Ahorra 5 €</span> <span>19,95 €</span>", 19.95, "EUR"),
    ("en", '<span class="you-save">$8.00</span> <span>$31.99</span>', 31.99, "USD"),
    # a price for several ("2 for $5"), and the price of one said "each"
    ("en", "<div>2 for $5</div><div>$2.99 each</div>", 2.99, "USD"),
    ("de", "<div>3 für 10 €</div><div>3,99 €</div>", 3.99, "EUR"),
    ("pl", "<div>2 za 15 zł</div><div>8,99 zł</div>", 8.99, "PLN"),
    ("en", "<span>$12.99</span> <span>($3.25 each)</span>", 12.99, "USD"),
    ("de", "<span>1,20 € pro Stück</span> <span>5,99 €</span>", 5.99, "EUR"),
]


@pytest.mark.parametrize(
    "lang, price_html, price, currency", SAVING_CASES, ids=[c[1][:40] for c in SAVING_CASES]
)
def test_a_saving_or_a_price_for_several_is_not_the_price(lang, price_html, price, currency):
    """What a reduction saves ("Save 40p", "Sie sparen", "Oszczędzasz", "Risparmi"), a multi-buy
    ("2 for $5", "3 für 10 €") and a price per piece beside the pack's are never the price, wherever
    they stand in the card."""
    products = extract(cards(*(li(f"Artikel {i}", price_html) for i in range(3))))
    assert got(products, "price", "currency") == [(price, currency)] * 3


UNIT_CLASSED = [
    # (markup of the price, markup of the price per measure or piece, price, currency)
    ('<p class="price-per-item-unit">{p}</p>', "<p>{u}/litre</p>", "£"),
    ('<span class="unitPrice">{p}</span>', "<span>{u} / kg</span>", "£"),
    ('<div class="price per-unit">{p}</div>', "<div>({u} each)</div>", "£"),
]


@pytest.mark.parametrize("price_html, unit_html, mark", UNIT_CLASSED)
@pytest.mark.parametrize("unit_first", [True, False])
def test_a_price_classed_per_unit_beside_one_that_says_per_measure_is_the_price(
    price_html, unit_html, mark, unit_first
):
    """A card whose price's class says per unit ("price-per-item-unit") and whose other amount's words
    say per measure or piece ("72.5p/litre", "(25.8p each)"), a "Save" amount and a "Was" price beside
    them: the classed one is the price to pay, before or after the measure's."""
    rows = []
    for i, (name, price, unit) in enumerate(
        [("Milk 2L", 1.45, "72.5p"), ("Eggs x12", 3.10, "25.8p"), ("Juice 1L", 2.2, "£2.20")]
    ):
        parts = [unit_html.format(u=unit), price_html.format(p=f"{mark}{price:.2f}")]
        if not unit_first:
            parts.reverse()
        extra = f"<div>Save 40p</div><div>Was £{price + 0.4:.2f}</div>" if i == 1 else ""
        rows.append(li(name, "".join(parts) + extra))
    products = extract(doc('<ul class="results">' + "".join(rows) + "</ul>", "en-GB"))
    assert got(products, "name", "price", "currency") == [
        ("Milk 2L", 1.45, "GBP"),
        ("Eggs x12", 3.1, "GBP"),
        ("Juice 1L", 2.2, "GBP"),
    ]


# --- prices before tax, and a price with shipping extra ------------------------------------------------

NET_CASES = [
    # (price markup, the price to pay, currency): the price before tax is not it when one with tax shows
    ("<span>£4.17 ex VAT</span> <span>£5.00 inc VAT</span>", 5.0, "GBP"),
    ("<span>£5.00 inc VAT</span> <span>£4.17 ex VAT</span>", 5.0, "GBP"),
    ("<span>$8.40 excl. tax</span> <b>$10.00</b>", 10.0, "USD"),
    ("<span>8,40 € zzgl. MwSt.</span> <span>10,00 € inkl. MwSt.</span>", 10.0, "EUR"),
    ("<span>Netto: 8,40 €</span> <span>Brutto: 10,00 €</span>", 10.0, "EUR"),
    ("<span>81,30 zł netto</span> <span>100,00 zł brutto</span>", 100.0, "PLN"),
    ("<span>cena netto: 81,30 zł</span> <span>100,00 zł</span>", 100.0, "PLN"),
    ("<span>10,00 € HT</span> <span>12,00 € TTC</span>", 12.0, "EUR"),
    ("<p>¥3,980<span>（税込）</span></p><p>¥3,618（税抜）</p>", 3980.0, "JPY"),
    ("<p>本体価格 ¥3,618</p><p>¥3,980（税込）</p>", 3980.0, "JPY"),
    ("<span>¥1,800 税別</span> <span>¥1,980</span>", 1980.0, "JPY"),
    ("<span>¥90 不含税</span> <span>¥99</span>", 99.0, "JPY"),
    # shown without tax only (a trade shop): that is the price
    ("<span>8,40 € zzgl. MwSt.</span>", 8.4, "EUR"),
    ("<span>81,30 zł netto</span>", 81.3, "PLN"),
    # "plus shipping" after a price: the price is the product's
    ("<span>19,99 € zzgl. Versand</span>", 19.99, "EUR"),
    ("<span>$24.50 + shipping</span>", 24.5, "USD"),
    ("<span>24,90 zł + dostawa</span>", 24.9, "PLN"),
]


@pytest.mark.parametrize("price_html, price, currency", NET_CASES, ids=[c[0][:40] for c in NET_CASES])
def test_a_price_before_tax_is_the_price_only_alone(price_html, price, currency):
    products = extract(cards(*(li(f"Werkzeug {i}", price_html) for i in range(3))))
    assert got(products, "price", "price_regular", "currency") == [(price, None, currency)] * 3


TABLE_HEADERS = [
    # (language, header of the price without tax, of the price with it, currency format)
    ("en", "Ex VAT", "Inc VAT", "£{}"),
    ("de", "Netto", "Brutto", "{} €"),
    ("pl", "Cena netto", "Cena brutto", "{} zł"),
    ("fr", "Prix HT", "Prix TTC", "{} €"),
]


@pytest.mark.parametrize("lang, net, gross, fmt", TABLE_HEADERS, ids=[h[0] for h in TABLE_HEADERS])
@pytest.mark.parametrize("row_classes", [("odd", "even"), ("", "alt"), ("row1", "row2")])
def test_table_rows_taking_turns_with_prices_named_by_their_column(lang, net, gross, fmt, row_classes):
    """A price list in a table: rows in two alternating classes are one list, and the column header
    says which of a row's two prices is the one to pay."""

    def money(cents: int) -> str:
        text = f"{cents // 100}.{cents % 100:02d}"
        return fmt.format(text if fmt.startswith("£") else text.replace(".", ","))

    rows = "".join(
        f'<tr class="{row_classes[i % 2]}"><td>HW{100 + i}</td><td><a href="/item/{i}"><b>Item number {i}</b></a>'
        f'<br><small>24h</small></td><td class="price">{money(1000 + i * 100)}</td>'
        f'<td class="price"><strong>{money(1230 + i * 123)}</strong></td><td><button>+</button></td></tr>'
        for i in range(7)
    )
    table = f"<table><tr><th>#</th><th>Name</th><th>{net}</th><th>{gross}</th><th></th></tr>{rows}</table>"
    products = extract(doc(table, lang))
    assert got(products, "name", "price") == [(f"Item number {i}", (1230 + i * 123) / 100) for i in range(7)]


JOINED_WRAPPERS = [
    ("en", "product-price-and-shipping", "$19.99"),
    ("pl", "product-price-and-shipping", "29,99 zł"),
    ("de", "preisUndVersand", "19,99 €"),
]


@pytest.mark.parametrize("lang, wrapper, amount", JOINED_WRAPPERS, ids=[w[0] for w in JOINED_WRAPPERS])
def test_a_wrapper_named_for_price_and_shipping_gives_no_role(lang, wrapper, amount):
    """A class joining two things ("price-and-shipping") wraps both: its prices are not shipping."""
    page = doc(
        '<div class="products">'
        + "".join(
            f'<article class="tile"><h2><a href="/p/{i}">Artikel {lang} {i}</a></h2>'
            f'<div class="{wrapper}"><span class="price">{amount}</span></div></article>'
            for i in range(3)
        )
        + "</div>",
        lang,
    )
    value = float(amount.strip("$ złé€").replace(",", "."))
    assert got(extract(page), "price", "price_regular") == [(value, None)] * 3


# --- cents set apart in markup -----------------------------------------------------------------------

CENTS_CASES = [
    ("$19<sup>97</sup>", 19.97, "USD"),
    ("<span>$</span><span>19</span><sup>97</sup>", 19.97, "USD"),
    ('<span class="whole">62</span><span class="fraction">99</span> €', 62.99, "EUR"),
    ('€<span class="price-int">1.299</span><span class="price-cents">00</span>', 1299.0, "EUR"),
    ("<span>$</span> <span>19</span> <span>97</span>", 19.97, "USD"),
    ("£<b>7</b><sup>50</sup>", 7.5, "GBP"),
    ('<span class="zl">149</span><sup class="gr">99</sup> zł', 149.99, "PLN"),
    ("19,99 €<sup>*</sup>", 19.99, "EUR"),
    ("€19.99<sup>1</sup>", 19.99, "EUR"),  # a footnote mark, not cents
    ('<span class="value">7 998</span><span class="penny">,00</span> zł', 7998.0, "PLN"),
    # integer and fraction in elements of their own, the decimal mark in either or in one of its own
    ("$<strong>129</strong><sup>.99</sup>", 129.99, "USD"),
    ('<span class="int">12</span><span class="dec">,99</span> €', 12.99, "EUR"),
    ("<span>12</span><span>,</span><span>99</span> zł", 12.99, "PLN"),
    ('<span>12</span><span class="sep">.</span><span>99</span><span>$</span>', 12.99, "USD"),
    (
        '<span class="whole">12<span class="decimal">,</span></span><span class="fraction">99</span>€',
        12.99,
        "EUR",
    ),
    (
        '<span class="currency">€</span><span class="major">12</span><span class="minor">99</span>',
        12.99,
        "EUR",
    ),
    ("12,<sup>99</sup> €", 12.99, "EUR"),
    ("Cena: <span>12</span><sup>99</sup> zł", 12.99, "PLN"),
    # the cents after the currency symbol (French and Belgian shops: "79€99")
    ("79€99", 79.99, "EUR"),
    ("<span>79</span><span>€</span><span>99</span>", 79.99, "EUR"),
    ('<span class="prix">79<sup>€99</sup></span>', 79.99, "EUR"),
    ("1 299 €<sup>00</sup>", 1299.0, "EUR"),
    ("<b>1 049</b>€<sup>90</sup>", 1049.9, "EUR"),
    ("4£50", 4.5, "GBP"),
    # whole amounts written with a dash for the cents
    ("499:-", 499.0, "SEK"),
    ('<span class="pris">1 299:-</span> <span>Ord. pris 1 599:-</span>', 1299.0, "SEK"),
    ("12,– €", 12.0, "EUR"),
    ("€ 12,-", 12.0, "EUR"),
    ("129,- Kč", 129.0, "CZK"),
]


@pytest.mark.parametrize("price_html, price, currency", CENTS_CASES, ids=[c[0] for c in CENTS_CASES])
def test_cents_set_apart_in_markup(price_html, price, currency):
    products = extract(cards(*(li(f"Produkt testowy {i}", price_html) for i in range(3))))
    assert got(products, "price", "currency") == [(price, currency)] * 3


# --- ranges -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "price_html, price, upper, currency",
    [
        ("od 12 do 40 zł", 12.0, 40.0, "PLN"),
        ("12,00 € - 18,00 €", 12.0, 18.0, "EUR"),
        ("$5 - $9", 5.0, 9.0, "USD"),
        ("EUR 124,00 bis EUR 174,00", 124.0, 174.0, "EUR"),
        ("de 15 € à 30 €", 15.0, 30.0, "EUR"),
        ("£10 to £25", 10.0, 25.0, "GBP"),
    ],
)
def test_price_ranges(price_html, price, upper, currency):
    products = extract(cards(*(li(f"Gift voucher offer {i}", price_html) for i in range(3))))
    assert got(products, "price", "price_upper", "currency") == [(price, upper, currency)] * 3


# --- names ----------------------------------------------------------------------------------------------

BADGES = [
    "NEW!",
    "Neu",
    "Neues Angebot",
    "Nowość",
    "Nouveau",
    "Sale",
    "Bestseller",
    "-20%",
    "Sponsored",
    "Gesponsert",
]


@pytest.mark.parametrize("badge", BADGES)
def test_a_badge_is_no_part_of_the_name(badge):
    inside = cards(*(li(f'<span class="tag">{badge}</span>Tasse Weiß {i}', f"{i},99 €") for i in (1, 2, 3)))
    above = cards(
        *(
            li(f"Tasse Weiß {i}", f"{i},99 €", extra=f'<span class="badge">{badge}</span>').replace(
                '<h3 class="title">', f'<span class="label">{badge}</span><h3 class="title">'
            )
            for i in (1, 2, 3)
        )
    )
    for page in (inside, above):
        assert [p["name"] for p in extract(page)] == ["Tasse Weiß 1", "Tasse Weiß 2", "Tasse Weiß 3"]


def test_titles_that_begin_like_badges_stay_whole():
    page = cards(li("New Balance 574 Sneaker", "89,99 €"), li("Top Gun: Maverick [Blu-ray]", "14,99 €"))
    assert [p["name"] for p in extract(page)] == ["New Balance 574 Sneaker", "Top Gun: Maverick [Blu-ray]"]


@pytest.mark.parametrize(
    "seller_html",
    [
        '<div class="seller-name">TechShop24 GmbH</div>',
        '<a class="shop-name" href="/shop/techshop24">TechShop24</a>',
        '<span class="merchant"><a href="/seller/8812">Sprzedawca: elektro_pl</a></span>',
        '<p class="vendeur-nom">Boutique Martin</p>',
    ],
)
def test_a_seller_or_shop_name_is_not_the_product_name(seller_html):
    body = "".join(
        f'<div class="offer"><div class="media"><a href="/o/{i}"><img src="/i/{i}.jpg" alt=""></a></div>'
        f'{seller_html}<a class="offer-title" href="/o/{i}">Słuchawki bezprzewodowe model {i}</a>'
        f'<div class="offer-price">{i}99,00 zł</div></div>'
        for i in (1, 2, 3)
    )
    products = extract(doc(f'<div class="offers">{body}</div>', "pl"))
    assert [p["name"] for p in products] == [f"Słuchawki bezprzewodowe model {i}" for i in (1, 2, 3)]
    assert [p["url"] for p in products] == [f"http://127.0.0.1:8000/o/{i}" for i in (1, 2, 3)]


@pytest.mark.parametrize(
    "lang, spec",
    [
        ("de", "Formfaktor: ATX • Sockel: AMD AM5 • Chipsatz: AMD B650 • RAM: 4x DDR5 DIMM"),
        ("en", "Form factor: Mini-ITX • Socket: LGA1700 • Chipset: Intel B760"),
        ("pl", "Przekątna: 27 cali | Rozdzielczość: 2560 x 1440 | Matryca: IPS"),
    ],
)
def test_a_spec_line_after_the_title_is_cut_off(lang, spec):
    # As price comparison sites write it: the title link and its spec line in one name element...
    structured = doc(
        '<div class="list">'
        + "".join(
            f'<div class="row"><div class="cell image"><a href="/a{i}"><img alt="Board {i}"></a></div>'
            f'<div class="cell productlist__name"><a href="/a{i}" class="link"><span>Board X{i} Pro (90MB-{i})</span></a>'
            f'<div class="description"><p>{spec}</p></div></div><div class="cell price"><span>ab € {i}89,00</span></div></div>'
            for i in (1, 2, 3)
        )
        + "</div>",
        lang,
    )
    # ... and glued to the title in one text.
    glued = cards(*(li(f"Board X{i} Pro (90MB-{i}) {spec}", f"€ {i}89,00") for i in (1, 2, 3)))
    for page in (structured, glued):
        assert [p["name"] for p in extract(page)] == [f"Board X{i} Pro (90MB-{i})" for i in (1, 2, 3)]


CUT_NAMES = [
    ("en", "Wireless Over-Ear Headphones with Active Noise Cancelling", "$129.00"),
    ("pl", "Odkurzacz pionowy bezprzewodowy z funkcją mopowania", "1 299,00 zł"),
    ("de", "Kabellose Kopfhörer mit aktiver Geräuschunterdrückung", "129,00 €"),
]


@pytest.mark.parametrize("lang, name, price", CUT_NAMES, ids=[c[0] for c in CUT_NAMES])
@pytest.mark.parametrize(
    "card",
    [
        '<div class="card"><a href="/p/{i}" title="{name}"><img src="/c.jpg" alt=""><div class="card__name">{cut}…</div></a><div class="price">{price}</div></div>',
        '<div class="card"><a href="/p/{i}"><img src="/c.jpg" alt="{name}"></a><h3><a href="/p/{i}">{cut}...</a></h3><span class="price">{price}</span></div>',
        '<div class="card"><a href="/p/{i}" aria-label="{name}"><span class="name">{cut} …</span></a><p>{price}</p></div>',
    ],
)
def test_a_name_shown_cut_short_is_given_whole(card, lang, name, price):
    """A name the page shows cut short with an ellipsis is given whole where the card holds it whole
    (a link's title, an aria-label, a picture's alt); an attribute saying something else is no name."""
    cut = name[:24].rstrip()
    page = doc("".join(card.format(i=i, name=name, cut=cut, price=price) for i in range(3)), lang)
    assert [p["name"] for p in extract(page)] == [name] * 3
    other = doc("".join(card.format(i=i, name="Photo", cut=cut, price=price) for i in range(3)), lang)
    names = [p["name"] for p in extract(other)]
    assert len(names) == 3 and all(n.startswith(cut) and len(n) <= len(cut) + 3 for n in names), names


LINE_BELOW = [
    ("en", "Hex Bolt M8 x 40 (box of 50)", "SKU 900", "$7.45"),
    ("pl", "Wkręty do drewna 4 x 30 (200 szt.)", "Indeks 901", "5,99 zł"),
    ("de", "Sechskantschraube M8 x 40 (50 Stück)", "Art.-Nr. 902", "7,45 €"),
]


@pytest.mark.parametrize("lang, name, line, price", LINE_BELOW, ids=[c[0] for c in LINE_BELOW])
@pytest.mark.parametrize(
    "cell",
    [
        '<div class="col col--name"><a href="/p/{i}">{name}</a><div class="sku">{line}</div></div>',
        '<div class="product-name"><p><a href="/p/{i}">{name}</a></p><p>{line}</p></div>',
        '<td class="name"><a href="/p/{i}">{name}</a><div>{line}</div></td>',
    ],
)
def test_a_line_below_the_name_is_no_part_of_it(cell, lang, name, line, price):
    """A name column or element holding the product's link and, on a line of its own below it, a short
    line (an SKU, an article number): the name is the link's; words inline beside it stay part of it."""
    row = (
        "<tr>{}<td>{}</td></tr>"
        if cell.startswith("<td")
        else '<div class="row">{}<div class="col">{}</div></div>'
    )
    body = "".join(row.format(cell.format(i=i, name=name, line=line), price) for i in range(3))
    page = doc(
        f"<table>{body}</table>" if cell.startswith("<td") else f'<div class="table">{body}</div>', lang
    )
    assert [p["name"] for p in extract(page)] == [name] * 3
    inline = cell.replace('<div class="sku">{line}</div>', "<span> {line}</span>").replace(
        "<div>{line}</div>", "<span> {line}</span>"
    )
    if inline != cell:
        body = "".join(row.format(inline.format(i=i, name=name, line=line), price) for i in range(3))
        page = doc(
            f"<table>{body}</table>" if cell.startswith("<td") else f'<div class="table">{body}</div>', lang
        )
        assert [p["name"] for p in extract(page)] == [f"{name} {line}"] * 3


def test_decoration_around_a_title_is_trimmed():
    page = doc(
        '<div class="list">'
        + "".join(
            f'<div class="item"><strong class="item-name"><a href="/x/{i}"> Film {i} (Blu-ray)</a> <a href="/p/{i}"> » </a></strong>'
            f'<a href="/x/{i}"><span class="price">{i}9,99 zł</span></a></div>'
            for i in (1, 2, 3)
        )
        + "</div>",
        "pl",
    )
    assert [p["name"] for p in extract(page)] == [f"Film {i} (Blu-ray)" for i in (1, 2, 3)]


def test_a_title_that_mentions_a_price_is_still_the_title():
    # Classifieds: the whole card is the link; the ad's title names a price of its own.
    body = "".join(
        f'<a class="ad" href="/ad/{i}" title="{t}"><div class="pic"></div><section><h2 itemprop="name">{t}</h2>'
        f'<p class="place">Lyon / Rhône</p><h3 class="price">{p} €</h3><p class="date">Aujourd\'hui, 14:14</p></section></a>'
        for i, (t, p) in enumerate(
            [("607hdi 136 ch 950 euro", "950"), ("Clio 3 TBE", "2 900"), ("Twingo 1,2 l", "1 200")]
        )
    )
    products = extract(doc(f'<section class="list">{body}</section>', "fr"))
    assert got(products, "name", "price", "currency") == [
        ("607hdi 136 ch 950 euro", 950.0, "EUR"),
        ("Clio 3 TBE", 2900.0, "EUR"),
        ("Twingo 1,2 l", 1200.0, "EUR"),
    ]


# --- sponsored rows ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lang, label",
    [
        ("en", "Sponsored"),
        ("de", "Gesponsert"),
        ("de", "Anzeige"),
        ("pl", "Sponsorowane"),
        ("fr", "Sponsorisé"),
        ("en", "Ad"),
    ],
)
def test_rows_marked_as_ads_are_flagged(lang, label):
    rows = [
        li("Camera body", "$899.00", extra=f'<span class="lbl">{label}</span>'),
        li("Camera lens 50 mm", "$199.00"),
        li("Camera strap", "$19.00", extra=f'<div class="note"><span>{label}</span></div>'),
        li("Camera bag", "$49.00"),
    ]
    products = extract(doc('<ul class="results">' + "".join(rows) + "</ul>", lang))
    assert got(products, "name", "sponsored") == [
        ("Camera body", True),
        ("Camera lens 50 mm", False),
        ("Camera strap", True),
        ("Camera bag", False),
    ]


def test_a_label_hidden_from_everyone_does_not_make_an_ad():
    rows = [
        li(f"Lamp {i}", f"{i}9,00 €", extra='<span aria-hidden="true" class="x">Anzeige</span>')
        for i in (1, 2)
    ]
    assert [p["sponsored"] for p in extract(doc('<ul class="r">' + "".join(rows) + "</ul>", "de"))] == [
        False,
        False,
    ]


# --- cards whose price and title sit far apart -----------------------------------------------------------


def test_b2b_cards_with_price_far_from_the_title():
    body = "".join(
        f'<div class="offer-card"><div class="col-img"><a href="/product/{i}.html"><img src="/i/{i}.jpg" alt=""></a></div>'
        f'<div class="col-info"><h2 class="title"><a href="/product/{i}.html">Hydraulic pump HP-{i}00</a></h2>'
        f'<p>Min. order: 10 pieces</p><div class="supplier"><a href="/company/acme{i}">Acme {i} Co., Ltd.</a><span>5 yrs</span></div></div>'
        f'<div class="col-extra"><div class="box"><div class="price-wrap"><div class="price">US ${i}0.00-{i}50.00</div>'
        f"<div>/ piece</div></div></div></div></div>"
        for i in (1, 2, 3, 4)
    )
    products = extract(doc(f'<div class="offer-list">{body}</div>'))
    assert got(products, "name", "price", "price_upper", "currency", "url") == [
        (
            f"Hydraulic pump HP-{i}00",
            float(f"{i}0"),
            float(f"{i}50"),
            "USD",
            f"http://127.0.0.1:8000/product/{i}.html",
        )
        for i in (1, 2, 3, 4)
    ]


def test_table_rows_with_the_price_in_another_cell():
    rows = "".join(
        f'<tr><td class="pic"><a href="/auto/{i}"><img alt=""></a></td><td><a href="/auto/{i}">Renault Laguna {i}</a>'
        f'<br><span>Toulouse</span></td><td class="km">12{i} 000 km</td><td class="p">{i}4 500 €</td></tr>'
        for i in (1, 2, 3)
    )
    products = extract(
        doc(
            f'<table class="annonces"><tr><th></th><th>Annonce</th><th>Km</th><th>Prix</th></tr>{rows}</table>',
            "fr",
        )
    )
    assert got(products, "name", "price") == [(f"Renault Laguna {i}", float(f"{i}4500")) for i in (1, 2, 3)]


# --- header rows ------------------------------------------------------------------------------------------


def test_a_header_row_of_the_product_list_is_no_product():
    header = (
        '<div class="plist__header"><div class="plist__cell plist__name"><a href="?sort=name">1308 Produkte</a></div>'
        '<div class="plist__cell plist__price"><a href="?sort=p">Preis</a></div></div>'
    )
    rows = "".join(
        f'<div class="row plist__product"><div class="cell plist__image"><a href="/p{i}.html"><img alt="GPU {i}"></a></div>'
        f'<div class="cell plist__name"><a href="/p{i}.html">Grafikkarte GPU {i}</a></div>'
        f'<div class="cell plist__price"><span>ab € {i}99,00</span></div></div>'
        for i in (1, 2, 3)
    )
    unpriced = (
        '<div class="row plist__product"><div class="cell plist__image"><a href="/p9.html"><img alt="GPU 9"></a></div>'
        '<div class="cell plist__name"><a href="/p9.html">Grafikkarte GPU 9</a></div>'
        '<div class="cell plist__price"><span>derzeit nicht lieferbar</span></div></div>'
    )
    products = extract(doc(f'<div class="plist">{header}{rows}{unpriced}</div>', "de"))
    assert got(products, "name", "price") == [
        (f"Grafikkarte GPU {i}", float(f"{i}99")) for i in (1, 2, 3)
    ] + [("Grafikkarte GPU 9", None)]


# --- currency from the page's context ---------------------------------------------------------------------


def dollar_page(head: str = "", note: str = "", lang: str = "en") -> str:
    rows = "".join(li(f"CPU model {i}", f"${i}97.50") for i in (1, 2, 3))
    return doc(f'<ul class="r">{rows}</ul>{note}', lang, head)


@pytest.mark.parametrize(
    "url, currency",
    [
        ("https://pricespy.example.co.nz/c/cpu", "NZD"),
        ("https://shop.example.ca/cpu", "CAD"),
        ("https://shop.example.com.au/cpu", "AUD"),
        ("https://shop.example.com/cpu", "USD"),
        ("http://127.0.0.1:8000/cpu", "USD"),  # nothing says otherwise
    ],
)
def test_a_bare_dollar_takes_the_sites_country(url, currency):
    assert {p["currency"] for p in extract(dollar_page(), url)} == {currency}


@pytest.mark.parametrize(
    "head, note, currency",
    [
        ('<script>window.__STATE__ = {"market": {"code": "nz", "currency": "NZD"}}</script>', "", "NZD"),
        ('<script type="application/ld+json">{"@type": "Offer", "priceCurrency": "CAD"}</script>', "", "CAD"),
        ('<meta property="og:price:currency" content="AUD">', "", "AUD"),
        ("", "<footer><p>All prices in NZD, GST included.</p></footer>", "NZD"),
        ("", '<div class="cur">Currency: <b>CAD</b></div>', "CAD"),
    ],
)
def test_a_bare_dollar_takes_the_currency_the_page_states(head, note, currency):
    # Served from 127.0.0.1: no country domain, only what the page itself says.
    products = extract(dollar_page(head, note), "http://127.0.0.1:8000/cpu")
    assert got(products, "price", "currency") == [(197.5, currency), (297.5, currency), (397.5, currency)]


def test_an_explicit_mark_wins_over_the_context():
    rows = "".join(li(f"Garden chair model {i}", f"US ${i}.00") for i in (1, 2))
    assert {
        p["currency"] for p in extract(doc(f'<ul class="r">{rows}</ul>'), "https://shop.example.co.nz/")
    } == {"USD"}
    rows = "".join(li(f"Garden chair model {i}", f"{i},00 €") for i in (1, 2))
    page = doc(f'<ul class="r">{rows}</ul>', head='<script>{"currency": "NZD"}</script>')
    assert {p["currency"] for p in extract(page, "https://shop.example.co.nz/")} == {"EUR"}


def test_kroner_take_the_sites_country():
    rows = "".join(li(f"Genser i ull {i}", f"{i}99,- kr") for i in (1, 2))
    assert {
        p["currency"] for p in extract(doc(f'<ul class="r">{rows}</ul>', "no"), "https://butikk.example.no/")
    } == {"NOK"}


# --- price bounds ------------------------------------------------------------------------------------------


def test_min_and_max_price():
    rows = [
        li(f"Kubek ceramiczny {i}", f"{p} zł")
        for i, p in enumerate(["39,00", "149,99", "150,00", "150,01", "1 299,00"])
    ]
    rows.append(li("Kubek bez ceny", "<span>niedostępny</span>"))
    page = doc('<ul class="r">' + "".join(rows) + "</ul>", "pl")
    assert len(extract(page)) == 6
    assert [p["price"] for p in extract(page, max_price=150)] == [39.0, 149.99, 150.0]
    assert [p["price"] for p in extract(page, min_price=150)] == [150.0, 150.01, 1299.0]
    assert [p["price"] for p in extract(page, min_price=100, max_price=200, limit=2)] == [149.99, 150.0]
    out = products_generic.extract(page, "http://127.0.0.1/", max_price=100)
    assert out["dropped"] == 5  # what a pager needs to read on past a page with nothing in range
    assert "dropped" not in products_generic.extract(page, "http://127.0.0.1/")


# --- any listing (hypothesis) --------------------------------------------------------------------------

#: (mark before, mark after, thousands separator, decimal separator, ISO code, domain)
CURRENCIES = [
    ("", " zł", " ", ",", "PLN", "https://sklep.example.pl/"),
    ("", " €", ".", ",", "EUR", "https://shop.example.de/"),
    ("", " €", "\u202f", ",", "EUR", "https://boutique.example.fr/"),
    ("£", "", ",", ".", "GBP", "https://shop.example.co.uk/"),
    ("$", "", ",", ".", "USD", "https://shop.example.com/"),
    ("$", "", ",", ".", "NZD", "https://shop.example.co.nz/"),
    ("CA$", "", ",", ".", "CAD", "http://127.0.0.1:8000/"),
    ("CHF ", "", "'", ".", "CHF", "https://shop.example.ch/"),
]
WORDS = {
    # regular-price label, shipping label, badge, ad label, title words
    "en": ("was", "shipping", "NEW!", "Sponsored", ["Kettle", "Lamp", "Mug", "Chair", "Desk", "Clock"]),
    "de": (
        "statt",
        "Versand",
        "Neu",
        "Gesponsert",
        ["Wasserkocher", "Lampe", "Tasse", "Stuhl", "Tisch", "Uhr"],
    ),
    "pl": (
        "przed obniżką:",
        "dostawa",
        "Nowość",
        "Sponsorowane",
        ["Czajnik", "Lampa", "Kubek", "Krzesło", "Biurko", "Zegar"],
    ),
    "fr": (
        "au lieu de",
        "livraison",
        "Nouveau",
        "Sponsorisé",
        ["Bouilloire", "Lampe", "Tasse", "Chaise", "Bureau", "Horloge"],
    ),
}


def money(cents: int, cur: tuple, sup: bool = False) -> str:
    """``cents`` as the currency writes it; ``sup``: the cents raised in markup ("$19<sup>97</sup>")."""
    before, after, thousands, decimal, _, _ = cur
    whole, frac = divmod(cents, 100)
    cents_html = f"<sup>{frac:02d}</sup>" if sup else f"{decimal}{frac:02d}"
    return f"{before}{f'{whole:,}'.replace(',', thousands)}{cents_html}{after}"


@dataclass
class Card:
    name: str
    cents: int | None  # None: shown without a price ("sold out")
    sup: bool = False
    regular: int | None = None
    regular_style: str = "del"
    shipping: int | None = None
    unit: int | None = None
    badge: bool = False
    ad: bool = False
    seller: str | None = None
    expected: dict = field(default_factory=dict)


def card_html(card: Card, i: int, markup: str, cur: tuple, lang: str) -> str:
    regular_word, shipping_word, badge, ad_label, _ = WORDS[lang]
    if card.cents is None:
        price = '<span class="availability">—</span>'
    else:
        price = f'<span class="amount">{money(card.cents, cur, card.sup)}</span>'
    if card.regular is not None:
        old = money(card.regular, cur)
        price = {
            "del": f"<del>{old}</del> {price}",
            "class": f'<span class="price-old">{old}</span> {price}',
            "word": f"{price} <span>{regular_word} {old}</span>",
            "word_before": f"<span>{regular_word} {old}</span> {price}",
        }[card.regular_style]
    if card.unit is not None:
        price += f' <span class="small">({money(card.unit, cur)}/kg)</span>'
    if card.shipping is not None:
        price += f" <span>+ {money(card.shipping, cur)} {shipping_word}</span>"
    title = (f'<span class="badge">{badge}</span>' if card.badge else "") + html_lib.escape(card.name)
    ad = f'<span class="ad-label">{ad_label}</span>' if card.ad else ""
    seller = ""
    if card.seller:  # a link to the seller's page, except inside a card that is a link itself
        who = (
            card.seller
            if markup == "links"
            else f'<a href="/shop/{card.seller.split()[-1]}">{card.seller}</a>'
        )
        seller = f'<div class="seller-name">{who}</div>'

    href = f"/item/{i}"
    if markup == "list":
        return (
            f'<li class="product-item"><a href="{href}"><img src="/img/{i}.jpg" alt=""></a>{ad}'
            f'<h2 class="product-title"><a href="{href}">{title}</a></h2>{seller}<p class="prices">{price}</p></li>'
        )
    if markup == "grid":
        return (
            f'<div class="tile"><div class="tile-media"><a href="{href}"><img src="/img/{i}.jpg" alt=""></a></div>'
            f'<div class="tile-body">{ad}<a class="tile-name" href="{href}">{title}</a>{seller}</div>'
            f'<div class="tile-foot"><div class="tile-price">{price}</div></div></div>'
        )
    if markup == "table":
        return f'<tr class="offer"><td>{ad}<a href="{href}">{title}</a></td><td>{seller}</td><td class="p">{price}</td></tr>'
    # classifieds: the whole card is the link
    return (
        f'<a class="annonce" href="{href}"><div class="img"></div><section>{ad}<h3 class="annonce-title">{title}</h3>'
        f'{seller}<p>Lyon</p><div class="annonce-price">{price}</div></section></a>'
    )


def listing_html(items: list[Card], markup: str, cur: tuple, lang: str) -> str:
    inner = "".join(card_html(c, i, markup, cur, lang) for i, c in enumerate(items))
    wrap = {
        "list": '<ul class="product-list">{}</ul>',
        "grid": '<div class="grid">{}</div>',
        "table": '<table class="offers"><tr><th>Offer</th><th>Seller</th><th>Price</th></tr>{}</table>',
        "links": '<section class="annonces">{}</section>',
    }[markup]
    promo = f'<div class="banner">{money(20000, cur)}+ free delivery</div>'
    return doc(promo + wrap.format(inner), lang)


@st.composite
def listings(draw):
    cur = draw(st.sampled_from(CURRENCIES))
    lang = draw(st.sampled_from(sorted(WORDS)))
    markup = draw(st.sampled_from(["list", "grid", "table", "links"]))
    n = draw(st.integers(min_value=2, max_value=6))
    names = WORDS[lang][4]
    items = []
    sup = draw(st.integers(0, 3)) == 0 and cur[3] in ".,"  # this shop raises its cents
    for i in range(n):
        cents = draw(st.integers(min_value=100, max_value=500_000))
        card = Card(
            name=f"{names[i]} {draw(st.sampled_from(['Nord', 'Oslo', 'Lux', 'Pro', 'Mini']))} {i + 1}",
            cents=cents,
        )
        card.sup = sup
        # A listing is mostly priced blocks (two at least): one sold-out card among them.
        if i >= 2 and all(c.cents for c in items) and draw(st.integers(0, 5)) == 0:
            card.cents = None  # sold out: in the listing, without a price
            items.append(card)
            continue
        if draw(st.booleans()):
            card.regular = cents + draw(st.integers(min_value=100, max_value=50_000))
            card.regular_style = draw(st.sampled_from(["del", "class", "word", "word_before"]))
        if draw(st.integers(0, 3)) == 0:
            card.shipping = draw(st.integers(min_value=100, max_value=2_000))
        if draw(st.integers(0, 3)) == 0:
            card.unit = draw(st.integers(min_value=50, max_value=5_000))
        card.badge = draw(st.integers(0, 4)) == 0
        card.ad = draw(st.integers(0, 4)) == 0
        if draw(st.integers(0, 3)) == 0:
            card.seller = f"Shop {draw(st.sampled_from(['Alfa', 'Beta', 'Gamma']))} {i}"
        items.append(card)
    return cur, lang, markup, items


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(listings())
def test_any_listing(generated):
    cur, lang, markup, items = generated
    page = listing_html(items, markup, cur, lang)
    products = extract(page, cur[5])
    assert [p["name"] for p in products] == [c.name for c in items], page
    assert [p["price"] for p in products] == [c.cents / 100 if c.cents else None for c in items], page
    assert [p.get("price_regular") for p in products] == [
        c.regular / 100 if c.regular else None for c in items
    ], page
    assert {p["currency"] for p in products} == {cur[4]}, page
    assert [p["sponsored"] for p in products] == [c.ad for c in items], page
    assert [p["url"] for p in products] == [f"{cur[5].rstrip('/')}/item/{i}" for i in range(len(items))]


# --- names beside a subtitle; grids loaded page by page -------------------------------------------

SUBTITLED = [
    # (markup of the name with its subtitle, the name)
    (
        '<div class="product-name"><p class="product-display-name">Trail Runner 3</p>'
        '<p class="product-subtitle">Men\'s Running Shoe</p></div>',
        "Trail Runner 3",
    ),
    (
        '<div class="card__title"><span class="card__name">Kubek Termiczny</span>'
        '<span class="card__sub">Stal nierdzewna, 0,5 l</span></div>',
        "Kubek Termiczny",
    ),
    (
        '<div data-testid="product-title"><h4 data-testid="product-name">Wanderjacke Nord</h4>'
        "<small>Damen, wasserdicht</small></div>",
        "Wanderjacke Nord",
    ),
    (
        '<div class="ttl_3f9a1"><span class="name_8c2d0 x91">Desk Lamp</span>'
        '<span class="sub_77aa1">Brass, dimmable</span></div>',
        "Desk Lamp",
    ),
]


@pytest.mark.parametrize("name_html, name", SUBTITLED, ids=[n for _, n in SUBTITLED])
def test_a_name_element_inside_a_title_block_is_the_name(name_html, name):
    """A name/title element around a name element and a subtitle ("Men's Running Shoe"): the inner
    name element is the product's name; a brand inside a title does not count as one."""
    items = "".join(
        f'<li class="tile"><a href="/p/{i}"><img src="/i/{i}.jpg" alt=""></a>{name_html}'
        f'<span class="price">{19 + i},99 €</span></li>'
        for i in range(3)
    )
    products = extract(doc(f'<ul class="grid">{items}</ul>', "de"))
    assert [p["name"] for p in products] == [name] * 3
    brand = '<div class="product-title"><span class="product-title__brand">Acme</span> Steel Water Bottle 750 ml</div>'
    items = "".join(
        f'<li class="tile"><a href="/p/{i}">{brand}</a><span class="price">${9 + i}.50</span></li>'
        for i in range(3)
    )
    assert [p["name"] for p in extract(doc(f'<ul class="grid">{items}</ul>'))] == [
        "Acme Steel Water Bottle 750 ml"
    ] * 3


@pytest.mark.parametrize(
    "card, page_wrap, lang, price",
    [
        (
            '<div class="grid-item">{}</div>',
            '<div class="sub-page" data-page="{n}">{}</div>',
            "en",
            "${n}.99",
        ),
        ('<article class="kafelek">{}</article>', '<section class="strona">{}</section>', "pl", "{n},99 zł"),
        (
            '<li data-testid="product-card">{}</li>',
            '<ul data-testid="page-{n}">{}</ul>',
            "de",
            "{n},99 €",
        ),
        ('<div class="crd_1a2b3 p-2">{}</div>', '<div class="pg_9f8e7">{}</div>', "en", "£{n}.49"),
    ],
)
def test_a_grid_loaded_page_by_page_is_one_listing(card, page_wrap, lang, price):
    """The next pages of a grid loaded into the grid, each in a wrapper of its own, belong to it."""
    names = ["Alder Chair", "Birch Table", "Cedar Shelf", "Elm Bench", "Fir Stool", "Oak Desk", "Pine Bed"]

    def one(i: int) -> str:
        inner = f'<a href="/p/{i}"><img src="/i/{i}.jpg" alt=""></a><h3>{names[i]}</h3><span>{price.format(n=10 + i)}</span>'
        return card.format(inner)

    first = "".join(one(i) for i in range(3))
    later = "".join(page_wrap.format(one(i) + one(i + 1), n=p) for p, i in enumerate((3, 5), start=2))
    products = extract(doc(f'<div class="grid">{first}{later}</div>', lang))
    assert [p["name"] for p in products] == names


# --- filter boxes -------------------------------------------------------------------------------------

FILTER_WORDS = {
    # (facets: a category and its lowest price, product names, price format)
    "en": (
        [("Walking tours", "from $25"), ("Boat trips", "from $40"), ("Food and wine", "from $55")],
        ["City walking tour", "Harbour boat trip"],
        "${}",
    ),
    "pl": (
        [("Wycieczki piesze", "od 50 zł"), ("Rejsy statkiem", "od 80 zł"), ("Degustacje wina", "od 120 zł")],
        ["Rejs po zatoce", "Spacer po starówce"],
        "{} zł",
    ),
    "de": (
        [("Stadtführungen", "ab 25 €"), ("Bootsfahrten", "ab 40 €"), ("Weinproben", "ab 55 €")],
        ["Stadtführung zu Fuß", "Hafenrundfahrt"],
        "{} €",
    ),
}
#: What a result says about itself (the results hold most of the page's text, the filters little).
FILTER_TEXT = {
    "en": "Three hours with a local guide through the old town, the harbour and the market hall, "
    "with stops for coffee and photos; small groups, free cancellation up to a day before.",
    "pl": "Trzy godziny z lokalnym przewodnikiem po starym mieście, porcie i hali targowej, z "
    "przerwami na kawę i zdjęcia; małe grupy, bezpłatne anulowanie do dnia przed.",
    "de": "Drei Stunden mit einer Führerin durch die Altstadt, den Hafen und die Markthalle, mit "
    "Pausen für Kaffee und Fotos; kleine Gruppen, kostenlose Stornierung bis einen Tag vorher.",
}
FILTER_BOXES = [
    (
        '<div class="search-filters"><ul>{}</ul></div>',
        '<li class="filter-option"><label>{name}</label> <a class="price" href="/f/{i}">{price}</a>'
        " <span>({n})</span></li>",
    ),
    (
        '<div class="Results-Filters-CategoryFilter"><ul>{}</ul></div>',
        '<li class="FilterItem"><span class="name">{name}</span><a href="/f/{i}">{price}</a><i>{n}</i></li>',
    ),
    (
        '<form class="js-filterForm"><div>{}</div></form>',
        '<div class="opt"><input type="checkbox"> {name} <a href="/f/{i}"><b>{price}</b></a> {n}</div>',
    ),
]


@pytest.mark.parametrize("box", range(len(FILTER_BOXES)))
@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_filter_box_of_price_facets_is_no_listing(lang, box):
    """Two offers beside a filter box of four price facets: the offers are the listing; and a filter
    form around the whole content (holding the page's heading) is no chrome."""
    labels, offers, fmt = FILTER_WORDS[lang]
    wrap, facet = FILTER_BOXES[box]
    facets = wrap.format(
        "".join(facet.format(i=i, name=name, price=price, n=10 + i) for i, (name, price) in enumerate(labels))
    )
    items = "".join(
        f'<div class="result"><h3 class="title">{name}</h3><p>{FILTER_TEXT[lang]}</p>'
        f'<a class="cheapest" href="/book/{i}"><span class="price">{fmt.format(26 + 39 * i)}</span></a></div>'
        for i, name in enumerate(offers)
    )
    page = doc(
        f'<div class="layout"><aside-col>{facets}</aside-col><div id="results">{items}</div></div>', lang
    )
    assert [(p["name"], p["price"]) for p in extract(page)] == [(offers[0], 26.0), (offers[1], 65.0)]
    around = doc(
        f'<form class="filter-form"><h1>{labels[0][0]}</h1><ul class="results">'
        + "".join(li(name, fmt.format(26 + 39 * i)) for i, name in enumerate(offers))
        + "</ul></form>",
        lang,
    )
    assert [(p["name"], p["price"]) for p in extract(around)] == [(offers[0], 26.0), (offers[1], 65.0)]


PENCE_CARDS = [
    '<li class="product"><h3><a href="/p/{i}">{name}</a></h3><p class="price"><span>{shown}</span> <span class="unit">({unit}/kg)</span></p></li>',
    '<div class="tile"><a href="/p/{i}">{name}</a><div class="tile__price">{shown}</div></div>',
    '<tr><td><a href="/p/{i}">{name}</a></td><td>{shown} each</td></tr>',
]
GROCERIES = [
    ("Bananas, loose", 0.18, "18p", "90p"),
    ("Semi-skimmed milk 2 pints", 1.45, "£1.45", "63p"),
    ("Tinned tomatoes 400g", 0.55, "55p", "£1.38"),
    ("Wholemeal bread 800g", 1.35, "£1.35", "£1.69"),
]


@pytest.mark.parametrize("card", PENCE_CARDS)
def test_amounts_in_pence_on_a_page_priced_in_pounds(card):
    """A grocery listing pricing small amounts in pence ("18p", "55p each") and the rest in pounds:
    every product has its price; the same cards on a page in another currency keep pence unread, and
    "1080p" in a name is never a price."""
    rows = "".join(card.format(i=i, name=n, shown=s, unit=u) for i, (n, _, s, u) in enumerate(GROCERIES))
    wrap = "<table>{}</table>" if card.startswith("<tr") else '<div class="list">{}</div>'
    products = extract(doc(wrap.format(rows), "en-GB"))
    assert got(products, "name", "price", "currency") == [(n, p, "GBP") for n, p, _, _ in GROCERIES]
    only_pence = "".join(
        card.format(i=i, name=n, shown="25p", unit="50p") for i, (n, *_) in enumerate(GROCERIES)
    )
    products = extract(doc(wrap.format(only_pence), "en-GB"), "https://shop.example.co.uk/sweets")
    assert got(products, "price", "currency") == [(0.25, "GBP")] * 4
    tvs = "".join(
        card.format(i=i, name=f"Full HD TV 1080p {i}", shown=f"€{199 + i}", unit="–") for i in range(3)
    )
    products = extract(doc(wrap.format(tvs), "en"))
    assert got(products, "price", "currency") == [(199.0 + i, "EUR") for i in range(3)]


VARIANT_CARDS = {
    # language: (names, variant labels, price format)
    "en": (
        ["The Silent Lake", "A House of Clocks", "Winter Orchard", "Salt and Iron"],
        ("Paperback", "Hardcover"),
        "${:.2f}",
    ),
    "pl": (
        ["Lalka", "Chłopi", "Ziemia obiecana", "Przedwiośnie"],
        ("Okładka miękka", "Okładka twarda"),
        "{:.2f} zł",
    ),
    "de": (
        ["Der Zauberberg", "Buddenbrooks", "Der Steppenwolf", "Siddhartha"],
        ("Taschenbuch", "Gebundene Ausgabe"),
        "{:.2f} €",
    ),
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "variants",
    [
        '<ul class="formats">{}</ul>',
        '<table class="sizes">{}</table>',
        '<div class="options">{}</div>',
    ],
)
def test_each_cards_formats_or_sizes_are_no_products_of_their_own(variants, lang):
    """Cards of a title and a picture, each with a small list of its formats or sizes, a link and a
    price each ("Paperback $12.99", "Hardcover $24.00"): the cards are the products, priced by their
    first variant; the variants, saying the same words on every card, are not."""
    names, labels, fmt = VARIANT_CARDS[lang]
    row = {
        "<ul": "<li><a href='{href}'>{label}</a> <span>{price}</span></li>",
        "<ta": "<tr><td><a href='{href}'>{label}</a></td><td>{price}</td></tr>",
        "<di": "<p><a href='{href}'>{label}</a> <b>{price}</b></p>",
    }[variants[:3]]
    cards = []
    for i, name in enumerate(names):
        prices = (10.0 + i, 20.0 + i)
        rows = "".join(
            row.format(
                href=f"/p/{i}?v={k}",
                label=label,
                price=fmt.format(p).replace(".", "," if lang != "en" else "."),
            )
            for k, (label, p) in enumerate(zip(labels, prices, strict=True))
        )
        cards.append(
            f'<div class="card"><a href="/p/{i}"><img src="/i/{i}.jpg" alt=""></a><h3><a href="/p/{i}">{name}</a></h3>'
            f"{variants.format(rows)}</div>"
        )
    products = extract(doc(f"<main><h1>Shop</h1><div class='grid'>{''.join(cards)}</div></main>", lang))
    assert got(products, "name", "price") == [(name, 10.0 + i) for i, name in enumerate(names)]


@pytest.mark.parametrize(
    "price_html",
    [
        '<span class="selling">₹1,29,999</span> <span>M.R.P.: <del>₹1,49,999</del></span>',
        "<b>Rs. 1,29,999</b> <s>Rs. 1,49,999</s>",
        '<span class="price">₹ 1,29,999.00</span>',
    ],
)
def test_prices_grouped_the_indian_way(price_html):
    """A listing of an Indian shop: "₹1,29,999" is 129,999 rupees (lakh grouping), not 1.29."""
    products = extract(
        cards(*(li(f"Laptop model {i}", price_html) for i in range(3))), "https://shop.example.in/laptops"
    )
    assert got(products, "price", "currency") == [(129999.0, "INR")] * 3


SCRIPT_LINK_CARDS = [
    '<div class="card" role="link" tabindex="0" data-href="/p/{i}" onclick="location.href=this.dataset.href">'
    '<img src="/i/{i}.jpg" alt=""><div class="name">{name}</div><div class="price">{price}</div></div>',
    '<li class="tile" data-url="/p/{i}"><h3>{name}</h3><span>{price}</span><button>Add</button></li>',
    '<article data-href="/p/{i}" class="x9a1"><p class="k2">{name}</p><p class="k3">{price}</p></article>',
]
SCRIPT_LINK_GOODS = {
    "pl": [
        ("Lampa biurkowa LED Arco", "129,99 zł", 129.99),
        ("Krzesło obrotowe Flex", "449,00 zł", 449.0),
        ("Organizer na kable", "24,99 zł", 24.99),
    ],
    "en": [
        ("Desk Lamp LED Arco", "$129.99", 129.99),
        ("Swivel Chair Flex", "$449.00", 449.0),
        ("Cable Organizer Box", "$24.99", 24.99),
    ],
    "de": [
        ("Schreibtischlampe LED Arco", "129,99 €", 129.99),
        ("Drehstuhl Flex", "449,00 €", 449.0),
        ("Kabelorganizer Box", "24,99 €", 24.99),
    ],
}


@pytest.mark.parametrize("lang", list(SCRIPT_LINK_GOODS))
@pytest.mark.parametrize("card", SCRIPT_LINK_CARDS)
def test_cards_a_script_makes_links_are_products(card, lang):
    """Cards with no ``<a>`` that a script opens (``role="link"`` with ``data-href``, an app's
    ``data-url``): each is a product, its address the one it opens."""
    goods = SCRIPT_LINK_GOODS[lang]
    items = "".join(card.format(i=i, name=n, price=shown) for i, (n, shown, _) in enumerate(goods))
    wrap = "<ul class='grid'>{}</ul>" if card.startswith("<li") else "<div class='grid'>{}</div>"
    products = extract(
        doc(f"<main><h1>Office</h1>{wrap.format(items)}</main>", lang), "https://shop.example/office"
    )
    assert got(products, "name", "price", "url") == [
        (n, price, f"https://shop.example/p/{i}") for i, (n, _, price) in enumerate(goods)
    ]
