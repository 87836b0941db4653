"""products_generic: a card's price and regular price when nothing on the page marks them.

A saved page has lost the CSS that struck the old price through. Two prices of one card that no word,
strike-through or class tells apart: the lower is the price to pay, the higher the price before the
reduction, in whichever order the card shows them. A class word about the typeface ("font-size--regular",
"fw-regular", "text-regular") is no price role. In three markups (a list, a table, a BEM grid) and three
languages and currencies (EN $, PL zł, DE €)."""

from __future__ import annotations

import pytest

from curllm_core.tools.extraction import products_generic
from tests.tools.test_extraction_helpers import assert_valid_output

SHOPS = {
    "en": ("USD", "${}", ".", ["Trail Runner Shoe", "Rain Jacket Light", "Wool Hiking Socks"]),
    "pl": (
        "PLN",
        "{} zł",
        ",",
        ["Buty do biegania w terenie", "Kurtka przeciwdeszczowa", "Skarpety wełniane"],
    ),
    "de": ("EUR", "{} €", ",", ["Trailschuh für Damen", "Leichte Regenjacke", "Wandersocken aus Wolle"]),
}
PAIRS = [(56.25, 39.97), (120.0, 99.5), (15.0, 12.49)]
TYPE_CLASSES = ["font-size--regular", "fw-regular text-sm", "text-regular"]


def _money(lang: str, amount: float) -> str:
    _, pattern, sep, _ = SHOPS[lang]
    return pattern.format(f"{amount:.2f}".replace(".", sep))


def _prices(lang: str, first: float, second: float, box_class: str) -> str:
    return (
        f'<div class="{box_class}"><div class="prices"><span class="a1">{_money(lang, first)}</span> '
        f'<span class="b2">{_money(lang, second)}</span></div></div>'
    )


def _page(markup: str, lang: str, higher_first: bool, box_class: str) -> str:
    names = SHOPS[lang][3]
    rows = []
    for i, (name, (high, low)) in enumerate(zip(names, PAIRS, strict=True)):
        prices = _prices(lang, *((high, low) if higher_first else (low, high)), box_class)
        link = f'<a href="/p/{i}">{name}</a>'
        if markup == "list":
            rows.append(f'<li class="product"><h3>{link}</h3>{prices}</li>')
        elif markup == "table":
            rows.append(f"<tr><td>{link}</td><td>{prices}</td></tr>")
        else:
            rows.append(f'<div class="grid__card"><p class="grid__name">{link}</p>{prices}</div>')
    wrap = {"list": "<ul>{}</ul>", "table": "<table>{}</table>", "grid": '<div class="grid">{}</div>'}[markup]
    return f'<html lang="{lang}"><body><h1>Shop</h1>{wrap.format("".join(rows))}</body></html>'


@pytest.mark.parametrize("higher_first", [True, False])
@pytest.mark.parametrize(
    "markup, lang, box_class",
    [
        ("list", "en", TYPE_CLASSES[0]),
        ("table", "pl", TYPE_CLASSES[1]),
        ("grid", "de", TYPE_CLASSES[2]),
        ("grid", "en", "product-price"),
        ("list", "pl", "product-price"),
        ("table", "de", "product-price"),
    ],
)
def test_of_two_unmarked_prices_the_lower_is_the_price(markup, lang, box_class, higher_first):
    out = products_generic.extract(_page(markup, lang, higher_first, box_class), "http://127.0.0.1:8000/list")
    assert_valid_output("products_generic", out)
    currency = SHOPS[lang][0]
    assert [(p["name"], p["price"], p.get("price_regular"), p["currency"]) for p in out["products"]] == [
        (name, low, high, currency) for name, (high, low) in zip(SHOPS[lang][3], PAIRS, strict=True)
    ]


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_typeface_class_word_leaves_a_single_price_the_price(lang):
    """One price in a box classed "font-size--regular": the price, with no regular price."""
    names = SHOPS[lang][3]
    rows = "".join(
        f'<li><h3><a href="/p/{i}">{name}</a></h3><div class="font-size--regular">{_money(lang, low)}</div></li>'
        for i, (name, (_, low)) in enumerate(zip(names, PAIRS, strict=True))
    )
    out = products_generic.extract(f"<html><body><ul>{rows}</ul></body></html>", "http://127.0.0.1:8000/")
    assert [(p["price"], p.get("price_regular")) for p in out["products"]] == [
        (low, None) for _, low in PAIRS
    ]


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_three_unmarked_prices_are_left_in_their_order(lang):
    """Three prices nothing tells apart are options, not a reduction: the first stays the price."""
    names = SHOPS[lang][3]
    rows = "".join(
        f'<li><h3><a href="/p/{i}">{name}</a></h3><div class="prices"><span>{_money(lang, 30.0)}</span> '
        f"<span>{_money(lang, 20.0)}</span> <span>{_money(lang, 25.0)}</span></div></li>"
        for i, name in enumerate(names)
    )
    out = products_generic.extract(f"<html><body><ul>{rows}</ul></body></html>", "http://127.0.0.1:8000/")
    assert [p["price"] for p in out["products"]] == [30.0, 30.0, 30.0]
