"""Sklep Demo: a small Polish web shop for trying curllm locally (stdlib only, no dependencies).

    python examples/shop/serve.py [--port N]      # prints the URL, serves until interrupted

The catalogue (24 products, 7 categories) lives in ``catalog.json`` beside this file; styles and
scripts in ``static/``. Every page is rendered from that data, so filters, sorting and paging
really change what is listed.

Routes (all GET):

``/``                     product listing. Query: ``q`` (search in names, case- and
                          accent-insensitive), ``price_min`` / ``price_max`` (PLN, "150" or
                          "149,99"), ``sort`` (``trafnosc`` | ``cena_rosnaco`` | ``cena_malejaco`` |
                          ``najnowsze``), ``strona`` (page number, 8 products per page; the
                          "Następna" link has rel=next).
``/kategoria/<slug>``     the same listing limited to a category and its subcategories.
``/produkt/<id>``         product page (ids ``p01`` .. ``p24``).
``/nowosci``              newest products, 8 at a time; "Pokaż więcej" fetches the next 8.
``/inspiracje``           infinite scroll: the next 8 products load when the bottom is reached,
                          until all 24 are shown ("To już wszystko").
``/api/produkty``         JSON ``{"items": [...], "total": n, "next_offset": n | null}``; query
                          ``offset``, ``limit`` (max 24) and the listing's ``q``/``price_*``/``sort``.
``/promocje``, ``/dostawa``, ``/kontakt``   static pages (``pages/*.html``).
``/static/<file>``        ``static/sklep.css``, ``static/sklep.js``.

Decoys that are *not* results of a listing: the promoted product box ("Promocja dnia", 99 zł),
the "Darmowa dostawa od 200 zł" banner, and crossed-out old prices beside some current prices.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
import unicodedata
from functools import cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

HERE = Path(__file__).resolve().parent
PER_PAGE = 8
SORTS = {
    "trafnosc": "Trafność",
    "cena_rosnaco": "Cena: od najniższej",
    "cena_malejaco": "Cena: od najwyższej",
    "najnowsze": "Najnowsze",
}
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


# --- data ---------------------------------------------------------------------------------------


@cache
def catalog() -> dict[str, Any]:
    """The shop's data: ``categories`` (a tree), ``products``, ``promoted``."""
    return json.loads((HERE / "catalog.json").read_text(encoding="utf-8"))


def categories_by_slug() -> dict[str, dict[str, Any]]:
    """Every category, top level and sub, by slug; each with ``parent`` (slug or None) added."""
    found: dict[str, dict[str, Any]] = {}
    for top in catalog()["categories"]:
        found[top["slug"]] = {**top, "parent": None}
        for child in top.get("children", []):
            found[child["slug"]] = {**child, "parent": top["slug"]}
    return found


def category_members(slug: str) -> set[str]:
    """The slugs a category covers: itself and its subcategories."""
    cats = categories_by_slug()
    return {slug} | {s for s, c in cats.items() if c["parent"] == slug}


def fold(text: str) -> str:
    """Case- and accent-insensitive form for searching ("Ładowarka" matches "ladowarka")."""
    text = text.casefold().replace("ł", "l")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def parse_amount(raw: str | None) -> float | None:
    """A price typed by a user: "150", "149,99", "1 299.5", "150 zł". None when empty or not a number."""
    if not raw:
        return None
    cleaned = re.sub(r"[^\d,.\-]", "", raw).replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def format_pln(amount: float) -> str:
    """Polish price text: 1299.0 -> "1 299,00 zł"."""
    whole, cents = f"{amount:,.2f}".split(".")
    return f"{whole.replace(',', ' ')},{cents} zł"


def plural_produkty(n: int) -> str:
    """ "1 produkt", "24 produkty", "12 produktów": Polish plural forms."""
    if n == 1:
        return "1 produkt"
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return f"{n} produkty"
    return f"{n} produktów"


def select_products(
    *,
    q: str = "",
    price_min: float | None = None,
    price_max: float | None = None,
    sort: str = "trafnosc",
    category: str | None = None,
) -> list[dict[str, Any]]:
    """The products a listing shows, in order. Price bounds are inclusive."""
    items = list(catalog()["products"])
    if category:
        members = category_members(category)
        items = [p for p in items if p["category"] in members]
    if q.strip():
        words = fold(q).split()
        items = [p for p in items if all(w in fold(p["name"]) for w in words)]
    if price_min is not None:
        items = [p for p in items if p["price"] >= price_min]
    if price_max is not None:
        items = [p for p in items if p["price"] <= price_max]
    if sort == "cena_rosnaco":
        items.sort(key=lambda p: (p["price"], p["name"]))
    elif sort == "cena_malejaco":
        items.sort(key=lambda p: (-p["price"], p["name"]))
    elif sort == "najnowsze":
        items.sort(key=lambda p: p["added"], reverse=True)
    return items


def product_json(p: dict[str, Any]) -> dict[str, Any]:
    """A product as the JSON API returns it."""
    return {
        "id": p["id"],
        "name": p["name"],
        "price": p["price"],
        "price_text": format_pln(p["price"]),
        "old_price_text": format_pln(p["old_price"]) if p.get("old_price") else None,
        "url": f"/produkt/{p['id']}",
        "category": p["category"],
        "added": p["added"],
    }


# --- markup -------------------------------------------------------------------------------------

e = html.escape


def thumb(p: dict[str, Any]) -> str:
    """An inline SVG placeholder picture: no image files, nothing to fetch."""
    hue = int(p["id"][1:]) * 47 % 360
    initials = "".join(w[0] for w in p["name"].split()[:2]).upper()
    return (
        f'<svg class="thumb" viewBox="0 0 160 120" role="img" aria-label="{e(p["name"])}">'
        f'<rect width="160" height="120" fill="hsl({hue} 45% 82%)"/>'
        f'<text x="80" y="70" text-anchor="middle" font-size="34" fill="hsl({hue} 40% 30%)">{e(initials)}</text>'
        "</svg>"
    )


def product_card(p: dict[str, Any]) -> str:
    """One product of a listing: an article in a list item, like most shops mark them up."""
    old = (
        f' <del class="price price--old" aria-label="Cena przed obniżką">{format_pln(p["old_price"])}</del>'
        if p.get("old_price")
        else ""
    )
    return f"""<li class="product-list__item">
  <article class="product-card" data-product-id="{p["id"]}">
    <a class="product-card__image" href="/produkt/{p["id"]}" tabindex="-1">{thumb(p)}</a>
    <h3 class="product-card__name"><a href="/produkt/{p["id"]}">{e(p["name"])}</a></h3>
    <p class="product-card__prices"><span class="price price--current">{format_pln(p["price"])}</span>{old}</p>
    <button type="button" class="product-card__cart">Do koszyka</button>
  </article>
</li>"""


def layout(title: str, body: str, *, q: str = "", scripts: str = "", head: str = "") -> str:
    """The page frame: header with the search box, the free-delivery banner, footer."""
    return f"""<!DOCTYPE html>
<html lang="pl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)} – Sklep Demo</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/sklep.css">
{head}</head>
<body>
<header class="site-header">
  <a class="logo" href="/">Sklep Demo</a>
  <form class="search" role="search" action="/" method="get">
    <input type="search" name="q" value="{e(q)}" placeholder="Szukaj produktów" aria-label="Szukaj produktów">
    <button type="submit">Szukaj</button>
  </form>
  <nav class="main-nav" aria-label="Menu główne">
    <a href="/nowosci">Nowości</a> <a href="/inspiracje">Inspiracje</a>
    <a href="/promocje">Promocje</a> <a href="/dostawa">Dostawa</a> <a href="/kontakt">Kontakt</a>
  </nav>
</header>
<div class="banner" role="note">Darmowa dostawa od 200 zł!</div>
{body}
<footer class="site-footer"><p>© 2024 Sklep Demo · ceny brutto w PLN · <a href="/kontakt">Kontakt</a></p></footer>
{scripts}
</body>
</html>
"""


def category_tree(active: str | None) -> str:
    """The sidebar tree: nested lists, the active category marked with aria-current."""
    counts: dict[str, int] = {}
    for p in catalog()["products"]:
        counts[p["category"]] = counts.get(p["category"], 0) + 1

    def item(cat: dict[str, Any], children: str, count: int) -> str:
        current = ' aria-current="page"' if cat["slug"] == active else ""
        return (
            f'<li><a href="/kategoria/{cat["slug"]}"{current}>{e(cat["name"])}</a> '
            f'<span class="count">({count})</span>{children}</li>'
        )

    tops = []
    for top in catalog()["categories"]:
        subs = "".join(item(c, "", counts.get(c["slug"], 0)) for c in top.get("children", []))
        total = sum(counts.get(c["slug"], 0) for c in top.get("children", []))
        tops.append(item(top, f"<ul>{subs}</ul>", total))
    return (
        '<nav class="categories" aria-label="Kategorie"><h2>Kategorie</h2>'
        f'<ul class="category-tree">{"".join(tops)}</ul></nav>'
    )


def promoted_box() -> str:
    """The "Promocja dnia" box: a product on offer that is not part of any listing (a decoy)."""
    promo = catalog()["promoted"]
    return f"""<aside class="promo" aria-label="Promocja dnia">
  <h2>Promocja dnia</h2>
  <p class="promo__name"><a href="{promo["url"]}">{e(promo["name"])}</a></p>
  <p class="promo__price"><span class="price">{format_pln(promo["price"])}</span>
     <del>{format_pln(promo["old_price"])}</del></p>
</aside>"""


def hidden_inputs(params: dict[str, str], keep: tuple[str, ...]) -> str:
    """Carry the listing's other settings through a form that only edits some of them."""
    return "".join(f'<input type="hidden" name="{k}" value="{e(params[k])}">' for k in keep if params.get(k))


def listing_page(path: str, params: dict[str, str], category: str | None) -> str:
    """A product listing with working filter, sort, search and pagination."""
    price_min, price_max = parse_amount(params.get("price_min")), parse_amount(params.get("price_max"))
    sort = params.get("sort") if params.get("sort") in SORTS else "trafnosc"
    items = select_products(
        q=params.get("q", ""), price_min=price_min, price_max=price_max, sort=sort, category=category
    )
    pages = max(1, math.ceil(len(items) / PER_PAGE))
    try:
        page = max(1, int(params.get("strona", "1")))
    except ValueError:
        page = 1
    shown = items[(page - 1) * PER_PAGE : page * PER_PAGE]

    cat = categories_by_slug().get(category) if category else None
    title = cat["name"] if cat else ("Wyniki wyszukiwania" if params.get("q") else "Wszystkie produkty")
    crumbs = '<a href="/">Sklep Demo</a>'
    if cat and cat["parent"]:
        parent = categories_by_slug()[cat["parent"]]
        crumbs += f' › <a href="/kategoria/{parent["slug"]}">{e(parent["name"])}</a>'
    if cat:
        crumbs += f" › <span>{e(cat['name'])}</span>"

    def url_for(**changes: Any) -> str:
        merged = {k: v for k, v in {**params, **changes}.items() if v not in (None, "")}
        if merged.get("strona") in (1, "1"):
            merged.pop("strona")
        return path + (f"?{urlencode(merged)}" if merged else "")

    links = []
    if page > 1:
        links.append(
            f'<a class="pagination__prev" rel="prev" href="{e(url_for(strona=page - 1))}">Poprzednia</a>'
        )
    for n in range(1, pages + 1):
        links.append(
            f'<span class="pagination__current" aria-current="page">{n}</span>'
            if n == page
            else f'<a class="pagination__page" href="{e(url_for(strona=n))}">{n}</a>'
        )
    if page < pages:
        links.append(
            f'<a class="pagination__next" rel="next" href="{e(url_for(strona=page + 1))}">Następna</a>'
        )

    options = "".join(
        f'<option value="{k}"{" selected" if k == sort else ""}>{e(v)}</option>' for k, v in SORTS.items()
    )
    cards = (
        "\n".join(product_card(p) for p in shown)
        or '<li class="empty">Brak produktów spełniających kryteria.</li>'
    )
    body = f"""<div class="layout">
<aside class="sidebar">
  {category_tree(category)}
  <form class="filters" id="filtry" method="get" action="{e(path)}">
    <fieldset>
      <legend>Cena</legend>
      <label for="price_min">Cena od</label>
      <input type="number" id="price_min" name="price_min" min="0" step="0.01" inputmode="decimal" value="{e(params.get("price_min", ""))}">
      <label for="price_max">Cena do</label>
      <input type="number" id="price_max" name="price_max" min="0" step="0.01" inputmode="decimal" value="{e(params.get("price_max", ""))}">
    </fieldset>
    {hidden_inputs(params, ("q", "sort"))}
    <button type="submit">Filtruj</button>
  </form>
  {promoted_box()}
</aside>
<main class="listing">
  <nav class="breadcrumbs" aria-label="Okruszki">{crumbs}</nav>
  <h1>{e(title)}</h1>
  <div class="listing__toolbar">
    <p class="listing__count">Znaleziono {plural_produkty(len(items))}</p>
    <form class="sort" method="get" action="{e(path)}">
      {hidden_inputs(params, ("q", "price_min", "price_max"))}
      <label for="sort">Sortuj według</label>
      <select id="sort" name="sort" onchange="this.form.submit()">{options}</select>
      <noscript><button type="submit">Sortuj</button></noscript>
    </form>
  </div>
  <ul class="product-list">
{cards}
  </ul>
  <nav class="pagination" aria-label="Strony">{" ".join(links)}</nav>
</main>
</div>"""
    return layout(title, body, q=params.get("q", ""))


def product_page(p: dict[str, Any]) -> str:
    """A product's own page, in one of the three markups real shops use (by product number): JSON-LD,
    schema.org microdata, or labelled text with meta tags only. Each shows the price, availability,
    brand, product code and description."""
    cat = categories_by_slug()[p["category"]]
    old = f' <del class="price price--old">{format_pln(p["old_price"])}</del>' if p.get("old_price") else ""
    markup = ("jsonld", "microdata", "labels")[int(p["id"][1:]) % 3]
    stock = "Dostępny – wysyłka w 24 h" if p["in_stock"] else "Produkt niedostępny"
    schema_stock = "https://schema.org/" + ("InStock" if p["in_stock"] else "OutOfStock")
    rating = (
        f'<p class="product-detail__rating">Ocena {p["rating"]:.1f}/5 ({p["reviews"]} opinii)</p>'
        if p.get("rating")
        else ""
    )
    head = ""
    if markup == "jsonld":
        doc: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "Product",
            "name": p["name"],
            "sku": p["sku"],
            "brand": {"@type": "Brand", "name": p["brand"]},
            "description": p["description"],
            "offers": {
                "@type": "Offer",
                "price": f"{p['price']:.2f}",
                "priceCurrency": "PLN",
                "availability": schema_stock,
            },
        }
        if p.get("rating"):
            doc["aggregateRating"] = {
                "@type": "AggregateRating",
                "ratingValue": p["rating"],
                "reviewCount": p["reviews"],
            }
        ld = json.dumps(doc, ensure_ascii=False).replace("</", "<\\/")
        head = f'<script type="application/ld+json">{ld}</script>\n'
        details = f"""<p class="product-detail__price"><span class="price price--current">{format_pln(p["price"])}</span>{old}</p>
    <p class="product-detail__stock">{stock}</p>
    {rating}<p class="product-detail__description">{e(p["description"])}</p>"""
        title = f"<h1>{e(p['name'])}</h1>"
        attrs = ""
    elif markup == "microdata":
        rating_md = (
            f'<p class="product-detail__rating" itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">'
            f'Ocena <span itemprop="ratingValue">{p["rating"]:.1f}</span>/5 (<span itemprop="reviewCount">{p["reviews"]}</span> opinii)</p>'
            if p.get("rating")
            else ""
        )
        details = f"""<p class="product-detail__brand">Marka: <span itemprop="brand">{e(p["brand"])}</span></p>
    <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <p class="product-detail__price"><span class="price price--current" itemprop="price" content="{p["price"]:.2f}">{format_pln(p["price"])}</span>{old}
      <meta itemprop="priceCurrency" content="PLN"></p>
      <p class="product-detail__stock"><meta itemprop="availability" content="{schema_stock}">{stock}</p>
    </div>
    {rating_md}<p class="product-detail__sku">Kod produktu: <span itemprop="sku">{p["sku"]}</span></p>
    <p class="product-detail__description" itemprop="description">{e(p["description"])}</p>"""
        title = f'<h1 itemprop="name">{e(p["name"])}</h1>'
        attrs = ' itemscope itemtype="https://schema.org/Product"'
    else:
        head = (
            f'<meta name="description" content="{e(p["description"])}">\n'
            f'<meta property="og:title" content="{e(p["name"])}">\n'
            f'<meta property="og:description" content="{e(p["description"])}">\n'
        )
        details = f"""<p class="product-detail__price"><span class="price price--current">{format_pln(p["price"])}</span>{old}</p>
    <ul class="product-detail__facts">
      <li>Marka: {e(p["brand"])}</li>
      <li>Kod produktu: {p["sku"]}</li>
      <li>Dostępność: {stock}</li>
    </ul>
    {rating}<p class="product-detail__description">{e(p["description"])}</p>"""
        title = f"<h1>{e(p['name'])}</h1>"
        attrs = ""
    body = f"""<main class="product">
  <nav class="breadcrumbs" aria-label="Okruszki"><a href="/">Sklep Demo</a> ›
    <a href="/kategoria/{cat["slug"]}">{e(cat["name"])}</a></nav>
  <article class="product-detail" data-product-id="{p["id"]}"{attrs}>
    {thumb(p)}
    {title}
    {details}
    <button type="button"{"" if p["in_stock"] else " disabled"}>Dodaj do koszyka</button>
  </article>
</main>"""
    return layout(p["name"], body, head=head)


def incremental_page(kind: str) -> str:
    """/nowosci ("Pokaż więcej" button) and /inspiracje (infinite scroll): first 8, the rest via the API."""
    sort = "najnowsze" if kind == "more" else "trafnosc"
    items = select_products(sort=sort)
    cards = "\n".join(product_card(p) for p in items[:PER_PAGE])
    next_offset = PER_PAGE if len(items) > PER_PAGE else ""
    if kind == "more":
        title, extra = (
            "Nowości",
            '<button type="button" class="load-more" id="load-more">Pokaż więcej</button>',
        )
        list_class = "product-list"
    else:
        title, extra = (
            "Inspiracje",
            '<p class="feed__status" id="feed-status" aria-live="polite">Przewiń, aby zobaczyć więcej</p>',
        )
        list_class = "product-list product-list--feed"
    body = f"""<main class="listing listing--wide">
  <h1>{title}</h1>
  <ul class="{list_class}" id="products" data-kind="{kind}" data-sort="{sort}" data-next-offset="{next_offset}">
{cards}
  </ul>
  {extra}
</main>"""
    return layout(title, body, scripts='<script src="/static/sklep.js"></script>')


def static_page(name: str) -> str | None:
    """``pages/<name>.html`` in the shop's frame; None when there is no such page."""
    path = HERE / "pages" / f"{name}.html"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    title = re.search(r"<h1>(.*?)</h1>", text)
    return layout(html.unescape(title.group(1)) if title else name, text)


def not_found_page() -> str:
    """The 404 page."""
    return layout(
        "Nie znaleziono",
        '<main class="listing"><h1>Nie znaleziono strony</h1><p><a href="/">Wróć do sklepu</a></p></main>',
    )


# --- HTTP ---------------------------------------------------------------------------------------


class ShopHandler(BaseHTTPRequestHandler):
    """Serves the shop. Subclass and override `route` to add pages (the test site does)."""

    server_version = "SklepDemo/1.0"
    quiet = True  # request logging off by default: tests run many requests

    def do_GET(self) -> None:  # noqa: N802 - the http.server naming
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        try:
            if not self.route(parts.path, params):
                self.send_html(not_found_page(), HTTPStatus.NOT_FOUND)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser went away mid-response (a navigation replaced the page): nothing to tell

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def route(self, path: str, params: dict[str, str]) -> bool:
        """Answer ``path``; False when there is no such page."""
        if path in ("/", "/index.html"):
            self.send_html(listing_page("/", params, None))
        elif m := re.fullmatch(r"/kategoria/([a-z0-9-]+)/?", path):
            if m.group(1) not in categories_by_slug():
                return False
            self.send_html(listing_page(f"/kategoria/{m.group(1)}", params, m.group(1)))
        elif m := re.fullmatch(r"/produkt/(p\d\d)/?", path):
            product = next((p for p in catalog()["products"] if p["id"] == m.group(1)), None)
            if product is None:
                return False
            self.send_html(product_page(product))
        elif path == "/nowosci":
            self.send_html(incremental_page("more"))
        elif path == "/inspiracje":
            self.send_html(incremental_page("scroll"))
        elif path == "/api/produkty":
            self.send_api(params)
        elif m := re.fullmatch(r"/static/([a-z0-9_-]+\.(?:css|js))", path):
            file = HERE / "static" / m.group(1)
            if not file.is_file():
                return False
            self.send_bytes(file.read_bytes(), STATIC_TYPES[file.suffix])
        elif m := re.fullmatch(r"/([a-z]+)", path):
            page = static_page(m.group(1))
            if page is None:
                return False
            self.send_html(page)
        else:
            return False
        return True

    def send_api(self, params: dict[str, str]) -> None:
        """``/api/produkty``: a slice of a listing as JSON, for "Pokaż więcej" and infinite scroll."""

        def number(key: str, default: int) -> int:
            try:
                return max(0, int(params.get(key, default)))
            except ValueError:
                return default

        offset, limit = number("offset", 0), min(number("limit", PER_PAGE), 24)
        sort = params.get("sort") if params.get("sort") in SORTS else "trafnosc"
        items = select_products(
            q=params.get("q", ""),
            price_min=parse_amount(params.get("price_min")),
            price_max=parse_amount(params.get("price_max")),
            sort=sort,
        )
        chunk = items[offset : offset + limit]
        next_offset = offset + len(chunk) if offset + len(chunk) < len(items) else None
        doc = {"items": [product_json(p) for p in chunk], "total": len(items), "next_offset": next_offset}
        self.send_bytes(json.dumps(doc, ensure_ascii=False).encode(), "application/json; charset=utf-8")

    def send_html(self, text: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        """Answer with an HTML page."""
        self.send_bytes(text.encode("utf-8"), "text/html; charset=utf-8", status)

    def send_bytes(self, data: bytes, content_type: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        """Answer with ``data``; never cached, so every test sees the current state."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib signature
        if not self.quiet:
            super().log_message(format, *args)


def make_server(port: int = 0, handler: type[BaseHTTPRequestHandler] = ShopHandler) -> ThreadingHTTPServer:
    """A server for the shop on 127.0.0.1 (``port=0``: any free port); call ``serve_forever()``."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> None:
    """Command line: serve the shop on 127.0.0.1 until interrupted."""
    parser = argparse.ArgumentParser(description="Serve Sklep Demo, the curllm example shop.")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    ShopHandler.quiet = args.quiet
    server = make_server(args.port)
    print(f"Sklep Demo: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
