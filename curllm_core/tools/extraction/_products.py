"""Shared by the product tools: the output shape of a product, the page's currency, price bounds,
and the site-tool pipeline."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...prices import CURRENCY_CODES, Price, currency_for_domain
from ...text import fold
from ...urls import host_of

#: ``"currency": "NZD"``, ``"priceCurrency":"EUR"``, ``"currencyCode": "USD"`` in a page's scripts
#: (JSON-LD, app state): what the page itself says it prices in.
_JSON_CURRENCY_RE = re.compile(r'"(?:price)?[cC]urrency(?:[cC]ode|_code)?"\s*:\s*"([A-Z]{3})"')
#: The same read in the browser, from the live page's scripts (its lean HTML has none).
STATED_CURRENCIES_JS = r"""
() => {
  const re = /"(?:price)?[cC]urrency(?:[cC]ode|_code)?"\s*:\s*"([A-Z]{3})"/g;
  const out = [];
  for (const s of document.scripts) {
    const t = s.text;
    if (!t || t.length > 5000000 || t.indexOf('urrency') < 0) continue;
    for (const m of t.matchAll(re)) { out.push(m[1]); if (out.length >= 200) return out; }
  }
  return out;
}
"""
_META_CURRENCY = (
    '[itemprop="priceCurrency" i][content], meta[property$="price:currency" i], '
    'meta[name$="price:currency" i], meta[property$="currency" i]'
)
_ISO_WORD_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(CURRENCY_CODES)) + r")(?![A-Za-z])")
_WORD_RE = re.compile(r"[^\W_]+")
#: Of the codes a page's structured data states, the share one must have to decide.
STATED_MAJORITY = 2 / 3


class PageCurrency:
    """The currency a page prices in where a price text leaves it open (a bare "$", "kr", "¥", or a
    number without any mark), from the page's context, best first:

    1. what its structured data states: ``priceCurrency`` (microdata, RDFa, meta tags) and currency
       keys in its scripts (JSON-LD, app state), when two thirds of those statements agree;
    2. its country domain (``.co.nz`` -> NZD, ``.pl`` -> PLN);
    3. the ISO codes its visible text states most ("All prices in NZD").

    Built before the tree loses its ``<meta>`` elements (`strip_junk`); `resolve` does the costly
    part, once, only for a page that needs it. ``stated`` are script statements read in a browser
    (`stated_currencies`); without them ``html``'s scripts are read.
    """

    def __init__(
        self, tree: LexborHTMLParser, base: str, html: str | None = None, stated: list[str] | None = None
    ) -> None:
        self.domain = currency_for_domain(host_of(base))
        self._html = html if stated is None else None
        self._stated = [c for c in stated or [] if c in CURRENCY_CODES]
        self._meta = [
            code
            for node in tree.css(_META_CURRENCY)
            if (code := (node.attributes.get("content") or "").strip().upper()) in CURRENCY_CODES
        ]
        self.resolved: str | None = None
        self._done = False

    @property
    def best(self) -> str | None:
        """The resolved currency when `resolve` ran, else the domain's."""
        return self.resolved if self._done else self.domain

    def resolve(self, body: LexborNode | None) -> str | None:
        """The page's currency (see the class docstring); ``body`` is read for rule 3 only."""
        if self._done:
            return self.resolved
        self._done = True
        stated = Counter(self._stated + self._meta)
        if self._html is not None:
            stated.update(
                m.group(1) for m in _JSON_CURRENCY_RE.finditer(self._html) if m.group(1) in CURRENCY_CODES
            )
        if stated:
            code, count = stated.most_common(1)[0]
            if count >= STATED_MAJORITY * sum(stated.values()):
                self.resolved = code
                return code
        if self.domain:
            self.resolved = self.domain
            return self.domain
        if body is not None:
            mentioned = Counter(_ISO_WORD_RE.findall(body.text(deep=True)))
            if mentioned:
                self.resolved = mentioned.most_common(1)[0][0]
        return self.resolved


def stated_currencies(found: Any) -> list[str]:
    """The currency codes in what `STATED_CURRENCIES_JS` answered (see `PageCurrency`): it runs in
    the live page, in the call that reads its HTML (`_html.page_read`'s ``also``)."""
    return [c for c in found if isinstance(c, str)] if isinstance(found, list) else []


#: Keys every product has, in this order; extras follow.
PRODUCT_KEYS = ("name", "price", "currency", "url")


def finish_products(records: list[dict], currency: str | None) -> list[dict]:
    """Products in the output shape: ``price`` a number or None, ``currency`` ISO 4217 or None,
    ``price_upper`` for a price range, other price fields as amounts, None-valued extras dropped.

    An item shown without a price gets the currency the rest of the listing uses (or the domain's),
    so it still groups with its neighbours; its price stays None.
    """
    products: list[dict] = []
    for record in records:
        price = record.get("price")
        product: dict[str, Any] = {
            "name": record.get("name"),
            "price": None,
            "currency": None,
            "url": record.get("url"),
        }
        if isinstance(price, Price):
            product["price"] = price.amount
            product["currency"] = price.currency
            if price.upper is not None:
                product["price_upper"] = price.upper
        elif isinstance(price, int | float) and not isinstance(price, bool):
            product["price"] = float(price)
        for key, value in record.items():
            if key not in product and key != "price" and value is not None:
                # Another price field of the layout (a list price): its amount, in the same currency.
                product[key] = value.amount if isinstance(value, Price) else value
        products.append(product)
    seen = Counter(p["currency"] for p in products if p["currency"])
    fill = seen.most_common(1)[0][0] if seen else currency
    for product in products:
        if product["currency"] is None and fill:
            product["currency"] = fill
    return products


def _words(text: str) -> list[str]:
    """Lower-case words without accents ("Urządzenia" -> "urzadzenia"), for matching categories."""
    return _WORD_RE.findall(fold(text))


def in_category(category: str, shown: str | None) -> bool:
    """Whether every word of ``category`` begins a word of ``shown`` ("drukarki" in "Drukarki
    atramentowe", "wielofunkcyjne laser" in "Urządzenia wielofunkcyjne laserowe")."""
    if not shown:
        return False
    have = _words(shown)
    return all(any(w.startswith(word) for w in have) for word in _words(category))


def filter_by_category(products: list[dict], category: str | None, page_category: str | None) -> list[dict]:
    """The products of ``category``: by the category each row shows, else by the page's own
    (its heading, for a category page whose rows name none). No category: all of them."""
    if not category:
        return products
    return [p for p in products if in_category(category, p.get("category") or page_category)]
