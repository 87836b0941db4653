"""The list of a page for `articles_generic`: which of the blocks around its anchors (title links,
body texts) repeat as one list, and which list wins.

1. **Repeating blocks.** Every ancestor of an anchor is a candidate item. Candidates at the same place
   in the page (the same chain of tags and first class names) and with the same tag form a group
   (`candidate_groups`); within a group, the class name most of its anchored blocks share decides who
   belongs (so a results list keeps its results and not the answer box between them).
2. **The list** (`best_group`) is the group with the most blocks holding a title link (posts,
   results) or, failing that, holding a body text and no title link (comments); ties go to the outer
   level, which holds the whole item. Blocks count by how much they read like records
   (`_record_likeness`): text or fields beside the title (a teaser, a date, a rating), titles of a
   few words rather than one- or two-word labels, one title per block (not a menu's column). Groups
   inside navigation, headers, footers, asides, sidebars, "related" boxes or ad blocks count a
   quarter, unless that container holds a large share of the page's text (a layout wrapper named
   "has-sidebar") or, named so by class, the page's main heading (an ``<aside>`` inside a container
   named for the results is a box of results, not a sidebar); a list under the main heading
   (`MainHeading`) counts double.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

from selectolax.lexbor import LexborNode

from ._html import HiddenIndex, PageShare, classes, visible_text, word_count
from ._parse_memo import current as current_memo
from ._parse_memo import document_order
from ._record_fields import (
    _AD_PARTS,
    _HEADINGS,
    _author,
    _class_parts,
    _date,
    _link_title,
    _points,
    _text,
    _title_link,
)

MIN_GROUP = 2
MAX_LEVELS = 12  # how far up from an anchor an item may start
DECOY_FACTOR = 0.25
CONTENT_SHARE = 0.3  # of the page's text: a container holding more is content, not chrome
FOOTER_SHARE = 0.5  # ... and a footer holding more
HEADING_FACTOR = 2.0  # a list under the page's main heading
SPREAD_FACTOR = 0.4  # weight of a group whose members mostly have a parent of their own
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


def first_class(node: LexborNode) -> str:
    """The first class name without digits (ids and counters carry digits), kept in the parse's memo."""
    memo = current_memo()
    hit = None if memo is None else memo.first_class.get(node.mem_id)
    if hit is None:
        cls = node.attributes.get("class") if node.is_element_node else None
        hit = _first_named(cls) if cls else ""
        if memo is not None:
            memo.first_class[node.mem_id] = hit
    return hit


@functools.lru_cache(maxsize=8192)
def _first_named(cls: str) -> str:
    """The first class name of a class attribute without digits (pages repeat a few thousand times)."""
    return next((t for t in cls.split() if not any(ch.isdigit() for ch in t)), "")


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
            value = (f"{sig}/{node.tag}.{first_class(node)}", depth + 1)
        self.memo[key] = value
        return value


def candidate_groups(title_links: list[LexborNode], bodies: list[LexborNode]) -> list[_Group]:
    sigs = _Signatures()
    groups: dict[tuple, _Group] = {}
    for anchors, titled in ((title_links, True), (bodies, False)):
        # An element an earlier anchor's walk met with as many levels left or more: the rest of this
        # walk was done then (anchors of one record share their ancestors).
        reached: dict[int, int] = {}
        for anchor in anchors:
            node = anchor
            for level in range(MAX_LEVELS):
                left = MAX_LEVELS - level
                if reached.get(node.mem_id, 0) >= left:
                    break
                reached[node.mem_id] = left
                parent = node.parent
                if parent is None or node.tag in ("body", "html"):
                    break
                psig, depth = sigs(parent)
                key = (psig, node.tag, first_class(node))
                group = groups.get(key)
                if group is None:
                    group = groups[key] = _Group(key, depth + 1)
                group.members[node.mem_id] = node
                (group.titled if titled else group.texted).add(node.mem_id)
                node = parent
    return list(groups.values())


@functools.lru_cache(maxsize=8192)
def _named_classes(cls: str) -> frozenset[str]:
    """The class names of a class attribute without digits (ids and counters carry digits)."""
    return frozenset(t for t in cls.split() if not any(ch.isdigit() for ch in t))


def _cluster(group: _Group) -> list[LexborNode]:
    """The group's members that share the class name most anchored members carry (all when none does)."""
    members = list(group.members.values())
    counts: Counter[str] = Counter()
    for member in members:
        counts.update(_named_classes(member.attributes.get("class") or ""))
    if counts:
        first = {t: i for i, t in enumerate(counts)}
        token, n = max(counts.items(), key=lambda kv: (kv[1], -first[kv[0]]))
        if n >= 0.5 * len(members) and n < len(members):
            return [m for m in members if token in classes(m)]
    return members


def _decoy(node: LexborNode, memo: dict[int, float], share: PageShare, heading: MainHeading) -> float:
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
        # A page's footer is its footer unless it holds most of the page (a short page's footer holds
        # a good share of its text).
        limit = (
            FOOTER_SHARE
            if current.tag == "footer" or current.attributes.get("role") == "contentinfo"
            else CONTENT_SHARE
        )
        if (landmark or (named and current.mem_id not in heading.chain)) and share(current) < limit:
            if not (current.tag == "aside" and not named and _among_results(current)):
                result = DECOY_FACTOR
                break
        current = current.parent
    for key in chain:
        memo[key] = result
    return result


def named_chrome(node: LexborNode) -> bool:
    """Whether the element's class names or id call it chrome: navigation, a menu, a sidebar, a
    related or popular box, an ad, a filter or facet box."""
    parts = _class_parts(node)
    return (
        any(p.endswith(_CHROME_SUFFIXES) for p in parts)
        or bool(parts & _DECOY_PARTS or parts & _AD_PARTS)
        or any(_FILTER_RE.search(p) for p in parts)
    )


# Words of a container of results ("search-results", "results-container", "Suchergebnisse", "wyniki").
_RESULTS_PARTS = frozenset(
    {"results", "searchresults", "serp", "hits", "treffer", "ergebnisse", "suchergebnisse", "wyniki"}
)


def _among_results(box: LexborNode, levels: int = 3) -> bool:
    """A box of the results column (an ``<aside>`` of one kind of results in a container named for
    the results): content, not a sidebar."""
    current = box.parent
    for _ in range(levels):
        if current is None or current.tag in ("body", "html"):
            return False
        if _class_parts(current) & _RESULTS_PARTS:
            return True
        current = current.parent
    return False


class MainHeading:
    """The page's main heading (its first visible ``h1`` that is no logo link) and whether a block
    sits under it: after it, inside a container they share below the page's top level (a list in the
    same column as the heading, not a menu before it or a footer far below)."""

    def __init__(self, body: LexborNode, hidden: HiddenIndex) -> None:
        self.node: LexborNode | None = None
        self.chain: dict[int, int] = {}
        self.order: dict[int, int] | None = None  # the document order, asked when first needed
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
            self.order = document_order(self.body)
        return self.order.get(self.node.mem_id, 0) < self.order.get(member.mem_id, 0)


@dataclass
class Choice:
    kind: str  # "posts" or "comments"
    members: list[LexborNode]
    score: float
    depth: int
    factor: float = 1.0  # the chrome factor (see `_decoy`)


def best_group(
    groups: list[_Group],
    kind: str,
    share: PageShare,
    title_ids: set[int],
    heading: MainHeading,
    headed: dict[int, str],
) -> Choice | None:
    """The list of the page: the best-scoring group; ties go to the outer level (it holds the whole
    item). Comments must show who or when (most of them an author, a date or points): paragraphs of
    an article are not comments."""
    decoy_memo: dict[int, float] = {}
    options: list[Choice] = []
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
            # Two or more to a parent are a list split in parts (a day's news under each date).
            parents = len({m.parent.mem_id for m in chosen if m.parent is not None})
            if parents > max(2, len(chosen) / 2):
                score *= SPREAD_FACTOR
            factor = _decoy(chosen[0], decoy_memo, share, heading)
            score *= factor
            if heading.leads(chosen[0]):
                score *= HEADING_FACTOR
            options.append(Choice(what, chosen, score, group.depth, factor))
    # How much posts read like records (at most 1) is costly to tell: it is told from the highest
    # score down, until no score left could beat the best list found.
    options.sort(key=lambda c: (-c.score, c.depth))
    best: Choice | None = None
    for choice in options:
        if best is not None and (choice.score, -choice.depth) < (best.score, -best.depth):
            break
        if choice.kind == "posts":
            choice.score *= _record_likeness(choice.members, title_ids, headed)
        if choice.factor < 1 and choice.score < MIN_GROUP:
            continue  # a few links in a footer or menu are no list
        if best is not None and (choice.score, -choice.depth) <= (best.score, -best.depth):
            continue
        if choice.kind == "posts" or _signed(choice.members):
            best = choice
    return best


def _record_likeness(
    members: list[LexborNode], title_ids: set[int], headed: dict[int, str], sample: int = 24
) -> float:
    """How much the blocks read like records rather than a menu's entries, up to 1: records show
    more than their title (a teaser, a date, a source: text outside links; or fields of their own,
    such as a card's time, rating and category), and their titles read as names or sentences rather
    than one- or two-word labels."""
    probe = members[:sample]
    rich = 0
    words = 0
    single = 0
    for member in probe:
        if not several_items(member, title_ids):
            single += 1
        link = _title_link(member, title_ids)
        title = "" if link is None else headed.get(link.mem_id) or _text(link)
        words += min(word_count(title), 8)
        text = member.text(deep=True, strip=True)
        linked = sum(len(a.text(deep=True, strip=True)) for a in member.css("a"))
        if len(text) - linked >= 15 or _pieces_beside(member, title_ids, headed) >= 2:
            rich += 1
    rich_share = rich / len(probe)
    wordy = min(1.0, words / len(probe) / 4)
    # Blocks that each hold a list of their own (the columns of a mega-menu) are no records.
    return (0.15 + 0.85 * rich_share) * max(0.1, wordy * wordy) * (0.25 + 0.75 * single / len(probe))


def _pieces_beside(member: LexborNode, title_ids: set[int], headed: dict[int, str]) -> int:
    """How many elements of the block show text of their own outside its title links: the fields of a
    card (a cooking time, a rating, a category link) where a menu's entry shows its label alone. A block
    that is itself a title link (a card-wide link with no element around it) shows fields in its parts
    outside the title it shows (a heading inside it); one whose words all make its title (a
    thumbnail's caption and count, read as one title) shows none."""
    title = (headed.get(member.mem_id) or _link_title(member)) if member.mem_id in title_ids else None
    pieces: set[int] = set()
    for node in member.traverse(include_text=True):
        if node.tag != "-text" or not (words := " ".join((node.text_content or "").split())):
            continue
        if title is not None and words in title:
            continue  # the link's own title
        holder = node.parent
        current = holder
        while current is not None and current.mem_id != member.mem_id:
            if current.mem_id in title_ids:
                break
            current = current.parent
        else:
            if holder is not None:
                pieces.add(holder.mem_id)
    return len(pieces)


def _signed(members: list[LexborNode], sample: int = 8) -> bool:
    """Whether most of (the first few) members show an author, a date or points."""
    probe = members[:sample]
    signed = sum(1 for m in probe if _author([m])[0] or _date([m])[0] or _points([m]) is not None)
    return signed >= 0.5 * len(probe)


def in_heading(link: LexborNode) -> bool:
    node = link.parent
    for _ in range(3):
        if node is None:
            return False
        if node.tag in _HEADINGS or node.attributes.get("role") == "heading":
            return True
        node = node.parent
    return False


def several_items(member: LexborNode, title_ids: set[int]) -> bool:
    """A block holding three titles or more of which not exactly one is a heading: a carousel or a
    box of suggestions (a result with sub-links under its own heading is still one item). Two titles
    make a list of its own where each sits in an entry of its own, the two alike (list items or rows
    of one tag and class): a day's two news in a list under its date heading."""
    titles = [a for a in member.css("a[href]") if a.mem_id in title_ids]
    if len(titles) < 2 or sum(1 for a in titles if in_heading(a)) == 1:
        return False
    return len(titles) >= 3 or _in_alike_blocks(member, titles[0], titles[1])


_ITEM_TAGS = frozenset({"li", "tr", "article"})  # the markup of a list's entries


def _in_alike_blocks(member: LexborNode, one: LexborNode, other: LexborNode) -> bool:
    """Whether two links inside ``member`` sit in two alike entries of a list: below their nearest
    common ancestor, the blocks holding them are list items, rows or articles of one tag and first
    class name (a record's rows of layout, ``<div class="row">`` around its title and around its
    rating link, are not entries)."""
    chain: dict[int, LexborNode | None] = {}
    node: LexborNode | None = one
    below: LexborNode | None = None
    while node is not None:
        chain[node.mem_id] = below
        if node.mem_id == member.mem_id:
            break
        below, node = node, node.parent
    node, below = other, None
    while node is not None and node.mem_id not in chain:
        below, node = node, node.parent
    if node is None or below is None:
        return False
    mine = chain[node.mem_id]
    return (
        mine is not None
        and mine.tag in _ITEM_TAGS
        and (mine.tag, first_class(mine)) == (below.tag, first_class(below))
    )
