"""Click the visible element that shows a given text, and wait for what the click does.

Candidates are visible, enabled links, buttons, ``[role=button|link|tab|menuitem]``, submit/button
inputs, ``<summary>`` and elements with an ``onclick``. The exact text wins, then the same text
ignoring case, spaces and accents, then the shortest text containing it.
"""

from __future__ import annotations

from typing import Any

from ...errors import ElementNotFound, ToolError
from ...tool import ToolContext, require_page
from ..page_helpers import Clickable, PageWatch, click_like_user, scan_clickables, text_match

REAL_CONTROLS = {"a", "button", "input", "summary"}


def rank(wanted: str, c: Clickable) -> tuple[tuple, str]:
    """Sort key of a candidate (bigger is better) and the kind of match; key[0] == 0 means no match."""
    tier, kind = text_match(wanted, c.text)
    aria_tier, aria_kind = text_match(wanted, c.aria)
    if aria_tier > tier:  # icon buttons: the label is all the text there is
        tier, kind = aria_tier, f"{aria_kind} (label)"
    shortness = -len(c.text or c.aria)
    return (tier, c.tag in REAL_CONTROLS or bool(c.role), shortness, -c.order), kind


async def click(page: Any, c: Clickable, timeout_ms: int = 5000) -> str:
    """Click a scanned element like a user (see `click_like_user`)."""
    return await click_like_user(page, c.selector, visible=c.visible, timeout_ms=timeout_ms)


async def run(ctx: ToolContext, text: str, timeout_ms: int = 15000, **_: Any) -> dict:
    """Click the element showing ``text`` and wait (at most ``timeout_ms``) for the navigation or DOM change."""
    page = require_page(ctx)
    if not text or not text.strip():
        raise ToolError("click_by_text needs a non-empty text")
    scan = await scan_clickables(page, needle=text)
    ranked = sorted(((rank(text, c), c) for c in scan.items), key=lambda t: t[0][0], reverse=True)
    matching = [(key, c) for key, c in ranked if key[0][0] > 0]
    # Only what a user can see and use: a hidden "Usuń konto" must never be clicked by accident.
    ranked = [(key, c) for key, c in matching if c.visible and not c.disabled]
    if not ranked:
        hidden = f"; {len(matching)} hidden or disabled element(s) show it" if matching else ""
        raise ElementNotFound(
            f"nothing visible and clickable shows the text {text!r} on {scan.url}{hidden} (looked at "
            "links, buttons, role=button/link/tab/menuitem, submit inputs, summary, onclick elements)"
        )
    (key, kind), target = ranked[0]
    async with PageWatch(page, emit=ctx.emit) as watch:
        how = await click(page, target)
        settled = await watch.settle(timeout_ms)
    return {
        "click_by_text": {
            "clicked": target.describe(),
            "match": kind,
            "how": how,
            "navigated": settled.navigated,
            "dom_changed": settled.mutations > 0,
            "url": page.url,
        }
    }
