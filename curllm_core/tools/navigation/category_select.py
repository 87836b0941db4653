"""Walk down a category tree: click each name of ``path`` in turn ("Elektronika" then "Laptopy").

Names match link text ignoring case, spaces and accents (and a product count after the name:
"Elektronika (10)"). A level is looked for first inside the branch clicked before (trees that open
in place), then anywhere in category-like navigation (nav, aside, menus, trees), and never inside
product cards when something better exists. A hidden entry (a collapsed menu) is revealed by
hovering its parent or, failing that, opened by its address.
"""

from __future__ import annotations

from typing import Any

from ...errors import ElementNotFound, ToolError
from ...tool import ToolContext, require_page
from ..page_helpers import (
    Clickable,
    PageWatch,
    PlaywrightError,
    has_word,
    scan_clickables,
    text_match,
    words,
)
from .click_by_text import click

CATEGORY_AREA = (
    r"categor\w*|kategori\w*|kategorie|menu\w*|tree\w*|nav\w*|navigation|sidebar|aside|filter\w*|"
    r"facet\w*|department\w*|abteilung\w*|rubryk\w*|dzial\w*|sortiment|browse"
)


def level_score(name: str, c: Clickable) -> tuple[float, str]:
    """How well a clickable is the category ``name`` of the current level (0: it is not)."""
    tier, kind = text_match(name, c.text)
    if tier == 0:
        tier, kind = text_match(name, c.aria)
    if tier == 0:
        return 0.0, ""
    score = tier * 10.0
    if c.inside_previous:
        score += 6  # the branch just opened
    if has_word(words(c.around, c.cls), CATEGORY_AREA):
        score += 3
    if c.li_depth:
        score += 1
    if c.in_card:
        score -= 5  # a product that happens to mention the category
    if c.visible:
        score += 4
    return score, kind


async def run(ctx: ToolContext, path: list[str], timeout_ms: int = 15000, **_: Any) -> dict:
    """Click through ``path`` (top category first); report every click and the final address."""
    page = require_page(ctx)
    names = [str(n).strip() for n in path or [] if str(n).strip()]
    if not names:
        raise ToolError("category_select needs a non-empty path, e.g. ['Elektronika', 'Laptopy']")
    clicked: list[dict] = []
    previous = ""  # data-curllm-prev of the last click, while we stay on the same document
    for level, name in enumerate(names, 1):
        scan = await scan_clickables(page, needle=name, previous_ref=previous)
        ranked = sorted(
            ((level_score(name, c), c) for c in scan.items),
            key=lambda t: (t[0][0], -t[1].order),
            reverse=True,
        )
        ranked = [(s, c) for s, c in ranked if s[0] > 0]
        if not ranked:
            raise ElementNotFound(
                f"category {name!r} (level {level} of {names}) not found on {scan.url}: no link, button "
                "or menu entry shows that text"
            )
        (_score, kind), target = ranked[0]
        async with PageWatch(page, emit=ctx.emit) as watch:
            how = await open_entry(page, target, previous)
            settled = await watch.settle(timeout_ms)
        # A branch that opened in place is where the next level is looked for first; after a
        # navigation the new page's tree is searched as a whole.
        previous = "" if settled.navigated else await mark(page, target, str(level))
        clicked.append({**target.describe(), "match": kind, "how": how, "navigated": settled.navigated})
        ctx.log.debug("category_select: level %d %r -> %s (%s)", level, name, page.url, how)
    return {"category_select": {"path": names, "clicked": clicked, "url": page.url}}


async def mark(page: Any, target: Clickable, marker: str) -> str:
    """Tag the entry just clicked (``data-curllm-prev``) so the next scan knows its branch; "" if it is gone."""
    try:
        await page.locator(target.selector).first.evaluate(
            "(el, m) => { document.querySelectorAll('[data-curllm-prev]').forEach((x) => "
            "x.removeAttribute('data-curllm-prev')); el.setAttribute('data-curllm-prev', m); }",
            marker,
            timeout=2000,
        )
    except PlaywrightError:
        return ""
    return marker


async def open_entry(page: Any, target: Clickable, previous: str) -> str:
    """Click a visible entry; reveal a hidden one by hovering its parent entry, else load its address."""
    if target.visible:
        return await click(page, target)
    if previous:
        parent = page.locator(f'[data-curllm-prev="{previous}"]').first
        if await parent.count():
            await parent.hover(timeout=3000)
            if await page.locator(target.selector).first.is_visible():
                await page.locator(target.selector).first.click(timeout=5000)
                return "hover+click"
    if target.href and target.tag == "a" and not target.raw_href.startswith(("#", "javascript")):
        await page.goto(target.href, wait_until="domcontentloaded")
        return "goto"
    return await click(page, target)
