"""A record's fields, read from its block: the title link and title, points, comments, author, date,
rank, snippet and whether it is sponsored (for `articles_generic`, which finds the records)."""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import parse_qsl, urlsplit

from selectolax.lexbor import LexborNode

from ...text import collapse_space
from ._html import (
    SCRIPT_LINKS,
    ClassWords,
    HiddenIndex,
    absolute_url,
    address,
    parse_count,
    visible_text,
)
from ._parse_memo import current as current_memo
from ._product_names import without_badges

COMMENT_TITLE = 120  # a comment's title: its text cut to about this many characters

_COUNT = r"(\d[\d.,\u00a0\u202f ]*[kKmM]?)"

_POINTS_WORDS = (
    r"points?|pts|score|punkte?|punkty|punktów|punktow|upvotes?|votes?|głos\w*|glos\w*|stimmen|likes?|"
    r"polubie\w*|gefällt\w*|karma"
)

_POINTS_TEXT_RE = re.compile(
    rf"^\s*(?:{_COUNT}\s*(?:{_POINTS_WORDS})|(?:{_POINTS_WORDS})\s*:?\s*{_COUNT})\s*(?:mal|times|x|razy)?\s*$",
    re.IGNORECASE,
)

# A stem of every word of _POINTS_WORDS: substring tests are a cheap first filter of short labels.
_POINTS_STEMS = (
    "point",
    "pts",
    "score",
    "punkt",
    "vote",
    "głos",
    "glos",
    "stimmen",
    "like",
    "polubie",
    "gefällt",
    "karma",
)


_POINTS_STEMS_RE = re.compile("|".join(_POINTS_STEMS))  # searched in the lower-cased text


def _points_hint(raw: str) -> bool:
    return _POINTS_STEMS_RE.search(raw.lower()) is not None


_BARE_COUNT_RE = re.compile(r"^\s*[+]?\d[\d.,\u00a0\u202f ]*[kKmM]?\s*$")

_POINTS_ATTR_RE = ClassWords(r"score|points?|vote|karma|likes?|upvote|punkt")

_COMMENT_WORDS = r"comments?|komentarz\w*|kommentare?|replies|reply|odpowiedzi|odpowiedź|antworten|antwort"

_COMMENTS_TEXT_RE = re.compile(rf"^\s*{_COUNT}\s*(?:{_COMMENT_WORDS})\s*$", re.IGNORECASE)

_NO_COMMENTS_RE = re.compile(
    r"^\s*(discuss|comment|comments|add a comment|skomentuj|kommentieren|no comments|brak komentarzy|"
    r"keine kommentare)\s*$",
    re.IGNORECASE,
)

_DIGIT_RE = re.compile(r"\d")

#: Beside a digit, the words of a comment count (`_labels` finds the digit).
_COMMENTS_HINT_RE = re.compile(r"discuss|comment|koment|komment", re.IGNORECASE)

#: Beside a digit, the words of a date (`_labels` finds the digit).
_DATE_HINT_RE = re.compile(r"yesterday|today|just now|gestern|heute|wczoraj|dzisiaj|dziś", re.IGNORECASE)

_AGO_RE = re.compile(
    r"\b\d+\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|wks?|months?|mos?|years?|yrs?|yr)\.?"
    r"\s+ago\b|\bvor\s+(?:\d+|einer?|einem)\s+(?:sekunden?|minuten?|stunden?|tag(?:en)?|wochen?|monat(?:en)?|"
    r"jahr(?:en)?)\b|\b\d+\s+(?:sekund\w*|minut\w*|godzin\w*|dni|dzień|tygodni\w*|miesi\w*|lat\w*|rok\w*)\s+temu\b|"
    r"^\s*(?:yesterday|today|just now|gestern|heute|wczoraj|dzisiaj|dziś)\b",
    re.IGNORECASE,
)
#: `_AGO_RE`'s last branch alone: the words that need no count, opening the text.
_AGO_START_RE = re.compile(
    r"\s*(?:yesterday|today|just now|gestern|heute|wczoraj|dzisiaj|dziś)\b", re.IGNORECASE
)


def _ago(text: str) -> bool:
    """Whether ``text`` says how long ago (`_AGO_RE`). Its count branches each need "ago", "vor" or
    "temu", which no other letters match case-insensitively: a text holding none of them is asked its
    last branch alone (searching the whole pattern costs about ten times as much, and most labels
    with a digit say no time)."""
    low = text.lower()
    if "ago" in low or "vor" in low or "temu" in low:
        return _AGO_RE.search(text) is not None
    return _AGO_START_RE.match(text) is not None


_DATE_TEXT_RE = re.compile(
    r"^\s*(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}[./]\d{1,2}[./]\d{2,4}|"
    r"(?:\d{1,2}\.?\s+)?[^\W\d_]{3,10}\.?\s+\d{1,2},?\s+\d{4}|\d{1,2}\.?\s+[^\W\d_]{3,10}\.?\s+\d{4})\s*$"
)

_ISO_RE = re.compile(
    r"^\s*(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)"
)

_RANK_TEXT_RE = re.compile(r"^\s*#?(\d{1,4})\.\s*$")

_PROFILE_RE = re.compile(
    r"/(?:user|users|u|profile|profiles|author|authors|member|members|people|benutzer|uzytkownik|~)/([^/?#]+)/?$"
    r"|[?&](?:user|username|author|uid|member)=([^&#]+)"
    r"|/user\?id=([^&#]+)",
    re.IGNORECASE,
)

_AUTHOR_WORDS = ("author", "user", "byline", "poster", "submitter", "autor", "nick")
_AUTHOR_CLASS_RE = ClassWords("|".join(_AUTHOR_WORDS))
#: The elements `_author` reads: marked as the author, classed with an author word (the same
#: case-insensitive substrings as `_AUTHOR_CLASS_RE`, found by the parser), and links.
_AUTHOR_QUERY = ", ".join(
    ['[rel~="author"]', '[itemprop="author"]', *(f'[class*="{w}" i]' for w in _AUTHOR_WORDS), "a[href]"]
)

_BY_RE = re.compile(r"^\s*(?:by|von|przez|posted by|submitted by|autor:?|author:?|u/|@)\s*", re.IGNORECASE)

_SPONSORED_LABEL_RE = re.compile(
    r"^(?:ads?|sponsored|gesponsert|sponsorowane|sponsorowany|anzeige|werbung|reklama|promoted|promowane|"
    r"advertisement|sponsoris[ée]e?|patrocinad[oa]|sponsorizzat[oa]|pubblicit[àa]|publicit[ée]|"
    r"publicidad|publicidade|advertentie|gesponsord|annons|annonse|mainos|hirdetés)$",
    re.IGNORECASE,
)

_AD_PARTS = frozenset(
    {"ad", "ads", "adv", "advert", "adverts", "advertisement", "sponsored", "sponsor", "promoted", "promo"}
)

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

#: "title" in the languages class names are written in (Titel, titre, titolo, título, tytuł).
_TITLE_WORDS = r"title|titel|titre|titolo|titulo|tytul"
_TITLE_CLASS_RE = ClassWords(rf"{_TITLE_WORDS}|headline|subject|topic|heading")

_BLOCK_TEXT_TAGS = frozenset({"p", "div", "span", "td", "li", "blockquote", "section", "article", "dd"})


def _class_parts(node: LexborNode) -> frozenset[str]:
    """The words of an element's class names and id ("search-result s_item" -> search, result, s, item)."""
    attrs = node.attributes
    return _attribute_parts(attrs.get("class") or "", attrs.get("id") or "")


_PART_SEP_RE = re.compile(r"[-_]")


@functools.lru_cache(maxsize=8192)
def _attribute_parts(cls: str, ident: str) -> frozenset[str]:
    """`_class_parts` of a class and an id attribute (pages repeat a few thousand of them)."""
    parts: set[str] = set()
    for token in cls.split():
        parts.update(p for p in _PART_SEP_RE.split(token.lower()) if p)
    ident = ident.lower()
    if ident:
        parts.update(p for p in _PART_SEP_RE.split(ident) if p)
    return frozenset(parts)


_FACET_RE = re.compile(r"\(\s*(\d[\d.,\s]*)\)\s*$")


def _facet(text: str) -> bool:
    """A filter choice with its count: "GeForce RTX (712)" (a year in brackets is a title's: "(2019)")."""
    m = _FACET_RE.search(text)
    return m is not None and not re.fullmatch(r"(19|20)\d\d", m.group(1).strip())


def _meta_text(text: str) -> bool:
    """Texts that are details, not titles: counts, times, dates, filter choices."""
    return bool(
        _facet(text)
        or _COMMENTS_TEXT_RE.match(text)
        or _NO_COMMENTS_RE.match(text)
        or _POINTS_TEXT_RE.match(text)
        or _ago(text)
        or _DATE_TEXT_RE.match(text)
    )


# --- fields -----------------------------------------------------------------------------------------


def _scope(member: LexborNode, members: set[int], titled: set[int]) -> list[LexborNode]:
    """The item's block and the sibling blocks after it that hold no title of their own (a story's
    subtext row), up to the next item."""
    scope = [member]
    sibling = member.next
    steps = 0
    while sibling is not None and steps < 4:
        if sibling.is_element_node:
            steps += 1
            if sibling.mem_id in members or sibling.mem_id in titled:
                break
            if sibling.tag != member.tag:
                break
            scope.append(sibling)
        sibling = sibling.next
    return scope


def _one_word_title(text: str) -> bool:
    """A title of one word or a reference ("Iliad", "owner/repo"): letters, not a count or a date."""
    return 2 <= len(text) <= 80 and bool(re.search(r"[^\W\d_]", text)) and not _meta_text(text)


def _target(link: LexborNode, scripts: bool = False, people: bool = False) -> bool:
    """A link that may lead to a record: not an anchor, mail, a phone or a person's profile (unless
    ``people``: the records asked for are people), and not a script unless ``scripts`` (a title link
    that runs a script to open its record)."""
    href = address(link)
    low = href.lower()
    return not (
        not href
        or href.startswith("#")
        or low.startswith(("mailto:", "tel:"))
        or (low.startswith("javascript:") and not (scripts and len(low) > len("javascript:") + 4))
        or (not people and _profile(href) is not None)  # a link to a person is an author, not a title
    )


#: What every branch of `_PROFILE_RE` spells, in lower case: an address with none of them is no
#: person's (most are not: the pattern, searched at every place of a long address, costs more).
_PROFILE_WORDS = (
    "user",
    "/u/",
    "profile",
    "author",
    "member",
    "people",
    "benutzer",
    "uzytkownik",
    "/~/",
    "uid=",
)


def _profile(href: str) -> re.Match[str] | None:
    """`_PROFILE_RE` searched in the address ``href`` (a person's profile). An ASCII address is first
    tested for its words (case-insensitive matching joins some other letters to them)."""
    if href.isascii() and not any(word in href.lower() for word in _PROFILE_WORDS):
        return None
    return _PROFILE_RE.search(href)


def _runs_script(link: LexborNode) -> bool:
    return (link.attributes.get("href") or "").strip().lower().startswith("javascript:")


def _title_link(member: LexborNode, title_ids: set[int]) -> LexborNode | None:
    """The record's title link: one in a heading or holding one (``<a><h2>…</h2></a>``, not a
    breadcrumb's link above it), else one named a title, else the first; a link to an address
    before one that runs a script."""
    links = sorted(
        (a for a in member.css(f"a[href], {SCRIPT_LINKS}") if a.mem_id in title_ids), key=_runs_script
    )
    if not links:
        return None
    for link in links:
        if link.css_first("h1, h2, h3, h4, h5, h6, [role=heading]") is not None:
            return link
        node: LexborNode | None = link
        for _ in range(4):
            node = node.parent if node is not None else None
            if node is None or node.mem_id == member.mem_id:
                break
            if node.tag in _HEADINGS or node.attributes.get("role") == "heading":
                return link
    for link in links:
        node = link
        for _ in range(3):
            if _TITLE_CLASS_RE.search(
                " ".join(filter(None, (node.attributes.get("class"), node.attributes.get("data-testid"))))
            ):
                return link
            node = node.parent
            if node is None or node.mem_id == member.mem_id:
                break
    return links[0]


_TITLED_QUERY = ", ".join(
    f"[{attr}*={part}]"
    for attr in ("class", "data-testid", "data-test", "itemprop")
    for part in ("itle", "itel", "itre", "itolo", "itulo", "ytul", "eadline")
)
_TITLED_RE = ClassWords(rf"{_TITLE_WORDS}|headline")
HEADING_LEVELS = 4  # how far up from a heading its record's block may start


def _headed_links(
    body: LexborNode, hidden: HiddenIndex, titles: set[int], repeated: set[int], usable
) -> dict[int, LexborNode]:
    """Records titled by a heading without a link, whose target is a link beside it that shows no
    title: its address as text ("www.example.com/a/b"), a picture, a badge ("verified"), words every
    record's link shows (``repeated``: "More information"). Returns the first such link of each record
    (a block holding one heading, no title link and no repeated words twice) -> the heading.
    An element the markup names a title (``class="card-title"``, a title test id) stands for a heading
    as well (cards that link only their photo, a "Ver detalles" every card shows, a "[PDF]").
    ``usable(link)`` tells a link that may be a record's target (not a script, an anchor, a profile)."""
    found: dict[int, LexborNode] = {}
    headings = [(h, True) for h in body.css("h1, h2, h3, h4, h5, h6, [role=heading]")]
    # A definition list's term heads the descriptions after it ("<dt>CS 101</dt><dd>… Details</dd>"),
    # a table row's header cell the cells after it ("<th scope=row>Fisica</th><td>… Scheda</td>").
    # A row header printed in several tables ("Hersteller" in every product's specifications) is a
    # label, not a record's title.
    row_heads = [t for t in body.css("tr > th") if _heads_its_row(t)]
    seen = Counter(visible_text(t).casefold() for t in row_heads)
    terms = [(t, True) for t in body.css("dt")] + [
        (t, True) for t in row_heads if seen[visible_text(t).casefold()] == 1
    ]
    # An element the markup names a title (class, test id) stands for a heading.
    named = [(n, False) for n in _named_titles(body)]
    # Named titles and terms first: each claims its own record's link before a heading further up
    # (the page's heading over the whole list) can.
    for heading, real in named + terms + headings:
        if heading.css_first("a[href]") is not None or hidden(heading) or not visible_text(heading):
            continue
        if heading.tag in ("dt", "th"):
            target = _described_target(heading, titles, repeated, usable, hidden)
            if target is not None and target.mem_id not in found:
                found[target.mem_id] = heading
            continue
        up: LexborNode | None = heading.parent
        if up is not None and up.tag == "a":
            continue  # a card-wide link: its own title (`_link_title`)
        for _ in range(HEADING_LEVELS):
            if up is None or up.tag in ("body", "html"):
                break
            links = up.css("a[href]") or [n for n in up.css(SCRIPT_LINKS) if address(n)]
            if links:
                if (
                    any(a.mem_id in titles for a in links)
                    or _twice(a for a in links if a.mem_id in repeated)
                    or len(up.css("h1, h2, h3, h4, h5, h6, [role=heading]")) != (1 if real else 0)
                    or (not real and len(_named_titles(up)) != 1)
                ):
                    break  # a section with titled entries, or a block of several records
                target = next((a for a in links if usable(a) and not hidden(a)), None)
                if target is not None and not real and _TITLED_RE.search(_flags(up)):
                    break  # a named title inside a title block
                if target is not None and target.mem_id not in found:
                    found[target.mem_id] = heading
                break
            up = up.parent
    return found


def _heads_its_row(cell: LexborNode) -> bool:
    """Whether a ``<th>`` heads a row of data (a ``<td>`` after it), not a header row's column nor a
    label of a specification's line ("Hersteller:", "PCI:")."""
    if visible_text(cell).rstrip().endswith(":"):
        return False
    node = cell.next
    while node is not None:
        if node.tag == "td":
            return True
        node = node.next
    return False


def _described_target(
    term: LexborNode, titles: set[int], repeated: set[int], usable, hidden: HiddenIndex
) -> LexborNode | None:
    """The target of a definition list's term, or a table row's header cell, without a link: the
    first usable link of the descriptions (``<dd>``, the row's ``<td>``) after it, up to the next
    term, when none of their links is a title and no repeated words show twice (one record's
    description, not several)."""
    links: list[LexborNode] = []
    stop, holds = ("dt", "dd") if term.tag == "dt" else ("th", "td")
    node = term.next
    while node is not None and node.tag != stop:
        if node.tag == holds:
            links += node.css("a[href]")
        node = node.next
    if any(a.mem_id in titles for a in links) or _twice(a for a in links if a.mem_id in repeated):
        return None
    return next((a for a in links if usable(a) and not hidden(a)), None)


def _twice(links: Iterable[LexborNode]) -> bool:
    """Whether two of ``links`` show the same words: a block of several records, each with its copy
    ("More information"), where one record's actions differ ("Buy tickets", "More info")."""
    seen: set[str] = set()
    for link in links:
        words = visible_text(link).casefold()
        if words in seen:
            return True
        seen.add(words)
    return False


def _named_titles(box: LexborNode) -> list[LexborNode]:
    """Elements in ``box`` other than headings whose class or test id names them a title."""
    seen: set[int] = set()
    found = []
    for node in box.css(_TITLED_QUERY):  # an element matching two of the query's parts comes twice
        if node.mem_id not in seen and node.tag not in _HEADINGS and _TITLED_RE.search(_flags(node)):
            seen.add(node.mem_id)
            found.append(node)
    return found


def _flags(node: LexborNode) -> str:
    attrs = node.attributes
    return " ".join(filter(None, (attrs.get(k) for k in ("class", "itemprop", "data-testid", "data-test"))))


def _marked(link: LexborNode) -> str | None:
    """What the markup names a link, or the element around it or its one child: "author" (a byline's
    link: never a title), "title" (a title or name: one word is enough) or None."""
    children = [c for c in link.iter() if c.is_element_node]
    # (the words are letters: searched in the flags joined by spaces, no word spans two of them)
    own = _flags(link) + " " + (_flags(children[0]) if len(children) == 1 else "")
    around = _flags(link.parent) if link.parent is not None else ""
    if _AUTHOR_CLASS_RE.search(own + " " + around):
        return "author"
    if _NAMED_RE.search(own):  # the link or its child, not the box around it
        return "title"
    return None


_BLOCKS = (
    "div, p, section, h1, h2, h3, h4, h5, h6, ul, ol, li, dl, dt, dd, article, header, footer, table, "
    "figure, figcaption, blockquote, address"
)
_NAMED_RE = ClassWords(rf"{_TITLE_WORDS}|name|headline|nazwa|nombre|naam")


def _link_title(link: LexborNode) -> str:
    """The title a link shows. A link wrapping a whole card (image, title, price, place) shows it in
    a heading or a title/name element inside, else in its label attribute. A badge opening or closing
    the title in an element of its own ("NEW", a ``pill``/``tag``/``label`` element) is no part of it."""
    text = _text(link)
    if link.css_first(_BLOCKS) is None:
        strong = _strong_part(link)
        return without_badges(link, text) if strong is None else visible_text(strong)
    heading = link.css_first("h1, h2, h3, h4, h5, h6, [role=heading]")
    if heading is not None and visible_text(heading):
        return without_badges(heading, visible_text(heading))
    for node in link.css("[class], [data-test], [data-testid], [itemprop]"):
        attrs = node.attributes
        flags = " ".join(
            filter(None, (attrs.get(k) for k in ("class", "data-test", "data-testid", "itemprop")))
        )
        if _NAMED_RE.search(flags) and not _AUTHOR_CLASS_RE.search(flags):
            named = visible_text(node)
            if named and len(named) < len(text):
                return named
    for key in ("aria-label", "title"):
        label = " ".join((link.attributes.get(key) or "").split())
        if label and label in text:
            return label
    return without_badges(link, text)


def _strong_part(link: LexborNode) -> LexborNode | None:
    """A card drawn inline: the link's words all in elements of their own (a tag, the title, a
    reading time and date), one of them bold (``<strong>``, ``<b>``) with two words or more, or the
    one the markup names a title (``class="job-title"``); that one is the title. Words of the link's
    own ("Buy the <b>best</b> shoes") keep it whole."""
    parts = []
    child = link.child
    while child is not None:
        if child.is_text_node:
            if (child.text_content or "").strip():
                return None  # words of the link's own
        elif child.is_element_node and visible_text(child):
            parts.append(child)
        child = child.next
    if len(parts) < 2:
        return None
    named = [p for p in parts if _NAMED_RE.search(_flags(p)) and not _AUTHOR_CLASS_RE.search(_flags(p))]
    if len(named) == 1:
        return named[0]
    bold = [p for p in parts if p.tag in ("strong", "b")]
    if len(bold) != 1 or len(visible_text(bold[0]).split()) < 2:
        return None
    return bold[0]


_REDIRECT_KEYS = ("u", "url", "q", "uddg", "target", "dest", "destination", "redirect", "to", "link")


def _unwrap(url: str) -> str:
    """The target of a redirect link that carries it in its query (plain, percent- or base64-encoded)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.query:
        return url
    host = (parts.hostname or "").lower()
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if key.lower() not in _REDIRECT_KEYS:
            continue
        for candidate in _decoded(value):
            target = urlsplit(candidate)
            if target.scheme in ("http", "https") and target.hostname and target.hostname.lower() != host:
                return candidate
    return url


def _decoded(value: str) -> list[str]:
    out = [value] if value.startswith(("http://", "https://")) else []
    for raw in (value, value[2:]):  # a short type prefix before base64 ("a1...")
        if len(raw) < 12 or not re.fullmatch(r"[A-Za-z0-9_\-]+=*", raw):
            continue
        try:
            text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if text.startswith(("http://", "https://")) and not re.search(r"\s", text):
            out.append(text)
    return out


#: A short element of a block: the element, its memory id, raw text, tag, and whether the text shows a digit.
_Short = tuple[LexborNode, int, str, str, bool]
SHORT_LABEL = 160  # the longest raw text any field reads as a label (`_labels`' limits are at most this)


def _text(node: LexborNode) -> str:
    """`visible_text`, with a fast path for an element holding text only (most short labels); kept in
    the parse's memo (`_parse_memo`)."""
    memo = current_memo()
    key = node.mem_id
    if memo is not None:
        hit = memo.labels.get(key)
        if hit is not None:
            return hit
    child = node.child
    text = None
    while child is not None:
        if child.is_element_node:
            text = visible_text(node)
            break
        child = child.next
    if text is None:
        text = collapse_space(node.text(deep=True))
    if memo is not None:
        memo.labels[key] = text
    return text


def _innermost(node: LexborNode, text: str) -> bool:
    """The number sits in ``node`` itself: no child element carries another part of it."""
    for child in _children(node):
        if child.is_element_node:
            inner = _text(child)
            if inner == text:
                return False
            if inner and any(ch.isdigit() for ch in inner):
                return False
    return True


def _short_nodes(block: LexborNode) -> list[_Short]:
    """The elements of ``block`` (itself included) whose raw text is at most `SHORT_LABEL` characters,
    in page order, with their memory id, raw text, tag and whether that text shows a digit; one walk
    per block and parse, shared by every field (points, comments, date, rank, sponsored labels read
    the same short elements, most of them for a digit)."""
    memo = current_memo()
    key = block.mem_id
    if memo is not None:
        hit = memo.short.get(key)
        if hit is not None:
            return hit
    # Each element's raw text is joined from its children's, read once each (asking the parser for
    # every element's deep text copies a deep block's text once per level). The elements are listed
    # in page order: a slot is taken on the way down and filled on the way up.
    slots: list[_Short | None] = []
    # (element, its children still to read, its text's parts, its parent's parts, its slot)
    stack: list[tuple[LexborNode, Iterator[LexborNode], list[str], list[str], int]] = [
        (block, block.iter(include_text=True), [], [], 0)
    ]
    slots.append(None)
    while stack:
        node, children, parts, above, slot = stack[-1]
        for child in children:
            if child.is_element_node:
                stack.append((child, child.iter(include_text=True), [], parts, len(slots)))
                slots.append(None)
                break
            if child.is_text_node:
                parts.append(child.text_content or "")
        else:  # every child read: the element's text is known
            stack.pop()
            raw = "".join(parts)
            above.append(raw)
            if len(raw) <= SHORT_LABEL:
                slots[slot] = (node, node.mem_id, raw, node.tag or "", _DIGIT_RE.search(raw) is not None)
                if not raw:
                    del slots[slot + 1 :]  # nothing inside to read: its elements are not listed
    found = [short for short in slots if short is not None]
    if memo is not None:
        memo.short[key] = found
    return found


def _digit_nodes(block: LexborNode) -> list[_Short]:
    """The `_short_nodes` of ``block`` whose raw text shows a digit (most fields read only these)."""
    memo = current_memo()
    hit = None if memo is None else memo.digits.get(block.mem_id)
    if hit is None:
        hit = [short for short in _short_nodes(block) if short[4]]
        if memo is not None:
            memo.digits[block.mem_id] = hit
    return hit


def _raw(block: LexborNode) -> str:
    """The raw text of ``block``, kept in the parse's memo."""
    memo = current_memo()
    hit = None if memo is None else memo.raw.get(block.mem_id)
    if hit is None:
        hit = block.text(deep=True)
        if memo is not None:
            memo.raw[block.mem_id] = hit
    return hit


def _labels(
    block: LexborNode,
    limit: int,
    words: re.Pattern | None = None,
    tags: frozenset[str] | None = None,
    itself: bool = True,
) -> Iterator[tuple[LexborNode, str, str]]:
    """The elements of ``block`` (and ``block`` itself) whose raw text is at most ``limit`` characters
    (at most `SHORT_LABEL`) and shows a digit or one of ``words``, in page order, with their tag and
    that raw text."""
    own = block.mem_id
    if words is not None and words.search(_raw(block)) is None:
        words = None  # a word of ``words`` in no element: only the digits are left to read
    for node, key, raw, tag, digit in _short_nodes(block) if words is not None else _digit_nodes(block):
        if (
            len(raw) <= limit
            and (itself or key != own)
            and (tags is None or tag in tags)
            and (digit or (words is not None and words.search(raw) is not None))
        ):
            yield node, tag, raw


def _short_texts(
    scope: list[LexborNode],
    limit: int,
    hint: Callable[[str], bool] | None = None,
    skip: tuple[str, ...] = (),
) -> Iterator[tuple[LexborNode, LexborNode, str]]:
    """Elements of the scope whose text is short and shows a digit, with their visible text; cheap
    tests on the raw text first (it holds all the visible text: a word ``hint`` finds in neither is in
    neither). Elements of a tag in ``skip`` are passed over before their text is read."""
    for block in scope:
        if hint is not None and not hint(_raw(block)):
            continue  # the hint's words in none of its elements
        for node, tag, raw in _labels(block, 4 * limit):
            # (a raw text with a digit has a child: the node is not empty)
            if tag in skip or (hint is not None and not hint(raw)):
                continue
            text = _text(node)
            if text and len(text) <= limit:
                yield block, node, text


def _points(scope: list[LexborNode]) -> int | None:
    """Points, score, upvotes, likes: "284 points", "Punkte: 12", or a bare number named so."""
    for _, node, text in _short_texts(scope, 40, _points_hint):
        if _innermost(node, text):
            m = _POINTS_TEXT_RE.match(text)
            if m:
                return parse_count(m.group(1) or m.group(2))
    for block, node, text in _short_texts(scope, 12, skip=("a", "button")):
        if not _BARE_COUNT_RE.match(text) or not _innermost(node, text):
            continue
        if _points_context(node, block):
            return _median_sibling(node, text)
    return None


def _children(node: LexborNode) -> list[LexborNode]:
    out = []
    child = node.child
    while child is not None:
        out.append(child)
        child = child.next
    return out


_NOT_POINTS_RE = ClassWords(r"rank|rating|star|review|opini|bewert|meta|report")


def _points_context(node: LexborNode, block: LexborNode) -> bool:
    """A bare number is a score when it or a near ancestor is named so (class, id, label), and
    nothing near says it is a rank, a rating or a count of reviews."""
    named = False
    current: LexborNode | None = node
    for _ in range(3):
        if current is None:
            break
        attrs = current.attributes
        label = " ".join(
            filter(
                None, (attrs.get("class"), attrs.get("id"), attrs.get("aria-label"), attrs.get("data-testid"))
            )
        )
        if label and _NOT_POINTS_RE.search(label):
            return False
        named = named or bool(label and _POINTS_ATTR_RE.search(label))
        if current.mem_id == block.mem_id:
            break
        current = current.parent
    return named


def _median_sibling(node: LexborNode, text: str) -> int | None:
    """A vote widget may print the count for every vote state side by side (n-1, n, n+1): the middle one."""
    parent = node.parent
    values: list[int] = []
    if parent is not None:
        for sibling in _children(parent):
            if sibling.is_element_node and sibling.tag == node.tag:
                value = visible_text(sibling)
                count = parse_count(value) if _BARE_COUNT_RE.match(value or "") else None
                if count is not None:
                    values.append(count)
    if len(values) >= 3 and max(values) - min(values) <= 2:
        return sorted(values)[len(values) // 2]
    return parse_count(text)


_COMMENT_TAGS = frozenset({"a", "span", "div", "li", "button", "td", "p", "small", "dd"})
_DATE_TAGS = frozenset({"a", "span", "div", "small", "p", "td"})
_RANK_TAGS = frozenset({"span", "td", "div", "strong", "b"})


def _comments(scope: list[LexborNode]) -> int | None:
    for block in scope:
        for node, _, _ in _labels(block, 120, _COMMENTS_HINT_RE, _COMMENT_TAGS, itself=False):
            text = _text(node)
            if not text or len(text) > 30:
                continue
            m = _COMMENTS_TEXT_RE.match(text)
            if m:
                return parse_count(m.group(1))
            if _NO_COMMENTS_RE.match(text) and node.tag in ("a", "button"):
                return 0
    return None


def _author(scope: list[LexborNode]) -> tuple[str | None, int | None]:
    for block in scope:
        for node in block.css(_AUTHOR_QUERY):
            attrs = node.attributes
            cls = attrs.get("class") or ""
            flagged = (
                "author" in (attrs.get("rel") or "")
                or attrs.get("itemprop") == "author"
                or (cls and _AUTHOR_CLASS_RE.search(cls))
            )
            profile = None
            if node.tag == "a":
                m = _profile((attrs.get("href") or "").strip())
                profile = next((g for g in m.groups() if g), None) if m else None
            if not flagged and profile is None:
                continue
            text = _BY_RE.sub("", visible_text(node)).strip()
            if text and len(text) <= 40 and not _meta_text(text) and len(text.split()) <= 4:
                return text, node.mem_id
            if profile and not text:
                return profile, node.mem_id
    return None, None


def _date(scope: list[LexborNode]) -> tuple[str | None, int | None]:
    for block in scope:
        for node in block.css("time"):
            value = (node.attributes.get("datetime") or "").strip() or visible_text(node)
            if value:
                return value, node.mem_id
        for node in block.css("[title]"):
            m = _ISO_RE.match(node.attributes.get("title") or "")
            if m:
                return m.group(1), node.mem_id
        for node, _, _ in _labels(block, 160, _DATE_HINT_RE, _DATE_TAGS, itself=False):
            text = _text(node)
            if text and len(text) <= 40 and _is_date(text):
                # The innermost element that says it ("· 3 yr. ago" holds a link "3 yr. ago").
                if not any(c.is_element_node and _is_date(_text(c)) for c in _children(node)):
                    return text.strip(" ·•|-–—"), node.mem_id
    return None, None


def _is_date(text: str) -> bool:
    return bool(text) and (_ago(text) or _DATE_TEXT_RE.match(text) is not None)


def _rank(member: LexborNode, before: LexborNode | None) -> int | None:
    for node, _, _ in _labels(member, 40, None, _RANK_TAGS, itself=False):
        if before is not None and node.mem_id == before.mem_id:
            break
        text = _text(node)
        m = _RANK_TEXT_RE.match(text) if text else None
        if m:
            return int(m.group(1))
        if (
            text
            and text.isdigit()
            and any("rank" in p or p in ("pos", "position") for p in _class_parts(node))
        ):
            return int(text)
    return None


_BADGE_CLASS_RE = ClassWords(r"icon|badge|label|tag|slug|pill")


def _snippet(scope: list[LexborNode], skip: set[int], body_ids: set[int], date: str | None) -> str | None:
    """A result's text: its longest block of running text that holds neither its title nor its
    author; a leading badge ("WEB") and a leading date ("2 days ago ·", also in ``date``) left out."""
    best: LexborNode | None = None
    best_len = 0
    for block in scope:
        for node in [block, *block.css(", ".join(sorted(_BLOCK_TEXT_TAGS)))]:
            if node.mem_id not in body_ids or any(n.mem_id in skip for n in node.css("a, span, div")):
                continue
            size = len(node.text(deep=True))
            if size > best_len:
                best, best_len = node, size
    if best is None:
        return None
    text = visible_text(best)
    first = best.child
    while first is not None and not first.is_element_node:
        first = first.next if not (first.text_content or "").strip() else None
    if first is not None and _BADGE_CLASS_RE.search(first.attributes.get("class") or ""):
        badge = visible_text(first)
        if badge and len(badge) <= 8 and text.startswith(badge):
            text = text[len(badge) :].lstrip()
    if date and text.startswith(date):
        text = text[len(date) :].lstrip(" ·•|-–—:\u00a0")
    return text or None


def _common_ancestor(nodes: list[LexborNode]) -> LexborNode | None:
    chains = []
    for node in nodes:
        chain = []
        current: LexborNode | None = node
        while current is not None:
            chain.append(current.mem_id)
            current = current.parent
        chains.append(chain)
    shared = set(chains[0]).intersection(*chains[1:])
    current = nodes[0]
    while current is not None and current.mem_id not in shared:
        current = current.parent
    return current


def _shorten(text: str, size: int = COMMENT_TITLE) -> str:
    if len(text) <= size:
        return text
    cut = text[:size].rsplit(" ", 1)[0].rstrip(",;:.-–— ")
    return cut + "…"


_LABEL_TAGS = frozenset("span div small b strong p em i label h2 h3 h4 h5 h6".split())


def _sponsored(member: LexborNode, scope: list[LexborNode], strict_hidden: HiddenIndex) -> str | None:
    """Whether the item is an ad: classed so (``ad``, ``sponsored``, ``promoted``), flagged in data
    attributes, or labelled "Ad", "Sponsored", "Anzeige", "Reklama", ... in text a user sees (a label
    kept from assistive technology is not trusted: some sites print one into every result and decide
    with CSS which ones show). "markup" or "label" (how it says so), None for no ad."""
    if _class_parts(member) & _AD_PARTS - {"promo"}:
        return "markup"
    attrs = member.attributes
    if any(k in attrs for k in ("data-ad", "data-ad-id", "data-sponsored", "data-promoted")) and (
        attrs.get("data-promoted", "true") != "false"
    ):
        return "markup"
    label = (attrs.get("aria-label") or "").strip()
    if label and _SPONSORED_LABEL_RE.match(label):
        return "label"
    for block in scope:
        for node, key, raw, tag, _ in _short_nodes(block):
            if tag not in _LABEL_TAGS or key == block.mem_id:
                continue
            text = raw.strip()
            if (
                text
                and len(text) <= 24
                and _SPONSORED_LABEL_RE.match(text.replace("\u200b", "").strip(" ·•|:"))
                and not strict_hidden(node)
            ):
                return "label"
    return None


def _permalink(scope: list[LexborNode], date_id: int | None, base: str, member: LexborNode) -> str:
    """A comment's own link: the link of its time stamp, else the first link to an item, else the page."""
    for block in scope:
        for link in block.css("a[href]"):
            if date_id is not None and (
                link.mem_id == date_id
                or any(n.mem_id == date_id for n in link.css("*"))
                or (link.parent is not None and link.parent.mem_id == date_id)
            ):
                url = absolute_url(link.attributes.get("href"), base)
                if url:
                    return url
    ident = member.attributes.get("id")
    if not ident:
        found = member.css_first("[id]")
        ident = found.attributes.get("id") if found is not None else None
    return f"{base.split('#')[0]}#{ident}" if ident else base
