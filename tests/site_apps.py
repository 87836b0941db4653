"""Client-rendered listings of the test site, built the way React/Next/Vue shops build them today.

Served by ``tests/site_server.py`` under ``/app/<pattern>`` with the query ``markup`` (``soup``:
utility classes, ``bem``, ``hashed``: CSS-module class names, ``testid``: ``data-testid``
attributes), ``lang`` (``pl``, ``en``, ``de``) and ``delay`` (ms the item API holds its answer,
default 600: the request is in flight meanwhile, as on a real network); ``bare=1`` leaves the
skeletons and the loading line out (nothing says content is coming). Every page is an empty
shell at ``load``: skeleton cards and a "Loading…"/"Ładowanie…"/"Wird geladen…" line, then a script
"hydrates" (``hydrate`` ms later, default 200) and fetches the items from ``/app-api/items``; the
prices come from a second request (``/app-api/prices``), their slots grey until then. Each page
states its own size ("42 products", "Wyniki 1–12 z 42", "12 von 42 Produkten").

Patterns (``total`` items each; ``/app-api/...`` answers from the same catalogue):

``render``    all items at once (12), after the fetch: the page is ready only when the prices are in.
``loadmore``  12 at a time, a "Load more" / "Pokaż więcej" / "Mehr laden" button until all 42.
``scroll``    infinite scroll: 12 more when the end of the list comes into view, until all 36.
``virtual``   a virtualized list of 80 rows in a scrolling box: only the rows in view are in the DOM.
``filter``    24 items and a price filter that applies itself (inputs with a 400 ms debounce, no
              button); ``?min=``/``?max=`` are the API's.
``sort``      24 items and a custom sort control (a button opening a ``role=listbox``, or, with
              markup ``soup``, a div dropdown without roles).
``short``     like ``loadmore`` but its button is broken (it loads nothing): the page says 42 and
              shows 12, the case for a completeness warning.

``catalogue(lang, total)`` is the data the pages render, for tests to compare with.
"""

from __future__ import annotations

import html
import json
import time
from typing import Any

PATTERNS = {"render": 12, "loadmore": 42, "scroll": 36, "virtual": 80, "filter": 24, "sort": 24, "short": 42}
MARKUPS = ("soup", "bem", "hashed", "testid")
LANGS = ("pl", "en", "de")
PAGE_SIZE = 12

_NOUNS = {
    "pl": ["Lampa", "Kubek", "Plecak", "Zegarek", "Czajnik", "Fotel", "Latarka", "Głośnik", "Koc", "Termos"],
    "en": ["Lamp", "Mug", "Backpack", "Watch", "Kettle", "Chair", "Torch", "Speaker", "Blanket", "Flask"],
    "de": [
        "Lampe",
        "Becher",
        "Rucksack",
        "Uhr",
        "Wasserkocher",
        "Sessel",
        "Taschenlampe",
        "Lautsprecher",
        "Decke",
        "Thermoskanne",
    ],
}
_MODELS = ["Nova", "Orbit", "Atlas", "Pico", "Vega", "Luma", "Terra", "Zen"]


def price_of(i: int) -> float:
    """The price of item ``i``: spread over 9.99 .. 499.99, all different within a page's catalogue."""
    return round(9.99 + (i * 37) % 97 * 5 + (i % 3) * 0.5, 2)


def price_text(amount: float, lang: str) -> str:
    if lang == "en":
        return f"£{amount:,.2f}"
    whole, cents = f"{amount:,.2f}".split(".")
    whole = whole.replace(",", "\u00a0" if lang == "pl" else ".")
    return f"{whole},{cents}\u00a0zł" if lang == "pl" else f"{whole},{cents}\u00a0€"


def catalogue(lang: str, total: int) -> list[dict[str, Any]]:
    """The pattern's items: ``id``, ``name``, ``price`` (a number), ``url`` (path only)."""
    nouns = _NOUNS[lang]
    out = []
    for i in range(total):
        name = f"{nouns[i % len(nouns)]} {_MODELS[(i // len(nouns)) % len(_MODELS)]} {i + 1}"
        out.append({"id": f"a{i + 1:03d}", "name": name, "price": price_of(i), "url": f"/app/p/a{i + 1:03d}"})
    return out


def select(lang: str, total: int, params: dict[str, str]) -> list[dict[str, Any]]:
    """The catalogue as the API's query asks: ``min``/``max`` price, ``sort`` (``price_asc``,
    ``price_desc``, anything else: as listed)."""
    items = catalogue(lang, total)
    lo, hi = _number(params.get("min")), _number(params.get("max"))
    items = [p for p in items if (lo is None or p["price"] >= lo) and (hi is None or p["price"] <= hi)]
    if params.get("sort") == "price_asc":
        items.sort(key=lambda p: p["price"])
    elif params.get("sort") == "price_desc":
        items.sort(key=lambda p: -p["price"])
    return items


def _number(raw: str | None) -> float | None:
    try:
        return float(raw.replace(",", ".")) if raw else None
    except ValueError:
        return None


def _int(raw: str | None, default: int, top: int) -> int:
    try:
        return max(0, min(top, int(raw))) if raw else default
    except ValueError:
        return default


def api(path: str, params: dict[str, str]) -> tuple[int, str]:
    """``/app-api/items`` and ``/app-api/prices``: (status, JSON text), after the asked delay."""
    lang = params.get("lang") if params.get("lang") in LANGS else "en"
    total = PATTERNS.get(params.get("pattern", ""), 12)
    time.sleep(_int(params.get("delay"), 0, 5000) / 1000)
    items = select(lang, total, params)
    if path == "/app-api/items":
        offset = _int(params.get("offset"), 0, 10_000)
        limit = _int(params.get("limit"), PAGE_SIZE, 100)
        chunk = items[offset : offset + limit]
        rows = [{"id": p["id"], "name": p["name"], "url": p["url"]} for p in chunk]
        return 200, json.dumps({"items": rows, "total": len(items)})
    if path == "/app-api/prices":
        wanted = set((params.get("ids") or "").split(","))
        every = {p["id"]: price_text(p["price"], lang) for p in catalogue(lang, total)}
        return 200, json.dumps({k: v for k, v in every.items() if k in wanted})
    return 404, json.dumps({"error": "no such API"})


WORDS = {
    "pl": {
        "title": "Produkty",
        "loading": "Ładowanie…",
        "more": "Pokaż więcej",
        "count": "Wyniki {a}–{b} z {n}",
        "total": "{n} produktów",
        "from": "Cena od",
        "to": "Cena do",
        "sort": "Sortuj",
        "relevance": "Trafność",
        "asc": "Cena: od najniższej",
        "desc": "Cena: od najwyższej",
        "end": "To już wszystko",
    },
    "en": {
        "title": "Products",
        "loading": "Loading…",
        "more": "Load more",
        "count": "Showing {a}-{b} of {n} results",
        "total": "{n} products",
        "from": "Price from",
        "to": "Price to",
        "sort": "Sort by",
        "relevance": "Relevance",
        "asc": "Price: low to high",
        "desc": "Price: high to low",
        "end": "You've seen it all",
    },
    "de": {
        "title": "Produkte",
        "loading": "Wird geladen…",
        "more": "Mehr laden",
        "count": "{b} von {n} Produkten",
        "total": "{n} Produkte",
        "from": "Preis von",
        "to": "Preis bis",
        "sort": "Sortieren nach",
        "relevance": "Relevanz",
        "asc": "Preis aufsteigend",
        "desc": "Preis absteigend",
        "end": "Das war alles",
    },
}

# Class names per markup: card, name link, price, skeleton card, list.
CLASSES = {
    "soup": {
        "list": "grid grid-cols-4 gap-4 mt-6",
        "card": "flex flex-col rounded-lg border p-4 shadow-sm",
        "name": "text-sm font-medium text-gray-900 hover:underline",
        "price": "mt-2 text-lg font-bold",
        "skeleton": "animate-pulse rounded-lg bg-gray-200 h-40",
        "price_wait": "animate-pulse bg-gray-200 h-5 w-16 rounded",
        "button": "mt-6 rounded bg-indigo-600 px-4 py-2 text-white",
        "count": "text-sm text-gray-500",
    },
    "bem": {
        "list": "product-grid",
        "card": "product-tile",
        "name": "product-tile__name",
        "price": "product-tile__price",
        "skeleton": "product-tile product-tile--skeleton",
        "price_wait": "product-tile__price product-tile__price--placeholder",
        "button": "listing__more button button--primary",
        "count": "listing__count",
    },
    "hashed": {
        "list": "ProductGrid_grid__k3J9x",
        "card": "ProductCard_card__x8Kd2",
        "name": "ProductCard_title__3jfQ1",
        "price": "Price_value__9dKs0",
        "skeleton": "Skeleton_card__p0Lq7",
        "price_wait": "Skeleton_line__Zz81a",
        "button": "LoadMore_button__Aa7xQ",
        "count": "Toolbar_count__w2Erd",
    },
    "testid": {
        "list": "",
        "card": "",
        "name": "",
        "price": "",
        "skeleton": "",
        "price_wait": "",
        "button": "",
        "count": "",
    },
}


def page(pattern: str, params: dict[str, str]) -> str | None:
    """The HTML shell of ``/app/<pattern>``; None for an unknown pattern."""
    if pattern not in PATTERNS:
        return None
    markup = params.get("markup") if params.get("markup") in MARKUPS else "bem"
    lang = params.get("lang") if params.get("lang") in LANGS else "en"
    config = {
        "pattern": pattern,
        "markup": markup,
        "lang": lang,
        "delay": _int(params.get("delay"), 600, 5000),
        "hydrate": _int(params.get("hydrate"), 200, 5000),
        "pageSize": PAGE_SIZE,
        "classes": CLASSES[markup],
        "words": WORDS[lang],
    }
    c, w = CLASSES[markup], WORDS[lang]
    skeletons = "".join(_skeleton(markup) for _ in range(4))
    loading = f'<p role="status" class="{c["count"]}">{html.escape(w["loading"])}</p>'
    if params.get("bare"):  # an empty shell: nothing says that content is coming
        skeletons = loading = ""
    controls = ""
    if pattern == "filter":
        controls = (
            f'<div class="filters"><label>{w["from"]} <input id="f-min" inputmode="decimal"></label> '
            f'<label>{w["to"]} <input id="f-max" inputmode="decimal"></label></div>'
        )
    if pattern == "virtual":
        listing = '<div id="scroller" style="height:480px;overflow-y:auto;position:relative"><div id="list" style="position:relative"></div></div>'
    else:
        listing = f'<div id="list" {_attr("list", markup)}>{skeletons}</div>'
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{w["title"]}</title>
<style>
body {{ font-family: sans-serif; margin: 0 2rem; }}
#list {{ display: grid; grid-template-columns: repeat(4, 1fr); gap: 16px; }}
#scroller #list {{ display: block; }}
.row {{ position: absolute; left: 0; right: 0; height: 40px; display: flex; gap: 1rem; align-items: center; }}
[data-testid=skeleton-card], .product-tile--skeleton, .Skeleton_card__p0Lq7, .animate-pulse {{ background: #ddd; min-height: 160px; }}
.price-wait {{ display: inline-block; background: #ddd; width: 60px; height: 18px; }}
.card {{ min-height: 220px; }}
.hidden {{ display: none; }}
[role=listbox] {{ border: 1px solid #999; background: white; }}
[role=option], .dd-item {{ padding: 4px; cursor: pointer; }}
</style></head>
<body>
<header><a href="/">Home</a></header>
<main>
<h1>{w["title"]}</h1>
<div id="toolbar">{loading}</div>
{controls}
{listing}
<div id="after"></div>
</main>
<footer><p>© Test Site</p></footer>
<script>window.__APP = {json.dumps(config)};</script>
<script src="/test/app.js" defer></script>
</body></html>"""


def _attr(role: str, markup: str) -> str:
    if markup == "testid":
        return f'data-testid="product-{role}"'
    return f'class="{CLASSES[markup][role]}"'


def _skeleton(markup: str) -> str:
    if markup == "testid":
        return '<div data-testid="skeleton-card" class="card"></div>'
    return f'<div class="{CLASSES[markup]["skeleton"]}" aria-hidden="true"></div>'


def product_page(item_id: str) -> str:
    """``/app/p/<id>``: a plain product page (the listing's links lead here)."""
    return f'<!doctype html><html><head><meta charset="utf-8"><title>{item_id}</title></head><body><h1>{html.escape(item_id)}</h1></body></html>'
