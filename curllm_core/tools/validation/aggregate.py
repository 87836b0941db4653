"""One number about the items: "how many offers are there?", "what do they cost on average?".

``op`` is count, sum, average, min, max or median; every op but count reads a numeric ``field``
(an item key or a concept, `curllm_core.item_fields`; price unless said otherwise) of the item list
under ``of`` (left as it is). The answer goes
to the data key ``summary``, beside what earlier steps put there: ``{"count": 30}``,
``{"average_price": 41.7, "currency": "USD"}``. Prices in more than one currency are not added up
(curllm has no exchange rates): the step fails and names the currencies. Items without a value are
not counted in a sum or an average, and the step warns how many there were.
"""

from __future__ import annotations

import statistics

from ...errors import ToolError
from ...item_fields import concept_of
from ...tool import ToolContext
from ._values import currency_of, number_of, require_key
from .items import items_of

OPS = ("count", "sum", "average", "min", "max", "median")
SUMMARY_KEY = "summary"


def aggregate(items: list, op: str, field: str | None = None) -> tuple[dict, int]:
    """(the summary entries, how many items had no value) of ``op`` over ``field`` of ``items``."""
    if op not in OPS:
        raise ToolError(f"unknown op {op!r}: one of {', '.join(OPS)}")
    if op == "count":
        return {"count": len(items)}, 0
    name = field or "price"
    key = require_key(items, name, f"its {op} cannot be worked out")
    values: list[float] = []
    currencies: set[str] = set()
    for item in items:
        value = number_of(item.get(key) if isinstance(item, dict) else None, key)
        if value is None:
            continue
        values.append(value)
        if currency_of(item):
            currencies.add(currency_of(item) or "")
    price = concept_of(key) == "price" or concept_of(name) == "price"
    if price and len(currencies) > 1:
        raise ToolError(
            f"the {key}s are in {len(currencies)} currencies ({', '.join(sorted(currencies))}); "
            f"their {op} needs exchange rates, which curllm does not have"
        )
    label = f"{op}_{concept_of(name) or name}"
    if not values:
        result: float | None = None
    elif op == "sum":
        result = sum(values)
    elif op == "average":
        result = statistics.fmean(values)
    elif op == "median":
        result = statistics.median(values)
    else:
        result = min(values) if op == "min" else max(values)
    if result is not None:
        result = round(result, 2)
        if result == int(result) and all(v == int(v) for v in values):
            result = int(result)
    summary: dict = {label: result}
    if price and currencies:
        summary["currency"] = next(iter(currencies))
    return summary, len(items) - len(values)


async def run(ctx: ToolContext, op: str, field: str | None = None, of: str = "products") -> dict:
    """Tool entry point: the summary of the list under ``of``, an earlier one (a count before an
    average) kept beside it."""
    key = of
    items = items_of(ctx, key)
    entries, missing = aggregate(items, op, field)
    if missing:
        ctx.warn(
            f"{missing} of {len(items)} {key} have no {field or 'price'}: the {op} is of the other {len(items) - missing}"
        )
    earlier = ctx.data.get(SUMMARY_KEY)
    summary = {**earlier, **entries} if isinstance(earlier, dict) else entries
    return {SUMMARY_KEY: summary}
