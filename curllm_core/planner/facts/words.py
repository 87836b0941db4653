"""The shared vocabulary of the fact passes (PL/EN/DE): numbers, amounts and currencies, months, item
nouns, superlatives, where a value ends, the words that name item fields, and the language guess.

Pieces of regular expressions (strings), combined by the passes of the other modules; what only one
pass reads stays in that pass's module.
"""

from __future__ import annotations

import re

from ...item_fields import WORDS as FIELD_WORDS
from .records import RECORD_NOUNS

NUMBER_WORDS = {
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
N = r"(\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
# A price amount: "150", "1 000", "1,000.50", "150,50", "2k".
AMOUNT = r"(\d{1,3}(?:[ \u00a0.,]\d{3}){1,5}(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?)(\s?[kK]\b)?"
CUR = (
    r"(?:zł|zl\b|pln\b|złotych|złote|złoty|zlotych|usd\b|us\$|dollars?\b|dolar(?:ów|ow|y|a)?\b|bucks\b|"
    r"eur\b|euros?\b|€|\$|£|gbp\b|pounds?\b|chf\b|czk\b|kč)"
)
MONTHS: dict[str, int] = {}
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
        MONTHS[_name] = _num
MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
ITEM_NOUN = (
    r"(?:products?|items?|results?|stories|story|storys|articles?|posts?|links?|offers?|deals?|rows?|"
    r"entries|tables?|produkt\w*|wynik\w*|ofert\w*|artykuł\w*|wpis\w*|link\w*|pozycj\w*|"
    r"ergebnis\w*|artikel|angebot\w*|beiträge|beitrag|einträge|eintrag|nachrichten|meldungen)"
)
# Words after a number that make it something other than a price.
NOT_PRICE_UNIT = (
    r"(?:points?|pts|punkt\w*|upvotes?|votes?|głos\w*|stimm\w*|comments?|komentarz\w*|kommentar\w*|"
    r"pages?|stron\w*|seiten?|times|razy|mal\b|items?|products?|produkt\w*|results?|wynik\w*|ergebnis\w*|"
    r"stories|story|articles?|artykuł\w*|artikel|posts?|links?|linki\w*|stars?|gwiazd\w*|stern\w*|%|percent|"
    r"procent\w*|prozent|reviews?|opini\w*|bewertung\w*|ms\b|seconds?|sekund\w*|minutes?|minut\w*|days?|dni|"
    r"tage?n?|hours?|godzin\w*|stunden?|gb\b|tb\b|mb\b|mah\b|kg\b|cm\b|mm\b|inch\w*|cali|zoll|years?|lat\b|"
    r"jahre?n?|rows?|wiersz\w*|zeilen?|tables?|tabel\w*|offers?|ofert\w*|angebot\w*|"
    + MONTH[1:-4]
    + r"|"
    + RECORD_NOUNS
    + r")(?!\w)"
)
# Words that join two numbers ("100 and 200", "10 bis 20"): the first number is no count.
JOIN_WORD = r"(?:and|und|oraz|lub|oder|bis|to|do|or|i|a)\b"
CHEAP = r"(?:cheapest|lowest[- ]priced|least expensive|najtańsz\w*|najtansz\w*|günstigst\w*|billigst\w*|preiswertest\w*)"
DEAR = r"(?:most expensive|priciest|highest[- ]priced|najdroższ\w*|najdrozsz\w*|teuerst\w*)"
NEW = r"(?:newest|latest|most recent|najnowsz\w*|najświeższ\w*|najswiezsz\w*|neueste\w*|aktuellste\w*|jüngste\w*)"
BEST = (
    r"(?:best[- ]rated|top[- ]rated|highest[- ]rated|najlepiej ocenian\w*|najwyżej ocenian\w*|najwyzej ocenian\w*|"
    r"bestbewertet\w*|am besten bewertet\w*)"
)
# Where a free-text value (a search term, a click target) ends.
STOP = (
    r"(?:and|then|on|in|at|under|below|over|above|with|sorted|sort|from|for|that|which|cheaper|less|"
    r"more|between|priced|costing|limit|top|first|only|i|oraz|a|na|w|we|z|ze|poniżej|ponizej|powyżej|"
    r"do|od|taniej|tańsze|droższe|posortuj|sortuj|tylko|pierwsze|które|kosztujące|za|po|und|dann|auf|"
    r"im|unter|über|bis|ab|mit|von|zwischen|sortiert|sortiere|nur|für|günstiger|billiger|max|maximal|"
    r"and then|, then|products|produkty|produktów|produkte|items|offers|oferty|angebote)"
)
VALUE_END = r"(?=\s+" + STOP + r"\b|\s*[,;:!?]|\.(?:\s|$)|$)"
# Item fields by the words that name them (one vocabulary with the tools: curllm_core.item_fields).
FIELD = "|".join(f"(?P<{name}>{rx})" for name, rx in FIELD_WORDS.items())
FIELD_ANY = "|".join(FIELD_WORDS.values())
# "titles with links", "tytuły z linkami", "Titel mit Link": a field after a field continues the list.
FIELD_JOIN = (
    r"(?:\s*(?:,|&|\band\b|\bi\b|\boraz\b|\bund\b|\bor\b|\bplus\b|\bwith\b|\bz\b|\bze\b|\bmit\b)\s*|\s+)"
)
FIELD_FILL = (
    r"(?:(?:a|an|the|ein|eine|einen|einem|own|its|their|their own|swoją|swoja|die|den|der|ihre?n?)\s+)?"
    # "the number of points", "liczba punktów", "die Anzahl der Kommentare": the count is the field
    r"(?:(?:(?:the\s+)?(?:number|count|amount)\s+of|liczb[aęy]|ilość|ilosc|anzahl(?:\s+(?:der|an))?)\s+)?"
)
LINK_CUE = r"(?:link\w*|odnośnik\w*|odnosnik\w*|urls?|hrefs?)"
ONLY = r"(?:only|just|solely|tylko|wyłącznie|wylacznie|jedynie|same|nur|lediglich|bloß|bloss|ausschließlich)"
GIVE = (
    r"(?:get|show|list|return|give(?:\s+me)?|extract|fetch|print|output|display|collect|scrape|want|"
    r"pobierz|pokaż|pokaz|podaj|wypisz|zwróć|zwroc|wyciągnij|wyciagnij|zbierz|wyświetl|wyswietl|"
    r"zeige?|gib(?:\s+mir)?|liste|hole?|extrahiere|sammle)"
)


_COUNT_BEFORE = re.compile(
    rf"(?:\b{N}|\d|\b(?:dwóch|dwoch|trzech|czterech|pięciu|pieciu|sześciu|szesciu|dwojga|troje|czworo))\s*$",
    re.I,
)
_ASKED_COUNT = re.compile(
    r"\b(?:first|top|last|next|pierwsz\w*|ostatni\w*|kolejn\w*|erste\w*|letzte\w*|nächste\w*|top)\s+\S+\s*$",
    re.I,
)


def after_a_count(text: str, pos: int) -> bool:
    """Whether a count stands right before ``pos`` that is no count of the records asked for: "for
    two people", "dla dwóch osób", "more than 100 employees" (a figure of something else), not
    "the first 5 people"."""
    before = text[max(0, pos - 40) : pos]
    return _COUNT_BEFORE.search(before) is not None and _ASKED_COUNT.search(before) is None


def to_int(word: str) -> int:
    """``"5"`` or a number word (``"five"``, ``"pięć"``, ``"fünf"``) as an int."""
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


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
        r"\b(und|mit|auf|unter|nach|finde|zeige|alle|seiten|die|der|das|günstig|bis|wie|viele|wieviele|"
        r"weniger|mehr|als|gibt|welche[mnrs]?|von|ohne|aller|allen|jede[mnrs]?|zeig|nur|für|fuer|ueber|"
        r"durchschnitt\w*|preise?)\b",
        low,
    ):
        return "de"
    return "en"
