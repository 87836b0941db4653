"""The order asked for: ``sort_by``, ``sort_order`` and a dropdown's ``sort`` ("sorted by points", "the
5 cheapest", "od najdroższego", "nach Preis absteigend"), one item for a superlative in the singular,
and a sort dropdown's option."""

from __future__ import annotations

import re

from ...item_fields import WORDS as FIELD_WORDS
from .base import Fact, Text, regex
from .words import BEST, CHEAP, DEAR, ITEM_NOUN, NEW

_OLD = r"(?:oldest|earliest|least recent|najstarsz\w*|älteste\w*|aelteste\w*)"
_UP = r"(?:most|highest|greatest|largest|biggest|najwięcej|najwiecej|najwyższ\w*|najwyzsz\w*|największ\w*|najwieksz\w*|meisten|meiste|höchste\w*|hoechste\w*|größte\w*|grösste\w*)"
_DOWN = r"(?:fewest|least|lowest|smallest|najmniej|najniższ\w*|najnizsz\w*|najmniejsz\w*|wenigsten|wenigste|niedrigste\w*|geringste\w*|kleinste\w*)"
# "Best" before a field: its best end (the lowest price, the highest rating).
_BEST = r"(?:best|najlepsz\w*|beste\w*)"
# Fields things are ranked by, named in a superlative ("the most points") or after "sorted by".
_RANKED = ("price", "points", "comments", "rating", "reviews", "date", "name", "title", "rank")
_RANK_FIELD = "|".join(f"(?P<{f}>{FIELD_WORDS[f]})" for f in _RANKED)
_NUMBER_OF = r"(?:(?:the\s+)?(?:number|amount|count)\s+of\s+|liczb\w*\s+|ilości\s+|ilosci\s+|anzahl\s+(?:an\s+|der\s+)?)?"
_SORT_VERB = (
    r"(?:sort(?:ed|ing)?|order(?:ed)?|rank(?:ed)?|arrange[ds]?|posortuj\w*|posortowan\w*|sortuj\w*|"
    r"sortowan\w*|uporządkuj\w*|uporzadkuj\w*|uporządkowan\w*|sortier\w*|geordnet|ordne\w*)"
)
ASC = (
    r"(?:ascending|\basc\b|(?:from\s+)?low(?:est)?\s+to\s+high(?:est)?|smallest\s+first|lowest\s+first|cheapest\s+first|"
    r"oldest\s+first|(?:fewest|least)\s+first|najmniej\w*\s+najpierw|\ba\s*(?:-|to)\s*z\b|rosnąco|rosnaco|od\s+najniższ\w*|od\s+najnizsz\w*|"
    r"od\s+najmniejsz\w*|aufsteigend\w*|(?:von\s+)?niedrig\s+nach\s+hoch|(?:niedrigst|kleinst|günstigst|billigst|ältest|wenigst)\w*\s+zuerst)"
)
DESC = (
    r"(?:descending|\bdesc\b|high(?:est)?\s+to\s+low(?:est)?|largest\s+first|highest\s+first|biggest\s+first|"
    r"most\s+first|newest\s+first|latest\s+first|\bz\s*(?:-|to)\s*a\b|malejąco|malejaco|od\s+najwyższ\w*|"
    r"od\s+najwyzsz\w*|od\s+największ\w*|od\s+najwieksz\w*|absteigend\w*|(?:von\s+)?hoch\s+nach\s+niedrig|(?:höchst|größt|grösst|meist)\w*\s+zuerst)"
)
# Superlatives that name a field and an order by themselves.
_SUPERLATIVES: tuple[tuple[str, str, str], ...] = (
    ("price", "asc", CHEAP),
    ("price", "desc", DEAR),
    ("rating", "desc", BEST),
    ("date", "desc", NEW),
    ("date", "asc", _OLD),
    (
        "points",
        "desc",
        r"(?:most[- ](?:up)?voted|top[- ]voted|highest[- ]scor\w*|najwyżej punktowan\w*|meistgevotet\w*)",
    ),
    (
        "comments",
        "desc",
        r"(?:most[- ](?:commented|discussed)|(?:najczęściej|najczesciej|najbardziej|najwięcej|najwiecej)\s+(?:komentowan|dyskutowan)\w*|"
        r"meistkommentiert\w*|meistdiskutiert\w*|am (?:meisten|häufigsten) (?:kommentiert|diskutiert)\w*)",
    ),
    (
        "comments",
        "asc",
        r"(?:(?:least|fewest)[- ](?:commented|discussed)|najmniej\s+(?:komentowan|dyskutowan)\w*|"
        r"am (?:wenigsten|seltensten) (?:kommentiert|diskutiert)\w*)",
    ),
    (
        "reviews",
        "desc",
        r"(?:most[- ]reviewed|(?:najczęściej|najczesciej)\s+recenzowan\w*|meistbewertet\w*|"
        r"am (?:meisten|häufigsten) bewertet\w*)",
    ),
    ("name", "asc", r"(?:alphabetical(?:ly)?|alfabetycz\w*|alphabetisch\w*)"),
    (
        "popularity",
        "desc",
        r"(?:most[- ]popular|najpopularniejsz\w*|najbardziej\s+popularn\w*|beliebteste\w*|populärste\w*|am beliebtesten)",
    ),
)
#: The order a sort names, as an option text dropdown tools understand in any language.
_SORT_FOR_DROPDOWN = {
    ("price", "asc"): "price_asc",
    ("price", "desc"): "price_desc",
    ("date", "desc"): "newest",
    ("rating", "desc"): "rating_desc",
}


def _ranked_field(m: re.Match) -> str:
    return next(k for k in _RANKED if m.group(k))


def read_order(t: Text, facts: list[Fact]) -> None:
    """The order asked for: ``sort_by`` (a field), ``sort_order`` (asc/desc), and ``sort`` for dropdowns.

    "sorted by points", "posortowane po cenie malejąco", "nach Preis absteigend sortiert", and the
    superlatives "the 5 cheapest", "najnowsze", "die meisten Kommentare", "od najdroższego".
    The field an explicit "sorted by" names wins over a superlative's; the order a direction word
    says ("descending", "absteigend", "od najwyższej") wins over the superlative's own; without
    either, the field's usual order (``item_fields.SORT_DEFAULT_ORDER``).
    """
    from ...item_fields import SORT_DEFAULT_ORDER

    explicit = t.search(
        rf"\b(?:{_SORT_VERB}\s+(?:[^\W\d_]{{1,30}}\s+){{0,2}}|(?:{ASC}|{DESC})\s+)"
        r"(?:by|po|według|wedlug|wg\.?|nach|in\s+order\s+of)\s+"
        rf"(?:(?:the|their|its|dem|der|den|ich|swojej)\s+)?{_NUMBER_OF}(?:{_RANK_FIELD})\b"
    ) or t.search(
        rf"\bnach\s+(?:dem\s+|der\s+|den\s+)?{_NUMBER_OF}(?:{_RANK_FIELD})\s+(?:\w+\s+)?(?:sortiert|geordnet|sortieren)\b"
    )
    if explicit is None:  # "price descending", "cena malejąco", "Preis absteigend"
        explicit = t.search(rf"\b(?:{_RANK_FIELD})\s*:?\s+(?:(?:from|od|von)\s+)?(?={ASC}|{DESC})")
    if explicit is None:  # "top 5 stories by points", "produkty według ceny", "Beiträge nach Punkten"
        explicit = t.search(
            rf"\b{ITEM_NOUN}\s+(?:by|według|wedlug|wg\.?|nach)\s+(?:(?:the|their|its|dem|der|den)\s+)?"
            rf"{_NUMBER_OF}(?:{_RANK_FIELD})\b"
        )
    implied: list[tuple[int, str, str, str]] = []  # start, field, order, words
    order: str | None
    for field, order, pattern in _SUPERLATIVES:
        sm = t.search(r"\b" + pattern)
        if sm:
            implied.append((sm.start(), field, order, sm.group(0)))
    um = t.search(rf"\b({_UP}|{_DOWN})\s+{_NUMBER_OF}(?:{_RANK_FIELD})\b")
    if um:
        order = "desc" if regex(_UP).fullmatch(um.group(1)) else "asc"
        implied.append((um.start(), _ranked_field(um), order, um.group(0)))
    bm = t.search(rf"\b{_BEST}\s+{_NUMBER_OF}(?:{_RANK_FIELD})\b")
    if bm:  # "the best rating", "die beste Bewertung", "najlepsza cena": the field's best end
        field = _ranked_field(bm)
        implied.append((bm.start(), field, "asc" if field == "price" else "desc", bm.group(0)))
    implied.sort()
    if explicit is None and not implied:
        _direction_of_a_bound(t, facts)
        return
    if explicit is not None:
        field, start, words = _ranked_field(explicit), explicit.start(), explicit.group(0)
        order = next((o for _, f, o, _ in implied if f == field), None)
    else:
        start, field, order, words = implied[0]
    field = "name" if field == "title" else field
    direction = t.search(ASC) or t.search(DESC)
    if direction is not None:
        order = "asc" if regex(ASC).fullmatch(direction.group(0)) else "desc"
        # the direction's words are read ("fewest first"), wherever they stand
        facts.append(Fact("read", "sort_order", direction.start(), direction.group(0)))
    order = order or SORT_DEFAULT_ORDER.get(field, "asc")
    if explicit is None and direction is None:
        # "the cheapest and the most expensive guitar": one list has one order; the other superlative
        # of the same field is named as not done, never dropped in silence.
        for at, other, other_order, said in implied[1:]:
            if other == implied[0][1] and other_order != implied[0][2]:
                facts.append(Fact("order_dropped", words, at, said))
                break
    facts.append(Fact("sort_by", field, start, words))
    facts.append(Fact("sort_order", order, start, words))
    if (field, order) in _SORT_FOR_DROPDOWN:
        facts.append(Fact("sort", _SORT_FOR_DROPDOWN[(field, order)], start, words))


def _direction_of_a_bound(t: Text, facts: list[Fact]) -> None:
    """ "stories with 50-150 points sorted ascending", "posty z ponad 100 punktami malejąco": a
    direction with no field of its own orders by the field the instruction bounds."""
    bound = next((f for f in facts if f.kind in ("op_number", "min_points", "min_comments")), None)
    m = t.search(rf"\b(?:{_SORT_VERB}\s+)?(?:{ASC}|{DESC})")
    if bound is None or m is None:
        return
    field = bound.value[0]["field"] if bound.kind == "op_number" else bound.kind.removeprefix("min_")
    direction = t.search(ASC) or t.search(DESC)
    order = "asc" if direction is not None and regex(ASC).fullmatch(direction.group(0)) else "desc"
    facts.append(Fact("sort_by", field, m.start(), m.group(0)))
    facts.append(Fact("sort_order", order, m.start(), m.group(0)))


def read_singular_superlative(t: Text, facts: list[Fact]) -> None:
    """ "the cheapest product", "najtańszy laptop", "das günstigste Angebot": one item (limit 1).

    Only without another count, and only after an order was found: a superlative in the singular
    asks for the single best item, in the plural ("the cheapest products") for all of them, ordered.
    """
    if "sort_by" not in {f.kind for f in facts} or any(f.kind == "limit" for f in facts):
        return
    sup = "|".join(p for _, _, p in _SUPERLATIVES if "alpha" not in p)
    m = (
        # EN: "the cheapest", "the cheapest one/product", not "the cheapest products"; the noun is
        # the first word in lower case after the names and models ("the cheapest EOS camera", not
        # "the cheapest Canon cameras")
        t.search(
            rf"\bthe\s+(?:very\s+)?(?:{sup})(?:\s+(?-i:[A-Z0-9][\w.+/-]*)){{0,3}}+"
            r"(?!\s+(?:(?-i:[a-z]\w*s)|people|news)\b)(?:\s+(?:one|\w+))?\b"
        )
        # "which story has the most comments?", "który artykuł ma najwięcej punktów", "welcher Beitrag
        # hat die meisten Kommentare": one item, asked about in the singular (the verb says it)
        or t.search(
            r"\b(?:which|what|który|która|które|którego|welche[rs]?)\s+(?:\w+\s+){0,2}?"
            r"(?:has|is|gets|got|ma|jest|hat|ist|bekam|bekommt)\s+(?:the\s+|die\s+|den\s+|das\s+)?"
            rf"(?:{_UP}|{_DOWN}|{_BEST}|{sup})\b"
        )
        # "most expensive movie", "cheapest camera?": a superlative and one noun in the singular that
        # ends the request (not "cheapest cat food offers", not "cheapest cameras"; not a Polish or
        # German plural superlative: "najtańsze produkty", "günstigsten Produkte")
        or t.search(
            rf"(?:^|[,;:]\s*|\b(?:show|get|find|give me|list)\s+)(?:{sup})(?<!wane)(?<!iane)(?<!sze)(?<!sten)\s+"
            r"(?!\w+s\b|(?:first|last|to|one|ones|najpierw|zuerst|bis|do)\b)[^\W\d_]{2,30}"
            r"(?=\s*$|\s*[,.;!?]|\s+(?:on|in|from|under|below|with|for|at|of)\b)"
        )
        # "the story with the most points", not "the stories with ..."
        or t.search(
            rf"\bthe\s+(?!\w+s\b)\w{{2,30}}\s+with\s+the\s+(?:{_UP}|{_DOWN}|{_BEST})\s+(?:{_RANK_FIELD})\b"
        )
        # DE: "der Beitrag mit den meisten Punkten", "das Produkt mit der besten Bewertung" ("die" may be plural)
        or t.search(
            rf"\b(?:der|das)\s+[^\W\d_]{{2,30}}\s+mit\s+(?:den|der|dem)\s+(?:{_UP}|{_DOWN}|{_BEST})\s+(?:{_RANK_FIELD})\b"
        )
        # PL singular adjectives end in -y/-a: "najtańszy", "najnowsza"
        # (any superlative: "najpopularniejszy"; a participle after naj-: "najczęściej komentowany")
        # and a neuter noun after -sze ("najtańsze ogłoszenie", "najnowsze auto"; "najtańsze ogłoszenia" is plural)
        or t.search(
            r"\bnaj\w{2,20}sz[ya]\b|\bnaj\w{2,12}(?:iej|ej)\s+\w{3,20}(?:n|t)[ya]\b|"
            r"\bnaj\w{2,20}sze\s+[^\W\d_]{2,30}(?:ie|o|um)\b"
        )
        # DE singular after an article ends in -e: "das günstigste", "der neueste", "der beliebteste",
        # "der meistkommentierte"
        or t.search(r"\b(?:der|die|das|den|dem)\s+(?:\w{3,20}(?:st|ßt)e|meist\w{3,20}e|bestbewertete)\b(?!n)")
    )
    if m:
        facts.append(Fact("limit", 1, m.start(), m.group(0)))


#: A sort order said in passing ("10 cheapest") as an option text dropdown tools understand in any language.
SORT_OPTIONS = {
    "price_asc": "price ascending",
    "price_desc": "price descending",
    "newest": "newest",
    "rating_desc": "best rated",
}


def read_dropdown(t: Text, facts: list[Fact]) -> None:
    """Sorting by a dropdown: "sort by price low to high", "sortuj według ceny rosnąco", "sortiere nach Preis".

    The select's label is not guessed (a dropdown tool considers every select without one); an order
    only implied ("the 10 cheapest") becomes an ``option`` with ``option_implied`` (an optional step).
    """
    if any(f.kind == "option" for f in facts):
        return
    sort = next((f for f in facts if f.kind == "sort"), None)
    if sort is None and any(f.kind == "sort_by" for f in facts):
        return  # an order no page's sort control is known to offer (points, comments): sorted locally
    m = t.search(
        r"\b(?:sort(?:ed)?|order(?:ed)?|posortuj|posortowane|sortuj|sortowane|sortier\w*)\s+"
        r"(?:the\s+\w+\s+)?(?:by|po|według|wedlug|wg\.?|nach)\s+(.{2,40}?)"
        r"(?=\s+(?:and|then|i|oraz|und|dann)\b|\s*[,;:!?]|\.(?:\s|$)|$)"
    )
    if m:
        option = m.group(1).strip()
        directed = re.search(
            r"asc|desc|low|high|cheap|expensive|new|old|rosn|malej|najni|najwy|najta|najdr|"
            r"aufsteig|absteig|niedrig|hoch|günstig|teuer|neu",
            option,
            re.I,
        )
        if sort is not None and not directed:
            option = SORT_OPTIONS[
                sort.value
            ]  # "sort by price ... cheapest first": the direction is elsewhere
        facts.append(Fact("option", option, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
    elif sort is not None:
        facts.append(Fact("option", SORT_OPTIONS[sort.value], sort.start, sort.text))
        if not t.search(r"\b(?:sort\w*|posortuj\w*|sortuj\w*|sortier\w*|order by)\b"):
            facts.append(Fact("option_implied", True, sort.start, sort.text))
