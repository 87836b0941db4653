"""Keep only the asked-for fields of every item (or of the one record, a product page's): "only names
and prices", "tylko nazwy i ceny", "the price of this product".

Each field is an item key or a concept (`curllm_core.item_fields`): ``name`` is a story's
``title``, ``points`` a Reddit post's ``score``. Every item gets exactly the keys found, in the
order asked (null where an item has no value). A field no item has fails the step: the answer
would silently miss what was asked for.
"""

from __future__ import annotations

from ...errors import ToolError
from ...item_fields import key_for
from ...tool import ToolContext
from .items import items_of


def select_fields(items: list, fields: list[str]) -> tuple[list, list[str]]:
    """The items with only ``fields`` (as the items name them), and those names."""
    keys: list[str] = []
    for name in fields:
        key = key_for(items, name)
        if key is None and items:
            present = sorted({k for i in items if isinstance(i, dict) for k in i})
            raise ToolError(
                f"no item has a field for {name!r} (their fields: {', '.join(present) or 'none'})"
            )
        key = key or name
        if key not in keys:
            keys.append(key)
    out = [{k: item.get(k) for k in keys} if isinstance(item, dict) else item for item in items]
    return out, keys


async def run(ctx: ToolContext, fields: list[str], key: str = "products") -> dict:
    """Tool entry point: the list under ``key`` with only ``fields``; one record under it (a
    product page's ``product``) with only those fields."""
    one = ctx.data.get(key)
    if isinstance(one, dict):
        (record,), keys = select_fields([one], fields)
        return {key: record, "selection": {"fields": keys, "items": 1}}
    items, keys = select_fields(items_of(ctx, key), fields)
    return {key: items, "selection": {"fields": keys, "items": len(items)}}
