"""Products from any listing page, without site-specific selectors.

How the listing is found (see `detect_products`):

1. **Price anchors.** Every short label whose text is a price ("24,99 €", "od 290 zł", a number
   split over spans with its mark beside it, or a bare number inside an element whose class says
   price) — not sentences that mention a price ("Companies with revenue over US$4 billion"), not
   anything hidden.
2. **Repeating blocks.** Each anchor's ancestors are candidate item blocks. Blocks at the same place
   in the page (same chain of ancestor tags and classes) with a similar class list form a group; a
   group counts only the blocks that also hold a link and some text besides the price (a name).
3. **The listing** is the group with the most such blocks (ties: the outer level, which holds the
   whole card). Groups inside carousels, promotion boxes, filter boxes (price facets), navigation,
   headers, footers or asides count a quarter, so "recommended" strips lose to the real list; a lone banner ("free delivery
   from 200 zł") never repeats and never forms a group; a group where fewer than half the blocks
   show a price (an infobox with two money rows) is no listing. Blocks that are each card's variants
   (two or more to a card, saying the same words on every card: "Paperback", "Hardcover") give way
   to the cards holding them.
4. **Every block of the listing** — priced or not — becomes a product: its name (heading, name/title
   element, or the text of its main link), its main link (the URL most of its links point to), and
   its prices. A block without a price must be built like the priced ones (a header row of a
   product table is not a product).

**Prices.** Every price of a block gets a role from the words around it and its markup
(`_price_roles`): the price to pay is ``price``; a struck-through or "was/UVP/statt/przed obniżką"
price above it is ``price_regular``; shipping ("+ 4,90 € Versand"), per-measure and monthly prices
("(3,50 €/kg)", "mtl.") never are the price; a price for members or card holders is the price only
alone, and of prices by quantity ("ab 10 Stk.") the first; a range gives ``price`` (its lower bound) and
``price_upper``. Cents set apart in markup ("$19<sup>97</sup>") join their whole number. Two prices
that nothing tells apart (a saved page has lost the CSS that struck one through) are a reduction: the
lower is ``price``, the higher ``price_regular``, in either order; a class word about the typeface
("font-size--regular") is no role.

**Names.** The product title: a heading, a name/title element or the main link's text, without the
seller's or shop's name, a badge ("NEW!", "Neues Angebot", "Sponsored") or a spec line that follows
the title in the same element ("… (7D75-001R) Formfaktor: ATX • Sockel: AM5 …").

**Currency** comes from the price text; a "$", "kr" or "¥" (or no mark at all) from the page's
context: its structured data (``priceCurrency``, a ``"currency": "NZD"`` in its scripts), its
country domain, or the ISO codes its text states (`_products.page_currency`).

In a browser, `run` has the page leave out what its CSS hides (display:none, visibility:hidden), so
templates and collapsed widgets of a live page are skipped as well as those hidden in the markup.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ... import offload
from ...prices import (
    Price,
    filter_by_price,
    find_prices,
    has_currency_mark,
    in_pence,
    parse_price,
    remove_currency_marks,
)
from ...text import collapse_space
from ...tool import ToolContext, require_page
from . import _price_roles as roles
from . import _product_names as names
from ._html import (
    SCRIPT_LINKS,
    HiddenIndex,
    PageShare,
    absolute_url,
    address,
    apply_limit,
    classes,
    colspan,
    hidden_in_tree,
    page_base,
    page_html,
    page_read,
    parse_html,
    price_text,
    raw_text,
    strip_junk,
    visible_text,
)
from ._price_roles import class_tokens
from ._products import STATED_CURRENCIES_JS, PageCurrency, finish_products, stated_currencies

MAX_PRICE_TEXT = 60  # longer texts are sentences that mention a price, not price labels
MAX_LABEL_LETTERS = 16  # "od", "ab", "from" are fine; "Companies with revenue over US$4 billion" is not
MIN_GROUP = 2
MIN_PRICED_SHARE = 0.5  # of a listing's blocks that show a price
DECOY_FACTOR = (
    0.25  # weight of a group inside a carousel/promotion/nav container: 12 there lose to 4 in the list
)
#: Of a block without a price, the share of its parts that priced blocks have too.
MIN_SHAPE_SHARE = 0.5
CONTEXT_CHARS = 40  # text read before a price in its block for its label ("Reg.", "UVP", "+")
_DIGIT_RE = re.compile(r"\d")
_TEXT_TAG_ID = 2  # lexbor's tag id of text nodes (LXB_TAG__TEXT)
_COMMENT_TAG_ID = 4  # lexbor's tag id of comments (LXB_TAG__EM_COMMENT)
#: Elements a bare number's search for its currency mark does not climb into.
_CARD_TAGS = frozenset("body html li tr article section ul ol table tbody main".split())
_WORDY_RE = re.compile(r"[^\W\d_]{4,}")  # a word: the number is part of a sentence, not a split price
_BARE_NUMBER_RE = re.compile(r"^\s*\d[\d\s.,'’]*[-–]?\s*$")
_LAST_DIGIT_RE = re.compile(r"\d(?=\D*$)")
_DECOY_RE = re.compile(
    r"carousel|slider|swiper|slick|promo|sponsor|recommend|advert|banner|related|also-?(viewed|bought)|"
    r"recently|upsell|cross-?sell|similar|facet|refine",
    re.IGNORECASE,
)
_DECOY_TAGS = frozenset({"nav", "header", "footer", "aside"})
#: Class words of a filter box (facets and refinements are in _DECOY_RE already).
_FILTER_WORDS = frozenset({"filter", "filters", "filterbox"})
CONTENT_SHARE = 0.3  # of the page's text: a container holding more is its content, whatever its class
#: A price whose currency the text leaves open: a bare "$", "¥" or "kr".
_AMBIGUOUS_RE = re.compile(r"[$＄¥￥]|(?<![^\W\d_])kr(?![^\W\d_])", re.IGNORECASE)
_RATING_RE = re.compile(
    r"(\d(?:[.,]\d{1,2})?)\s*(?:out of|of|von|z|de|sur|su|/)\s*5(?![\d.,])", re.IGNORECASE
)
# A cheap first look for ad labels in a block's text: substring tests (labels say "Ad", not "ad").
_SPONSORED_HINTS = ("sponsor", "gespons", "anzeige", "reklama", "promo", "patrocin", "publicit")
_AD_LABEL_RE = re.compile(r"\b(?:Ads?|AD)\b")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_FILLER_WORDS = frozenset(
    {"od", "from", "ab", "ca", "approx", "bis", "to", "do", "only", "nur", "tylko", "now", "jetzt", "teraz"}
)


@dataclass
class _PriceHit:
    node: LexborNode
    text: str  # the label as it reads, cents set apart in markup joined (see `price_text`)
    raw: str  # the label's characters as written (its length, its letters, a name that is only a price)
    price: Price  # the label's first price
    explicit: bool  # the text itself names a currency
    letters: int  # letters besides currency marks and filler words (see `_label_letters`)


@dataclass
class _Group:
    key: tuple
    depth: int
    members: list[LexborNode] = field(default_factory=list)
    tokens: frozenset = frozenset()
    score: float = 0.0


#: The roles of a price to pay, other than a regular or members' one (`_block_prices`).
_PAYABLE = frozenset(roles.PRICE_ROLES) - {roles.REGULAR, roles.CONDITIONAL}


@dataclass
class _Candidate:
    """One price of a block with its role (see `_price_roles`)."""

    price: Price
    role: str
    score: float
    order: int


def _norm_classes(node: LexborNode) -> frozenset:
    """Class tokens with BEM element/modifier parts cut (``s-item--watch`` -> ``s-item``)."""
    cls = node.attributes.get("class")
    return _norm_class_string(cls) if cls else frozenset()


@lru_cache(maxsize=8192)
def _norm_class_string(cls: str) -> frozenset:
    return frozenset(t.split("--", 1)[0].split("__", 1)[0].lower() for t in cls.split())


def _similar(a: frozenset, b: frozenset) -> bool:
    """Class lists of the same kind of block: at least half of the shorter one is shared
    (``card`` ~ ``card tpl`` ~ ``card sponsored``; ``s-item`` !~ ``srp-river-answer``)."""
    if not a or not b:
        return not a and not b
    return len(a & b) / min(len(a), len(b)) >= 0.5


class _Paths:
    """Memoised signature of an element's place in the page: the tags and classes of its ancestors."""

    def __init__(self) -> None:
        self._memo: dict[int, int] = {}
        self._depth: dict[int, int] = {}

    def key(self, node: LexborNode) -> int:
        chain = []
        current: LexborNode | None = node
        while current is not None and current.mem_id not in self._memo:
            chain.append(current)
            current = current.parent
        h, d = (self._memo[current.mem_id], self._depth[current.mem_id]) if current is not None else (0, 0)
        for n in reversed(chain):
            h = hash((h, n.tag, _norm_classes(n)))
            d += 1
            self._memo[n.mem_id] = h
            self._depth[n.mem_id] = d
        return self._memo[node.mem_id]

    def depth(self, node: LexborNode) -> int:
        self.key(node)
        return self._depth[node.mem_id]


def _find_prices(body: LexborNode, currency: str | None, hidden: HiddenIndex) -> list[_PriceHit]:
    """Price anchors: the smallest short element around a number whose text names a currency, else a
    bare number inside a price-classed element; hidden subtrees skipped."""
    hits: list[_PriceHit] = []
    seen: set[int] = set()
    checked: set[int] = set()  # elements already looked at from an earlier number (so were their parents)
    pence: list[tuple[int, LexborNode]] = []  # amounts in pence ("18p"), where among the hits they stand
    for text_node in body.traverse(include_text=True):
        # Most nodes are elements or indentation: tag ids and lexbor's blank test reject them in C.
        if text_node.tag_id != _TEXT_TAG_ID or text_node.is_empty_text_node:
            continue
        content = text_node.text_content
        if not content or len(content) > 200 or not _DIGIT_RE.search(content):
            continue
        el = text_node.parent
        if el is None or el.mem_id in checked:
            continue
        found: tuple[LexborNode, str] | None = None
        fallback: tuple[LexborNode, str] | None = None
        direct = has_currency_mark(content)
        if not direct and in_pence(content):
            pence.append((len(hits), el))  # a price if the page's other prices are in pounds
            continue
        if direct:  # "€2.95", "EUR 10,79": the element holding the text
            checked.add(el.mem_id)
            found = (el, el.text(deep=True))
        elif not _WORDY_RE.search(content) and "%" not in content:  # "-20%" is a discount, not a price
            # A bare number ("7 998", "2.95"): its currency mark may sit in a sibling element
            # ("<span>7 998</span><span>,00</span>zł"), so look a few levels up.
            climbed: list[tuple[LexborNode, str]] = []
            for _ in range(4):
                # A split price lives in a small wrapper: a card (headings, images) is no price label.
                if el is None or el.tag in _CARD_TAGS or el.mem_id in checked:
                    break
                checked.add(el.mem_id)
                text = el.text(deep=True)
                if len(text) > MAX_PRICE_TEXT * 2:
                    break
                if has_currency_mark(text):
                    found = (el, text)
                    break
                climbed.append((el, text))
                el = el.parent
            if found is None and _BARE_NUMBER_RE.match(content):
                # Without a mark a number counts only inside an element that says it is a price.
                fallback = next(((e, t) for e, t in climbed if roles.price_classed(e)), None)
        chosen = found or fallback
        if chosen is None or chosen[0].mem_id in seen:
            continue
        node, raw = chosen
        seen.add(node.mem_id)
        raw = collapse_space(raw)
        letters = _label_letters(raw) if len(raw) <= MAX_PRICE_TEXT else MAX_LABEL_LETTERS + 1
        text = ""
        if letters > MAX_LABEL_LETTERS and direct:
            # A price label of its own among other labels' words and prices ("Sale Price:$54.00
            # <span>Original Price:</span><s>$72.00</s>"): the text alone, when it reads as one.
            own = collapse_space(content)
            own_letters = _label_letters(own)
            if own_letters <= MAX_LABEL_LETTERS and len(own) <= MAX_PRICE_TEXT:
                raw, letters, text = own, own_letters, own
        if letters > MAX_LABEL_LETTERS or hidden(node):
            continue
        text = text or price_text(node)  # digits of different elements apart, "$19<sup>97</sup>" as 19.97
        price = parse_price(text, currency)
        if price is None:
            continue
        hits.append(_PriceHit(node, text, raw, price, found is not None, letters))
    if pence and (currency == "GBP" or sum(h.price.currency == "GBP" for h in hits) > len(hits) / 2):
        for shift, (at, el) in enumerate(pence):
            raw = collapse_space(el.text(deep=True))
            price = parse_price(raw, "GBP")
            if price is not None and el.mem_id not in seen and not hidden(el):
                hits.insert(at + shift, _PriceHit(el, raw, raw, price, True, _label_letters(raw)))
    return hits


def _label_letters(text: str) -> int:
    """Letters in a price label besides currency marks and "from"/"od"/"ab": a sentence has many."""
    words = _LETTERS_RE.findall(remove_currency_marks(text))
    return sum(len(w) for w in words if w.lower() not in _FILLER_WORDS)


def _flag_text(node: LexborNode) -> str:
    attrs = node.attributes
    return " ".join(
        v for k in ("class", "id", "aria-roledescription", "data-component-type") if (v := attrs.get(k))
    )


def _filter_box(node: LexborNode, flags: str, share: PageShare | None) -> bool:
    """A filter box (a class word "filter(s)": "search-filters", "FilterItem", "js-filterForm"; its
    price facets such as "Walking tours from $25" narrow the list, they are not items of it); not a
    form or wrapper around the page's content (it holds the main heading or a large share of the
    page's text)."""
    if "ilter" not in flags or not (class_tokens(flags) & _FILTER_WORDS):
        return False
    if share is not None and share(node) >= CONTENT_SHARE:
        return False
    return node.css_first("h1") is None


def _decoy_factor(node: LexborNode, memo: dict[int, float], share: PageShare | None = None) -> float:
    """Below 1 when ``node`` sits in a carousel, promotion box, nav, header, footer or aside."""
    chain = []
    current: LexborNode | None = node
    factor = 1.0
    while current is not None and current.tag not in ("body", "html", "-document"):
        if current.mem_id in memo:
            factor = memo[current.mem_id]
            break
        chain.append(current)
        current = current.parent
    for n in reversed(chain):
        flags = _flag_text(n)
        if n.tag in _DECOY_TAGS or _DECOY_RE.search(flags) or _filter_box(n, flags, share):
            factor *= DECOY_FACTOR
        memo[n.mem_id] = factor
    return memo.get(node.mem_id, factor)


#: What leads to a product's page: a link, or an element a script makes one (`_html.SCRIPT_LINKS`).
_LINK_QUERY = f"a[href], {SCRIPT_LINKS}"


def _qualifies(member: LexborNode, price_len: int) -> bool:
    """A block that can be a product: it holds a link (or is one, or a script's link: `_LINK_QUERY`)
    and text besides its price."""
    if not address(member) and member.css_first(_LINK_QUERY) is None:
        return False
    return len(member.text(deep=True, strip=True)) >= price_len + 8


def _candidate_groups(hits: list[_PriceHit], paths: _Paths, price_len: dict[int, int]) -> list[_Group]:
    """Groups of same-place, similar-class ancestors of the price anchors; ``price_len`` gets, per
    ancestor, the length of a price text inside it."""
    by_key: dict[tuple, dict[int, LexborNode]] = defaultdict(dict)
    for hit in hits:
        node: LexborNode | None = hit.node
        while node is not None and node.tag not in ("body", "html"):
            if node.mem_id in price_len:
                break  # reached from an earlier anchor: so was everything above
            parent = node.parent
            if parent is None:
                break
            by_key[(paths.key(parent), node.tag)][node.mem_id] = node
            price_len[node.mem_id] = len(hit.raw)
            node = parent
    groups: list[_Group] = []
    for key, members in by_key.items():
        if len(members) < MIN_GROUP:
            continue
        clusters: list[_Group] = []
        for member in members.values():
            tokens = _norm_classes(member)
            for cluster in clusters:
                if _similar(cluster.tokens, tokens):
                    cluster.members.append(member)
                    break
            else:
                clusters.append(_Group(key, paths.depth(member), [member], tokens))
        groups.extend(c for c in _join_turns(clusters, list(members)) if len(c.members) >= MIN_GROUP)
    return groups


def _join_turns(clusters: list[_Group], order: list[int]) -> list[_Group]:
    """Two kinds of block that take turns in one container (rows classed ``odd`` and ``even``) are one
    list: their clusters are joined. ``order`` is the blocks' ids in page order."""
    if len(clusters) < 2:
        return clusters
    kind_of = {m.mem_id: k for k, c in enumerate(clusters) for m in c.members}
    joined: set[int] = set()
    for a in range(len(clusters)):
        for b in range(a + 1, len(clusters)):
            if a in joined or b in joined:
                continue
            first, second = clusters[a], clusters[b]
            turns = [kind_of[i] for i in order if kind_of[i] in (a, b)]
            if (
                len(turns) >= 2 * MIN_GROUP
                and abs(len(first.members) - len(second.members)) <= 1
                and all(x != y for x, y in pairwise(turns))
                and {m.parent.mem_id for m in first.members if m.parent}
                == {m.parent.mem_id for m in second.members if m.parent}
            ):
                by_id = {m.mem_id: m for m in first.members + second.members}
                first.members = [by_id[i] for i in order if i in by_id]
                first.tokens = first.tokens | second.tokens
                joined.add(b)
    return [c for k, c in enumerate(clusters) if k not in joined]


def _hits_by_member(hits: list[_PriceHit], members: set[int]) -> dict[int, list[_PriceHit]]:
    """The price anchors inside each of ``members`` (disjoint blocks)."""
    result: dict[int, list[_PriceHit]] = defaultdict(list)
    for hit in hits:
        node: LexborNode | None = hit.node
        while node is not None and node.tag not in ("body", "html"):
            if node.mem_id in members:
                result[node.mem_id].append(hit)
                break
            node = node.parent
    return result


def _all_members(group: _Group) -> list[LexborNode]:
    """Every block of the chosen group in page order, including unpriced siblings of the same kind.

    The parents are met in page order (the price anchors are found in page order and the group's
    parents lie side by side at one depth), so walking each parent's children keeps that order. When
    the blocks sit in sibling wrappers of one container (rows of a grid, pages of a grid loaded into
    it), the container is walked: its own blocks and those of its wrappers, in page order.
    """
    parents: dict[int, LexborNode] = {}
    for m in group.members:
        p = m.parent
        if p is not None:
            parents.setdefault(p.mem_id, p)
    grand = {p.parent.mem_id: p.parent for p in parents.values() if p.parent is not None}
    containers = list(grand.values()) if len(parents) > 1 and len(grand) == 1 else list(parents.values())

    def kind(node: LexborNode) -> bool:
        return node.tag == group.key[1] and _similar(group.tokens, _norm_classes(node))

    known = {m.mem_id for m in group.members}
    ordered: list[LexborNode] = []
    for container in containers:
        for child in container.iter():
            if child.mem_id in known:
                ordered.append(child)
            elif child.mem_id in parents or (
                len(containers) == 1
                and child.tag != "a"
                and not kind(child)
                and any(kind(c) for c in child.iter())
            ):
                # A wrapper of the container (a row, a page of the grid loaded into it): its blocks.
                ordered.extend(c for c in child.iter() if kind(c))
            elif kind(child):
                ordered.append(child)
    return ordered


def _shape(member: LexborNode) -> set[tuple[str, str]]:
    """The element kinds (tag and class list) of a block's top two levels: what a card is built of."""
    found: set[tuple[str, str]] = set()
    for child in member.iter():
        found.add((child.tag or "", child.attributes.get("class") or ""))
        for grandchild in child.iter():
            found.add((grandchild.tag or "", grandchild.attributes.get("class") or ""))
    return found


def _unpriced_strangers(members: list[LexborNode], priced: set[int]) -> set[int]:
    """Blocks without a price that are not built of the parts the priced ones are (a table's header
    row, a filter box): most of their own parts appear in no priced block. A sold-out product card
    is made of the same parts as its neighbours, minus the price."""
    unpriced = [m for m in members if m.mem_id not in priced]
    if not unpriced:
        return set()
    known: set[tuple[str, str]] = set()
    for m in [m for m in members if m.mem_id in priced][:8]:
        known |= _shape(m)
    strangers = set()
    for m in unpriced:
        own = _shape(m)
        if own and len(own & known) < MIN_SHAPE_SHARE * len(own):
            strangers.add(m.mem_id)
    return strangers


# --- the prices of a block --------------------------------------------------------------------------


def _markup(
    node: LexborNode, member: LexborNode, memo: dict[int, tuple[str | None, bool]]
) -> tuple[str | None, bool]:
    """(role, price-classed) from the price element and two ancestors inside the block."""
    role: str | None = None
    classed = False
    current: LexborNode | None = node
    for _ in range(3):
        if current is None or current.mem_id == member.mem_id:
            break
        cached = memo.get(current.mem_id)
        if cached is None:
            cached = memo[current.mem_id] = roles.markup(current)
        role = role or cached[0]
        classed = classed or cached[1]
        current = current.parent
    return role, classed


def _above(node: LexborNode, member: LexborNode) -> set[int]:
    """The memory ids of the elements around ``node`` inside the block ``member``."""
    ids: set[int] = set()
    current = node.parent
    while current is not None and current.mem_id != member.mem_id:
        ids.add(current.mem_id)
        current = current.parent
    return ids


def _sibling_text(node: LexborNode, member: LexborNode, *, before: bool) -> str:
    """About `CONTEXT_CHARS` of the block's text right before (or after) ``node``, read from its
    siblings and its ancestors' siblings up to the block (never the whole block: cards are big)."""
    parts: list[str] = []
    size = 0
    current: LexborNode | None = node
    while current is not None and current.mem_id != member.mem_id and size < CONTEXT_CHARS:
        sibling = current.prev if before else current.next
        while sibling is not None and size < CONTEXT_CHARS:
            text = sibling.text(deep=True) if sibling.tag_id != _COMMENT_TAG_ID else ""
            if text and not text.isspace():
                text = text[-2 * CONTEXT_CHARS :] if before else text[: 2 * CONTEXT_CHARS]
                parts.append(text)
                size += len(text)
            sibling = sibling.prev if before else sibling.next
        current = current.parent
    if before:
        return collapse_space(" ".join(reversed(parts)))[-CONTEXT_CHARS:]
    return collapse_space(" ".join(parts))[:CONTEXT_CHARS]


def _block_prices(
    hits: list[_PriceHit], member: LexborNode, currency: str | None, memo: dict[int, tuple[str | None, bool]]
) -> list[_Candidate]:
    """Every price of a block with its role and a score for being the one to pay.

    A price's role comes from its label's own words, else its markup, else the words around the
    label in the block ("Reg." in an element of its own, "+ … Versand"): those are read only when
    the labels and markup leave more than one amount open.
    """
    labels = [(hit, find_prices(hit.text, currency)) for hit in hits]
    # A label around other labels ("<div>29,99 € <b>19,99 €</b></div>") leaves their prices to them.
    inner_amounts: dict[int, set[float]] = defaultdict(set)
    if len(hits) > 1:
        around = {id(hit): _above(hit.node, member) for hit in hits}
        for a, _ in labels:
            for b, b_spans in labels:
                if a is not b and a.node.mem_id in around[id(b)]:
                    inner_amounts[a.node.mem_id].update(s.price.amount for s in b_spans)
    found: list[_Candidate] = []
    open_roles: list[tuple[int, _PriceHit, int, int]] = []  # (index in found, hit, span index, spans)
    per_said: list[int] = []  # prices per measure or piece by their words; per unit by markup alone
    unit_classed: list[int] = []
    for hit, spans in labels:
        markup_role, classed = _markup(hit.node, member, memo)
        skip = inner_amounts.get(hit.node.mem_id)
        score = (3 if classed else 0) + (1 if hit.explicit else 0)
        score -= 4 if hit.letters > 12 else 2 if hit.letters > 3 else 0
        for k, span in enumerate(spans):
            if skip and span.price.amount in skip:
                continue
            said = roles.text_role(span.before, span.after)
            role = said or markup_role
            if role is None:
                open_roles.append((len(found), hit, k, len(spans)))
            elif said in (roles.UNIT, roles.PIECE):
                per_said.append(len(found))
            elif role == roles.UNIT:
                unit_classed.append(len(found))
            bonus = 2 if roles.says_current(span.before) else 0
            found.append(_Candidate(span.price, role or roles.CURRENT, score + bonus, len(found)))
    if (
        per_said
        and unit_classed
        and not any(c.role in _PAYABLE for i, c in enumerate(found) if i not in per_said)
    ):
        # A price classed per unit ("price-per-…-unit") with no words of its own, beside one whose
        # words say per measure or piece ("72.5p/litre", "25.8p each"), and nothing else to pay:
        # the class named the unit sold, and the price per measure is the other.
        for i in unit_classed:
            found[i].role = roles.CURRENT
    spans_of = {id(hit): spans for hit, spans in labels}
    if len({found[i].price.amount for i, _, _, _ in open_roles}) > 1:
        contexts: dict[int, tuple[str, str]] = {}
        for i, hit, k, count in open_roles:
            context = contexts.get(hit.node.mem_id)
            if context is None:
                context = contexts[hit.node.mem_id] = _context(hit.node, member)
            span = spans_of[id(hit)][k]
            before = (context[0] + " " + span.before) if k == 0 and context[0] else span.before
            after = (span.after + " " + context[1]) if k == count - 1 and context[1] else span.after
            found[i].role = roles.text_role(before, after) or roles.CURRENT
            if roles.says_current(before) and not roles.says_current(span.before):
                found[i].score += 2
    return found


def _context(node: LexborNode, member: LexborNode) -> tuple[str, str]:
    """The words before a label since the previous number, and the text after it, in its block. In a
    table row the words before are the header of the label's column ("Ex VAT", "Was", "Inc VAT") and
    those before it in its own cell: the other cells are other fields."""
    cell = _cell(node, member) if member.tag == "tr" else None
    before = _sibling_text(node, cell or member, before=True)
    m = _LAST_DIGIT_RE.search(before)
    before = before[m.end() :] if m else before
    if cell is not None:
        before = f"{_column_header(cell, member)} {before}".strip()
    return before, _sibling_text(node, member, before=False)


def _cell(node: LexborNode, row: LexborNode) -> LexborNode | None:
    """The cell of ``row`` that holds ``node``."""
    current: LexborNode | None = node
    while current is not None and current.parent is not None and current.parent.mem_id != row.mem_id:
        current = current.parent
    return current if current is not None and current.tag in ("td", "th") else None


def _column_header(cell: LexborNode, row: LexborNode) -> str:
    """The text of the header cell above ``cell`` of ``row`` in its table ("" if none)."""
    column = 0
    for sibling in row.iter():
        if sibling.mem_id == cell.mem_id:
            break
        if sibling.tag in ("td", "th"):
            column += colspan(sibling)
    table = row.parent
    while table is not None and table.tag != "table":
        table = table.parent
    header = None
    if table is not None:
        header = next((r for r in table.css("tr") if r.css_first("th") is not None), None)
    if header is None or header.mem_id == row.mem_id:
        return ""
    start = 0
    for head in header.iter():
        if head.tag not in ("td", "th"):
            continue
        if start <= column < start + colspan(head):
            return collapse_space(head.text(deep=True))
        start += colspan(head)
    return ""


def _choose_prices(candidates: list[_Candidate]) -> tuple[Price | None, Price | None]:
    """The price to pay and the regular price (only when above it) of a block's prices."""
    for wanted in roles.PRICE_ROLES:
        pool = [c for c in candidates if c.role == wanted]
        if pool:
            current = max(pool, key=lambda c: (c.score, -c.order))
            break
    else:
        return None, None
    # Two prices that nothing tells apart (no word, no mark: a saved page has lost the CSS that
    # struck one through): the lower is the price to pay, the higher the one before the reduction.
    peers = [c for c in pool if c.score == current.score]
    amounts = {c.price.amount for c in peers}
    if (
        current.role == roles.CURRENT
        and len(peers) == 2
        and len(amounts) == 2
        and len({c.price.currency for c in peers}) == 1
    ):
        low, high = sorted(peers, key=lambda c: c.price.amount)
        return low.price, high.price
    regular = None
    if current.role != roles.REGULAR:
        regular = next(
            (
                c.price
                for c in candidates
                if c.role == roles.REGULAR
                and c.price.amount > current.price.amount
                and c.price.currency in (current.price.currency, None)
            ),
            None,
        )
    return current.price, regular


# --- the rest of a product ----------------------------------------------------------------------------


def _main_url(member: LexborNode, base: str) -> tuple[str | None, list[LexborNode]]:
    """The URL most of the block's links point to (image, title and price usually share it); links to
    a seller's or shop's page count only when there is nothing else; a block without any link opens
    the address its script-made link names (``data-href``, ``data-url``)."""
    links = [member] if member.tag == "a" and member.attributes.get("href") else []
    links += member.css("a[href]") if member.tag != "a" else []
    if not links:  # no link at all: the element a script opens the product from (`_LINK_QUERY`)
        links = [n for n in member.css(_LINK_QUERY) if address(n)]
    by_href: dict[str, list[LexborNode]] = defaultdict(list)
    for link in links:
        href = address(link).strip()
        if (
            href
            and not href.startswith("#")
            and not href.lower().startswith(("javascript:", "mailto:", "tel:"))
        ):
            by_href[href].append(link)
    # The first of the most frequent, in page order; resolved once (urljoin is not cheap).
    for href, group in sorted(
        by_href.items(), key=lambda kv: (bool(names.SELLER_PATH_RE.search(kv[0])), -len(kv[1]))
    ):
        url = absolute_url(href, base)
        if url:
            return url, group
    return None, []


def _image(member: LexborNode, base: str) -> str | None:
    img = member.css_first("img")
    if img is None:
        return None
    attrs = img.attributes
    for key in ("data-src", "data-original", "data-lazy-src", "src"):  # lazy loaders keep the real one aside
        value = attrs.get(key)
        if value and not value.startswith("data:"):
            return absolute_url(value, base)
    return None


def _rating(member: LexborNode) -> float | None:
    for node in member.css("[aria-label], [title], [class*=rating], [class*=star]"):
        for text in (node.attributes.get("aria-label"), node.attributes.get("title"), raw_text(node)):
            if text and len(text) < 60:
                m = _RATING_RE.search(text)
                if m:
                    value = float(m.group(1).replace(",", "."))
                    if 0 <= value <= 5:
                        return value
    return None


def _sponsored(member: LexborNode) -> bool:
    """Whether the block is labelled as an ad ("Sponsored", "Anzeige", "Sponsorowane", ...)."""
    tokens = {t.lower() for t in classes(member)}
    if any("sponsor" in t for t in tokens):
        return True
    text = member.text(deep=True, separator=" ")
    lowered = text.lower()
    has_word = any(hint in lowered for hint in _SPONSORED_HINTS)
    if not has_word and not (("Ad" in text or "AD" in text) and _AD_LABEL_RE.search(text)):
        return False
    hidden: dict[int, bool] = {}
    for node in member.traverse(include_text=True):
        if node.tag == "-text":
            text = (node.text_content or "").strip()
            # A label kept from assistive technology is not trusted: a page may print "Anzeige" into
            # every result inside aria-hidden spans and decide with obfuscated CSS which ones show.
            if (
                text
                and len(text) <= 24
                and names.SPONSORED_RE.match(text.replace("\u200b", ""))
                and node.parent is not None
                and not hidden_in_tree(node.parent, hidden, strict=True)
            ):
                return True
    return False


def stylesheet_labels(html: str) -> int:
    """Ad labels ("Anzeige", "Sponsored") that HTML as fetched prints inside ``aria-hidden`` elements:
    a page that prints one into every result and lets obfuscated CSS decide which show. Without the
    stylesheet (the HTTP engine) the sponsored flags cannot be told; the count says how many."""
    tree = LexborHTMLParser(html)
    found = 0
    for node in tree.css('[aria-hidden="true"]'):
        text = (node.text(deep=True) or "").replace("\u200b", "").strip()
        if text and len(text) <= 24 and names.SPONSORED_RE.match(text):
            found += 1
    return found


# --- the listing ------------------------------------------------------------------------------------


def _page_default(hits: list[_PriceHit], body: LexborNode, currency: str | PageCurrency | None) -> str | None:
    """The currency for marks the price texts leave open, from the page's context when any label
    needs it (a bare "$", "kr", "¥", or no mark at all); every hit re-read with it."""
    if not isinstance(currency, PageCurrency):
        return currency
    default = currency.domain
    # A bare number takes the domain's currency when there is one; a "$", "kr" or "¥" asks the page.
    if any(_AMBIGUOUS_RE.search(h.text) or (default is None and not h.explicit) for h in hits):
        resolved = currency.resolve(body)
        if resolved and resolved != default:
            default = resolved
            for hit in hits:
                hit.price = parse_price(hit.text, default) or hit.price
    if default is None and any(in_pence(h.text) for h in hits):
        default = "GBP"  # amounts in pence stand among the hits only where the page prices in pounds
    return default


def _records_around_variants(groups: list[_Group], best: _Group, members: list[LexborNode]) -> _Group | None:
    """The group of records holding the chosen blocks, when those are each record's variants: two or
    more to a record, and their links say the same few words from record to record ("Paperback",
    "Hardcover"; "S", "M", "L"), where products' names differ. The records are the closest blocks
    holding all of them that also link outside them (a title, a picture)."""
    labels = [visible_text(a) if (a := m.css_first("a[href]")) is not None else "" for m in members]
    if len(members) < 2 * MIN_GROUP or len(set(labels)) * 2 > len(members):
        return None
    ids = {m.mem_id for m in members}
    for group in sorted(groups, key=lambda g: -g.depth):
        if group.depth >= best.depth or len(group.members) < MIN_GROUP:
            continue
        held = [sum(1 for n in g.traverse() if n.mem_id in ids) for g in group.members]
        if (
            all(n >= 2 for n in held)
            and sum(held) == len(ids)
            and all(map(_links_beside, group.members, [ids] * len(held)))
        ):
            return group
    return None


def _links_beside(record: LexborNode, variants: set[int]) -> bool:
    """Whether the block links somewhere outside its variants (its title, its picture): a record, not
    the list of its variants alone."""
    for link in record.css("a[href]"):
        node: LexborNode | None = link
        while node is not None and node.mem_id != record.mem_id and node.mem_id not in variants:
            node = node.parent
        if node is not None and node.mem_id == record.mem_id:
            return True
    return False


def detect_products(tree: LexborHTMLParser, base: str, currency: str | PageCurrency | None) -> list[dict]:
    """The product listing of a page (see the module docstring), as product dicts in page order.

    ``currency`` is the page's `PageCurrency` (or a plain default currency): what a bare "$" or a
    number without a mark is priced in.
    """
    body = tree.body
    if body is None:
        return []
    hidden, strict_hidden = HiddenIndex.pair(tree)
    hits = _find_prices(body, currency.domain if isinstance(currency, PageCurrency) else currency, hidden)
    if len(hits) < MIN_GROUP:
        return []
    default = _page_default(hits, body, currency)
    paths = _Paths()
    share = PageShare(tree)
    decoy_memo: dict[int, float] = {}
    price_len: dict[int, int] = {}
    groups = _candidate_groups(hits, paths, price_len)
    # Score the most promising groups first; a group whose every block qualified could not beat the
    # best so far is never looked at (qualifying a block reads its text: costly for big containers).
    for group in groups:
        # The container's flags count, not a block's own: one "promo" card does not make a promotion strip.
        parent = group.members[0].parent
        group.score = len(group.members) * (
            _decoy_factor(parent, decoy_memo, share) if parent is not None else 1.0
        )
    groups.sort(key=lambda g: (-g.score, g.depth))
    best: _Group | None = None
    members: list[LexborNode] = []
    hits_of: dict[int, list[_PriceHit]] = {}
    for group in groups:
        if best is not None and group.score < best.score:
            break
        factor = group.score / len(group.members)
        good = sum(
            1 for m in group.members if not strict_hidden(m) and _qualifies(m, price_len.get(m.mem_id, 0))
        )
        group.score = good * factor
        if group.score < MIN_GROUP * 0.99 or (
            best is not None and (-group.score, group.depth) >= (-best.score, best.depth)
        ):
            continue
        candidates = [m for m in _all_members(group) if not strict_hidden(m)]
        candidate_hits = _hits_by_member(hits, {m.mem_id for m in candidates})
        # Mostly priced blocks make a listing; two priced rows among twenty (an infobox's "Revenue
        # US$ 211 billion") do not.
        if len(candidate_hits) < MIN_PRICED_SHARE * len(candidates):
            continue
        best, members, hits_of = group, candidates, candidate_hits
    if best is None:
        return []
    outer = _records_around_variants(groups, best, members)
    if outer is not None:  # the rows were each record's formats or sizes: the records are the listing
        members = [m for m in _all_members(outer) if not strict_hidden(m)]
        hits_of = _hits_by_member(hits, {m.mem_id for m in members})
    strangers = _unpriced_strangers(members, set(hits_of))
    products = []
    memo: dict[int, tuple[str | None, bool]] = {}
    for member in members:
        if member.mem_id in strangers:
            continue
        member_hits = hits_of.get(member.mem_id, [])
        url, main_links = _main_url(member, base)
        price, regular = _choose_prices(_block_prices(member_hits, member, default, memo))
        name = names.best_name(member, main_links, {h.raw for h in member_hits if h.letters <= 3})
        if not name or not url:
            continue
        product: dict[str, Any] = {"name": name, "price": price, "url": url}
        if regular is not None:
            product["price_regular"] = regular
        product["image"] = _image(member, base)
        product["rating"] = _rating(member)
        product["sponsored"] = _sponsored(member)
        products.append(product)
    return products


def extract(
    html: str,
    base_url: str,
    *,
    selectors: dict | None = None,
    limit: int | None = None,
    min_price: float | None = None,
    max_price: float | None = None,
    stated_currencies: list[str] | None = None,
    embedded: list | None = None,
    **_: Any,
) -> dict:
    """Products of the listing on ``html`` (page URL ``base_url``), those priced in [``min_price``,
    ``max_price``] when a bound is given, the first ``limit`` of them. ``selectors`` is unused: no
    site markup. ``stated_currencies`` are the currency codes the page's scripts state (read in the
    browser, whose lean HTML has no scripts); None: read them from ``html``. ``embedded`` are the
    JSON documents the page carries (`_embedded.read_embedded`): their listing stands in when the
    DOM has none, and gives its price to a DOM product without one."""
    found = read_products(html, base_url, stated_currencies)
    return select_products(found, embedded=embedded, limit=limit, min_price=min_price, max_price=max_price)


def read_products(html: str, base_url: str, stated_currencies: list[str] | None = None) -> dict:
    """The parse and detection of `extract`, the costly part: ``{"products": every product of the
    listing (no bound, no limit), "base": the page's base URL, "currency": the page's default}``."""
    tree = parse_html(html)
    base = page_base(tree, base_url)
    context = PageCurrency(tree, base, html, stated_currencies)  # reads <meta>: before strip_junk
    strip_junk(tree)
    products = finish_products(detect_products(tree, base, context), context.best)
    return {"products": products, "base": base, "currency": context.resolve(None)}


def select_products(
    found: dict,
    *,
    embedded: list | None = None,
    limit: int | None = None,
    min_price: float | None = None,
    max_price: float | None = None,
) -> dict:
    """`extract`'s answer from `read_products`: what ``embedded`` documents add, the price bounds, the
    limit, and how many products the bounds dropped."""
    products = found["products"]
    if embedded:
        from ._embedded import with_embedded

        products = with_embedded(products, embedded, found["base"], found["currency"])
    kept = filter_by_price(products, min_price, max_price)
    out: dict[str, Any] = {"products": apply_limit(kept, limit)}
    if len(kept) < len(products):
        out["dropped"] = len(products) - len(kept)  # a pager reads on: the page had products, none in range
    return out


async def run(
    ctx: ToolContext, limit: int | None = None, min_price: float | None = None, max_price: float | None = None
) -> dict:
    """Tool entry point: one round trip for the lean HTML (CSS-hidden elements left out) and the
    currency codes the page's scripts state (read in the same call), then `extract`."""
    live = ctx.page is not None or ctx.document is None
    stated: list[str] | None = None
    if live:
        html, url, found_codes = await page_read(ctx, lean=True, also=STATED_CURRENCIES_JS)
        stated = stated_currencies(found_codes)
    else:  # HTML as fetched (the HTTP engine): its own scripts state the currency (`PageCurrency`)
        html, url = await page_html(ctx)
    found = await offload.run(read_products, html, url, stated, size=len(html))
    docs: list | None = None
    if not found["products"] or any(p["price"] is None for p in found["products"]):
        # No items in the DOM yet, or items without a price: what the page carries as data, if anything.
        from ._embedded import html_embedded, read_embedded

        docs = await read_embedded(require_page(ctx)) if live else html_embedded(html)
    out = select_products(found, embedded=docs, limit=limit, min_price=min_price, max_price=max_price)
    if not live and out["products"] and (labels := stylesheet_labels(html)):
        ctx.warn(
            f"the page prints {labels} ad label(s) that only its stylesheet shows or hides: the sponsored "
            "flags read from its HTML may be wrong (--engine browser reads them as shown)"
        )
    return out
