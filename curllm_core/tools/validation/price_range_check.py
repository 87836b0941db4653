"""Keep the items whose price lies in [min, max]; or fail the step when any does not."""

from __future__ import annotations

from ...tool import ToolContext
from .items import items_of, verdict


def _price(item: dict) -> float | None:
    price = item.get("price") if isinstance(item, dict) else None
    if isinstance(price, bool):
        return None
    if isinstance(price, int | float):
        return float(price)
    if isinstance(price, str):
        from ...prices import parse_price

        parsed = parse_price(price)
        return parsed.amount if parsed else None
    return None


async def run(
    ctx: ToolContext,
    min: float | None = None,
    max: float | None = None,
    mode: str = "filter",
    key: str = "products",
    keep_unpriced: bool = False,
) -> dict:
    kept, rejected = [], []
    for index, item in enumerate(items_of(ctx, key)):
        price = _price(item)
        if price is None:
            ok, reason = keep_unpriced, "no price"
        else:
            ok = (min is None or price >= min) and (max is None or price <= max)
            reason = f"price {price:g} outside [{'' if min is None else f'{min:g}'}, {'' if max is None else f'{max:g}'}]"
        if ok:
            kept.append(item)
        else:
            name = item.get("name") or item.get("title") if isinstance(item, dict) else None
            rejected.append(
                {"index": index, "name": name, "price": price, "reason": f"item {index} ({name}): {reason}"}
            )
    return verdict(key, kept, rejected, mode, "are outside the price range")
