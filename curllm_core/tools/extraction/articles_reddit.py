"""Posts of a Reddit page: old.reddit listings, the current web components and the 2018 redesign."""

from __future__ import annotations

import re
from typing import Any

from ...tool import ToolContext
from ._html import apply_limit, check_count, comment_count, page_base, page_html, parse_html, strip_junk
from ._select import best_layout

_NO_COMMENTS_RE = re.compile(r"^\s*(comment|comments|kommentieren|skomentuj)\s*$", re.IGNORECASE)


def extract(
    html: str,
    base_url: str,
    *,
    selectors: dict | None = None,
    limit: int | None = None,
    min_score: int | None = None,
    include_promoted: bool = False,
    **_: Any,
) -> dict:
    """Reddit posts on ``html`` in page order; ``min_score`` keeps posts scored at least that (hidden
    scores count as missing), then ``limit`` keeps the first N. Promoted posts are left out unless
    ``include_promoted``."""
    check_count("min_score", min_score)
    selectors = selectors or {}
    tree = parse_html(html)
    base = page_base(tree, base_url, selectors.get("origin"))
    strip_junk(tree)
    layout, records = best_layout(tree, selectors, base)
    articles = []
    for record in records:
        article = {
            "title": record["title"],
            "url": record.get("url") or record.get("permalink"),
            "score": record.get("score"),
            "comments": comment_count(record.get("comments_text"), _NO_COMMENTS_RE),
            "author": record.get("author"),
            "rank": record.get("rank"),
            "id": record.get("id"),
            "subreddit": record.get("subreddit"),
            "permalink": record.get("permalink"),
            "created": record.get("created"),
            "promoted": bool(record.get("promoted")),
        }
        if not article["url"]:
            continue
        if article["promoted"] and not include_promoted:
            continue
        if min_score is not None and (article["score"] is None or article["score"] < min_score):
            continue
        articles.append(article)
    return {"articles": apply_limit(articles, limit), "layout": layout}


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    min_score: int | None = None,
    include_promoted: bool = False,
    min_points: int | None = None,
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract` with the manifest's selectors.

    ``min_points`` is ``min_score`` under the name the other article tools use (points are one
    concept), so that this tool can stand in for them on a reddit page without dropping the threshold."""
    html, url = await page_html(ctx)
    return extract(
        html,
        url,
        selectors=ctx.selectors,
        limit=limit,
        min_score=max((v for v in (min_score, min_points) if v is not None), default=None),
        include_promoted=include_promoted,
    )
