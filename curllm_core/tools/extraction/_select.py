"""Declarative extraction: the site markup lives in a manifest's ``selectors`` block, not in code.

A manifest lists ``layouts`` (a site often has several: search list, best-seller grid, ...). Each
layout names its ``item`` CSS selector (a list: the first that finds items), optional ``within``
(the container the items are read in, a list: the first present; carousels elsewhere on the page
often reuse the item markup), optional ``exclude`` (items to skip) and its ``fields``::

    {"item": "div.cat-prod-row", "exclude": ".promoted",
     "fields": {"name": {"css": ".cat-prod-row__name"},
                "url": {"css": ".cat-prod-row__name a", "attr": "href", "type": "url"},
                "price": {"css": ".price-format", "type": "price"},
                "id": {"attr": "data-pid"},
                "sponsored": {"css": ".ad-label", "self": ".AdHolder", "type": "exists"}}}

A field is a spec or a list of specs tried in order (``[{"css": "h2"}, {"css": "img", "attr": "alt"}]``).
Spec keys: ``css`` (a selector, or a list tried in order until one gives a value; absent = the item
itself), ``attr`` (read an attribute instead of text; a list: the first one present), ``type`` (text, raw, url, price, count,
number, exists, int), ``regex`` (applied to the text; group 1 when present; for "exists": true when
an element ``css`` finds, or the item itself without ``css``, has a text, or ``attr``, it matches),
``from`` ("next": look in the item's next element sibling, as Hacker News splits a story over two
rows), ``self`` (for "exists": also true when the item itself matches this selector).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...errors import BadSelectors
from ...prices import parse_price
from ...text import collapse_space
from ._html import absolute_url, parse_count, parse_number, raw_text, visible_text

TYPES = ("text", "raw", "url", "price", "count", "number", "exists", "int")


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE)


def next_element(node: LexborNode) -> LexborNode | None:
    """The next sibling that is an element (text and comments skipped)."""
    sibling = node.next
    while sibling is not None and not sibling.is_element_node:
        sibling = sibling.next
    return sibling


def find_first(node: LexborNode, selector: str) -> LexborNode | None:
    """The first descendant of ``node`` matching ``selector`` (lexbor's ``css`` also returns the node itself)."""
    for found in node.css(selector):
        if found.mem_id != node.mem_id:
            return found
    return None


def self_matches(node: LexborNode, selector: str) -> bool:
    """Whether ``node`` itself matches ``selector``."""
    first = node.css_first(selector)
    return first is not None and first.mem_id == node.mem_id


def _css_list(value: str | list[str] | None) -> list[str]:
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


def select_items(tree: LexborHTMLParser, layout: dict) -> list[LexborNode]:
    """The item elements of ``layout`` in document order, without the ``exclude``d ones.

    Inside the first ``within`` container the page has (the whole page when it has none, or the
    layout names none); ``item`` as a list: the first selector that finds any item.
    """
    try:
        container: LexborNode | None = None
        for selector in _css_list(layout.get("within")):
            container = tree.css_first(selector)
            if container is not None:
                break
        items: list[LexborNode] = []
        for selector in _css_list(layout["item"]):
            if container is None:
                items = tree.css(selector)
            else:  # lexbor's css on a node includes the node itself when it matches: no item
                items = [n for n in container.css(selector) if n.mem_id != container.mem_id]
            if items:
                break
        excluded = {n.mem_id for n in tree.css(layout["exclude"])} if layout.get("exclude") else set()
    except Exception as e:  # selectolax raises a bare error for a selector it cannot parse
        raise BadSelectors(f"bad selector in layout {layout.get('name', '?')!r}: {e}") from e
    return [n for n in items if n.mem_id not in excluded]


def _any_matches(scope: LexborNode, candidates: list[str | None], spec: dict) -> bool:
    """For ``exists`` with a ``regex``: whether any element found (the scope itself without ``css``)
    has a value (its text, or ``attr``) the regex matches."""
    rx = _regex(spec["regex"])
    for sel in candidates:
        elements = [scope] if sel is None else [n for n in scope.css(sel) if n.mem_id != scope.mem_id]
        for el in elements:
            value = _raw_value(el, spec, "text")
            if value is not None and rx.search(value):
                return True
    return False


def _raw_value(el: LexborNode, spec: dict, kind: str) -> str | None:
    attr = spec.get("attr")
    if attr:
        names = [attr] if isinstance(attr, str) else list(attr)
        value = next((v for name in names if (v := el.attributes.get(name))), None)
        return None if value is None else (value if kind == "url" else collapse_space(value))
    if kind == "url":
        return el.attributes.get("href")
    if kind in ("raw", "price"):
        return raw_text(el)
    return visible_text(el)


def _convert(value: str, kind: str, base: str, currency: str | None) -> Any:
    if kind == "url":
        return absolute_url(value, base)
    if kind == "price":
        return parse_price(value, currency)
    if kind in ("count", "int"):
        return parse_count(value)
    if kind == "number":
        return parse_number(value)
    return value or None


def field_value(item: LexborNode, spec: dict | str | list, base: str, currency: str | None = None) -> Any:
    """One field of one item, per its spec (see the module docstring). Missing values are None."""
    if isinstance(spec, list):
        result: Any = None
        for alternative in spec:
            result = field_value(item, alternative, base, currency)
            if result not in (None, False, ""):
                return result
        return result
    if isinstance(spec, str):
        spec = {"css": spec}
    kind = spec.get("type", "text")
    scope: LexborNode | None = item
    if spec.get("from") == "next":
        scope = next_element(item)
        if scope is None:
            return False if kind == "exists" else None
    selectors = spec.get("css")
    candidates: list[str | None] = (
        [selectors] if isinstance(selectors, str) or selectors is None else list(selectors)
    )
    assert scope is not None
    if kind == "exists":
        if spec.get("self") and self_matches(item, spec["self"]):
            return True
        if spec.get("regex"):
            return _any_matches(scope, candidates, spec)
        return any(find_first(scope, sel) is not None for sel in candidates if sel)
    for sel in candidates:
        el = scope if sel is None else find_first(scope, sel)
        if el is None:
            continue
        value = _raw_value(el, spec, kind)
        if value is None:
            continue
        if spec.get("regex"):
            m = _regex(spec["regex"]).search(value)
            if not m:
                continue
            value = m.group(1) if m.groups() and m.group(1) is not None else m.group(0)
        result = _convert(value, kind, base, currency)
        if result is not None:
            return result
    return None


def extract_layout(
    tree: LexborHTMLParser, layout: dict, base: str, currency: str | None = None
) -> list[dict]:
    """Every item of ``layout`` as a dict of its fields; items missing a ``require``d field are dropped."""
    fields: dict = layout.get("fields", {})
    required = layout.get("require", [])
    records = []
    for item in select_items(tree, layout):
        record = {key: field_value(item, spec, base, currency) for key, spec in fields.items()}
        if all(record.get(key) not in (None, "") for key in required):
            records.append(record)
    return records


def best_layout(
    tree: LexborHTMLParser, selectors: dict, base: str, currency: str | None = None
) -> tuple[str | None, list[dict]]:
    """The layout of ``selectors["layouts"]`` that finds the most items on this page, and its items."""
    layouts = selectors.get("layouts") or []
    if not layouts:
        raise BadSelectors("the manifest's selectors define no layouts")
    best: tuple[str | None, list[dict]] = (None, [])
    for layout in layouts:
        records = extract_layout(tree, layout, base, currency)
        if len(records) > len(best[1]):
            best = (layout.get("name"), records)
    return best
