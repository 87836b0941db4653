"""Stories of a Hacker News listing; each story spans two table rows (title row, then subtext row)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

from ...tool import ToolContext
from ._html import apply_limit, check_count, comment_count, page_base, page_html, parse_html, strip_junk
from ._select import best_layout

_DISCUSS_RE = re.compile(r"^\s*discuss\s*$", re.IGNORECASE)


def extract(
    html: str,
    base_url: str,
    *,
    selectors: dict | None = None,
    limit: int | None = None,
    min_points: int | None = None,
    **_: Any,
) -> dict:
    """Hacker News stories on ``html``, in page order; ``min_points`` keeps stories with at least
    that many points, then ``limit`` keeps the first N. URLs are absolute (Ask HN items point to
    their discussion page)."""
    check_count("min_points", min_points)
    layouts = selectors or {}
    tree = parse_html(html)
    base = page_base(tree, base_url, layouts.get("origin"))
    strip_junk(tree)
    _name, records = best_layout(tree, layouts, base)
    articles = []
    for record in records:
        discussion = urljoin(base, f"item?id={record['id']}")  # every HN page lives at the site root
        article = {
            "title": record["title"],
            "url": record["url"] or discussion,
            "points": record.get("points"),
            "comments": comment_count(record.get("comments_text"), _DISCUSS_RE),
            "author": record.get("author"),
            "rank": record.get("rank"),
            "id": record["id"],
            "site": record.get("site"),
            "age": record.get("age"),
            "discussion_url": discussion,
        }
        if min_points is not None and (article["points"] is None or article["points"] < min_points):
            continue
        articles.append(article)
    return {"articles": apply_limit(articles, limit)}


async def run(
    ctx: ToolContext, limit: int | None = None, min_points: int | None = None, min_score: int | None = None
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract` with the manifest's selectors.

    ``min_score`` is ``min_points`` under articles_reddit's name (points are one concept), so that
    this tool can stand in for that one on a Hacker News page without dropping the threshold."""
    html, url = await page_html(ctx)
    least = max((v for v in (min_points, min_score) if v is not None), default=None)
    return extract(html, url, selectors=ctx.selectors, limit=limit, min_points=least)
