"""What a product page states about its product in data: JSON-LD, microdata, RDFa and OpenGraph or
product meta tags, each read into `product_detail`'s fields.

A page's data is untrusted input and stays bounded: a JSON-LD block larger than `MAX_JSONLD_CHARS`
is skipped, nesting is read `MAX_DEPTH` levels deep at most (a document nested thousands of levels
fails to parse or is cut there, never the step), a number that is not finite (``1e309``, ``NaN``)
is no number, and a lone surrogate (``"\\ud800"``) becomes U+FFFD. A broken block leaves the next one
readable.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any
from urllib.parse import urldefrag

from selectolax.lexbor import LexborNode

from ...prices import parse_price
from ._html import absolute_url, visible_text

#: A JSON-LD block larger than this is skipped (a product's own is a few kilobytes).
MAX_JSONLD_CHARS = 2_000_000
#: Levels of nesting read in a JSON-LD document (a product sits a few levels deep).
MAX_DEPTH = 64
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _types(node: dict) -> set[str]:
    t = node.get("@type")
    return {str(x).rsplit("/", 1)[-1].rsplit(":", 1)[-1] for x in (t if isinstance(t, list) else [t]) if x}


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _text(value: Any) -> str | None:
    """A JSON-LD value as text: an object's name (a Brand given only by its ``@id`` has none),
    HTML entities and tags some shops leave in it resolved and removed."""
    value = _first(value)
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value")
    if value is None or isinstance(value, dict | list | bool):
        return None
    text = _SURROGATE_RE.sub("\ufffd", str(value))
    if "&" in text or "<" in text:
        text = re.sub(r"\s+([.,;:!?])", r"\1", _TAG_RE.sub(" ", html.unescape(text)))
    text = re.sub(r"\s+", " ", text).strip()
    return text or None


def _link(value: Any) -> str | None:
    """A JSON-LD URL: a string, or an ImageObject's/WebPage's ``url``/``contentUrl``/``@id``."""
    value = _first(value)
    if isinstance(value, dict):
        value = value.get("url") or value.get("contentUrl") or value.get("@id")
        value = _first(value)
    return _SURROGATE_RE.sub("\ufffd", value.strip()) or None if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    """A JSON-LD number or a price written as text; never one that is not finite (1e309, NaN)."""
    value = _first(value)
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            return None
    elif isinstance(value, str):
        price = parse_price(value)
        number = price.amount if price else None
    return number if number is not None and math.isfinite(number) else None


def _availability(value: Any) -> str | None:
    """schema.org ItemAvailability in any spelling (URL, short, lower case, "in stock", "oos")."""
    text = re.sub(r"[\s_-]", "", (_text(value) or "").rsplit("/", 1)[-1].lower())
    if not text:
        return None
    if text in ("oos", "outofstock", "soldout", "discontinued", "outofstockonline"):
        return "OutOfStock"
    # Pre-order and back-order can be ordered: the product is on sale, if not on the shelf.
    if text in (
        "instock", "limitedavailability", "onlineonly", "instoreonly", "preorder", "presale", "backorder",
        "madetoorder", "available", "availablefororder",
    ):  # fmt: skip
        return "InStock"
    return None


def same_page(a: str | None, b: str) -> bool:
    if not a:
        return False
    return urldefrag(a)[0].rstrip("/") == urldefrag(b)[0].rstrip("/")


def _offer_prices(offer: dict) -> tuple[float | None, float | None, str | None]:
    """(price, regular price, currency) of an Offer: its price, an AggregateOffer's lowPrice, or its
    priceSpecification list, where a StrikethroughPrice/ListPrice is the regular price."""
    price = _number(offer.get("price"))
    if price is None and "lowPrice" in offer:
        price = _number(offer.get("lowPrice"))
    if price is not None and price <= 0:
        price = None  # "0.00": a template's placeholder (a product with options), never a price
    currency = _text(offer.get("priceCurrency"))
    regular = None
    specs = offer.get("priceSpecification")
    for spec in specs if isinstance(specs, list) else [specs]:
        if not isinstance(spec, dict):
            continue
        kind = (_text(spec.get("priceType")) or "").rsplit("/", 1)[-1].lower()
        amount = _number(spec.get("price"))
        if kind in ("strikethroughprice", "listprice", "msrp", "srp"):
            regular = regular if regular is not None else amount
        elif price is None:
            price = amount
        currency = currency or _text(spec.get("priceCurrency"))
    return price, regular, currency


def _from_schema_product(node: dict, base: str, page_url: str) -> dict:
    """A schema.org Product (or a variant) as this tool's fields, from JSON-LD or microdata.

    Of a list of offers, the one for this URL (a variant's own offer, with its own SKU) is taken,
    else the first.
    """
    offers = node.get("offers")
    offers = [o for o in (offers if isinstance(offers, list) else [offers]) if isinstance(o, dict)]
    offer = next(
        (o for o in offers if same_page(absolute_url(_link(o.get("url")), base), page_url)),
        None,
    )
    own_offer = offer is not None and len(offers) > 1
    offer = offer or (offers[0] if offers else {})
    price, regular, currency = _offer_prices(offer)
    rating = node.get("aggregateRating")
    rating = rating if isinstance(rating, dict) else {}
    gtin_keys = ("gtin13", "gtin", "gtin14", "gtin12", "gtin8", "ean", "isbn")
    gtin = next((node.get(k) for k in gtin_keys if node.get(k)), None)
    if own_offer or gtin is None:
        gtin = next((offer.get(k) for k in gtin_keys if offer.get(k)), None) or gtin
    sku = _text(offer.get("sku")) if own_offer else None
    out = {
        "name": _text(node.get("name")),
        "price": price,
        "price_regular": regular,
        "currency": currency,
        "availability": _availability(offer.get("availability")),
        "sku": sku or _text(node.get("sku")) or _text(offer.get("sku")),
        "mpn": _text(node.get("mpn")) or _text(offer.get("mpn")),
        "gtin": _text(gtin),
        "brand": _text(node.get("brand")) or _text(node.get("manufacturer")),
        "description": _text(node.get("description")),
        "rating": _number(rating.get("ratingValue")),
        "reviews": _number(rating.get("reviewCount") or rating.get("ratingCount")),
        "image": absolute_url(_link(node.get("image")), base),
        "url": page_url if own_offer else absolute_url(_link(node.get("url")), base),
    }
    return {k: v for k, v in out.items() if v is not None}


# Properties under which a Product is another product, not the page's.
_OTHER_PRODUCT_KEYS = frozenset(
    {"isSimilarTo", "isRelatedTo", "isAccessoryOrSparePartFor", "isConsumableFor", "itemListElement",
     "hasVariant", "isVariantOf", "mainEntityOfPage", "review", "offers"}
)  # fmt: skip


def _products(value: Any, nested: bool = False, depth: int = 0):
    """Every Product/ProductGroup node of a JSON-LD document, with whether it is another product's
    mention (in a list, "similar to", ...), down to `MAX_DEPTH` levels."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, list):
        for v in value:
            yield from _products(v, nested, depth + 1)
    elif isinstance(value, dict):
        types = _types(value)
        if types & {"Product", "ProductGroup", "IndividualProduct", "ProductModel", "Vehicle", "Book"}:
            yield value, nested
        for key, v in value.items():
            if key in ("hasVariant", "offers"):
                continue  # read with their product
            yield from _products(v, nested or key in _OTHER_PRODUCT_KEYS, depth + 1)


def jsonld_product(tree, base: str, page_url: str, title: str | None) -> dict:
    """The page's own JSON-LD product: the one for this URL or named like the page's title, not a
    recommended or recently viewed one; for a product group, the variant of this URL over the
    parent."""
    found: list[tuple[int, dict]] = []
    for script in tree.css('script[type="application/ld+json"]'):
        text = script.text() or ""
        if len(text) > MAX_JSONLD_CHARS:
            continue  # no product's own data is this big: a dump, or a page built to stall us
        try:
            doc = json.loads(text, strict=False)
        except (ValueError, RecursionError):
            continue  # a broken or absurdly nested block: the next block and other forms may say it
        for node, nested in _products(doc):
            score = 0 if nested else 1
            if same_page(absolute_url(_link(node.get("url")), base), page_url):
                score += 4
            if title and fold(_text(node.get("name")) or "") == fold(title):
                score += 2
            found.append((score, node))
    if not found:
        return {}
    node = max(found, key=lambda f: f[0])[1]  # the first of the best
    if "ProductGroup" not in _types(node):
        return _from_schema_product(node, base, page_url)
    parent = _from_schema_product(node, base, page_url)
    variants = [v for v in (node.get("hasVariant") or []) if isinstance(v, dict)]
    own = next(
        (v for v in variants if same_page(absolute_url(_link(v.get("url")), base), page_url)),
        None,
    )
    if own is not None:
        return {**parent, **_from_schema_product(own, base, page_url), "url": page_url}
    parent.pop("sku", None)  # the group's SKU is nobody's: the variant's is unknown here
    if len(variants) == 1:
        parent.update(_from_schema_product(variants[0], base, page_url))
    parent["_variants"] = [_from_schema_product(v, base, page_url) for v in variants]
    return parent


def microdata_product(tree, base: str, page_url: str) -> dict:
    """schema.org microdata (itemprop) and RDFa (property) of the page's Product."""
    scope = tree.css_first('[itemtype*="schema.org/Product"], [typeof*="Product"]')
    if scope is None:
        return {}
    node: dict[str, Any] = {}
    offers: dict[str, Any] = {}
    rating: dict[str, Any] = {}
    for el in scope.css("[itemprop], [property]"):
        if _other_item(el, scope):
            continue  # a related product's own itemscope inside the page's product
        prop = (el.attributes.get("itemprop") or el.attributes.get("property") or "").split(":")[-1]
        if el.tag in ("link", "a"):
            value = el.attributes.get("href") or el.attributes.get("content")
        else:
            value = el.attributes.get("content") or el.attributes.get("src") or visible_text(el)
        if prop in ("price", "priceCurrency", "availability", "lowPrice"):
            offers.setdefault(prop, value)
        elif prop in ("ratingValue", "reviewCount", "ratingCount"):
            rating.setdefault(prop, value)
        elif prop == "brand":
            inner = el.css_first('[itemprop="name"], [property$="name"]')
            if inner is not None:
                value = inner.attributes.get("content") or visible_text(inner)
            node.setdefault("brand", value)
        elif prop and prop not in node and not ("itemscope" in el.attributes and prop != "offers"):
            node[prop] = value
    node["offers"], node["aggregateRating"] = offers, rating
    out = _from_schema_product(node, base, page_url)
    out.pop("url", None)  # an itemprop="url" may be an offer's or a breadcrumb's
    return out


def _other_item(el: LexborNode, scope: LexborNode) -> bool:
    """Whether ``el`` belongs to another Product nested in ``scope`` (an upsell tile with its own
    ``itemscope``), not to the page's product or its offer, brand or rating."""
    node = el.parent if "itemscope" in el.attributes else el
    while node is not None and node.mem_id != scope.mem_id:
        kind = node.attributes.get("itemtype") or node.attributes.get("typeof") or ""
        if ("itemscope" in node.attributes or node.attributes.get("typeof")) and "Product" in kind:
            return True
        node = node.parent
    return False


def meta_product(tree, base: str) -> dict:
    """OpenGraph and product:/og: meta tags."""
    tags: dict[str, str] = {}
    for el in tree.css("meta[property], meta[name]"):
        key = (el.attributes.get("property") or el.attributes.get("name") or "").lower()
        if key and key not in tags and el.attributes.get("content"):
            tags[key] = el.attributes["content"]
    out = {
        "name": tags.get("og:title"),
        "price": _number(
            tags.get("product:price:amount")
            or tags.get("og:price:amount")
            or tags.get("product:price")
            or tags.get("og:price")
        ),
        "currency": tags.get("product:price:currency") or tags.get("og:price:currency"),
        "availability": _availability(tags.get("product:availability") or tags.get("og:availability")),
        "brand": tags.get("product:brand") or tags.get("og:brand"),
        "sku": tags.get("product:retailer_item_id"),
        "description": tags.get("og:description") or tags.get("description"),
        "image": absolute_url(tags.get("og:image"), base),
        "url": absolute_url(tags.get("og:url"), base),
    }
    return {k: v for k, v in out.items() if v is not None}


def fold(text: str) -> str:
    """``text`` lower-cased with its punctuation as single spaces, for comparing names."""
    return re.sub(r"\W+", " ", text).strip().lower()
