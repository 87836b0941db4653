"""Each item once: "without duplicates", "bez duplikatów", "ohne Duplikate".

Two items are the same when their ``field`` is: by default the link (``url`` or the key the items
use for it), else the name. Links are compared without their fragment, a trailing slash, ``www.``
and the case of the host; names folded (case, accents and white space ignored). The first of each
is kept, in the page's order; an item without the field is never a duplicate.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ...item_fields import concept_of, key_for
from ...tool import ToolContext
from ._values import require_key, text_of
from .items import items_of


def same_link(url: str) -> str:
    """A link as compared for sameness."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    host = (parts.hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    return f"{host}{parts.port or ''}{parts.path.rstrip('/')}?{parts.query}"


def distinct_items(items: list, field: str | None = None) -> tuple[list, str, int]:
    """(the first of each, the key compared, how many were dropped)."""
    name = field or ("url" if key_for(items, "url") else "name")
    key = require_key(items, name, "duplicates cannot be told by it")
    link = concept_of(key) == "url"
    seen: set[str] = set()
    kept = []
    for item in items:
        value = item.get(key) if isinstance(item, dict) else None
        same = same_link(value) if link and isinstance(value, str) and value.strip() else text_of(value)
        if same is None:
            kept.append(item)
        elif same not in seen:
            seen.add(same)
            kept.append(item)
    return kept, key, len(items) - len(kept)


async def run(ctx: ToolContext, field: str | None = None, key: str = "products") -> dict:
    """Tool entry point: the list under ``key``, each item once."""
    items = items_of(ctx, key)
    kept, by, dropped = distinct_items(items, field)
    return {key: kept, "distinct": {"by": by, "total": len(items), "kept": len(kept), "dropped": dropped}}
