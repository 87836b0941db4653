"""Keep the items whose number field lies within bounds: "fewer than 5 replies", "at least 100
points", "rated between 4 and 5", "under EUR 30".

Any numeric field, an item key or a concept (`curllm_core.item_fields`): ``points`` is a Reddit
post's ``score``. ``at_least``/``at_most`` are inclusive bounds, ``above``/``below`` strict ones
(a rating "above 4" is not 4). Values written as text are read as people write them ("1.2k", "45
comments", a price "1 299,00 zł"). A ``currency`` says what the bounds are in: an item priced in
another currency is not compared (curllm has no exchange rates), it is left out and the step says
so. An item without a value is left out unless ``keep_missing``; a field no item has fails the step.
"""

from __future__ import annotations

from ...errors import ToolError
from ...tool import ToolContext
from ._values import currency_of, label_of, number_of, require_key
from .items import items_of, verdict


def _bounds_text(at_least, at_most, above, below) -> str:
    parts = []
    if at_least is not None:
        parts.append(f">= {at_least:g}")
    if above is not None:
        parts.append(f"> {above:g}")
    if at_most is not None:
        parts.append(f"<= {at_most:g}")
    if below is not None:
        parts.append(f"< {below:g}")
    return " and ".join(parts)


def filter_number(
    items: list,
    field: str,
    *,
    at_least: float | None = None,
    at_most: float | None = None,
    above: float | None = None,
    below: float | None = None,
    currency: str | None = None,
    keep_missing: bool = False,
) -> tuple[list, list, int]:
    """(kept, rejected entries, items in another currency) of ``items`` by the bounds on ``field``."""
    if at_least is None and at_most is None and above is None and below is None:
        raise ToolError("give a bound: at_least, at_most, above or below")
    key = require_key(items, field, "the items cannot be filtered by it")
    bounds = _bounds_text(at_least, at_most, above, below)
    wanted_currency = currency.strip().upper() if currency else None
    kept: list = []
    rejected: list[dict] = []
    other_currency = 0
    for index, item in enumerate(items):
        value = number_of(item.get(key) if isinstance(item, dict) else None, key)
        reason = None
        if value is None:
            if not keep_missing:
                reason = f"no {key}"
        elif wanted_currency and currency_of(item) not in (None, wanted_currency):
            other_currency += 1
            reason = (
                f"its {key} is in {currency_of(item)}, the bound in {wanted_currency} (no exchange rates)"
            )
        elif not (
            (at_least is None or value >= at_least)
            and (at_most is None or value <= at_most)
            and (above is None or value > above)
            and (below is None or value < below)
        ):
            reason = f"{key} {value:g} is not {bounds}"
        if reason is None:
            kept.append(item)
        else:
            rejected.append(
                {
                    "index": index,
                    "name": label_of(item),
                    "value": value,
                    "reason": f"item {index} ({label_of(item)}): {reason}",
                }
            )
    return kept, rejected, other_currency


async def run(
    ctx: ToolContext,
    field: str,
    at_least: float | None = None,
    at_most: float | None = None,
    above: float | None = None,
    below: float | None = None,
    currency: str | None = None,
    keep_missing: bool = False,
    key: str = "products",
) -> dict:
    """Tool entry point: the list under ``key``, only the items within the bounds."""
    kept, rejected, other = filter_number(
        items_of(ctx, key),
        field,
        at_least=at_least,
        at_most=at_most,
        above=above,
        below=below,
        currency=currency,
        keep_missing=keep_missing,
    )
    if other:
        ctx.warn(
            f"{other} {key} priced in another currency than {currency.upper() if currency else ''} were left out: "
            "curllm has no exchange rates to compare them"
        )
    return verdict(key, kept, rejected, "filter", "are outside the bounds")
