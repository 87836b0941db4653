"""Price bounds ("under 150zł", "od 100 do 200 zł", "zwischen 10 und 20 €") and whether a check should
fail the task instead of filtering ("must cost", "musi kosztować")."""

from __future__ import annotations

import re

from .base import Fact, Text, regex
from .words import AMOUNT, CUR, NOT_PRICE_UNIT, parse_amount

_MAX_WORDS = (
    r"(?:under|below|less than|cheaper than|lower than|up to|at most|no more than|not more than|max(?:imum)?\.?|"
    r"within|for less than|<=?|≤|poniżej|ponizej|do|"
    # a Polish comparative takes "niż" or "od" ("tańszych od 35 zł": under 35, not from 35)
    r"(?:taniej|tańsz\w*|tansz\w*|niższ\w*|nizsz\w*)\s+(?:niż|niz|od)|"
    r"mniej niż|mniej niz|nie więcej niż|nie wiecej niz|najwyżej|maks(?:ymalnie)?\.?|za mniej niż|"
    r"unter|bis(?: zu)?|günstiger als|guenstiger als|billiger als|weniger als|höchstens|maximal|max\.)"
)
_MIN_WORDS = (
    r"(?:over|above|more than|greater than|at least|min(?:imum)?\.?|more expensive than|starting at|from|>=?|≥|"
    r"powyżej|powyzej|ponad|więcej niż|wiecej niz|(?:drożej|drozej|droższ\w*|drozsz\w*|wyższ\w*|wyzsz\w*)\s+(?:niż|niz|od)|"
    r"co najmniej|od|minimum|"
    r"über|ueber|mehr als|mindestens|teurer als|ab)"
)
_PRICE_WORD = (
    r"(?:price|prices|priced|cost|costs|costing|cen\w*|koszt\w*|preis\w*|kost\w*|zł|zl|pln|€|\$|£|eur|usd)"
)


def read_prices(t: Text, facts: list[Fact]) -> None:
    """Price bounds: "under 150zł", "od 100 do 200 zł", "between 100 and 200", "unter 50 €", "over 1000"."""
    price_context = bool(regex(r"(?:\b|(?<=\d))" + _PRICE_WORD).search(t.original)) or not regex(
        r"\b(stories|story|articles?|posts?|news|links?|tables?|artykuł\w*|wpis\w*|tabel\w*|linki\w*|"
        r"nachrichten|beiträge|tabellen?)\b"
    ).search(t.original)
    cur = rf"(?:\s*{CUR})"
    num = rf"{cur}?\s*{AMOUNT}"
    tail_ok = rf"(?![\d.,]?\d)(?!\s*{NOT_PRICE_UNIT})"  # a whole number, not a count of things

    def ok(m: re.Match) -> bool:
        return price_context or bool(regex(CUR).search(m.group(0)))

    rng = (
        rf"\b(?:between|from|od|między|miedzy|pomiędzy|pomiedzy|zwischen|von|in the range(?: of)?|"
        rf"w (?:przedziale|zakresie)|range)\s+(?:the\s+)?"
        rf"{num}{cur}?\s*(?:and|to|do|a|i|und|bis|-|–|—)\s*{num}({cur})?{tail_ok}"
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
        # "max price 100 zł", "min. cena 50 zł", "maximaler Preis 30 €": the price's noun may stand between
        noun = r"(?:(?:the\s+)?(?:price|cena|ceny|preis)\s+(?:of\s+)?)?"
        m = t.search(rf"(?:^|(?<=[\s(]))(?:{words})\s*{noun}{num}({cur})?{tail_ok}(?![\d.,]*\s*(?:-|–)\s*\d)")
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


def read_strict(t: Text, facts: list[Fact]) -> None:
    """Whether a check should fail the task instead of filtering: "must cost", "fail if", "musi kosztować"."""
    m = t.search(
        r"\b(?:must (?:cost|be (?:priced|under|below|cheaper))|fail (?:if|when|on)|error if|"
        r"musi(?:szą)? kosztować|muszą kosztować|muss\b.{0,30}kosten|müssen\b.{0,30}kosten|strict\w*|"
        r"ściśle|sciśle|strikt)"
    )
    if m:
        facts.append(Fact("strict", True, m.start(), m.group(0)))
