"""Whether an action changed the page's listing: a fingerprint of what it shows, compared.

A filter, sort or submit after which the listing is the same did nothing, whatever the page's
scripts did meanwhile; a filter that applies itself (a debounced input, no button) is waited for
until the fingerprint changes or a bound passes (`wait_changed`). The fingerprint is the page's
links in order (a sort reorders them, a filter drops or hides some: how many are shown) and the
length of its text (prices filled in): one browser call. Taken with the page's clock (`look`), it
also marks the moment the action began: only work the page scheduled from then on (a debounce its
handlers set) is waited for, never a timer it had going before (a carousel, a poller).

Each look is a browser round trip (~2 ms of CPU over Python, the driver and the browser, more on a
loaded machine), so an action's own browser calls may carry them: `SHOWN_JS` inside the call that
starts the action (`page_helpers.submit_from`), `LOOK_JS` inside the last look of `PageWatch.settle`
(``first`` of `wait_changed`): a form that did nothing is found out without a look of its own.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..readiness import PROBE_JS, PROBE_OPTIONS, Probe, verdict, wait_ready

#: How long a filter that applies itself gets to change the listing (ms).
CHANGE_WAIT_MS = 3000
#: A filter's debounce, at most (ms): a short timer still pending after this long is a poller's.
DEBOUNCE_MS = 1000

FINGERPRINT_JS = r"""() => {
  let h = 0, shown = 0;
  const links = document.querySelectorAll("a[href]");
  for (const a of links) {
    const s = a.getAttribute("href");
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    h = (h * 31 + 7) | 0;
    if (a.checkVisibility ? a.checkVisibility() : a.getClientRects().length) shown++;
  }
  return links.length + ":" + h + ":" + shown + ":" + (document.body ? document.body.textContent.length : 0);
}"""


#: The fingerprint and the page's clock: what `Shown` holds (the probe's source is not sent along).
SHOWN_JS = "() => [(" + FINGERPRINT_JS + ")(), performance.now()]"
#: The fingerprint, the page's clock and a readiness probe counting only the timers set since ``since``.
LOOK_JS = (
    "(opts) => [(" + FINGERPRINT_JS + ")(), performance.now(), opts.probe ? (" + PROBE_JS + ")(opts) : null]"
)


@dataclass(frozen=True)
class Shown:
    """What the page showed (`fingerprint`) and when, by the page's clock (``performance.now()``)."""

    mark: str
    at: float = 0.0


async def look(page: Any) -> Shown:
    """The page's fingerprint and clock, in one call: taken before an action, for `wait_changed`."""
    return shown_from(await page.evaluate(SHOWN_JS))


def shown_from(raw: Any) -> Shown:
    """The `Shown` of what `SHOWN_JS` answered (run by this module or inside another call)."""
    mark, at = raw
    return Shown(str(mark), float(at))


def look_options(before: Shown) -> dict:
    """The argument of `LOOK_JS` for the looks after an action that began when ``before`` was taken:
    the probe counts the timers set within `DEBOUNCE_MS` after it (see `wait_changed`)."""
    window = {"since": before.at, "until": before.at + DEBOUNCE_MS} if before.at else {}
    return {**PROBE_OPTIONS, "probe": True, **window}


async def fingerprint(page: Any) -> str:
    """What the page shows, in one string that changes when its listing does."""
    return str(await page.evaluate(FINGERPRINT_JS))


async def wait_changed(
    page: Any,
    before: str | Shown,
    timeout_ms: int = CHANGE_WAIT_MS,
    ready_ms: int = 2000,
    *,
    first: Any = None,
) -> bool:
    """Whether the page's fingerprint is no longer ``before``: looked at (one call a look) until it
    changes (then the page is waited for until ready), the page is idle (no request in flight, no
    DOM change, no short timer pending: nothing is coming), or ``timeout_ms`` passed. With a `Shown`,
    the timers counted are those the page set within `DEBOUNCE_MS` after it was taken, by the page's
    own clock (a debounce its handlers set, however late a loaded machine runs it; a timer set later
    is a poller's); with a bare fingerprint, every short timer, for `DEBOUNCE_MS` of this side's time.
    ``first``: the first look, already taken (what `LOOK_JS` with `look_options` answered, inside
    another call of the action's: `Settled.look`), instead of a call of its own."""
    mark, since = (before.mark, before.at) if isinstance(before, Shown) else (before, 0.0)
    options = look_options(before) if isinstance(before, Shown) else {**PROBE_OPTIONS, "probe": True}
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + timeout_ms / 1000
    while True:
        if first is not None:
            now, _, state = first
            first = None
        else:
            now, _, state = await page.evaluate(LOOK_JS, options)
        if now != mark:
            await wait_ready(page, ready_ms)
            return True
        if loop.time() >= end:
            return False
        seen = Probe.from_json(state)
        timers = seen.timer_ms and (since or loop.time() - start <= DEBOUNCE_MS / 1000)
        if verdict(seen) is None and not timers:
            return False
        await asyncio.sleep(0.1)
