"""Check item URLs: absolute http(s) URLs pass, relative ones are resolved against the page, the rest
(javascript:, mailto:, empty, no host, spaces) are reported, and dropped in filter mode."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from ...tool import ToolContext
from .items import items_of, verdict


def checked_url(value, base: str | None) -> tuple[str | None, str | None]:
    """(absolute URL, None) when fine, else (None, why not)."""
    if not isinstance(value, str) or not value.strip():
        return None, "no URL"
    text = value.strip()
    if any(c.isspace() for c in text):
        return None, f"{text!r} contains white space"
    parts = urlsplit(text)
    if not parts.scheme:
        if not base or urlsplit(base).scheme not in ("http", "https", "file"):
            return None, f"{text!r} is relative and there is no page URL to resolve it against"
        text = urljoin(base, text)
        parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        return None, f"{text!r} is not an http(s) URL"
    if not parts.hostname or "." not in parts.hostname and parts.hostname != "localhost" and not parts.port:
        return None, f"{text!r} has no valid host"
    return text, None


async def run(
    ctx: ToolContext,
    field: str = "url",
    mode: str = "filter",
    key: str = "products",
    base_url: str | None = None,
) -> dict:
    base = base_url or ctx.url
    kept, rejected = [], []
    for index, item in enumerate(items_of(ctx, key)):
        url, why = checked_url(item.get(field) if isinstance(item, dict) else None, base)
        if why:
            rejected.append(
                {
                    "index": index,
                    "url": item.get(field) if isinstance(item, dict) else None,
                    "reason": f"item {index}: {why}",
                }
            )
        else:
            kept.append({**item, field: url} if item.get(field) != url else item)
    return verdict(key, kept, rejected, mode, "have invalid URLs")
