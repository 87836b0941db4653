"""Listings a page carries as data: JSON state (``__NEXT_DATA__``, ``window.__INITIAL_STATE__ = {...}``
and other assignments to ``window``, read as the browser evaluated them or, on HTML as fetched, from
the script's text (`_script_state`), Nuxt payloads, ``application/json`` blocks) and JSON-LD
``ItemList``s of products, read when the DOM shows no items yet (a skeleton before hydration) and
to fill a price the DOM leaves out.

Item lists are found by their shape, never by one site's key names: a list of objects that have a
name or title and a price (an amount, a text "129,00 zł", an ``{amount, currency}`` object, a
JSON-LD offer), most of them with a link; a list of results (`article_listing`) is objects with a
title and a link, most of them with a text or a date. Prices go through `prices.parse_price` and the currency
rules of the DOM extractor (`PageCurrency`). Hostile input is bounded: documents over
`MAX_JSON_BYTES`, nesting beyond `MAX_DEPTH`, more than `MAX_NODES` values are not read further;
NaN, Infinity and 1e309 are no numbers; a lone surrogate in a string is replaced.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ...prices import Price, parse_price
from ._html import absolute_url

#: Bounds on what is read: one document's size, the values walked in all, the depth walked.
MAX_JSON_BYTES = 4_000_000
MAX_NODES = 200_000
MAX_DEPTH = 64
#: The items of one list read at most (a listing's page holds tens, a catalogue dump thousands).
MAX_ITEMS = 5000

#: JavaScript for ``page.evaluate(EMBEDDED_JS, max_bytes)``: the page's JSON blocks and the objects
#: its inline scripts assign to ``window`` (``window.__X__ = ...``, ``self["x"] = ...``, a global
#: ``var x = ...``), as
#: ``[kind, json]`` pairs (``ld``: JSON-LD; ``json``: a JSON block; ``state``: an assigned object,
#: serialised by the browser, which already evaluated it: a Nuxt 2 function payload too), at most
#: ``max_bytes`` in all.
EMBEDDED_JS = r"""
(maxBytes) => {
  const out = [];
  let total = 0;
  const add = (kind, text) => {
    if (!text || text.length > maxBytes - total) return;
    total += text.length;
    out.push([kind, text]);
  };
  const seen = new Set();
  const ASSIGN = /(?:(?:window|self|globalThis)\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*["']([^"'\]]{1,80})["']\s*\])|\bvar\s+([A-Za-z_$][\w$]*))\s*=(?!=)/g;
  for (const s of document.scripts) {
    if (s.src) continue;
    const type = (s.type || '').toLowerCase();
    if (type.endsWith('json')) { add(type.includes('ld+json') ? 'ld' : 'json', s.text); continue; }
    if (type && !/javascript|ecmascript|module|babel/.test(type)) continue;
    for (const m of s.text.slice(0, 20000).matchAll(ASSIGN)) {
      const name = m[1] || m[2] || m[3];
      if (seen.has(name)) continue;
      seen.add(name);
      let value;
      try { value = window[name]; } catch (e) { continue; }
      if (!value || typeof value !== 'object') continue;
      try { add('state', JSON.stringify(value)); } catch (e) { /* a cycle, a getter that throws */ }
    }
  }
  return out;
}
"""

_NAME_KEY = re.compile(r"(?i)^(?:.*(?:name|title)|label|heading)$")
_NOT_NAME = re.compile(
    r"(?i)brand|categor|seller|shop|store|vendor|merchant|image|img|file|user|author|seo|meta|class|type|page|site|alt|key|slug|sub"
)
_URL_KEY = re.compile(r"(?i)^(?:.*(?:url|href|link)|permalink|uri|path)$")
_NOT_URL = re.compile(r"(?i)image|img|thumb|photo|picture|media|video|icon|logo|asset|api|canonical_?id")
_PRICE_KEY = re.compile(r"(?i)price|amount|cost|offers?$|pricing")
_REGULAR_KEY = re.compile(
    r"(?i)regular|original|was|old|list|compare|strike|before|rrp|msrp|base|initial|undiscounted"
)
_NOT_PRICE = re.compile(
    r"(?i)unit|per|shipping|deliver|tax|vat|min_?order|count|currency|format|label|type|id$|text$|html|display"
)
#: A price written out for display ("priceFormatted": "129,99 zł"): no price of its own, but it says
#: whether a bare integer beside it counts in cents.
_SHOWN_PRICE = re.compile(r"(?i)(price|amount).*(format|display|text|label)|(format|display).*(price|amount)")
#: Of an object's price keys, the upper end of a range is looked at last ("priceRange": {"min...", "max..."}).
_UPPER = re.compile(r"(?i)max|upper|high|to$")
_CENTS_KEY = re.compile(r"(?i)cent|minor")
_CURRENCY_KEY = re.compile(r"(?i)^(?:price_?)?currency(?:_?code)?$")
_AMOUNT_KEYS = (
    "price",
    "lowPrice",
    "amount",
    "value",
    "current",
    "sale",
    "final",
    "gross",
    "raw",
    "centAmount",
)
_LETTER = re.compile(r"[^\W\d_]")
_IMAGE_KEY = re.compile(
    r"(?i)^(?:main_?|primary_?)?(?:image|img|thumbnail|thumb|picture|photo)s?(?:_?url|_?src|_?href)?$"
)
_AD_KEY = re.compile(r"(?i)^(?:is_?)?(?:sponsored|promoted|ad|advert\w*)$")
_ISO = re.compile(r"^[A-Z]{3}$")


def clean_text(value: str) -> str:
    """``value`` without lone surrogates (which no output encoding can write) and outer space."""
    return value.encode("utf-8", "replace").decode("utf-8").strip()


def _finite(value: float) -> bool:
    return math.isfinite(value)


def load(text: str) -> Any:
    """One JSON document, None when it is not one or is over a bound (size, depth). NaN and Infinity
    read as None, and so does a number too big for a float (1e309)."""
    if not isinstance(text, str) or len(text) > MAX_JSON_BYTES:
        return None

    def number(s: str) -> float | None:
        value = float(s)
        return value if _finite(value) else None

    try:
        return json.loads(text, parse_constant=lambda _: None, parse_float=number)
    except (ValueError, RecursionError):
        return None


def undevalue(table: list) -> Any:
    """A Nuxt 3 payload (devalue: one flat array, objects and arrays holding the indices of their
    members) as the object it stands for; `MAX_NODES` values at most, references resolved once."""
    memo: dict[int, Any] = {}
    budget = [MAX_NODES]

    def resolve(index: Any, depth: int) -> Any:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(table):
            return None  # negative indices are undefined, null, NaN, ...: no values of a listing
        if index in memo:
            return memo[index]
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return None
        value = table[index]
        memo[index] = None  # a reference back to itself reads as nothing
        if isinstance(value, dict):
            out: Any = {k: resolve(v, depth + 1) for k, v in value.items()}
        elif isinstance(value, list):
            if value and isinstance(value[0], str):  # a typed value: ["Reactive", i], ["Date", "..."]
                out = resolve(value[1], depth + 1) if len(value) == 2 and isinstance(value[1], int) else None
            else:
                out = [resolve(v, depth + 1) for v in value]
        else:
            out = value
        memo[index] = out
        return out

    return resolve(0, 0)


def _is_devalue(doc: Any) -> bool:
    if not isinstance(doc, list) or len(doc) < 3:
        return False
    objects = [d for d in doc[:50] if isinstance(d, dict)]
    return bool(objects) and all(
        isinstance(v, int) and not isinstance(v, bool) for d in objects for v in d.values()
    )


def _lists(doc: Any) -> list[list]:
    """Every list of at least two objects in ``doc`` (breadth first, bounded by nodes and depth)."""
    found: list[list] = []
    todo: list[tuple[Any, int]] = [(doc, 0)]
    nodes = 0
    while todo and nodes < MAX_NODES:
        value, depth = todo.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            continue
        if isinstance(value, dict):
            todo.extend((v, depth + 1) for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            if sum(1 for v in value[:50] if isinstance(v, dict)) >= 2:
                found.append(value)
            todo.extend((v, depth + 1) for v in value if isinstance(v, dict | list))
    return found


def _amount(
    value: Any, currency: str | None, default: str | None, depth: int = 0, cents: bool = False
) -> Price | None:
    """A price from a value of a price-like key: a number, a text, an object of amount and currency,
    a list of offers (the first with a price)."""
    if depth > 4 or value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        amount = float(value) / 100 if cents else float(value)
        return Price(amount, currency or default) if _finite(amount) and amount >= 0 else None
    if isinstance(value, str):
        text = value.strip()
        if not text or len(text) > 80:
            return None
        price = parse_price(text, currency or default)
        if price is None or price.amount < 0:
            return None
        if cents and re.fullmatch(r"\d+", text):
            return Price(price.amount / 100, price.currency)
        return price
    if isinstance(value, list):
        for item in value[:10]:
            price = _amount(item, currency, default, depth + 1)
            if price is not None:
                return price
        return None
    if isinstance(value, dict):
        own = next((v for k, v in value.items() if _CURRENCY_KEY.match(k) and isinstance(v, str)), None)
        if isinstance(own, str) and _ISO.match(own.strip().upper()):
            currency = own.strip().upper()
        for key in _AMOUNT_KEYS:
            for k, v in value.items():
                if k.lower() == key.lower() and not _REGULAR_KEY.search(k):
                    price = _amount(v, currency, default, depth + 1, cents=bool(_CENTS_KEY.search(k)))
                    if price is not None:
                        return price
        keys = sorted(value, key=lambda k: bool(_UPPER.search(k)))  # priceRange: the lower end first
        for k in keys:  # priceInfo: {"salePrice": ...}
            v = value[k]
            if _PRICE_KEY.search(k) and not _REGULAR_KEY.search(k) and not _NOT_PRICE.search(k):
                price = _amount(v, currency, default, depth + 1, cents=bool(_CENTS_KEY.search(k)))
                if price is not None:
                    return price
    return None


def record(obj: dict, base: str, default: str | None) -> dict | None:
    """One item of a listing from an object: its name, price, regular price and link; None when it
    has no name. A wrapper of one object (a JSON-LD ListItem's ``item``, a GraphQL edge's ``node``)
    is looked through."""
    name = url = None
    price = regular = None
    shown: list[Price] = []
    own = next(
        (v for k, v in obj.items() if isinstance(k, str) and _CURRENCY_KEY.match(k) and isinstance(v, str)),
        "",
    )
    currency = own.strip().upper() if _ISO.match(own.strip().upper()) else None
    for key, value in obj.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, str):
            if name is None and _NAME_KEY.match(key) and not _NOT_NAME.search(key):
                text = clean_text(value)
                if 0 < len(text) <= 300 and _LETTER.search(text):
                    name = text
                    continue
            if url is None and _URL_KEY.match(key) and not _NOT_URL.search(key):
                url = absolute_url(clean_text(value), base) if "/" in value or "." in value else None
                if url is not None:
                    continue
        if isinstance(value, str) and _SHOWN_PRICE.search(key):
            if (seen := _amount(value, currency, default)) is not None:
                shown.append(seen)
            continue
        if _PRICE_KEY.search(key) and not _NOT_PRICE.search(key):
            cents = bool(_CENTS_KEY.search(key))
            if _REGULAR_KEY.search(key):
                regular = regular or _amount(value, currency, default, cents=cents)
            elif price is None:
                price = _amount(value, currency, default, cents=cents)
    if name is None:
        inner = [v for v in obj.values() if isinstance(v, dict)]
        if len(inner) == 1:
            return record(inner[0], base, default)
        return None
    if price is None and shown:
        price = shown[0]
    elif price is not None and shown and not any(abs(s.amount - price.amount) < 0.005 for s in shown):
        # The page shows the price beside a bare number: the number counts in cents when it is the
        # shown price times 100 (12999 beside "129,99 zł").
        hundredth = next((s for s in shown if abs(s.amount * 100 - price.amount) < 0.5), None)
        if hundredth is not None:
            price = Price(hundredth.amount, price.currency or hundredth.currency)
    out: dict[str, Any] = {"name": name, "price": price, "url": url}
    if regular is not None and price is not None and regular.amount > price.amount:
        out["price_regular"] = regular
    # The DOM's products carry their picture and whether each is an ad: from data, what it says.
    out["image"] = next(
        (i for k, v in obj.items() if isinstance(k, str) and _IMAGE_KEY.match(k) if (i := _image(v, base))),
        None,
    )
    out["sponsored"] = any(v is True for k, v in obj.items() if isinstance(k, str) and _AD_KEY.match(k))
    return out


def _image(value: Any, base: str, depth: int = 0) -> str | None:
    """A picture's address from an image value: a URL, an object with one (``src``, ``url``), a list."""
    if isinstance(value, str):
        text = clean_text(value)
        if text and not text.lower().startswith(("data:", "javascript:")) and ("/" in text or "." in text):
            return absolute_url(text, base)
        return None
    if depth < 2 and isinstance(value, list):
        return next((i for v in value[:5] if (i := _image(v, base, depth + 1))), None)
    if depth < 2 and isinstance(value, dict):
        for key in ("src", "url", "href", "original", "large"):
            if isinstance(value.get(key), str):
                return _image(value[key], base, depth + 1)
    return None


def _score(records: list[dict]) -> float:
    priced = sum(1 for r in records if r["price"] is not None)
    linked = sum(1 for r in records if r["url"])
    return priced * 2 + linked


def listing(documents: list[Any], base: str, default: str | None) -> list[dict]:
    """The records of the best product list in ``documents`` (parsed JSON): the list whose objects
    most often have a name and a price (and a link); at least two priced, most of them named."""
    best: list[dict] = []
    best_score = 0.0
    for doc in documents:
        if _is_devalue(doc):
            doc = undevalue(doc)
        for items in _lists(doc):
            objects = [o for o in items[:MAX_ITEMS] if isinstance(o, dict)]
            records = [r for o in objects if (r := record(o, base, default)) is not None]
            priced = [r for r in records if r["price"] is not None]
            if len(priced) < 2 or len(records) < 0.6 * len(objects):
                continue
            score = _score(records)
            if score > best_score:
                best, best_score = records, score
    return [r for r in best if r["url"]] if sum(1 for r in best if r["url"]) >= 0.6 * len(best) else best


_TITLE_KEY = re.compile(r"(?i)^(?:.*(?:name|title)|label|heading|headline)$")
_TEXT_KEY = re.compile(r"(?i)^(?:snippet|description|summary|abstract|excerpt|teaser|lead|text|body)$")
_DATE_KEY = re.compile(r"(?i)^(?:date|time|timestamp|.*(?:published|created|posted)(?:_?at|_?date|_?on)?)$")
_TAG = re.compile(r"<[^<>]{0,200}>")
MIN_RESULTS = 3  # a list of results carried as data: fewer is no evidence of one


def _plain(value: str) -> str:
    """Text a result carries with its highlighting as markup ("<em>lap</em>top") as a reader sees it."""
    from html import unescape

    return " ".join(unescape(_TAG.sub("", clean_text(value))).split())


def article_record(obj: dict, base: str, depth: int = 0) -> dict | None:
    """One result from an object: its title and link, and where it carries them its text and date;
    None without a title or a link. A wrapper of one object (an edge's ``node``) is looked through."""
    title = url = snippet = date = None
    for key, value in obj.items():
        if not isinstance(key, str) or not isinstance(value, str):
            continue
        if title is None and _TITLE_KEY.match(key) and not _NOT_NAME.search(key):
            text = _plain(value)
            if 0 < len(text) <= 300 and _LETTER.search(text):
                title = text
                continue
        if url is None and _URL_KEY.match(key) and not _NOT_URL.search(key):
            url = absolute_url(clean_text(value), base) if "/" in value or "." in value else None
            if url is not None:
                continue
        if snippet is None and _TEXT_KEY.match(key) and len(text := _plain(value)) >= 20:
            snippet = text
        elif date is None and _DATE_KEY.match(key) and 0 < len(text := clean_text(value)) <= 40:
            date = text
    if title is None or url is None:
        inner = [v for v in obj.values() if isinstance(v, dict)]
        return article_record(inner[0], base, depth + 1) if len(inner) == 1 and depth < 3 else None
    return {"title": title, "url": url, "snippet": snippet, "date": date}


def article_listing(documents: list[Any], base: str) -> list[dict]:
    """The results of the best list of results in ``documents`` (parsed JSON): objects with a title
    and a link, at least `MIN_RESULTS` of them, most titled in words (not a menu's one-word labels)
    and most with a text or a date of their own (not a list of links)."""
    best: list[dict] = []
    best_score = 0
    for doc in documents:
        if _is_devalue(doc):
            doc = undevalue(doc)
        for items in _lists(doc):
            objects = [o for o in items[:MAX_ITEMS] if isinstance(o, dict)]
            records = [r for o in objects if (r := article_record(o, base)) is not None]
            if len(records) < MIN_RESULTS or len(records) < 0.6 * len(objects):
                continue
            worded = sum(1 for r in records if len(r["title"].split()) >= 2)
            told = sum(1 for r in records if r["snippet"] or r["date"])
            if worded < 0.5 * len(records) or told < 0.5 * len(records):
                continue
            score = len(records) + told
            if score > best_score:
                best, best_score = records, score
    return best


def documents(blocks: list) -> list[Any]:
    """The parsed JSON of ``blocks`` (the ``[kind, text]`` pairs of EMBEDDED_JS), bad ones left out."""
    out = []
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, list) and len(block) == 2 and isinstance(block[1], str):
            doc = load(block[1])
            if isinstance(doc, dict | list):
                out.append(doc)
    return out


async def read_embedded(page: Any) -> list[Any]:
    """The page's embedded JSON documents, in one browser call."""
    return documents(await page.evaluate(EMBEDDED_JS, MAX_JSON_BYTES))


#: Script types the browser runs (its script: ``/javascript|ecmascript|module|babel/``).
_SCRIPT_TYPE = re.compile(r"javascript|ecmascript|module|babel")


def html_embedded(html: str) -> list[Any]:
    """`read_embedded` on HTML as fetched: the JSON blocks (``application/ld+json``,
    ``application/json``) and the state inline scripts assign to globals where it is written as data
    (`_script_state`: a JSON literal, ``JSON.parse`` of a string; nothing is run), in the order the
    browser's script lists them, at most `MAX_JSON_BYTES` in all."""
    from selectolax.lexbor import LexborHTMLParser

    from ._script_state import script_state

    pending: list[tuple[str, str]] = []  # a JSON block's kind and text, or ("script", index)
    scripts: list[tuple[str, bool]] = []
    for node in LexborHTMLParser(html).css("script"):
        attrs = node.attributes
        if "src" in attrs:
            continue
        kind = (attrs.get("type") or "").strip().lower()
        if kind.endswith("json"):
            pending.append(("ld" if "ld+json" in kind else "json", node.text(deep=True) or ""))
        elif not kind or _SCRIPT_TYPE.search(kind):
            pending.append(("script", str(len(scripts))))
            scripts.append((node.text(deep=True) or "", kind == "module"))
    state: dict[int, list[str]] = {}
    for index, text in script_state(scripts) if scripts else []:
        state.setdefault(index, []).append(text)
    blocks: list = []
    total = 0
    for kind, text in pending:
        for value in state.get(int(text), []) if kind == "script" else [text]:
            if not value or len(value) > MAX_JSON_BYTES - total:
                continue
            total += len(value)
            blocks.append([kind if kind != "script" else "state", value])
    return documents(blocks)


def with_embedded(products: list[dict], docs: list[Any], base: str, default: str | None) -> list[dict]:
    """``products`` (the DOM's, in the output shape) with what ``docs`` carry: the embedded listing
    when the DOM has no items yet; else each DOM product without a price takes the price of the
    embedded item of the same name (a price filled in by a later request)."""
    from ...text import fold
    from ._products import finish_products

    records = listing(docs, base, default)
    if not records:
        return products
    found = finish_products(records, default)
    if not products:
        return found
    twins = {fold(p["name"]): p for p in found if p["price"] is not None}
    for product in products:
        twin = twins.get(fold(product["name"] or ""))
        if product["price"] is None and twin is not None:
            product["price"], product["currency"] = twin["price"], twin["currency"]
    return products
