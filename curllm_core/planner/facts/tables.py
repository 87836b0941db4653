"""Which table: by place ("the second table", "druga tabela"), by size ("the biggest table"), or by the
words that name it ("the revenue table", "tabela akcjonariuszy", "Umsatztabelle")."""

from __future__ import annotations

import re

from .base import Fact, Text
from .words import NUMBER_WORDS

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
            or low in NUMBER_WORDS
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


def read_table_choice(t: Text, facts: list[Fact]) -> None:
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
