"""``extraction.products_allegro``: the offers of an allegro.pl listing.

Allegro's class names are generated hashes (``mli8_k4 msa3_z4``) that change with every front-end
release, so nothing here keys on them. The markup this relies on is what Allegro keeps stable for
its own analytics and accessibility: ``article[data-role=offer]`` cards, the ``aria-label`` of the
price ("1 299,00 zł aktualna cena") and of the rating, badge images' ``alt`` text. All of it lives in
the manifest's ``selectors``: a layout in the language of curllm's layouts engine (its
``$defs`` in ``manifest.schema.json``, checked when the manifest is discovered), read here with the
toolkit's `select_items` and `field_value`. A markup change is a JSON edit, not a code change.

What stays in code is Allegro's, not markup: click trackers unwrapped to the offer URL, offer ids,
an offer shown twice listed once, the "od" (lowest of several) price, the ``<dl>`` of a card's
attributes.

`extract` is a pure function of the HTML (testable on a saved page, no browser); `run` is the tool:
one browser round trip for the HTML, then `extract`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from curllm_core.toolkit import (
    BadSelectors,
    ToolContext,
    collapse_space,
    currency_for_domain,
    field_value,
    filter_by_price,
    page_html,
    parse_html,
    parse_price,
    select_items,
)
from curllm_core.toolkit import page_base as toolkit_page_base
from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Offer ids: the trailing number of an /oferta/ slug, or a catalogue product's ?offerId=.
_OFFER_ID_RE = re.compile(r"/oferta/[^/?#]*?-(\d{6,})(?:[/?#]|$)")

#: Where links on a saved copy of a listing resolve when it names no canonical URL.
HOME = "https://allegro.pl/"


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
    dl = None
    if selector:
        dl = next((el for el in card.css(selector) if el.mem_id != card.mem_id), None)
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


def _cards(tree: LexborHTMLParser, layouts: list[dict]) -> tuple[dict, list[LexborNode]]:
    """The layout that finds the most cards on the page (the engine's rule), and its cards."""
    if not layouts:
        raise BadSelectors("the products_allegro selectors define no layouts")
    best: tuple[dict, list[LexborNode]] = (layouts[0], [])
    for layout in layouts:
        cards = select_items(tree, layout)
        if len(cards) > len(best[1]):
            best = (layout, cards)
    return best


def _offer(
    card: LexborNode, layout: dict, base_url: str, selectors: Mapping[str, Any], currency: str
) -> dict | None:
    """One offer from its card (its fields read by the layouts engine), or None when the card has no
    name or link (not an offer)."""
    fields = {key: field_value(card, spec, base_url, currency) for key, spec in layout["fields"].items()}
    url = offer_url(fields.get("url"), base_url, selectors.get("tracker_param", "redirect"))
    if not fields.get("name") or not url:
        return None
    # The aria-label carries the clean text ("1 299,00 zł aktualna cena", "od 949,00 zł"); the
    # visible text is split over spans, so it is only the fallback (both in the layout).
    price_text = collapse_space(fields.get("price") or "")
    price = parse_price(price_text, currency) if price_text else None
    amount = price.amount if price else None
    old = fields.get("old_price")
    delivery_price = (
        parse_price(fields["price_with_delivery"], currency) if fields.get("price_with_delivery") else None
    )
    rating = fields.get("rating")
    return {
        "name": fields["name"],
        "price": amount,
        "currency": (price.currency if price else None) or currency,
        "url": url,
        "offer_id": offer_id(url),
        "price_from": price is not None and price_text.lower().startswith("od "),
        "old_price": old.amount if old and amount is not None and old.amount > amount else None,
        "price_with_delivery": delivery_price.amount if delivery_price else None,
        "smart": bool(fields.get("smart")),
        "sponsored": bool(fields.get("sponsored")),
        "super_seller": bool(fields.get("super_seller")),
        "company": bool(fields.get("company")),
        "rating": rating if rating is not None and 0 <= rating <= 5 else None,
        "ratings": fields.get("ratings"),
        "bought_recently": fields.get("bought_recently"),
        "condition": (attributes := _attributes(card, selectors.get("attributes"))).get("Stan"),
        "delivery": (fields.get("delivery") or "").strip() or None,
        "attributes": attributes,
        "image": fields.get("image"),
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
    offers (recommendation carousels reuse the card markup; the layout's ``within``); an offer shown
    twice (a sponsored slot and its regular place) is listed once, at its first position. With
    ``min_price``/``max_price`` only offers priced in that range are kept (curllm's
    `filter_by_price`), then ``limit``.
    """
    tree = parse_html(html)
    tree.strip_tags(["script", "style", "noscript", "template", "svg"])
    layout, cards = _cards(tree, list(selectors.get("layouts") or []))
    currency = currency_for_domain(base_url) or "PLN"  # allegro.cz/.sk price in CZK/EUR, allegro.pl in PLN
    products: list[dict] = []
    seen: set[str] = set()
    for card in cards:
        offer = _offer(card, layout, base_url, selectors, currency)
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
    try:
        href = field_value(tree.root, {"css": selectors.get("next_page") or [], "attr": "href"}, base_url)
    except Exception as e:  # selectolax raises a bare error for a selector it cannot parse
        raise BadSelectors(f"bad next_page selector in the products_allegro selectors: {e}") from e
    result: dict[str, Any] = {"products": products, "next_page": offer_url(href, base_url)}
    if dropped:
        result["dropped"] = dropped  # curllm's pager reads on: the page had offers, none in range
    return result


def page_base(html: str, url: str, home: str = HOME) -> str:
    """The URL links resolve against: the page's own, or its canonical URL for a saved file (curllm's
    toolkit `page_base`), else Allegro's home."""
    return toolkit_page_base(parse_html(html), url, home)


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
        page_base(html, url, ctx.selectors.get("origin") or HOME),
        ctx.selectors,
        limit=limit,
        include_sponsored=include_sponsored,
        min_price=min_price,
        max_price=max_price,
    )
    ctx.log.debug("%d offers on %s", len(result["products"]), url)
    return result
