"""One product's own page: name, prices, availability, identifiers, brand, rating, from what the
page states in every form shops use (JSON-LD, microdata, RDFa, OpenGraph/product meta tags) and
from what it shows.

What the page shows wins over its metadata when they disagree: a visible current price over a stale
``offers.price``, a visible availability over ``schema.org/InStock`` left in a template, a variant's
own SKU (its JSON-LD variant or offer for this URL, or the SKU the page prints) over the parent
product's. "What it shows" is the product's own block: from its title (the ``<h1>``) to the next
section heading ("Related products", "Kunden kauften auch"), so that carousels of other products,
a header's cart total and a sidebar's promotion never lend their prices or stock words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborNode

from ... import offload
from ...prices import find_prices, has_currency_mark
from ...tool import ToolContext
from ._html import (
    STRUCK_MARK,
    STYLED_MARK,
    absolute_url,
    default_currency,
    hidden_in_tree,
    hides,
    page_base,
    page_html,
    parse_html,
    price_text,
    strip_junk,
    visible_text,
)
from ._price_roles import CURRENT, REGULAR, TIER, markup, price_classed, text_role
from ._product_data import fold, jsonld_product, meta_product, microdata_product, same_page
from ._product_ids import OWN_NUMBER, address_number, is_code, labelled
from ._product_words import (
    ADD_TO_CART,
    BRAND_CLASS,
    CART_IDS,
    IN_STOCK,
    LABEL_START,
    LONE_RATING,
    NET_BEFORE,
    NEXT_LABEL,
    NOT_A_PRICE_AFTER,
    NOT_A_PRICE_BEFORE,
    OTHER_FROM,
    OUT_OF_STOCK,
    PERCENT_OFF,
    PICKUP,
    PRICE_FROM,
    RATING,
    REGULAR_AFTER,
    REGULAR_BEFORE,
    REGULAR_CLASS,
    REVIEWS,
    STOCK_IDS,
)

#: What makes a page one product's, beside its name: a price, stock, a number or a maker.
_OFFER_FIELDS = ("price", "availability", "sku", "mpn", "gtin", "brand", "rating")
FIELDS = (
    "name",
    "price",
    "currency",
    "price_regular",
    "availability",
    "sku",
    "mpn",
    "gtin",
    "brand",
    "description",
    "rating",
    "reviews",
    "image",
    "url",
)

#: Euros and cents with the sign between them ("349€99", a French way of writing 349,99 €).
_SIGN_CENTS_RE = re.compile(r"(\d)([€$£])(\d{2})(?![\d.,])")
#: A bare amount ("29 990,-", "39.99"): a price when its element says so and the page's currency is known.
_BARE_PRICE_RE = re.compile(
    r"^[^\d%]{0,20}(?:\d{1,3}(?:[\s.,'’]\d{3})+|\d+)(?:[.,]\d{1,2}|[.,][-–])?[^\d%]{0,20}$"
)
_NUMBER_TOKEN_RE = re.compile(r"\d+(?:[\s.,'’]\d+)*")
_SECTION_END = re.compile(r"^h[1-4]$")
_MAX_BLOCK = 2000  # elements read after the title at most
#: More different prices than this in the block: a listing, not one product's page.
_MAX_PRICES = 8
#: Controls whose words are a choice or an action, not a statement ("Sold out" as a size option).
_SKIP_TAGS = frozenset({"button", "select", "option", "textarea"})
_CHROME_TAGS = frozenset({"header", "nav", "footer"})
_CONTENT_TAGS = frozenset({"main", "article", "section"})
#: Roles of a shown price besides `_price_roles`': regular by a class name alone (no strike-through),
#: and a price labelled as without tax.
_CLASSED_REGULAR = "regular-by-class"
_NET = "net"
#: ... and one labelled so by a Japanese shop, which must show the price with tax (総額表示) and shows
#: the one without it first by custom: never the price to pay, wherever it stands.
_NET_BESIDE = "net-beside"
_NET_BESIDE_RE = re.compile(r"税抜|税別|本体価格")
_STRUCK_CLASS = re.compile(r"strike|crossed|through|barr[eé]|durchgestrichen|przekre[sś]lon|[sš]krtnut", re.I)


# --- what the page shows ---------------------------------------------------------------------


def _title(tree, name: str | None) -> LexborNode | None:
    """The product's title element: the ``<h1>`` named like the metadata's product, else (a page
    whose ``<h1>`` is its logo) a lower heading or name element so named, else the first ``<h1>``
    outside the site's header, else an element marked as the product's name."""
    all_heads = [h for h in tree.css("h1") if visible_text(h)]
    heads = [h for h in all_heads if not _in_chrome(h)]
    if name:
        folded = fold(name)

        def named(el: LexborNode) -> bool:
            text = fold(visible_text(el))
            return bool(text) and (
                text == folded or (text in folded and 2 * len(text) >= len(folded)) or folded in text
            )

        for h in all_heads:  # a page header may hold the product's title too
            if named(h):
                return h
        for el in tree.css(
            'h2, h3, [itemprop="name"], [property="name"], [class*="title" i], [class*="name" i]'
        ):
            if (
                el.tag not in ("title", "meta")
                and len(el.text(deep=True)) < 300
                and named(el)
                and not _in_chrome(el)
            ):
                return el
    if heads:
        return heads[0]
    return tree.css_first('[itemprop="name"], [property="name"]')


def _in_chrome(node: LexborNode) -> bool:
    """Inside the site's header, navigation or footer (not an article's own ``<header>``)."""
    for parent in _ancestors(node):
        if parent.tag in _CONTENT_TAGS:
            return False
        if parent.tag in _CHROME_TAGS:
            return True
    return False


def _ancestors(node: LexborNode) -> Iterator[LexborNode]:
    parent = node.parent
    while parent is not None and parent.tag not in ("html", "-document"):
        yield parent
        parent = parent.parent


def _product_block(tree, title: LexborNode | None, sections: int = 1) -> list[LexborNode]:
    """The elements of the product's own block in document order: from its title to the next
    section heading (h1-h4 or role=heading), where related products, reviews and long
    descriptions begin, or to the site's footer. ``sections`` > 1 reads on past as many headings
    (for a page that puts a heading between its title and its price)."""
    if tree.body is None or title is None:
        return []
    block: list[LexborNode] = []
    started = False
    inside_title: set[int] = set()
    # A heading right after the title is its subtitle (the brand, a tagline), not the next section.
    after = title
    while after is not None and after.next is None and after.parent is not None:
        after = after.parent  # the title alone in its wrapper: the wrapper's next sibling
    nxt = after.next if after is not None else None
    while nxt is not None and nxt.tag in ("-text", "-comment"):
        nxt = nxt.next
    subtitle = nxt.mem_id if nxt is not None and len(nxt.text(deep=True)) <= 60 else None
    for el in tree.body.traverse():
        if el.tag in ("-text", "-comment"):
            continue
        if not started:
            if el.mem_id == title.mem_id:
                started = True
                inside_title = {d.mem_id for d in el.traverse()}
            continue
        if el.mem_id in inside_title:
            continue
        if (_SECTION_END.match(el.tag) or el.attributes.get("role") == "heading") and el.mem_id != subtitle:
            sections -= 1
            if sections <= 0:
                break
        if el.tag in ("header", "footer") and not any(p.tag in _CONTENT_TAGS for p in _ancestors(el)):
            break  # the site's footer (or a header after the content)
        block.append(el)
        if len(block) >= _MAX_BLOCK:
            break  # a product's own block is never this big: a listing or an article runs on
    return block


def _block_text(block: list[LexborNode]) -> list[tuple[LexborNode, str]]:
    """The block's smallest elements with their visible text (no element whose text is its
    children's), skipping hidden ones and controls."""
    out = []
    hidden: dict[int, bool] = {}
    ids = {el.mem_id for el in block}
    for el in block:
        if el.tag in _SKIP_TAGS or any(p.tag in _SKIP_TAGS for p in _ancestors(el) if p.mem_id in ids):
            continue
        if hidden_in_tree(el, hidden, strict=True):  # screen-reader-only words are not shown
            continue
        own = "".join((c.text_content or "") for c in el.iter(include_text=True) if c.tag == "-text").strip()
        if own:
            out.append((el, visible_text(el)))
    return out


@dataclass
class _Shown:
    amount: float
    currency: str | None
    role: str | None
    discounted: bool = False  # a percentage discount stands beside it ("35% off")


def _context(el: LexborNode, text: str) -> tuple[str, str]:
    """The words before and after ``text`` in the element around it (a label such as "Was",
    "Antes:", "RRP:" is often a sibling of the price's element)."""
    for holder in (el.parent, el.parent.parent if el.parent is not None else None):
        if holder is None:
            break
        if len(holder.text(deep=True)) > 400:
            break
        whole = visible_text(holder)
        at = whole.find(text)
        if at >= 0 and len(whole) <= 200:
            return whole[:at][-40:], whole[at + len(text) :][:40]
    return "", ""


def _struck(node: LexborNode) -> bool:
    """Crossed out by its tag, its inline style or a class that says so ("price-strike"), not
    merely by a class naming it old."""
    attrs = node.attributes
    return (
        node.tag in ("s", "del", "strike")
        or attrs.get("data-a-strike") == "true"
        or "line-through" in (attrs.get("style") or "")
        or bool(_STRUCK_CLASS.search(attrs.get("class") or ""))
    )


def _price_role(el: LexborNode, before: str, after: str, own_before: str = "") -> str | None:
    """The role of the price in ``el``: by its markup (crossed out, classed old), else by the words
    ``before`` and ``after`` it; ``own_before`` is its own element's text before the number, which
    alone says whether "from" starts this price's label or ends another offer's ("Open-Box: from")."""
    node: LexborNode | None = el
    for _ in range(4):
        if node is None or node.tag in ("body", "html"):
            break
        role, _classed = markup(node)
        if role == REGULAR and not _struck(node):
            return _CLASSED_REGULAR
        if role is not None:
            return role
        if STRUCK_MARK in node.attributes:
            return REGULAR
        if REGULAR_CLASS.search(node.attributes.get("class") or ""):
            return _CLASSED_REGULAR
        node = node.parent
    label = own_before if own_before.strip() else before
    other_from = OTHER_FROM.search(label) and not PRICE_FROM.search(label)
    if NOT_A_PRICE_BEFORE.search(before) or other_from or NOT_A_PRICE_AFTER.search(after):
        return "other"
    if NET_BEFORE.search(before):
        return _NET
    if REGULAR_AFTER.search(after) or REGULAR_BEFORE.search(before):
        return REGULAR
    if NEXT_LABEL.search(after):
        after = ""  # the word is the next price's label, not this one's
    role = text_role(before, after)
    if role == TIER:
        return None  # a product page's table of prices by quantity: its first row is the price
    if role == _NET and (_NET_BESIDE_RE.search(after[:8]) or _NET_BESIDE_RE.search(before[-8:])):
        return _NET_BESIDE
    return role


def _shown_prices(block: list[LexborNode], currency: str | None) -> list[_Shown]:
    """The prices the block shows, in order, each with its role (current, regular, or another)."""
    hidden: dict[int, bool] = {}
    candidates: list[tuple[LexborNode, str]] = []
    for el in block:
        if el.tag in _SKIP_TAGS or el.tag in ("-text", "table", "tbody", "ul", "ol"):
            continue
        if len(el.text(deep=True)) > 120:  # cheap first: a container of many things is no price
            continue
        text = _SIGN_CENTS_RE.sub(r"\1,\3 \2", price_text(el))
        if not text or len(text) > 40 or not re.search(r"\d", text):
            continue
        if not has_currency_mark(text) and not (currency and _BARE_PRICE_RE.match(text) and _says_price(el)):
            continue
        # One price, however its parts are split over elements; and not two glued together
        # ("1 299 kr" + "Ord. pris 1 699 kr" read as one text "1 299 krOrd. pris ...").
        spans = find_prices(text, currency)
        if len(spans) != 1 or len(find_prices(visible_text(el), currency)) > 1:
            continue
        if len(_NUMBER_TOKEN_RE.findall(text)) != (1 if spans[0].price.upper is None else 2):
            continue  # "statt 349.–" beside "CHF 299.–" in one element: two prices, one marked
        if hidden_in_tree(el, hidden):
            continue
        candidates.append((el, text))
    amounts = {el.mem_id: find_prices(text, currency)[0].price.amount for el, text in candidates}
    shown: list[_Shown] = []
    for el, text in candidates:
        price = find_prices(text, currency)[0].price
        inner = [amounts[d.mem_id] for d in el.traverse() if d.mem_id != el.mem_id and d.mem_id in amounts]
        if price.amount in inner:
            continue  # a wrapper of a smaller element with the same price: that one speaks for it
        outer = [amounts[p.mem_id] for p in list(_ancestors(el))[:3] if p.mem_id in amounts]
        if any(a != price.amount for a in outer):
            continue  # part of a price written over several elements ("$19<sup>97</sup>")
        if any(p.tag in _SKIP_TAGS for p in _ancestors(el)):
            continue
        if price.amount <= 0:
            continue
        before, after = _context(el, visible_text(el) or text)
        span = find_prices(text, currency)[0]
        role = _price_role(
            el, (before + " " + span.before).strip(), (span.after + " " + after).strip(), span.before
        )
        shown.append(_Shown(price.amount, price.currency or currency, role, _beside_discount(el)))
    return shown


def _says_price(el: LexborNode) -> bool:
    """The element or its parent is marked as a price (class, itemprop, test id naming one)."""
    return price_classed(el) or (el.parent is not None and price_classed(el.parent))


def _beside_discount(el: LexborNode) -> bool:
    node = el
    for _ in range(3):
        if node.parent is None:
            break
        node = node.parent
        if len(node.text(deep=True)) > 400:  # cheap first: a big container is no price's box
            break
        text = visible_text(node)
        if PERCENT_OFF.search(text):
            return True
    return False


def _visible(tree, title: LexborNode | None, currency: str | None, stated_price: bool) -> dict:
    """What the product's block shows: prices, availability, labelled identifiers, rating. Without
    a price in the metadata, a block that shows none is read on past its first heading."""
    out: dict[str, Any] = {}
    if title is not None and visible_text(title):
        out["name"] = visible_text(title)
    block = _product_block(tree, title)
    shown = _shown_prices(block, currency)
    current = _current(shown)
    if not stated_price and not current:
        block = _product_block(tree, title, sections=2)
        shown = _shown_prices(block, currency)
        current = _current(shown)
    out["listing"] = len({s.amount for s in current}) > _MAX_PRICES
    if current:
        first = current[0]
        out["price"], out["currency_shown"] = first.amount, first.currency
        out["prices_shown"] = [s.amount for s in current]
        position = shown.index(first)
        # The regular price stands beside the current one: before it, or among the next few.
        near = shown[: position + 4]
        regular = [
            s.amount for s in near if s.role in (REGULAR, _CLASSED_REGULAR) and s.amount > first.amount
        ]
        # "₹1,299 ₹1,999 35% off": a higher price right after the current one, with a percentage
        # off beside them, is the price before the discount (crossed out by the page's CSS).
        following = shown[position + 1] if position + 1 < len(shown) else None
        if not regular and following and following.role in (None, CURRENT) and first.discounted:
            if following.discounted and following.amount > first.amount:
                regular = [following.amount]
        if regular:
            out["price_regular"] = regular[0]
    texts = _block_text(block)
    # The product's stock: its block's words, else its stock element or cart button found by id
    # (a buy box beside the description, after the block's end).
    out["availability"] = (
        _stock_words([t for _, t in texts])
        or _cart_button(block)
        or _stock_words([visible_text(el) for el in _stock_elements(tree)])
        or _cart_button(tree.css(CART_IDS))
    )
    out.update(labelled(texts, _spec_rows(tree)))
    # Plain boxes anywhere on the page fill what the block and the tables leave open; a SKU found
    # there (perhaps a carousel's) never overrides the metadata's.
    boxed = labelled([], _label_boxes(tree))
    if "sku" in boxed and "sku" not in out:
        boxed["sku_label"] = max(boxed.get("sku_label") or 0, OWN_NUMBER + 1)
    for key, value in boxed.items():
        out.setdefault(key, value)
    if "brand" not in out:
        out["brand"] = _brand_element(block[:12])
    out.update(_rating(texts))
    return out


def _current(shown: list[_Shown]) -> list[_Shown]:
    """The prices that can be the price to pay, in order. A price without tax is one when the page
    shows it first ("bez DPH 4 386 € s DPH 5 263,20 €", a shop for businesses), never when it
    follows the price to pay ("Brez DDV:"). With only a price classed "old" besides, that class name
    is the template's (styled "old" whether or not a newer price stands beside it): it is the price."""
    current = [s for s in shown if s.role in (None, CURRENT) or (s.role == _NET and s is shown[0])]
    return current or [s for s in shown if s.role == _CLASSED_REGULAR][:1]


def _brand_element(elements: list[LexborNode]) -> str | None:
    """The brand an element near the title names by its class, id or itemprop ("product-brand"):
    its short text, not a label's."""
    for el in elements:
        flags = " ".join(el.attributes.get(k) or "" for k in ("class", "id", "itemprop"))
        if BRAND_CLASS.search(flags):
            text = visible_text(el)
            if 0 < len(text) <= 40 and ":" not in text:
                return text
    return None


def _stock_words(texts: list[str]) -> str | None:
    """InStock/OutOfStock from stock words, out-of-stock ones first; a text about picking up in a
    store ("Pickup currently unavailable at ...") says nothing about the product itself."""
    words = " | ".join(t for t in texts if len(t) <= 200 and not PICKUP.search(t))
    if OUT_OF_STOCK.search(words):
        return "OutOfStock"
    if IN_STOCK.search(words):
        return "InStock"
    return None


def _cart_button(elements: list[LexborNode]) -> str | None:
    """InStock for an enabled add-to-cart button, OutOfStock for a disabled or "Sold out" one."""
    for el in elements:
        is_button = el.tag == "button" or (
            el.tag == "input" and (el.attributes.get("type") or "") in ("submit", "button")
        )
        if not is_button:
            continue
        label = visible_text(el) if el.tag == "button" else (el.attributes.get("value") or "")
        if OUT_OF_STOCK.search(label):
            return "OutOfStock"
        if ADD_TO_CART.search(label):
            disabled = "disabled" in el.attributes or el.attributes.get("aria-disabled") == "true"
            return "OutOfStock" if disabled else "InStock"
    return None


def _stock_elements(tree) -> list[LexborNode]:
    """The page's stock message by its id ("availability", "stock"): ids are the page's own, not a
    carousel card's."""
    return [el for el in tree.css(STOCK_IDS) if len(el.text(deep=True)) <= 200]


def _rating(texts: list[tuple[LexborNode, str]]) -> dict:
    """Rating and review count as the block writes them ("4.6 out of 5 stars", "2,418 ratings",
    "4.2" beside "12,483 Ratings & 1,377 Reviews")."""
    out: dict[str, Any] = {}
    for rx in REVIEWS:
        for el, text in texts:
            if m := rx.search(text):
                out["reviews"] = int(re.sub(r"\D", "", m.group(1)))
                holder: LexborNode | None = el
                while holder is not None and "rating" not in out:
                    prev = holder.prev
                    while prev is not None and prev.tag == "-text" and not (prev.text_content or "").strip():
                        prev = prev.prev
                    if prev is not None and (lone := LONE_RATING.match(visible_text(prev) or "")):
                        out["rating"] = float(lone.group(1).replace(",", "."))
                    holder = holder.parent if prev is None else None
                break
        if "reviews" in out:
            break
    for _, text in texts:
        if m := RATING.search(text):
            out["rating"] = float(m.group(1).replace(",", "."))
            break
    return out


def _spec_rows(tree) -> list[LexborNode]:
    """Label cells of specification tables and lists anywhere on the page (th/td, dt, label-like
    spans in rows): a product's attributes often sit below its related products."""
    out = []
    for el in tree.css("th, td:first-child, dt, h3, h4, li > span:first-child, li > strong, li > b, label"):
        raw = el.text(deep=True)
        if len(raw) <= 60 and LABEL_START.match(raw) and not _in_chrome(el):
            out.append(el)
    return out


def _label_boxes(tree) -> list[LexborNode]:
    """Labels in plain boxes of their own anywhere on the page ("<div>Item number:</div><div>
    302474151804</div>" in a description tab): each box's own text, read without its descendants',
    with a colon (cheap on a page of thousands of boxes)."""
    out = []
    for el in tree.css("div, span"):
        own = el.text(deep=False).strip()
        if (":" in own or "：" in own) and len(own) <= 60 and LABEL_START.match(own) and not _in_chrome(el):
            out.append(el)
    return out


def _image(tree, title: LexborNode | None, base: str) -> str | None:
    """The first picture near the title (in its nearest container that has one), not a logo."""
    node = title
    for _ in range(6):
        if node is None or node.parent is None:
            return None
        node = node.parent
        for img in node.css("img"):
            src = img.attributes.get("src") or img.attributes.get("data-src") or ""
            alt = img.attributes.get("alt") or ""
            if not src or src.startswith("data:") or re.search(r"logo|icon|sprite", src + " " + alt, re.I):
                continue
            return absolute_url(src, base)
    return None


def _trust_the_browser(tree) -> None:
    """In HTML the browser wrote (`page_html` with ``mark_hidden``), every element its CSS hides is
    marked: a class that only looks hiding ("no-js-hidden") on an element it shows hides nothing."""
    if tree.css_first(f"html[{STYLED_MARK}]") is None:
        return
    for node in tree.css("[class]"):
        tokens = (node.attributes.get("class") or "").split()
        keep = [t for t in tokens if not hides(t)]
        if len(keep) != len(tokens):
            node.attrs["class"] = " ".join(keep)


# --- the tool --------------------------------------------------------------------------------


def extract(html: str, base_url: str, **_: Any) -> dict:
    """``{"product": {...}}`` of the product page ``html`` (every field of `FIELDS`, None if unknown)."""
    tree = parse_html(html)
    _trust_the_browser(tree)
    base = page_base(tree, base_url)
    page_url = base_url if base_url.startswith(("http://", "https://")) else base
    fallback_currency = default_currency(base)
    h1 = tree.css_first("h1")
    first_title = visible_text(h1) if h1 is not None else None
    jsonld = jsonld_product(tree, base, page_url, first_title)
    micro, meta = microdata_product(tree, base, page_url), meta_product(tree, base)
    variants = jsonld.pop("_variants", [])
    title_el = tree.css_first("head > title") or tree.css_first("title")
    # The document's title names the product too ("Name : Shop"), when no metadata does: it finds
    # the product's <h1> among a dialog's and a banner's ("Adding to basket...", "15% sparen").
    doc_title = visible_text(title_el) if title_el is not None else None
    canonical_el = tree.css_first('link[rel="canonical"]')
    canonical = absolute_url(canonical_el.attributes.get("href"), base) if canonical_el is not None else None
    strip_junk(tree)
    product: dict[str, Any] = {}
    for source in (meta, micro, jsonld):  # later wins: JSON-LD is the most deliberate statement
        product.update(source)
    title = _title(tree, jsonld.get("name") or micro.get("name") or meta.get("name") or doc_title)
    meta_currency = product.get("currency")
    shown = _visible(tree, title, meta_currency or fallback_currency, product.get("price") is not None)

    # The price: the metadata's when the block shows it as a current price, else the block's first.
    if shown["listing"] and not (jsonld or micro or meta.get("price") is not None):
        # Many prices and nothing that states a product: a listing or a table, not a product's
        # page. What the block shows is not one product's: only the page's own title is said.
        shown = {"name": shown.get("name")}
    if shown.get("price") is not None:
        stated = product.get("price")
        confirmed = stated is not None and any(abs(stated - p) < 0.005 for p in shown["prices_shown"])
        if not confirmed:
            product["price"] = shown["price"]
            product["currency"] = shown.get("currency_shown") or meta_currency or fallback_currency
        # A regular price the block shows; else the metadata's stands only beside its own price.
        if shown.get("price_regular") is not None or not confirmed:
            product["price_regular"] = shown.get("price_regular")
    if shown.get("availability") is not None:
        product["availability"] = shown["availability"]
    # A SKU the page prints is this page's variant's, over the metadata's when that has variants
    # (or none), and over any when the page labels it as its own number ("SKU:", "Product code:",
    # "Artikelnummer:"); a stated SKU stands over a listing's number ("Item number:", "Anzeige:").
    stated_sku = product.get("sku")
    if shown.get("sku") and (
        variants
        or not stated_sku
        or shown.get("sku_label") == OWN_NUMBER
        or not is_code(stated_sku)  # a model's name in the SKU field ("OPTIPLEX 9010 TOWER")
    ):
        product["sku"] = shown["sku"]
        own = next((v for v in variants if v.get("sku") == shown["sku"]), None)
        if own is not None:
            product.update({k: v for k, v in own.items() if k in ("gtin", "mpn", "image")})
    for key in ("mpn", "gtin", "brand", "rating", "reviews"):
        if product.get(key) is None and key in shown:
            product[key] = shown[key]
    if product.get("sku") and product["sku"] == product.get("gtin") and shown.get("sku") != product["sku"]:
        product["sku"] = None  # the metadata's "SKU" is the barcode: never the shop's number
    if not product.get("sku") and not shown.get("listing") and (jsonld or micro or product.get("price")):
        product["sku"] = address_number(page_url, canonical)
    if title is not None and not (jsonld.get("name") or micro.get("name")) and shown.get("name"):
        product["name"] = shown["name"]  # the page's title over og:title, which often adds the shop
    product.setdefault("name", shown.get("name"))
    if product.get("image") is None:
        product["image"] = _image(tree, title, base)
    if product.get("price_regular") is not None and product.get("price") is not None:
        if product["price_regular"] <= product["price"]:
            product["price_regular"] = None  # "regular" below the current price is not a discount
    if not (product.get("url") and same_page(product["url"], page_url)):
        product["url"] = canonical or product.get("url") or page_url
    if product.get("reviews") is not None:
        product["reviews"] = int(product["reviews"])
    if product.get("availability") is None and product.get("price") is not None and not shown.get("listing"):
        # Offered at a price, and nothing on the page or in its data says it cannot be had: a
        # classified ad, a shop that prints no stock line. Sold-out words and buttons said otherwise.
        product["availability"] = "InStock"
    if product.get("price") is not None and not product.get("currency"):
        product["currency"] = fallback_currency
    if not (jsonld or micro or meta) and all(product.get(k) is None for k in _OFFER_FIELDS):
        # No product data and no price, stock or number shown: a heading alone is no product (an
        # article, a listing's title); only the address is said, and the answer is empty.
        product = {"url": product.get("url")}
    return {"product": {k: product.get(k) for k in FIELDS}}


async def run(ctx: ToolContext) -> dict:
    """Tool entry point: the page's HTML in one browser call (its JSON-LD kept, what its CSS hides
    marked as hidden), then `extract` (a huge page's in a worker process: `offload`)."""
    html, url = await page_html(ctx, mark_hidden=True)
    return await offload.run(extract, html, url, size=len(html))
