"""One task's events as an async stream: the pump behind `api.astream` and the server's event streams.

`task_events` runs the task with an `EventBus` of its own and yields each event as it is emitted;
the last, ``complete``, also carries ``data["result"]`` (the whole Result). A task that ends without
its ``complete`` event (an error before it ran, a bug) ends the stream with what ``ended`` makes of
its exception. Closing the stream early cancels the task and waits (a few seconds at most) for it to
close its browser context.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING

from .bus import EventBus, QueueSink, with_result

if TYPE_CHECKING:
    from ..result import Result

#: How long closing a stream early waits for its cancelled task to clean up.
CANCEL_WAIT_S = 5.0


async def task_events(
    run: Callable[[EventBus], Awaitable[Result]],
    *,
    ended: Callable[[BaseException | None], dict | None],
    reraise: bool = False,
) -> AsyncGenerator[dict, None]:
    """Yield the events of ``run(bus)`` as they happen.

    When the task ends without a ``complete`` event, the events still queued are yielded, then
    ``ended(exception)`` (None: the task was cancelled) when it returns an event; with ``reraise``
    the exception is raised after it.
    """
    queue: asyncio.Queue = asyncio.Queue()
    task = asyncio.ensure_future(run(EventBus([QueueSink(queue)])))
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                event = getter.result()
                if event["type"] == "complete":
                    yield with_result(event, await task)
                    return
                yield event
                continue
            getter.cancel()
            while not queue.empty():
                yield queue.get_nowait()
            failure = None if task.cancelled() else task.exception()
            last = ended(failure)
            if last is not None:
                yield last
            if reraise and failure is not None:
                raise failure
            return
    finally:
        if not task.done():
            task.cancel()
            # The execution closes its browser context on the way out; wait for that.
            await asyncio.wait({task}, timeout=CANCEL_WAIT_S)
