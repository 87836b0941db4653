"""Products of an Amazon page: search results or a Best Sellers grid, any Amazon country site."""

from __future__ import annotations

from typing import Any

from ...tool import ToolContext
from ._html import apply_limit, page_html
from ._site_products import extract_site_products


def extract(
    html: str,
    base_url: str,
    *,
    selectors: dict | None = None,
    limit: int | None = None,
    include_sponsored: bool = True,
    min_price: float | None = None,
    max_price: float | None = None,
    **_: Any,
) -> dict:
    """Amazon products on ``html``; ``selectors`` is the manifest's block (search and bestsellers layouts).

    Every product carries ``sponsored`` (true for ads among the results). A result shown without a
    price keeps ``price`` None. The page's currency comes from the prices themselves ("€2.95" is EUR
    even on an English-language amazon.de page). Only products priced in [``min_price``,
    ``max_price``] are kept when a bound is given.
    """
    result = extract_site_products(
        html, base_url, selectors or {}, None, min_price=min_price, max_price=max_price
    )
    products = result["products"]
    for product in products:
        product["sponsored"] = bool(product.get("sponsored"))
    if not include_sponsored:
        products = [p for p in products if not p["sponsored"]]
    result["products"] = apply_limit(products, limit)
    return result


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    include_sponsored: bool = True,
    min_price: float | None = None,
    max_price: float | None = None,
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract` with the manifest's selectors."""
    html, url = await page_html(ctx)
    return extract(
        html,
        url,
        selectors=ctx.selectors,
        limit=limit,
        include_sponsored=include_sponsored,
        min_price=min_price,
        max_price=max_price,
    )
