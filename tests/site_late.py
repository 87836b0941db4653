"""Listings a script completes a moment after the ``load`` event, with nothing on the page saying so.

Served by ``tests/site_server.py`` under ``/late/<how>?markup=&lang=&ms=&stated=``: the HTML holds
the first `FIRST` items of `TOTAL`; a script adds the rest ``ms`` milliseconds (default 50) after
``load``, in one of these ways (`HOWS`), with no request, skeleton or "Loading…" line meanwhile:

``load-timeout``  a ``load`` listener sets a timer (``setTimeout(fill, ms)``);
``body-timeout``  a script at the end of the body sets the timer while the page is parsed;
``onload-attr``   ``<body onload=...>`` sets the timer;
``chain``         a ``load`` listener sets a timer that sets another (half the delay each);
``frames``        a ``load`` listener waits two animation frames, then sets the timer;
``promise``       a ``load`` listener awaits a promise resolved by a timer, then fills (microtasks).

``markup``: ``list`` (``ul``/``li``, utility classes), ``cards`` (BEM ``div`` cards), ``table``
(rows); ``lang``: ``en``, ``pl``, ``de``. ``stated=1`` also says how many products there are
("24 products", "24 produktów", "24 Produkte"); ``spinner=1`` adds a spinner the stylesheet hides
(markup alone shows it: ``auto`` goes to the browser). `items(lang)` is what a page lists once complete.
"""

from __future__ import annotations

import html
import json

HOWS = ("load-timeout", "body-timeout", "onload-attr", "chain", "frames", "promise")
MARKUPS = ("list", "cards", "table")
TOTAL = 24
FIRST = 4

_NOUNS = {
    "en": ["Desk lamp", "Coffee mug", "Hiking backpack", "Wall clock", "Tea kettle", "Armchair"],
    "pl": ["Lampka biurkowa", "Kubek do kawy", "Plecak turystyczny", "Zegar ścienny", "Czajnik", "Fotel"],
    "de": ["Schreibtischlampe", "Kaffeebecher", "Wanderrucksack", "Wanduhr", "Teekessel", "Sessel"],
}
_TITLE = {"en": "Home & living", "pl": "Dom i wnętrze", "de": "Wohnen & Leben"}
_STATED = {"en": "{n} products", "pl": "{n} produktów", "de": "{n} Produkte"}


def items(lang: str) -> list[dict[str, object]]:
    """The complete listing: ``name`` and ``price`` (a number) of each of `TOTAL` items."""
    nouns = _NOUNS[lang]
    return [
        {
            "id": f"l{i + 1:02d}",
            "name": f"{nouns[i % len(nouns)]} {100 + i * 7}",
            "price": round(19.0 + i * 13.5 + (i % 4) * 0.49, 2),
        }
        for i in range(TOTAL)
    ]


def _price(amount: float, lang: str) -> str:
    text = f"{amount:.2f}"
    if lang == "en":
        return "$" + text
    return text.replace(".", ",") + ("\u00a0zł" if lang == "pl" else "\u00a0€")


def _row(item: dict, lang: str, markup: str) -> str:
    name, price = html.escape(str(item["name"])), _price(float(item["price"]), lang)  # type: ignore[arg-type]
    href = f"/late/p/{item['id']}"
    if markup == "list":
        return f'<li class="flex gap-2 p-2"><a class="font-bold" href="{href}">{name}</a> <span class="text-lg">{price}</span></li>'
    if markup == "table":
        return f"<tr><td><a href='{href}'>{name}</a></td><td class='num'>{price}</td></tr>"
    return (
        f'<div class="product-card"><h3 class="product-card__name"><a href="{href}">{name}</a></h3>'
        f'<p class="product-card__price">{price}</p></div>'
    )


_FILL = {
    "load-timeout": "addEventListener('load', () => setTimeout(fill, MS));",
    "body-timeout": "setTimeout(fill, MS);",
    "onload-attr": "",
    "chain": "addEventListener('load', () => setTimeout(() => setTimeout(fill, MS / 2), MS / 2));",
    "frames": "addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(fill, MS))));",
    "promise": (
        "addEventListener('load', async () => { await Promise.resolve(); "
        "await new Promise((done) => setTimeout(done, MS)); await null; fill(); });"
    ),
}


def page(how: str, params: dict[str, str]) -> str | None:
    """The HTML of ``/late/<how>``; None for an unknown way, markup or language."""
    markup, lang = params.get("markup", "list"), params.get("lang", "en")
    if how not in _FILL or markup not in MARKUPS or lang not in _NOUNS:
        return None
    try:
        ms = max(0, min(2000, int(params.get("ms", "50"))))
    except ValueError:
        ms = 50
    all_items = items(lang)
    first = "".join(_row(i, lang, markup) for i in all_items[:FIRST])
    rest = json.dumps([_row(i, lang, markup) for i in all_items[FIRST:]])
    if markup == "list":
        holder = f'<ul id="items" class="grid grid-cols-2">{first}</ul>'
    elif markup == "table":
        holder = f'<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody id="items">{first}</tbody></table>'
    else:
        holder = f'<div id="items" class="product-grid">{first}</div>'
    # a spinner the page's stylesheet hides until it is needed: markup alone cannot tell it is hidden
    spinner = '<div class="list-spinner" aria-hidden="true"></div>' if params.get("spinner") == "1" else ""
    stated = f"<p class='count'>{_STATED[lang].format(n=TOTAL)}</p>" if params.get("stated") == "1" else ""
    onload = f' onload="setTimeout(fill, {ms})"' if how == "onload-attr" else ""
    script = (
        f"function fill() {{ document.getElementById('items').insertAdjacentHTML('beforeend', {rest}.join('')); }}\n"
        + _FILL[how].replace("MS", str(ms))
    )
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{_TITLE[lang]}</title>'
        "<style>.list-spinner { display: none; width: 24px; height: 24px; }</style></head>"
        f"<body{onload}><h1>{_TITLE[lang]}</h1>{stated}<main>{holder}{spinner}</main>"
        f"<script>{script}</script></body></html>"
    )
