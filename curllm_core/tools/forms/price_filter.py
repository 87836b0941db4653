"""Fill a page's price range filter (min and/or max) and apply it.

The two fields are found by what names them, in Polish, English and German: labels ("Cena od",
"Price to", "Preis bis"), placeholders ("od", "Min"), names and ids ("price_min", "low-price",
"price-max"), and nearby text ("Preis von [ ]", a "Cena" heading above "[od] - [do]").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import FieldNotFound, NoEffect, ToolError
from ...tool import ToolContext, require_page
from ..listing_change import wait_changed
from ..page_helpers import (
    Field,
    PageWatch,
    closeness,
    fill_value,
    has_word,
    scan_fields,
    submit_from,
    words,
)
from ..page_helpers import (
    side_score as page_side_score,
)

PRICE = r"cen[aey]?|cenie|cenowy|price[sd]?|pricing|preis\w*|prix|precio|prezzo|kwota|koszt|cost|betrag"
CURRENCY = r"zl|pln|eur|euro|usd|gbp|chf|czk|kc|\$|€|£"
SIDES = {
    "min": r"min\w*|od|from|von|ab|low|lower|lowest|start|begin\w*|minimal\w*|niedrig\w*|mindest\w*",
    "max": r"max\w*|do|to|bis|high|higher|highest|upper|end|maksymal\w*|hochst\w*",
}
TEXT_TYPES = {"text", "number", "tel", "", "textarea"}
LOOKED_FOR = (
    "labels, placeholders, names and ids like 'Cena od/do', 'Price from/to', 'Preis von/bis', "
    "'min/max', 'price-min', 'low-price', or 'od'/'do' fields under a price heading"
)


def _currency(text: str) -> bool:
    # symbols are not word characters, so they are looked for as plain characters too
    return bool(has_word(words(text), CURRENCY)) or any(c in text for c in "$€£")


def price_evidence(f: Field) -> float:
    """How clearly a field is about a price: its own name (strong), then the text around it."""
    own, near = f.own_words, f.near_words
    score = 0.0
    if has_word(own, PRICE) or has_word(f.cls.lower(), r"price|cena|preis"):
        score += 3
    elif _currency(" ".join((f.label, f.aria, f.placeholder))):
        score += 2  # "Mindestwert in EUR", a "$" placeholder
    if has_word(near, PRICE):
        score += 2
    if _currency(f.before + " " + f.after):
        score += 1
    return score


def side_score(f: Field, side: str) -> float:
    """How clearly a field is the ``side`` end of the range (see `page_helpers.side_score`)."""
    return page_side_score(f, side, SIDES)


@dataclass
class Choice:
    """The fields chosen for each end of the range (None: not found or not wanted)."""

    min: Field | None
    max: Field | None


def choose_fields(fields: list[Field], want_min: bool, want_max: bool) -> Choice:
    """The min and max fields of the page's price range, or ToolError-worthy None sides."""
    usable = [f for f in fields if f.visible and not f.disabled and not f.readonly and f.type in TEXT_TYPES]
    evidence = {f.ref: price_evidence(f) for f in usable}
    best: tuple[float, Field, Field] | None = None
    for a in usable:
        side_a = side_score(a, "min")
        if side_a <= 0:
            continue
        for b in usable:
            side_b = side_score(b, "max")
            if b is a or side_b <= 0:
                continue
            price = evidence[a.ref] + evidence[b.ref]
            if price <= 0:
                continue  # "od/do" alone could be dates, years, mileage...
            near = closeness(a.ancestors, b.ancestors)
            score = side_a + side_b + price + (2 if a.form == b.form and a.form >= 0 else 0)
            score += 2 if near <= 2 else 1 if near <= 4 else 0
            score += 1 if a.order < b.order else 0
            if best is None or score > best[0]:
                best = (score, a, b)
    if best:
        return Choice(best[1], best[2])
    # No pair says min/max: two price fields side by side are "from" then "to".
    priced = [f for f in usable if evidence[f.ref] >= 2]
    for a, b in zip(priced, priced[1:], strict=False):
        if (
            closeness(a.ancestors, b.ancestors) <= 2
            and side_score(a, "max") == 0
            and side_score(b, "min") == 0
        ):
            return Choice(a, b)
    # A page with only one end of the range (e.g. "Cena do").
    single = {}
    for side in ("min", "max"):
        ranked = [
            (side_score(f, side) + evidence[f.ref], f)
            for f in usable
            if side_score(f, side) > 0 and evidence[f.ref] > 0
        ]
        single[side] = max(ranked, key=lambda t: t[0])[1] if ranked else None
    return Choice(single["min"] if want_min else None, single["max"] if want_max else None)


def _range(filled: dict[str, str | None]) -> str:
    return " to ".join(f"{side} {value}" for side, value in filled.items() if value is not None)


def format_amount(value: float, field: Field, lang: str) -> str:
    """The number as the field expects it: "150", or "149,99" in a Polish/German text field."""
    text = f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    if field.type != "number" and lang[:2] in ("pl", "de", "fr", "cs", "it", "es", "nl"):
        text = text.replace(".", ",")
    return text


async def run(
    ctx: ToolContext, min: float | None = None, max: float | None = None, submit: bool = True, **_: Any
) -> dict:
    """Fill the price range filter with ``min`` and/or ``max`` and, unless ``submit`` is false, apply it."""
    page = require_page(ctx)
    if min is None and max is None:
        raise ToolError("price_filter needs min or max (or both)")
    if min is not None and max is not None and min > max:
        raise ToolError(f"price_filter: min ({min:g}) is greater than max ({max:g})")
    scan = await scan_fields(page)
    choice = choose_fields(scan.items, min is not None, max is not None)
    missing = [
        side
        for side, value, f in (("min", min, choice.min), ("max", max, choice.max))
        if value is not None and f is None
    ]
    if missing:
        raise FieldNotFound(
            f"no price filter field found on {scan.url}: looked for {' and '.join(missing)} fields by "
            f"{LOOKED_FOR}"
        )

    filled: dict[str, str | None] = {"min": None, "max": None}
    fields: dict[str, dict] = {}
    # Submitting: the values are set in the submit's own browser call (as the page's script would,
    # with input and change events); only filling: typed in as by a user.
    pending: dict[str, str] = {}  # side -> selector
    values: dict[str, str | None] = {}  # selector -> value
    for side, value, f in (("min", min, choice.min), ("max", max, choice.max)):
        if value is None or f is None:
            continue
        text = format_amount(value, f, scan.lang)
        if submit:
            pending[side], values[f.selector], filled[side] = f.selector, text, text
        else:
            filled[side] = await fill_value(page, f.selector, text)
        fields[side] = f.describe()

    report: dict[str, Any] = {"filled": filled, "fields": fields, "submitted": False, "method": None}
    if submit:
        last = choice.max if max is not None and choice.max else choice.min
        assert last is not None  # a field was filled (missing ones were reported above)
        async with PageWatch(page, arm=False, emit=ctx.emit) as watch:
            outcome = await submit_from(
                page, last.selector, watch, what="the price filter", fill=values, look=True
            )
        filled.update({side: outcome["values"].get(sel, filled[side]) for side, sel in pending.items()})
        report.update(submitted=True, method=outcome["method"], navigated=outcome["navigated"])
        # A filter that applies itself (a debounced input) is given time; one that changed nothing
        # is said, and the listing is read as it is (the validation step filters it).
        if not await wait_changed(page, outcome["shown"], first=outcome["look"]):
            how = outcome["method"]
            if outcome["same_page"]:
                how += "; the form would only have loaded this same address again, so it was not sent"
            why = (
                f"the price filter was filled ({_range(filled)}) and applied ({how}), and "
                "the listing did not change: it may not filter, or everything shown is in range"
            )
            ctx.warn(why)
            raise NoEffect(f"{why} on {page.url}")
    ctx.log.debug("price_filter filled %s on %s", filled, scan.url)
    report["url"] = page.url
    return {"price_filter": report}
