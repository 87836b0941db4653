"""Type a query into the page's search box and, unless told otherwise, run the search.

The box is recognised by what marks search boxes across sites: ``input[type=search]``, the names
``q`` / ``query`` / ``search`` / ``k`` / ``_nkw`` (Bing's is a ``textarea name=q``), placeholders and
labels such as "Szukaj", "Search", "Suche", "Znajdź", a search form (``role=search``, an action or
id mentioning search), and a place in the page header.
"""

from __future__ import annotations

from typing import Any

from ...errors import FieldNotFound, ToolError
from ...tool import ToolContext, require_page
from ..page_helpers import (
    Field,
    PageWatch,
    fill_value,
    has_word,
    scan_fields,
    submit_from,
    type_text,
    words,
)
from .price_filter import price_evidence

SEARCH_NAMES = r"q|query|search\w*|s|k|keywords?|kw|nkw|szukaj\w*|wyszukaj\w*|fraza|phrase|term|suche?\w*|suchbegriff|find"
SEARCH_TEXT = (
    r"szukaj\w*|wyszukaj\w*|wyszukiwan\w*|znajdz|search\w*|suche\w*|suchbegriff|finden|find|"
    r"czego szukasz|was suchst"
)
NOT_SEARCH = {"email", "password", "date", "datetime-local", "month", "week", "time", "number", "url", "tel"}
LOOKED_FOR = (
    "input[type=search], fields named q/query/search/k, placeholders or labels like "
    "'Szukaj', 'Search', 'Suche', 'Znajdź', inside a search form or the page header"
)


def search_score(f: Field) -> float:
    """How much a field looks like the site's search box (0 or less: not at all)."""
    if f.type in NOT_SEARCH or f.tag == "select" or f.disabled or f.readonly:
        return 0.0
    score = 0.0
    if f.type == "search":
        score += 5
    if has_word(words(f.name, f.id), SEARCH_NAMES):
        score += (
            4
            if f.name.lower() in ("q", "query", "search", "k", "_nkw", "search-query", "search_query")
            else 3
        )
    if has_word(words(f.placeholder, f.label, f.aria), SEARCH_TEXT):
        score += 4
    if has_word(words(f.form_info, f.form_action, f.around), r"search\w*|szukaj\w*|suche\w*|wyszukiw\w*"):
        score += 2
    if f.in_header:
        score += 1
    if f.tag == "textarea" and score < 4:
        return 0.0  # a comment box, a message field...
    if price_evidence(f) >= 3:
        score -= 4
    if not f.visible:
        score -= 6
    return score


def choose_box(fields: list[Field]) -> Field | None:
    """The most search-like visible field, if any is convincing."""
    ranked = sorted(((search_score(f), -f.order, f) for f in fields), key=lambda t: t[:2], reverse=True)
    return ranked[0][2] if ranked and ranked[0][0] >= 3 else None


async def run(ctx: ToolContext, query: str, submit: bool = True, **_: Any) -> dict:
    """Put ``query`` into the search box and submit it (Enter or the search button)."""
    page = require_page(ctx)
    if not query or not query.strip():
        raise ToolError("search_query needs a non-empty query")
    scan = await scan_fields(page)
    box = choose_box(scan.items)
    if box is None:
        raise FieldNotFound(f"no search box found on {scan.url}: looked for {LOOKED_FOR}")
    typed = submit and await type_text(page, box.selector, query)
    value = query if typed else await fill_value(page, box.selector, query)
    report: dict[str, Any] = {"query": value, "field": box.describe(), "submitted": False, "method": None}
    if submit:
        async with PageWatch(page, arm=False, emit=ctx.emit) as watch:
            outcome = await submit_from(
                page, box.selector, watch, what="the search", fill={box.selector: None} if typed else {}
            )
        report["query"] = outcome["values"].get(box.selector, value)
        report.update(submitted=True, method=outcome["method"], navigated=outcome["navigated"])
    report["url"] = page.url
    return {"search_query": report}
