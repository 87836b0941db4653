"""Numbers of things: score thresholds ("more than 100 points"), pages, scrolls and a wait, table rows,
and how many items ("top 10", "the first 5 results", "trzy gitary")."""

from __future__ import annotations

import re

from .base import Fact, Text, regex
from .words import BEST, CHEAP, CUR, DEAR, ITEM_NOUN, JOIN_WORD, NEW, NOT_PRICE_UNIT, NUMBER_WORDS, N, to_int

# "more than 100 points" means at least 101: thresholds on counts are integers.
_STRICT_CMP = (
    r"(?:more than|over|above|greater than|>|powyżej|powyzej|ponad|więcej niż|wiecej niz|mehr als|über|"
    r"ueber)"
)
_INCL_CMP = r"(?:at least|min(?:imum)?\.?|>=|≥|with|co najmniej|minimum|mindestens|mind\.|ab|z|mit)"


def _threshold(cmp: str, value: str) -> int:
    return int(value) + (1 if re.fullmatch(_STRICT_CMP, cmp.strip(), re.I) else 0)


def read_scores(t: Text, facts: list[Fact]) -> None:
    """Thresholds: "more than 100 points" (101), "powyżej 50 punktów", "z wynikiem co najmniej 500", "10 rows"."""
    cmp = rf"({_STRICT_CMP}|{_INCL_CMP})"
    units = {
        "min_points": r"(?:points?|pts|upvotes?|votes?|score|karma|punkt\w*|głos\w*|glos\w*|stimm\w*)",
        "min_comments": r"(?:comments?|komentarz\w*|kommentar\w*)",
        "min_rows": r"(?:rows?|wiersz\w*|zeilen?)",
    }
    for kind, unit in units.items():
        # ("with 50 comments or less" is an upper bound: read with the operations)
        for m in t.finditer(
            rf"(?<!\w){cmp}\s*(\d+)\+?\s*{unit}\b(?!\s*(?:or|lub|oder)\s+(?:less|fewer|lower|mniej|weniger))"
        ):
            facts.append(Fact(kind, _threshold(m.group(1), m.group(2)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
        for m in t.finditer(rf"\b(\d+)\+\s*{unit}\b"):
            facts.append(Fact(kind, int(m.group(1)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
        score_unit = unit if kind != "min_points" else unit[:-1] + r"|wynik\w*|ergebnis)"
        for m in t.finditer(
            rf"\b{score_unit}\s*(?:of\s+)?({_STRICT_CMP}|at least|>=|≥|co najmniej|mindestens|"
            rf"von mindestens)\s*(\d+)\b"
        ):
            facts.append(Fact(kind, _threshold(m.group(1), m.group(2)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())


def read_pages(t: Text, facts: list[Fact]) -> None:
    """How many result pages: "3 pages", "z 4 stron", "first 2 pages", "pages 1-3", "alle Seiten"."""
    for m in t.finditer(
        r"\bpages?\s+1\s*(?:-|–|to|do|bis)\s*(\d+)\b|\b(?:strony|stron)\s+1\s*(?:-|–|do)\s*(\d+)\b"
    ):
        facts.append(Fact("pages", int(m.group(1) or m.group(2)), m.start(), m.group(0)))
        t.mask(m.start(), m.end())
    for m in t.finditer(
        rf"\b{N}\s+(?:(?:first|next|result|kolejn\w*|następn\w*|pierwsz\w*|ersten?|nächsten?)\s+)?"
        r"(?:pages?|stron\w*|seiten?|podstron\w*)\b"
    ):
        facts.append(Fact("pages", to_int(m.group(1)), m.start(), m.group(0)))
        t.mask(m.start(), m.end())
    for m in t.finditer(
        r"\b(?:all|every|each|wszystki\w*|każd\w*|alle[nr]?|jede)\s+(?:the\s+)?(?:result\s+)?"
        r"(?:pages?|stron\w*|seiten?)\b"
    ):
        facts.append(Fact("pages_all", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())


def read_scrolls(t: Text, facts: list[Fact]) -> None:
    """Scroll amounts: "scroll down 5 times", "przewiń 3 razy", "5 mal scrollen", and a wait in ms."""
    verbs = r"(?:scroll\w*|przewi\w*|przewij\w*|scrolle\w*|blätter\w*)"
    pats = [
        rf"\b{verbs}(?:\s+(?:down|up|w dół|w dol|nach unten|the page|stronę|strone|die seite))*\s+{N}\s*(?:times|x|razy|mal)\b",
        rf"\b{N}\s*(?:times|x|razy|-?mal)\s+{verbs}",
        rf"\b{verbs}\b[^.,;]{{0,30}}?\b{N}\s*(?:times|x|razy|mal)\b",
    ]
    for pattern in pats:
        m = t.search(pattern)
        if m:
            facts.append(Fact("scroll_times", to_int(m.group(1)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
            break
    else:
        m = t.search(rf"\b{verbs}\b")
        if m:
            facts.append(Fact("scroll", True, m.start(), m.group(0)))
    m = t.search(
        r"\b(?:wait|waiting|czekaj|odczekaj|warte)\s+(\d+(?:[.,]\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|sekund\w*|sekunden)\b"
    )
    if m:
        value = float(m.group(1).replace(",", "."))
        ms = int(value if m.group(2).lower().startswith("m") else value * 1000)
        facts.append(Fact("wait_ms", ms, m.start(), m.group(0)))
        t.mask(m.start(), m.end())


def read_rows(t: Text, facts: list[Fact]) -> None:
    """How many rows of a table: "the first 10 rows", "pierwsze 5 wierszy", "die ersten 3 Zeilen",
    "only 20 rows" (``max_rows``; a count of tables is another thing: "the first 2 tables")."""
    m = t.search(
        rf"\b(?:(?:top|first|pierwsz\w*|ersten?|only|just|tylko|nur|show|pokaż|pokaz|zeige?)\s+)?{N}\s+"
        r"(?:(?:first|pierwsz\w*|ersten?)\s+)?(?:rows|row|wiersz\w*|zeilen?)\b"
    )
    if m:
        value = to_int(m.group(1))
        if 0 < value <= 100000:
            facts.append(Fact("max_rows", value, m.start(), m.group(0)))
            t.mask(m.start(), m.end())


_AT_MOST_COUNT = (
    r"(?:up to|at most|max(?:imum)?\.?|no more than|maks(?:ymalnie)?\.?|najwyżej|bis zu|höchstens|maximal)"
)


def read_counts(t: Text, facts: list[Fact]) -> None:
    """How many items: "top 10", "first 5", "10 najtańszych", "die ersten 5", "20 products", "show 20"."""
    pats = [
        rf"\b(?:top|first|pierwsz\w*|ersten?|erste[nrs]?|limit(?:ed)?(?: to)?|only|just|tylko|nur)\s+{N}\b",
        rf"\b{N}\s+(?:pierwsz\w*|first|ersten?|top)\b",
        rf"\b(?:po\s+|je\s+)?{N}\s+(?:{ITEM_NOUN}\s+)?(?:per page|from each(?: page)?|on each page|z każdej|z kazdej|"
        r"na stronę|na strone|pro seite|je seite|von jeder seite)",
        rf"\b{N}\s+(?:{CHEAP}|{DEAR}|{NEW}|{BEST}|best|najlepsz\w*|beste\w*|popular\w*|najpopularniejsz\w*|"
        # a German participle's superlative: "die 5 am meisten bewerteten", "die 3 am häufigsten kommentierten"
        r"am (?:meisten|häufigsten) \w+en\b)",
        # "the cheapest 5", "najtańsze 3 gitary", "die günstigsten 5 Grafikkarten"
        rf"\b(?:{CHEAP}|{DEAR}|{NEW}|{BEST}|najpopularniejsz\w*|beliebteste\w*)\s+{N}\b(?!\s*(?:{CUR}|%))",
        rf"\b(?:up to|at most|max(?:imum)?\.?|no more than|maks(?:ymalnie)?\.?|najwyżej|bis zu|höchstens|maximal)\s+{N}\s+{ITEM_NOUN}\b",
        # "…, max 5", "…, najwyżej 3", "…, höchstens 10": a bound on how many that closes a clause
        rf"(?:^|[,;]\s*)(?:up to|at most|max(?:imum)?\.?|no more than|maks(?:ymalnie)?\.?|najwyżej|bis zu|"
        rf"höchstens|maximal)\s+{N}(?=\s*(?:$|[,;.!?]))",
        rf"\b{N}(?!\s*{CUR})\s+(?:\w+\s+){{0,2}}{ITEM_NOUN}\b",
        rf"\b(?:show|get|give me|list|return|fetch|pokaż|pokaz|daj|podaj|zeige?|gib)\s+(?:me\s+|mir\s+|mi\s+)?{N}\b(?!\s*{CUR})",
        # One thing in the singular: "the first table", "pobierz tabelę", "die erste Tabelle" -> 1.
        # Polish in any case of the singular: "pod pierwszym artykułem", "z pierwszego wpisu".
        r"\b(?:the\s+)?(first|top|pierwsz(?:[aąy]|ego|ej|ym|emu)|erste[nrs]?)\s+(?:table|product|item|result|article|"
        r"story|post|link|tabel[aęi]|tabelą|produkt(?:u|em)?|produkcie|artykuł(?:u|em)?|artykule|wynik(?:u|iem)?|"
        r"wpis(?:u|em)?|wpisie|post(?:u|em)?|poście|tabelle|artikel|beitrag|ergebnis)\b",
        r"\b(?:get|extract|download|pobierz|wyciągnij|hol|extrahiere)\s+(?:the\s+|die\s+)?(tabelę|table|tabelle)\b",
    ]
    for pattern in pats:
        m = t.search(pattern)
        if m:
            word = m.group(1).lower()
            value = to_int(word) if word[0].isdigit() or word in NUMBER_WORDS else 1
            if 0 < value <= 10000:
                facts.append(Fact("limit", value, m.start(), m.group(0)))
                bound = re.match(
                    r"[,;\s]*((?:up to|at most|no more than|bis zu)|[^\W\d_]+\.?)\s", m.group(0), re.I
                )
                if bound and regex(_AT_MOST_COUNT).fullmatch(bound.group(1)):
                    # "…, max 5": the bound's word is read with its number
                    facts.append(Fact("read", "limit", m.start() + bound.start(1), bound.group(1)))
                # Keep "cheapest" readable for the sort pass; only the number is used up.
                t.mask(m.start(1), m.end(1))
                return
    # A number that opens the request and names how many of something the page lists: "two graphics
    # cards please", "3 gitary", "die 5 Grafikkarten", "show me 4 Mainboards" (the noun is the page's
    # goods, not a unit, a currency or a word that joins a range: "100 and 200 zł" is a price).
    m = t.search(
        rf"(?:^|\b(?:the|die|der|das|den|me|mir|mi)\s+){N}\s+(?!{NOT_PRICE_UNIT}|{CUR}|{JOIN_WORD})"
        r"[^\W\d_]{3,}"
    )
    if m and not re.fullmatch(r"(?:19|20)\d\d", m.group(1)):
        value = to_int(m.group(1))
        if 0 < value <= 1000:
            facts.append(Fact("limit", value, m.start(1), m.group(0)))
            t.mask(m.start(1), m.end(1))


_RESULT_NOUN = r"(?:results?|hits|\w*ergebnis\w*|\w*treffer|wynik\w*)"


def read_result_count(t: Text, facts: list[Fact]) -> None:
    """A count before a described result noun: "the 10 organic search results", "die 10 besten
    Suchergebnisse" (`read_counts` takes at most one word between the number and the noun)."""
    if not any(f.kind == "limit" for f in facts):
        m = t.search(rf"\b{N}\s+(?:[^\W\d_]+\s+){{0,3}}?{_RESULT_NOUN}\b")
        if m:
            value = to_int(m.group(1))
            if 0 < value <= 10000:
                facts.append(Fact("limit", value, m.start(), m.group(0)))
                t.mask(m.start(1), m.end(1))
    # "the results of this search" names what to get; the search verb pass must not read it as "search
    # for ...".
    for m in t.finditer(_SEARCH_RESULTS):
        t.mask(m.start(), m.end())


_SEARCH_RESULTS = (
    r"\b(?:results?\s+of\s+(?:the\s+|this\s+|my\s+)?search|search\s+results?|ergebnisse\s+der\s+suche|"
    r"wyniki\s+(?:tego\s+)?wyszukiwania)\b"
)
