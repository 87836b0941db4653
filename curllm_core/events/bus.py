"""Step events: ``{"type": init|url_start|step|url_complete|consent|engine|complete|error, "data": {...}}``.

The events themselves are typed objects (types.py). An `EventBus` fans every event out to its
sinks: a JSONL writer (``--events FILE|-``), a Python callback, or an async queue (the CLI adds its
live terminal view, `curllm_core.cli.sinks`). Events carry previews, never page HTML, and sinks do
constant, small work per event so that they never slow the steps down.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any

from ..jsonsafe import clean, dumps
from ..scrub import scrub_data
from .types import Event, ForwardedEvent, StepEvent

if TYPE_CHECKING:
    from ..result import Result

EVENT_TYPES = ("init", "url_start", "step", "url_complete", "consent", "engine", "complete", "error")
PREVIEW_CHARS = 400
PREVIEW_ITEMS = 3

log = logging.getLogger("curllm.events")


def events_schema() -> dict:
    """The published JSON Schema of one event (``events.schema.json`` beside the plan schema)."""
    from ..manifest import manifests_dir  # only for the schema's readers (tests, docs)

    return json.loads((manifests_dir() / "events.schema.json").read_text(encoding="utf-8"))


def preview(value: Any, limit: int = PREVIEW_CHARS) -> Any:
    """A compact, bounded summary of a tool result: lists cut to a few items, long strings cut."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, list):
                out[k] = {"count": len(v), "first": [preview(x, 120) for x in v[:PREVIEW_ITEMS]]}
            else:
                out[k] = preview(v, 120)
        text = dumps(out, default=str)
        return out if len(text) <= limit else {"summary": text[: limit - 1] + "…"}
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    if isinstance(value, list):
        return {"count": len(value), "first": [preview(x, 120) for x in value[:PREVIEW_ITEMS]]}
    return value


Sink = Callable[[dict], None]


def preview_text(value: Any, limit: int = PREVIEW_CHARS) -> str | None:
    """A tool result as one compact JSON string of at most ``limit`` characters (None stays None).

    Every list becomes ``{"count": N, "first": [its first 3 items]}`` and every string longer than
    120 characters is cut with "…"; the JSON, without spaces, is cut with "…" when longer than
    ``limit``. Nothing is wrapped in a summary object: the string never holds escaped JSON.
    """
    if value is None:
        return None
    text = dumps(_bounded(value), separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(value: Any, depth: int = 0) -> Any:
    """``value`` with lists cut to a few items and long strings cut (for `preview_text`)."""
    if depth > 8:  # deeper than any preview shows within its limit
        return "…"
    if isinstance(value, dict):
        return {str(k): _bounded(v, depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple):
        return {"count": len(value), "first": [_bounded(x, depth + 1) for x in value[:PREVIEW_ITEMS]]}
    if isinstance(value, str) and len(value) > 120:
        return value[:119] + "…"
    return value


#: Rewards of step events (docs/results-and-events.md#rewards): a failed tool call costs this much.
FAILED_STEP_REWARD = -0.25


class EventBus:
    """Sends events to sinks. A sink that raises is dropped with a warning, never the task.

    Emitters build the typed events of `event_types`; the bus numbers step events (``step_number``:
    the event's place among the session's step events, 0, 1, 2, ... whatever emitted them), and every
    sink gets the event's JSON (`Event.to_dict`), made once, with known secrets scrubbed.
    """

    def __init__(self, sinks: list[Sink] | None = None):
        self.sinks: list[Sink] = list(sinks or [])
        self.sequence = 0

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)

    def emit(self, event: Event | str, data: Mapping[str, Any] | None = None) -> dict:
        """Send ``event`` to every sink and return its JSON.

        ``emit(type, data)`` sends an event given as JSON as it is (a tool's ``ctx.emit``, the
        events a Ray worker sent back): it is neither numbered nor checked here.
        """
        if isinstance(event, str):
            event = ForwardedEvent(type_=event, data=dict(data or {}))
        elif isinstance(event, StepEvent) and event.step_number is None:
            event.step_number, self.sequence = self.sequence, self.sequence + 1
        # Known secrets (API keys, session cookies) never reach a sink, whatever a model echoed; what
        # a tool emitted from a page is cleaned (no lone surrogates, no infinite numbers).
        doc = clean(scrub_data(event.to_dict()))
        for sink in list(self.sinks):
            try:
                sink(doc)
            except Exception as e:  # a broken sink (closed pipe, user callback bug) must not stop the task
                self.sinks.remove(sink)
                log.warning("event sink %r disabled: %s: %s", sink, type(e).__name__, e)
        return doc


def with_result(event: dict, result: Result) -> dict:
    """A ``complete`` event's JSON with the whole Result as ``data["result"]`` (astream, HTTP stream)."""
    return {"type": event["type"], "data": {**event["data"], "result": result.to_dict()}}


class JsonlSink:
    """One JSON object per line; flushed per event so a killed run keeps what it reported."""

    def __init__(self, stream: IO[str], close: bool = False):
        self.stream, self._close = stream, close

    def __call__(self, event: dict) -> None:
        self.stream.write(dumps(event, default=str) + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._close:
            self.stream.close()


class QueueSink:
    """Feeds an asyncio.Queue, for ``async for event in ...`` consumers."""

    def __init__(self, queue: asyncio.Queue):
        self.queue = queue

    def __call__(self, event: dict) -> None:
        self.queue.put_nowait(event)
