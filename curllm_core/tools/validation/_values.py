"""Reading an item's values for the operations on items (filters, groups, aggregates).

Items come from any extraction, built-in or a plugin's, so a value may be a number, a numeric
string ("1.2k", "45 comments", "4,5"), a price text ("1 299,00 zł"), a flag as a boolean or as
words ("InStock", "Free shipping"). These helpers turn them into numbers, comparable text and
flags, or None when the value says nothing; the tools decide what an unknown value means.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import ToolError
from ...item_fields import FLAGS, concept_of, key_for
from ...text import fold

_NUMBER = re.compile(r"([-+]?\d[\d\s\u00a0.,']*)(\s?[kKmM]\b)?")


def fields_present(items: list) -> list[str]:
    """Every key an item of ``items`` has, sorted (for messages)."""
    return sorted({k for i in items if isinstance(i, dict) for k in i})


def require_key(items: list, name: str, what: str) -> str:
    """The key the items use for field ``name`` (a concept or a key); a ToolError saying ``what``
    cannot be done, and the fields there are, when no item has one. An empty list passes as ``name``."""
    key = key_for(items, name)
    if key is not None:
        return key
    if not items:
        return name
    raise ToolError(
        f"no item has a field for {name!r}, so {what} (their fields: {', '.join(fields_present(items)) or 'none'})"
    )


def _plain_number(text: str) -> float | None:
    """A number as people write it: "1,234", "1.234,5", "4,5", "1 299", "1.2k"."""
    match = _NUMBER.search(text)
    if not match:
        return None
    digits = re.sub(r"[\s\u00a0']", "", match.group(1))
    if "," in digits and "." in digits:
        # The later mark is the decimal one: "1.234,5" and "1,234.5".
        if digits.rfind(",") > digits.rfind("."):
            digits = digits.replace(".", "").replace(",", ".")
        else:
            digits = digits.replace(",", "")
    elif "," in digits:
        whole, _, tail = digits.rpartition(",")
        # "1,234" groups thousands; "4,5" and "12,99" are decimals.
        digits = digits.replace(",", "") if len(tail) == 3 and "," not in whole else digits.replace(",", ".")
    elif digits.count(".") > 1:
        digits = digits.replace(".", "")
    try:
        value = float(digits.rstrip("."))
    except ValueError:
        return None
    suffix = (match.group(2) or "").strip().lower()
    return value * {"k": 1_000, "m": 1_000_000}.get(suffix, 1)


def number_of(value: Any, field: str | None = None) -> float | None:
    """``value`` as a number, or None: numbers as they are, a price text by the price parser when
    ``field`` is a price, other text by its first number ("1.2k points" is 1200)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        # A nested value such as {"value": 4.5} or {"amount": 10}.
        inner = next((value[k] for k in ("value", "amount", "count") if k in value), None)
        return number_of(inner, field)
    if not isinstance(value, str) or not value.strip():
        return None
    if field is not None and concept_of(field) == "price":
        from ...prices import parse_price

        price = parse_price(value)
        return price.amount if price else None
    return _plain_number(value)


def currency_of(item: Any) -> str | None:
    """The ISO code an item's price is in (its ``currency``), upper-cased; None when it states none."""
    value = item.get("currency") if isinstance(item, dict) else None
    return value.strip().upper() if isinstance(value, str) and value.strip() else None


def text_of(value: Any) -> str | None:
    """``value`` as folded text for comparing (case and accents ignored), or None when empty."""
    if value is None or isinstance(value, dict | list):
        return None
    text = fold(str(value))
    return text or None


def label_of(item: Any) -> str | None:
    """What to call an item in a report: its name or title."""
    if not isinstance(item, dict):
        return None
    for key in ("name", "title", "text", "url"):
        if isinstance(item.get(key), str) and item[key].strip():
            return item[key]
    return None


_IN_STOCK = re.compile(
    r"\b(in ?stock|available|limited ?availability|pre ?order|back ?order|online ?only|in ?store ?only|"
    r"dostepn\w*|na stanie|w magazynie|auf lager|lieferbar|verfugbar|vorratig|sofort)\b"
)
_OUT_OF_STOCK = re.compile(
    r"\b(out ?of ?stock|sold ?out|unavailable|not available|discontinued|niedostepn\w*|brak|wyprzedan\w*|"
    r"ausverkauft|nicht (?:auf lager|lieferbar|verfugbar|vorratig)|vergriffen)\b"
)
_FREE = re.compile(
    r"\b(free|gratis|darmow\w*|bezplatn\w*|kostenlos\w*|versandkostenfrei|0(?:[.,]00?)?(?![\d.,]))"
)


def _availability(value: Any) -> bool | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value > 0
    text = text_of(value)
    if text is None:
        return None
    text = text.rsplit("/", 1)[-1]  # "https://schema.org/InStock"
    text = re.sub(r"(?<=[a-z])(?=stock|order|availability|only)", " ", text)  # InStock -> in stock
    if _OUT_OF_STOCK.search(text):
        return False
    if _IN_STOCK.search(text):
        return True
    return None


def _shipping_free(value: Any) -> bool | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0
    text = text_of(value)
    if text is None:
        return None
    if _FREE.search(text):
        return True
    return False if _plain_number(text) is not None else None


def flag_of(item: Any, flag: str) -> bool | None:
    """Whether ``item`` carries ``flag`` (in_stock, on_sale, free_shipping, sponsored): True, False,
    or None when nothing in it says."""
    if not isinstance(item, dict):
        return None
    for key in FLAGS[flag]:
        if key not in item:
            continue
        value = item[key]
        if isinstance(value, bool):
            return value
        if value is None and key != "price_regular":
            continue
        if flag == "in_stock":
            found = _availability(value)
        elif flag == "free_shipping":
            found = _shipping_free(value)
        elif flag == "on_sale":
            price = number_of(item.get("price"), "price")
            if key == "price_regular":
                regular = number_of(value, "price")
                # An extraction that reads regular prices states null where there is none.
                found = None if price is None else regular is not None and regular > price
            else:
                amount = number_of(value)
                found = None if amount is None else amount > 0
        else:
            found = text_of(value) not in (None, "false", "no", "0")
        if found is not None:
            return found
    return None
