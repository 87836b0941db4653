"""Scroll to the bottom repeatedly so that an infinite-scroll page loads more content.

Stops early as soon as a scroll brings nothing new within ``wait_ms`` (the page height and the
number of elements stay the same), so an ending feed costs one extra wait, not ``times`` of them.
Pages that scroll inside a container instead of the window are handled: the largest scrollable
element is scrolled.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...errors import ToolError
from ...tool import ToolContext, require_page
from ..page_helpers import deadline

_SCROLLER = r"""
const doc = document.scrollingElement || document.documentElement;
// The window, unless it does not scroll: then a feed inside an overflow container (the largest one).
const scroller = () => {
  if (doc.scrollHeight > window.innerHeight + 2) return null;
  let target = null, best = 0;
  for (const el of document.querySelectorAll("body *")) {
    if (el.scrollHeight <= el.clientHeight + 2 || el.clientHeight < 100) continue;
    const oy = getComputedStyle(el).overflowY;
    if ((oy === "auto" || oy === "scroll") && el.clientHeight * el.clientWidth > best) {
      best = el.clientHeight * el.clientWidth; target = el;
    }
  }
  return target;
};
"""
_MEASURE_JS = (
    "() => {"
    + _SCROLLER
    + r"""
  const target = scroller();
  return {height: target ? target.scrollHeight : doc.scrollHeight, nodes: document.getElementsByTagName("*").length};
}"""
)
_SCROLL_JS = (
    "() => {"
    + _SCROLLER
    + r"""
  const target = scroller();
  if (!target) { window.scrollTo(0, doc.scrollHeight); return "window"; }
  target.scrollTop = target.scrollHeight;
  return "container";
}"""
)


def grew(before: dict, after: dict) -> bool:
    """New content: the page got taller or gained elements (a spinner alone adds one or two)."""
    return after["height"] > before["height"] + 4 or after["nodes"] > before["nodes"] + 2


async def run(ctx: ToolContext, times: int = 5, wait_ms: int = 1500, **_: Any) -> dict:
    """Scroll to the bottom up to ``times`` times, waiting up to ``wait_ms`` each time for new content."""
    page = require_page(ctx)
    if times < 1:
        raise ToolError(f"scroll_load: times must be at least 1, got {times}")
    finish_by = deadline(ctx, 120000)
    loop = asyncio.get_running_loop()
    first = current = await page.evaluate(_MEASURE_JS)
    scrolls = loads = 0
    stopped = "times"
    for _i in range(times):
        if loop.time() > finish_by:
            stopped = "time_limit"  # return what has loaded rather than be cancelled
            break
        await page.evaluate(_SCROLL_JS)
        scrolls += 1
        # Poll until the content grows, then until it stops growing (the rest of a batch arriving).
        wait_until = loop.time() + wait_ms / 1000
        latest = current
        while loop.time() < wait_until:
            await asyncio.sleep(0.1)
            latest = await page.evaluate(_MEASURE_JS)
            if grew(current, latest):
                break
        if not grew(current, latest):
            stopped = "no_new_content"
            break
        loads += 1
        settle_until = loop.time() + min(2.0, wait_ms / 1000)
        while loop.time() < settle_until:
            await asyncio.sleep(0.15)
            again = await page.evaluate(_MEASURE_JS)
            if again == latest:
                break
            latest = again
        current = latest
        ctx.log.debug("scroll_load: scroll %d grew the page to %s px", scrolls, current["height"])
    return {
        "scroll_load": {
            "scrolls": scrolls,
            "loads": loads,
            "stopped": stopped,
            "height_before": first["height"],
            "height_after": current["height"],
            "elements_added": current["nodes"] - first["nodes"],
            "url": page.url,
        }
    }
