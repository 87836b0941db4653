"""Shared by the validation tools: the list of items they check, and the filter-or-fail verdict."""

from __future__ import annotations

from ...errors import ToolError
from ...tool import ToolContext


def items_of(ctx: ToolContext, key: str) -> list:
    """The list under ``key`` in the step's data; a ToolError naming the keys there are otherwise."""
    items = ctx.data.get(key)
    if items is None:
        raise ToolError(
            f"no {key!r} in the data to check (keys present: {', '.join(sorted(ctx.data)) or 'none'})"
        )
    if not isinstance(items, list):
        raise ToolError(f"{key!r} must be a list of items, got {type(items).__name__}")
    return items


def verdict(key: str, kept: list, rejected: list[dict], mode: str, what: str, *, noun: str = "items") -> dict:
    """Filter mode drops the rejected items and reports them; fail mode fails the step on any.

    ``rejected`` entries carry a ``reason``; the failure reads "2 of 4 {noun} {what}: reasons".
    """
    if rejected and mode == "fail":
        sample = "; ".join(r["reason"] for r in rejected[:3])
        raise ToolError(f"{len(rejected)} of {len(kept) + len(rejected)} {noun} {what}: {sample}")
    return {
        key: kept,
        "validation": {
            "checked": len(kept) + len(rejected),
            "kept": len(kept),
            "rejected": rejected,
            "mode": mode,
        },
    }
