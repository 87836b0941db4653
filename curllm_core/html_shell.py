"""Whether HTML as fetched (no browser ran its scripts) is a client-rendered shell: content to come.

The same signs the browser's readiness check waits out (`readiness`: skeleton or placeholder
classes, ``aria-busy``, ``role=progressbar``, a short "Loading…" / "Ładowanie…" / "Wird geladen"
text), read from markup alone, plus one only HTML shows: a body with almost no text of its own but
scripts to fill it (an empty ``<div id="root">`` of a single-page app). `shell_signs(html)` lists
them; none means the HTML may hold the content (the extraction then says whether it does).
"""

from __future__ import annotations

import re

import regex

from .readiness import LOADING_JS_RE

#: The class and test-id words of placeholders, as `readiness.PROBE_JS` reads them.
_PLACEHOLDER = re.compile(
    r"(?:^|[^a-z])(skeleton|shimmer|placeholder|loading|loader|spinner|pulse|preloader)(?:[^a-z]|$)", re.I
)
_PLACEHOLDER_SELECTOR = (
    '[aria-busy="true"], [role="progressbar"], [class*="skeleton" i], [class*="shimmer" i], '
    '[class*="placeholder" i], [class*="loading" i], [class*="loader" i], [class*="spinner" i], '
    '[class*="pulse" i], [data-testid*="skeleton" i], [data-testid*="loading" i], [data-testid*="placeholder" i]'
)
_LOADING = regex.compile(LOADING_JS_RE, regex.IGNORECASE)
#: A body with less visible text than this, and scripts, is an app's empty mount point.
EMPTY_BODY_CHARS = 200


def shell_signs(html: str) -> list[str]:
    """What says that ``html``'s content is rendered by its scripts (at most 5 signs); [] for none."""
    from selectolax.lexbor import LexborHTMLParser

    from .tools.extraction._html import JUNK_TAGS, hidden_self

    tree = LexborHTMLParser(html)
    body = tree.body
    if body is None:
        return []
    scripts = sum(1 for script in tree.css("script") if _may_fill(script))
    for node in body.css(", ".join(t for t in JUNK_TAGS if t != "svg")):
        node.decompose()
    signs: list[str] = []
    for el in body.css(_PLACEHOLDER_SELECTOR)[:400]:
        if len(signs) >= 5:
            return signs
        if el.tag in ("input", "textarea", "select", "option", "img") or _hidden(el, hidden_self):
            continue
        attrs = el.attributes
        busy = attrs.get("aria-busy") == "true" or attrs.get("role") == "progressbar"
        found = _PLACEHOLDER.search(f"{attrs.get('class') or ''} {attrs.get('data-testid') or ''}")
        if busy:
            signs.append("aria-busy" if attrs.get("aria-busy") else "progressbar")
        elif found is not None and len("".join((el.text(deep=True) or "").split())) <= 24:
            signs.append(f"class {found.group(1).lower()}")  # (a real item styled so holds text)
    for el in body.css("p, span, div, li, h1, h2, h3, strong, em, small, button"):
        if len(signs) >= 5:
            break
        own = " ".join((el.text(deep=False) or "").split())
        if own and len(own) <= 40 and _LOADING.match(own) and not _hidden(el, hidden_self):
            signs.append(f"text {own!r}")
    text = " ".join((body.text(deep=True, separator=" ") or "").split())
    if scripts and len(text) < EMPTY_BODY_CHARS and not signs:
        signs.append(f"a body of {len(text)} characters of text, filled by {scripts} script(s)")
    return signs


#: Script types a browser runs (no type, JavaScript's names, modules); data blocks (JSON, templates) fill nothing.
_RUN_TYPES = {
    "",
    "module",
    "text/javascript",
    "application/javascript",
    "text/ecmascript",
    "application/ecmascript",
}


def _may_fill(script) -> bool:
    """Whether a ``<script>`` can put content in the page: one the browser runs, with code (a source
    or text); an empty one, or a data block, cannot."""
    attrs = script.attributes
    if (attrs.get("type") or "").strip().lower().split(";")[0].strip() not in _RUN_TYPES:
        return False
    return bool((attrs.get("src") or "").strip() or (script.text(deep=True) or "").strip())


def _hidden(el, hidden_self) -> bool:
    node = el
    while node is not None and node.tag not in ("body", "html"):
        if hidden_self(node, screen_reader=False):
            return True
        node = node.parent
    return False
