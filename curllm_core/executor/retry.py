"""Trying again: the one retry loop of curllm, and its write-safety rule.

Every call that may be tried again goes through `attempt`: a step's tool, its fallback, a map item's
sub-step and a map item's page. A failure is tried again when it is transient (its class says so:
timeouts, navigation and server errors) and attempts remain, after a backoff that doubles each time
(at most 2 s). A write tool that ran is never tried again: it may have submitted something already
(`may_have_written`); failing to open the page first (the tool never ran) is retried as usual.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..clock import elapsed_ms
from ..errors import is_transient
from ..manifest import Manifest

T = TypeVar("T")

#: The longest wait between two attempts.
MAX_BACKOFF_S = 2.0


@dataclass(kw_only=True)
class Tried(Generic[T]):
    """What trying took: the value, or the last failure; how many attempts; how long in all."""

    value: T | None = None
    error: Exception | None = None
    attempts: int
    duration_ms: int


def may_have_written(manifest: Manifest, *, ran: bool) -> bool:
    """Whether a failed call of ``manifest`` may have changed something already: a write tool
    (``effects: write``) that ran (``ran``: it had its page, or needs none)."""
    return manifest.effects == "write" and ran


async def attempt(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff_s: float,
    wrote: Callable[[], bool] = lambda: False,
) -> Tried[T]:
    """``call()`` until it succeeds, or fails for good: not transient, ``retries`` used up, or
    ``wrote()`` (asked after a failure: `may_have_written`). Never raises what ``call`` raises: the
    failure is the result's ``error``."""
    started = time.perf_counter()
    tries = 0
    while True:
        tries += 1
        try:
            value = await call()
        except Exception as e:  # every failure is the result's, never an escape
            if wrote() or not is_transient(e) or tries > retries:
                return Tried(error=e, attempts=tries, duration_ms=elapsed_ms(started))
            await asyncio.sleep(min(backoff_s * 2 ** (tries - 1), MAX_BACKOFF_S))
            continue
        return Tried(value=value, attempts=tries, duration_ms=elapsed_ms(started))
