"""A product's identifiers as its page labels them ("SKU: X", "Kod produktu: X", "Artikelnummer |
X", a spec table's row) in the languages of `_product_words`, and the number in its address.

SKU labels are ranked: the shop's own number named as such ("SKU", "Product code", "Art.-Nr.") first,
then a shorter code word ("Kod", "Réf."), then a marketplace's listing number ("Item number",
"Anzeige", "Numer ogłoszenia"), which is the product's number only where nothing else names one. A
GTIN is never a SKU: a value labelled EAN/GTIN/UPC is the ``gtin``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlsplit

from selectolax.lexbor import LexborNode

from ._html import visible_text
from ._product_words import ANY_LABEL, INLINE_LABEL_RES, LABEL_RES, NOT_APPLICABLE

_CODE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{1,40}$")
GTIN_RE = re.compile(r"^\d{8,14}$")
#: The shop's own number label (rank 0 of `LABEL_RES["sku"]`): it wins over the page's metadata.
OWN_NUMBER = 0


def is_code(value: str) -> bool:
    """A product code: one word of letters, digits and separators, with a digit or written in
    capitals with a separator ("KP-350", "MCJ-CHR-L"; not "Charcoal")."""
    return bool(_CODE_RE.match(value)) and (
        bool(re.search(r"\d", value)) or (value.isupper() and bool(re.search(r"[-_./]", value)))
    )


def labelled(block_text: list[tuple[LexborNode, str]], specs: list[LexborNode]) -> dict:
    """SKU, MPN, GTIN and brand as the page labels them: "Kod produktu: KP-350" in one element, or a
    label element followed by its value (table rows, dt/dd, label/span, heading/div)."""
    found: dict[str, str | None] = {}
    rank: dict[str, int] = {}

    def offer(field: str, level: int, value: str | None) -> None:
        if field in rank and rank[field] <= level:
            return
        if value is not None:
            value = value.strip().rstrip(".,;")
            if NOT_APPLICABLE.match(value):
                value = None
            elif field in ("sku", "mpn") and not is_code(value):
                return
            elif field == "gtin" and not GTIN_RE.match(value):
                return
        rank[field], found[field] = level, value
        if field == "sku":
            found["sku_label"] = level  # type: ignore[assignment]

    elements = [el for el, _ in block_text] + specs
    seen: set[int] = set()
    for el in elements:
        if el.mem_id in seen:
            continue
        seen.add(el.mem_id)
        raw = el.text(deep=True)
        if len(raw) > 300 or not ANY_LABEL.search(raw):
            continue
        text = visible_text(el)
        if not text or len(text) > 160:
            continue
        for field, res in LABEL_RES.items():
            for level, rx in enumerate(res):
                if rx.match(text):
                    value_el = el.next
                    while value_el is not None and (
                        value_el.tag == "-text" and not (value_el.text_content or "").strip()
                    ):
                        value_el = value_el.next
                    if value_el is None:
                        continue
                    value = (
                        (value_el.text_content or "").strip()
                        if value_el.tag == "-text"
                        else visible_text(value_el)
                    )
                    offer(field, level, value or None)
        for field, res in INLINE_LABEL_RES.items():
            for level, rx in enumerate(res):
                m = rx.search(text)
                if m:
                    value = m.group(1).strip()
                    if field in ("sku", "mpn", "gtin"):
                        value = value.split()[0]
                    offer(field, level, value)
    return found


#: Query parameters that name the product's number (``?sku=``, ``?childSku=``, ``?productId=``).
_ID_PARAM_RE = re.compile(r"(?:\w*[_-])?(?:\w*sku|product_?id|item_?id|article_?id|pid)", re.I)
_ID_VALUE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{2,39}")
#: A number of 5 to 14 digits ending an address's segment ("...-1609583.html", "/itm/302474151804").
_PATH_NUMBER_RE = re.compile(r"(?:^|[-_x])(\d{5,14})(?:\.[a-z]{2,5})?$")


def address_number(page_url: str, canonical: str | None = None) -> str | None:
    """The product's number in its address: a query parameter that names it, else a number ending
    one of the last two path segments; a number the canonical address does not repeat is a
    session's or a tracker's, not the product's."""
    parts = urlsplit(page_url)
    for key, value in parse_qsl(parts.query):
        if _ID_PARAM_RE.fullmatch(key) and _ID_VALUE_RE.fullmatch(value):
            return value
    segments = [seg for seg in unquote(parts.path).split("/") if seg]
    for segment in reversed(segments[-2:]):
        if m := _PATH_NUMBER_RE.search(segment):
            number = m.group(1)
            return number if canonical is None or number in canonical else None
    return None
