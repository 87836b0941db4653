"""Stories, posts, comments and search results from any page, without site-specific selectors.

How the list is found (see `find_items`):

1. **Anchors.** Title links: links whose visible text reads like a title (two words or more, not a
   count such as "145 comments", not a time such as "2 hours ago", not a bare URL) and that stand on
   their own (not a link inside a sentence). Body texts: paragraphs of running text (a comment, a
   post's text).
2. **Repeating blocks.** Every ancestor of an anchor is a candidate item. Candidates at the same place
   in the page (the same chain of tags and first class names) and with the same tag form a group; within
   a group, the class name most of its anchored blocks share decides who belongs (so a results list
   keeps its results and not the answer box between them).
3. **The list** is the group with the most blocks holding a title link (posts, results) or, failing
   that, holding a body text and no title link (comments); ties go to the outer level, which holds
   the whole item. Blocks count by how much they read like records (`_record_likeness`): text beside
   the title (a teaser, a date), titles of a few words rather than one- or two-word labels, one title
   per block (not a menu's column). Groups inside navigation, headers, footers, asides, sidebars,
   "related" boxes or ad blocks count a quarter, unless that container holds a large share of the
   page's text (a layout wrapper named "has-sidebar") or, named so by class, the page's main heading;
   a list under the main heading counts double. Links whose words repeat on three links or more
   beside a rarer link in the same record ("Learn More", a collection's name) are its actions, never
   its title.
4. **Every block** becomes an item: ``title`` and ``url`` from its title link (a heading's link
   first; a redirect link that carries its target in the query gives the target), or for a comment
   its text (``title`` shortened, ``text`` whole) and its permalink; then, where the block shows
   them, ``points`` (points, score, upvotes, likes, Punkte, punkty: one concept), ``comments``,
   ``author``, ``date``, ``snippet`` and ``rank``. Details in the rows that follow an item without
   a title of their own (a story's subtext row) belong to it. Blocks labelled or classed as ads
   ("Ad", "Sponsored", "Anzeige", "Reklama", a class ``ad``/``sponsored``/``promoted``) are left out.

A field no item shows is left out of every item.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...errors import BadParams
from ...text import collapse_space
from ...tool import ToolContext
from ._html import (
    GLUE_TAGS,
    HiddenIndex,
    PageShare,
    absolute_url,
    apply_limit,
    classes,
    page_base,
    page_html,
    parse_count,
    parse_html,
    strip_junk,
    visible_text,
)

MIN_GROUP = 2
MAX_LEVELS = 12  # how far up from an anchor an item may start
DECOY_FACTOR = 0.25
REPEATED_LABEL = 3  # links with the same words: an action every record carries
CONTENT_SHARE = 0.3
HEADING_FACTOR = 2.0  # a list under the page's main heading  # of the page's text: a container holding more is content, not chrome
SPREAD_FACTOR = 0.4  # weight of a group whose members mostly have a parent of their own
MIN_BODY_CHARS = 40
MAX_TITLE = 300  # a longer link text is a teaser paragraph, not a title
COMMENT_TITLE = 120  # a comment's title: its text cut to about this many characters
FIELDS = ("title", "url", "points", "comments", "author", "date", "snippet", "text", "rank")

_LETTER_RE = re.compile(r"[^\W\d_]")
_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_URL_TEXT_RE = re.compile(r"^\s*(https?://|www\.)\S+\s*$", re.IGNORECASE)
_COUNT = r"(\d[\d.,\u00a0\u202f ]*[kKmM]?)"
_POINTS_WORDS = (
    r"points?|pts|score|punkte?|punkty|punktów|punktow|upvotes?|votes?|głos\w*|glos\w*|stimmen|likes?|"
    r"polubie\w*|gefällt\w*|karma"
)
_POINTS_TEXT_RE = re.compile(
    rf"^\s*(?:{_COUNT}\s*(?:{_POINTS_WORDS})|(?:{_POINTS_WORDS})\s*:?\s*{_COUNT})\s*(?:mal|times|x|razy)?\s*$",
    re.IGNORECASE,
)
_BARE_COUNT_RE = re.compile(r"^\s*[+]?\d[\d.,\u00a0\u202f ]*[kKmM]?\s*$")
_POINTS_ATTR_RE = re.compile(r"score|points?|vote|karma|likes?|upvote|punkt", re.IGNORECASE)
_COMMENT_WORDS = r"comments?|komentarz\w*|kommentare?|replies|reply|odpowiedzi|odpowiedź|antworten|antwort"
_COMMENTS_TEXT_RE = re.compile(rf"^\s*{_COUNT}\s*(?:{_COMMENT_WORDS})\s*$", re.IGNORECASE)
_NO_COMMENTS_RE = re.compile(
    r"^\s*(discuss|comment|comments|add a comment|skomentuj|kommentieren|no comments|brak komentarzy|"
    r"keine kommentare)\s*$",
    re.IGNORECASE,
)
_DIGIT_RE = re.compile(r"\d")
_COMMENTS_HINT_RE = re.compile(r"\d|discuss|comment|koment|komment", re.IGNORECASE)
_DATE_HINT_RE = re.compile(r"\d|yesterday|today|just now|gestern|heute|wczoraj|dzisiaj|dziś", re.IGNORECASE)
_AGO_RE = re.compile(
    r"\b\d+\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|wks?|months?|mos?|years?|yrs?|yr)\.?"
    r"\s+ago\b|\bvor\s+(?:\d+|einer?|einem)\s+(?:sekunden?|minuten?|stunden?|tag(?:en)?|wochen?|monat(?:en)?|"
    r"jahr(?:en)?)\b|\b\d+\s+(?:sekund\w*|minut\w*|godzin\w*|dni|dzień|tygodni\w*|miesi\w*|lat\w*|rok\w*)\s+temu\b|"
    r"^\s*(?:yesterday|today|just now|gestern|heute|wczoraj|dzisiaj|dziś)\b",
    re.IGNORECASE,
)
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
_AUTHOR_CLASS_RE = re.compile(r"author|user|byline|poster|submitter|autor|nick", re.IGNORECASE)
_BY_RE = re.compile(r"^\s*(?:by|von|przez|posted by|submitted by|autor:?|author:?|u/|@)\s*", re.IGNORECASE)
_SPONSORED_LABEL_RE = re.compile(
    r"^(?:ads?|sponsored|gesponsert|sponsorowane|sponsorowany|anzeige|werbung|reklama|promoted|promowane|"
    r"advertisement|sponsoris[ée]|patrocinado|sponsorizzato)$",
    re.IGNORECASE,
)
_AD_PARTS = frozenset(
    {"ad", "ads", "advert", "adverts", "advertisement", "sponsored", "sponsor", "promoted", "promo"}
)
_DECOY_PARTS = frozenset(
    {
        "nav",
        "navbar",
        "navigation",
        "menu",
        "sidebar",
        "aside",
        "footer",
        "header",
        "breadcrumb",
        "breadcrumbs",
        "related",
        "recommended",
        "recommendations",
        "trending",
        "popular",
        "widget",
        "carousel",
    }
)
_DECOY_TAGS = frozenset({"nav", "header", "footer", "aside"})
# Compound class words of chrome: "topnav", "channelnav", "mainmenu", "masthead", "flyout", "dropdown".
_CHROME_SUFFIXES = ("nav", "menu", "masthead", "flyout", "dropdown", "megamenu")
# Filter and facet boxes ("Radeon RX (259)"): links that narrow the list, not items of it.
_FILTER_RE = re.compile(r"filter|facet|refine|refinement", re.IGNORECASE)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_TITLE_CLASS_RE = re.compile(r"title|headline|subject|topic|heading", re.IGNORECASE)
_BLOCK_TEXT_TAGS = frozenset({"p", "div", "span", "td", "li", "blockquote", "section", "article", "dd"})
_BODY_EXCLUDE = frozenset(
    {"a", "time", "button", "label", "select", "option", "h1", "h2", "h3", "h4", "h5", "h6"}
)


def _class_parts(node: LexborNode) -> set[str]:
    parts: set[str] = set()
    for token in classes(node):
        parts.update(p for p in re.split(r"[-_]", token.lower()) if p)
    ident = (node.attributes.get("id") or "").lower()
    if ident:
        parts.update(p for p in re.split(r"[-_]", ident) if p)
    return parts


_FIRST_CLASS: dict[int, str] = {}


def _first_class(node: LexborNode) -> str:
    """The first class name without digits (ids and counters carry digits), memoised per parse."""
    key = node.mem_id
    hit = _FIRST_CLASS.get(key)
    if hit is None:
        cls = node.attributes.get("class") if node.is_element_node else None
        hit = next((t for t in cls.split() if not any(ch.isdigit() for ch in t)), "") if cls else ""
        _FIRST_CLASS[key] = hit
    return hit


# --- anchors ----------------------------------------------------------------------------------------


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
        or _AGO_RE.search(text)
        or _DATE_TEXT_RE.match(text)
    )


def _title_like(text: str) -> bool:
    if not text or len(text) > MAX_TITLE or _URL_TEXT_RE.match(text):
        return False
    words = _WORD_RE.findall(text)
    letters = sum(len(w) for w in words)
    return len(words) >= 2 and len(text.split()) >= 2 and letters >= 8 and not _meta_text(text)


_INLINE = GLUE_TAGS | {"span", "font", "label", "small", "br", "img", "sup", "sub"}


def _stands_alone(link: LexborNode, text: str) -> bool:
    """A title link is the main text of its line, not a link inside a sentence: the text beside it on
    its line (up to the nearest block boundary, other links such as "(example.com)" not counted) is no
    longer than its own."""
    node = link
    while node.parent is not None and node.parent.tag in _INLINE:
        node = node.parent
    if node.parent is not None and (
        node.parent.tag in _HEADINGS or node.parent.attributes.get("role") == "heading"
    ):
        return True
    beside = 0
    for step in ("prev", "next"):
        sibling = getattr(node, step)
        while sibling is not None:
            if sibling.tag == "-text":
                beside += len((sibling.text_content or "").strip())
            elif sibling.is_element_node:
                if sibling.tag not in _INLINE:
                    break
                if sibling.tag != "a":
                    linked = sum(len(visible_text(a)) for a in sibling.css("a"))
                    beside += max(0, len(visible_text(sibling)) - linked)
            sibling = getattr(sibling, step)
    return beside <= len(text)


def _direct_text(node: LexborNode) -> int:
    total = 0
    child = node.child
    while child is not None:
        if child.tag == "-text":
            total += len((child.text_content or "").strip())
        child = child.next
    return total


@dataclass
class _Anchors:
    titles: dict[int, list[LexborNode]] = field(default_factory=lambda: defaultdict(list))
    bodies: dict[int, list[LexborNode]] = field(default_factory=lambda: defaultdict(list))


def _find_title_links(body: LexborNode, hidden: HiddenIndex) -> list[LexborNode]:
    links: list[tuple[LexborNode, str, bool]] = []
    for link in body.css("a[href]"):
        href = (link.attributes.get("href") or "").strip()
        if not href or href.startswith("#") or href.lower().startswith(("javascript:", "mailto:", "tel:")):
            continue
        text = visible_text(link)
        if _PROFILE_RE.search(href):  # a link to a person is an author, never a title
            continue
        if _title_like(text) and not hidden(link) and _stands_alone(link, text):
            links.append((link, text.casefold(), True))
        elif _LETTER_RE.search(text):
            links.append((link, text.casefold(), False))
    return _without_actions(links)


def _without_actions(links: list[tuple[LexborNode, str, bool]]) -> list[LexborNode]:
    """The title links (flagged True among the page's links) without the actions records carry: words
    repeated on three links or more ("Share Memories and Condolences", "Learn More", "Public Profile")
    whose record also holds a link with words of its own (repeated less). Records may share their
    titles ("Star Wars" on four platforms): a repeated text with no rarer link beside it stays."""
    # A link in a heading is a title however often it is printed (one result shown in two boxes).
    seen = Counter(text for link, text, _ in links if not _in_heading(link))
    if not any(n >= REPEATED_LABEL for n in seen.values()):
        return [link for link, _, title in links if title]
    # Per ancestor: the repeated texts inside it, and the fewest repeats of a link text inside it.
    inside: dict[int, Counter[str]] = defaultdict(Counter)
    rarest: dict[int, int] = {}
    for link, text, _ in links:
        node = link.parent
        for _ in range(MAX_LEVELS):
            if node is None or node.tag in ("body", "html"):
                break
            if seen[text] >= REPEATED_LABEL:
                inside[node.mem_id][text] += 1
            key = node.mem_id
            rarest[key] = min(rarest.get(key, seen[text]), seen[text])
            node = node.parent
    kept = []
    for link, text, title in links:
        if not title:
            continue
        action = False
        if seen.get(text, 0) >= REPEATED_LABEL:
            node = link.parent
            for _ in range(MAX_LEVELS):
                if node is None or node.tag in ("body", "html") or inside[node.mem_id][text] > 1:
                    break  # out of its record: the next one's copy is inside
                if rarest[node.mem_id] < seen[text]:
                    action = True
                    break
                node = node.parent
        if not action:
            kept.append(link)
    return kept


def _find_bodies(body: LexborNode, hidden: HiddenIndex) -> list[LexborNode]:
    """Blocks of running text (a comment, a post's text), outermost ones only; paragraphs that make up
    their parent's text are lifted to it (a comment of three paragraphs is one block)."""
    found: list[LexborNode] = []
    taken: set[int] = set()
    for node in body.traverse():
        if node.tag not in _BLOCK_TEXT_TAGS:
            continue
        if node.tag != "p" and _direct_text(node) < MIN_BODY_CHARS:
            continue
        if _inside(node, taken):
            continue
        text = visible_text(node)
        if len(text) < MIN_BODY_CHARS or len(_WORD_RE.findall(text)) < 6 or hidden(node):
            continue
        taken.add(node.mem_id)
        found.append(node)
    return _lift(found)


def _inside(node: LexborNode, taken: set[int], levels: int = 8) -> bool:
    up = node.parent
    for _ in range(levels):
        if up is None:
            return False
        if up.mem_id in taken:
            return True
        up = up.parent
    return False


def _lift(blocks: list[LexborNode]) -> list[LexborNode]:
    """Sibling paragraphs whose parent holds little but them become the parent: a comment of three
    paragraphs is one block, as a one-paragraph comment is (so paragraphs never outnumber comments)."""
    by_parent: dict[int, list[LexborNode]] = defaultdict(list)
    for block in blocks:
        by_parent[block.parent.mem_id if block.parent is not None else -block.mem_id].append(block)
    out: list[LexborNode] = []
    for group in by_parent.values():
        parent = group[0].parent
        if len(group) >= 2 and parent is not None and parent.tag not in ("body", "html"):
            inner = sum(len(visible_text(b)) for b in group)
            if len(visible_text(parent)) <= 1.25 * inner + 20:
                out.append(parent)
                continue
        out.extend(group)
    return out


# --- groups -----------------------------------------------------------------------------------------


@dataclass
class _Group:
    key: tuple
    depth: int
    members: dict[int, LexborNode] = field(default_factory=dict)
    titled: set[int] = field(default_factory=set)
    texted: set[int] = field(default_factory=set)


class _Signatures:
    """The place of a node in the page: the chain of tag.first-class from the body down (memoised)."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[str, int]] = {}

    def __call__(self, node: LexborNode) -> tuple[str, int]:
        key = node.mem_id
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        parent = node.parent
        if parent is None or node.tag in ("body", "html"):
            value = (node.tag or "", 0)
        else:
            sig, depth = self(parent)
            value = (f"{sig}/{node.tag}.{_first_class(node)}", depth + 1)
        self.memo[key] = value
        return value


def _groups(title_links: list[LexborNode], bodies: list[LexborNode]) -> list[_Group]:
    sigs = _Signatures()
    groups: dict[tuple, _Group] = {}
    for anchors, titled in ((title_links, True), (bodies, False)):
        for anchor in anchors:
            node = anchor
            for _ in range(MAX_LEVELS):
                parent = node.parent
                if parent is None or node.tag in ("body", "html"):
                    break
                psig, depth = sigs(parent)
                key = (psig, node.tag, _first_class(node))
                group = groups.get(key)
                if group is None:
                    group = groups[key] = _Group(key, depth + 1)
                group.members[node.mem_id] = node
                (group.titled if titled else group.texted).add(node.mem_id)
                node = parent
    return list(groups.values())


def _cluster(group: _Group) -> list[LexborNode]:
    """The group's members that share the class name most anchored members carry (all when none does)."""
    members = list(group.members.values())
    counts: Counter[str] = Counter()
    for member in members:
        counts.update({t for t in classes(member) if not any(ch.isdigit() for ch in t)})
    if counts:
        token, n = max(counts.items(), key=lambda kv: (kv[1], -list(counts).index(kv[0])))
        if n >= 0.5 * len(members) and n < len(members):
            return [m for m in members if token in classes(m)]
    return members


def _decoy(node: LexborNode, memo: dict[int, float], share: PageShare, heading: _MainHeading) -> float:
    """A quarter for lists inside navigation, headers, footers, sidebars, related boxes, filter boxes
    and ad blocks. A container holding a large share of the page's text is its content, whatever its
    tag or class says (a layout "has-sidebar", a "fixed-header" wrapper, a results "filter" form), and
    so is a container whose class sounds like chrome around the page's main heading."""
    chain: list[int] = []
    current: LexborNode | None = node.parent
    result = 1.0
    while current is not None and current.tag not in ("body", "html"):
        if current.mem_id in memo:
            result = memo[current.mem_id]
            break
        chain.append(current.mem_id)
        parts = _class_parts(current)
        landmark = current.tag in _DECOY_TAGS or current.attributes.get("role") in (
            "navigation",
            "banner",
            "contentinfo",
        )
        named = (
            any(p.endswith(_CHROME_SUFFIXES) for p in parts)
            or bool(parts & _DECOY_PARTS or parts & _AD_PARTS)
            # A filter box; unless it wraps the page's content (a form around everything).
            or (
                any(_FILTER_RE.search(p) for p in parts)
                and current.css_first("h1, h2, main, article") is None
            )
        )
        if (landmark or (named and current.mem_id not in heading.chain)) and share(current) < CONTENT_SHARE:
            result = DECOY_FACTOR
            break
        current = current.parent
    for key in chain:
        memo[key] = result
    return result


class _MainHeading:
    """The page's main heading (its first visible ``h1`` that is no logo link) and whether a block
    sits under it: after it, inside a container they share below the page's top level (a list in the
    same column as the heading, not a menu before it or a footer far below)."""

    def __init__(self, body: LexborNode, hidden: HiddenIndex) -> None:
        self.node: LexborNode | None = None
        self.chain: dict[int, int] = {}
        self.order: dict[int, int] | None = None
        self.body = body
        for h1 in body.css("h1"):
            if hidden(h1) or not visible_text(h1) or h1.css_first("a") is not None:
                continue
            if h1.parent is not None and h1.parent.tag == "a":
                continue
            self.node = h1
            break
        if self.node is not None:
            current: LexborNode | None = self.node.parent
            depth = 0
            while current is not None and current.tag not in ("body", "html"):
                self.chain[current.mem_id] = depth
                current = current.parent
                depth += 1

    def leads(self, member: LexborNode) -> bool:
        if self.node is None:
            return False
        current: LexborNode | None = member.parent
        while current is not None and current.mem_id not in self.chain:
            current = current.parent
        if current is None:
            return False  # they share only the body
        if self.order is None:
            self.order = {n.mem_id: i for i, n in enumerate(self.body.traverse())}
        return self.order.get(self.node.mem_id, 0) < self.order.get(member.mem_id, 0)


@dataclass
class _Choice:
    kind: str  # "posts" or "comments"
    members: list[LexborNode]
    score: float
    depth: int
    factor: float = 1.0  # the chrome factor (see `_decoy`)


def _best_group(
    groups: list[_Group], kind: str, share: PageShare, title_ids: set[int], heading: _MainHeading
) -> _Choice | None:
    """The list of the page: the best-scoring group; ties go to the outer level (it holds the whole
    item). Comments must show who or when (most of them an author, a date or points): paragraphs of
    an article are not comments."""
    decoy_memo: dict[int, float] = {}
    options: list[_Choice] = []
    for group in groups:
        members = _cluster(group)
        ids = {m.mem_id for m in members}
        n_titled = len(ids & group.titled)
        n_texted = len(ids & (group.texted - group.titled))
        found = []
        if kind in ("any", "posts") and n_titled >= MIN_GROUP:
            found.append(("posts", [m for m in members if m.mem_id in group.titled], float(n_titled)))
        if kind in ("any", "comments") and n_texted >= MIN_GROUP and n_texted > n_titled:
            texted = [m for m in members if m.mem_id in group.texted and m.mem_id not in group.titled]
            found.append(("comments", texted, 0.9 * n_texted))
        for what, chosen, score in found:
            # A list's items are siblings. Blocks that each sit in a parent of their own (columns of
            # a product row, the inner table of a comment) repeat inside the items: a lower level.
            parents = len({m.parent.mem_id for m in chosen if m.parent is not None})
            if parents > max(2, len(chosen) / 3):
                score *= SPREAD_FACTOR
            factor = _decoy(chosen[0], decoy_memo, share, heading)
            score *= factor
            if heading.leads(chosen[0]):
                score *= HEADING_FACTOR
            options.append(_Choice(what, chosen, score, group.depth, factor))
    # How much posts read like records (at most 1) is costly to tell: it is told from the highest
    # score down, until no score left could beat the best list found.
    options.sort(key=lambda c: (-c.score, c.depth))
    best: _Choice | None = None
    for choice in options:
        if best is not None and (choice.score, -choice.depth) < (best.score, -best.depth):
            break
        if choice.kind == "posts":
            choice.score *= _record_likeness(choice.members, title_ids)
        if choice.factor < 1 and choice.score < MIN_GROUP:
            continue  # a few links in a footer or menu are no list
        if best is not None and (choice.score, -choice.depth) <= (best.score, -best.depth):
            continue
        if choice.kind == "posts" or _signed(choice.members):
            best = choice
    return best


def _record_likeness(members: list[LexborNode], title_ids: set[int], sample: int = 24) -> float:
    """How much the blocks read like records rather than a menu's entries, up to 1: records show
    more than their title (a teaser, a date, a source: text outside links), and their titles read as
    names or sentences rather than one- or two-word labels."""
    probe = members[:sample]
    rich = 0
    words = 0
    single = 0
    for member in probe:
        if not _several_items(member, title_ids):
            single += 1
        link = _title_link(member, title_ids)
        title = visible_text(link) if link is not None else ""
        words += min(len(title.split()), 8)
        text = member.text(deep=True, strip=True)
        linked = sum(len(a.text(deep=True, strip=True)) for a in member.css("a"))
        if len(text) - linked >= 15:
            rich += 1
    rich_share = rich / len(probe)
    wordy = min(1.0, words / len(probe) / 4)
    # Blocks that each hold a list of their own (the columns of a mega-menu) are no records.
    return (0.15 + 0.85 * rich_share) * max(0.1, wordy * wordy) * (0.25 + 0.75 * single / len(probe))


def _signed(members: list[LexborNode], sample: int = 8) -> bool:
    """Whether most of (the first few) members show an author, a date or points."""
    probe = members[:sample]
    signed = sum(1 for m in probe if _author([m])[0] or _date([m])[0] or _points([m]) is not None)
    return signed >= 0.5 * len(probe)


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


def _title_link(member: LexborNode, title_ids: set[int]) -> LexborNode | None:
    links = [a for a in member.css("a[href]") if a.mem_id in title_ids]
    if not links:
        return None
    for link in links:
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


_BLOCKS = "div, p, section, h1, h2, h3, h4, h5, h6, ul, li, article, header, footer, table"
_NAMED_RE = re.compile(r"title|name|headline", re.IGNORECASE)


def _link_title(link: LexborNode) -> str:
    """The title a link shows. A link wrapping a whole card (image, title, price, place) shows it in
    a heading or a title/name element inside, else in its label attribute."""
    text = visible_text(link)
    if link.css_first(_BLOCKS) is None:
        return text
    heading = link.css_first("h1, h2, h3, h4, h5, h6, [role=heading]")
    if heading is not None and visible_text(heading):
        return visible_text(heading)
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
    return text


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


def _text(node: LexborNode) -> str:
    """`visible_text`, with a fast path for an element holding text only (most short labels)."""
    child = node.child
    while child is not None:
        if child.is_element_node:
            return visible_text(node)
        child = child.next
    return collapse_space(node.text(deep=True))


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


def _short_texts(scope: list[LexborNode], limit: int):
    """Elements of the scope whose text is short (cheap raw-text test first), with their visible text."""
    for block in scope:
        for node in block.traverse():
            if node.tag == "-text" or node.child is None:
                continue
            raw = node.text(deep=True)
            if len(raw) > 4 * limit or not _DIGIT_RE.search(raw):
                continue
            text = _text(node)
            if text and len(text) <= limit:
                yield block, node, text


def _points(scope: list[LexborNode]) -> int | None:
    """Points, score, upvotes, likes: "284 points", "Punkte: 12", or a bare number named so."""
    for _, node, text in _short_texts(scope, 40):
        if _innermost(node, text):
            m = _POINTS_TEXT_RE.match(text)
            if m:
                return parse_count(m.group(1) or m.group(2))
    for block, node, text in _short_texts(scope, 12):
        if node.tag in ("a", "button") or not _BARE_COUNT_RE.match(text) or not _innermost(node, text):
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


_NOT_POINTS_RE = re.compile(r"rank|rating|star|review|opini|bewert|meta|report", re.IGNORECASE)


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


def _comments(scope: list[LexborNode]) -> int | None:
    for block in scope:
        for node in block.css("a, span, div, li, button, td, p, small, dd"):
            raw = node.text(deep=True)
            if len(raw) > 120 or not _COMMENTS_HINT_RE.search(raw):  # cheap first
                continue
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
        for node in block.css('[rel~="author"], [itemprop="author"], [class], a[href]'):
            attrs = node.attributes
            cls = attrs.get("class") or ""
            flagged = (
                "author" in (attrs.get("rel") or "")
                or attrs.get("itemprop") == "author"
                or (cls and _AUTHOR_CLASS_RE.search(cls))
            )
            profile = None
            if node.tag == "a":
                m = _PROFILE_RE.search((attrs.get("href") or "").strip())
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
        for node in block.css("a, span, div, small, p, td"):
            raw = node.text(deep=True)
            if len(raw) > 160 or not _DATE_HINT_RE.search(raw):  # cheap first
                continue
            text = _text(node)
            if text and len(text) <= 40 and _is_date(text):
                # The innermost element that says it ("· 3 yr. ago" holds a link "3 yr. ago").
                if not any(c.is_element_node and _is_date(visible_text(c)) for c in _children(node)):
                    return text.strip(" ·•|-–—"), node.mem_id
    return None, None


def _is_date(text: str) -> bool:
    return bool(text) and bool(_AGO_RE.search(text) or _DATE_TEXT_RE.match(text))


def _rank(member: LexborNode, before: LexborNode | None) -> int | None:
    for node in member.css("span, td, div, strong, b"):
        if before is not None and node.mem_id == before.mem_id:
            break
        raw = node.text(deep=True)
        if len(raw) > 40 or not any(ch.isdigit() for ch in raw):
            continue
        text = visible_text(node)
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


_BADGE_CLASS_RE = re.compile(r"icon|badge|label|tag|slug|pill", re.IGNORECASE)


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
        for node in block.css("span, div, small, b, strong, p, em, i, label, h2, h3, h4, h5, h6"):
            text = (node.text(deep=True) or "").strip()
            if (
                text
                and len(text) <= 24
                and _SPONSORED_LABEL_RE.match(text.replace("\u200b", "").strip(" ·•|:"))
                and not strict_hidden(node)
            ):
                return "label"
    return None


def _anchor_ids(nodes: list[LexborNode]) -> set[int]:
    return {n.mem_id for n in nodes}


def _path(member: LexborNode, node: LexborNode) -> tuple | None:
    """The steps (tag, first class) from ``member`` down to ``node``; None when it is not inside."""
    steps = []
    current: LexborNode | None = node
    while current is not None and current.mem_id != member.mem_id:
        steps.append((current.tag, _first_class(current)))
        current = current.parent
    return tuple(reversed(steps)) if current is not None else None


def _at_path(member: LexborNode, path: tuple) -> list[LexborNode]:
    """The descendants of ``member`` at ``path`` (see `_path`)."""
    level = [member]
    for tag, cls in path:
        same_tag = [c for node in level for c in _children(node) if c.tag == tag]
        # The same class where there is one; an item may style one step differently ("go-to-shop"
        # instead of "go-to-product"): then the same tag.
        level = [c for c in same_tag if _first_class(c) == cls] or same_tag
        if not level:
            break
    return level


def _siblings_alike(members: list[LexborNode]) -> list[LexborNode]:
    """Every block next to the chosen ones with their tag and first class name (an item whose title or
    text is too short to be an anchor still belongs to the list), and the blocks of their tag that
    take turns with them in one other class (rows classed odd and even)."""
    seen: set[int] = set()
    out: list[LexborNode] = []
    kinds = {(m.tag, _first_class(m)) for m in members}
    for member in members:
        parent = member.parent
        if parent is None or parent.mem_id in seen:
            continue
        seen.add(parent.mem_id)
        alike = [c for c in _children(parent) if (c.tag, _first_class(c)) in kinds]
        # Rows of two kinds taking turns (classed odd and even) are one list.
        same_tag = [c for c in _children(parent) if c.tag == member.tag and c.is_element_node]
        turns = [c for c in same_tag if (c.tag, _first_class(c)) not in kinds]
        if (
            len(turns) >= MIN_GROUP
            and abs(len(turns) - len(alike)) <= 1
            and len({_first_class(c) for c in turns}) == 1
        ):
            alike = same_tag
        out.extend(alike)
    return out


def _common_path(members: list[LexborNode], anchors: list[LexborNode]) -> tuple | None:
    """The most common place of an anchor inside the members (where the title link or text sits)."""
    ids = {m.mem_id for m in members}
    paths: Counter[tuple] = Counter()
    counted: set[int] = set()
    for anchor in anchors:
        steps = []
        current: LexborNode | None = anchor
        for _ in range(MAX_LEVELS + 1):
            if current is None or current.mem_id in ids:
                break
            steps.append((current.tag, _first_class(current)))
            current = current.parent
        if current is not None and current.mem_id in ids and current.mem_id not in counted:
            counted.add(current.mem_id)  # the first anchor of each member
            paths[tuple(reversed(steps))] += 1
    return paths.most_common(1)[0][0] if paths else None


def find_items(tree: LexborHTMLParser, base: str, kind: str = "any") -> tuple[str | None, list[dict]]:
    """The list of the page (see the module docstring): its kind ("posts" or "comments") and its items
    in page order, ads flagged ``sponsored``."""
    body = tree.body
    if body is None:
        return None, []
    _FIRST_CLASS.clear()  # memory ids are only unique within one parse
    hidden, strict_hidden = HiddenIndex.pair(tree)
    title_links = _find_title_links(body, hidden)
    bodies = _find_bodies(body, hidden)
    choice = _best_group(
        _groups(title_links, bodies),
        kind,
        PageShare(tree),
        _anchor_ids(title_links),
        _MainHeading(body, hidden),
    )
    if choice is None:
        return None, []
    title_ids = _anchor_ids(title_links)
    members = [m for m in _siblings_alike(choice.members) if not hidden(m)]
    member_ids = {m.mem_id for m in members}
    titled_rows = set()
    for anchor in title_links:  # blocks at the members' level that hold a title: never continuation rows
        node: LexborNode | None = anchor
        for _ in range(MAX_LEVELS):
            if node is None:
                break
            titled_rows.add(node.mem_id)
            node = node.parent
    anchored = {m.mem_id for m in choice.members}
    if choice.kind == "posts":
        path = _common_path(choice.members, [a for a in title_links if _inside_any(a, anchored)])
    else:
        path = _common_path(choice.members, [b for b in bodies if _inside_any(b, anchored)])
    body_ids = _anchor_ids(bodies)
    items = []
    for member in sorted(members, key=_doc_order(body)):
        scope = _scope(member, member_ids, titled_rows)
        item: dict[str, Any] = {}
        skip: set[int] = set()
        if choice.kind == "posts":
            at_path = [a for a in _at_path(member, path) if a.tag == "a"] if path is not None else []
            if not at_path and _several_items(member, title_ids):
                continue  # a block of several items (a carousel, a box of suggestions), not an item
            link = _title_link(member, title_ids) or next((a for a in at_path if visible_text(a)), None)
            if link is None:
                continue
            url = absolute_url(link.attributes.get("href"), base)
            if not url:
                continue
            item["title"] = _link_title(link)
            item["url"] = _unwrap(url)
            skip.add(link.mem_id)
        elif member.css_first("a[href]") is not None and _title_link(member, title_ids) is not None:
            continue  # a post among the comments (the story on top of its thread)
        points = _points(scope)
        comments = _comments(scope)
        author, author_id = _author(scope)
        date, date_id = _date(scope)
        if author_id is not None:
            skip.add(author_id)
        if choice.kind == "comments":
            text = _comment_text(member, path, body_ids)
            if not text:
                continue
            item["title"] = _shorten(text)
            item["url"] = _permalink(scope, date_id, base, member)
            item["text"] = text
        else:
            item["snippet"] = _snippet(scope, skip, body_ids, date)
        item.update({"points": points, "comments": comments, "author": author, "date": date})
        item["rank"] = _rank(member, None) if choice.kind == "posts" else None
        item["sponsored"] = _sponsored(member, scope, strict_hidden)
        items.append(item)
    # A label on (nearly) every item is no ad label: the page prints it everywhere and hides it with
    # CSS where it does not apply (in a browser, what CSS hides is left out before this point).
    labelled = sum(1 for item in items if item["sponsored"] == "label")
    trust_labels = not (len(items) >= 5 and labelled >= 0.9 * len(items))
    for item in items:
        item["sponsored"] = item["sponsored"] == "markup" or (item["sponsored"] == "label" and trust_labels)
    return choice.kind, items


def _in_heading(link: LexborNode) -> bool:
    node = link.parent
    for _ in range(3):
        if node is None:
            return False
        if node.tag in _HEADINGS or node.attributes.get("role") == "heading":
            return True
        node = node.parent
    return False


def _several_items(member: LexborNode, title_ids: set[int]) -> bool:
    """A block holding three titles or more of which not exactly one is a heading: a carousel or a
    box of suggestions (a result with sub-links under its own heading is still one item)."""
    titles = [a for a in member.css("a[href]") if a.mem_id in title_ids]
    return len(titles) >= 3 and sum(1 for a in titles if _in_heading(a)) != 1


def _inside_any(node: LexborNode, ids: set[int]) -> bool:
    current: LexborNode | None = node
    for _ in range(MAX_LEVELS + 1):
        if current is None:
            return False
        if current.mem_id in ids:
            return True
        current = current.parent
    return False


def _comment_text(member: LexborNode, path: tuple | None, body_ids: set[int]) -> str | None:
    """A comment's whole text: the block at the list's common text place (several paragraphs there:
    their parent), else the text blocks found inside it."""
    nodes = _at_path(member, path) if path is not None else []
    if not nodes:
        nodes = [n for n in member.css(", ".join(sorted(_BLOCK_TEXT_TAGS))) if n.mem_id in body_ids]
    if not nodes:
        return None
    if len(nodes) > 1:
        common = _common_ancestor(nodes)
        if common is not None and common.mem_id != member.mem_id:
            return visible_text(common) or None
        return "\n".join(t for n in nodes if (t := visible_text(n))) or None
    return visible_text(nodes[0]) or None


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


def _doc_order(body: LexborNode):
    order: dict[int, int] = {}
    for i, node in enumerate(body.traverse()):
        order[node.mem_id] = i
    return lambda n: order.get(n.mem_id, 0)


def _check_count(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadParams(f"{name} must be an integer, got {value!r}")


def extract(
    html: str,
    base_url: str = "",
    *,
    limit: int | None = None,
    min_points: int | None = None,
    min_comments: int | None = None,
    kind: str = "any",
    include_ads: bool = False,
    min_score: int | None = None,
    include_promoted: bool = False,
    selectors: dict | None = None,
    **_: Any,
) -> dict:
    """The stories, posts, comments or search results of ``html`` in page order (see the module
    docstring); ``min_points``/``min_comments`` keep items showing at least that many, then
    ``limit`` keeps the first N. Ads are left out unless ``include_ads``. ``min_score`` and
    ``include_promoted`` are the same as ``min_points`` and ``include_ads`` (a site tool's names:
    its parameters reach its fallback by name)."""
    _check_count("min_score", min_score)
    if min_points is None:
        min_points = min_score
    include_ads = bool(include_ads or include_promoted)
    _check_count("min_points", min_points)
    _check_count("min_comments", min_comments)
    if kind not in ("any", "posts", "comments"):
        raise BadParams(f"kind must be any, posts or comments, got {kind!r}")
    tree = parse_html(html)
    base = page_base(tree, base_url)
    strip_junk(tree)
    found, items = find_items(tree, base, kind)
    kept = []
    for item in items:
        if item["sponsored"] and not include_ads:
            continue
        if min_points is not None and (item["points"] is None or item["points"] < min_points):
            continue
        if min_comments is not None and (item["comments"] is None or item["comments"] < min_comments):
            continue
        kept.append(item)
    kept = apply_limit(kept, limit)
    # A field no item shows is not shown at all; "sponsored" only when ads were asked for.
    shown = [f for f in FIELDS if any(item.get(f) not in (None, "") for item in kept)]
    if include_ads:
        shown.append("sponsored")
    articles = [{f: item.get(f) for f in shown} for item in kept]
    for article in articles:
        for key in ("title", "url"):
            article.setdefault(key, None)
    return {"articles": articles, "kind": found}


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    min_points: int | None = None,
    min_comments: int | None = None,
    kind: str = "any",
    include_ads: bool = False,
    min_score: int | None = None,
    include_promoted: bool = False,
) -> dict:
    """Tool entry point: one round trip for the HTML (what the page's CSS hides left out: ad labels
    some sites print into every item, templates), then `extract`."""
    html, url = await page_html(ctx, lean=True)
    return extract(
        html,
        url,
        limit=limit,
        min_points=min_points,
        min_comments=min_comments,
        kind=kind,
        include_ads=include_ads,
        min_score=min_score,
        include_promoted=include_promoted,
    )
