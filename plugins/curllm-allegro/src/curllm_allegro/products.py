"""``extraction.products_allegro``: the offers of an allegro.pl listing.

Allegro's class names are generated hashes (``mli8_k4 msa3_z4``) that change with every front-end
release, so nothing here keys on them. The markup this relies on is what Allegro keeps stable for
its own analytics and accessibility: ``article[data-role=offer]`` cards, the ``aria-label`` of the
price ("1 299,00 zł aktualna cena") and of the rating, badge images' ``alt`` text. All of it lives in
the manifest's ``selectors`` block, so a markup change is a JSON edit, not a code change.

`extract` is a pure function of the HTML (testable on a saved page, no browser); `run` is the tool:
one browser round trip for the HTML, then `extract`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from curllm_core.errors import BadSelectors
from curllm_core.prices import currency_for_domain
from curllm_core.tool import ToolContext
from curllm_core.toolkit import collapse_space, filter_by_price, page_html, parse_price
from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Offer ids: the trailing number of an /oferta/ slug, or a catalogue product's ?offerId=.
_OFFER_ID_RE = re.compile(r"/oferta/[^/?#]*?-(\d{6,})(?:[/?#]|$)")
_NUMBER_RE = re.compile(r"\d+(?:,\d+)?")


@lru_cache(maxsize=64)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _selectors(value: str | list[str] | None) -> list[str]:
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


def _first(node: LexborNode, selectors: str | list[str] | None) -> LexborNode | None:
    """The first descendant matching the first selector that matches anything.

    lexbor's ``css`` includes ``node`` itself when it matches; a card is never its own field.
    """
    for selector in _selectors(selectors):
        for found in node.css(selector):
            if found.mem_id != node.mem_id:
                return found
    return None


def _count(text: str | None) -> int | None:
    """``"10 412"`` -> 10412: Polish pages group thousands with (no-break) spaces."""
    digits = re.sub(r"\D", "", text or "")
    return int(digits) if digits else None


def _has_badge(card: LexborNode, pattern: str | None) -> bool:
    """Whether a leaf-ish element of ``card`` says exactly ``pattern`` (a badge, not a word in a title)."""
    if not pattern:
        return False
    rx = _regex(pattern)
    return any(
        rx.search(collapse_space(el.text(deep=True)))
        for el in card.css("span, div, p, strong")
        if len(el.text(deep=True)) < 40
    )


def offer_url(href: str | None, base_url: str, tracker_param: str = "redirect") -> str | None:
    """The absolute offer URL of a card link, with Allegro's click tracker unwrapped.

    Sponsored cards link to ``/events/clicks?...&redirect=<the offer URL>``: what a user wants is
    the offer itself, the same URL the regular card of that offer has.
    """
    if not href or href.startswith(("#", "javascript:")):
        return None
    url = urljoin(base_url, href.strip())
    parts = urlsplit(url)
    if parts.path.startswith("/events/clicks"):
        target = parse_qs(parts.query).get(tracker_param)
        if target and target[0].startswith(("http://", "https://", "/")):
            url = urljoin(base_url, target[0])
            parts = urlsplit(url)
    if "/oferta/" in parts.path and parts.query:
        # bi_s/bi_m... are ad-attribution parameters: the offer page is the same without them.
        kept = [q for q in parts.query.split("&") if q and not q.startswith("bi_")]
        url = parts._replace(query="&".join(kept)).geturl()
    return url


def offer_id(url: str | None) -> str | None:
    """The offer id in an offer URL, or None."""
    if not url:
        return None
    m = _OFFER_ID_RE.search(url)
    if m:
        return m.group(1)
    ids = parse_qs(urlsplit(url).query).get("offerId")
    return ids[0] if ids else None


def _attributes(card: LexborNode, selector: str | None) -> dict[str, str]:
    """The ``<dt>Stan</dt><dd>Nowy</dd>`` pairs of a card."""
    found: dict[str, str] = {}
    dl = _first(card, selector) if selector else None
    if dl is None:
        return found
    label: str | None = None
    for child in dl.iter():
        if child.tag == "dt":
            label = collapse_space(child.text(deep=True))
        elif child.tag == "dd" and label:
            found[label] = collapse_space(child.text(deep=True))
            label = None
    return found


def _price_of(el: LexborNode | None, currency: str | None) -> tuple[float | None, str | None, bool]:
    """Amount, currency and whether it is an "od" (lowest of several) price.

    The ``aria-label`` carries the clean text ("1 299,00 zł aktualna cena"); the visible text is
    split over spans ("1 299,<span>00</span> <span>zł</span>"), so it is only the fallback.
    """
    if el is None:
        return None, currency, False
    text = el.attributes.get("aria-label") or collapse_space(el.text(deep=True, separator=""))
    price = parse_price(text, currency)
    if price is None:
        return None, currency, False
    return price.amount, price.currency or currency, collapse_space(text).lower().startswith("od ")


def _image(card: LexborNode, selectors: str | list[str] | None) -> str | None:
    el = _first(card, selectors)
    if el is None:
        return None
    # Lazy-loaded images keep the real URL in data-src and a 1x1 placeholder in src.
    for attr in ("data-src", "src"):
        value = el.attributes.get(attr)
        if value and not value.startswith("data:"):
            return value
    return None


def _card(card: LexborNode, base_url: str, sel: Mapping[str, Any], currency: str | None) -> dict | None:
    """One offer from its card, or None when the card has no name or link (not an offer)."""
    link = _first(card, sel.get("name"))
    if link is None:
        return None
    name = collapse_space(link.text(deep=True))
    url = offer_url(link.attributes.get("href"), base_url, sel.get("tracker_param", "redirect"))
    if not name or not url:
        return None
    amount, cur, price_from = _price_of(_first(card, sel.get("price")), currency)
    old_el = _first(card, sel.get("old_price"))
    old = (
        parse_price(old_el.attributes.get("aria-label") or collapse_space(old_el.text(deep=True)), currency)
        if old_el
        else None
    )
    text = collapse_space(card.text(deep=True, separator=" "))

    with_delivery = None
    m = _regex(sel["with_delivery_text"]).search(text) if sel.get("with_delivery_text") else None
    if m:
        parsed = parse_price(m.group(1), currency)
        with_delivery = parsed.amount if parsed else None

    rating = ratings = None
    rating_el = _first(card, sel.get("rating"))
    if rating_el is not None:
        # "Ocena produktu 4,86 na 5, 2 345 ocen": the first number is the rating, what precedes
        # "ocen" the count.
        label = rating_el.attributes.get("aria-label") or collapse_space(rating_el.text(deep=True))
        numbers = _NUMBER_RE.findall(label)
        if numbers:
            rating = float(numbers[0].replace(",", "."))
        cm = re.search(r"([\d\s]+)\s*ocen", label)
        ratings = _count(cm.group(1)) if cm else None

    bought = None
    m = _regex(sel["bought_text"]).search(text) if sel.get("bought_text") else None
    if m:
        bought = _count(next(g for g in m.groups() if g))
    delivery = None
    m = _regex(sel["delivery_text"]).search(text) if sel.get("delivery_text") else None
    if m:
        delivery = m.group(0).strip()

    attributes = _attributes(card, sel.get("attributes"))
    context = card.attributes.get("data-analytics-view-custom-context") or ""
    sponsored = context == sel.get("sponsored_context", "SPONSORED") or _has_badge(
        card, sel.get("sponsored_text")
    )
    return {
        "name": name,
        "price": amount,
        "currency": cur,
        "url": url,
        "offer_id": offer_id(url),
        "price_from": price_from,
        "old_price": old.amount if old and amount is not None and old.amount > amount else None,
        "price_with_delivery": with_delivery,
        "smart": _first(card, sel.get("smart")) is not None,
        "sponsored": sponsored,
        "super_seller": _has_badge(card, sel.get("super_seller_text")),
        "company": _has_badge(card, sel.get("company_text")),
        "rating": rating if rating is not None and 0 <= rating <= 5 else None,
        "ratings": ratings,
        "bought_recently": bought,
        "condition": attributes.get("Stan"),
        "delivery": delivery,
        "attributes": attributes,
        "image": _image(card, sel.get("image")),
    }


def extract(
    html: str,
    base_url: str,
    selectors: Mapping[str, Any],
    *,
    limit: int | None = None,
    include_sponsored: bool = True,
    min_price: float | None = None,
    max_price: float | None = None,
) -> dict:
    """The offers of an allegro listing page: ``{"products": [...], "next_page": url | None}``.

    ``selectors`` is the manifest's ``selectors`` block. Only cards inside the listing container are
    offers (recommendation carousels reuse the card markup); an offer shown twice (a sponsored slot
    and its regular place) is listed once, at its first position. With ``min_price``/``max_price``
    only offers priced in that range are kept (curllm's `filter_by_price`), then ``limit``.
    """
    if not selectors.get("item") or not selectors.get("name"):
        raise BadSelectors("the selectors block needs at least 'item' and 'name'")
    try:
        tree = LexborHTMLParser(html or "<html></html>")
        tree.strip_tags(["script", "style", "noscript", "template", "svg"])
        root: LexborNode | None = None
        for selector in _selectors(selectors.get("listing")):
            root = tree.css_first(selector)
            if root is not None:
                break
        scope = root if root is not None else tree.root
        cards: list[LexborNode] = []
        for selector in _selectors(selectors["item"]):
            cards = [c for c in scope.css(selector) if c.mem_id != scope.mem_id]
            if cards:
                break
    except Exception as e:  # selectolax raises a bare error for a selector it cannot parse
        raise BadSelectors(f"bad selector in the products_allegro selectors block: {e}") from e

    currency = currency_for_domain(base_url) or "PLN"  # allegro.cz/.sk price in CZK/EUR, allegro.pl in PLN
    products: list[dict] = []
    seen: set[str] = set()
    for card in cards:
        offer = _card(card, base_url, selectors, currency)
        if offer is None:
            continue
        if offer["sponsored"] and not include_sponsored:
            continue  # before the duplicate check: the offer's regular card, if any, is kept
        key = offer["offer_id"] or offer["url"]
        if key in seen:
            continue
        seen.add(key)
        products.append(offer)
    found = len(products)
    products = filter_by_price(products, min_price, max_price)
    dropped = found - len(products)
    if limit is not None:
        products = products[:limit]
    next_el = None
    for selector in _selectors(selectors.get("next_page")):
        next_el = tree.css_first(selector)
        if next_el is not None:
            break
    next_page = offer_url(next_el.attributes.get("href"), base_url) if next_el is not None else None
    result: dict[str, Any] = {"products": products, "next_page": next_page}
    if dropped:
        result["dropped"] = dropped  # curllm's pager reads on: the page had offers, none in range
    return result


def page_base(html: str, url: str) -> str:
    """The URL links resolve against: the page's own, or its canonical URL for a saved file."""
    if urlsplit(url).scheme in ("http", "https"):
        return url
    m = re.search(r"""<link[^>]+rel=["']canonical["'][^>]+href=["'](https?://[^"']+)""", html)
    return m.group(1) if m else "https://allegro.pl/"


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    include_sponsored: bool = True,
    min_price: float | None = None,
    max_price: float | None = None,
) -> dict:
    """The tool: the current page's HTML in one browser round trip (curllm's toolkit), then `extract`."""
    html, url = await page_html(ctx)
    result = extract(
        html,
        page_base(html, url),
        ctx.selectors,
        limit=limit,
        include_sponsored=include_sponsored,
        min_price=min_price,
        max_price=max_price,
    )
    ctx.log.debug("%d offers on %s", len(result["products"]), url)
    return result
