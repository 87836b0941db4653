"""extraction.product_details: visit each product's own page and add its description and category.

A custom tool loaded from a directory: ``CURLLM_TOOLS_PATH=examples/custom_tool``. The manifest's
entrypoint ``product_details:run`` names this module, which curllm imports from beside the manifest.

It consumes the ``products`` an earlier extraction step produced and produces them again, enriched.
Product pages are opened with ``ctx.browser.open`` (the task's own browser session) so the run's
network policy and timeouts apply to them like to the start page. The markup (which element is the
description, where the breadcrumbs are) lives in the manifest's ``selectors`` block.
"""

from __future__ import annotations

import time

from selectolax.lexbor import LexborHTMLParser

from curllm_core.toolkit import CurllmError, ToolContext, ToolError, UrlCompleteEvent, UrlStartEvent


def details(html: str, selectors: dict) -> dict:
    """Description and category path of one product page (pure: testable on saved HTML)."""
    tree = LexborHTMLParser(html)
    description = None
    for selector in selectors.get("description", []):
        el = tree.css_first(selector)
        if el is not None:
            text = el.attributes.get("content") if el.tag == "meta" else el.text(deep=True)
            description = " ".join((text or "").split()) or None
            if description:
                break
    category: list[str] = []
    for selector in selectors.get("breadcrumbs", []):
        crumbs = [" ".join(a.text(deep=True).split()) for a in tree.css(selector)]
        if crumbs:
            category = crumbs[1:]  # the first crumb is the shop's home page
            break
    return {"description": description, "category": category}


async def run(ctx: ToolContext, limit: int = 5, key: str = "products") -> dict:
    products = ctx.data.get(key)
    if not isinstance(products, list):
        raise ToolError(f"no list of products under {key!r}: run a product extraction first")
    if ctx.browser is None:
        raise ToolError("extraction.product_details needs the browser session", code="NO_PAGE")
    enriched = []
    for index, product in enumerate(products):
        url = product.get("url") if isinstance(product, dict) else None
        if index >= limit or not url:
            enriched.append(product)
            continue
        # Every page the run visits is reported: url_start, then url_complete (opened or failed).
        ctx.emit(UrlStartEvent(url=url))
        started = time.perf_counter()
        try:
            page = await ctx.browser.open(url)
        except CurllmError as e:
            # One product page failing (404, blocked) should not lose the others' details.
            ctx.emit(UrlCompleteEvent(url=url, duration_ms=_ms(started), error=e.message))
            enriched.append(product | {"details_error": e.message})
            continue
        ctx.emit(UrlCompleteEvent(url=page.url, duration_ms=_ms(started), title=await page.title()))
        enriched.append(product | details(await page.content(), ctx.selectors))
    return {key: enriched}


def _ms(since: float) -> int:
    return int((time.perf_counter() - since) * 1000)
