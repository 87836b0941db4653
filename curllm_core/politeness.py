"""Politeness towards the hosts the HTTP engine fetches from: a limit of requests at once per host,
``Retry-After`` honoured (a 429 or 503 answer holds the host until then), and robots.txt obeyed.

One `Politeness` is shared by every task of a process (a batch runs hundreds of tasks against the
same few hosts); a task alone uses one of its own. Pure bookkeeping: the fetching is the caller's
(`http_fetch.Fetcher`), so robots.txt is fetched the same way, under the same network policy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from email.utils import parsedate_to_datetime
from urllib.robotparser import RobotFileParser

#: Requests in flight to one host at once (a browser opens about six connections per host).
PER_HOST = 4
#: The longest ``Retry-After`` waited for; a host asking for more fails the request (HTTP_ERROR).
MAX_RETRY_AFTER_S = 30.0
#: How many times one request is sent again after a 429/503 with a ``Retry-After`` it may wait for.
MAX_RETRIES = 3
#: The product token matched against robots.txt's ``User-agent`` lines.
ROBOTS_AGENT = "curllm"

#: ``await fetch_text(url)`` -> (status, text) of robots.txt.
RobotsFetch = Callable[[str], Awaitable[tuple[int, str]]]


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delta seconds or an HTTP date); None when absent
    or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class Politeness:
    """Per-host request slots, holds after ``Retry-After``, and each origin's robots.txt (read once)."""

    def __init__(self, per_host: int = PER_HOST, *, robots: bool = True):
        self.per_host = per_host
        self.robots = robots
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._held_until: dict[str, float] = {}
        self._rules: dict[str, RobotFileParser | None] = {}
        self._reading: dict[str, asyncio.Task] = {}

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        """One of the host's request slots, after any hold its ``Retry-After`` asked for."""
        semaphore = self._slots.setdefault(host, asyncio.Semaphore(self.per_host))
        async with semaphore:
            while (wait := self._held_until.get(host, 0.0) - time.monotonic()) > 0:
                await asyncio.sleep(wait)
            yield

    def hold(self, host: str, seconds: float) -> None:
        """No request to ``host`` for ``seconds`` (what its ``Retry-After`` said)."""
        until = time.monotonic() + seconds
        if until > self._held_until.get(host, 0.0):
            self._held_until[host] = until

    async def allowed(self, url: str, origin: str, fetch: RobotsFetch) -> bool:
        """Whether robots.txt of ``origin`` (scheme://host[:port]) lets `ROBOTS_AGENT` fetch ``url``.
        A robots.txt that is missing (4xx) allows everything; a server error (5xx) allows nothing
        (RFC 9309, 2.3.1.4). A host that cannot be reached at all is left to the page's own request,
        which then fails saying why (robots.txt is read again next time)."""
        if not self.robots:
            return True
        if origin not in self._rules:
            reading = self._reading.get(origin)
            if reading is None:
                reading = asyncio.ensure_future(self._read(origin, fetch))
                self._reading[origin] = reading
            try:
                rules = await asyncio.shield(reading)
            except Exception:  # no connection, refused, timed out
                self._reading.pop(origin, None)
                return True
            self._rules[origin] = rules
            self._reading.pop(origin, None)
        rules = self._rules[origin]
        return True if rules is None else rules.can_fetch(ROBOTS_AGENT, url)

    async def _read(self, origin: str, fetch: RobotsFetch) -> RobotFileParser | None:
        parser = RobotFileParser()
        status, text = await fetch(origin + "/robots.txt")
        if 400 <= status < 500:
            return None
        if status >= 500:
            parser.parse(["User-agent: *", "Disallow: /"])
            return parser
        parser.parse(text.splitlines())
        return parser
