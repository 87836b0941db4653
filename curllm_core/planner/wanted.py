"""What the instruction asks for: the output kind (products, articles, links, tables, or a key a
plugin's tool produces) by the words that name it, or by the item fields asked for."""

from __future__ import annotations

import re

from ..manifest import Category
from ..registry import Registry
from .facts import Fact, Facts
from .facts.words import RECORD_NOUNS, after_a_count

#: The output kinds an instruction can ask for, by the words that name them (PL/EN/DE).
KIND_WORDS: dict[str, str] = {
    "products": (
        r"\b(products?|items?|offers?|deals?|listings?|goods|produkt\w*|ofert\w*|towar\w*|"
        r"angebot\w*|waren)\b"
    ),
    "articles": (
        r"\b(articles?|stories|story|storys|posts?|news|headlines?|submissions?|threads?|blog\s*posts?|"
        r"artykuł\w*|artykul\w*|wpis\w*|posty|postów|wiadomości|wiadomosci|newsy|nagłówk\w*|"
        r"nachrichten|beiträge|beitrags?|schlagzeilen|meldungen|comments?|komentarz\w*|kommentare?|"
        r"reviews|customer\s+reviews|opinie|opinii|recenzje|recenzji|bewertungen|kundenbewertungen|rezensionen|"
        r"search\s+results?|organic\s+results?|results?\s+of\s+(?:the\s+|this\s+|my\s+)?search|"
        r"wyniki\s+(?:tego\s+)?wyszukiwania|\w*suchergebnis\w*|suchtreffer|ergebnisse\s+der\s+suche)\b"
    ),
    "links": r"\b(links?|urls?|hrefs?|hyperlinks?|linki|linków|linkow|odnośnik\w*|odnosnik\w*)\b",
    "tables": r"\b(tables?|tabel\w*|tabelle\w*|\w+tabellen?|spreadsheets?)\b",
}


def kind_by_fields(facts: Facts, registry: Registry) -> tuple[str | None, str]:
    """The kind whose items have the fields asked for, when no word names one: "only the titles"
    asks for items with titles (articles), "names and prices" for items with names and prices
    (products). Only an unambiguous answer counts; (None, "") otherwise."""
    fact = facts.fact("select_fields") or facts.fact("fields")
    if fact is None:
        # Else the field the items are ordered or bounded by ("die 5 meistkommentierten Artikel":
        # comments, which stories have and products do not).
        fact = _by_field(facts)
    if fact is None:
        return None, ""
    best: dict[str, int] = {}
    for m in registry.tools.values():
        if m.category != Category.EXTRACTION or not m.produces:
            continue
        key = m.produces[0]
        schema = (m.output_schema.get("properties") or {}).get(key) or {}
        props = ((schema.get("items") or {}).get("properties") or {}) if isinstance(schema, dict) else {}
        hits = sum(1 for f in fact.value if f in props)
        best[key] = max(best.get(key, 0), hits)
    top = max(best.values(), default=0)
    kinds = [k for k, n in best.items() if n == top]
    if top == 0 or len(kinds) != 1:
        return None, ""
    return kinds[0], fact.text


def _by_field(facts: Facts) -> Fact | None:
    """The field an order or a numeric bound names, as a fact of fields (or None)."""
    sort = facts.fact("sort_by")
    if sort is not None and isinstance(sort.value, str):
        return Fact("fields", [sort.value], sort.start, sort.text)
    bound = facts.fact("op_number")
    if bound is not None:
        return Fact("fields", [b["field"] for b in bound.value], bound.start, bound.text)
    score = facts.fact("min_points") or facts.fact("min_comments")
    if score is not None:  # "mit mehr als 100 Punkten"
        return Fact("fields", [score.kind.removeprefix("min_")], score.start, score.text)
    return None


def field_lists(facts: Facts) -> list[tuple[int, int]]:
    """Where the instruction lists item fields (to return, or required)."""
    return [(f.start, f.start + len(f.text)) for k in ("select_fields", "fields") if (f := facts.fact(k))]


def refused_or_format(facts: Facts, formats: bool = True) -> list[tuple[int, int]]:
    """Where the instruction names something refused ("a markdown table", "jako pdf") or (with
    ``formats``) an output format ("as a table"): the words there say how to write the answer, not
    what to read."""
    text = facts.instruction
    spans = []
    fact = facts.fact("format") if formats else None
    if fact is not None:
        spans.append((fact.start, fact.start + len(fact.text)))
    for said, _ in facts.get("refused") or ():
        at = text.find(said)
        if at >= 0:
            spans.append((at, at + len(said)))
    return spans


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``pos`` falls in one of the ``(start, end)`` spans."""
    return any(a <= pos < b for a, b in spans)


def wanted_kind(instruction: str, facts: Facts, registry: Registry) -> tuple[str | None, str]:
    """The data key the instruction asks for and the words that say so (earliest mention wins).

    Products, articles, links and tables by their PL/EN/DE names; any other key an installed
    extraction tool produces (``jobs``) by its own name. (None, "") when nothing names a kind.
    """
    best: tuple[int, str, str] | None = None
    patterns = dict(KIND_WORDS)
    for m in registry.tools.values():
        if m.category != Category.EXTRACTION:
            continue
        for key in m.produces:
            if key not in patterns:
                stem = key[:-1] if key.endswith("s") and len(key) > 4 else key
                patterns[key] = rf"\b{re.escape(stem)}\w*\b"
    # Words inside a list of fields ("name, price and url of the products") name fields, not a kind.
    lists = field_lists(facts) + refused_or_format(facts)
    for key, pattern in patterns.items():
        hit = next((x for x in re.finditer(pattern, instruction, re.I) if not inside(x.start(), lists)), None)
        if hit and (best is None or hit.start() < best[0]):
            best = (hit.start(), key, hit.group(0))
    one = re.search(_ONE_PRODUCT, instruction, re.I)
    if one and best is not None and best[1] == "products" and "product" in patterns:
        # "this product", "the product page", "szczegóły produktu", "dieses Produkt": the one product
        # the page is about, which a tool producing ``product`` reads (not the listing's products)
        return "product", one.group(0)
    if best is None and ("link_pattern" in facts or "link_images" in facts):
        fact = facts.fact("link_pattern") or facts.fact("link_images")
        return "links", fact.text if fact else ""
    if best is None:
        # Bare "results" ("the first 5 results", "wyniki", "Treffer") are what a search gave: the
        # organic results (articles: title, url, snippet); with a price to filter by, a shop's offers.
        hit = next(
            (x for x in re.finditer(RESULT_WORDS, instruction, re.I) if not inside(x.start(), lists)), None
        )
        hit = hit or next(
            (
                x
                for x in re.finditer(RECORD_NOUNS, instruction, re.I)
                if not inside(x.start(), lists) and not after_a_count(instruction, x.start())
            ),
            None,
        )
        if hit:
            priced = "price_min" in facts or "price_max" in facts or facts.get("sort_by") == "price"
            return ("products" if priced else "articles"), hit.group(0)
    return (best[1], best[2]) if best else (None, "")


#: One product named as the page's own: its page, its details, "this product" (never "the product
#: with the lowest price": one of a listing's).
_ONE_PRODUCT = (
    r"\bthis\s+product\b(?!s)|\bproduct(?:'s)?\s+(?:page|details?|detail\s+page)\b|"
    r"\b(?:tego|tym|ten)\s+produk\w*|\b(?:karta|kartę|karty|strona|stronę|szczegóły|szczegoly)\s+produktu\b|"
    r"\b(?:dieses|diesem|dieser)\s+produkt\w*|\bprodukt(?:seite|details)\b"
)
#: Results with no word for what they are.
RESULT_WORDS = r"\b(?:results?|hits|wynik(?:i|ów|ow)?|treffer|ergebnisse?)\b"
