"""Links whose absolute URL matches a pattern, each URL once, with its visible text; or the page's
images (``images``): each picture's address once, with its alt text."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from ...safe_regex import UntrustedPattern
from ...text import collapse_space
from ...tool import ToolContext
from ...urls import host_of
from ._html import (
    absolute_url,
    apply_limit,
    hidden_in_tree,
    page_base,
    page_html,
    parse_html,
    strip_junk,
    visible_text,
)


def _compile(pattern: str | None, what: str) -> UntrustedPattern | None:
    # The pattern comes from a plan (or a model): bounded in time, see curllm_core.safe_regex.
    return None if pattern is None else UntrustedPattern(pattern, what=what)


def _same_site(host: str, own: str) -> bool:
    """``host`` is the page's own host or a subdomain of it, ignoring a leading ``www.``."""
    host, own = host.removeprefix("www."), own.removeprefix("www.")
    return bool(own) and (host == own or host.endswith("." + own))


def _link_text(link) -> str:
    """Visible text, else the accessible name (aria-label, title, image alt)."""
    text = visible_text(link)
    if text:
        return text
    for value in (link.attributes.get("aria-label"), link.attributes.get("title")):
        if value and value.strip():
            return collapse_space(value)
    img = link.css_first("img[alt]")
    return collapse_space(img.attributes.get("alt")) if img is not None else ""


#: Where a picture keeps its address: a lazy loader's attribute (its ``src`` is then a placeholder
#: until the picture scrolls into view), else its source, else a source set.
_IMAGE_SOURCES = ("data-src", "data-lazy-src", "data-original", "src", "data-srcset", "srcset")
_IMAGE_FILE_RE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|svg|bmp)(?:$|[?#])", re.I)


def _image_url(img) -> str | None:
    """The address a picture shows: not an inline ``data:`` image, nor a tracking pixel (1x1)."""
    attrs = img.attributes
    if attrs.get("width") in ("0", "1") or attrs.get("height") in ("0", "1"):
        return None
    for name in _IMAGE_SOURCES:
        value = (attrs.get(name) or "").strip()
        if name.endswith("srcset"):
            value = value.split(",")[-1].strip().split(" ")[0] if value else ""  # the largest, listed last
        if value and not value.lower().startswith("data:"):
            return value
    return None


def _targets(tree, images: bool):
    """(element, address, label) of the page's links, or with ``images`` of its pictures and the
    links to picture files (a label of None: the link's own text)."""
    if not images:
        for link in tree.css("a[href], area[href]"):
            yield link, link.attributes.get("href"), None
        return
    for node in tree.css("img, a[href]"):
        if node.tag == "img":
            alt = node.attributes.get("alt") or node.attributes.get("title") or ""
            yield node, _image_url(node), collapse_space(alt)
        elif _IMAGE_FILE_RE.search(node.attributes.get("href") or ""):
            yield node, node.attributes.get("href"), None


def extract(
    html: str,
    base_url: str,
    *,
    pattern: str = "",
    text: str | None = None,
    same_domain: bool = False,
    external: bool = False,
    images: bool = False,
    limit: int | None = None,
    selectors: dict | None = None,
    **_: Any,
) -> dict:
    """Links on ``html`` whose absolute URL matches ``pattern`` (and whose text matches ``text``).

    Links inside hidden markup (hidden attribute, display:none, <template>, aria-hidden off-screen
    containers) are not links a user can follow and are skipped. ``external`` keeps the http(s) links to
    any other host than the page's own (its ``<base>``'s, else its URL's; on a page with no host, a
    saved file, every http(s) link). A URL found more than once is kept once, at its first place, with
    the first non-empty text. With ``images``, the page's pictures instead (``<img>``: a lazy loader's
    ``data-src`` over the placeholder in its source, else its source, else the largest of a source
    set; not inline ``data:`` images or 1x1 pixels) and the links to picture files, each with its alt
    text (or the link's).
    """
    # An empty pattern matches every link: no matching at all (on a page of a thousand links a busy
    # machine could otherwise spend the untrusted pattern's time budget on nothing).
    url_re = UntrustedPattern(pattern, what="pattern") if pattern else None
    text_re = _compile(text, "text")
    tree = parse_html(html)
    base = page_base(tree, base_url)
    strip_junk(tree)
    own_host = host_of(base)
    hidden: dict[int, bool] = {}
    found: dict[str, dict] = {}
    for link, href, alt in _targets(tree, images):
        url = absolute_url(href, base) if href else None
        if not url or not url.lower().startswith(("http://", "https://", "ftp://", "file:")):
            continue
        if url_re is not None and not url_re.search(url):
            continue
        if same_domain and not _same_site(host_of(url), own_host):
            continue
        if external and (
            not url.lower().startswith(("http://", "https://")) or _same_site(host_of(url), own_host)
        ):
            continue
        # Strict: a link kept from assistive technology inside an off-screen container is a template
        # (eBay's "Shop on eBay" placeholder); a visible link to the same URL is found on its own.
        if hidden_in_tree(link, hidden, strict=True):
            continue
        label = _link_text(link) if alt is None else alt
        if text_re is not None and not text_re.search(label):
            continue
        entry = found.get(url)
        if entry is None:
            found[url] = {"text": label, "url": url}
        elif not entry["text"] and label:
            entry["text"] = label
    return {"links": apply_limit(list(found.values()), limit)}


async def run(
    ctx: ToolContext,
    pattern: str = "",
    text: str | None = None,
    same_domain: bool = False,
    external: bool = False,
    images: bool = False,
    limit: int | None = None,
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract`."""
    html, url = await page_html(ctx)
    # Off the event loop: matching a plan's pattern against every link is CPU work, and the step's
    # time limit (and other tasks of a batch) must not wait for it.
    return await asyncio.to_thread(
        extract,
        html,
        url,
        pattern=pattern,
        text=text,
        same_domain=same_domain,
        external=external,
        images=images,
        limit=limit,
    )
