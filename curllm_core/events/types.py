"""The events of a run: one small typed object per event type of ``events.schema.json``.

Emitters build these objects and hand them to `EventBus.emit` (bus.py), which numbers step events,
stamps the time and gives every sink the JSON of `to_dict()`: ``{"type": ..., "data": {...}}``,
exactly as docs/results-and-events.md documents each field (and in its key order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from ..result import ErrorEntry, entries_json

if TYPE_CHECKING:
    from ..result import Result


def now_iso() -> str:
    """The time an event is emitted: UTC, ISO 8601 with milliseconds and ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True, kw_only=True)
class Event:
    """The base: ``type`` names the event; ``timestamp`` is set when it is emitted."""

    type: ClassVar[str] = ""
    timestamp: str | None = None

    def fields(self) -> dict[str, Any]:
        """The event's ``data`` without its timestamp."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": {**self.fields(), "timestamp": self.timestamp or now_iso()}}


@dataclass(slots=True, kw_only=True)
class InitEvent(Event):
    """A run starts: where, what it asks, who plans (and the number of steps of a given plan)."""

    type: ClassVar[str] = "init"
    url: str | None
    instruction: str | None
    planner: str
    steps: int | None = None

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"url": self.url, "instruction": self.instruction, "planner": self.planner}
        if self.steps is not None:
            data["steps"] = self.steps
        return data


@dataclass(slots=True, kw_only=True)
class UrlStartEvent(Event):
    """A page is about to be opened (the start page, and every page visited after it)."""

    type: ClassVar[str] = "url_start"
    url: str

    def fields(self) -> dict[str, Any]:
        return {"url": self.url}


@dataclass(slots=True, kw_only=True)
class UrlCompleteEvent(Event):
    """That page opened (``title``, unless the page did not say it in time) or failed to (``error``)."""

    type: ClassVar[str] = "url_complete"
    url: str
    duration_ms: int
    title: str | None = None
    error: str | None = None

    def fields(self) -> dict[str, Any]:
        if self.error is not None:
            return {"url": self.url, "status": "failed", "error": self.error, "duration_ms": self.duration_ms}
        data: dict[str, Any] = {"url": self.url, "status": "completed", "duration_ms": self.duration_ms}
        if self.title is not None:
            data["title"] = self.title
        return data


@dataclass(slots=True, kw_only=True)
class ToolCall:
    """The ``extracted_data`` of a ``tool_call`` step event: the call, and once it ended, its outcome.

    ``success`` is None while the tool runs. The registry-helper pattern's keys (``tool_name``,
    ``tool_description``, ``parameters``, ``result``) sit next to curllm's own.
    """

    tool: str
    params: dict
    tool_description: str = ""
    choice: dict | None = None  # the page chose this tool (markup.Choice.report())
    success: bool | None = None
    result_preview: str | None = None  # `events.preview_text` of the output, on success
    error: str | None = None
    duration_ms: int | None = None
    attempts: int | None = None
    optional: bool = False  # a failure that may happen (an optional step, an undone submit)
    map_item: dict | None = None  # one item of a map step: {"index", "of", "url"} (executor/mapping.py)

    def to_dict(self) -> dict[str, Any]:
        helper = {
            "tool_name": self.tool,
            "tool_description": self.tool_description,
            "parameters": self.params,
            "result": self.result_preview if self.success else None,
        }
        if self.success is None:
            doc: dict[str, Any] = {"tool": self.tool, "params": self.params, **helper}
        else:
            doc = {
                "tool": self.tool,
                "success": self.success,
                "result_preview": self.result_preview if self.success else None,
                "error": self.error,
                "duration_ms": self.duration_ms,
                "attempts": self.attempts,
                "params": self.params,
                **helper,
            }
            if self.optional and not self.success:
                doc["optional"] = True
        if self.choice:
            doc["choice"] = self.choice
        if self.map_item is not None:
            doc["map_item"] = self.map_item
        return doc


@dataclass(slots=True, kw_only=True)
class PlanDecision:
    """The ``extracted_data`` of an ``agent_decision`` step event: the plan's tool calls, or (with
    ``error``) a model that gave no plan, so that the rule planner takes over."""

    planner: str | None
    tool_calls: list[dict] | None = None  # {"tool", "params", "reasoning"} per step
    expected_output: str | None = None
    error: str | None = None  # the model's failure
    replan: int | None = None  # a revised plan: the round, the failed step, its first step
    after_step: int | None = None
    first_step: int | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.error is not None:
            return {"planner": self.planner, "error": self.error}
        doc: dict[str, Any] = {
            "tool_calls": self.tool_calls or [],
            "planner": self.planner,
            "expected_output": self.expected_output,
        }
        if self.replan is not None:
            doc.update(replan=self.replan, after_step=self.after_step, first_step=self.first_step)
        return doc


@dataclass(slots=True, kw_only=True)
class ConsentEvent(Event):
    """A consent dialog was answered (or left) as ``--consent`` says (`consent.ConsentAction`)."""

    type: ClassVar[str] = "consent"
    action: str
    mode: str
    url: str
    button: str = ""
    reason: str = ""
    frame: bool = False

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "mode": self.mode, "url": self.url}
        if self.button:
            data["button"] = self.button
        if self.reason:
            data["reason"] = self.reason
        if self.frame:
            data["frame"] = True
        return data


@dataclass(slots=True, kw_only=True)
class EngineEvent(Event):
    """The engine a task runs on (``--engine``): ``http`` or ``browser``, chosen by ``auto`` or given,
    and why; ``switched_from`` is the engine left when ``auto`` goes back to the browser."""

    type: ClassVar[str] = "engine"
    engine: str
    reason: str
    url: str | None = None
    switched_from: str | None = None

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"engine": self.engine, "reason": self.reason, "url": self.url}
        if self.switched_from:
            data["switched_from"] = self.switched_from
        return data


@dataclass(slots=True, kw_only=True)
class StepEvent(Event):
    """The plan decision (``PlanDecision``) or a tool call (``ToolCall``).

    ``plan_index`` is the plan step it reports on (0: the decision); ``step_number``, its place
    among the session's step events, is given by the bus that emits it.
    """

    type: ClassVar[str] = "step"
    plan_index: int
    status: str  # running | completed | failed
    message: str
    details: ToolCall | PlanDecision
    url: str | None = None
    duration_ms: int | None = None
    reward: float = 0.0
    step_number: int | None = None

    @property
    def action(self) -> str:
        return "tool_call" if isinstance(self.details, ToolCall) else "agent_decision"

    def fields(self) -> dict[str, Any]:
        return {
            "step_number": self.step_number if self.step_number is not None else 0,
            "plan_index": self.plan_index,
            "action": self.action,
            "url": self.url,
            "status": self.status,
            "message": self.message,
            "extracted_data": self.details.to_dict(),
            "duration_ms": self.duration_ms,
            "reward": round(float(self.reward), 6),
        }


@dataclass(slots=True, kw_only=True)
class CompleteEvent(Event):
    """The run ended: its outcome and its output, so that a stream alone carries the answer."""

    type: ClassVar[str] = "complete"
    ok: bool
    url: str | None
    items: int
    key: str | None
    errors: list[ErrorEntry]
    duration_ms: int | None
    data: dict
    extracted_data: dict
    metadata: dict  # ok, url, counts (items per list in data), planner, timings
    result: dict | None = None  # the whole Result: astream and the HTTP stream only

    @classmethod
    def of(cls, result: Result) -> CompleteEvent:
        key, items = result.items()
        return cls(
            ok=result.ok,
            url=result.url,
            items=len(items),
            key=key,
            errors=list(result.errors),
            duration_ms=result.timings.get("total_ms"),
            data=result.data,
            extracted_data={key: items} if key else {},
            metadata={
                "ok": result.ok,
                "url": result.url,
                "counts": {k: len(v) for k, v in result.data.items() if isinstance(v, list)},
                "planner": (result.plan or {}).get("planner") or "given",
                "timings": dict(result.timings),
            },
        )

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": self.ok,
            "url": self.url,
            "items": self.items,
            "key": self.key,
            "errors": entries_json(self.errors),
            "duration_ms": self.duration_ms,
            "data": self.data,
            "extracted_data": self.extracted_data,
            "metadata": self.metadata,
        }
        if self.result is not None:
            data["result"] = self.result
        return data


@dataclass(slots=True, kw_only=True)
class ErrorEvent(Event):
    """A run that could not start (planning, the check) or, where the stream says so, that failed:
    the first error entry's keys, and ``errors`` (every entry) for a failed run."""

    type: ClassVar[str] = "error"
    entry: ErrorEntry
    errors: list[ErrorEntry] | None = None

    def fields(self) -> dict[str, Any]:
        data = self.entry.to_dict()
        if self.errors is not None:
            data["errors"] = entries_json(self.errors)
        return data


@dataclass(slots=True, kw_only=True)
class ForwardedEvent(Event):
    """An event that arrives as JSON, passed on as it is: a tool's ``ctx.emit(type, data)``, or
    the events a Ray worker sent back (numbered there)."""

    type_: str
    data: dict = field(default_factory=dict)

    def fields(self) -> dict[str, Any]:
        return {k: v for k, v in self.data.items() if k != "timestamp"}

    def to_dict(self) -> dict[str, Any]:
        stamp = self.timestamp or self.data.get("timestamp") or now_iso()
        return {"type": self.type_, "data": {**self.fields(), "timestamp": stamp}}
