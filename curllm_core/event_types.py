"""The typed events under their first import address, kept for plugins written against it.

The events live in `curllm_core.events` (also offered to tool authors by `curllm_core.toolkit`).
"""

from __future__ import annotations

from .events.types import (
    CompleteEvent,
    ConsentEvent,
    ErrorEvent,
    Event,
    ForwardedEvent,
    InitEvent,
    PlanDecision,
    StepEvent,
    ToolCall,
    UrlCompleteEvent,
    UrlStartEvent,
)

__all__ = [
    "CompleteEvent",
    "ConsentEvent",
    "ErrorEvent",
    "Event",
    "ForwardedEvent",
    "InitEvent",
    "PlanDecision",
    "StepEvent",
    "ToolCall",
    "UrlCompleteEvent",
    "UrlStartEvent",
]
