"""Form steps that moved the task's page, and what the run does when one led to a page without
the listing.

A form's submit (a price filter, a sort control, a search) loads the address the form names. On a
served copy of a page (a saved page on 127.0.0.1, a mirror) that address may answer 200 with some
other page (a directory listing, a soft "not found" page), where the extraction then finds nothing.
An address that answers an HTTP error is undone by the form tools themselves (`SubmitUndone`); this
module covers the page that loads but holds no items:

- an **optional** form step (a sort control, a price filter the validation steps check again) is
  undone: the page goes back to where it was, the extraction runs there, and the form step becomes
  a failed optional step that names the address it led to and its HTTP status;
- a **required** one (a search: the page as it was is not what was asked) is left as it is, and the
  run's EMPTY_OUTPUT names the address the form led to (`empty_note`), instead of "nothing matched".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag

#: The main document's HTTP status, as the page itself knows it (Navigation Timing Level 2).
_STATUS_JS = (
    "() => { const n = performance.getEntriesByType('navigation')[0];"
    " return (n && n.responseStatus) || null; }"
)


@dataclass
class Move:
    """A form step after which the page was at another address than before it."""

    index: int  # the step's number in the plan (1-based, as in the result's steps)
    tool: str
    before: str
    after: str
    optional: bool
    status: int | None = None
    undone: bool = False

    def landed(self) -> str:
        """Where the form led, with the status when known: "http://x/?q=1 (HTTP 200)"."""
        return f"{self.after} (HTTP {self.status})" if self.status else self.after


def moved(before: str | None, after: str | None) -> bool:
    """Whether the page is at another document than ``before`` (a fragment alone is no move)."""
    if not before or not after:
        return False
    return urldefrag(before)[0] != urldefrag(after)[0]


async def landed_status(page: Any) -> int | None:
    """The HTTP status of the document the page shows, when the browser knows it."""
    try:
        status = await page.evaluate(_STATUS_JS)
    except Exception:  # a page gone or being replaced: no status to report
        return None
    return status if isinstance(status, int) and status > 0 else None


async def go_back(page: Any, move: Move) -> bool:
    """The page back at the address before ``move`` (Back, else loading it again); whether it is."""
    from ..tools.page_helpers import go_back_to  # Playwright, only for a task in the browser

    try:
        return await go_back_to(page, move.before)
    except Exception:  # the page is gone: nothing to go back on
        return False


def undone_message(move: Move, tool: str, kind: str) -> str:
    """The failed optional form step's error: where it led, and what the run did instead."""
    return (
        f"it led to {move.landed()}, where {tool} found no {kind}; went back to {move.before} and "
        "read the page as it was (the steps after it check the answer)"
    )


def empty_note(moves: list[Move]) -> str:
    """What to add to EMPTY_OUTPUT when a form step had moved the page and nothing was read there."""
    live = [m for m in moves if not m.undone]
    if not live:
        return ""
    m = live[-1]
    return (
        f" on {m.landed()}, the page step {m.index} ({m.tool}) led to from {m.before}: the address "
        "the form submits to holds no items here (is it served at this address?)"
    )
