"""The size a listing states of itself ("80 products", "Wyniki 1–24 z 312", "12 von 42 Produkten",
"Showing 1-20 of 95 results"), to compare what was read with it.

`stated_total(texts)` is pure: it takes short visible texts holding a number and returns the
listing's total, or None when the page states none (or states several that disagree). A range or
"N of M" form wins over a bare "M products" (a sidebar's "Laptops 10 products" is no total);
several different bare counts state nothing. `read_stated_total(page)` gathers the texts in one
browser call (visible text nodes with a digit and a count word, at most 40 of them);
`html_stated_total(html)` gathers the same texts from HTML as fetched (the HTTP engine).
`stated_listing(texts)` also says how many items this page says it shows ("1–20 of 95": 20).
`Shortfall` (an extraction read fewer items than stated) and `PagesLeft` (a pager read the pages it
was asked for and the listing links more) are warnings as typed values, which the runner decides by.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..text import fold

# Nouns a listing counts itself in (folded: no accents, ł as l), PL/EN/DE.
_NOUN = (
    r"(?:products?|results?|items?|articles?|offers?|listings?|matches|hits|"
    r"produkt\w*|wynik\w*|ofert\w*|artykul\w*|pozycj\w*|przedmiot\w*|rzecz\w*|ogloszen\w*|"
    r"artikel\w*|ergebnis\w*|treffer|angebot\w*|eintrag\w*|eintrage\w*)"
)
_NUM = r"(\d{1,3}(?:[ .,\u00a0\u202f]\d{3})+|\d+)"
_DASH = r"\s*[-–—]\s*"
# "1-20 of 95", "1–24 z 312", "1 - 12 von 42", "12 of 95", "12 von 42", "12 z 312"
_OF = re.compile(
    r"(?:\b(?P<first>\d+)"
    + _DASH
    + r")?\b(?P<last>\d+)\s+(?:of|z|ze|von|aus)\s+"
    + _NUM
    + r"(?!\s*[.,]\d)(?:\s+"
    + _NOUN
    + r")?\b"
)
# "95 results", "80 products", "312 wyników", "42 Produkte", "(42 Artikel)"
_COUNT = re.compile(r"\b" + _NUM + r"\s+" + _NOUN + r"\b")
# words that make a number something else than the listing's size
_NOT = re.compile(
    r"\b(?:page|pages|strona|strony|stron|seite|seiten|stars?|gwiazd\w*|sterne?|reviews?|opini\w*|bewertung\w*|ratings?|ocen\w*)\b"
)

# Visible short texts with a digit and a count word; whole small blocks (a toolbar's line), not
# the page's text at once. One call; no layout unless a text passes the cheap word test.
STATED_TEXTS_JS = r"""(re) => {
  const word = new RegExp(re, "i");
  const out = [];
  const walk = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(), seen = 0; n && seen < 30000 && out.length < 40; n = walk.nextNode(), seen++) {
    const t = n.data;
    if (t.length > 300 || !/\d/.test(t)) continue;
    const el = n.parentElement;
    if (!el || el.closest("script, style, noscript, template, option")) continue;
    const block = el.closest("p, div, span, li, h1, h2, h3, h4, header, label, strong, small") || el;
    const text = (block.textContent || "").replace(/\s+/g, " ").trim();
    if (text.length > 160 || !word.test(text)) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    if (!out.includes(text)) out.push(text);
  }
  return JSON.stringify(out);
}"""
#: The cheap word test of `STATED_TEXTS_JS` (its argument): a digit beside a count word.
STATED_WORD_JS = r"\d\s*(?:products?|results?|items?|articles?|offers?|produkt|wynik|ofert|pozycj|artikel|ergebnis|treffer|angebot)|\d\s+(?:of|z|ze|von|aus)\s+\d"


def _number(raw: str) -> int:
    return int(re.sub(r"\D", "", raw))


def stated_total(texts: list[str]) -> int | None:
    """The total the listing states in ``texts`` (short visible texts), or None."""
    return stated_listing(texts)[0]


def stated_listing(texts: list[str]) -> tuple[int | None, int | None]:
    """The total the listing states in ``texts`` and how many of them this page says it shows
    ("21–40 of 95": 95 and 20; "12 von 42": 42 and 12; "42 products": 42 and None); (None, None)."""
    ranged: list[tuple[int, int]] = []
    bare: list[int] = []
    for text in texts:
        folded = fold(text)
        if _NOT.search(folded):
            continue
        m = _OF.search(folded)
        if m:
            last = int(m.group("last"))
            shown = last - int(m.group("first")) + 1 if m.group("first") else last
            ranged.append((_number(m.group(3)), shown))  # group 3: the total, after first and last
            continue
        bare.extend(_number(m.group(1)) for m in _COUNT.finditer(folded))
    totals = {total for total, _ in ranged}
    if len(totals) == 1:
        shown_here = {shown for _, shown in ranged}
        return totals.pop(), shown_here.pop() if len(shown_here) == 1 and min(shown_here) > 0 else None
    if len(totals) > 1:
        return None, None  # two listings' "of N" on one page: no one total to compare with
    values = set(bare)
    return (values.pop(), None) if len(values) == 1 else (None, None)


async def read_stated_total(page: Any) -> int | None:
    """The total ``page``'s listing states of itself, or None (one browser call)."""
    return stated_total(await read_stated_texts(page))


async def read_stated_texts(page: Any) -> list[str]:
    """The short visible texts of ``page`` that may state the listing's size (one browser call)."""
    return stated_texts_of(await page.evaluate(STATED_TEXTS_JS, STATED_WORD_JS))


def stated_texts_of(answer: Any) -> list[str]:
    """The texts of what `STATED_TEXTS_JS` answered (run here or inside another call)."""
    texts = json.loads(answer) if isinstance(answer, str) else None
    return [t for t in texts if isinstance(t, str)] if isinstance(texts, list) else []


_BLOCKS = "p, div, span, li, h1, h2, h3, h4, header, label, strong, small"


def html_stated_total(html: str) -> int | None:
    """`read_stated_total` on HTML as fetched: the same short texts, read with selectolax (what the
    markup hides by itself, ``hidden`` and ``display:none``, left out; no layout to ask)."""
    return stated_total(html_stated_texts(html))


def html_stated_texts(html: str) -> list[str]:
    """The short texts of HTML as fetched that may state the listing's size (see `html_stated_total`)."""
    from selectolax.lexbor import LexborHTMLParser

    from .extraction._html import JUNK_TAGS, hidden_self

    word = re.compile(STATED_WORD_JS, re.IGNORECASE)
    if not word.search(html):  # no count word beside a number anywhere: nothing to read (no parse)
        return []
    tree = LexborHTMLParser(html)
    body = tree.body or tree.root
    if body is None:
        return []
    for node in body.css(", ".join(JUNK_TAGS + ["option"])):
        node.decompose()
    texts: list[str] = []
    for block in body.css(_BLOCKS):
        if len(texts) >= 40:
            break
        text = " ".join((block.text(deep=True, separator=" ") or "").split())
        if not text or len(text) > 160 or not re.search(r"\d", text) or not word.search(text):
            continue
        if any(hidden_self(n) for n in _self_and_ancestors(block)):
            continue
        if text not in texts:
            texts.append(text)
    return texts


def _self_and_ancestors(node: Any) -> list[Any]:
    out = []
    while node is not None and node.tag not in ("body", "html", "-undef"):
        out.append(node)
        node = node.parent
    return out


def shortfall(stated: int | None, read: int) -> str | None:
    """A warning when fewer items were read than the page states it has; None when not fewer."""
    if stated is None or read >= stated:
        return None
    return f"the page states {stated} items and {read} were read: the result may miss {stated - read} of them"


@dataclass(frozen=True)
class Shortfall:
    """The warning that an extraction read fewer items than its page states, as a typed value: the
    runner decides by its fields, never by its words; ``str()`` is the text the result carries.

    ``paged``: the page links its next page (`pagination.links_pages`), so the rest is on the
    following pages, which a pager reads ("from all pages"). ``earlier``: the page links its previous
    page and no next one (the last page of a listing): the rest is on the pages before it. ``shown``:
    how many items this page says it shows ("1–20 of 120": 20), when it says so."""

    tool: str
    stated: int
    read: int
    paged: bool = False
    shown: int | None = None
    earlier: bool = False

    def __str__(self) -> str:
        text = f"{self.tool}: {shortfall(self.stated, self.read)}"
        if self.paged:
            text += (
                '; the page links its next page: ask for more pages (e.g. "from the first 5 pages",'
                ' "ze wszystkich stron", "von allen Seiten") to read them'
            )
        elif self.earlier:
            text += (
                "; the page is a later page of its listing (it links the previous one): start from the"
                ' listing\'s first page and ask for more pages (e.g. "from all pages", "ze wszystkich'
                ' stron", "von allen Seiten") to read them'
            )
        return text

    @property
    def explained(self) -> bool:
        """Whether the listing's pages explain the gap: it links its next page, or its previous one
        (the rest is before it), and this page was read whole (as many items as it says it shows,
        when it says)."""
        return (self.paged or self.earlier) and (self.shown is None or self.read >= self.shown)


@dataclass(frozen=True)
class PagesLeft:
    """The pager read the ``pages`` it was asked for (``max_pages``) and the listing links its next
    page: what a browser's pager would read too (the same links). ``short``: the first page read fewer
    items than it says it shows ("1–20 of 120" and 12 read): its HTML lacks what a script adds.
    ``str()`` is the text the result carries, the same on both engines."""

    pages: int
    tool: str = ""
    short: bool = False

    def __str__(self) -> str:
        read = "1 page" if self.pages == 1 else f"{self.pages} pages"
        return (
            f"{self.tool + ': ' if self.tool else ''}read {read} and the listing goes on (max_pages={self.pages}):"
            " what was filtered, ordered or counted covers those pages only"
        )

    @property
    def explained(self) -> bool:
        """Whether the listing's pages explain what is left: the browser would read the same pages."""
        return not self.short


#: The warnings a run's runner tells apart by type (`engines.switch_reason`).
ListingWarning = Shortfall | PagesLeft
