"""Put an item list in order by one field and keep the first N: "the 5 cheapest", "most points first".

The field is an item key or a concept (`curllm_core.item_fields`): ``points`` sorts Reddit posts by
their ``score``, ``name`` sorts stories by their ``title``. Items without a usable value go last,
whatever the order; equal values keep their page order. Without ``by`` only the count applies
(the first N after the checks before this step).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...errors import ToolError
from ...item_fields import SORT_DEFAULT_ORDER, concept_of, key_for
from ...tool import ToolContext
from .items import items_of


def sort_value(value: Any) -> tuple[int, Any] | None:
    """A comparable form of ``value``: numbers as numbers, text casefolded; None when unusable."""
    if value is None or isinstance(value, bool | dict | list):
        return None
    if isinstance(value, int | float):
        return (0, float(value))
    text = str(value).strip()
    if not text:
        return None
    try:
        return (0, float(text.replace(",", ".").replace(" ", "")))
    except ValueError:
        pass
    if len(text) >= 10 and text[4] == "-" and text[:4].isdigit():
        # ISO 8601 dates and times, compared as instants: "…T10:57:08-07:00" is later than
        # "…T16:00:00+00:00" although it sorts first as text. A time without a zone counts as UTC.
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            return (0, moment.timestamp())
    return (1, text.casefold())


def order_items(items: list, by: str | None, order: str | None, limit: int | None) -> tuple[list, dict]:
    """The items in order (and cut to ``limit``), and what was done, for the step's report."""
    report: dict[str, Any] = {"by": None, "order": None, "missing": 0, "total": len(items)}
    if by:
        field = key_for(items, by)
        if field is None and items:
            present = sorted({k for i in items if isinstance(i, dict) for k in i})
            raise ToolError(
                f"no item has a field for {by!r}, so the items cannot be put in that order "
                f"(their fields: {', '.join(present) or 'none'})"
            )
        direction = order or SORT_DEFAULT_ORDER.get(concept_of(by) or "", "asc")
        keyed = [(sort_value(i.get(field)) if isinstance(i, dict) and field else None, i) for i in items]
        have = [(v, i) for v, i in keyed if v is not None]
        # Numbers before text when a field mixes them; stable, so ties keep the page's order.
        have.sort(key=lambda vi: vi[0], reverse=direction == "desc")
        if direction == "desc":  # reverse=True puts text before numbers; numbers stay first
            have.sort(key=lambda vi: vi[0][0])
        rest = [i for v, i in keyed if v is None]
        items = [i for _, i in have] + rest
        report.update(by=field, order=direction, missing=len(rest))
    if limit is not None:
        items = items[:limit]
    report["kept"] = len(items)
    return items, report


async def run(
    ctx: ToolContext,
    by: str | None = None,
    order: str | None = None,
    limit: int | None = None,
    key: str = "products",
) -> dict:
    """Tool entry point: the list under ``key``, in order and cut."""
    items, report = order_items(items_of(ctx, key), by, order, limit)
    return {key: items, "ordering": report}
