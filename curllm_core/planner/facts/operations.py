"""Operations on the items the instruction asks for (PL/EN/DE), as facts whose values are the
parameters of the operation, in the names the built-in tools use (`validation.filter_text`,
`filter_number`, `filter_flags`, `distinct_items`, `per_group`, `aggregate`):

- ``op_number``: bounds on a numeric field ("fewer than 5 replies", "rated above 4", "between 10 and
  50 comments", "mit mindestens 100 Bewertungen"): ``({"field", "below"|"at_most"|...}, ...)``;
- ``op_text``: text to match ("written by dang", "linking to youtube.com", "whose title mentions
  wireless", "starting with A"): ``({"field", "equals"|"domain"|"contains"|...}, ...)``;
- ``op_flags``: ``{"in_stock": True, "sponsored": False, ...}``;
- ``op_distinct``: ``{}`` or ``{"field": "name"}``;
- ``op_group``: ``{"group_by", "pick", "field"}`` ("the cheapest offer from each seller");
- ``op_aggregate``: ``(("count", None), ("average", "price"), ...)``;
- ``format``: the output format named ("as CSV", "jako CSV", "als CSV", "in JSON");
- ``refused``: ``((what, message), ...)``: what curllm will not do, said by name (converting
  currencies without rates, installing software, a judgement of taste).

The pass runs before the price pass and masks what it reads, so "fewer than 5 replies" is no price.
"""

from __future__ import annotations

import re

from .base import Fact, Text, negated
from .links import well_known_site
from .words import FIELD_ANY

# --- numeric fields -----------------------------------------------------------------------------------

#: Numeric fields by the words that name them (a count of something the item has, or its rating).
NUMBER_FIELDS: dict[str, str] = {
    "comments": r"comments?|replies|reply|answers?|komentarz\w*|odpowiedz\w*|odpowiedzi|kommentar\w*|antwort\w*",
    # "wynik" in the singular is a score ("z wynikiem powyżej 100"); "wyniki" (results) is no field
    "points": r"points?|pts|upvotes?|votes?|score|karma|punkt\w*|głos\w*|glos\w*|stimm\w*|wynik(?:u|iem)?|scores",
    "reviews": r"reviews?|ratings|opini\w*|recenzj\w*|rezension\w*|bewertungen",
    "rating": r"stars?|rating|rated|gwiazd\w*|ocen\w*|sterne?n?|bewertung|bewertet\w*",
}
_NUMBER_FIELD_WORDS = "|".join(NUMBER_FIELDS.values())
_NUMBER_FIELD = "|".join(f"(?P<{k}>{v})" for k, v in NUMBER_FIELDS.items())
_NUM = r"(\d+(?:[.,]\d+)?)"
_BELOW = r"(?:fewer than|less than|under|below|<|mniej niż|mniej niz|poniżej|ponizej|weniger als|unter)"
_AT_MOST = r"(?:at most|no more than|up to|max(?:imum)?\.?|≤|<=|najwyżej|najwyzej|maksymalnie|co najwyżej|höchstens|hoechstens|maximal|bis zu)"
_ABOVE = (
    r"(?:more than|over|above|greater than|>|powyżej|powyzej|ponad|więcej niż|wiecej niz|mehr als|über|ueber)"
)
_AT_LEAST = r"(?:at least|min(?:imum)?\.?|≥|>=|co najmniej|przynajmniej|minimum|mindestens|mind\.|ab)"
_BETWEEN = r"(?:between|między|miedzy|pomiędzy|pomiedzy|zwischen|from|od|von)"
_AND = r"(?:and|a|i|do|to|und|bis|-|–)"
_CMP = {"below": _BELOW, "at_most": _AT_MOST, "above": _ABOVE, "at_least": _AT_LEAST}
#: The verb of a rating before its bound ("rated at least 4 stars", "ocenione na co najmniej 4 gwiazdki").
_RATED = r"(?:rated|ocenion\w*|ocenian\w*|bewertet\w*)(?:\s+(?:na|mit))?"
_OR_MORE = r"or\s+(?:more|higher|better|above)|and\s+(?:up|above|more|higher)|lub\s+(?:więcej|wiecej|wyżej|wyzej)|i\s+(?:więcej|wiecej|wyżej|wyzej)|oder\s+(?:mehr|höher|hoeher|besser)|und\s+(?:mehr|höher|hoeher)"
_OR_LESS = r"or\s+(?:less|fewer|lower)|lub\s+(?:mniej|niżej|nizej)|oder\s+(?:weniger|niedriger)"
#: "with 100 reviews", "z 50 opiniami", "mit 10 Kommentaren": at least that many (as `min_comments`).
_WITH = r"(?:with|having|z|ze|mit)"
#: One word that qualifies the counted thing ("positive", "pozytywnymi", "positiven"), not a field.
_QUALIFIER = r"(?:(?!(?:" + "|".join(NUMBER_FIELDS.values()) + r")\b)(?P<qual>[^\W\d_]{3,})\s+)?"


def _said(t: Text, m: re.Match) -> str:
    """The words a match read, as the instruction says them (quotes included)."""
    return t.original[m.start() : m.end()]


def _num(text: str) -> float | int:
    value = float(text.replace(",", "."))
    return int(value) if value == int(value) else value


def _field_of(m: re.Match) -> str:
    return next(k for k in NUMBER_FIELDS if m.group(k))


def _numbers(t: Text, facts: list[Fact]) -> None:
    found: list[tuple[int, dict, str]] = []
    # "between 10 and 50 comments", "z oceną między 4 a 5", "zwischen 3 und 5 Sternen"
    for pattern in (
        rf"(?<!\w){_BETWEEN}\s+{_NUM}\s*{_AND}\s*{_NUM}\s+(?:{_NUMBER_FIELD})(?!\w)",
        # "50-150 points", "10–20 Kommentare": a range written with a dash before the field
        rf"(?<![\w.,]){_NUM}\s*[-–]\s*{_NUM}\s+(?:{_NUMBER_FIELD})(?!\w)",
        rf"(?<!\w)(?:{_NUMBER_FIELD})\s+(?:(?:of|with|z|mit|von|w|między|miedzy|from)\s+)?{_BETWEEN}\s+{_NUM}\s*{_AND}\s*{_NUM}(?![\d.,]?\d)",
    ):
        for m in t.finditer(pattern):
            low, high = [g for g in m.groups() if g and re.fullmatch(r"\d+(?:[.,]\d+)?", g)][:2]
            value = {"field": _field_of(m), "at_least": _num(low), "at_most": _num(high)}
            found.append((m.start(), value, _said(t, m)))
            t.mask(m.start(), m.end())
    # "4.5 stars or more", "rated 4 or higher", "100 reviews or fewer", "4 gwiazdki lub więcej", "4 Sterne oder mehr"
    for m in t.finditer(
        rf"(?<!\w)(?:{_RATED}\s+)?{_NUM}\s*(?:(?:{_NUMBER_FIELD})\s+)?(?:(?P<more>{_OR_MORE})|(?P<less>{_OR_LESS}))(?!\w)"
    ):
        field = next((k for k in NUMBER_FIELDS if m.group(k)), None)
        if field is None and not re.match(rf"(?:{_RATED})", m.group(0), re.I):
            continue  # "100 or more" alone: a price or a count, read elsewhere
        bound = "at_least" if m.group("more") else "at_most"
        found.append((m.start(), {"field": field or "rating", bound: _num(m.group(1))}, _said(t, m)))
        t.mask(m.start(), m.end())
    # the field first: "a rating of 4 or higher", "ocena 4 lub wyżej", "Bewertung von 4 oder besser"
    for m in t.finditer(
        rf"(?<!\w)(?:{_NUMBER_FIELD})\s+(?:(?:of|z|von|od)\s+)?{_NUM}\s*(?:(?P<more>{_OR_MORE})|(?P<less>{_OR_LESS}))(?!\w)"
    ):
        bound = "at_least" if m.group("more") else "at_most"
        found.append(
            (
                m.start(),
                {
                    "field": _field_of(m),
                    bound: _num(next(g for g in m.groups() if g and re.fullmatch(r"\d+(?:[.,]\d+)?", g))),
                },
                _said(t, m),
            )
        )
        t.mask(m.start(), m.end())
    for bound, cmp in (*_CMP.items(), ("at_least", _WITH)):
        # "fewer than 5 replies", "at least 100 reviews", "mit über 4 Sternen", "with 100 reviews";
        # a word between the number and the field ("100 positive reviews") is not read: it stays
        # for the ledger to quote, since the count is of all reviews.
        for m in t.finditer(rf"(?<!\w)(?:{_RATED}\s+)?{cmp}\s*{_NUM}\s+{_QUALIFIER}(?:{_NUMBER_FIELD})\b"):
            said = _said(t, m)
            if m.group("qual"):
                a, b = m.start("qual") - m.start(), m.end("qual") - m.start()
                said = f"{said[:a].strip()} / {said[b:].strip()}"
            found.append((m.start(), {"field": _field_of(m), bound: _num(m.group(1))}, said))
            t.mask(m.start(), m.end())
        # "rated above 4", "rating of at least 4.5", "z oceną powyżej 4", "Bewertung über 4"
        for m in t.finditer(
            rf"(?<!\w)(?:{_NUMBER_FIELD})\s+(?:(?:of|with|z|mit|von)\s+)?{cmp}\s*{_NUM}(?![\d.,]?\d)"
        ):
            found.append(
                (m.start(), {"field": _field_of(m), bound: _num(m.group(m.lastindex or 0))}, _said(t, m))
            )
            t.mask(m.start(), m.end())
    # "posts without comments", "produkty bez opinii", "Produkte ohne Bewertungen", "with no reviews":
    # none of them (an item that shows no count has none to show)
    for m in t.finditer(
        rf"(?<!\w)(?:without(?:\s+any)?|with\s+no|with\s+zero|bez|ohne|keine?n?)\s+(?:{_NUMBER_FIELD})(?!\w)"
    ):
        found.append((m.start(), {"field": _field_of(m), "at_most": 0, "keep_missing": True}, _said(t, m)))
        t.mask(m.start(), m.end())
    if found:
        found.sort(key=lambda f: f[0])
        facts.append(
            Fact("op_number", tuple(f[1] for f in found), found[0][0], " / ".join(f[2] for f in found))
        )


# --- text ---------------------------------------------------------------------------------------------

_NAME = r"([^\s,;:!?\"'„“”]+)"
_AUTHOR = (
    r"(?:(?:written|posted|submitted|authored|created|made|sent)\s+by|by\s+(?:the\s+)?(?:user|author)|"
    r"from\s+(?:the\s+)?(?:user|author)|"
    r"(?:napisan\w*|dodan\w*|opublikowan\w*)\s+przez|autorstwa|od\s+użytkownika|od\s+uzytkownika|użytkownika|"
    r"uzytkownika|autora|"
    r"(?:geschrieben|verfasst|gepostet|eingereicht)\s+von|von\s+(?:dem\s+)?(?:nutzer|benutzer|autor|user)|"
    r"des\s+(?:nutzers|benutzers|autors)"
    r"|"
    # "posts by dang", "wpisy od kowalski", "Beiträge von anna": after a word for posts, the author
    + "|".join(
        rf"(?<={noun}\s){by}"
        for nouns, by in (
            ("stories story posts post comments articles submissions threads", "by"),
            ("wpisy posty komentarze artykuły", "od"),
            ("beiträge kommentare", "von"),
        )
        for noun in nouns.split()
    )
    + r")"
)
_DOMAIN = r"([a-z0-9-]+(?:\.[a-z0-9-]+)+)"
#: Top-level domains common enough that "von heise.de" names a site rather than a user called so.
_TLD = (
    r"com|org|net|edu|gov|io|dev|app|ai|co|info|biz|me|tv|news|blog|eu|de|at|ch|pl|uk|fr|it|es|nl|be|se|no|"
    r"dk|fi|cz|sk|us|ca|au|nz|jp|cn|in|ru|ua|br|no"
)
_LINKING = (
    r"(?:linking|pointing|leading|going)\s+to|links?\s+to|with\s+links?\s+to|"
    r"(?:linkując\w*|prowadząc\w*|prowadzac\w*)\s+(?:do|na)|z\s+link\w*\s+do|"
    r"(?:verlinken|verweisen|führen|fuehren)\s+(?:auf|zu|nach)|mit\s+links?\s+(?:zu|auf)|die\s+auf"
)
_MENTION = (
    r"(?:mention(?:s|ing)?|contain(?:s|ing)?|includ(?:es|ing)|with\s+the\s+words?|"
    r"zawierając\w*|zawierajac\w*|ze\s+słowem|ze\s+slowem|z\s+(?:słowem|slowem|frazą|fraza)|o\s+słowie|"
    r"enthält|enthalten\w*|mit\s+dem\s+wort)"
)
_STARTS = (
    r"(?:start(?:s|ing)?\s+with|begin(?:s|ning)?\s+with|zaczynając\w*\s+się\s+od|zaczynajac\w*\s+sie\s+od|"
    r"(?:beginnen|beginnt|anfangen|anfängt)\s+mit|die\s+(?:nicht\s+)?mit)"
)
_TEXT_FIELD = r"(?:title|name|headline|tytu\w*|nazw\w*|titel|namen?)"


def _value(m: re.Match, group: int, quoted: list[tuple[int, int, str]]) -> str:
    """The value a match read: a word, or a quoted string (masked by the quote pass), taken from the
    quotes so that no later pass reads it as a search term."""
    if not m.group(group).startswith(";"):
        return m.group(group)
    start = m.start(group)
    for entry in list(quoted):
        if entry[0] == start:
            quoted.remove(entry)
            return entry[2]
    return m.group(group)


def _text(t: Text, facts: list[Fact], kind_is_links: bool, quoted: list[tuple[int, int, str]]) -> None:
    found: list[tuple[int, dict, str]] = []
    for m in t.finditer(rf"(?<!\w){_AUTHOR}\s+{_NAME}"):
        if re.fullmatch(rf"(?:{FIELD_ANY}|{_NUMBER_FIELD_WORDS}|date|time|popularity)", m.group(1), re.I):
            continue  # "stories by points": an order, not an author
        if re.fullmatch(rf"{_DOMAIN}\.?", m.group(1), re.I) and re.search(
            rf"\.(?:{_TLD})\.?$", m.group(1), re.I
        ):
            continue  # "Beiträge von heise.de": a site the items link to, read below
        if not negated(t, m.start()):
            found.append((m.start(), {"field": "author", "equals": m.group(1)}, _said(t, m)))
            t.mask(m.start(), m.end())
    if not kind_is_links:
        # "stories linking to youtube.com"; also "stories from nytimes.com", "artykuły z bbc.co.uk",
        # "Beiträge von heise.de": a domain (with its dot) after "from" is where the items link to
        for m in t.finditer(
            rf"(?<!\w)(?:{_LINKING}|from|z|ze|von|aus)\s+(?:the\s+)?(?:site\s+|stron\w*\s+|seite\s+)?{_DOMAIN}(?![\w.-])"
        ):
            found.append((m.start(), {"domain": m.group(1).lower()}, _said(t, m)))
            t.mask(m.start(), m.end())
        # "stories linking to github", "artykuły linkujące do youtube'a": a well-known site by its name
        # alone is that site under any top-level domain (a word that names no such site is left for
        # the ledger to quote)
        for m in t.finditer(
            rf"(?<!\w)(?:{_LINKING})\s+(?:the\s+)?(?:site\s+|stron\w*\s+|seite\s+)?([a-z][a-z0-9-]*(?:['’]\w{{1,3}})?)(?![\w.-])"
        ):
            site = well_known_site(m.group(1))
            if site is not None:
                found.append((m.start(), {"domain": site}, _said(t, m)))
                t.mask(m.start(), m.end())
    for m in (
        ()
        if kind_is_links
        else t.finditer(
            rf"(?:(?:whose|with\s+(?:a|the)?|where\s+the|w|im|mit)\s+)?(?:{_TEXT_FIELD}\s+)?{_MENTION}\s+(?:the\s+word\s+|słowo\s+|slowo\s+|frazę\s+|fraze\s+|das\s+wort\s+)?"
            rf"(;+|\w[\w-]*{_NAME_GOES_ON})"
        )
    ):
        value = _value(m, 1, quoted)
        if value.lower() in _NOT_A_TERM:
            continue
        found.append((m.start(), _matching("contains", value, _denied(t, m.start())), _said(t, m)))
        t.mask(m.start(), m.end())
    # "with EOS in the name", "z PIXMA w nazwie", "mit Bosch im Namen": the word is in the text field;
    # "without", "bez", "ohne": it is not
    for m in t.finditer(
        rf"(?<!\w)(with|having|z|ze|mit|without|bez|ohne)\s+(;+|\w[\w.-]*)\s+(?:in|w|im|in\s+der|in\s+dem)\s+"
        rf"(?:the\s+|their\s+|its\s+)?(?:{_TEXT_FIELD})(?!\w)"
    ):
        value = _value(m, 2, quoted)
        without = m.group(1).lower() in ("without", "bez", "ohne")
        found.append((m.start(), _matching("contains", value, without), _said(t, m)))
        t.mask(m.start(), m.end())
    # "all products except Samsung", "oprócz Philipsa", "außer Bosch": a name the items' names must
    # not hold as a word (not after "ohne": German nouns are capitalised, "ohne Versandkosten")
    for m in t.finditer(
        r"(?<!\w)(?:except(?:\s+for)?|excluding|but\s+not|other\s+than|z\s+wyjątkiem|z\s+wyjatkiem|oprócz|oprocz|"
        r"außer|ausser|ausgenommen)\s+(?-i:([A-Z][\w.+-]*))(?!\w)"
    ):
        found.append((m.start(), _matching("word", m.group(1), True), _said(t, m)))
        t.mask(m.start(), m.end())
    # "excluding 'refurbished'", "except 'outlet'", "z wyjątkiem 'outlet'", "außer 'B-Ware'": a
    # quoted term the items' names must not contain
    for m in t.finditer(
        r"(?<!\w)(?:excluding|except(?:\s+for)?|but\s+not|other\s+than|z\s+wyjątkiem|z\s+wyjatkiem|poza|"
        r"oprócz|oprocz|außer|ausser|ausgenommen|ohne)\s+(;+)"
    ):
        value = _value(m, 1, quoted)
        found.append((m.start(), _matching("contains", value, True), _said(t, m)))
        t.mask(m.start(), m.end())
    for m in t.finditer(
        rf"(?<!\w){_STARTS}\s+(;+|\w[\w-]*{_NAME_GOES_ON})(?:\s+(?:beginnen|beginnt|anfangen|anfängt))?"
    ):
        value = _value(m, 1, quoted)
        denied = _denied(t, m.start()) or re.search(r"\bnicht\b", m.group(0), re.I) is not None
        found.append((m.start(), _matching("starts_with", value, denied), _said(t, m)))
        t.mask(m.start(), m.end())
    if found:
        found.sort(key=lambda f: f[0])
        facts.append(
            Fact("op_text", tuple(f[1] for f in found), found[0][0], " / ".join(f[2] for f in found))
        )


#: Words right before a match of the items' text that deny it ("not containing", "whose name does not
#: contain", "nie zawierające", "die nicht ... enthalten").
_DENIED = re.compile(
    r"\b(?:not|don'?t|doesn'?t|do\s+not|does\s+not|never|nie|nicht|kein\w*)\s+(?:\w+\s+)?$", re.I
)


def _denied(t: Text, pos: int) -> bool:
    """Whether a match of the items' text at ``pos`` is denied by the words right before it."""
    return _DENIED.search(t.original[max(0, pos - 24) : pos]) is not None


def _matching(how: str, value: str, exclude: bool) -> dict:
    """A match of the items' names (``contains``, ``starts_with``, a ``word``), kept or (``exclude``)
    left out."""
    return {"field": "name", how: value, **({"exclude": True} if exclude else {})}


#: A name goes on over the capitalised words and models after its first word ("Canon EOS", "RTX 4090",
#: "Galaxy S24"), never over a word in lower case ("starts with Canon and costs ...").
_NAME_GOES_ON = r"(?:\s+(?-i:[A-Z0-9][\w.+/-]*))*+"

#: Words after "about"/"über" that say how much, not what about ("about 10", "über 50").
_NOT_A_TERM = frozenset("the a an it this that them these those".split())

# --- flags --------------------------------------------------------------------------------------------

FLAG_WORDS: dict[tuple[str, bool], str] = {
    ("in_stock", False): (
        r"out\s+of\s+stock|sold\s+out|unavailable|niedostępn\w*|niedostepn\w*|wyprzedan\w*|ausverkauft|"
        r"nicht\s+(?:auf\s+lager|lieferbar|verfügbar|verfuegbar|vorrätig)"
    ),
    ("in_stock", True): (
        r"in\s+stock|available\s+now|(?:currently\s+)?available(?!\s+(?:in|on|for))|dostępn[eay]\b|dostepn[eay]\b|"
        r"na\s+stanie|w\s+magazynie|auf\s+lager|lieferbar(?:e[nrs]?)?|verfügbar(?:e[nrs]?)?|verfuegbar(?:e[nrs]?)?|"
        r"vorrätig(?:e[nrs]?)?|vorraetig(?:e[nrs]?)?"
    ),
    ("on_sale", True): (
        r"on\s+sale|discounted|reduced|with\s+a\s+discount|w\s+promocji|przecenion\w*|promocyjn\w*|"
        r"na\s+wyprzedaży|na\s+wyprzedazy|im\s+angebot|reduziert\w*|rabattiert\w*|im\s+sale"
    ),
    ("free_shipping", True): (
        r"free\s+(?:shipping|delivery|postage)|ships?\s+(?:for\s+)?free|"
        r"(?:darmow\w*|bezpłatn\w*|bezplatn\w*)\s+(?:dostaw\w*|wysyłk\w*|wysylk\w*)|"
        r"(?:kostenlos\w*|gratis)\s+(?:versand|lieferung)|versandkostenfrei\w*"
    ),
    ("sponsored", False): (
        r"not\s+sponsored|non-?sponsored|no\s+(?:ads|sponsored\w*)|without\s+(?:the\s+)?(?:ads|sponsored\w*)(?:\s+ones)?|"
        r"(?:exclud\w*|skip\w*|ignor\w*|drop\w*)\s+(?:the\s+)?(?:ads|sponsored\w*)|"
        r"bez\s+(?:reklam|sponsorowan\w*)|niesponsorowan\w*|pomiń\s+reklamy|"
        r"ohne\s+(?:die\s+)?(?:werbung|anzeigen|gesponsert\w*)|keine\s+(?:werbung|anzeigen)|nicht\s+gesponsert\w*"
    ),
    # the sponsored ones themselves ("how many sponsored products", "gesponserte Produkte")
    ("sponsored", True): r"sponsored|sponsorowan\w*|gesponsert\w*",
}


#: A "not" before a flag, a verb "to be" or "show" between them ("that aren't sponsored", "które nie są
#: sponsorowane", "don't show sponsored products", "nie pokazuj sponsorowanych").
_FLAG_NOT = re.compile(
    r"(?<!\w)(?:aren'?t|isn'?t|don'?t|doesn'?t|do\s+not|not|never|nie|nicht|kein\w*)"
    r"(?:\s+(?:be|being|are|is|currently|są|sa|jest|były|byly|sind|ist|"
    r"(?:show|list|include|give|want|need|pokazuj|wyświetlaj|wyswietlaj|uwzględniaj|uwzgledniaj|zeig|zeige)"
    r"(?:\s+(?:me|mi|mir|any|the|żadnych|zadnych))?))?\s+$",
    re.I,
)


def _flag_negation(t: Text, pos: int) -> int | None:
    """Where the "not" before the flag at ``pos`` starts; None when the flag is not negated."""
    before = max(0, pos - 24)
    m = _FLAG_NOT.search(t.original[before:pos])
    return before + m.start() if m else None


def _flags(t: Text, facts: list[Fact]) -> None:
    wanted: dict[str, bool] = {}
    first: tuple[int, str] | None = None
    for (flag, state), pattern in FLAG_WORDS.items():
        if flag in wanted:
            continue
        m = t.search(rf"(?<!\w)(?:{pattern})(?!\w)")
        if not m:
            continue
        start = _flag_negation(t, m.start())
        wanted[flag] = state if start is None else not state
        start = m.start() if start is None else start
        if first is None or start < first[0]:
            first = (start, t.original[start : m.end()])
        t.mask(m.start(), m.end())
    if wanted and first:
        facts.append(Fact("op_flags", wanted, first[0], first[1]))
        either = t.search(r"(?<!\w)(?:or|lub|albo|oder)(?!\w)")
        if len(wanted) > 1 and either is not None:
            # "in stock or on sale": either condition, where the flag step keeps the items that meet all
            why = "either of two conditions: the plan keeps the items that meet both"
            _refuse(facts, t.original[first[0] : either.end()], why, first[0])


# --- distinct, groups, aggregates ---------------------------------------------------------------------

_DISTINCT = (
    r"(?:without|no|remove|drop)\s+(?:the\s+)?(?:duplicates?|doubles?|repeats?)|de-?duplicat\w*|"
    r"(?:each|every)\s+(?:\w+\s+)?only\s+once|only\s+once|unique|distinct|"
    r"bez\s+(?:duplikatów|duplikatow|powtórzeń|powtorzen|dubli)|(?:każd\w*|kazd\w*)\s+(?:\w+\s+)?tylko\s+raz|"
    r"tylko\s+raz|unikaln\w*|"
    r"ohne\s+(?:duplikate|doppelte?\w*|wiederholungen)|keine\s+(?:duplikate|doppelten)|"
    r"(?:jede\w*)\s+(?:\w+\s+)?nur\s+einmal|nur\s+einmal|eindeutig\w*"
)
_BY_NAME = r"\s+(?:by|po|nach)\s+(?:the\s+)?(?P<by>names?|titles?|nazw\w*|tytu\w*|namen?|titel|links?|urls?|adres\w*)"


def _distinct(t: Text, facts: list[Fact]) -> None:
    m = t.search(rf"(?<!\w)(?:{_DISTINCT})(?!\w)(?:(?:\s+\w+)?{_BY_NAME})?")
    if not m:
        return
    value: dict = {}
    by = (m.group("by") or "").lower()
    if by:
        value["field"] = "url" if re.match(r"link|url|adres", by) else "name"
    facts.append(Fact("op_distinct", value, m.start(), _said(t, m)))
    t.mask(m.start(), m.end())


GROUP_FIELDS: dict[str, str] = {
    "brand": r"brands?|makers?|manufacturers?|mark[ia]|marki|marce|producent\w*|marken?|hersteller\w*",
    "seller": (
        r"sellers?|shops?|stores?|merchants?|vendors?|retailers?|sklep\w*|sprzedaw\w*|sprzedawcy|"
        r"händler\w*|haendler\w*|verkäufer\w*|verkaeufer\w*|geschäft\w*|anbieter\w*"
    ),
    "author": r"authors?|users?|posters?|autor\w*|użytkownik\w*|uzytkownik\w*|nutzer\w*|benutzer\w*",
    "site": r"sites?|domains?|websites?|domen\w*|stron\w*|seiten?|webseiten?",
    "category": r"categor(?:y|ies)|kategori\w*",
}
_GROUP_FIELD = "|".join(f"(?P<{k}>{v})" for k, v in GROUP_FIELDS.items())
_EACH = (
    r"(?:(?:from|of|for|in|by)\s+(?:each|every)|per|"
    r"(?:z|dla|od|w)?\s*(?:każd\w*|kazd\w*)|na\s+(?:każd\w*|kazd\w*)|"
    r"(?:von|für|fuer|aus|bei)?\s*(?:jede[mnrs]?)|pro|je)"
)
#: Which item of each group a superlative picks, and by which field.
_PICKS: list[tuple[str, str, str]] = [
    (
        r"cheapest|lowest[- ]priced|least expensive|najtańsz\w*|najtansz\w*|günstigst\w*|guenstigst\w*|billigst\w*",
        "lowest",
        "price",
    ),
    (r"most expensive|priciest|najdroższ\w*|najdrozsz\w*|teuerst\w*", "highest", "price"),
    (
        r"best[- ]rated|highest[- ]rated|top[- ]rated|najlepiej ocenian\w*|najwyżej ocenian\w*|bestbewertet\w*",
        "highest",
        "rating",
    ),
    (r"most (?:points|upvoted)|top|najwięcej punktów|meisten punkte\w*", "highest", "points"),
    (r"first|pierwsz\w*|erste\w*", "first", ""),
]


def _group(t: Text, facts: list[Fact]) -> None:
    m = t.search(rf"(?<!\w){_EACH}\s+(?:{_GROUP_FIELD})(?!\w)")
    if not m:
        return
    group_by = next(k for k in GROUP_FIELDS if m.group(k))
    value: dict = {"group_by": group_by, "pick": "first"}
    start = m.start()
    # The superlative that says which item of each group: before it ("the cheapest offer from each").
    before = t.text[max(0, m.start() - 60) : m.start()]
    for pattern, pick, field in _PICKS:
        sup = re.search(rf"(?<!\w)(?:the\s+|die\s+|der\s+|das\s+)?(?:{pattern})(?!\w)[^;]*$", before, re.I)
        if sup:
            value["pick"] = pick
            if field:
                value["field"] = field
            start = max(0, m.start() - 60) + sup.start()
            # The superlative picks within each group: no order and no "the one" of the whole list.
            head = re.match(rf"(?:the\s+|die\s+|der\s+|das\s+)?(?:{pattern})", before[sup.start() :], re.I)
            t.mask(start, start + (len(head.group(0)) if head else 0))
            break
    # "one story per author": one of each group, not one story.
    one = re.search(r"(?<!\w)(?:one|a single|jeden|jedna|jedno|ein|eine|einen)\s+(?:\w+\s+)?$", before, re.I)
    if one and value["pick"] == "first":
        start = max(0, m.start() - 60) + one.start()
        t.mask(start, start + len(one.group(0).split()[0]))
    # "the top 3 per category", "die 2 günstigsten je Marke": how many of each group, not of the list.
    many = re.search(r"(?<![\w.,])(\d{1,3})\s+(?:[^\s\d]+\s+){0,3}$", t.text[max(0, start - 30) : m.start()])
    if many and int(many.group(1)) > 0:
        at = max(0, start - 30) + many.start(1)
        value["each"] = int(many.group(1))
        t.mask(at, at + len(many.group(1)))
        start = min(start, at)
    if (
        value["pick"] == "first"
        and "each" not in value
        and not one
        and any(f.kind == "op_aggregate" for f in facts)
    ):
        # "the average price per category", "how many products per brand": a figure for each group,
        # which no step gives (one item of each group, then one figure over them, would answer else).
        why = "a figure for each group: curllm gives one figure over all the items"
        _refuse(facts, t.original[start : m.end()], why, start)
        t.mask(m.start(), m.end())
        return
    facts.append(Fact("op_group", value, start, t.original[start : m.end()]))
    t.mask(m.start(), m.end())


AGGREGATES: dict[str, str] = {
    "count": (
        r"how\s+many|count\s+(?:the|all|of)|(?:the\s+)?(?:total\s+)?number\s+of\s+(?=(?:\w+\s+){0,2}?"
        r"(?:products?|items?|offers?|results?|stories|articles?|posts?|links?|listings?|entries))|"
        r"ile\b(?!\s+(?:kosztuj\w*|płac\w*|plac\w*))|policz\w*|zlicz\w*|ilość\s+(?=\w*\s*(?:produkt|ofert|wynik|artyku|post|link))|"
        r"(?<!ą\s)liczb\w*\s+(?=(?:\w+\s+)?(?:produkt|ofert|wynik|artyku|post|link|wpis))|"
        r"wie\s*viele\b|anzahl\s+(?:der|an)\s+(?=\w*\s*(?:produkt|angebot|ergebnis|artikel|beitr|link))|"
        r"zähle|zaehle"
    ),
    "average": r"averag\w*|mean|avg|on\s+average|średni\w*|sredni\w*|przeciętn\w*|durchschnitt\w*|mittlere\w*",
    "median": r"median\w*",
    "sum": r"sum\s+of|total\s+(?:number\s+of\s+)?(?=price|cost|points|comments|reviews|value)|summe|suma\b|sumę|łączn\w*|lacznie|insgesamt|gesamt\w*",
    # "max comments", "min price": the short word only before a field (never "max 5 products")
    "min": r"minimum|minimal\w*|minimaln\w*|najniższ\w*\s+(?=cen)|mindest\w*|min\.?(?=\s+(?:points|pts|score|upvotes|votes|comments|replies|rating|ratings|reviews|price|prices)\b)",
    "max": r"maximum|maksymaln\w*|maximal\w*|höchstpreis|max\.?(?=\s+(?:points|pts|score|upvotes|votes|comments|replies|rating|ratings|reviews|price|prices)\b)",
}
_AGG_FIELD = {
    "price": r"prices?|cost\w*|pay|cen[aąęyo]\w*|koszt\w*|kosztuj\w*|preis\w*|kost\w*",
    "points": r"points?|pts|score|upvotes?|votes?|punkt\w*|głos\w*|punkte?n?|stimmen|wynik(?:u|iem)?",
    "comments": r"comments?|replies|komentarz\w*|kommentar\w*",
    "rating": r"ratings?|stars?|ocen\w*|bewertung\b|sterne?",
    "reviews": r"reviews?|opini\w*|rezension\w*",
}


#: A number items carry, right after "how many" / "ile" / "wie viele": the question is its value.
_VALUE_COUNTED = (
    r"\s*(?:points?|pts|upvotes?|votes?|comments?|replies|reviews?|stars?|punkt(?:ów|ow|y)?|głos(?:ów|ow)|glosow|"
    r"komentarzy|opinii|gwiazdek|punkte|stimmen|kommentare|bewertungen|rezensionen|sterne)(?!\w)"
)


#: A superlative of a field's value, asked as a value ("what is the highest price?", "the lowest score
#: among these posts", "höchster Preis", "najniższa cena"); not after "with"/"by" (an order: "the
#: story with the most points"), before "first" (a direction) or after a count ("the 3 highest prices").
_VALUE_SUPERLATIVE = {
    "max": r"highest|largest|biggest|greatest|top|najwyższ\w*|najwyzsz\w*|największ\w*|najwieksz\w*|höchste\w*|hoechste\w*|größte\w*|groesste\w*",
    "min": r"lowest|smallest|najniższ\w*|najnizsz\w*|najmniejsz\w*|niedrigste\w*|kleinste\w*|geringste\w*",
}
_VALUE_FIELD = r"(?P<price>prices?|cen[aąy]|preis(?:e|es)?)|(?P<points>score|points|wynik|punktacj\w*|punktzahl)|(?P<rating>rating|ocen[aąy]|bewertung)"
_NOT_A_VALUE_BEFORE = re.compile(
    r"(?:\b(?:with|having|has|have|had|got|gets|by|sorted|order(?:ed)?|mit|hat|haben|nach|z|ze|ma|mają|po|według|"
    r"wedlug|od|von)\s+(?:the\s+|den\s+|der\s+|dem\s+|die\s+)?|\d\s+)$",
    re.I,
)


def _value_superlatives(t: Text) -> list[tuple[int, str, str, str]]:
    found = []
    for op, sup in _VALUE_SUPERLATIVE.items():
        for m in t.finditer(rf"(?<!\w)(?:{sup})\s+(?:{_VALUE_FIELD})(?!\w)"):
            if _NOT_A_VALUE_BEFORE.search(t.text[max(0, m.start() - 30) : m.start()]) or re.match(
                r"\s*(?:first|zuerst|najpierw|on top)\b", t.text[m.end() :], re.I
            ):
                continue
            field = next(k for k in ("price", "points", "rating") if m.group(k))
            found.append((m.start(), op, field, t.original[m.start() : m.end()]))
            t.mask(m.start(), m.end())
    return found


def _aggregates(t: Text, facts: list[Fact]) -> None:
    found: list[tuple[int, str, str | None, str]] = []
    if not t.search(r"(?<!\w)(?:sort\w*|posortuj\w*|sortier\w*)"):
        found += _value_superlatives(t)
    for op, pattern in AGGREGATES.items():
        if any(f[1] == op for f in found):
            continue
        for m in t.finditer(rf"(?<!\w)(?:{pattern})"):
            if op in ("min", "max") and re.match(
                r"\s*(?:price\s+|cena\s+|preis\s+)?(?:of\s+)?\d", t.text[m.end() :]
            ):
                continue  # "maximum 100 zł" is a bound, not a question
            field = None
            end = m.end()
            if op == "count" and re.match(_VALUE_COUNTED, t.text[m.end() :], re.I):
                # "how many points does the top story have", "ile punktów ma najpopularniejszy artykuł":
                # a field's value, which the items read carry (the chosen one's, or each one's), not
                # a count of the items; "how many points in total" is the sum, read as such
                t.mask(m.start(), m.end())
                break
            if op != "count":
                # The field named near it: "average price", "średnia cena", "Durchschnittspreis", "cost on average".
                window = t.text[max(0, m.start() - 40) : m.end() + 40]
                hits = [
                    (abs((max(0, m.start() - 40) + f.start()) - m.start()), name)
                    for name, rx in _AGG_FIELD.items()
                    for f in re.finditer(rf"(?:{rx})", window, re.I)
                ]
                field = min(hits)[1] if hits else "price"
                near = re.match(rf"\s*(?:of\s+(?:the\s+)?)?(?:{_AGG_FIELD[field]})", t.text[m.end() :], re.I)
                if near:
                    end = m.end() + near.end()
            found.append((m.start(), op, field, t.original[m.start() : end]))
            t.mask(m.start(), end)
            break
    if found:
        found.sort()
        facts.append(
            Fact(
                "op_aggregate",
                tuple((op, field) for _, op, field, _ in found),
                found[0][0],
                " / ".join(f[3] for f in found),
            )
        )


# --- output format and refusals -----------------------------------------------------------------------

FORMATS: dict[str, str] = {
    "csv": r"csv|spreadsheet",
    "jsonl": r"jsonl|json\s*lines|ndjson",
    "json": r"json",
    "table": r"(?:table|tabel[iaę]|tabelle)(?=\s*[.!]?\s*$)",
}
_AS = (
    r"(?:as|in|to|into|jako|w|we|do|als|im|in\s+form\s+(?:of|von|eine[rs]?)|w\s+formacie|w\s+postaci|"
    r"im\s+format|format)"
)
#: A file or format word beside the format's name ("CSV file", "plik CSV", "CSV-Datei", "im CSV-Format").
_AS_FILE = r"(?:file|plik|pliku|datei|format|formacie|formatu|export)"
#: Files of the format to link to or download ("CSV files", "pliki CSV", "CSV-Dateien"): no format.
_NOT_FILES = r"(?!s?[\s-]*(?:files|pliki|plików|plikow|dateien|documents)\b)"


def _format(t: Text, facts: list[Fact], kind_is_links: bool) -> None:
    """The output format named: after a word that says "as" in any of the languages ("as CSV",
    "jako CSV", "als CSV-Datei", "im CSV-Format", "w formacie JSON", "jako plik CSV"), after an article
    ("give me a CSV"), or beside a file or format word ("CSV-Format", "formacie CSV"), but never
    files to link to ("links to CSV files", "pliki CSV")."""
    for fmt, pattern in FORMATS.items():
        article = r"|(?:an?|eine?n?|the)\s+" if fmt != "table" else ""
        m = t.search(
            rf"(?<!\w)(?:{_AS}\s+(?:an?\s+|einer?\s+|the\s+)?(?:{_AS_FILE}\s+)?{article})(?:{pattern})"
            rf"(?:[- ]?{_AS_FILE})?(?!\w){_NOT_FILES}"
        )
        if m and kind_is_links and re.match(r"(?i)(?:to|do|zu)\b", m.group(0)):
            m = None  # "links to CSV": the links' target, not the output's format
        if m is None and fmt != "table" and not kind_is_links:
            m = t.search(rf"(?<!\w)(?:(?:{pattern})[- ]?{_AS_FILE}|{_AS_FILE}\s+(?:{pattern}))(?!\w)")
        if m:
            facts.append(Fact("format", fmt, m.start(), _said(t, m)))
            t.mask(m.start(), m.end())
            return


#: Currencies by name or code (EN/PL/DE, singular and plural, PL cases), and the adjectives of a country
#: that come before one ("Swiss francs", "funty brytyjskie", "Schweizer Franken", "US dollars").
_CURRENCY = (
    r"dollars?|usd|euros?|eur|pounds?|gbp|sterling|złot\w*|zlot\w*|pln|dolar\w*|francs?|frank\w*|chf|"
    r"yen|jen\w*|jpy|yuan|cny|renminbi|rupees?|inr|rub(?:el|le)s?|rubl\w*|kron\w*|krona|kronor|kroner|crowns?|"
    r"sek|nok|dkk|czk|forint\w*|huf|hrywn\w*|hryvnias?|uah|pfund|funt\w*|bitcoins?|btc"
)
_CURRENCY_ADJ = (
    r"us|u\.s\.|american|canadian|australian|swiss|british|japanese|chinese|swedish|czech|"
    r"amerykańsk\w*|amerykansk\w*|kanadyjsk\w*|szwajcarsk\w*|brytyjsk\w*|czesk\w*|szwedzk\w*|"
    r"amerikanische\w*|kanadische\w*|australische\w*|schweizer|britische\w*|japanische\w*|tschechische\w*|"
    r"schwedische\w*"
)
#: File formats curllm does not write, said as the output ("as PDF", "jako pdf", "als Word-Datei",
#: "a markdown table"); never files to link to ("links to PDF files", "linki do pdf").
_OTHER_FORMAT = (
    r"pdf|markdown|docx?|word(?=[- ]?(?:file|document|doc|plik|dokument|datei))|xml|html|odt|ods|txt"
)
_SAVE_AS = (
    r"(?:as|jako|als|w\s+formacie|im\s+format|in\s+(?:form\s+(?:of|von)\s+)?|(?:save|export|write|convert)\w*\s+"
    r"(?:\w+\s+){0,3}?(?:to|into|in)|(?:zapisz|wyeksportuj|eksportuj|zamień|zamien)\w*\s+(?:\w+\s+){0,3}?(?:do|w|na)|"
    r"(?:speicher|exportier)\w*\s+(?:\w+\s+){0,3}?(?:in|als))"
)

#: What curllm will not do, said by name: (pattern, what was asked, why not).
REFUSALS: list[tuple[str, str]] = [
    (
        rf"(?:(?:convert\w*|przelicz\w*|umrechn\w*|rechne)\s+(?:\w+\s+){{0,3}}?)?"
        rf"(?:prices?\s+|cen\w*\s+|preise\s+)?(?:in|to|into|w|na|do|auf)\s+(?:(?:{_CURRENCY_ADJ})\s+)?(?:{_CURRENCY})(?:\s+(?:{_CURRENCY_ADJ}))?"
        r"(?:\s+(?:umrechnen|umgerechnet|przelicz\w*|um(?=\s*(?:$|[,.;!?]))))?"
        r"(?=\s*(?:$|[,.;!?]|please|bitte|proszę|prosze))|convert\w*|przelicz\w*|umrechn\w*|rechne\s+\w+\s+um",
        "converting prices to another currency needs exchange rates, which curllm does not have",
    ),
    (
        r"(?:the\s+)?next\s+page(?!s)|(?:the\s+)?(?:second|third|fourth|fifth|last|previous)\s+page(?!s)|"
        r"page\s+(?:no\.?\s*|number\s+)?(?:[2-9]|\d{2,})(?!\s*(?:-|–|to)\s*\d)|"
        r"(?:następn|nastepn|kolejn|drug|trzeci|ostatni|poprzedni)\w*\s+stron(?:a|ie|ę|e|y)(?!\w)|"
        r"stron(?:a|ie|ę|y)\s+(?:nr\.?\s*)?(?:[2-9]|\d{2,})(?!\s*(?:-|–|do)\s*\d)|"
        r"(?:nächste|naechste|zweite|dritte|letzte|vorherige)\w*\s+seite(?!n)|seite\s+(?:[2-9]|\d{2,})(?!\s*(?:-|–|bis)\s*\d)",
        "a page of the listing other than the one opened: open that page's address with --url",
    ),
    (
        r"(?:(?:published|posted|added|released|uploaded|from|of|since)\s+)(?:today|yesterday|this\s+(?:week|month|year)|"
        r"last\s+(?:week|month|year|\d+\s+(?:days|hours|weeks))|the\s+last\s+\d+\s+(?:days|hours|weeks))|"
        r"(?:in\s+the\s+)?(?:last|past)\s+\d+\s+(?:days|hours|weeks)|"
        r"(?:(?:opublikowan\w*|dodan\w*|z)\s+)(?:dzisiaj|dziś|dzis|wczoraj|(?:tego|ostatniego|bieżącego)\s+(?:tygodnia|miesiąca|roku))|"
        r"(?:opublikowan\w*|dodan\w*)\s+(?:w\s+)?(?:tym|ostatnim)\s+(?:tygodniu|miesiącu|roku)|"
        r"(?:von|seit)\s+(?:heute|gestern)|(?:heute|gestern|diese\s+woche|letzte\s+woche)\s+(?:veröffentlicht|gepostet|erschienen|hinzugefügt)\w*|"
        r"(?:veröffentlicht|gepostet|erschienen)\w*\s+(?:heute|gestern|diese\s+woche|letzte\s+woche)",
        "keeping only the items of a time span: curllm reads the dates the page shows, it does not filter by them",
    ),
    (
        r"(?:the\s+)?(?:last|final|ostatni\w*|letzte\w*)\s+(?:\d+|two|three|four|five|ten|dwa|dwie|trzy|cztery|"
        r"pięć|dziesięć|zwei|drei|vier|fünf|zehn)(?!\s*(?:days?|hours?|weeks?|months?|years?|dni|godzin\w*|"
        r"tygodni\w*|miesięcy|lat|tage\w*|stunden|wochen|monate\w*|jahre\w*)\b)|"
        r"(?:except|apart\s+from|other\s+than|oprócz|oprocz|z\s+wyjątkiem|z\s+wyjatkiem|poza|außer|ausser|bis\s+auf)\s+"
        r"(?:the\s+|den\s+|dem\s+|die\s+|des\s+)?(?:first|last|pierwsz\w*|ostatni\w*|erste\w*|letzte\w*)"
        r"(?:\s+(?:\d+|one|two|three|dwa|trzy|zwei|drei))?(?:\s+(?:one|ones|items?|products?|results?|produkt\w*|wynik\w*))?",
        "items or pages by their place from the end, or all but some: curllm counts from the first (ask for the first N)",
    ),
    (
        r"(?:(?:the|die|der|das)\s+)?(?:[^\W\d_]+\s+)?\d+(?:[.,]\d+)?\s*(?:%|percent|procent\w*|prozent)\s+(?:(?:of|z|ze|der|von)\s+)?"
        r"(?:the\s+|all\s+|wszystkich\s+|aller\s+)?"
        r"(?:products?|items?|offers?|results?|stories|articles?|posts?|links?|produkt\w*|ofert\w*|wynik\w*|artyku\w*|"
        r"angebot\w*|ergebnis\w*|artikel\w*|beitr\w*)",
        "a share of the items: curllm counts items, never a percentage of them",
    ),
    (
        r"install\w*|instaluj\w*|zainstaluj\w*|download\s+and\s+run|pobierz\s+i\s+uruchom",
        "installing software is not something curllm does",
    ),
    (
        r"(?:xlsx|xls|excel)(?:[- ]?(?:file|sheet|spreadsheet|datei|tabelle))?|(?:arkusz\w*|plik\w*)\s+(?:excel|xlsx|xls)",
        "curllm does not write Excel files; --format csv writes CSV, which Excel opens",
    ),
    (
        rf"(?:{_SAVE_AS})\s+(?:an?\s+|eine[mnr]?\s+|the\s+)?(?:(?:file|plik\w*|datei|dokument\w*|document)\s+)?(?:{_OTHER_FORMAT})"
        r"(?:[- ]?(?:file|plik\w*|datei|dokument\w*|document|format\w*|table|tabel\w*|tabelle))?(?!\w)(?!s?[\s-]*(?:files|pliki|dateien|links?)\b)"
        r"|markdown(?:[- ]?(?:table|tabel\w*|tabelle|file|plik\w*|datei|format\w*))?",
        "curllm does not write this format; it writes JSON, JSONL, CSV and tables (--format)",
    ),
    (
        r"looks?\s+(?:the\s+)?(?:best|nicest|prettiest|good|better)|(?:the\s+)?(?:nicest|prettiest|most\s+beautiful|best[- ]looking|coolest)|"
        r"should\s+i\s+(?:buy|choose|pick|get)|worth\s+(?:it|buying)|(?:najładniejsz|najladniejsz|najpiękniejsz|najpiekniejsz)\w*|"
        r"tastes?\s+(?:the\s+)?best|tastiest|smakuje\s+najlepiej|najsmaczniejsz\w*|schmeckt\s+(?:\w+\s+)?am\s+besten|"
        r"(?:the\s+)?most\s+(?:interesting|exciting|important|useful|fun|boring)|(?:is|are|'s)\s+(?:the\s+)?best(?!\s*[- ]?(?:rated|selling|seller))(?:\s+for\s+\w+)?|"
        r"best\s+for\s+(?:a\s+|an\s+|me|my|us|beginners?|kids|children)|najciekawsz\w*|najważniejsz\w*|najwazniejsz\w*|"
        r"(?:jest|są|sa)\s+najlepsz\w*(?:\s+dla\s+\w+)?|najlepsz\w*\s+dla\s+\w+|interessanteste\w*|am\s+interessantesten|spannendste\w*|"
        r"(?:ist|sind)\s+(?:das\s+|der\s+|die\s+)?beste\w*(?:\s+für\s+\w+)?|beste\w*\s+für\s+\w+|"
        r"am\s+leckersten|leckerste\w*|wygląda\w*\s+najlepiej|warto\s+kupić|(?:am\s+)?schönste\w*|schoenste\w*|sieht\s+\w*\s*am\s+besten\s+aus|lohnt\s+sich",
        "'{}' is a judgement, not data on the page",
    ),
]


def _refusals(t: Text, facts: list[Fact]) -> None:
    found: list[tuple[int, str, str]] = []
    for pattern, why in REFUSALS:
        m = t.search(rf"(?<!\w)(?:{pattern})(?!\w)")
        if m and not negated(t, m.start()):
            said = t.original[m.start() : m.end()].strip()
            found.append((m.start(), said, why.format(said)))
            t.mask(m.start(), m.end())
    if found:
        found.sort()
        facts.append(Fact("refused", tuple((said, why) for _, said, why in found), found[0][0], found[0][1]))


def _refuse(facts: list[Fact], said: str, why: str, start: int) -> None:
    """Add what was asked (``said``) and why it is not done to the instruction's refusals."""
    refused = next((f for f in facts if f.kind == "refused"), None)
    entries = (*(refused.value if refused is not None else ()), (said, why))
    facts[:] = [f for f in facts if f is not refused]
    at = min(start, refused.start) if refused is not None else start
    facts.append(Fact("refused", entries, at, refused.text if refused is not None else said))


def read_operations(t: Text, facts: list[Fact], quoted: list[tuple[int, int, str]]) -> None:
    """Every operation on items the instruction states (see the module's docstring). A quoted
    string an operation takes ("mentions 'rust'") is taken out of ``quoted``."""
    kind_is_links = bool(
        t.search(r"(?<!\w)(?:links?|urls?|hrefs?|linki|linków|linkow|odnośnik\w*|odnosnik\w*)(?!\w)")
    ) and not t.search(
        r"(?<!\w)(?:articles?|stories|posts?|comments?|beiträge|artykuł\w*|wpis\w*|komentarz\w*)(?!\w)"
    )
    _format(t, facts, kind_is_links)
    _refusals(t, facts)
    _aggregates(t, facts)
    _numbers(t, facts)
    _flags(t, facts)
    _distinct(t, facts)
    _group(t, facts)
    _text(t, facts, kind_is_links, quoted)
