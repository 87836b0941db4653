"""Events of a run: the typed events (types.py) and the bus that sends them to sinks (bus.py).

``{"type": init|url_start|step|url_complete|consent|engine|complete|error, "data": {...}}``: every name is
importable from ``curllm_core.events``.
"""

from __future__ import annotations

from .bus import (
    EVENT_TYPES,
    FAILED_STEP_REWARD,
    PREVIEW_CHARS,
    PREVIEW_ITEMS,
    EventBus,
    JsonlSink,
    QueueSink,
    Sink,
    events_schema,
    preview,
    preview_text,
    with_result,
)
from .types import (
    CompleteEvent,
    ConsentEvent,
    EngineEvent,
    ErrorEvent,
    Event,
    ForwardedEvent,
    InitEvent,
    PlanDecision,
    StepEvent,
    ToolCall,
    UrlCompleteEvent,
    UrlStartEvent,
    now_iso,
)

__all__ = [
    "EVENT_TYPES",
    "FAILED_STEP_REWARD",
    "PREVIEW_CHARS",
    "PREVIEW_ITEMS",
    "CompleteEvent",
    "ConsentEvent",
    "EngineEvent",
    "ErrorEvent",
    "Event",
    "EventBus",
    "ForwardedEvent",
    "InitEvent",
    "JsonlSink",
    "PlanDecision",
    "QueueSink",
    "Sink",
    "StepEvent",
    "ToolCall",
    "UrlCompleteEvent",
    "UrlStartEvent",
    "events_schema",
    "now_iso",
    "preview",
    "preview_text",
    "with_result",
]
