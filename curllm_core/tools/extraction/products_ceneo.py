"""Products of a Ceneo.pl listing (search or category), from the markup named in the manifest."""

from __future__ import annotations

from typing import Any

from ...tool import ToolContext
from ._html import page_html
from ._site_products import extract_site_products


def extract(
    html: str,
    base_url: str,
    *,
    selectors: dict | None = None,
    limit: int | None = None,
    min_price: float | None = None,
    max_price: float | None = None,
    category: str | None = None,
    **_: Any,
) -> dict:
    """Ceneo products on ``html``: the listing rows only, not the promoted boxes above them.

    ``selectors`` is the manifest's block (layouts for the list and box views). Prices are the lowest
    shop offer ("od 7 998,00 zł" -> 7998.0 PLN). Only products priced in [``min_price``,
    ``max_price``] and of ``category`` (see `_products.filter_by_category`) are kept, then ``limit``.
    """
    return extract_site_products(
        html, base_url, selectors or {}, limit, min_price=min_price, max_price=max_price, category=category
    )


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    min_price: float | None = None,
    max_price: float | None = None,
    category: str | None = None,
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract` with the manifest's selectors."""
    html, url = await page_html(ctx)
    return extract(
        html,
        url,
        selectors=ctx.selectors,
        limit=limit,
        min_price=min_price,
        max_price=max_price,
        category=category,
    )
