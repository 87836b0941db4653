"""The toolkit for tool authors: what curllm's built-in tools use, published for plugins alike.

    from curllm_core.toolkit import page_html, parse_html, best_layout, items_of, verdict

The names live in the modules the built-in tools import them from; this module is their one
public address (pluggy-style: private modules, public re-exports), kept stable for plugins.

- **The page**: `require_page` (the context's page, or `NoPage` naming the tool from its manifest)
  and `page_html` (the page's HTML, compact, and its URL in one browser round trip).
- **HTML**: `parse_html`, `page_base` (what relative links resolve against, a saved page's canonical
  URL included), `absolute_url`, `visible_text`, `collapse_space`.
- **Layouts**: the engine of a manifest's ``selectors.layouts`` (its language is declared in
  ``manifest.schema.json`` under ``$defs`` and checked on discovery): `best_layout`,
  `extract_layout`, `select_items`, `field_value`.
- **Validation tools**: `items_of` (the item list a step checks) and `verdict` (filter, or fail
  on any rejected item, with the ``validation`` report).
- **Prices**: `parse_price`, `filter_by_price`.
"""

from __future__ import annotations

from .prices import filter_by_price, parse_price
from .text import collapse_space
from .tool import require_page
from .tools.extraction._html import absolute_url, page_base, page_html, parse_html, visible_text
from .tools.extraction._select import best_layout, extract_layout, field_value, select_items
from .tools.validation.items import items_of, verdict

__all__ = [
    "absolute_url",
    "best_layout",
    "collapse_space",
    "extract_layout",
    "field_value",
    "filter_by_price",
    "items_of",
    "page_base",
    "page_html",
    "parse_html",
    "parse_price",
    "require_page",
    "select_items",
    "verdict",
    "visible_text",
]
