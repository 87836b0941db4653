"""Item fields: those every item must have (``fields``), those to return (``select_fields``: "only
names and prices", "tylko nazwy i ceny", "nur Name und Preis"), and comments as the items asked for."""

from __future__ import annotations

import re

from .actions import ACTIONS
from .base import Fact, Text, regex
from .order import ASC, DESC
from .records import PEOPLE_NOUNS
from .words import (
    FIELD,
    FIELD_ANY,
    FIELD_FILL,
    FIELD_JOIN,
    GIVE,
    ITEM_NOUN,
    ONLY,
    after_a_count,
    detect_lang,
)


def _field_list(t: Text, pos: int) -> tuple[list[str], int]:
    """The fields named from ``pos`` on ("a name, a price and the url") and where the list ends."""
    fields: list[str] = []
    field_rx = regex(FIELD_FILL + rf"(?:{FIELD})\b")
    join_rx = regex(FIELD_JOIN)
    end = pos
    while len(fields) < 16:
        fm = field_rx.match(t.text, pos)
        if not fm:
            break
        name = next(k for k, v in fm.groupdict().items() if v)
        if name not in fields:
            fields.append(name)
        pos = end = fm.end()
        jm = join_rx.match(t.text, pos)
        if not jm:
            break
        pos = jm.end()
    return fields, end


def read_fields(t: Text, facts: list[Fact]) -> None:
    """Required item fields: "every product has a name and a price", "każdy produkt ma nazwę i cenę"."""
    cue = (
        r"(?:\b(?:every|each|all|only|każd\w*|kazd\w*|wszystki\w*|tylko|jede[rsn]?|alle|nur)\b[^.;]{0,40}?"
        r"\b(?:has|have|having|with|must have|should have|that have|ma|mają|maja|musi mieć|musi miec|muszą mieć|"
        r"z|hat|haben|mit)\b|\b(?:require[sd]?|must have|musi mieć|muszą mieć|muss|müssen)\b)"
    )
    m = t.search(cue + r"\s*(?P<list>" + FIELD_FILL + rf"(?:{FIELD}))")
    if not m:
        return
    fields, end = _field_list(t, m.start("list"))
    if fields:  # the fact is the list itself: its words name fields, not what to extract
        facts.append(Fact("fields", fields, m.start("list"), t.original[m.start("list") : end]))


_OF = r"(?:of|for|from|z|ze|dla|von|der|des|aller)"
#: "all the", "alle", "wszystkie", "every product('s)" between the verb and the fields it asks for.
_ALL = (
    r"(?:(?:all|alle|wszystkie)\s+(?:(?:the|die)\s+)?)?"
    # "get every product name and its price", "pobierz każdego produktu nazwę i cenę"
    rf"(?:(?:every|each|każd\w*|kazd\w*|jede[nrs]?)\s+{ITEM_NOUN}(?:'s)?\s+)?"
)


#: The links of items as one word or a noun pair ("Produktlinks", "Beitrags-Links", "product links",
#: "story URLs"): the items' url field.
_ITEM_LINKS = (
    r"\b(?:products?|produkt(?:e|s)?|articles?|artikel|stor(?:y|ies)|posts?|beitrags?|offers?|angebots?)"
    r"[- ]?(?P<url>links?|urls?)\b|\b(?P<pl>link(?:i|ów|ow|ami)|adres(?:y|ów|ow))\s+(?:do\s+)?"
    r"(?:produktów|produktow|artykułów|artykulow|ofert|wpisów|wpisow|postów|postow)\b"
)


def read_select(t: Text, facts: list[Fact]) -> None:
    """The fields to return: "only names and prices", "name, price and url of the products",
    "tylko nazwy i ceny", "nur Name und Preis", "results with title and url" (``select_fields``).

    A list after "only" (or before "only"), a list a verb asks for ("get the titles and links of"),
    a list the instruction starts with, or two or more fields after "with" (unless every item is
    required to have them: see `read_fields`). "only links" asks for links, not for one field of them.
    """
    required = next((f for f in facts if f.kind == "fields"), None)
    m = t.search(_ITEM_LINKS)
    if m:
        # The field is the links' word: the item's word beside it still names the kind.
        part = "url" if m.group("url") else "pl"
        facts.append(Fact("select_fields", ["url"], m.start(part), m.group(part)))
        t.mask(m.start(part), m.end(part))
        return
    lst = r"(?P<list>" + FIELD_FILL + rf"(?:{FIELD}))"
    cands = [
        (t.search(rf"\b{ONLY}\s+(?:(?:the|die|den)\s+)?(?:{ITEM_NOUN}\s+)?{lst}"), 1),
        (t.search(rf"(?:^|[,;:]\s*|\b{GIVE}\s+(?:me\s+|mir\s+|mi\s+)?{_ALL}){lst}"), 1),
        (t.search(rf"\b(?:with|z|ze|mit)\s+{lst}"), 2),
    ]
    for m, least in sorted(((m, n) for m, n in cands if m), key=lambda c: c[0].start()):
        if m.group(0).lower().startswith("same") and detect_lang(t.original) != "pl":
            continue  # "same" means "only" in Polish ("same tytuły"); in English "the same site" is no list
        fields, end = _field_list(t, m.start("list"))
        after = t.text[end : end + 60]
        if len(fields) < least:
            continue
        if len(fields) == 1 and re.match(rf"\s+(?:(?:from|od|von)\s+)?(?:{ASC}|{DESC})", after, re.I):
            continue  # "prices from highest to lowest": an order, not a choice of fields
        if (
            least == 2
            and required is not None
            and m.start("list") <= required.start < max(end, required.start + 1)
        ):
            continue  # "every product with a name and a price": required, not a choice of fields
        if m.re.pattern.startswith(r"(?:^|") and not (
            len(fields) >= 2
            or re.match(rf"\s+(?:{_OF}\b|{ONLY}\b|{ITEM_NOUN})", after, re.I)
            or (fields == ["title"] and not after.strip(" .!?") and re.match(GIVE, m.group(0), re.I))
        ):
            # "get links", "show prices under 100": a kind or a filter, not a list of fields; titles
            # asked for alone are the list ("list the titles", "Zeige alle Titel").
            continue
        if fields == ["url"] and not re.match(r"\s+(?:of|for|dla|von|der|des)\b", after, re.I):
            continue  # "only links to github", "Links zu ...": the links themselves, not a field of items
        if _asks_action(t, m.start("list")):
            continue  # "vote for the first story": a field's word that asks to do something
        facts.append(Fact("select_fields", fields, m.start(), t.original[m.start() : end].strip()))
        t.mask(m.start("list"), end)
        return
    m = t.search(rf"{lst}(?=(?:{FIELD_JOIN}{FIELD_FILL}(?:{FIELD_ANY})){{0,15}}\s+(?:{ONLY}|alone)\b)")
    if m:  # "titles and urls only", "names and prices only"
        fields, end = _field_list(t, m.start("list"))
        if fields == ["url"]:
            return  # "articles with working links only": which articles, not which fields
        facts.append(Fact("select_fields", fields, m.start(), t.original[m.start() : end].strip()))
        t.mask(m.start("list"), end)


def _asks_action(t: Text, pos: int) -> bool:
    """Whether the words at ``pos`` ask for an action (`actions.ACTIONS`: "vote for", "rate the")."""
    return any((m := t.search(pattern, pos)) is not None and m.start() == pos for pattern in ACTIONS.values())


def read_comments_wanted(t: Text, facts: list[Fact]) -> None:
    """Comments as the thing asked for ("the comments on this story", "komentarze", "alle Kommentare"),
    and reviews ("list the reviews", "opinie", "Kundenbewertungen": a product's comments), not as a
    count to filter or sort by ("more than 100 comments" is masked by then, "most comments")."""
    m = t.search(
        r"\b(?:comments|comment thread|discussion|komentarze|komentarzy|kommentare|replies|odpowiedzi|antworten|"
        r"reviews|customer reviews|opinie|opinii|recenzje|recenzji|bewertungen|rezensionen|kundenbewertungen)\b"
    )
    if (
        m
        and not after_a_count(t.original, m.start())
        and not re.search(
            r"\b(?:most|more|least|fewest|number of|count of|by|najwięcej|najmniej|liczb\w*|meisten|wenigsten|anzahl|nach)"
            r"\s+(?:der\s+|of\s+(?:the\s+)?)?$",
            t.original[max(0, m.start() - 20) : m.start()],
            re.I,
        )
    ):
        facts.append(Fact("item_kind", "comments", m.start(), m.group(0)))


def read_people_wanted(t: Text, facts: list[Fact]) -> None:
    """People as the records asked for ("list the staff", "pokaż wszystkich pracowników", "alle
    Mitarbeiter", "how many speakers"): the page's entries link to their profiles. Not after a
    count of something else (`after_a_count`: "a table for two people", "more than 100 employees"),
    and never beside comments asked for."""
    if any(f.kind == "item_kind" for f in facts):
        return
    m = t.search(rf"\b{PEOPLE_NOUNS}\b")
    if m and not after_a_count(t.original, m.start()):
        facts.append(Fact("item_kind", "people", m.start(), m.group(0)))
