"""One item (or ``each`` items) of each group: "the cheapest offer from each seller", "the most
expensive of each brand", "the first post of each author", "the top 3 per category".

Items are grouped by the value of ``group_by`` (an item key or a concept: ``brand``, ``seller``,
``author``, ``site``; compared folded). Of each group ``pick`` keeps the ``first`` ``each`` (in the
page's order), or those of the ``lowest`` or the ``highest`` values of ``field`` (price unless said otherwise; an item
without a value never beats one with). The kept items stay in the order of their groups' first
appearance. When no item has the field to group by, nothing can be grouped: every item is kept and
the step warns; items without a value of it are left out, with a warning saying how many. A
``brand`` no item carries is read as the first word of each product's name, and the step says so.
"""

from __future__ import annotations

from typing import Any

from ...tool import ToolContext
from ._values import fields_present, require_key, text_of
from .items import items_of
from .order_items import sort_value


def per_group(
    items: list, group_by: str, pick: str = "first", field: str | None = None, each: int = 1
) -> tuple[list, dict[str, Any], list[str]]:
    """(``each`` items per group, the report, warnings)."""
    from ...item_fields import key_for

    group_key = key_for(items, group_by)
    notes: list[str] = []
    if (
        group_key is None
        and group_by == "brand"
        and any(isinstance(i, dict) and i.get("name") for i in items)
    ):
        # Product names start with their maker on most listings ("ASUS TUF Gaming B650-Plus", "Bosch
        # Wiertarka", "Makita Bohrer"): with no brand field, the name's first word is the group, said so.
        items = [_with_maker(i) for i in items]
        group_key = _MAKER
        notes.append(
            "no item has a brand field: the items are grouped by the first word of their names "
            "(where the maker stands on most listings)"
        )
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
    groups: dict[str, list[Any]] = {}  # group -> its items in the page's order (groups too)
    ungrouped = 0
    for item in items:
        group = text_of(item.get(group_key) if isinstance(item, dict) else None)
        if group is None:
            ungrouped += 1
            continue
        groups.setdefault(group, []).append(item)
    kept: list = []
    for members in groups.values():
        if by is not None:
            # An item without a value never beats one with; ties keep the page's order.
            values = [(sort_value(m.get(by)), m) for m in members]
            valued = [(v, m) for v, m in values if v is not None]
            valued.sort(key=lambda vm: vm[0], reverse=pick == "highest")
            members = [m for _, m in valued] + [m for v, m in values if v is None]
        kept += members[:each]
    kept = [{k: v for k, v in i.items() if k != _MAKER} if isinstance(i, dict) else i for i in kept]
    warnings = notes
    if ungrouped:
        warnings.append(f"{ungrouped} of {len(items)} items have no {group_key} and were left out")
    report = {
        "group_by": group_key,
        "pick": pick,
        "by": by,
        "groups": len(groups),
        "total": len(items),
        "kept": len(kept),
    }
    return kept, report, warnings


#: The key the first word of a name is kept under while grouping (never in the output).
_MAKER = "_maker"


def _with_maker(item: Any) -> Any:
    """The item with the first word of its name (punctuation around it dropped) under ``_MAKER``."""
    if not isinstance(item, dict):
        return item
    words = str(item.get("name") or "").split()
    first = words[0].strip(",.;:()[]\"'") if words else ""
    return {**item, _MAKER: first or None}


async def run(
    ctx: ToolContext,
    group_by: str,
    pick: str = "first",
    field: str | None = None,
    each: int = 1,
    key: str = "products",
) -> dict:
    """Tool entry point: the list under ``key``, ``each`` items of each group."""
    kept, report, warnings = per_group(items_of(ctx, key), group_by, pick, field, each)
    for warning in warnings:
        ctx.warn(warning)
    return {key: kept, "grouping": report}
