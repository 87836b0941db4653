"""Facts from an instruction: price bounds, counts, pages, search terms, dates and the like (PL/EN/DE).

`extract_facts` reads an instruction once and returns `Facts`: typed values, each with where it was
found and the words it came from (for the planner's reasoning). It knows nothing about tools; the
rule planner maps facts onto the parameters a manifest actually declares.

The order of the passes matters: quoted strings, dates, scores, pages, scrolls and counts are found
first and *masked* (blanked, keeping offsets), so that the price pass that runs after them cannot
read "3 pages", "1 May 2024" or "more than 100 points" as a price.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..item_fields import WORDS as FIELD_WORDS

# --- vocabulary --------------------------------------------------------------------------------

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twenty": 20,
    "jeden": 1,
    "jedna": 1,
    "dwa": 2,
    "dwie": 2,
    "trzy": 3,
    "cztery": 4,
    "pięć": 5,
    "piec": 5,
    "sześć": 6,
    "siedem": 7,
    "osiem": 8,
    "dziewięć": 9,
    "dziesięć": 10,
    "dwadzieścia": 20,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "zwanzig": 20,
}
# A count: digits or a number word ("five times", "trzy strony", "drei Seiten").
_N = r"(\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"

# A price amount: "150", "1 000", "1,000.50", "150,50", "2k".
_AMOUNT = r"(\d{1,3}(?:[ \u00a0.,]\d{3}){1,5}(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?)(\s?[kK]\b)?"
_CUR = (
    r"(?:zł|zl\b|pln\b|złotych|złote|złoty|zlotych|usd\b|us\$|dollars?\b|dolar(?:ów|ow|y|a)?\b|bucks\b|"
    r"eur\b|euros?\b|€|\$|£|gbp\b|pounds?\b|chf\b|czk\b|kč)"
)

_MONTHS: dict[str, int] = {}
for _num, _names in enumerate(
    (
        "january jan styczeń styczen stycznia januar jänner",
        "february feb luty lutego februar",
        "march mar marzec marca märz maerz",
        "april apr kwiecień kwiecien kwietnia",
        "may maj maja mai",
        "june jun czerwiec czerwca juni",
        "july jul lipiec lipca juli",
        "august aug sierpień sierpien sierpnia",
        "september sep sept wrzesień wrzesien września wrzesnia",
        "october oct październik pazdziernik października pazdziernika oktober okt",
        "november nov listopad listopada",
        "december dec grudzień grudzien grudnia dezember dez",
    ),
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _num
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"

# Words after a number that make it something other than a price.
_NOT_PRICE_UNIT = (
    r"(?:points?|pts|punkt\w*|upvotes?|votes?|głos\w*|stimm\w*|comments?|komentarz\w*|kommentar\w*|"
    r"pages?|stron\w*|seiten?|times|razy|mal\b|items?|products?|produkt\w*|results?|wynik\w*|ergebnis\w*|"
    r"stories|story|articles?|artykuł\w*|artikel|posts?|links?|linki\w*|stars?|gwiazd\w*|stern\w*|%|percent|"
    r"procent\w*|prozent|reviews?|opini\w*|bewertung\w*|ms\b|seconds?|sekund\w*|minutes?|minut\w*|days?|dni|"
    r"tage?n?|hours?|godzin\w*|stunden?|gb\b|tb\b|mb\b|mah\b|kg\b|cm\b|mm\b|inch\w*|cali|zoll|years?|lat\b|"
    r"jahre?n?|rows?|wiersz\w*|zeilen?|tables?|tabel\w*|offers?|ofert\w*|angebot\w*|"
    + _MONTH[1:-4]
    + r")(?!\w)"
)
_ITEM_NOUN = (
    r"(?:products?|items?|results?|stories|story|storys|articles?|posts?|links?|offers?|deals?|rows?|"
    r"entries|tables?|produkt\w*|wynik\w*|ofert\w*|artykuł\w*|wpis\w*|link\w*|pozycj\w*|"
    r"ergebnis\w*|artikel|angebot\w*|beiträge|beitrag|einträge|eintrag|nachrichten|meldungen)"
)

# Words that join two numbers ("100 and 200", "10 bis 20"): the first number is no count.
_JOIN_WORD = r"(?:and|und|oraz|lub|oder|bis|to|do|or|i|a)\b"

_CHEAP = r"(?:cheapest|lowest[- ]priced|least expensive|najtańsz\w*|najtansz\w*|günstigst\w*|billigst\w*|preiswertest\w*)"
_DEAR = r"(?:most expensive|priciest|highest[- ]priced|najdroższ\w*|najdrozsz\w*|teuerst\w*)"
_NEW = r"(?:newest|latest|most recent|najnowsz\w*|najświeższ\w*|najswiezsz\w*|neueste\w*|aktuellste\w*|jüngste\w*)"
_BEST = (
    r"(?:best[- ]rated|top[- ]rated|highest[- ]rated|najlepiej ocenian\w*|najwyżej ocenian\w*|najwyzej ocenian\w*|"
    r"bestbewertet\w*|am besten bewertet\w*)"
)

# Where a free-text value (a search term, a click target) ends.
_STOP = (
    r"(?:and|then|on|in|at|under|below|over|above|with|sorted|sort|from|for|that|which|cheaper|less|"
    r"more|between|priced|costing|limit|top|first|only|i|oraz|a|na|w|we|z|ze|poniżej|ponizej|powyżej|"
    r"do|od|taniej|tańsze|droższe|posortuj|sortuj|tylko|pierwsze|które|kosztujące|za|po|und|dann|auf|"
    r"im|unter|über|bis|ab|mit|von|zwischen|sortiert|sortiere|nur|für|günstiger|billiger|max|maximal|"
    r"and then|, then|products|produkty|produktów|produkte|items|offers|oferty|angebote)"
)
_VALUE_END = r"(?=\s+" + _STOP + r"\b|\s*[,;:!?]|\.(?:\s|$)|$)"

_QUOTES = [('"', '"'), ("'", "'"), ("„", "”"), ("„", "“"), ("“", "”"), ("«", "»"), ("‘", "’"), ("`", "`")]

# Item fields by the words that name them (one vocabulary with the tools: curllm_core.item_fields).
_FIELD = "|".join(f"(?P<{name}>{rx})" for name, rx in FIELD_WORDS.items())
_FIELD_ANY = "|".join(FIELD_WORDS.values())
# "titles with links", "tytuły z linkami", "Titel mit Link": a field after a field continues the list.
_FIELD_JOIN = (
    r"(?:\s*(?:,|&|\band\b|\bi\b|\boraz\b|\bund\b|\bor\b|\bplus\b|\bwith\b|\bz\b|\bze\b|\bmit\b)\s*|\s+)"
)
_FIELD_FILL = (
    r"(?:(?:a|an|the|ein|eine|einen|einem|own|its|their|their own|swoją|swoja|die|den|der|ihre?n?)\s+)?"
    # "the number of points", "liczba punktów", "die Anzahl der Kommentare": the count is the field
    r"(?:(?:(?:the\s+)?(?:number|count|amount)\s+of|liczb[aęy]|ilość|ilosc|anzahl(?:\s+(?:der|an))?)\s+)?"
)

_FILE_TYPES = (
    "pdf",
    "docx",
    "doc",
    "xlsx",
    "xls",
    "csv",
    "zip",
    "pptx",
    "ppt",
    "txt",
    "jpeg",
    "jpg",
    "png",
    "gif",
    "svg",
    "mp3",
    "mp4",
    "json",
    "xml",
    "epub",
    "odt",
    "ods",
    "rtf",
)

_RE_CACHE: dict[str, re.Pattern] = {}


def _rx(pattern: str) -> re.Pattern:
    """Compiled once: the patterns are built from the vocabulary above at first use."""
    compiled = _RE_CACHE.get(pattern)
    if compiled is None:
        compiled = _RE_CACHE[pattern] = re.compile(pattern, re.I)
    return compiled


# --- facts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One thing the instruction says: ``kind`` (e.g. ``price_max``), its ``value``, and where."""

    kind: str
    value: Any
    start: int
    text: str

    def why(self) -> str:
        """The words the value came from, quoted for a reasoning line."""
        return f"{self.kind}={self.value!r} from {self.text.strip()!r}"


class Facts:
    """The facts of one instruction; at most one fact per kind (the first one found wins)."""

    def __init__(self, instruction: str, facts: list[Fact], lang: str):
        self.instruction = instruction
        self.lang = lang
        self._by_kind: dict[str, Fact] = {}
        for fact in facts:
            self._by_kind.setdefault(fact.kind, fact)

    def get(self, kind: str, default: Any = None) -> Any:
        fact = self._by_kind.get(kind)
        return default if fact is None else fact.value

    def fact(self, kind: str) -> Fact | None:
        return self._by_kind.get(kind)

    def __contains__(self, kind: str) -> bool:
        return kind in self._by_kind

    def __iter__(self):
        return iter(sorted(self._by_kind.values(), key=lambda f: (f.start, f.kind)))

    def kinds(self) -> set[str]:
        return set(self._by_kind)

    def as_dict(self) -> dict[str, Any]:
        """``{kind: value}``, for tests and debugging."""
        return {f.kind: f.value for f in self}


class _Text:
    """The instruction with spans that earlier passes used up masked out (offsets unchanged)."""

    def __init__(self, text: str):
        self.original = text
        self.text = text

    def mask(self, start: int, end: int) -> None:
        # A separator, not spaces: a used-up phrase ends the values around it, and masking never
        # makes long runs of white space (which passes allowing "\s*" would scan again and again).
        self.text = self.text[:start] + ";" * (end - start) + self.text[end:]

    def finditer(self, pattern: str):
        return _rx(pattern).finditer(self.text)

    def search(self, pattern: str, pos: int = 0):
        return _rx(pattern).search(self.text, pos)


def to_int(word: str) -> int:
    """``"5"`` or a number word (``"five"``, ``"pięć"``, ``"fünf"``) as an int."""
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def parse_amount(digits: str, suffix: str | None = None) -> int | float:
    """``"1 000"`` -> 1000, ``"1,000.50"`` -> 1000.5, ``"150,50"`` -> 150.5, ``"2"`` + ``k`` -> 2000."""
    s = digits.replace("\u00a0", " ").strip()
    seps = [c for c in s if c in " .,"]
    if not seps:
        value = float(s)
    else:
        last = max(s.rfind("."), s.rfind(","), s.rfind(" "))
        tail = s[last + 1 :]
        # The last separator is a decimal point unless it is followed by exactly three digits
        # (a thousands group: "1.000", "1 000") or it is a space.
        if s[last] == " " or (len(tail) == 3 and (len(set(seps)) == 1)):
            value = float(re.sub(r"[ .,]", "", s))
        else:
            value = float(re.sub(r"[ .,]", "", s[:last]) + "." + tail)
    if suffix and suffix.strip().lower() == "k":
        value *= 1000
    return int(value) if value == int(value) else round(value, 2)


def detect_lang(text: str) -> str:
    """``pl``, ``de`` or ``en``: a cheap guess from letters and function words."""
    low = text.lower()
    if re.search(r"[ąćęłńśźż]", low) or re.search(
        r"\b(znajdź|znajdz|pokaż|pokaz|produkty|produktów|na|oraz|poniżej|ponizej|wszystkie|stron|które)\b",
        low,
    ):
        return "pl"
    if re.search(r"[äöüß]", low) or re.search(
        r"\b(und|mit|auf|unter|nach|finde|zeige|alle|seiten|die|der|das|günstig|bis)\b", low
    ):
        return "de"
    return "en"


def extract_facts(instruction: str, *, today: date | None = None) -> Facts:
    """Every fact the instruction states. Deterministic; ``today`` only fills a year left out of a date.

    White space is folded first (runs of it are one space): every pass then reads in linear time,
    whatever the text (a pass that allows spaces between words would otherwise retry each run).
    """
    instruction = " ".join(instruction.split())
    t = _Text(instruction)
    lang = detect_lang(instruction)
    facts: list[Fact] = []
    quoted = _quoted(t)
    _dates(t, facts, lang, today or date.today())
    _scores(t, facts)
    _pages(t, facts)
    _scrolls(t, facts)
    _rows(t, facts)
    _table_choice(t, facts)
    _counts(t, facts)
    _result_count(t, facts)
    _comments_wanted(t, facts)
    _order(t, facts)
    _singular_superlative(t, facts)
    _quoted_roles(t, quoted, facts)
    _dropdown(t, facts)
    _click(t, facts)
    _category(t, facts)
    _links(t, facts)
    _fields(t, facts)
    _select(t, facts)
    _search(t, facts)
    _prices(t, facts)
    _strict(t, facts)
    _actions(t, facts)
    return Facts(instruction, facts, lang)


# --- passes ------------------------------------------------------------------------------------


def _quoted(t: _Text) -> list[tuple[int, int, str]]:
    """Quoted strings (several quote styles), masked so that no later pass reads inside them."""
    found: list[tuple[int, int, str]] = []
    for open_q, close_q in _QUOTES:
        # A quote opens after a non-word character and closes before one, so "don't" is not a quote.
        pattern = rf"(?<!\w){re.escape(open_q)}([^{re.escape(open_q + close_q)}\n]{{1,80}}?){re.escape(close_q)}(?!\w)"
        for m in t.finditer(pattern):
            value = m.group(1).strip()
            if value:
                found.append((m.start(), m.end(), value))
                t.mask(m.start(), m.end())
    return sorted(found)


def _ymd(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _dates(t: _Text, facts: list[Fact], lang: str, today: date) -> None:
    """ISO dates, day-month-year with month names (PL/EN/DE), numeric dates; then from/to roles."""
    found: list[tuple[int, int, str, int | None, int, int]] = []  # start, end, text, year, month, day
    year: int | None

    for m in t.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"):
        found.append((m.start(), m.end(), m.group(0), int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in t.finditer(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b"):
        a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        # Dots are day-first everywhere we care about; slashes are month-first in English unless impossible.
        day, month = (a, b) if ("." in m.group(0) or lang != "en" or a > 12) else (b, a)
        found.append((m.start(), m.end(), m.group(0), year, month, day))
    for m in t.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(\d{4}))?\b"):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.end(), m.group(0), year, _MONTHS[m.group(2).lower()], int(m.group(1))))
    for m in t.finditer(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b"):
        if any(s <= m.start() < e for s, e, *_ in found):
            continue
        # "May 1" is a date only with a year or a date word before it ("you may 5 ..." is not).
        cue = re.search(
            r"(from|to|on|since|until|till|between|and|od|do|vom|bis|am|seit)\s*$",
            t.original[max(0, m.start() - 10) : m.start()],
            re.I,
        )
        if not (m.group(3) or cue):
            continue
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.end(), m.group(0), year, _MONTHS[m.group(1).lower()], int(m.group(2))))
    found.sort()
    # Overlapping matches: keep the first (longest-first is implied by the order of the patterns).
    dates: list[tuple[int, int, str, str]] = []
    last_end = -1
    years: list[int] = [y for *_, y, _, _ in found if y]
    for start, end, text, year, month, day in found:
        if start < last_end:
            continue
        iso = _ymd(year or (years[-1] if years else today.year), month, day)
        if iso:
            dates.append((start, end, text, iso))
            last_end = end
    if not dates:
        return
    for start, end, *_ in dates:
        t.mask(start, end)
    roles: dict[str, tuple[int, str, str]] = {}
    for start, _end, text, iso in dates:
        before = t.original[max(0, start - 14) : start].lower()
        if re.search(r"(from|since|after|starting|od|vom|von|seit|ab|between|zwischen|między)\s*$", before):
            roles.setdefault("date_from", (start, iso, text))
        elif re.search(r"(to|until|till|through|before|by|do|bis|and|und|i|-|–)\s*$", before):
            roles.setdefault("date_to", (start, iso, text))
        elif "date_from" not in roles:
            roles["date_from"] = (start, iso, text)
        else:
            roles.setdefault("date_to", (start, iso, text))
    if "date_from" in roles and "date_to" not in roles and len(dates) == 1:
        before = t.original[max(0, dates[0][0] - 14) : dates[0][0]].lower()
        if not re.search(r"(from|since|after|starting|od|vom|von|seit|ab)\s*$", before):
            roles["date_to"] = roles["date_from"]  # "on 2024-05-01": a one-day range
    for kind, (start, iso, text) in roles.items():
        facts.append(Fact(kind, iso, start, text))


# "more than 100 points" means at least 101: thresholds on counts are integers.
_STRICT_CMP = (
    r"(?:more than|over|above|greater than|>|powyżej|powyzej|ponad|więcej niż|wiecej niz|mehr als|über|"
    r"ueber)"
)
_INCL_CMP = r"(?:at least|min(?:imum)?\.?|>=|≥|with|co najmniej|minimum|mindestens|mind\.|ab|z|mit)"


def _threshold(cmp: str, value: str) -> int:
    return int(value) + (1 if re.fullmatch(_STRICT_CMP, cmp.strip(), re.I) else 0)


def _scores(t: _Text, facts: list[Fact]) -> None:
    """Thresholds: "more than 100 points" (101), "powyżej 50 punktów", "z wynikiem co najmniej 500", "10 rows"."""
    cmp = rf"({_STRICT_CMP}|{_INCL_CMP})"
    units = {
        "min_points": r"(?:points?|pts|upvotes?|votes?|score|karma|punkt\w*|głos\w*|glos\w*|stimm\w*)",
        "min_comments": r"(?:comments?|komentarz\w*|kommentar\w*)",
        "min_rows": r"(?:rows?|wiersz\w*|zeilen?)",
    }
    for kind, unit in units.items():
        for m in t.finditer(rf"(?<!\w){cmp}\s*(\d+)\+?\s*{unit}\b"):
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


def _pages(t: _Text, facts: list[Fact]) -> None:
    """How many result pages: "3 pages", "z 4 stron", "first 2 pages", "pages 1-3", "alle Seiten"."""
    for m in t.finditer(
        r"\bpages?\s+1\s*(?:-|–|to|do|bis)\s*(\d+)\b|\b(?:strony|stron)\s+1\s*(?:-|–|do)\s*(\d+)\b"
    ):
        facts.append(Fact("pages", int(m.group(1) or m.group(2)), m.start(), m.group(0)))
        t.mask(m.start(), m.end())
    for m in t.finditer(
        rf"\b{_N}\s+(?:(?:first|next|result|kolejn\w*|następn\w*|pierwsz\w*|ersten?|nächsten?)\s+)?"
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


def _scrolls(t: _Text, facts: list[Fact]) -> None:
    """Scroll amounts: "scroll down 5 times", "przewiń 3 razy", "5 mal scrollen", and a wait in ms."""
    verbs = r"(?:scroll\w*|przewi\w*|przewij\w*|scrolle\w*|blätter\w*)"
    pats = [
        rf"\b{verbs}(?:\s+(?:down|up|w dół|w dol|nach unten|the page|stronę|strone|die seite))*\s+{_N}\s*(?:times|x|razy|mal)\b",
        rf"\b{_N}\s*(?:times|x|razy|-?mal)\s+{verbs}",
        rf"\b{verbs}\b[^.,;]{{0,30}}?\b{_N}\s*(?:times|x|razy|mal)\b",
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


def _rows(t: _Text, facts: list[Fact]) -> None:
    """How many rows of a table: "the first 10 rows", "pierwsze 5 wierszy", "die ersten 3 Zeilen",
    "only 20 rows" (``max_rows``; a count of tables is another thing: "the first 2 tables")."""
    m = t.search(
        rf"\b(?:(?:top|first|pierwsz\w*|ersten?|only|just|tylko|nur|show|pokaż|pokaz|zeige?)\s+)?{_N}\s+"
        r"(?:(?:first|pierwsz\w*|ersten?)\s+)?(?:rows|row|wiersz\w*|zeilen?)\b"
    )
    if m:
        value = to_int(m.group(1))
        if 0 < value <= 100000:
            facts.append(Fact("max_rows", value, m.start(), m.group(0)))
            t.mask(m.start(), m.end())


def _counts(t: _Text, facts: list[Fact]) -> None:
    """How many items: "top 10", "first 5", "10 najtańszych", "die ersten 5", "20 products", "show 20"."""
    pats = [
        rf"\b(?:top|first|pierwsz\w*|ersten?|erste[nrs]?|limit(?:ed)?(?: to)?|only|just|tylko|nur)\s+{_N}\b",
        rf"\b{_N}\s+(?:pierwsz\w*|first|ersten?|top)\b",
        rf"\b(?:po\s+|je\s+)?{_N}\s+(?:{_ITEM_NOUN}\s+)?(?:per page|from each(?: page)?|on each page|z każdej|z kazdej|"
        r"na stronę|na strone|pro seite|je seite|von jeder seite)",
        rf"\b{_N}\s+(?:{_CHEAP}|{_DEAR}|{_NEW}|{_BEST}|best|najlepsz\w*|beste\w*|popular\w*|najpopularniejsz\w*)",
        # "the cheapest 5", "najtańsze 3 gitary", "die günstigsten 5 Grafikkarten"
        rf"\b(?:{_CHEAP}|{_DEAR}|{_NEW}|{_BEST}|najpopularniejsz\w*|beliebteste\w*)\s+{_N}\b(?!\s*(?:{_CUR}|%))",
        rf"\b(?:up to|at most|max(?:imum)?\.?|no more than|maks(?:ymalnie)?\.?|najwyżej|bis zu|höchstens|maximal)\s+{_N}\s+{_ITEM_NOUN}\b",
        rf"\b{_N}(?!\s*{_CUR})\s+(?:\w+\s+){{0,2}}{_ITEM_NOUN}\b",
        rf"\b(?:show|get|give me|list|return|fetch|pokaż|pokaz|daj|podaj|zeige?|gib)\s+(?:me\s+|mir\s+|mi\s+)?{_N}\b(?!\s*{_CUR})",
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
            value = to_int(word) if word[0].isdigit() or word in _NUMBER_WORDS else 1
            if 0 < value <= 10000:
                facts.append(Fact("limit", value, m.start(), m.group(0)))
                # Keep "cheapest" readable for the sort pass; only the number is used up.
                t.mask(m.start(1), m.end(1))
                return
    # A number that opens the request and names how many of something the page lists: "two graphics
    # cards please", "3 gitary", "die 5 Grafikkarten", "show me 4 Mainboards" (the noun is the page's
    # goods, not a unit, a currency or a word that joins a range: "100 and 200 zł" is a price).
    m = t.search(
        rf"(?:^|\b(?:the|die|der|das|den|me|mir|mi)\s+){_N}\s+(?!{_NOT_PRICE_UNIT}|{_CUR}|{_JOIN_WORD})"
        r"[^\W\d_]{3,}"
    )
    if m and not re.fullmatch(r"(?:19|20)\d\d", m.group(1)):
        value = to_int(m.group(1))
        if 0 < value <= 1000:
            facts.append(Fact("limit", value, m.start(1), m.group(0)))
            t.mask(m.start(1), m.end(1))


_OLD = r"(?:oldest|earliest|least recent|najstarsz\w*|älteste\w*|aelteste\w*)"
_UP = r"(?:most|highest|greatest|largest|biggest|najwięcej|najwiecej|najwyższ\w*|najwyzsz\w*|największ\w*|najwieksz\w*|meisten|meiste|höchste\w*|hoechste\w*|größte\w*|grösste\w*)"
_DOWN = r"(?:fewest|least|lowest|smallest|najmniej|najniższ\w*|najnizsz\w*|najmniejsz\w*|wenigsten|wenigste|niedrigste\w*|geringste\w*|kleinste\w*)"
# Fields things are ranked by, named in a superlative ("the most points") or after "sorted by".
_RANKED = ("price", "points", "comments", "rating", "reviews", "date", "name", "title", "rank")
_RANK_FIELD = "|".join(f"(?P<{f}>{FIELD_WORDS[f]})" for f in _RANKED)
_NUMBER_OF = r"(?:(?:the\s+)?(?:number|amount|count)\s+of\s+|liczb\w*\s+|ilości\s+|ilosci\s+|anzahl\s+(?:an\s+|der\s+)?)?"
_SORT_VERB = (
    r"(?:sort(?:ed|ing)?|order(?:ed)?|rank(?:ed)?|arrange[ds]?|posortuj\w*|posortowan\w*|sortuj\w*|"
    r"sortowan\w*|uporządkuj\w*|uporzadkuj\w*|uporządkowan\w*|sortier\w*|geordnet|ordne\w*)"
)
_ASC = (
    r"(?:ascending|\basc\b|(?:from\s+)?low(?:est)?\s+to\s+high(?:est)?|smallest\s+first|lowest\s+first|cheapest\s+first|"
    r"oldest\s+first|\ba\s*(?:-|to)\s*z\b|rosnąco|rosnaco|od\s+najniższ\w*|od\s+najnizsz\w*|"
    r"od\s+najmniejsz\w*|aufsteigend\w*|(?:von\s+)?niedrig\s+nach\s+hoch|(?:niedrigst|kleinst|günstigst|billigst|ältest)\w*\s+zuerst)"
)
_DESC = (
    r"(?:descending|\bdesc\b|high(?:est)?\s+to\s+low(?:est)?|largest\s+first|highest\s+first|biggest\s+first|"
    r"most\s+first|newest\s+first|latest\s+first|\bz\s*(?:-|to)\s*a\b|malejąco|malejaco|od\s+najwyższ\w*|"
    r"od\s+najwyzsz\w*|od\s+największ\w*|od\s+najwieksz\w*|absteigend\w*|(?:von\s+)?hoch\s+nach\s+niedrig|(?:höchst|größt|grösst|meist)\w*\s+zuerst)"
)
# Superlatives that name a field and an order by themselves.
_SUPERLATIVES: tuple[tuple[str, str, str], ...] = (
    ("price", "asc", _CHEAP),
    ("price", "desc", _DEAR),
    ("rating", "desc", _BEST),
    ("date", "desc", _NEW),
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
        r"meistkommentiert\w*|meistdiskutiert\w*|am meisten (?:kommentiert|diskutiert)\w*)",
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


def _order(t: _Text, facts: list[Fact]) -> None:
    """The order asked for: ``sort_by`` (a field), ``sort_order`` (asc/desc), and ``sort`` for dropdowns.

    "sorted by points", "posortowane po cenie malejąco", "nach Preis absteigend sortiert", and the
    superlatives "the 5 cheapest", "najnowsze", "die meisten Kommentare", "od najdroższego".
    The field an explicit "sorted by" names wins over a superlative's; the order a direction word
    says ("descending", "absteigend", "od najwyższej") wins over the superlative's own; without
    either, the field's usual order (``item_fields.SORT_DEFAULT_ORDER``).
    """
    from ..item_fields import SORT_DEFAULT_ORDER

    explicit = t.search(
        rf"\b(?:{_SORT_VERB}\s+(?:[^\W\d_]{{1,30}}\s+){{0,2}}|(?:{_ASC}|{_DESC})\s+)"
        r"(?:by|po|według|wedlug|wg\.?|nach|in\s+order\s+of)\s+"
        rf"(?:(?:the|their|its|dem|der|den|ich|swojej)\s+)?{_NUMBER_OF}(?:{_RANK_FIELD})\b"
    ) or t.search(
        rf"\bnach\s+(?:dem\s+|der\s+|den\s+)?{_NUMBER_OF}(?:{_RANK_FIELD})\s+(?:\w+\s+)?(?:sortiert|geordnet|sortieren)\b"
    )
    if explicit is None:  # "price descending", "cena malejąco", "Preis absteigend"
        explicit = t.search(rf"\b(?:{_RANK_FIELD})\s*:?\s+(?:(?:from|od|von)\s+)?(?={_ASC}|{_DESC})")
    if explicit is None:  # "top 5 stories by points", "produkty według ceny", "Beiträge nach Punkten"
        explicit = t.search(
            rf"\b{_ITEM_NOUN}\s+(?:by|według|wedlug|wg\.?|nach)\s+(?:(?:the|their|its|dem|der|den)\s+)?"
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
        order = "desc" if _rx(_UP).fullmatch(um.group(1)) else "asc"
        implied.append((um.start(), _ranked_field(um), order, um.group(0)))
    implied.sort()
    if explicit is None and not implied:
        return
    if explicit is not None:
        field, start, words = _ranked_field(explicit), explicit.start(), explicit.group(0)
        order = next((o for _, f, o, _ in implied if f == field), None)
    else:
        start, field, order, words = implied[0]
    field = "name" if field == "title" else field
    direction = t.search(_ASC) or t.search(_DESC)
    if direction is not None:
        order = "asc" if _rx(_ASC).fullmatch(direction.group(0)) else "desc"
    order = order or SORT_DEFAULT_ORDER.get(field, "asc")
    facts.append(Fact("sort_by", field, start, words))
    facts.append(Fact("sort_order", order, start, words))
    if (field, order) in _SORT_FOR_DROPDOWN:
        facts.append(Fact("sort", _SORT_FOR_DROPDOWN[(field, order)], start, words))


def _singular_superlative(t: _Text, facts: list[Fact]) -> None:
    """ "the cheapest product", "najtańszy laptop", "das günstigste Angebot": one item (limit 1).

    Only without another count, and only after an order was found: a superlative in the singular
    asks for the single best item, in the plural ("the cheapest products") for all of them, ordered.
    """
    if "sort_by" not in {f.kind for f in facts} or any(f.kind == "limit" for f in facts):
        return
    sup = "|".join(p for _, _, p in _SUPERLATIVES if "alpha" not in p)
    m = (
        # EN: "the cheapest", "the cheapest one/product", not "the cheapest products"
        t.search(rf"\bthe\s+(?:very\s+)?(?:{sup})(?!\s+(?:\w+s|people|news)\b)(?:\s+(?:one|\w+))?\b")
        # "most expensive movie", "cheapest camera?": a superlative and one noun in the singular that
        # ends the request (not "cheapest cat food offers", not "cheapest cameras")
        or t.search(
            rf"(?:^|[,;:]\s*|\b(?:show|get|find|give me|list)\s+)(?:{sup})\s+"
            r"(?!\w+s\b|(?:first|last|to|one|ones|najpierw|zuerst|bis|do)\b)[^\W\d_]{2,30}"
            r"(?=\s*$|\s*[,.;!?]|\s+(?:on|in|from|under|below|with|for|at|of)\b)"
        )
        # "the story with the most points", not "the stories with ..."
        or t.search(rf"\bthe\s+(?!\w+s\b)\w{{2,30}}\s+with\s+the\s+(?:{_UP}|{_DOWN})\s+(?:{_RANK_FIELD})\b")
        # DE: "der Beitrag mit den meisten Punkten", "das Produkt mit der besten Bewertung" ("die" may be plural)
        or t.search(
            rf"\b(?:der|das)\s+[^\W\d_]{{2,30}}\s+mit\s+(?:den|der|dem)\s+(?:{_UP}|{_DOWN})\s+(?:{_RANK_FIELD})\b"
        )
        # PL singular adjectives end in -y/-a: "najtańszy", "najnowsza"
        or t.search(r"\b(?:najtańsz|najtansz|najdroższ|najdrozsz|najnowsz|najstarsz|najlepiej ocenian)[ya]\b")
        # DE singular after an article ends in -e: "das günstigste", "der neueste"
        or t.search(
            r"\b(?:der|die|das|den|dem)\s+(?:günstigst|billigst|preiswertest|teuerst|neuest|aktuellst|ältest|"
            r"bestbewertet)e\b(?!n)"
        )
    )
    if m:
        facts.append(Fact("limit", 1, m.start(), m.group(0)))


_CLICK_VERB = (
    r"(?:click(?:ing)?|press|tap|hit|kliknij|klikn\w*|naciśnij|nacisnij|wciśnij|klick\w*|drück\w*|drueck\w*)"
)
_SELECT_VERB = r"(?:select|choose|pick|wybierz|zaznacz|wähle|waehle|wählen|auswählen)"
_CATEGORY_CUE = r"(?:categor\w*|kategori\w*|dział\w*|dzial\w*|rubrik\w*)"
_SEARCH_VERB = (
    r"(?:search(?:ing)?(?:\s+for)?|look(?:ing)?\s+(?:up|for)|query|wyszukaj|szukaj|poszukaj|wyszukiwanie|"
    r"suche?(?:\s+nach)?|such\s+nach|finde?)"
)
_LINK_CUE = r"(?:link\w*|odnośnik\w*|odnosnik\w*|urls?|hrefs?)"


def _quoted_roles(t: _Text, quoted: list[tuple[int, int, str]], facts: list[Fact]) -> None:
    """What a quoted string is, by the words just before it: click target, option, category, link part, search."""
    used: set[int] = set()
    for start, end, value in quoted:
        if start in used:
            continue
        before = t.original[max(0, start - 40) : start].lower()
        after = t.original[end : end + 40]
        if re.search(
            _CLICK_VERB + r"(\s+(on|the|na|w|auf|den|die|das|button|przycisk|link))*\s*$", before, re.I
        ):
            facts.append(Fact("click_text", value, start, t.original[start:end]))
        elif re.search(_SELECT_VERB + r"(\s+(the|option|opcję|opcje|die|option))*\s*$", before, re.I):
            facts.append(Fact("option", value, start, t.original[start:end]))
            fm = re.match(
                r"\s*(?:from|in|z|w|aus|im|in der)\s+(?:the\s+|die\s+|der\s+)?([\"'„“«‘])(.+?)[\"'”“»’]",
                after,
                re.I,
            )
            if fm:  # "select 'Newest' from the 'Sort by' dropdown": the second quote names the select
                facts.append(Fact("option_field", fm.group(2).strip(), end, fm.group(0)))
                used.update(s for s, _e, _v in quoted if end < s <= end + fm.end())
        elif re.search(_CATEGORY_CUE + r"\s*$", before, re.I) or re.match(
            r"\s*" + _CATEGORY_CUE, after, re.I
        ):
            facts.append(Fact("category_path", _split_path(value), start, t.original[start:end]))
        elif re.search(
            _LINK_CUE + r".{0,20}(contain\w*|with|matching|zawieraj\w*|mit|enthalt\w*|enthält)\s*$",
            before,
            re.I,
        ):
            facts.append(Fact("link_pattern", re.escape(value), start, t.original[start:end]))
        elif re.search(r"(sort\w*|order(ed)? by)\s*(by|po|według|wg\.?|nach)?\s*$", before, re.I):
            facts.append(Fact("option", value, start, t.original[start:end]))
        else:
            # A quoted term with no other role is what to search for ("find 'canon eos' under 2000 zł").
            facts.append(Fact("query", value, start, t.original[start:end]))


def _split_path(value: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"\s*(?:>|→|»|/|›)\s*", value)]
    return [p for p in parts if p]


#: A sort order said in passing ("10 cheapest") as an option text dropdown tools understand in any language.
SORT_OPTIONS = {
    "price_asc": "price ascending",
    "price_desc": "price descending",
    "newest": "newest",
    "rating_desc": "best rated",
}


def _dropdown(t: _Text, facts: list[Fact]) -> None:
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


def _click(t: _Text, facts: list[Fact]) -> None:
    """Unquoted click targets: "click the Load more button", "click on Show all"."""
    if any(f.kind == "click_text" for f in facts):
        return
    m = t.search(
        _CLICK_VERB
        + r"\s+(?:on\s+|the\s+|na\s+|w\s+|auf\s+|den\s+)*(.{2,40}?)\s+(?:button|link|tab|przycisk\w*|knopf|schaltfläche)\b"
    )
    if not m:
        m = t.search(
            _CLICK_VERB + r"\s+(?:on\s+|the\s+|na\s+|w\s+|auf\s+|den\s+|przycisk\s+|button\s+)*"
            r"((?:[\w-]+\s+){0,3}[\w-]+?)" + _VALUE_END
        )
    if m and m.group(1).strip() and not _negated(t, m.start()):
        facts.append(Fact("click_text", m.group(1).strip(), m.start(), m.group(0)))
        t.mask(m.start(), m.end())


def _negated(t: _Text, pos: int) -> bool:
    """ "don't click", "nie klikaj", "nicht klicken": the action is ruled out, not asked for."""
    return bool(
        re.search(r"\b(don'?t|do not|never|nie|nicht|kein\w*)\s+$", t.original[max(0, pos - 12) : pos], re.I)
    )


def _category(t: _Text, facts: list[Fact]) -> None:
    """Category paths: "Elektronika > Laptopy", "open the category Laptops", "in the Laptops category"."""
    if any(f.kind == "category_path" for f in facts):
        return
    word = r"[^\W\d_][\w&'-]{0,40}"  # bounded: linear on a 10,000-letter word
    m = t.search(
        rf"({word}(?:\s+{word}){{0,2}})\s*(?:>|→|»|›)\s*({word}(?:\s+{word}){{0,2}}?)"
        rf"((?:\s*(?:>|→|»|›)\s*{word}(?:\s+{word}){{0,2}}?){{0,8}})" + _VALUE_END
    )
    if m:
        head = re.split(r"\s+", m.group(1))
        cues = re.compile(
            r"^(open|go|to|into|navigate|browse|the|category|categories|kategori\w*|kategorie|otwórz|otworz|"
            r"przejdź|przejdz|do|w|in|im|öffne|gehe|zu|zur|auf|find|znajdź|znajdz|finde|products?|"
            r"produkty|produkte|from|z|aus|section|dział|dzial)$",
            re.I,
        )
        while head and cues.match(head[0]):
            head.pop(0)
        tail = [m.group(2), *[p for p in re.split(r"\s*(?:>|→|»|›)\s*", m.group(3)) if p.strip()]]
        path = [" ".join(head), *[p.strip() for p in tail]]
        path = [p for p in path if p]
        if len(path) >= 2:
            facts.append(Fact("category_path", path, m.start(), m.group(0)))
            t.mask(m.start(), m.end())
            return
    m = t.search(
        rf"\b(?:the\s+|a\s+)?{_CATEGORY_CUE}\s+(?:of\s+|called\s+|named\s+)?({word}(?:\s+{word}){{0,2}}?)"
        + _VALUE_END
    )
    if m and not re.match(r"(page|pages|list|listing|strona|seite)$", m.group(1), re.I):
        facts.append(Fact("category_path", [m.group(1).strip()], m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(
        rf"\b(?:in|into|to|w|do|im|in der|zur)\s+(?:the\s+|die\s+)?({word}(?:\s+{word}){{0,2}}?)\s+{_CATEGORY_CUE}\b"
    )
    if m:
        facts.append(Fact("category_path", [m.group(1).strip()], m.start(), m.group(0)))
        t.mask(m.start(), m.end())


#: Kinds of file, by the words that name them, as URL endings.
_FILE_KINDS: tuple[tuple[str, str], ...] = (
    (
        r"images?|pictures?|photos?|obraz\w*|zdjęci\w*|zdjęć|zdjec\w*|grafik\w*|bilder\w*|fotos?",
        r"jpe?g|png|gif|webp|svg",
    ),
    (r"videos?|movies?|film\w*|wideo", r"mp4|webm|mov|avi|mkv"),
    (r"audio|music|sounds?|muzyk\w*|musik", r"mp3|wav|ogg|flac|m4a"),
    (r"spreadsheets?|arkusz\w*|tabellen", r"xlsx?|ods|csv"),
    (r"archives?|archiw\w*|archiv\w*", r"zip|rar|7z|tar|gz"),
)
#: Words after "links to" that name no site: what is linked, not where ("links to other pages").
_NOT_A_SITE = frozenset(
    """
    a an the this that these those it its them their our my your his her here there same other others
    and or of to in on at for with by from as i oraz lub und oder zu mit von für
    another more next previous prev main home homepage start page pages site sites website websites web
    section sections category categories menu footer header navigation nav sidebar top bottom all any
    every each some external internal outside inside related social media sources source references
    reference citations citation notes note footnotes details detail profile profiles user users author
    authors comment comments review reviews thread threads discussion article articles post posts story
    stories item items product products offer offers deal deals result results news download downloads
    file files document documents docs something anything everything stuff things thing where which
    what who how external_links products' more_info info information help contact login signup
    strony stron stronę strona stronie inne innych innej inny więcej tej tego tych tę ten ta te
    wszystkie wszystkich produktów produkty produktu artykułów artykuły artykułu artykulow kategorii
    plików pliki plikow zdjęć dokumentów wpisów postów komentarzy źródeł szczegółów ofert oferty
    seite seiten anderen andere anderer weitere weiteren alle allen diese dieser diesen produkt produkte
    produkten artikel artikeln beiträge beiträgen beitrag kategorie kategorien dateien bilder bildern
    dokumente dokumenten kommentare kommentaren quellen details mehr startseite
    """.split()
)
#: Sites people name as link targets by their bare name ("links to github", "linki do youtube"). A
#: bare name that is none of these (nor a site of an installed tool) is still matched as a site's name,
#: with a warning that says so: "links to bananas" is more likely a word than a site.
WELL_KNOWN_SITES = frozenset(
    """
    github gitlab bitbucket sourceforge codeberg gist youtube youtu vimeo twitch dailymotion twitter x
    facebook fb instagram linkedin tiktok pinterest reddit tumblr mastodon threads bluesky medium
    substack wordpress blogspot blogger wikipedia wikimedia wiktionary wikidata wikiquote stackoverflow
    stackexchange superuser serverfault google bing yahoo duckduckgo baidu yandex amazon ebay allegro
    aliexpress etsy olx apple microsoft mozilla python npmjs npm pypi crates docker readthedocs arxiv
    doi researchgate bbc cnn nytimes guardian reuters bloomberg spotify soundcloud bandcamp dropbox
    slack discord telegram whatsapp imdb archive flickr imgur gravatar steam steampowered netflix
    paypal shopify w3 w3schools mdn ycombinator onet wp interia gazeta heise spiegel zeit faz
    """.split()
)


def known_site_name(word: str) -> bool:
    """Whether a bare name ("githuba", "YouTube") is one of `WELL_KNOWN_SITES`, inflected or not."""
    return any(form in WELL_KNOWN_SITES for form in _site_name_forms(word.lower()))


_HOST_TAIL = r"\.[a-z0-9-]+(?:\.[a-z0-9-]+)?(?::[0-9]+)?(?:[/?#]|$)"


def site_pattern(site: str) -> str:
    """A URL pattern for links to a site and its subdomains: ``github.com`` or a bare name (``github``,
    with a top-level domain, any). Linear to match (no nested repetition), and RE2-compatible."""
    host = r"^[a-z][a-z0-9+.-]*://(?:[^/?#]+\.)?"
    if "." in site:
        return host + re.escape(site.lower()) + r"(?::[0-9]+)?(?:[/?#]|$)"
    names = _site_name_forms(site.lower())
    return host + "(?:" + "|".join(re.escape(n) for n in names) + ")" + _HOST_TAIL


_SITE_JOIN = frozenset("or and i lub oraz albo und oder".split())


def _site_word(word: str) -> str:
    """A site's name as written: "github", "GitHub-Links" -> github; a German compound whose first part
    is a well-known site ("Wikipedia-Artikeln", "YouTube-Videos") -> that site."""
    word = word.lower().rstrip(".")
    head = word.split("-", 1)[0]
    if "-" in word and "." not in word and not known_site_name(word) and known_site_name(head):
        return head
    return word


def sites_pattern(sites: list[str]) -> str:
    """`site_pattern` for any of several sites."""
    patterns = list(dict.fromkeys(site_pattern(s) for s in sites))
    return patterns[0] if len(patterns) == 1 else "|".join(f"(?:{p})" for p in patterns)


def _site_name_forms(word: str) -> list[str]:
    """A site's name and the name inside a Polish inflected form: "githuba" -> github, "wikipedii" ->
    wikipedia, "youtube'a" -> youtube (the planner cannot know which form is the name, so both)."""
    word = re.sub(r"['’]\w{0,3}$", "", word)
    forms = [word]
    for end, repl in (("ii", "ia"), ("ji", "ja"), ("owi", ""), ("em", ""), ("ie", ""), ("a", ""), ("u", "")):
        if word.endswith(end) and len(word) - len(end) >= 3:
            forms.append(word[: len(word) - len(end)] + repl)
            break
    return list(dict.fromkeys(forms))


def _links(t: _Text, facts: list[Fact]) -> None:
    r"""Which links: "links to PDF files" -> ``\.pdf($|\?)``, "links containing /product/", "links to
    github.com", "github links", "linki do githuba", "Links zu Wikipedia" (a site and its subdomains).

    A target named after "links to" that is no file type, site or domain ("links to other pages")
    becomes ``link_target_unknown``: the planner says so rather than match every link.
    """
    if any(f.kind == "link_pattern" for f in facts):
        return
    m = t.search(
        rf"\b(?:internal|same[- ]site|on[- ]site|wewnętrzn\w*|wewnetrzn\w*|interne?n?)\s+{_LINK_CUE}\b"
    ) or t.search(
        rf"\b{_LINK_CUE}\s+(?:to|within|on|do|w\s+obrębie|innerhalb|auf)\s+(?:this|the\s+same|tej\s+samej|tej|"
        r"derselben|dieser)\s+(?:site|domain|website|strony|domeny|witryny|seite|domäne|website)\b"
    )
    if m:  # "internal links", "linki wewnętrzne", "interne Links": the page's own site
        facts.append(Fact("same_domain", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(
        rf"\b(?:external|outgoing|outbound|off[- ]site|zewnętrzn\w*|zewnetrzn\w*|externe?n?|ausgehende?n?)\s+"
        rf"{_LINK_CUE}\b"
    ) or t.search(
        rf"\b{_LINK_CUE}\s+(?:zewnętrzn\w*|zewnetrzn\w*|(?:(?:prowadząc\w*|kierując\w*|pointing|going|leading|"
        r"führend\w*|verweisend\w*)\s+)?(?:na\s+zewnątrz|na\s+zewnatrz|nach\s+au(?:ß|ss)en|outside|off[- ]site))"
    )
    if m:  # "external links": every other site (the planner knows the page's host)
        facts.append(Fact("link_external", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(rf"\b{_LINK_CUE}\s+(?:wewnętrzn\w*|wewnetrzn\w*)\b")
    if m:
        facts.append(Fact("same_domain", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    types = "|".join(_FILE_TYPES)
    doc = r"(?:files?|documents?|docs|plik\w*|dateien?|dokument\w*)"
    m = (
        t.search(rf"\b{_LINK_CUE}\b.{{0,30}}?\.({types})s?\b")  # "links ending in .pdf"
        or t.search(rf"\b({types})s?(?:[\s-]+|-?){doc}\b")  # "PDF files", "PDF-Dateien"
        or t.search(rf"\b{doc}\s+\.?({types})s?\b")  # "plików PDF"
        or t.search(rf"\b({types})s?[\s-]+{_LINK_CUE}\b")  # "pdf links"
        or t.search(rf"\b{_LINK_CUE}\s+(?:to|do|zu|auf)\s+(?:the\s+)?\.?({types})s?\b")  # "links to PDFs"
        # "download all PDFs", "pobierz wszystkie PDF-y", "alle PDFs herunterladen"
        or t.search(
            rf"\b(?:download|get|list|fetch|pobierz|ściągnij|sciagnij|lade|hole|liste)\s+(?:me\s+)?"
            rf"(?:all|every|the|wszystkie|alle|die)?\s*({types})(?:s|-y|-s)?\b"
        )
        or t.search(rf"\b(?:all|every|wszystkie|alle)\s+({types})(?:s|-y|-s)?\b")
    )
    if m:
        ext = m.group(1).lower().replace("jpeg", "jpg").replace("jpg", "jpe?g")
        facts.append(Fact("link_pattern", rf"\.{ext}($|\?)", m.start(), m.group(0)))
        return
    for words, exts in _FILE_KINDS:  # "links to images", "linki do zdjęć", "Links zu Videos"
        m = t.search(rf"\b{_LINK_CUE}\s+(?:to|do|zu|auf|of)\s+(?:the\s+|all\s+)?(?:{words})\b") or t.search(
            rf"\b(?:{words})[\s-]+{_LINK_CUE}\b"
        )
        if m:
            facts.append(Fact("link_pattern", rf"\.({exts})($|\?)", m.start(), m.group(0)))
            return
    m = t.search(
        rf"\b{_LINK_CUE}\b.{{0,25}}?\b(?:contain\w*|with|matching|including|zawierając\w*|zawierajac\w*|z|mit|enthalt\w*|"
        r"die)\s+(\S{0,200}[/.]\S{0,200})"
    )
    if m:
        facts.append(Fact("link_pattern", re.escape(m.group(1).rstrip(".,;")), m.start(), m.group(0)))
        return
    # "links to github", "links pointing to en.wikipedia.org", "linki do githuba", "Links zur Wikipedia"
    m = t.search(
        rf"\b{_LINK_CUE}\s+(?:that\s+|which\s+)?(?:(?:point|go|lead)(?:s|ing)?\s+|prowadząc\w*\s+|"
        r"kierując\w*\s+|verweis\w*\s+|führen\w*\s+)?(?:to|into|towards|do|zu|zur|zum|nach|auf)\s+"
        r"(?:(?:the|a|an|der|die|den|dem|das)\s+)?(?:(?:site|website|domain|serwis\w*|witryn\w*|"
        r"domen\w*|stron\w*|seite|webseite|website|domäne)\s+)?"
        r"([^\s,;:!?()\"'„“”«»]{1,100}(?:\s+[^\s,;:!?()\"'„“”«»]{1,40}){0,2})"
    )
    if m:
        words = m.group(1).split()
        target = _site_word(words[0])
        # "links to facebook or twitter", "linki do githuba i gitlaba": either site
        more = [
            _site_word(words[2])
            for _ in (0,)
            if len(words) >= 3 and words[1].lower() in _SITE_JOIN and _site_word(words[2]) not in _NOT_A_SITE
        ]
        if re.fullmatch(r"(?:[a-z0-9-]+\.)+[a-z]{2,}", target):
            facts.append(Fact("link_pattern", sites_pattern([target, *more]), m.start(), m.group(0)))
        elif target in _NOT_A_SITE or not re.fullmatch(r"[^\W_][\w'’-]{1,62}", target):
            facts.append(Fact("link_target_unknown", " ".join(words), m.start(), m.group(0)))
        else:
            facts.append(Fact("link_pattern", sites_pattern([target, *more]), m.start(), m.group(0)))
            facts.append(Fact("link_site", " ".join(words).lower(), m.start(), m.group(0)))
            facts.append(Fact("link_site_names", [target, *more], m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    # "github links", "the wikipedia links", "GitHub-Links"
    m = t.search(r"(?<![\w.-])([a-z0-9][a-z0-9.-]{0,62}[a-z0-9])(?:\s+|-)(?:links?|linki|odnośniki)\b")
    if m:
        target = _site_word(m.group(1))
        if re.fullmatch(r"(?:[a-z0-9-]+\.)+[a-z]{2,}", target):
            facts.append(Fact("link_pattern", site_pattern(target), m.start(), m.group(0)))
        elif (
            target not in _NOT_A_SITE
            and not target.isdigit()
            and not _rx(
                rf"^(?:{_ITEM_NOUN}|{_FIELD_ANY}|{_N}|first|last|top|new|old|broken|working|valid|absolute|"
                r"relative|all|same|own|wszystkie|alle|jede\w*|każd\w*|kazd\w*|ersten?|pierwsz\w*|"
                rf"{_ONLY[3:-1]}|{_GIVE[3:-1]}|me|mi|mir|the|die|der|den|these|those|te|tych|diese)$"
            ).match(target)
        ):
            facts.append(Fact("link_pattern", site_pattern(target), m.start(), m.group(0)))
            facts.append(Fact("link_site", target, m.start(), m.group(0)))
            facts.append(Fact("link_site_names", [target], m.start(), m.group(0)))
            t.mask(m.start(), m.end())


def _field_list(t: _Text, pos: int) -> tuple[list[str], int]:
    """The fields named from ``pos`` on ("a name, a price and the url") and where the list ends."""
    fields: list[str] = []
    field_rx = _rx(_FIELD_FILL + rf"(?:{_FIELD})\b")
    join_rx = _rx(_FIELD_JOIN)
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


def _fields(t: _Text, facts: list[Fact]) -> None:
    """Required item fields: "every product has a name and a price", "każdy produkt ma nazwę i cenę"."""
    cue = (
        r"(?:\b(?:every|each|all|only|każd\w*|kazd\w*|wszystki\w*|tylko|jede[rsn]?|alle|nur)\b[^.;]{0,40}?"
        r"\b(?:has|have|having|with|must have|should have|that have|ma|mają|maja|musi mieć|musi miec|muszą mieć|"
        r"z|hat|haben|mit)\b|\b(?:require[sd]?|must have|musi mieć|muszą mieć|muss|müssen)\b)"
    )
    m = t.search(cue + r"\s*(?P<list>" + _FIELD_FILL + rf"(?:{_FIELD}))")
    if not m:
        return
    fields, end = _field_list(t, m.start("list"))
    if fields:  # the fact is the list itself: its words name fields, not what to extract
        facts.append(Fact("fields", fields, m.start("list"), t.original[m.start("list") : end]))


_ONLY = r"(?:only|just|solely|tylko|wyłącznie|wylacznie|jedynie|same|nur|lediglich|bloß|bloss|ausschließlich)"
_GIVE = (
    r"(?:get|show|list|return|give(?:\s+me)?|extract|fetch|print|output|display|collect|scrape|want|"
    r"pobierz|pokaż|pokaz|podaj|wypisz|zwróć|zwroc|wyciągnij|wyciagnij|zbierz|wyświetl|wyswietl|"
    r"zeige?|gib(?:\s+mir)?|liste|hole?|extrahiere|sammle)"
)
_OF = r"(?:of|for|from|z|ze|dla|von|der|des|aller)"


def _select(t: _Text, facts: list[Fact]) -> None:
    """The fields to return: "only names and prices", "name, price and url of the products",
    "tylko nazwy i ceny", "nur Name und Preis", "results with title and url" (``select_fields``).

    A list after "only" (or before "only"), a list a verb asks for ("get the titles and links of"),
    a list the instruction starts with, or two or more fields after "with" (unless every item is
    required to have them: see `_fields`). "only links" asks for links, not for one field of them.
    """
    required = next((f for f in facts if f.kind == "fields"), None)
    lst = r"(?P<list>" + _FIELD_FILL + rf"(?:{_FIELD}))"
    cands = [
        (t.search(rf"\b{_ONLY}\s+(?:(?:the|die|den)\s+)?(?:{_ITEM_NOUN}\s+)?{lst}"), 1),
        (t.search(rf"(?:^|[,;:]\s*|\b{_GIVE}\s+(?:me\s+|mir\s+|mi\s+)?){lst}"), 1),
        (t.search(rf"\b(?:with|z|ze|mit)\s+{lst}"), 2),
    ]
    for m, least in sorted(((m, n) for m, n in cands if m), key=lambda c: c[0].start()):
        if m.group(0).lower().startswith("same") and detect_lang(t.original) != "pl":
            continue  # "same" means "only" in Polish ("same tytuły"); in English "the same site" is no list
        fields, end = _field_list(t, m.start("list"))
        after = t.text[end : end + 60]
        if len(fields) < least:
            continue
        if len(fields) == 1 and re.match(rf"\s+(?:(?:from|od|von)\s+)?(?:{_ASC}|{_DESC})", after, re.I):
            continue  # "prices from highest to lowest": an order, not a choice of fields
        if (
            least == 2
            and required is not None
            and m.start("list") <= required.start < max(end, required.start + 1)
        ):
            continue  # "every product with a name and a price": required, not a choice of fields
        if m.re.pattern.startswith(r"(?:^|") and not (
            len(fields) >= 2 or re.match(rf"\s+(?:{_OF}\b|{_ONLY}\b|{_ITEM_NOUN})", after, re.I)
        ):
            continue  # "get links", "show prices under 100": a kind or a filter, not a list of fields
        if fields == ["url"] and not re.match(r"\s+(?:of|for|dla|von|der|des)\b", after, re.I):
            continue  # "only links to github", "Links zu ...": the links themselves, not a field of items
        facts.append(Fact("select_fields", fields, m.start(), t.original[m.start() : end].strip()))
        t.mask(m.start("list"), end)
        return
    m = t.search(rf"{lst}(?=(?:{_FIELD_JOIN}{_FIELD_FILL}(?:{_FIELD_ANY})){{0,15}}\s+(?:{_ONLY}|alone)\b)")
    if m:  # "titles and urls only", "names and prices only"
        fields, end = _field_list(t, m.start("list"))
        if fields == ["url"]:
            return  # "articles with working links only": which articles, not which fields
        facts.append(Fact("select_fields", fields, m.start(), t.original[m.start() : end].strip()))
        t.mask(m.start("list"), end)


def _search(t: _Text, facts: list[Fact]) -> None:
    """Unquoted search terms: "search for laptops", "wyszukaj laptopy", "suche nach Katzenfutter"."""
    if any(f.kind == "query" for f in facts):
        return
    verbs = (
        r"(?:search(?:ing)?\s+for|search|look\s+up|looking\s+for|query|wyszukaj|szukaj|poszukaj|"
        r"suche\s+nach|such\s+nach|suche)"
    )
    m = t.search(rf"\b{verbs}\s+(?:the\s+|for\s+)?((?:[^\s,;.]+\s+){{0,4}}?[^\s,;.]+?)" + _VALUE_END)
    before = t.original[max(0, m.start() - 8) : m.start()] if m else ""
    if re.search(r"\b(?:the|this|my|your|a|die|der|diese|meine)\s+$", before, re.I):
        m = None  # "what did the search return": the search is a noun here, not a verb
    if m:
        query = m.group(1).strip()
        if query and not re.fullmatch(
            r"(it|them|this|that|products?|items?|results?|produkty|produkte)", query, re.I
        ):
            facts.append(Fact("query", query, m.start(), m.group(0)))
            t.mask(m.start(), m.end())


_MAX_WORDS = (
    r"(?:under|below|less than|cheaper than|lower than|up to|at most|no more than|not more than|max(?:imum)?\.?|"
    r"within|for less than|<=?|≤|poniżej|ponizej|do|taniej niż|taniej niz|tańsz\w* niż|tansz\w* niz|"
    r"mniej niż|mniej niz|nie więcej niż|nie wiecej niz|najwyżej|maks(?:ymalnie)?\.?|za mniej niż|"
    r"unter|bis(?: zu)?|günstiger als|guenstiger als|billiger als|weniger als|höchstens|maximal|max\.)"
)
_MIN_WORDS = (
    r"(?:over|above|more than|greater than|at least|min(?:imum)?\.?|more expensive than|starting at|from|>=?|≥|"
    r"powyżej|powyzej|ponad|więcej niż|wiecej niz|droższ\w* niż|co najmniej|od|minimum|"
    r"über|ueber|mehr als|mindestens|teurer als|ab)"
)
_PRICE_WORD = (
    r"(?:price|prices|priced|cost|costs|costing|cen\w*|koszt\w*|preis\w*|kost\w*|zł|zl|pln|€|\$|£|eur|usd)"
)


def _prices(t: _Text, facts: list[Fact]) -> None:
    """Price bounds: "under 150zł", "od 100 do 200 zł", "between 100 and 200", "unter 50 €", "over 1000"."""
    price_context = bool(_rx(r"(?:\b|(?<=\d))" + _PRICE_WORD).search(t.original)) or not _rx(
        r"\b(stories|story|articles?|posts?|news|links?|tables?|artykuł\w*|wpis\w*|tabel\w*|linki\w*|"
        r"nachrichten|beiträge|tabellen?)\b"
    ).search(t.original)
    cur = rf"(?:\s*{_CUR})"
    num = rf"{cur}?\s*{_AMOUNT}"
    tail_ok = rf"(?!\s*{_NOT_PRICE_UNIT})"

    def ok(m: re.Match) -> bool:
        return price_context or bool(_rx(_CUR).search(m.group(0)))

    rng = (
        rf"\b(?:between|from|od|zwischen|von|in the range(?: of)?|w (?:przedziale|zakresie)|range)\s+(?:the\s+)?"
        rf"{num}{cur}?\s*(?:and|to|do|und|bis|-|–|—)\s*{num}({cur})?{tail_ok}"
    )
    m = t.search(rng)
    if m and ok(m):
        lo, hi = parse_amount(m.group(1), m.group(2)), parse_amount(m.group(3), m.group(4))
        lo, hi = min(lo, hi), max(lo, hi)
        facts += [Fact("price_min", lo, m.start(), m.group(0)), Fact("price_max", hi, m.start(), m.group(0))]
        t.mask(m.start(), m.end())
        return
    m = t.search(rf"(?<![\w.,]){num}\s*(?:-|–|—)\s*{num}{cur}")
    if m:
        lo, hi = parse_amount(m.group(1), m.group(2)), parse_amount(m.group(3), m.group(4))
        facts += [
            Fact("price_min", min(lo, hi), m.start(), m.group(0)),
            Fact("price_max", max(lo, hi), m.start(), m.group(0)),
        ]
        t.mask(m.start(), m.end())
        return
    for kind, words, post in (
        (
            "price_max",
            _MAX_WORDS,
            r"(?:or less|or cheaper|lub mniej|lub taniej|i mniej|oder weniger|oder günstiger)",
        ),
        (
            "price_min",
            _MIN_WORDS,
            r"(?:or more|and up|and above|lub więcej|i więcej|i wiecej|oder mehr|und mehr)",
        ),
    ):
        m = t.search(rf"(?:^|(?<=[\s(]))(?:{words})\s*{num}({cur})?{tail_ok}(?![\d.,]*\s*(?:-|–)\s*\d)")
        if m and ok(m):
            facts.append(Fact(kind, parse_amount(m.group(1), m.group(2)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
            continue
        m = t.search(rf"(?<![\w.,]){num}({cur})?\s+{post}")
        if m and ok(m):
            facts.append(Fact(kind, parse_amount(m.group(1), m.group(2)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
    low = next((f for f in facts if f.kind == "price_min"), None)
    high = next((f for f in facts if f.kind == "price_max"), None)
    if low and high and low.value > high.value:
        # "over 200 ... under 100" is contradictory; the nearer reading is that the user swapped them.
        facts.remove(low)
        facts.remove(high)
        facts += [
            Fact("price_min", high.value, high.start, high.text),
            Fact("price_max", low.value, low.start, low.text),
        ]


#: Things people ask a browser to do that reading a page is not, by the words that ask (EN, PL, DE).
#: The planner checks each against the installed tools' triggers: a tool that does it takes it, and
#: anything no tool does is named in the result (or, when nothing else is asked, the planning fails).
ACTIONS: dict[str, str] = {
    "log in": (
        r"\b(?:log\s?in(?:to)?|login|sign\s?in|zaloguj\w*|logowani\w*|anmelden|einloggen|"
        r"logge?\s+(?:\w+\s+)?ein|melde\s+(?:\w+\s+)?an)\b"
    ),
    "sign up": r"\b(?:sign\s?up|register|create\s+an\s+account|zarejestruj\w*|załóż\s+konto|registrier\w*)\b",
    "buy": (
        r"\b(?:buy|purchase|check\s?out|add\s+(?:\S+\s+){0,6}?to\s+(?:the\s+|my\s+|a\s+)?(?:shopping\s+)?(?:cart|basket|bag)|"
        r"place\s+an\s+order|order\s+(?:it|them|this|that|one|two|three|the\s+(?:cheapest|first|best))\b|"
        r"kup|kupić|kupic|kupuj\w*|zamów|zamow|zamówić|zamowic|dodaj\s+(?:\S+\s+){0,6}?do\s+koszyka|"
        r"kaufe?n?|kauf|bestelle?n?|in\s+den\s+(?:warenkorb|einkaufswagen|korb))\b"
    ),
    "pay": r"\b(?:pay|payment|zapłać|zaplac|zapłacić|zaplacic|opłać|oplac|bezahle?n?)\b",
    "send": (
        r"\b(?:send|e-?mail\s+(?:it|them|me|the|us|him|her)|forward\s+(?:it|them|the)|text\s+me|"
        r"message\s+(?:me|him|her|them|the)|write\s+to|wyślij|wyslij|wysłać|wyslac|prześlij|przeslij|"
        r"napisz\s+(?:do|mi|maila|e-?mail\w*|wiadomość|wiadomosc)|sende\w*|schick\w*|verschick\w*|"
        r"schreib\w*\s+(?:mir|uns|ihm|ihr|dem|der|an)\b)"
    ),
    "post": (
        r"\b(?:post\s+(?:a|an|the|this|it|my|on|to)\b|publish|reply\s+to|comment\s+on|"
        r"(?:leave|write|add)\s+(?:a|an|my)\s+(?:comment|review|reply|answer|post)|opublikuj\w*|skomentuj\w*|"
        r"(?:napisz|dodaj|zostaw)\s+(?:\w+\s+)?(?:komentarz\w*|opini\w*|recenzj\w*|odpowied\w*|post\w*|wpis\w*)|"
        r"odpowiedz\b|veröffentlich\w*|kommentiere\w*|antworte\w*|poste\b|posten\b|"
        r"(?:schreib|verfass|hinterlass)\w*\s+(?:\w+\s+)?(?:kommentar|bewertung|rezension|antwort|beitrag)\w*)"
    ),
    "book": (
        r"\b(?:book\s+(?:a|an|the|me|it|this|that|my|tickets?|flights?|rooms?|hotels?|tables?)\b|reserve|"
        r"make\s+a\s+reservation|zarezerwuj\w*|rezerwuj\w*|buche\b|buchen\b|reservier\w*)"
    ),
    "subscribe": (
        r"\b(?:subscribe|unsubscribe|follow\s+(?:the|this|them|him|her)\b|(?:up|down)vote\b|(?:^|(?:and|then|,)\s+)like\s+(?:it|this|the|them|my)\b|"
        r"vote\s+(?:for|on)\b|zasubskrybuj\w*|subskrybuj\w*|obserwuj\w*|polub\w*|zagłosuj\w*|zaglosuj\w*|"
        r"abonnier\w*|folge\b|stimme\s+(?:für|ab)\b)"
    ),
    "rate": r"\b(?:rate\s+(?:it|this|the|them)\b|oceń\b|ocen\b|bewerte\b)",
    "delete": (
        r"\b(?:delete|erase|remove\s+(?:my|me|it|them|this|that)\b|usuń\w*|usun\b|usunąć|skasuj\w*|wykasuj\w*|"
        r"lösch\w*|losch\w*)"
    ),
    "edit": (
        r"\b(?:(?:change|edit|update)\s+(?:my|the)\s+(?:password|settings?|profile|address|email|account)\b|"
        r"(?:zmień|zmien|edytuj|zaktualizuj)\s+(?:moje?|mój|moj|hasło|haslo|ustawienia|profil|adres)\w*|"
        r"(?:ändere|aendere|bearbeite)\s+(?:mein\w*|das|die|den)\s+\w+)"
    ),
    "cancel": r"\b(?:cancel|anuluj\w*|odwołaj\w*|storniere\w*|kündige\w*|kuendige\w*)\b",
    "call": (
        r"\b(?:(?:call|phone)\s+(?:me|us|him|her|them|the)\b|ring\s+(?:me|the)\b|contact\s+(?:me|us|the|them|him|her)\b|"
        r"zadzwoń\w*|zadzwon\w*|dzwoń\w*|dzwon\b|skontaktuj\w*|ruf\s+(?:\w+\s+){0,3}an\b|anrufen|telefonier\w*|"
        r"kontaktier\w*)"
    ),
    "compare": r"\b(?:compare|porównaj\w*|porownaj\w*|porównać|porownac|vergleiche?\b|vergleichen\b)",
    "notify": (
        r"\b(?:notify|alert\s+me|remind|monitor|keep\s+an\s+eye|watch\s+(?:for|the\s+price)|"
        r"powiadom\w*|przypomnij\w*|monitoruj\w*|benachrichtig\w*|erinnere\w*|überwach\w*)"
    ),
    "share": r"\b(?:share|udostępnij\w*|udostepnij\w*|podziel\s+się|teile\b|teilen\b)",
    "upload": r"\b(?:upload|wgraj\w*|załaduj\w*|hochlad\w*|lade\s+(?:\w+\s+){0,3}hoch\b)",
    "translate": r"\b(?:translate|przetłumacz\w*|przetlumacz\w*|übersetz\w*)",
    "summarize": r"\b(?:summari[sz]e|podsumuj\w*|streść|stresc|zusammenfass\w*|fasse\s+(?:\w+\s+){0,4}zusammen)",
    "weather": r"\b(?:weather|forecast|pogod\w*|prognoz\w*\s+pogody|wetter\w*)\b",
}


def _actions(t: _Text, facts: list[Fact]) -> None:
    """What the instruction asks to do beyond reading ("log in and buy the cheapest"): ``actions``,
    a tuple of ``(name, start, end)`` for the planner to match against the installed tools. A
    negated one ("don't buy") is not asked for."""
    found = []
    for name, pattern in ACTIONS.items():
        m = t.search(pattern)
        if m and not _negated(t, m.start()):
            found.append((m.start(), name, m.end()))
    if found:
        found.sort()
        first = found[0][0]
        facts.append(
            Fact("actions", tuple((n, s, e) for s, n, e in found), first, ", ".join(n for _, n, _ in found))
        )


def _strict(t: _Text, facts: list[Fact]) -> None:
    """Whether a check should fail the task instead of filtering: "must cost", "fail if", "musi kosztować"."""
    m = t.search(
        r"\b(?:must (?:cost|be (?:priced|under|below|cheaper))|fail (?:if|when|on)|error if|"
        r"musi(?:szą)? kosztować|muszą kosztować|muss\b.{0,30}kosten|müssen\b.{0,30}kosten|strict\w*|"
        r"ściśle|sciśle|strikt)"
    )
    if m:
        facts.append(Fact("strict", True, m.start(), m.group(0)))


# --- search results and table choice ---------------------------------------------------------

_RESULT_NOUN = r"(?:results?|hits|\w*ergebnis\w*|\w*treffer|wynik\w*)"


def _result_count(t: _Text, facts: list[Fact]) -> None:
    """A count before a described result noun: "the 10 organic search results", "die 10 besten
    Suchergebnisse" (`_counts` takes at most one word between the number and the noun)."""
    if not any(f.kind == "limit" for f in facts):
        m = t.search(rf"\b{_N}\s+(?:[^\W\d_]+\s+){{0,3}}?{_RESULT_NOUN}\b")
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


def _comments_wanted(t: _Text, facts: list[Fact]) -> None:
    """Comments as the thing asked for ("the comments on this story", "komentarze", "alle Kommentare"),
    not as a count to filter or sort by ("more than 100 comments" is masked by then, "most comments")."""
    m = t.search(
        r"\b(?:comments|comment thread|discussion|komentarze|komentarzy|kommentare|replies|odpowiedzi|antworten)\b"
    )
    if m and not re.search(
        r"\b(?:most|more|least|fewest|number of|count of|by|najwięcej|najmniej|liczb\w*|meisten|wenigsten|anzahl|nach)"
        r"\s+(?:der\s+|of\s+(?:the\s+)?)?$",
        t.original[max(0, m.start() - 20) : m.start()],
        re.I,
    ):
        facts.append(Fact("item_kind", "comments", m.start(), m.group(0)))


_TABLE_NOUN = r"(?:tables?|tabel[aięeiy]?|tabelk[aięi]|tabellen?)"
_ORDINALS = {
    2: r"second|2nd|drug\w*|zweite\w*",
    3: r"third|3rd|trzeci\w*|dritte\w*",
    4: r"fourth|4th|czwart\w*|vierte\w*",
    5: r"fifth|5th|piąt\w*|piat\w*|fünfte\w*",
    6: r"sixth|6th|szóst\w*|szost\w*|sechste\w*",
    7: r"seventh|7th|siódm\w*|siodm\w*|siebte\w*",
    8: r"eighth|8th|ósm\w*|osm\w*|achte\w*",
    9: r"ninth|9th|dziewiąt\w*|neunte\w*",
    10: r"tenth|10th|dziesiąt\w*|zehnte\w*",
    -1: r"last|final|ostatni\w*|letzte\w*",
}
_LARGEST = (
    r"(?:biggest|largest|longest|największ\w*|najwieksz\w*|najdłuższ\w*|größte\w*|groesste\w*|längste\w*)"
)
_SMALLEST = (
    r"(?:smallest|shortest|najmniejsz\w*|najkrótsz\w*|najkrotsz\w*|kleinste\w*|kürzeste\w*|kuerzeste\w*)"
)
# Words around a table noun that say nothing about which table: articles, verbs, pages, formats.
_TABLE_FILLER = frozenset(
    "the a an this that these those its my whole entire full complete main data html page site web "
    "get extract show give list download fetch scrape return print find read me all every each only "
    "json csv tsv excel first one ta tę tej tą cała całą całej pobierz pokaż pokaz wyciągnij znajdź "
    "daj główna główną strona strony stronie witryny dane danych jako jeden jedna wszystkie wszystkich "
    "każda każdą każdej te tych both sämtliche "
    "die der das den dem des ein eine einen diese dieser diesen ganze gesamte hole zeige extrahiere "
    "finde gib seite webseite daten alle allen".split()
)
# Words that end a table's name: "the table of failed banks as csv", "tabela akcjonariuszy na stronie".
_TABLE_STOP = frozenset(
    "as in on from into to at and then or by w na do od jako i oraz a ze z als auf im aus und dann oder "
    "bei nach".split()
)
_TABLE_PREP = r"(?:of|with|for|about|showing|listing|containing|z|ze|o|dotycząc\w*|mit|über|ueber|zu|zum|zur|von|für|der|des)"
_TABLE_ART = r"(?:(?:the|a|an|dem|der|den|die|das|des|einem|einer)\s+)?"


def _table_words(words: list[str]) -> list[str]:
    """The words that name something, from a few words next to a table noun."""
    out: list[str] = []
    for word in words:
        low = word.lower()
        if low in _TABLE_STOP:
            break
        if (
            low in _TABLE_FILLER
            or low in _NUMBER_WORDS
            or re.fullmatch(r"pierwsz\w*|erste\w*|\d+\.?", low)
            or re.fullmatch(_LARGEST, low, re.I)
            or re.fullmatch(_SMALLEST, low, re.I)
            or any(re.fullmatch(rx, low, re.I) for rx in _ORDINALS.values())
        ):
            if out:
                break
            continue
        if not re.fullmatch(r"[^\W\d_][\w&+.-]*", word):
            break
        out.append(word)
    return out


def _table_choice(t: _Text, facts: list[Fact]) -> None:
    """Which table: by place ("the second table", "druga tabela", "die zweite Tabelle", "table 2",
    "the last table") -> ``nth``; by size ("the biggest table") -> ``largest``; by words naming it
    ("the revenue table", "tabela akcjonariuszy", "Tabelle mit dem Umsatz", "Umsatztabelle") ->
    ``table_words``."""
    noun = rf"(?:{_TABLE_NOUN}|[^\W\d_]{{3,}}-?tabellen?)"
    if not t.search(rf"\b{noun}\b"):
        return
    for value, words in _ORDINALS.items():
        m = t.search(rf"\b(?:{words})\s+(?:[^\W\d_]+\s+){{0,2}}?{noun}\b")
        if m:
            facts.append(Fact("nth", value, m.start(), m.group(0)))
            break
    else:
        m = t.search(
            rf"\b{_TABLE_NOUN}\s*(?:#|no\.?|nr\.?|numer|number|nummer)?\s*(\d{{1,2}})\b(?!\s*(?:rows?|wiersz\w*|zeilen?))"
        )
        if m is None:
            m = t.search(rf"(?<![\w.])(\d{{1,2}})\.\s+{_TABLE_NOUN}\b")  # "die 2. Tabelle"
        if m and int(m.group(1)) > 0:
            facts.append(Fact("nth", int(m.group(1)), m.start(), m.group(0)))
            t.mask(m.start(), m.end())
    m = t.search(rf"\b{_SMALLEST}\s+(?:[^\W\d_]+\s+){{0,2}}?{noun}\b")
    if m:  # "the smallest table", "najmniejsza tabela", "die kleinste Tabelle"
        facts.append(Fact("smallest", True, m.start(), m.group(0)))
    m = t.search(rf"\b{_LARGEST}\s+(?:[^\W\d_]+\s+){{0,2}}?{noun}\b")
    if m:
        facts.append(Fact("largest", True, m.start(), m.group(0)))
    else:  # "the table with the most rows", "tabela z największą liczbą wierszy", "mit den meisten Zeilen"
        m = t.search(
            r"\b(?:most|największ\w*\s+liczb\w*|najwięcej|najwiecej|meisten)\s+(?:rows|wierszy|zeilen)\b"
        )
        if m:
            facts.append(Fact("largest", True, m.start(), m.group(0)))
            t.mask(m.start(), m.end())
    found: list[str] = []
    pos = 0
    # German compounds first: "Umsatztabelle", "Umsatz-Tabelle".
    m = t.search(r"\b([^\W\d_]{3,}?)-?tabellen?\b")
    if m and m.group(1).lower() not in ("tabellen", "tabelle"):
        found, pos = [m.group(1)], m.start()
    if not found:
        m = t.search(
            rf"\b{_TABLE_NOUN}\s+{_TABLE_PREP}\s+{_TABLE_ART}((?:[^\W\d_][\w&+.-]*\s*){{1,3}})"
        ) or t.search(r"\b(?:tabel[aięeiy]?|tabelk[aięi])\s+((?:[^\W\d_][\w&+.-]*\s*){1,2})")
        if m:
            found, pos = _table_words(m.group(1).split()), m.start()
    if not found:
        m = t.search(rf"(?<!\w)((?:[^\W\d_][\w&+.-]*\s+){{1,3}}){_TABLE_NOUN}\b")
        if m:
            words = m.group(1).split()
            named = _table_words(list(reversed(words)))
            found, pos = list(reversed(named)), m.start()
    if found:
        facts.append(Fact("table_words", " ".join(found), pos, " ".join(found)))
