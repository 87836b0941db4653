"""Keep the items that have every required field (not missing, null or empty); or fail the step."""

from __future__ import annotations

from ...tool import ToolContext
from .items import items_of, verdict


def _empty(value) -> bool:
    return value is None or (
        isinstance(value, str | list | dict) and not (value.strip() if isinstance(value, str) else value)
    )


async def run(ctx: ToolContext, fields: list[str], mode: str = "filter", key: str = "products") -> dict:
    kept, rejected = [], []
    for index, item in enumerate(items_of(ctx, key)):
        missing = [f for f in fields if not isinstance(item, dict) or _empty(item.get(f))]
        if missing:
            rejected.append(
                {"index": index, "missing": missing, "reason": f"item {index} lacks {', '.join(missing)}"}
            )
        else:
            kept.append(item)
    return verdict(key, kept, rejected, mode, "lack required fields")
