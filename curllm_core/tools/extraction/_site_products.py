"""The pipeline of a site's product tool (`extraction.products_ceneo`, `extraction.products_amazon`):
its manifest's layouts first, the generic detector when none matches.

Its own module because it joins the shared product helpers (`_products`) and the generic detector
(`products_generic`), which itself uses those helpers: neither imports the other back.
"""

from __future__ import annotations

from typing import Any

from ...prices import filter_by_price
from ._html import apply_limit, page_base, parse_html, strip_junk, visible_text
from ._products import PageCurrency, filter_by_category, finish_products
from ._select import best_layout
from .products_generic import detect_products


def extract_site_products(
    html: str,
    base_url: str,
    selectors: dict,
    limit: int | None,
    min_price: float | None = None,
    max_price: float | None = None,
    category: str | None = None,
) -> dict:
    """A site tool's extraction: its manifest layouts first; the generic detector when none matches
    (the site changed its markup), so the tool degrades instead of returning nothing. Products
    priced outside [``min_price``, ``max_price``], and outside ``category`` when one is given, are
    left out; then the first ``limit`` are kept."""
    tree = parse_html(html)
    base = page_base(tree, base_url, selectors.get("origin"))
    context = PageCurrency(tree, base, html)
    strip_junk(tree)
    # A page without a country domain (a saved page, one served from 127.0.0.1) asks its own
    # context what a bare "$" or "kr" is.
    currency = context.domain or context.resolve(tree.body)
    layout, records = best_layout(tree, selectors, base, currency)
    if not records:
        layout, records = "generic", detect_products(tree, base, context)
    found = finish_products(records, context.best)
    products = filter_by_price(found, min_price, max_price)
    if category:
        heading = tree.css_first("h1")
        products = filter_by_category(
            products, category, visible_text(heading) if heading is not None else None
        )
    out: dict[str, Any] = {"products": apply_limit(products, limit), "layout": layout}
    if len(products) < len(found):
        out["dropped"] = len(found) - len(products)  # a pager reads on: the page had products, none kept
    return out
