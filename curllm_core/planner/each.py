"""Each item on its own page: "for each product get its availability", "dla każdego produktu pobierz
opis", "für jedes Produkt die Bewertung", "products with their brand".

`each_request` reads such a request (English, Polish, German) and the item fields it names that a
listing does not show (availability, brand, SKU, description, ...). `with_map` adds to a rule plan a
map step after the listing's steps (extraction, checks, order, count): each item's URL opened in its
own page, read by the installed tool that extracts one item of that kind (``products`` ->
``product``: `extraction.product_detail`), its fields merged into the item; then a selection of the
fields asked for, when some were named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..manifest import Category
from .fitting import fit_value, param_for, with_data_key

if TYPE_CHECKING:
    from ..manifest import Manifest
    from ..registry import Registry

_I = re.I | re.UNICODE

#: "each product", "every item", "każdy produkt", "jedes Produkt": each item, but maybe only as a
#: quantifier ("every product must cost at most 50 EUR"): it asks to open pages only with a field
#: that only an item's page shows, or in a `PER_ITEM` phrase.
EACH_ITEM = re.compile(
    r"\b(?:each|every)\s+(?:one\b|of\s+(?:them|these|those|the)\b|(?:single\s+)?"
    r"(?:product|item|offer|listing|result|story|stories|article|post|link|entry)s?\b)"
    r"|\b(?:każd|kazd)\w*\s+(?:z\s+nich\b|(?:produkt|ofert|pozycj|przedmiot|towar|artyku|wpis|post|link)\w*)"
    r"|\b(?:jede[nsrm]?|jedwede[nsrm]?)\s+(?:einzelne[nsrm]?\s+)?"
    r"(?:produkt|artikel|angebot|ware|eintr[aä]g|beitr[aä]g|link|story)\w*"
    r"|\b(?:jede[nsrm]?)\s+(?:davon|von\s+ihnen)\b",
    _I,
)
#: "for each product", "each item's", "open each offer", "dla każdego produktu", "z każdej oferty",
#: "otwórz każdy produkt", "für jedes Produkt", "öffne jedes Angebot": each item, said outright.
PER_ITEM = re.compile(
    r"\b(?:for|of|from|open|visit|follow|read|check)\s+(?:each|every)\b"
    r"|\b(?:each|every)\s+(?:product|item|offer|listing|result|story|article|post|link|entry)(?:'s|’s)"
    r"|\b(?:dla|z|ze|otwórz|otworz|odwiedź|odwiedz|wejdź\s+w|wejdz\s+w|sprawdź|sprawdz)\s+(?:każd|kazd)\w*"
    r"|\b(?:für|fur|von|öffne|offne|besuche|prüfe|prufe)\s+(?:jede[nsrm]?|jedwede[nsrm]?)\b",
    _I,
)
#: "for all products", "dla wszystkich produktów", "für alle Produkte", "open all product pages":
#: each item too, when a field of the item's own page is named.
ALL_ITEMS = re.compile(
    r"\b(?:for|of|open|visit)\s+all\s+(?:the\s+)?(?:products?|items?|offers?)(?:\s+pages?)?\b"
    r"|\b(?:dla|z|otwórz|otworz)\s+wszystki\w*\s+(?:produkt|ofert|pozycj|przedmiot)\w*"
    r"|\b(?:für|fur|von|öffne|offne)\s+alle[nm]?\s+(?:produkt|artikel|angebot)\w*",
    _I,
)
#: "with details", "ze szczegółami", "mit Details": every field of the item's own page.
DETAILS = re.compile(
    r"(?<![\w-])(?:details|product details|product pages?|szczegół\w*|szczegol\w*|karty produkt\w*|"
    r"einzelheiten|produktdetails|produktseite\w*)(?![\w-])",
    _I,
)

#: The fields of one item's own page a listing does not show, by the words that name them. The
#: Polish and German entries cover the cases an instruction puts them in ("z dostępnością", "mit
#: der Marke").
DETAIL_FIELDS: dict[str, str] = {
    "availability": r"availability|in stock|stock(?: status| level)?|dost[eę]pno[sś][cćń]\w*|"
    r"stan\w* magazynow\w*|verf[uü]gbarkeit\w*|lagerbestand\w*|lieferbarkeit\w*|lieferstatus",
    "brand": r"brands?|manufacturers?|makers?|mar(?:ka|ki|kę|ke|ką|ce|kami)|producent\w*|marken?|hersteller\w*",
    "sku": r"skus?|product codes?|item numbers?|kod\w* produktu|kod\w*|indeks\w*|artikelnummer\w*|"
    r"art\.?-nr\.?|artikel-nr\.?",
    "gtin": r"gtins?|eans?|barcodes?|kod\w* kreskow\w*",
    "mpn": r"mpns?|manufacturer part numbers?",
    "description": r"descriptions?|opis\w*|beschreibung\w*",
    "rating": r"ratings?|stars?|ocen\w*|bewertung(?!en)|sterne\w*",
    "reviews": r"reviews?|review counts?|opini\w*|recenzj\w*|rezension\w*|bewertungen",
    "price_regular": r"regular prices?|old prices?|list prices?|cen\w* regularn\w*|star\w* cen\w*|"
    r"streichpreis\w*|uvp",
}
_FIELD_RX = {k: re.compile(rf"(?<![\w-])(?:{v})(?![\w-])", _I) for k, v in DETAIL_FIELDS.items()}

#: "with their availability", "including the brand", "z dostępnością", "wraz z opisem", "mit
#: Verfügbarkeit", "samt Beschreibung": a listing's items with fields of their own pages.
WITH_FIELD = re.compile(
    r"\b(?:with|including|incl\.?|plus|and)\s+(?:their|its|the|each one's)\s+"
    r"|\b(?:with|including)\s+"
    r"|\b(?:wraz\s+z|razem\s+z|łącznie\s+z|z|ze)\s+(?:ich\s+|jego\s+|jej\s+)?"
    r"|\b(?:mit|samt|inklusive|inkl\.?|einschließlich)\s+(?:ihre[rnm]?|seine[rnm]?|der|dem|den|die)?\s*",
    _I,
)

#: What a listing's items keep besides the fields asked for.
LISTING_FIELDS = ["name", "price", "currency", "url"]


@dataclass
class EachRequest:
    """What the instruction asks of each item: its own page read, and which of its fields."""

    fields: list[str] = field(default_factory=list)
    words: str = ""  # the words that asked, for the plan's reasoning


#: Fields a "with ..." phrase names that only an item's own page shows (a rating or a price is
#: often on the listing, and "with a rating above 4" is a filter, not a request to open pages).
PAGE_ONLY = ("availability", "brand", "sku", "gtin", "mpn", "description")


def each_request(text: str) -> EachRequest | None:
    """The per-item request in ``text``, or None: "for each product ...", "for all products" with a
    field only an item's page shows, or a listing "with" such fields (or "with details")."""
    found = sorted(
        ((m.start(), m.end(), name) for name, rx in _FIELD_RX.items() for m in rx.finditer(text)),
        key=lambda x: x[0],
    )
    fields = list(dict.fromkeys(name for _, _, name in found))
    named = any(name in PAGE_ONLY for name in fields) or DETAILS.search(text) is not None
    said = PER_ITEM.search(text)
    if said is not None and not said.group(0).endswith(("'s", "’s")):
        # "for each product", not "for each category": the items themselves follow
        if not EACH_ITEM.search(text[said.start() : said.end() + 40]):
            said = None
    if said is None and named:
        said = EACH_ITEM.search(text) or ALL_ITEMS.search(text)
    if said is not None:
        return EachRequest(fields, said.group(0).strip())
    details = [(m.start(), m.end(), "") for m in DETAILS.finditer(text)]
    for pos, end, name in sorted([*found, *details]):
        if name and name not in PAGE_ONLY:
            continue
        before = text[max(0, pos - 40) : pos]
        joined = list(WITH_FIELD.finditer(before))
        # "with their availability", "z dostępnością i marką": the connector, then only field words.
        if joined and _only_fields(before[joined[-1].end() :]):
            return EachRequest(fields, text[max(0, pos - 40) + joined[-1].start() : end].strip())
    return None


def _only_fields(gap: str) -> bool:
    """Nothing but field words and "and"/"i"/"und"/commas between the connector and a field."""
    rest = gap
    for rx in _FIELD_RX.values():
        rest = rx.sub(" ", rest)
    return re.fullmatch(r"[\s,]*(?:(?:and|or|i|oraz|und|oder|&)[\s,]+)*", rest, _I) is not None


def detail_tool(out_key: str, registry: Registry) -> Manifest | None:
    """The installed extraction tool that reads one item of ``out_key`` from its own page: it needs a
    page and produces the singular key (``products`` -> ``product``); built-in tools first."""
    singular = out_key[:-1] if out_key.endswith("s") else out_key
    found = [
        m
        for m in registry
        if m.category == Category.EXTRACTION
        and m.needs_page
        and list(m.produces) == [singular]
        and singular != out_key
    ]
    found.sort(key=lambda m: (m.source != "builtin", m.key))
    return found[0] if found else None


def with_map(doc: dict, text: str, registry: Registry, out_key: str) -> dict:
    """The rule plan ``doc`` with a map step for a per-item request in ``text`` (unchanged without
    one). Without a tool for one item of the kind, the plan gets a warning instead: the listing is
    still what it gets, and the result says what was not done."""
    request = each_request(text)
    if request is None:
        return doc
    tool = detail_tool(out_key, registry)
    if tool is None:
        warning = (
            f"not done: opening each of the {out_key} on its own page ('{request.words}') (no installed "
            f"tool reads one item of {out_key}); the plan only gets the {out_key}"
        )
        return {**doc, "warnings": [*doc.get("warnings", []), warning]}
    steps = list(doc["plan"])
    select_at = next((i for i, s in enumerate(steps) if _selects(s, registry)), None)
    asked = [f for f in request.fields if f in _declared(tool)]
    why = f"opens each of the {out_key} on its own page and reads it with {tool.key} ('{request.words}')"
    if asked:
        why += ": " + ", ".join(asked)
    map_step: dict[str, Any] = {
        "map": {
            "over": out_key,
            "as": "item",
            "open": "{item.url}",
            "concurrency": 4,
            "steps": [{"tool": tool.key, "parameters": {}}],
            "merge": True,
        },
        "description": why,
    }
    if select_at is not None:
        # The selection comes last, and keeps what the map added too.
        select = dict(steps[select_at])
        params = dict(select.get("parameters") or {})
        params["fields"] = list(dict.fromkeys([*params.get("fields", []), *asked]))
        select["parameters"] = params
        steps[select_at : select_at + 1] = [map_step, select]
    else:
        steps.append(map_step)
        if asked:
            added = _select_step(registry, out_key, [*LISTING_FIELDS, *asked])
            if added is not None:
                steps.append(added)
    return {**doc, "plan": steps}


def _declared(tool: Manifest) -> set[str]:
    """The item fields the tool's output declares (those of its one produced object)."""
    props = (tool.output_schema.get("properties") or {}).get(tool.produces[0]) or {}
    return set((props.get("properties") or {}) if isinstance(props, dict) else {})


def _selects(step: dict, registry: Registry) -> bool:
    m = registry.get(step.get("tool", "")) if "tool" in step else None
    return (
        m is not None and m.category == Category.VALIDATION and param_for(m, "select_fields")[0] is not None
    )


def _select_step(registry: Registry, out_key: str, fields: list[str]) -> dict | None:
    """A step keeping ``fields`` of the items (the tool that takes a field selection)."""
    tools = [
        m
        for m in registry
        if m.category == Category.VALIDATION
        and m.parameter_for("data_key")
        and param_for(m, "select_fields")[0]
    ]
    tools.sort(key=lambda m: (m.source != "builtin", -param_for(m, "select_fields")[1], m.key))
    for m in tools:
        name = param_for(m, "select_fields")[0] or ""
        ok, fitted = fit_value(m, name, fields)
        if ok:
            return {
                "tool": m.key,
                "parameters": with_data_key(m, {name: fitted}, out_key),
                "description": f"keeps the fields asked for: {', '.join(fields)}",
            }
    return None
