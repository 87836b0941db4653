"""Item fields by concept: one name per meaning across tools, sites and languages.

Extraction tools name the fields of their items as their site does: Hacker News stories have
``points``, Reddit posts a ``score``, products a ``name``, stories a ``title``. People say "points",
"upvotes", "punkty" or "Punkte" for all of them. A **concept** is one such meaning; ``CONCEPTS``
lists, per concept, the item keys that carry it (best first), and ``WORDS`` the words that name it
in English, Polish and German. The planner reads the words; the tools that sort, filter or pick
fields (`validation.order_items`, `validation.select_fields`) find the key an item list really
has with `key_for`, so "points" sorts Reddit posts by ``score``.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Concept -> the item keys that carry it, best first (the concept's own name first).
CONCEPTS: dict[str, tuple[str, ...]] = {
    "name": ("name", "title", "text", "label", "headline"),
    "price": ("price", "amount", "cost"),
    "currency": ("currency",),
    "url": ("url", "link", "href"),
    "points": ("points", "score", "upvotes", "votes", "karma"),
    "comments": ("comments", "num_comments", "comment_count", "comments_count"),
    "rating": ("rating", "stars", "rating_value"),
    "reviews": ("reviews", "review_count", "reviews_count", "ratings_count"),
    "date": ("date", "age", "created", "published", "posted", "time", "datetime"),
    "author": ("author", "user", "username", "by"),
    "image": ("image", "img", "thumbnail", "image_url"),
    "description": ("description", "snippet", "summary"),
    "rank": ("rank", "position"),
    "site": ("site", "domain", "subreddit", "source"),
    # Grouping ("the cheapest of each brand", "per shop"): who made it, who sells it.
    "brand": ("brand", "manufacturer", "make", "vendor"),
    "seller": ("seller", "shop", "store", "merchant", "sold_by", "offer_source"),
    "availability": ("availability", "in_stock", "available", "stock"),
    # Ordering only ("the most popular"): what a page counts its items' popularity by.
    "popularity": ("popularity", "points", "score", "upvotes", "votes", "karma", "reviews", "review_count"),
}

#: Field -> a regular expression of the words that name it (EN, PL, DE), for the planner. A field
#: is a concept or one of its keys ("title" is the ``name`` concept, named as articles name it).
WORDS: dict[str, str] = {
    "name": r"names?|nazw[aąęyo]?|nazwami|nazwie|nazwach|namen?|bezeichnung\w*",
    "title": r"titles?|headlines?|tytuł\w*|tytul\w*|nagłówk\w*|titeln?|überschrift\w*|schlagzeile\w*",
    "price": r"prices?|costs?|cen[aąęyo]|cenami|cenach|cenie|koszt\w*|preis\w*",
    "currency": r"currenc(?:y|ies)|walut\w*|währung\w*",
    "url": r"urls?|links?|hrefs?|web ?addresses|adres\w*|odnośnik\w*|linki\w*|linków|linkiem|linkami|adressen?",
    "points": (
        r"points?|pts|upvotes?|votes?|scores?|karma|punkt\w*|głos\w*|glos\w*|wynik(?:u|iem)?|"
        r"stimmen|punktzahl\w*"
    ),
    "comments": r"comments?|komentarz\w*|kommentar\w*",
    "rating": r"ratings?|stars?|ocen[aąęy]?|ocenami|gwiazdk\w*|bewertung\w*|sterne?n?",
    "reviews": r"reviews?|opini\w*|rezension\w*",
    "date": r"dates?|posted|published|dat[aąęy]|dacie|datum",
    "author": r"authors?|posters?|submitters?|autor\w*|verfasser\w*",
    "image": r"images?|photos?|pictures?|thumbnails?|zdjęci\w*|zdjeci\w*|obraz\w*|bild\w*|fotos?",
    "description": r"descriptions?|summar(?:y|ies)|snippets?|opis\w*|beschreibung\w*|zusammenfassung\w*",
    "rank": r"ranks?|rankings?|positions?|pozycj\w*|rang|platzierung\w*",
    "site": r"domains?|domen\w*|subreddit\w*",
}

#: Flags an item can carry -> the item keys that state them, best first (`validation.filter_flags`
#: reads each kind of value: a boolean, a schema.org availability, a regular price beside the price,
#: a shipping cost).
FLAGS: dict[str, tuple[str, ...]] = {
    "in_stock": ("in_stock", "available", "availability", "stock"),
    "on_sale": ("on_sale", "sale", "discount", "price_regular"),
    "free_shipping": ("free_shipping", "shipping", "shipping_cost", "delivery", "delivery_cost"),
    "sponsored": ("sponsored", "promoted", "ad", "is_ad", "advert"),
}

#: Concepts items are sorted by, and the order a bare "sorted by X" means (best first for most).
SORT_DEFAULT_ORDER: dict[str, str] = {
    "price": "asc",
    "name": "asc",
    "rank": "asc",
    "points": "desc",
    "comments": "desc",
    "rating": "desc",
    "reviews": "desc",
    "date": "desc",
    "popularity": "desc",
}


def concept_of(name: str) -> str | None:
    """The concept an item key or concept name belongs to (``score`` -> ``points``), or None."""
    low = name.strip().lower()
    if low in CONCEPTS:
        return low
    return next((c for c, keys in CONCEPTS.items() if low in keys), None)


def key_for(items: Iterable, name: str) -> str | None:
    """The key the items use for ``name``: the name itself when an item has it, else the first key
    of its concept that an item has (``points`` -> ``score`` for Reddit posts). None when no item
    has any."""
    present: set[str] = set()
    for item in items:
        if isinstance(item, dict):
            present.update(item)
    if name in present:
        return name
    concept = concept_of(name)
    if concept is None:
        return None
    return next((k for k in CONCEPTS[concept] if k in present), None)


def key_in_schema(item_properties: dict, name: str) -> str | None:
    """As `key_for`, against the item properties an extraction's ``output_schema`` declares."""
    if name in item_properties:
        return name
    concept = concept_of(name)
    if concept is None:
        return None
    return next((k for k in CONCEPTS[concept] if k in item_properties), None)
