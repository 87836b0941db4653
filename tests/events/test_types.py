"""The typed events and error entries: each `to_dict()` is the documented JSON and validates
against the published event schema (tools_manifests/events.schema.json)."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from curllm_core.events import (
    EVENT_TYPES,
    CompleteEvent,
    ConsentEvent,
    EngineEvent,
    ErrorEvent,
    EventBus,
    ForwardedEvent,
    InitEvent,
    PlanDecision,
    StepEvent,
    ToolCall,
    UrlCompleteEvent,
    UrlStartEvent,
    events_schema,
)
from curllm_core.result import ErrorEntry, Result, error_entry


def problems(event: dict) -> list[str]:
    return [e.message for e in Draft202012Validator(events_schema()).iter_errors(event)]


def emitted(*events) -> list[dict]:
    got: list[dict] = []
    bus = EventBus([got.append])
    for event in events:
        bus.emit(event)
    return got


def test_one_class_per_event_type_and_each_validates():
    failed = error_entry("HTTP_ERROR", "step 1 failed", step=1, tool="extraction.x")
    result = Result(ok=True, data={"products": [{"name": "a"}]}, plan={"expected_output": "products"})
    events = emitted(
        InitEvent(url="https://shop.example/", instruction="find products", planner="rules"),
        StepEvent(
            plan_index=0,
            status="completed",
            message="plan of 1 step(s)",
            details=PlanDecision(planner="rules", tool_calls=[{"tool": "extraction.x", "params": {}}]),
        ),
        UrlStartEvent(url="https://shop.example/"),
        UrlCompleteEvent(url="https://shop.example/", duration_ms=5, title="Shop"),
        UrlCompleteEvent(url="https://shop.example/2", duration_ms=5, error="HTTP 404"),
        ConsentEvent(action="rejected", mode="reject", url="https://shop.example/", button="Reject all"),
        EngineEvent(
            engine="http",
            reason="every step of the plan can run on the page's HTML",
            url="https://shop.example/",
        ),
        EngineEvent(
            engine="browser", reason="the HTML is a client-rendered shell", url=None, switched_from="http"
        ),
        ConsentEvent(
            action="accepted", mode="reject", url="https://cmp.example/f", reason="blocks", frame=True
        ),
        StepEvent(
            plan_index=1,
            status="running",
            message="extraction.x: starting",
            details=ToolCall(tool="extraction.x", params={"a": 1}, tool_description="X."),
        ),
        StepEvent(
            plan_index=1,
            status="failed",
            message="extraction.x: failed",
            duration_ms=3,
            reward=-0.25,
            details=ToolCall(
                tool="extraction.x", params={"a": 1}, success=False, error="E", duration_ms=3, attempts=1
            ),
        ),
        CompleteEvent.of(result),
        ErrorEvent(entry=failed, errors=[failed]),
    )
    assert {e["type"] for e in events} == set(EVENT_TYPES)
    for event in events:
        assert problems(event) == [], event
    # The bus numbers step events in the order it emits them; the plan index stays the event's own.
    steps = [e["data"] for e in events if e["type"] == "step"]
    assert [(s["step_number"], s["plan_index"]) for s in steps] == [(0, 0), (1, 1), (2, 1)]
    assert events[3]["data"]["status"] == "completed" and events[4]["data"]["status"] == "failed"
    assert events[-1]["data"]["errors"] == [failed.to_dict()]


def test_a_tool_call_carries_the_registry_helper_keys_and_a_compact_preview():
    running = ToolCall(tool="extraction.x", params={"a": 1}, tool_description="X.").to_dict()
    assert list(running) == ["tool", "params", "tool_name", "tool_description", "parameters", "result"]
    assert running["tool_name"] == "extraction.x" and running["parameters"] == {"a": 1}
    assert running["result"] is None
    done = ToolCall(
        tool="extraction.x", params={}, success=True, result_preview='{"n":1}', duration_ms=2, attempts=1
    ).to_dict()
    assert done["result"] == done["result_preview"] == '{"n":1}' and "optional" not in done
    failed = ToolCall(tool="forms.f", params={}, success=False, error="E", optional=True).to_dict()
    assert failed["optional"] is True and failed["result"] is None and failed["result_preview"] is None


def test_the_docs_examples_are_what_the_objects_write():
    """The step examples of docs/results-and-events.md, rebuilt from typed objects, byte for byte."""
    from curllm_core.events import preview_text

    from ..design.test_design_plans import ROOT

    doc = (ROOT / "docs" / "results-and-events.md").read_text(encoding="utf-8")
    examples = [line for line in doc.splitlines() if line.startswith('{"type": "step"')]
    running = StepEvent(
        timestamp="2026-11-21T00:48:33.077Z",
        step_number=2,
        plan_index=2,
        status="running",
        url="file:///work/shop.html?min=&max=50&sort=featured",
        message="extraction.products_generic: extracts products: the instruction asks for products"
        " ('products'); works on any page",
        details=ToolCall(
            tool="extraction.products_generic",
            params={},
            tool_description="Extract the products of any listing page.",
        ),
    )
    preview = preview_text({"products": [{"name": "Espresso cup", "price": 8.5}]})
    completed = StepEvent(
        timestamp="2026-11-21T00:55:57.224Z",
        step_number=3,
        plan_index=1,
        status="completed",
        message="validation.price_range_check: 1 products",
        duration_ms=2,
        reward=1.0,
        details=ToolCall(
            tool="validation.price_range_check",
            params={"max": 50},
            tool_description="Keep the items priced within a range.",
            success=True,
            result_preview=preview,
            duration_ms=2,
            attempts=1,
        ),
    )
    for event in (running, completed):
        assert json.dumps(event.to_dict(), ensure_ascii=False) in examples


def test_a_result_preview_is_the_output_s_own_compact_json_cut_to_400_characters():
    from curllm_core.events import preview_text

    product = {"name": "Słuchawki douszne", "price": 149.99, "url": "https://shop.example/p/" + "x" * 300}
    text = preview_text({"products": [product] * 12, "pages": 2})
    assert text is not None and len(text) <= 400 and text.endswith("…")
    assert text.startswith('{"products":{"count":12,"first":[{"name":"Słuchawki douszne","price":149.99,')
    assert '\\"' not in text and "summary" not in text  # never escaped JSON inside a string
    short = preview_text({"n": 1, "tags": ["a", "b", "c", "d"]})
    assert json.loads(short) == {"n": 1, "tags": {"count": 4, "first": ["a", "b", "c"]}}
    assert preview_text(None) is None


def test_a_forwarded_event_passes_as_given():
    event = ForwardedEvent(type_="url_start", data={"url": "https://a.example/", "timestamp": "T"})
    assert event.to_dict() == {"type": "url_start", "data": {"url": "https://a.example/", "timestamp": "T"}}
    got: list[dict] = []
    bus = EventBus([got.append])
    bus.emit("url_start", {"url": "https://a.example/"})
    assert got[0]["type"] == "url_start" and problems(got[0]) == []


def test_an_error_entry_is_typed_and_reads_like_its_json():
    entry = error_entry("TOOL_FAILED", "step 2 failed", step=2, tool="extraction.x")
    assert isinstance(entry, ErrorEntry) and entry.code == "TOOL_FAILED"
    assert entry.to_dict() == {
        "code": "TOOL_FAILED",
        "message": "step 2 failed",
        "step": 2,
        "tool": "extraction.x",
    }
    assert entry["code"] == "TOOL_FAILED" and entry.get("optional") is None and "recovered" not in entry
    assert entry == entry.to_dict() and dict(entry) == entry.to_dict()
    entry.recovered = True
    assert entry.to_dict()["recovered"] is True and entry["recovered"] is True
    planning = ErrorEntry(code="BAD_PLAN", message="bad", problems=["/plan/0: unknown tool"])
    assert planning.to_dict() == {"code": "BAD_PLAN", "message": "bad", "problems": ["/plan/0: unknown tool"]}
    result = Result(ok=False, errors=[entry])
    assert json.loads(json.dumps(result.to_dict()))["errors"] == [entry.to_dict()]
