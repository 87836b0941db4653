"""Shared by the validation tools: the list of items they check, and the filter-or-fail verdict."""

from __future__ import annotations

from ...errors import ToolError
from ...tool import ToolContext


def items_of(ctx: ToolContext, key: str) -> list:
    items = ctx.data.get(key)
    if items is None:
        raise ToolError(
            f"no {key!r} in the data to check (keys present: {', '.join(sorted(ctx.data)) or 'none'})"
        )
    if not isinstance(items, list):
        raise ToolError(f"{key!r} must be a list of items, got {type(items).__name__}")
    return items


def verdict(key: str, kept: list, rejected: list[dict], mode: str, what: str) -> dict:
    """Filter mode drops the rejected items and reports them; fail mode fails the step on any."""
    if rejected and mode == "fail":
        sample = "; ".join(r["reason"] for r in rejected[:3])
        raise ToolError(f"{len(rejected)} of {len(kept) + len(rejected)} items {what}: {sample}")
    return {
        key: kept,
        "validation": {
            "checked": len(kept) + len(rejected),
            "kept": len(kept),
            "rejected": rejected,
            "mode": mode,
        },
    }
