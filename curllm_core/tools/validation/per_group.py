"""One item of each group: "the cheapest offer from each seller", "the most expensive of each brand",
"the first post of each author".

Items are grouped by the value of ``group_by`` (an item key or a concept: ``brand``, ``seller``,
``author``, ``site``; compared folded). Of each group ``pick`` keeps the ``first`` (in the page's
order), the ``lowest`` or the ``highest`` value of ``field`` (price unless said otherwise; an item
without a value never beats one with). The kept items stay in the order of their groups' first
appearance. When no item has the field to group by, nothing can be grouped: every item is kept and
the step warns; items without a value of it are left out, with a warning saying how many.
"""

from __future__ import annotations

from typing import Any

from ...tool import ToolContext
from ._values import fields_present, require_key, text_of
from .items import items_of
from .order_items import sort_value


def per_group(
    items: list, group_by: str, pick: str = "first", field: str | None = None
) -> tuple[list, dict[str, Any], list[str]]:
    """(one item per group, the report, warnings)."""
    from ...item_fields import key_for

    group_key = key_for(items, group_by)
    if group_key is None:
        report = {
            "group_by": None,
            "pick": pick,
            "by": None,
            "groups": 0,
            "total": len(items),
            "kept": len(items),
        }
        warning = (
            f"no item has a field for {group_by!r} (their fields: {', '.join(fields_present(items)) or 'none'}), "
            f"so the items were not grouped: all {len(items)} are kept"
        )
        return list(items), report, [warning] if items else []
    by = None
    if pick != "first":
        by = require_key(items, field or "price", f"the {pick} of each {group_by} cannot be told")
    best: dict[str, tuple[int, Any]] = {}  # group -> (index, item)
    ungrouped = 0
    for index, item in enumerate(items):
        group = text_of(item.get(group_key) if isinstance(item, dict) else None)
        if group is None:
            ungrouped += 1
            continue
        if group not in best:
            best[group] = (index, item)
            continue
        if by is None:
            continue
        current = sort_value(best[group][1].get(by))
        value = sort_value(item.get(by))
        if value is None or (
            current is not None and not (value < current if pick == "lowest" else value > current)
        ):
            continue
        best[group] = (best[group][0], item)  # the group keeps its place in the page's order
    kept = [item for _, item in sorted(best.values(), key=lambda entry: entry[0])]
    warnings = []
    if ungrouped:
        warnings.append(f"{ungrouped} of {len(items)} items have no {group_key} and were left out")
    report = {
        "group_by": group_key,
        "pick": pick,
        "by": by,
        "groups": len(best),
        "total": len(items),
        "kept": len(kept),
    }
    return kept, report, warnings


async def run(
    ctx: ToolContext, group_by: str, pick: str = "first", field: str | None = None, key: str = "products"
) -> dict:
    """Tool entry point: the list under ``key``, one item of each group."""
    kept, report, warnings = per_group(items_of(ctx, key), group_by, pick, field)
    for warning in warnings:
        ctx.warn(warning)
    return {key: kept, "grouping": report}
