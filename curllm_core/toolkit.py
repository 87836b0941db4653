"""The toolkit for tool authors: the one import address of a tool or plugin, built-in or not.

    from curllm_core.toolkit import ToolContext, tool, hookimpl, page_html, items_of, ToolError

The names live in the modules the built-in tools import them from; this module is their one
public address (pluggy-style: private modules, public re-exports), kept stable for plugins
(tests/test_public_surface.py pins it).

- **Writing a tool**: `ToolContext` (what a tool is given), `tool` (the code-first decorator),
  `BaseTool` (a class entrypoint), `hookimpl` (the plugin hook's marker).
- **Failing**: `CurllmError`, `ToolError` and its subclasses whose class says what happened
  (`BadParams`, `BadSelectors`, `NoPage`, `ElementNotFound`, `FieldNotFound`, `OptionNotFound`,
  `NoMatch`, `SubmitFailed`, `SubmitUndone`, `StepTimeout`).
- **Events** a tool emits for the further pages it opens: `UrlStartEvent`, `UrlCompleteEvent`.

- **The page**: `require_page` (the context's page, or `NoPage` naming the tool from its manifest)
  and `page_html` (the page's HTML, compact, and its URL in one browser round trip).
- **HTML**: `parse_html`, `page_base` (what relative links resolve against, a saved page's canonical
  URL included), `absolute_url`, `visible_text`, `collapse_space`.
- **Layouts**: the engine of a manifest's ``selectors.layouts`` (its language is declared in
  ``manifest.schema.json`` under ``$defs`` and checked on discovery): `best_layout`,
  `extract_layout`, `select_items`, `field_value`.
- **Validation tools**: `items_of` (the item list a step checks) and `verdict` (filter, or fail
  on any rejected item, with the ``validation`` report).
- **Prices**: `parse_price`, `filter_by_price`, `currency_for_domain` (the currency a site's
  country domain implies).
"""

from __future__ import annotations

from .errors import (
    BadParams,
    BadSelectors,
    CurllmError,
    ElementNotFound,
    FieldNotFound,
    NoMatch,
    NoPage,
    OptionNotFound,
    StepTimeout,
    SubmitFailed,
    SubmitUndone,
    ToolError,
)
from .events.types import UrlCompleteEvent, UrlStartEvent
from .hookspecs import hookimpl
from .prices import currency_for_domain, filter_by_price, parse_price
from .text import collapse_space
from .tool import BaseTool, ToolContext, require_page, tool
from .tools.extraction._html import absolute_url, page_base, page_html, parse_html, visible_text
from .tools.extraction._select import best_layout, extract_layout, field_value, select_items
from .tools.validation.items import items_of, verdict

__all__ = [
    "BadParams",
    "BadSelectors",
    "BaseTool",
    "CurllmError",
    "ElementNotFound",
    "FieldNotFound",
    "NoMatch",
    "NoPage",
    "OptionNotFound",
    "StepTimeout",
    "SubmitFailed",
    "SubmitUndone",
    "ToolContext",
    "ToolError",
    "UrlCompleteEvent",
    "UrlStartEvent",
    "absolute_url",
    "best_layout",
    "collapse_space",
    "currency_for_domain",
    "extract_layout",
    "field_value",
    "filter_by_price",
    "hookimpl",
    "items_of",
    "page_base",
    "page_html",
    "parse_html",
    "parse_price",
    "require_page",
    "select_items",
    "tool",
    "verdict",
    "visible_text",
]
