"""Step events: ``{"type": init|url_start|step|url_complete|complete|error, "data": {...}}``.

An `EventBus` fans every event out to its sinks: a JSONL writer (``--events FILE|-``), a Python
callback, or an async queue (the CLI adds its live terminal view, `curllm_core.cli.sinks`). Events carry previews, never page
HTML, and sinks do constant, small work per event so that they never slow the steps down.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import IO, Any

EVENT_TYPES = ("init", "url_start", "step", "url_complete", "complete", "error")
PREVIEW_CHARS = 400
PREVIEW_ITEMS = 3

log = logging.getLogger("curllm.events")


def events_schema() -> dict:
    """The published JSON Schema of one event (``events.schema.json`` beside the plan schema)."""
    from .manifest import manifests_dir

    return json.loads((manifests_dir() / "events.schema.json").read_text(encoding="utf-8"))


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def preview(value: Any, limit: int = PREVIEW_CHARS) -> Any:
    """A compact, bounded summary of a tool result: lists cut to a few items, long strings cut."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, list):
                out[k] = {"count": len(v), "first": [preview(x, 120) for x in v[:PREVIEW_ITEMS]]}
            else:
                out[k] = preview(v, 120)
        text = json.dumps(out, ensure_ascii=False, default=str)
        return out if len(text) <= limit else {"summary": text[: limit - 1] + "…"}
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    if isinstance(value, list):
        return {"count": len(value), "first": [preview(x, 120) for x in value[:PREVIEW_ITEMS]]}
    return value


Sink = Callable[[dict], None]


def preview_text(value: Any, limit: int = PREVIEW_CHARS) -> str | None:
    """`preview` as one compact JSON string of at most ``limit`` characters (None stays None)."""
    if value is None:
        return None
    text = json.dumps(preview(value, limit), ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Rewards of step events (docs/results-and-events.md#rewards): a failed tool call costs this much.
FAILED_STEP_REWARD = -0.25


class EventBus:
    """Sends events to sinks. A sink that raises is dropped with a warning, never the task.

    Step events are numbered here: ``step_number`` is the event's place among the session's step
    events (0, 1, 2, ... whatever emitted them), ``plan_index`` the plan step it reports on.
    """

    def __init__(self, sinks: list[Sink] | None = None):
        self.sinks: list[Sink] = list(sinks or [])
        self.sequence = 0

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)

    def emit(self, type_: str, data: Mapping[str, Any]) -> dict:
        from .scrub import scrub_data

        # Known secrets (API keys, session cookies) never reach a sink, whatever a model echoed.
        event = scrub_data({"type": type_, "data": {**data, "timestamp": data.get("timestamp") or now_iso()}})
        for sink in list(self.sinks):
            try:
                sink(event)
            except Exception as e:  # a broken sink (closed pipe, user callback bug) must not stop the task
                self.sinks.remove(sink)
                log.warning("event sink %r disabled: %s: %s", sink, type(e).__name__, e)
        return event

    def step(
        self,
        step_number: int,
        action: str,
        status: str,
        message: str,
        *,
        url: str | None = None,
        extracted_data: dict | None = None,
        duration_ms: int | None = None,
        reward: float = 0.0,
    ) -> dict:
        """A step event; ``step_number`` given here is the plan index (0: the plan decision)."""
        details = dict(extracted_data or {})
        if action == "tool_call" and "tool" in details:
            # The registry-helper pattern's keys, next to curllm's own.
            details.setdefault("tool_name", details["tool"])
            details.setdefault("tool_description", "")
            details.setdefault("parameters", details.get("params", {}))
            details.setdefault("result", details.get("result_preview"))
        number, self.sequence = self.sequence, self.sequence + 1
        return self.emit(
            "step",
            {
                "step_number": number,
                "plan_index": step_number,
                "action": action,
                "url": url,
                "status": status,
                "message": message,
                "extracted_data": details,
                "duration_ms": duration_ms,
                "reward": round(float(reward), 6),
            },
        )


class JsonlSink:
    """One JSON object per line; flushed per event so a killed run keeps what it reported."""

    def __init__(self, stream: IO[str], close: bool = False):
        self.stream, self._close = stream, close

    def __call__(self, event: dict) -> None:
        self.stream.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
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
