"""One product's own page: name, prices, availability, identifiers, brand, rating, from what the
page states in every form shops use (JSON-LD, microdata, RDFa, OpenGraph/product meta tags) and
from what it shows.

What the page shows wins over its metadata when they disagree: a visible current price over a stale
``offers.price``, a visible availability over ``schema.org/InStock`` left in a template, a variant's
own SKU (its JSON-LD variant for this URL, or the SKU the page prints) over the parent product's.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urldefrag

from ...errors import ToolError
from ...prices import Price, find_prices, parse_price
from ...tool import ToolContext
from ._html import (
    absolute_url,
    default_currency,
    page_base,
    parse_html,
    price_text,
    strip_junk,
    visible_text,
)

FIELDS = (
    "name",
    "price",
    "currency",
    "price_regular",
    "availability",
    "sku",
    "mpn",
    "gtin",
    "brand",
    "description",
    "rating",
    "reviews",
    "image",
    "url",
)
# Checked out-of-stock first: "niedostępny" contains "dostępny", "nicht verfügbar" "verfügbar".
OUT_OF_STOCK = re.compile(
    r"\b(out of stock|sold out|currently unavailable|unavailable|niedost[eę]pn[yae]|brak w magazynie|"
    r"produkt niedost[eę]pny|wyprzedan[yae]|nicht (mehr )?(verf[uü]gbar|lieferbar|auf lager)|ausverkauft|"
    r"vergriffen|rupture de stock|[eé]puis[eé]e?|indisponible|plus disponible)\b",
    re.I,
)
IN_STOCK = re.compile(
    r"\b(in stock|available now|dost[eę]pn[yae]( od r[eę]ki)?|w magazynie|na stanie|auf lager|"
    r"lieferbar|sofort verf[uü]gbar|verf[uü]gbar|en stock|disponible)\b",
    re.I,
)
SKU_LABEL = re.compile(
    r"(?:\bSKU|\bKod produktu|\bKod|\bIndeks|\bNr kat(?:alogowy)?\.?|\bArtikelnummer|\bArtikel-Nr\.?|"
    r"\bArt\.-Nr\.?|\bR[ée]f[ée]rence|\bR[ée]f\.|\bItem (?:no\.?|number)|\bProduct code)\s*[:#]?\s*"
    r"([A-Za-z0-9][A-Za-z0-9._/-]{1,40})",
    re.I,
)
BRAND_LABEL = re.compile(
    r"(?:\bMarka|\bProducent|\bBrand|\bMarke|\bHersteller|\bMarque|\bFabricant)\s*:\s*([^\n|•]{1,60})", re.I
)
PRICE_ELEMENTS = (
    '[itemprop="price"], [class*="price" i], [id*="price" i], [class*="cena" i], [class*="preis" i], '
    '[class*="prix" i], del, s'
)
OLD_CLASS = re.compile(r"old|regular|was|strike|before|previous|crossed|uvp|alt|stara|przed", re.I)


# --- structured data -----------------------------------------------------------------------------


def _types(node: dict) -> set[str]:
    t = node.get("@type")
    return {str(x).rsplit("/", 1)[-1] for x in (t if isinstance(t, list) else [t]) if x}


def _walk(value: Any):
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _text(value: Any) -> str | None:
    value = _first(value)
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value") or value.get("url") or value.get("@id")
    if value is None:
        return None
    text = re.sub(r"\s+", " ", str(value)).strip()
    return text or None


def _number(value: Any) -> float | None:
    value = _first(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        price = parse_price(value)
        return price.amount if price else None
    return None


def _availability(value: Any) -> str | None:
    text = (_text(value) or "").rsplit("/", 1)[-1].lower()
    if not text:
        return None
    if any(w in text for w in ("outofstock", "soldout", "discontinued", "out of stock")):
        return "OutOfStock"
    if any(w in text for w in ("instock", "limitedavailability", "onlineonly", "instoreonly", "in stock")):
        return "InStock"
    return None


def _from_schema_product(node: dict, base: str) -> dict:
    """A schema.org Product (or a variant) as this tool's fields, from JSON-LD or microdata."""
    offers = _first(node.get("offers")) or {}
    if isinstance(offers, dict) and "AggregateOffer" in _types(offers) and "lowPrice" in offers:
        offers = {**offers, "price": offers.get("lowPrice")}
    offers = offers if isinstance(offers, dict) else {}
    spec = _first(offers.get("priceSpecification")) or {}
    rating = node.get("aggregateRating") or {}
    rating = rating if isinstance(rating, dict) else {}
    gtin = next(
        (node.get(k) for k in ("gtin13", "gtin", "gtin14", "gtin12", "gtin8", "ean") if node.get(k)), None
    )
    out = {
        "name": _text(node.get("name")),
        "price": _number(offers.get("price", spec.get("price") if isinstance(spec, dict) else None)),
        "currency": _text(
            offers.get("priceCurrency") or (spec.get("priceCurrency") if isinstance(spec, dict) else None)
        ),
        "availability": _availability(offers.get("availability")),
        "sku": _text(node.get("sku") or offers.get("sku")),
        "mpn": _text(node.get("mpn")),
        "gtin": _text(gtin or offers.get("gtin13") or offers.get("gtin")),
        "brand": _text(node.get("brand") or node.get("manufacturer")),
        "description": _text(node.get("description")),
        "rating": _number(rating.get("ratingValue")),
        "reviews": _number(rating.get("reviewCount") or rating.get("ratingCount")),
        "image": absolute_url(_text(node.get("image")), base),
        "url": absolute_url(_text(node.get("url") or offers.get("url")), base),
    }
    return {k: v for k, v in out.items() if v is not None}


def _same_page(a: str | None, b: str) -> bool:
    if not a:
        return False
    return urldefrag(a)[0].rstrip("/") == urldefrag(b)[0].rstrip("/")


def _jsonld(tree, base: str, page_url: str) -> dict:
    """The page's JSON-LD product; for a product group, the variant of this URL over the parent."""
    for script in tree.css('script[type="application/ld+json"]'):
        try:
            doc = json.loads(script.text() or "")
        except ValueError:
            continue  # a broken block: the other forms may still say it
        for node in _walk(doc):
            types = _types(node)
            if "ProductGroup" in types:
                parent = _from_schema_product(node, base)
                variants = [v for v in (node.get("hasVariant") or []) if isinstance(v, dict)]
                own = next(
                    (v for v in variants if _same_page(absolute_url(_text(v.get("url")), base), page_url)),
                    None,
                )
                if own is not None:
                    return {**parent, **_from_schema_product(own, base), "url": page_url}
                parent.pop("sku", None)  # the group's SKU is nobody's: the variant's is unknown here
                if len(variants) == 1:
                    parent.update(_from_schema_product(variants[0], base))
                return parent
            if "Product" in types:
                return _from_schema_product(node, base)
    return {}


def _microdata(tree, base: str) -> dict:
    """schema.org microdata (itemprop) and RDFa (property) of the page's Product."""
    scope = tree.css_first('[itemtype*="schema.org/Product"], [typeof*="Product"]')
    if scope is None:
        return {}
    node: dict[str, Any] = {}
    offers: dict[str, Any] = {}
    rating: dict[str, Any] = {}
    for el in scope.css("[itemprop], [property]"):
        prop = (el.attributes.get("itemprop") or el.attributes.get("property") or "").split(":")[-1]
        value = (
            (
                el.attributes.get("content") or el.attributes.get("href")
                if el.tag in ("link", "a", "meta")
                else None
            )
            or el.attributes.get("content")
            or el.attributes.get("src")
            or visible_text(el)
        )
        if prop in ("price", "priceCurrency", "availability", "lowPrice"):
            offers.setdefault(prop, value)
        elif prop in ("ratingValue", "reviewCount", "ratingCount"):
            rating.setdefault(prop, value)
        elif prop == "brand":
            inner = el.css_first('[itemprop="name"], [property$="name"]')
            node.setdefault("brand", visible_text(inner) if inner is not None else value)
        elif prop and prop not in node:
            node[prop] = value
    node["offers"], node["aggregateRating"] = offers, rating
    return _from_schema_product(node, base)


def _meta(tree, base: str) -> dict:
    """OpenGraph and product:/og: meta tags."""
    tags: dict[str, str] = {}
    for el in tree.css("meta[property], meta[name]"):
        key = (el.attributes.get("property") or el.attributes.get("name") or "").lower()
        if key and key not in tags and el.attributes.get("content"):
            tags[key] = el.attributes["content"]
    out = {
        "name": tags.get("og:title"),
        "price": _number(tags.get("product:price:amount") or tags.get("og:price:amount")),
        "currency": tags.get("product:price:currency") or tags.get("og:price:currency"),
        "availability": _availability(tags.get("product:availability") or tags.get("og:availability")),
        "brand": tags.get("product:brand") or tags.get("og:brand"),
        "sku": tags.get("product:retailer_item_id"),
        "description": tags.get("og:description") or tags.get("description"),
        "image": absolute_url(tags.get("og:image"), base),
        "url": absolute_url(tags.get("og:url"), base),
    }
    return {k: v for k, v in out.items() if v is not None}


# --- what the page shows ---------------------------------------------------------------------


def _struck(node) -> bool:
    """Inside a crossed-out or "old price" element (a regular price, not the current one)."""
    while node is not None and node.tag not in ("body", "html"):
        if node.tag in ("del", "s", "strike"):
            return True
        cls = (node.attributes.get("class") or "").lower()
        if OLD_CLASS.search(cls) and re.search(r"price|cena|preis|prix", cls):
            return True
        node = node.parent
    return False


def _visible(tree, currency: str | None) -> dict:
    """Name, current and regular price, availability, SKU and brand as the page shows them."""
    out: dict[str, Any] = {}
    h1 = tree.css_first("h1")
    if h1 is not None and visible_text(h1):
        out["name"] = visible_text(h1)
    # The product's own block: the nearest ancestor of the heading that holds a price.
    area = h1
    for _ in range(5):
        if area is None or area.parent is None:
            break
        area = area.parent
        if find_prices(visible_text(area), currency):
            break
    area = area or tree.body
    if area is None:
        return out
    current: list[Price] = []
    regular: list[Price] = []
    for el in area.css(PRICE_ELEMENTS):
        if el.tag not in ("del", "s") and any(d.mem_id != el.mem_id for d in el.css(PRICE_ELEMENTS)):
            continue  # a wrapper: its parts are looked at one by one
        text = price_text(el)
        price = parse_price(text, currency) if text else None
        if price is None or price.amount <= 0:
            continue
        (regular if _struck(el) else current).append(price)
    if not current:  # no price element marked as such: the block's first price not crossed out
        for span in find_prices(visible_text(area), currency):
            if span.price.amount > 0 and not any(abs(span.price.amount - r.amount) < 0.005 for r in regular):
                current.append(span.price)
                break
    if current:
        out["price"], out["currency_shown"] = current[0].amount, current[0].currency
    if regular and (not current or max(p.amount for p in regular) > current[0].amount):
        out["price_regular"] = max(p.amount for p in regular)
    text = visible_text(area)
    if OUT_OF_STOCK.search(text):
        out["availability"] = "OutOfStock"
    elif IN_STOCK.search(text):
        out["availability"] = "InStock"
    # Labelled values ("Kod produktu: KP-350", "Marke: Kleidwerk") are read from the smallest
    # elements that hold them, so a label never runs on into the next line's text.
    lines = sorted(
        (line for el in area.css("li, p, dd, td, tr, span, div") if 0 < len(line := visible_text(el)) <= 120),
        key=len,
    )
    for line in lines:
        if "sku" not in out and (sku := SKU_LABEL.search(line)):
            out["sku"] = sku.group(1).rstrip(".")
        if "brand" not in out and (brand := BRAND_LABEL.search(line)):
            out["brand"] = brand.group(1).strip()
    return out


# --- the tool --------------------------------------------------------------------------------


def extract(html: str, base_url: str, **_: Any) -> dict:
    """``{"product": {...}}`` of the product page ``html`` (every field of `FIELDS`, None if unknown)."""
    tree = parse_html(html)
    base = page_base(tree, base_url)
    fallback_currency = default_currency(base)
    jsonld, micro, meta = _jsonld(tree, base, base_url), _microdata(tree, base), _meta(tree, base)
    strip_junk(tree)
    meta_currency = jsonld.get("currency") or micro.get("currency") or meta.get("currency")
    shown = _visible(tree, meta_currency or fallback_currency)
    product: dict[str, Any] = {}
    for source in (meta, micro, jsonld):  # later wins: JSON-LD is the most deliberate statement
        product.update(source)
    # What the page shows wins where it states the thing: price, availability, SKU, brand.
    for key in ("price", "price_regular", "availability", "sku"):
        if shown.get(key) is not None:
            product[key] = shown[key]
    if shown.get("price") is not None:
        product["currency"] = shown.get("currency_shown") or product.get("currency") or fallback_currency
    for key in ("name", "brand"):
        product.setdefault(key, shown.get(key))
    if product.get("price_regular") is not None and product.get("price") is not None:
        if product["price_regular"] <= product["price"]:
            product["price_regular"] = None  # "regular" below the current price is not a discount
    canonical = tree.css_first('link[rel="canonical"]')
    product["url"] = (
        product.get("url")
        or (absolute_url(canonical.attributes.get("href"), base) if canonical is not None else None)
        or base_url
    )
    if product.get("reviews") is not None:
        product["reviews"] = int(product["reviews"])
    if not product.get("currency") and product.get("price") is not None:
        product["currency"] = fallback_currency
    return {"product": {k: product.get(k) for k in FIELDS}}


async def run(ctx: ToolContext) -> dict:
    """Tool entry point: the page's full HTML (its JSON-LD scripts included), then `extract`."""
    page = ctx.page
    if page is None:
        raise ToolError("extraction.product_detail needs a page")
    return extract(await page.content(), page.url)
