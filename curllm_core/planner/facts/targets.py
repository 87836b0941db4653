"""What to act on in the page: quoted strings and their roles (a click target, an option, a category,
a link part, a search term), and the unquoted click targets, categories and search terms."""

from __future__ import annotations

import re

from .base import Fact, Text, negated
from .words import LINK_CUE, VALUE_END

_QUOTES = [('"', '"'), ("'", "'"), ("„", "”"), ("„", "“"), ("“", "”"), ("«", "»"), ("‘", "’"), ("`", "`")]


def quoted_strings(t: Text) -> list[tuple[int, int, str]]:
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


_CLICK_VERB = (
    r"(?:click(?:ing)?|press|tap|hit|kliknij|klikn\w*|naciśnij|nacisnij|wciśnij|klick\w*|drück\w*|drueck\w*)"
)
_SELECT_VERB = r"(?:select|choose|pick|wybierz|zaznacz|wähle|waehle|wählen|auswählen)"
_CATEGORY_CUE = r"(?:categor\w*|kategori\w*|dział\w*|dzial\w*|rubrik\w*)"


def read_quoted_roles(t: Text, quoted: list[tuple[int, int, str]], facts: list[Fact]) -> None:
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
            LINK_CUE + r".{0,20}(contain\w*|with|matching|zawieraj\w*|mit|enthalt\w*|enthält)\s*$",
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


def read_click(t: Text, facts: list[Fact]) -> None:
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
            r"((?:[\w-]+\s+){0,3}[\w-]+?)" + VALUE_END
        )
    if m and m.group(1).strip() and not negated(t, m.start()):
        facts.append(Fact("click_text", m.group(1).strip(), m.start(), m.group(0)))
        t.mask(m.start(), m.end())


def read_category(t: Text, facts: list[Fact]) -> None:
    """Category paths: "Elektronika > Laptopy", "open the category Laptops", "in the Laptops category"."""
    if any(f.kind == "category_path" for f in facts):
        return
    word = r"[^\W\d_][\w&'-]{0,40}"  # bounded: linear on a 10,000-letter word
    m = t.search(
        rf"({word}(?:\s+{word}){{0,2}})\s*(?:>|→|»|›)\s*({word}(?:\s+{word}){{0,2}}?)"
        rf"((?:\s*(?:>|→|»|›)\s*{word}(?:\s+{word}){{0,2}}?){{0,8}})" + VALUE_END
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
        + VALUE_END
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


def read_search(t: Text, facts: list[Fact]) -> None:
    """Unquoted search terms: "search for laptops", "wyszukaj laptopy", "suche nach Katzenfutter"."""
    if any(f.kind == "query" for f in facts):
        return
    verbs = (
        r"(?:search(?:ing)?\s+for|search|look\s+up|looking\s+for|query|wyszukaj|szukaj|poszukaj|"
        r"suche\s+nach|such\s+nach|suche)"
    )
    m = t.search(rf"\b{verbs}\s+(?:the\s+|for\s+)?((?:[^\s,;.]+\s+){{0,4}}?[^\s,;.]+?)" + VALUE_END)
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
