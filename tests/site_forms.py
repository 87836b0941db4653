"""Price filter forms of the test site: ones that do nothing and ones that work, in several markups
and languages, for telling the two apart quickly and rightly.

Served by ``tests/site_server.py`` under ``/forms/<kind>?markup=&lang=`` (GET, and POST for the form
that posts), every page listing `ITEMS` of its language with a "price to" field ("Cena do", "Price
to", "Preis bis") and, but for ``debounce``, a button ("Filtruj", "Apply", "Filtern"). Markups:
``plain`` (an id'd list of classed items), ``bem`` (BEM blocks in a grid of articles), ``testid``
(``data-testid`` attributes, hashed classes).

Kinds that do nothing (`INERT`): the listing stays as it was, whatever is submitted.

``listener``   a submit listener that cancels the submit and does nothing else.
``returnfalse`` ``<form onsubmit="return false">``, no script.
``button``     the button is ``type="button"``, no script behind it.
``samepage``   a GET form whose fields have no names: submitting loads the same address with the same
               query (its hidden fields keep the page's query, as for ``get``).
``touchy``     ``return false``, and a click handler that marks the button and the page with classes.

Kinds that work (`WORKING`): afterwards only the items at most ``max`` are listed (or shown).

``debounce``   no button: an input listener applies the filter 300 ms after the last keystroke.
``xhr``        the submit is cancelled and the list fetched again from ``/forms-api/items?max=``.
``get``        a plain GET submit to the page itself; the server lists what is in range.
``post``       a POST submit to the same address; the server lists what the posted ``max`` allows.
``hide``       the submit is cancelled and the items out of range are hidden (``hidden``), not removed.
"""

from __future__ import annotations

import html
import json
from urllib.parse import parse_qs

INERT = ("listener", "returnfalse", "button", "samepage", "touchy")
WORKING = ("debounce", "xhr", "get", "post", "hide")
MARKUPS = ("plain", "bem", "testid")
LANGS = ("pl", "en", "de")
#: name, price: what every page lists, in each language.
ITEMS: dict[str, list[tuple[str, float]]] = {
    "pl": [
        ("Kubek ceramiczny", 29.99),
        ("Czajnik stalowy", 149.0),
        ("Lampa biurkowa", 189.5),
        ("Plecak miejski", 99.0),
        ("Termos 1 l", 79.9),
        ("Fotel obrotowy", 599.0),
    ],
    "en": [
        ("Ceramic mug", 12.5),
        ("Steel kettle", 49.0),
        ("Desk lamp", 64.99),
        ("City backpack", 35.0),
        ("Flask 1 l", 22.0),
        ("Swivel chair", 210.0),
    ],
    "de": [
        ("Keramikbecher", 9.99),
        ("Wasserkocher", 39.0),
        ("Schreibtischlampe", 59.5),
        ("Stadtrucksack", 45.0),
        ("Thermoskanne", 24.9),
        ("Drehstuhl", 199.0),
    ],
}
#: A bound for each language that keeps some items and drops others.
LIMITS = {"pl": 150, "en": 50, "de": 40}
_WORDS = {
    "pl": ("Cena do", "Filtruj", "Produkty"),
    "en": ("Price to", "Apply", "Products"),
    "de": ("Preis bis", "Filtern", "Produkte"),
}


def money(amount: float, lang: str) -> str:
    if lang == "en":
        return f"£{amount:.2f}"
    text = f"{amount:.2f}".replace(".", ",")
    return f"{text} zł" if lang == "pl" else f"{text} €"


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower())


def in_range(lang: str, limit: float | None) -> list[tuple[str, float]]:
    """The items a working filter leaves (all of them without a bound)."""
    return [(n, p) for n, p in ITEMS[lang] if limit is None or p <= limit]


def _item(markup: str, name: str, price: float, lang: str) -> str:
    a = f'href="/produkt/{slug(name)}"'
    n, p = html.escape(name), html.escape(money(price, lang))
    if markup == "bem":
        return (
            f'<article class="tile" data-price="{price}"><h3 class="tile__title"><a class="tile__link" {a}>{n}</a>'
            f'</h3><p class="tile__price price">{p}</p></article>'
        )
    if markup == "testid":
        return (
            f'<div class="x9Fq2" data-testid="product-card" data-price="{price}">'
            f'<a class="Qa1_b" data-testid="product-name" {a}>{n}</a>'
            f'<span class="Zt7_c" data-testid="product-price">{p}</span></div>'
        )
    return f'<li class="item" data-price="{price}"><a class="item__name" {a}>{n}</a> <span class="item__price">{p}</span></li>'


def _listing(markup: str, lang: str, items: list[tuple[str, float]]) -> str:
    cards = "".join(_item(markup, n, p, lang) for n, p in items)
    if markup == "bem":
        return f'<section class="grid" id="listing">{cards}</section>'
    if markup == "testid":
        return f'<div class="Lk3_a" id="listing" data-testid="product-grid">{cards}</div>'
    return f'<ul id="listing">{cards}</ul>'


def _form(kind: str, params: dict[str, str], lang: str) -> str:
    label, button, _ = _WORDS[lang]
    # the page's state (its query) carried through the form, as shops do
    keep = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in params.items()
        if k != "max"
    )
    named = kind != "samepage"
    name = ' name="max"' if named else ""
    field = f'<label for="pmax">{label}</label> <input type="text" id="pmax"{name}>'
    press = f'<button type="{"button" if kind == "button" else "submit"}">{button}</button>'
    if kind == "debounce":
        return f'<div class="filters">{field}</div>'
    if kind == "returnfalse" or kind == "touchy":
        return f'<form id="filter" onsubmit="return false">{field} {press}</form>'
    if kind == "samepage":
        return f'<form id="filter" method="get">{keep}{field} {press}</form>'
    if kind == "post":
        return f'<form id="filter" method="post">{field} {press}</form>'
    if kind == "get":
        return f'<form id="filter" method="get">{keep}{field} {press}</form>'
    return f'<form id="filter" method="get" action="/nowhere">{field} {press}</form>'


#: The page scripts: each kind's own, with the markup's item renderer for the one that re-renders.
_SCRIPTS = {
    "listener": 'document.getElementById("filter").addEventListener("submit", (e) => e.preventDefault());',
    "touchy": 'document.querySelector("button").addEventListener("click", function () {'
    ' this.classList.add("is-pressed"); document.body.classList.add("mouse-user"); });',
    "debounce": "let t = 0; const f = document.getElementById('pmax');"
    " f.addEventListener('input', () => { clearTimeout(t); t = setTimeout(() => {"
    " const max = parseFloat(f.value.replace(',', '.'));"
    " document.querySelectorAll('[data-price]').forEach((el) => { if (parseFloat(el.dataset.price) > max) el.remove(); });"
    " }, 300); });",
    "xhr": "document.getElementById('filter').addEventListener('submit', async (e) => { e.preventDefault();"
    " const max = document.getElementById('pmax').value.replace(',', '.');"
    " const r = await fetch('/forms-api/items?lang=LANG&markup=MARKUP&max=' + encodeURIComponent(max));"
    " document.getElementById('listing').outerHTML = (await r.json()).html; });",
    "hide": "document.getElementById('filter').addEventListener('submit', (e) => { e.preventDefault();"
    " const max = parseFloat(document.getElementById('pmax').value.replace(',', '.'));"
    " document.querySelectorAll('[data-price]').forEach((el) => { el.hidden = parseFloat(el.dataset.price) > max; }); });",
}


def _limit(value: str | None) -> float | None:
    try:
        return float((value or "").replace(",", "."))
    except ValueError:
        return None


def page(kind: str, params: dict[str, str], posted: bytes = b"") -> str | None:
    """The page of ``kind`` (None for an unknown one); ``posted`` is a POST request's body."""
    markup = params.get("markup") if params.get("markup") in MARKUPS else "plain"
    lang = params.get("lang") if params.get("lang") in LANGS else "pl"
    if kind not in INERT + WORKING:
        return None
    limit = None
    if kind == "get":
        limit = _limit(params.get("max"))
    elif kind == "post":
        limit = _limit(parse_qs(posted.decode("utf-8", "replace")).get("max", [""])[-1])
    script = _SCRIPTS.get(kind, "").replace("LANG", lang).replace("MARKUP", markup)
    heading = _WORDS[lang][2]
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{heading}</title>'
        f'<link rel="icon" href="data:,"></head><body><h1>{heading}</h1>{_form(kind, params, lang)}'
        f"{_listing(markup, lang, in_range(lang, limit))}"
        f"<script>{script}</script></body></html>"
    )


def api(params: dict[str, str]) -> str:
    """``/forms-api/items``: the listing in range, as the HTML the ``xhr`` page puts in place."""
    markup = params.get("markup") if params.get("markup") in MARKUPS else "plain"
    lang = params.get("lang") if params.get("lang") in LANGS else "pl"
    return json.dumps({"html": _listing(markup, lang, in_range(lang, _limit(params.get("max"))))})
