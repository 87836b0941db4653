"""Whether an action changed the page's listing: a fingerprint of what it shows, compared.

A filter, sort or submit after which the listing is the same did nothing, whatever the page's
scripts did meanwhile; a filter that applies itself (a debounced input, no button) is waited for
until the fingerprint changes or a bound passes (`wait_changed`). The fingerprint is the page's
links in order (a sort reorders them, a filter drops some) and the length of its text (prices filled
in): one browser call, no layout.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..readiness import probe, verdict, wait_ready

#: How long a filter that applies itself gets to change the listing (ms).
CHANGE_WAIT_MS = 3000
#: A filter's debounce, at most (ms): a short timer still pending after this long is a poller's.
DEBOUNCE_MS = 1000

FINGERPRINT_JS = r"""() => {
  let h = 0;
  const links = document.querySelectorAll("a[href]");
  for (const a of links) {
    const s = a.getAttribute("href");
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    h = (h * 31 + 7) | 0;
  }
  return links.length + ":" + h + ":" + (document.body ? document.body.textContent.length : 0);
}"""


async def fingerprint(page: Any) -> str:
    """What the page shows, in one string that changes when its listing does."""
    return str(await page.evaluate(FINGERPRINT_JS))


async def wait_changed(
    page: Any, before: str, timeout_ms: int = CHANGE_WAIT_MS, ready_ms: int = 2000
) -> bool:
    """Whether the page's fingerprint is no longer ``before``: looked at until it changes (then the
    page is waited for until ready), the page is idle (no request in flight, no DOM change, no short
    timer pending: nothing is coming; a timer still pending after `DEBOUNCE_MS` is a poller's), or
    ``timeout_ms`` passed."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + timeout_ms / 1000
    while True:
        if await fingerprint(page) != before:
            await wait_ready(page, ready_ms)
            return True
        if loop.time() >= end:
            return False
        look = await probe(page)
        if verdict(look) is None and (not look.timer_ms or loop.time() - start > DEBOUNCE_MS / 1000):
            return False
        await asyncio.sleep(0.1)
