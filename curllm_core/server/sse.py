"""Server-sent events: one message per curllm event, and responses that stop work the client left.

A message is ``event: <type>`` and ``data: <the event as one JSON line>`` — exactly the line
``--events`` writes — then a blank line. `EventStream` sends them as they come, a comment every
15 s while nothing happens (so proxies keep the connection open), and cancels the task the moment
the client disconnects. `until_disconnect` does the same for a request answered all at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any, TypeVar

from ..jsonsafe import dumps

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
T = TypeVar("T")
log = logging.getLogger("curllm.server")

KEEPALIVE_S = 15.0


def sse_message(event: dict) -> bytes:
    """One SSE message for one event. The JSON has no raw newline, so it is a single ``data:`` line."""
    line = dumps(event, default=str)
    return f"event: {event['type']}\ndata: {line}\n\n".encode()


class ClientGone(Exception):
    """The client disconnected before the answer was ready."""


async def _wait_for_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def until_disconnect(receive: Receive, work: Awaitable[T]) -> T:
    """Await ``work``; if the client disconnects first, cancel it (awaiting its clean-up) and raise ClientGone."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_wait_for_disconnect(receive))
    try:
        done, _ = await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        watcher.cancel()
    if task in done:
        return task.result()
    task.cancel()
    await asyncio.wait({task})
    raise ClientGone()


class EventStream:
    """An ASGI ``text/event-stream`` response over an async iterator of events."""

    media_type = "text/event-stream"

    def __init__(self, events: AsyncIterator[dict], headers: dict[str, str] | None = None):
        self.events = events
        self.headers = {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",  # nginx: do not buffer the stream
            **(headers or {}),
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lock = asyncio.Lock()  # the pump and the keep-alive never interleave their messages

        async def emit(body: bytes, more: bool = True) -> None:
            async with lock:
                await send({"type": "http.response.body", "body": body, "more_body": more})

        async def pump() -> None:
            try:
                async for event in self.events:
                    await emit(sse_message(event))
                await emit(b"", more=False)
            finally:
                # Cancelled between two events, the iterator still holds the task: close it so that
                # its clean-up (cancel the task, close its browser context) runs now.
                await self.events.aclose()  # type: ignore[attr-defined]

        async def keepalive() -> None:
            while True:
                await asyncio.sleep(KEEPALIVE_S)
                await emit(b": keep-alive\n\n")

        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(k.encode(), v.encode()) for k, v in self.headers.items()],
            }
        )
        pumping = asyncio.ensure_future(pump())
        watcher = asyncio.ensure_future(_wait_for_disconnect(receive))
        pinger = asyncio.ensure_future(keepalive())
        try:
            await asyncio.wait({pumping, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            pinger.cancel()
            if not pumping.done():
                pumping.cancel()
            await asyncio.wait({pumping})
        if not pumping.cancelled() and pumping.exception() is not None:
            # The events carry their own errors; what is left here is the connection failing mid-send.
            log.debug("event stream ended early: %r", pumping.exception())
