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
   whole card). Groups inside carousels, promotion boxes, navigation, headers, footers or asides
   count a quarter, so "recommended" strips lose to the real list; a lone banner ("free delivery
   from 200 zł") never repeats and never forms a group; a group where fewer than half the blocks
   show a price (an infobox with two money rows) is no listing.
4. **Every block of the listing** — priced or not — becomes a product: its name (heading, name/title
   element, or the text of its main link), its main link (the URL most of its links point to), and
   its price (the price-classed, not struck-through, not per-unit candidate).

In a browser, `run` has the page leave out what its CSS hides (display:none, visibility:hidden), so
templates and collapsed widgets of a live page are skipped as well as those hidden in the markup.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...prices import Price, has_currency_mark, parse_price, remove_currency_marks
from ...tool import ToolContext
from ._html import (
    HiddenIndex,
    absolute_url,
    apply_limit,
    classes,
    default_currency,
    fold,
    hidden_in_tree,
    page_base,
    page_html,
    parse_html,
    raw_text,
    strip_junk,
    visible_text,
)
from ._products import finish_products

MAX_PRICE_TEXT = 60  # longer texts are sentences that mention a price, not price labels
MAX_LABEL_LETTERS = 16  # "od", "ab", "from" are fine; "Companies with revenue over US$4 billion" is not
MIN_GROUP = 2
MIN_PRICED_SHARE = 0.5  # of a listing's blocks that show a price
DECOY_FACTOR = (
    0.25  # weight of a group inside a carousel/promotion/nav container: 12 there lose to 4 in the list
)
_DIGIT_RE = re.compile(r"\d")
_WORDY_RE = re.compile(r"[^\W\d_]{4,}")  # a word: the number is part of a sentence, not a split price
_BARE_NUMBER_RE = re.compile(r"^\s*\d[\d\s.,'’]*[-–]?\s*$")
_PRICE_WORD_RE = re.compile(r"price|preis|cena|prix|prezzo|precio|amount|cost", re.IGNORECASE)
_NOT_CURRENT_RE = re.compile(
    r"strike|line-?through|crossed|old|was|before|regular|rrp|list-?price|uvp|previous|original|unit|per-",
    re.IGNORECASE,
)
_DECOY_RE = re.compile(
    r"carousel|slider|swiper|slick|promo|sponsor|recommend|advert|banner|related|also-?(viewed|bought)|"
    r"recently|upsell|cross-?sell|similar|facet|refine",
    re.IGNORECASE,
)
_DECOY_TAGS = frozenset({"nav", "header", "footer", "aside"})
_NAME_ATTR_RE = re.compile(r"(?<!sub)(name|title)", re.IGNORECASE)
_RATING_RE = re.compile(
    r"(\d(?:[.,]\d{1,2})?)\s*(?:out of|of|von|z|de|sur|su|/)\s*5(?![\d.,])", re.IGNORECASE
)
_RATING_WORDS_RE = re.compile(
    r"\b(stars?|sterne[n]?|gwiazdk|étoiles|estrellas|reviews?|ratings?|opini|bewertung|rezension)",
    re.IGNORECASE,
)
_SPONSORED_RE = re.compile(
    r"^(sponsored|gesponsert|sponsorowane|sponsorowany|anzeige|reklama|ad|ads|promoted|promowane|sponsoris[ée]|"
    r"patrocinado|sponsorizzato|gesponsord)$",
    re.IGNORECASE,
)
# A cheap first look for those words in a block's text: substring tests (labels say "Ad", not "ad").
_SPONSORED_HINTS = ("sponsor", "anzeige", "reklama", "promo", "patrocin")
_AD_LABEL_RE = re.compile(r"\b(?:Ads?|AD)\b")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_FILLER_WORDS = frozenset(
    {"od", "from", "ab", "ca", "approx", "bis", "to", "do", "only", "nur", "tylko", "now", "jetzt", "teraz"}
)
_HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]"
_NAMED = ", ".join(
    f'[{attr}*="{word}" i]'
    for attr in ("class", "itemprop", "data-test", "data-testid")
    for word in ("name", "title")
)


@dataclass
class _PriceHit:
    node: LexborNode
    text: str
    price: Price
    explicit: bool  # the text itself names a currency
    letters: int  # letters besides currency marks and filler words (see `_label_letters`)


@dataclass
class _Group:
    key: tuple
    depth: int
    members: list[LexborNode] = field(default_factory=list)
    tokens: frozenset = frozenset()
    score: float = 0.0


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
        current = node
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
    for text_node in body.traverse(include_text=True):
        if text_node.tag != "-text":
            continue
        content = text_node.text_content
        # Most text nodes are indentation: isspace() rejects them far cheaper than a regex.
        if not content or len(content) > 200 or content.isspace() or not _DIGIT_RE.search(content):
            continue
        el = text_node.parent
        if el is None or el.mem_id in checked:
            continue
        found: tuple[LexborNode, str] | None = None
        fallback: tuple[LexborNode, str] | None = None
        if has_currency_mark(content):  # "€2.95", "EUR 10,79": the element holding the text
            checked.add(el.mem_id)
            found = (el, el.text(deep=True))
        elif not _WORDY_RE.search(content):
            # A bare number ("7 998", "2.95"): its currency mark may sit in a sibling element
            # ("<span>7 998</span><span>,00</span>zł"), so look a few levels up.
            climbed: list[tuple[LexborNode, str]] = []
            for _ in range(4):
                if el is None or el.tag in ("body", "html") or el.mem_id in checked:
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
                fallback = next(((e, t) for e, t in climbed if _price_classed(e)), None)
        chosen = found or fallback
        if chosen is None or chosen[0].mem_id in seen:
            continue
        node, text = chosen
        seen.add(node.mem_id)
        text = fold(text)
        if len(text) > MAX_PRICE_TEXT:
            continue
        letters = _label_letters(text)
        if letters > MAX_LABEL_LETTERS or hidden(node):
            continue
        price = parse_price(text, currency)
        if price is None:
            continue
        hits.append(_PriceHit(node, text, price, found is not None, letters))
    return hits


def _label_letters(text: str) -> int:
    """Letters in a price label besides currency marks and "from"/"od"/"ab": a sentence has many."""
    words = _LETTERS_RE.findall(remove_currency_marks(text))
    return sum(len(w) for w in words if w.lower() not in _FILLER_WORDS)


def _price_classed(node: LexborNode) -> bool:
    attrs = node.attributes
    for name in ("class", "itemprop", "data-test", "data-testid", "id"):
        value = attrs.get(name)
        if value and _PRICE_WORD_RE.search(value):
            return True
    return False


def _flag_text(node: LexborNode) -> str:
    attrs = node.attributes
    return " ".join(
        v for k in ("class", "id", "aria-roledescription", "data-component-type") if (v := attrs.get(k))
    )


def _decoy_factor(node: LexborNode, memo: dict[int, float]) -> float:
    """Below 1 when ``node`` sits in a carousel, promotion box, nav, header, footer or aside."""
    chain = []
    current = node
    factor = 1.0
    while current is not None and current.tag not in ("body", "html", "-document"):
        if current.mem_id in memo:
            factor = memo[current.mem_id]
            break
        chain.append(current)
        current = current.parent
    for n in reversed(chain):
        if n.tag in _DECOY_TAGS or _DECOY_RE.search(_flag_text(n)):
            factor *= DECOY_FACTOR
        memo[n.mem_id] = factor
    return memo.get(node.mem_id, factor)


def _qualifies(member: LexborNode, price_len: int) -> bool:
    """A block that can be a product: it holds a link (or is one) and text besides its price."""
    if member.tag != "a" and member.css_first("a[href]") is None:
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
            price_len[node.mem_id] = len(hit.text)
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
        groups.extend(c for c in clusters if len(c.members) >= MIN_GROUP)
    return groups


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
    parents lie side by side at one depth), so walking each parent's children keeps that order.
    """
    parents: dict[int, LexborNode] = {}
    for m in group.members:
        p = m.parent
        if p is not None:
            parents.setdefault(p.mem_id, p)
    ordered: list[LexborNode] = []
    for parent in parents.values():
        for child in parent.iter():
            if child.tag == group.key[1] and _similar(group.tokens, _norm_classes(child)):
                ordered.append(child)
    return ordered


def _price_role(node: LexborNode) -> int:
    """+3 for an element that says it is a price, -6 for a struck-through/old/per-unit one, else 0."""
    attrs = node.attributes
    flags = " ".join(v for k in ("class", "itemprop", "data-test", "data-testid") if (v := attrs.get(k)))
    if (
        node.tag in ("s", "del", "strike")
        or attrs.get("data-a-strike") == "true"
        or _NOT_CURRENT_RE.search(flags)
        or "line-through" in (attrs.get("style") or "")
    ):
        return -6
    return 3 if _PRICE_WORD_RE.search(flags) else 0


def _best_price(hits: list[_PriceHit], member: LexborNode, roles: dict[int, int]) -> _PriceHit | None:
    """The block's current price: price-classed, not struck through, a bare label, not per unit.
    ``roles`` memoises `_price_role` per element (a block's prices share ancestors)."""
    best, best_score = None, float("-inf")
    for hit in hits:
        score = 0.0
        node: LexborNode | None = hit.node
        for _ in range(3):  # the price element and two ancestors inside the block
            if node is None or node.mem_id == member.mem_id:
                break
            role = roles.get(node.mem_id)
            if role is None:
                role = roles[node.mem_id] = _price_role(node)
            if role:
                score += role
                break
            node = node.parent
        if hit.explicit:
            score += 1
        if hit.letters > 12:
            score -= 4
        elif hit.letters > 3:
            score -= 2
        if "/" in hit.text or hit.text.lstrip().startswith("("):
            score -= 3  # a unit price: "(€2.95/kg)"
        if score > best_score:
            best, best_score = hit, score
    return best


def _main_url(member: LexborNode, base: str) -> tuple[str | None, list[LexborNode]]:
    """The URL most of the block's links point to (image, title and price usually share it)."""
    links = [member] if member.tag == "a" and member.attributes.get("href") else []
    links += member.css("a[href]") if member.tag != "a" else []
    by_href: dict[str, list[LexborNode]] = defaultdict(list)
    for link in links:
        href = (link.attributes.get("href") or "").strip()
        if (
            href
            and not href.startswith("#")
            and not href.lower().startswith(("javascript:", "mailto:", "tel:"))
        ):
            by_href[href].append(link)
    # The first of the most frequent, in page order; resolved once (urljoin is not cheap).
    for href, group in sorted(by_href.items(), key=lambda kv: -len(kv[1])):
        url = absolute_url(href, base)
        if url:
            return url, group
    return None, []


def _name_penalty(text: str) -> float:
    penalty = 0.0
    if len(text) < 3:
        return 100.0
    if len(text) < 8:
        penalty += 1.5
    # "4,5 von 5 Sternen", "137 opinii", "9,582 ratings" - but not "Star Projector for Bedroom".
    if _RATING_RE.search(text) or (
        len(text) < 40 and _DIGIT_RE.search(text) and _RATING_WORDS_RE.search(text)
    ):
        penalty += 3
    if has_currency_mark(text) and parse_price(text) is not None:
        penalty += 2
    if _SPONSORED_RE.match(text):
        penalty += 100
    if len(text) > 300:
        penalty += 2
    return penalty


def _name(member: LexborNode, main_links: list[LexborNode], price_texts: set[str]) -> str | None:
    candidates: list[tuple[float, int, str]] = []
    order = 0

    def add(text: str | None, weight: float) -> None:
        nonlocal order
        text = (text or "").strip()
        if not text or text in price_texts:
            return
        order += 1
        candidates.append((weight - _name_penalty(text), -order, text))

    for heading in member.css(_HEADINGS):
        if heading.mem_id != member.mem_id and len(heading.text(deep=True)) < 600:
            add(visible_text(heading), 4)
    if candidates and max(candidates)[0] >= 4:
        return max(candidates)[2]  # a clean heading: nothing else can score higher
    for node in member.css(_NAMED):
        if node.mem_id == member.mem_id or len(node.text(deep=True)) >= 600:
            continue
        attrs = node.attributes
        flags = " ".join(v for k in ("class", "itemprop", "data-test", "data-testid") if (v := attrs.get(k)))
        if _NAME_ATTR_RE.search(flags):
            add(visible_text(node), 3.5 if "name" in flags.lower() else 3)
    for link in main_links:
        add(visible_text(link), 3)
        add(link.attributes.get("title"), 2)
        add(link.attributes.get("aria-label"), 2)
        img = link.css_first("img[alt]")
        if img is not None:
            add(img.attributes.get("alt"), 1)
    if not candidates:
        return None
    best = max(candidates)
    return best[2] if best[0] > -50 else None


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
    for node in member.css("[aria-label], [title], .a-icon-alt, [class*=rating], [class*=stars]"):
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
    if any("sponsor" in t or t == "adholder" for t in tokens):
        return True
    text = member.text(deep=True)
    lowered = text.lower()
    has_word = any(hint in lowered for hint in _SPONSORED_HINTS)
    if not has_word and not (("Ad" in text or "AD" in text) and _AD_LABEL_RE.search(text)):
        return False
    hidden: dict[int, bool] = {}
    for node in member.traverse(include_text=True):
        if node.tag == "-text":
            text = (node.text_content or "").strip()
            # A label kept from assistive technology is not trusted: eBay prints "Anzeige" into every
            # result inside aria-hidden spans and decides with obfuscated CSS which ones show.
            if (
                text
                and len(text) <= 24
                and _SPONSORED_RE.match(text.replace("\u200b", ""))
                and not hidden_in_tree(node.parent, hidden, strict=True)
            ):
                return True
    return False


def detect_products(tree: LexborHTMLParser, base: str, currency: str | None) -> list[dict]:
    """The product listing of a page (see the module docstring), as product dicts in page order."""
    body = tree.body
    if body is None:
        return []
    hidden, strict_hidden = HiddenIndex.pair(tree)
    hits = _find_prices(body, currency, hidden)
    if len(hits) < MIN_GROUP:
        return []
    paths = _Paths()
    decoy_memo: dict[int, float] = {}
    price_len: dict[int, int] = {}
    groups = _candidate_groups(hits, paths, price_len)
    # Score the most promising groups first; a group whose every block qualified could not beat the
    # best so far is never looked at (qualifying a block reads its text: costly for big containers).
    for group in groups:
        # The container's flags count, not a block's own: one "promo" card does not make a promotion strip.
        parent = group.members[0].parent
        group.score = len(group.members) * (_decoy_factor(parent, decoy_memo) if parent is not None else 1.0)
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
    products = []
    roles: dict[int, int] = {}
    for member in members:
        member_hits = hits_of.get(member.mem_id, [])
        url, main_links = _main_url(member, base)
        name = _name(member, main_links, {h.text for h in member_hits})
        if not name or not url:
            continue
        hit = _best_price(member_hits, member, roles)
        product: dict[str, Any] = {"name": name, "price": hit.price if hit else None, "url": url}
        product["image"] = _image(member, base)
        product["rating"] = _rating(member)
        product["sponsored"] = _sponsored(member)
        products.append(product)
    return products


def extract(
    html: str, base_url: str, *, selectors: dict | None = None, limit: int | None = None, **_: Any
) -> dict:
    """Products of the listing on ``html`` (page URL ``base_url``). ``selectors`` is unused: no site markup."""
    tree = parse_html(html)
    base = page_base(tree, base_url)
    strip_junk(tree)
    currency = default_currency(base)
    products = finish_products(detect_products(tree, base, currency), currency)
    return {"products": apply_limit(products, limit)}


async def run(ctx: ToolContext, limit: int | None = None) -> dict:
    """Tool entry point: one round trip for the lean HTML (CSS-hidden elements left out), then `extract`."""
    html, url = await page_html(ctx, lean=True)
    return extract(html, url, limit=limit)
