"""The links and buttons of HTML as fetched (the HTTP engine), described as the browser's scan
describes them (`page_helpers.Clickable`), so that the rules written for the scan (the pager's
`next_score`, `more_on_page.load_more_score`) judge them alike: `html_clickables`.

What markup alone cannot tell is left at its safe side: an element counts as visible unless its own
markup or an ancestor's hides it (``hidden``, ``display:none``, a hiding class).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

from ...text import fold
from ..page_helpers import Clickable, followable

#: Elements whose text and classes make an ancestor's description (`Clickable.around`), as in the scan.
_AROUND_LEVELS = 4


def _around(node: Any) -> str:
    out: list[str] = []
    parent = node.parent
    for _ in range(_AROUND_LEVELS):
        if parent is None or parent.tag in ("html", "-undef"):
            break
        attrs = parent.attributes
        out += [parent.tag, attrs.get("id") or "", attrs.get("class") or "", attrs.get("role") or ""]
        out.append(attrs.get("aria-label") or "")
        parent = parent.parent
    return " ".join(out)[:400]


def _passes(pre: re.Pattern[str], probe: str) -> bool:
    """Whether the folded ``probe`` matches ``pre``; lower-casing is folding for ASCII text, so only
    other text pays for `text.fold`."""
    return pre.search(probe.lower()) is not None or (
        not probe.isascii() and pre.search(fold(probe)) is not None
    )


def html_clickables(html: str, url: str, *, prefilter: str = "") -> list[Clickable]:
    """The links of ``html`` (``<a href>``, ``<link rel=next>``, ``<link rel=prev>``) as `Clickable`s, with what the
    browser scan would say of them that markup tells (visible: not hidden by its own markup).

    ``prefilter``, a regular expression, is the browser scan's cheap first test
    (`page_helpers.scan_clickables`): an element whose folded rel, text, labels, image alt, class
    and id it does not match is not described (a listing's hundreds of product links, when looking
    for "next"); ``order`` and ``ref`` still count every element."""
    from selectolax.lexbor import LexborHTMLParser

    from ..extraction._html import hidden_self

    pre = re.compile(prefilter) if prefilter else None
    tree = LexborHTMLParser(html)
    # As the browser resolves ``el.href``: against <base href>, else the document's own address.
    tag = tree.css_first("base[href]")
    base = urljoin(url, (tag.attributes.get("href") or "").strip()) if tag is not None else url
    out: list[Clickable] = []
    for i, node in enumerate(tree.css("a[href], button, [role=button], link[rel~=next], link[rel~=prev]")):
        attrs = node.attributes
        text = " ".join((node.text(deep=True, separator=" ") or "").split())
        img = node.css_first("img[alt]")
        aria = " ".join(
            v
            for v in (attrs.get("aria-label"), attrs.get("title"), img.attributes.get("alt") if img else None)
            if v
        )
        if pre is not None and not _passes(
            pre,
            " ".join((attrs.get("rel") or "", text, aria, attrs.get("class") or "", attrs.get("id") or "")),
        ):
            continue
        raw = (attrs.get("href") or "").strip()
        href = urljoin(base, raw) if raw else ""
        hidden = False
        ancestor: Any = node
        while ancestor is not None and ancestor.tag not in ("body", "html"):
            if hidden_self(ancestor, screen_reader=False):
                hidden = True
                break
            ancestor = ancestor.parent
        out.append(
            Clickable(
                ref=str(i),
                order=i,
                tag=node.tag or "a",
                text=text[:200],
                aria=aria[:160],
                role=attrs.get("role") or "",
                rel=(attrs.get("rel") or "").lower(),
                raw_href=raw,
                href=href if followable(href) else "",
                id=attrs.get("id") or "",
                cls=(attrs.get("class") or "")[:160],
                visible=node.tag != "link" and not hidden,
                disabled="disabled" in attrs or attrs.get("aria-disabled") == "true",
                current=attrs.get("aria-current") or "",
                around=_around(node),
                in_head=node.tag == "link",
            )
        )
    return out
