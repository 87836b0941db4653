"""Keep the items that carry (or do not carry) flags: in stock, on sale, free shipping, sponsored.

Each flag is read from the keys that state it (`curllm_core.item_fields.FLAGS`): a boolean
(``sponsored``, ``in_stock``), a schema.org availability ("InStock", "OutOfStock") or its words in
EN/PL/DE, a regular price above the price (on sale), a shipping cost of 0 or "free"/"gratis"/
"darmowa"/"kostenlos". An item that does not say is unknown: left out unless ``keep_unknown``, and
the step warns how many were. An ad is marked where it is one, so an item without a ``sponsored``
mark among marked ones is not an ad. When no item states a flag at all, the step fails: the answer
could not be told from the items (a listing rarely says its stock; the product's own page does).
"""

from __future__ import annotations

from ...errors import ToolError
from ...item_fields import FLAGS
from ...tool import ToolContext
from ._values import fields_present, flag_of, label_of
from .items import items_of, verdict

SAID = {
    "in_stock": ("in stock", "not in stock"),
    "on_sale": ("on sale", "not on sale"),
    "free_shipping": ("shipped free", "not shipped free"),
    "sponsored": ("sponsored", "not sponsored"),
}


def filter_flags(
    items: list, wanted: dict[str, bool], keep_unknown: bool = False
) -> tuple[list, list, dict[str, int]]:
    """(kept, rejected entries, unknown count per flag) of ``items`` by the ``wanted`` flags."""
    if not wanted:
        raise ToolError(f"say which flag to keep: {', '.join(FLAGS)}")
    for flag in wanted:
        if items and all(flag_of(item, flag) is None for item in items):
            raise ToolError(
                f"no item says whether it is {SAID[flag][0]}, so the items cannot be filtered by it "
                f"(their fields: {', '.join(fields_present(items)) or 'none'})"
            )
    marked = {
        flag: any(isinstance(i, dict) and any(k in i for k in FLAGS[flag]) for i in items) for flag in wanted
    }
    kept: list = []
    rejected: list[dict] = []
    unknown = dict.fromkeys(wanted, 0)
    for index, item in enumerate(items):
        reasons = []
        for flag, want in wanted.items():
            have = flag_of(item, flag)
            if have is None and flag == "sponsored" and marked[flag]:
                have = False
            if have is None:
                unknown[flag] += 1
                if not keep_unknown:
                    reasons.append(f"does not say whether it is {SAID[flag][0]}")
            elif have != want:
                reasons.append(f"is {SAID[flag][0 if have else 1]}")
        if reasons:
            rejected.append(
                {
                    "index": index,
                    "name": label_of(item),
                    "reason": f"item {index} ({label_of(item)}) {'; '.join(reasons)}",
                }
            )
        else:
            kept.append(item)
    return kept, rejected, {f: n for f, n in unknown.items() if n}


async def run(
    ctx: ToolContext,
    in_stock: bool | None = None,
    on_sale: bool | None = None,
    free_shipping: bool | None = None,
    sponsored: bool | None = None,
    keep_unknown: bool = False,
    key: str = "products",
) -> dict:
    """Tool entry point: the list under ``key``, only the items with the flags asked for."""
    given = {"in_stock": in_stock, "on_sale": on_sale, "free_shipping": free_shipping, "sponsored": sponsored}
    wanted = {flag: value for flag, value in given.items() if value is not None}
    kept, rejected, unknown = filter_flags(items_of(ctx, key), wanted, keep_unknown)
    for flag, count in unknown.items():
        ctx.warn(
            f"{count} {key} do not say whether they are {SAID[flag][0]}: "
            + ("kept" if keep_unknown else "left out")
        )
    return verdict(key, kept, rejected, "filter", "lack the flags asked for")
