"""Shared by the product tools: the output shape of a product, and the site-tool pipeline."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...prices import Price
from ._html import apply_limit, default_currency, page_base, parse_html, strip_junk
from ._select import best_layout

#: Keys every product has, in this order; extras follow.
PRODUCT_KEYS = ("name", "price", "currency", "url")


def finish_products(records: list[dict], currency: str | None) -> list[dict]:
    """Products in the output shape: ``price`` a number or None, ``currency`` ISO 4217 or None,
    ``price_upper`` for a price range, other price fields as amounts, None-valued extras dropped.

    An item shown without a price gets the currency the rest of the listing uses (or the domain's),
    so it still groups with its neighbours; its price stays None.
    """
    products: list[dict] = []
    for record in records:
        price = record.get("price")
        product: dict[str, Any] = {
            "name": record.get("name"),
            "price": None,
            "currency": None,
            "url": record.get("url"),
        }
        if isinstance(price, Price):
            product["price"] = price.amount
            product["currency"] = price.currency
            if price.upper is not None:
                product["price_upper"] = price.upper
        elif isinstance(price, int | float) and not isinstance(price, bool):
            product["price"] = float(price)
        for key, value in record.items():
            if key not in product and key != "price" and value is not None:
                # Another price field of the layout (a list price): its amount, in the same currency.
                product[key] = value.amount if isinstance(value, Price) else value
        products.append(product)
    seen = Counter(p["currency"] for p in products if p["currency"])
    fill = seen.most_common(1)[0][0] if seen else currency
    for product in products:
        if product["currency"] is None and fill:
            product["currency"] = fill
    return products


def extract_site_products(html: str, base_url: str, selectors: dict, limit: int | None) -> dict:
    """A site tool's extraction: its manifest layouts first; the generic detector when none matches
    (the site changed its markup), so the tool degrades instead of returning nothing."""
    from .products_generic import detect_products

    tree = parse_html(html)
    base = page_base(tree, base_url, selectors.get("origin"))
    strip_junk(tree)
    currency = default_currency(base)
    layout, records = best_layout(tree, selectors, base, currency)
    if not records:
        layout, records = "generic", detect_products(tree, base, currency)
    return {"products": apply_limit(finish_products(records, currency), limit), "layout": layout}
