"""The executor with fake tools and no browser: piping, defaults, retries, timeouts, fallbacks, events."""

from __future__ import annotations

import asyncio

import pytest

from curllm_core.api import execute_plan
from curllm_core.errors import NavigationError, PlanError
from curllm_core.events import EventBus
from curllm_core.executor import RunOptions, execute
from curllm_core.plan import check_plan, normalise_plan
from curllm_core.registry import Registry
from curllm_core.tool import tool

CALLS: dict[str, int] = {}


def _count(name: str) -> int:
    CALLS[name] = CALLS.get(name, 0) + 1
    return CALLS[name]


@tool(category="extraction", produces=["products"], dependencies=[], timeout_ms=2000)
async def make_items(ctx, count: int = 3, price: float = 10.0) -> dict:
    """Produce some items."""
    return {"products": [{"name": f"item {i}", "price": price * (i + 1)} for i in range(count)]}


@tool(category="validation", consumes=["products"], produces=["products"], dependencies=[])
async def double(ctx) -> dict:
    """Double every price."""
    return {"products": [dict(p, price=p["price"] * 2) for p in ctx.data["products"]], "note": "doubled"}


@tool(category="extraction", produces=["products"], dependencies=[], timeout_ms=100)
async def hangs(ctx) -> dict:
    """Never finishes."""
    await asyncio.sleep(30)
    return {}


@tool(category="extraction", produces=["products"], dependencies=[])
async def flaky(ctx, fail_times: int = 2) -> dict:
    """Fails with a transient error the first times."""
    if _count("flaky") <= fail_times:
        raise NavigationError("connection reset")
    return {"products": [{"name": "late", "price": 1}]}


@tool(category="extraction", produces=["products"], dependencies=[])
async def broken(ctx) -> dict:
    """Always raises a plain bug."""
    _count("broken")
    raise ValueError("bad markup")


@tool(
    category="extraction",
    produces=["products"],
    dependencies=[],
    output_schema={
        "type": "object",
        "required": ["products"],
        "properties": {"products": {"type": "array", "items": {"type": "object", "required": ["name"]}}},
    },
)
async def wrong_shape(ctx) -> dict:
    """Returns items that violate its own output schema."""
    return {"products": [{"title": "no name"}]}


@tool(category="extraction", produces=["articles"], dependencies=[])
async def make_articles(ctx) -> dict:
    """Produce articles."""
    return {"articles": [{"title": "a"}]}


@tool(category="extraction", produces=["products"], dependencies=[])
async def nothing(ctx) -> dict:
    """Finds nothing."""
    return {"products": []}


@pytest.fixture
def registry() -> Registry:
    from curllm_core.manifest import manifests_dir

    CALLS.clear()
    r = Registry()
    r.register(manifests_dir() / "validation")
    for t in (make_items, double, hangs, flaky, broken, wrong_shape, make_articles, nothing):
        r.register(t, source="test")
    return r


def plan(*steps, expected="products", **extra) -> dict:
    return {
        "plan": [s if isinstance(s, dict) else {"tool": s} for s in steps],
        "expected_output": expected,
        **extra,
    }


async def run(doc: dict, registry: Registry, events: list | None = None, **options):
    bus = EventBus([events.append]) if events is not None else None
    opts = RunOptions(backoff_s=0.001, **options)
    checked = check_plan(normalise_plan(doc, registry), registry, initial_keys=set(opts.data))
    return await execute(checked, registry, opts, events=bus)


async def test_data_is_piped_and_only_produced_keys_are_merged(registry):
    result = await run(plan({"tool": "make_items", "parameters": {"count": 2}}, "double"), registry)
    assert result.ok
    assert [p["price"] for p in result.data["products"]] == [20.0, 40.0]
    assert "note" not in result.data  # not declared in produces: stays in the step result
    assert result.steps[1].result["note"] == "doubled"


async def test_defaults_are_filled_in_the_checked_plan(registry):
    doc = plan("make_items")
    assert check_plan(doc, registry).steps[0].parameters == {}  # the check reports, never rewrites
    checked = check_plan(normalise_plan(doc, registry), registry)
    assert checked.steps[0].parameters == {"count": 3, "price": 10.0}
    assert checked.steps[0].tool == "extraction.make_items" and doc == plan("make_items")
    result = await run(plan("make_items", {"tool": "price_range_check", "parameters": {"max": 20}}), registry)
    assert result.plan["plan"][1]["parameters"] == {
        "max": 20,
        "mode": "filter",
        "key": "products",
        "keep_unpriced": False,
    }
    assert [p["price"] for p in result.data["products"]] == [10.0, 20.0]


async def test_transient_errors_are_retried(registry):
    result = await run(plan({"tool": "flaky", "parameters": {"fail_times": 2}}), registry)
    assert result.ok and result.steps[0].attempts == 3


async def test_retries_are_bounded(registry):
    result = await run(plan({"tool": "flaky", "parameters": {"fail_times": 5}, "retries": 1}), registry)
    assert not result.ok and result.steps[0].attempts == 2
    assert result.steps[0].error == "NavigationError: connection reset"


async def test_bugs_are_not_retried(registry):
    result = await run(plan("broken"), registry)
    assert CALLS["broken"] == 1
    assert result.steps[0].error == "ValueError: bad markup"
    assert result.errors[0]["code"] == "TOOL_FAILED"


async def test_a_hanging_tool_times_out(registry):
    result = await run(plan({"tool": "hangs", "retries": 0}), registry)
    assert not result.ok
    assert result.steps[0].error.startswith("StepTimeout: extraction.hangs did not finish within 100 ms")
    assert result.steps[0].duration_ms < 1000


async def test_step_timeout_overrides_the_manifest(registry):
    result = await run(plan({"tool": "hangs", "retries": 0, "timeout_ms": 50}), registry)
    assert "within 50 ms" in result.steps[0].error


async def test_the_whole_task_timeout_keeps_results_so_far(registry):
    result = await run(
        plan("make_items", {"tool": "hangs", "timeout_ms": 5000, "retries": 0}), registry, timeout_s=0.2
    )
    assert not result.ok
    assert result.errors[-1]["code"] == "TASK_TIMEOUT"
    assert len(result.data["products"]) == 3


async def test_fallback_order_step_fallback_then_plan_fallback(registry):
    result = await run(plan({"tool": "broken", "fallback": "wrong_shape"}, fallback="make_items"), registry)
    assert result.ok
    assert [(s.tool, s.success, s.fallback_for) for s in result.steps] == [
        ("extraction.broken", False, None),
        ("extraction.wrong_shape", False, "extraction.broken"),
        ("extraction.make_items", True, "extraction.broken"),
    ]
    assert len(result.data["products"]) == 3


async def test_plan_fallback_only_for_a_step_producing_the_same_keys(registry):
    result = await run(
        plan("make_articles", {"tool": "broken"}, expected="products", fallback="make_articles"), registry
    )
    assert not result.ok  # make_articles produces articles, not the products the broken step was for
    assert [s.tool for s in result.steps] == ["extraction.make_articles", "extraction.broken"]


async def test_output_schema_violation_fails_the_step(registry):
    result = await run(plan({"tool": "wrong_shape", "retries": 3}), registry)
    assert not result.ok and result.steps[0].attempts == 1
    assert "OutputInvalid" in result.steps[0].error and "/products/0" in result.steps[0].error


async def test_optional_step_failure_does_not_fail_the_plan(registry):
    result = await run(plan({"tool": "broken", "optional": True}, "make_items"), registry)
    assert result.ok
    assert result.errors[0]["optional"] is True
    assert [s.success for s in result.steps] == [False, True]


async def test_a_failed_step_stops_the_plan(registry):
    result = await run(plan("broken", "make_items"), registry)
    assert not result.ok and len(result.steps) == 1


async def test_input_takes_a_named_step_output(registry):
    doc = plan(
        {"tool": "make_items", "id": "first", "parameters": {"count": 1}},
        {"tool": "make_items", "parameters": {"count": 4}},
        {"tool": "double", "input": "first"},
    )
    result = await run(doc, registry)
    assert result.data["products"] == [{"name": "item 0", "price": 20.0}]


async def test_empty_expected_output_is_not_ok(registry):
    result = await run(plan("nothing"), registry)
    assert not result.ok and result.errors[0]["code"] == "EMPTY_OUTPUT"


async def test_validation_fail_mode_fails_the_plan(registry):
    result = await run(
        plan({"tool": "price_range_check", "parameters": {"max": 15, "mode": "fail"}}),
        registry,
        data={"products": [{"name": "a", "price": 10}, {"name": "b", "price": 20}]},
    )
    assert not result.ok
    assert "1 of 2 items are outside the price range" in result.steps[0].error


async def test_required_fields_filter(registry):
    data = {"products": [{"name": "a", "price": 1}, {"name": " ", "price": 2}, {"name": "c", "price": None}]}
    result = await run(
        plan({"tool": "required_fields", "parameters": {"fields": ["name", "price"]}}), registry, data=data
    )
    assert result.data["products"] == [{"name": "a", "price": 1}]
    assert [r["missing"] for r in result.steps[0].result["validation"]["rejected"]] == [["name"], ["price"]]


async def test_price_strings_are_parsed_by_the_price_check(registry):
    pytest.importorskip("curllm_core.prices")
    data = {"products": [{"name": "a", "price": "129,99 zł"}, {"name": "b", "price": "1 299,00 zł"}]}
    result = await run(plan({"tool": "price_range_check", "parameters": {"max": 150}}), registry, data=data)
    assert [p["name"] for p in result.data["products"]] == ["a"]


async def test_no_browser_is_started_for_data_only_plans(registry, monkeypatch):
    monkeypatch.setenv("CURLLM_BROWSER", "/nonexistent/chromium")
    result = await run(plan("make_items", "double"), registry)
    assert result.ok and result.timings["browser_ms"] == 0


async def test_a_page_step_without_url_fails_clearly(registry):
    from curllm_core.manifest import Manifest

    r = registry
    page_tool = Manifest.from_dict(
        {**make_items.manifest.to_dict(), "name": "needs_page", "dependencies": ["playwright", "page"]},
        source="test",
    )
    r.add(page_tool, impl=make_items)
    result = await run(plan("needs_page"), r)
    assert not result.ok and result.errors[0]["code"] == "NO_URL"
    assert "no URL was given" in result.steps[0].error
    assert "--url" not in result.steps[0].error  # the executor serves library callers too


async def test_event_sequence_and_fields(registry):
    events: list[dict] = []
    bus = EventBus([events.append])
    result = await execute_plan(
        plan({"tool": "make_items", "parameters": {"count": 50}}, "broken"), registry=registry, events=bus
    )
    assert not result.ok
    types = [(e["type"], e["data"].get("action"), e["data"].get("status")) for e in events]
    assert types == [
        ("init", None, None),
        ("step", "agent_decision", "completed"),
        ("step", "tool_call", "running"),
        ("step", "tool_call", "completed"),
        ("step", "tool_call", "running"),
        ("step", "tool_call", "failed"),
        ("complete", None, None),
    ]
    decision = events[1]["data"]
    assert [c["tool"] for c in decision["extracted_data"]["tool_calls"]] == [
        "extraction.make_items",
        "extraction.broken",
    ]
    assert set(decision["extracted_data"]["tool_calls"][0]) == {"tool", "params", "reasoning"}
    done = events[3]["data"]
    assert set(done) >= {
        "step_number",
        "action",
        "url",
        "status",
        "message",
        "extracted_data",
        "duration_ms",
        "timestamp",
    }
    # step_number: the place among the session's step events; plan_index: the plan step.
    assert [e["data"]["step_number"] for e in events if e["type"] == "step"] == list(range(5))
    assert done["step_number"] == 2 and done["plan_index"] == 1 and done["timestamp"].endswith("Z")
    preview = done["extracted_data"]["result_preview"]
    assert isinstance(preview, str) and len(preview) <= 400 and '"count":50' in preview
    # Both plan steps produce the expected products: each may earn half; the broken one costs 0.25.
    assert done["reward"] == 0.5 and events[5]["data"]["reward"] == -0.25
    assert set(done["extracted_data"]) >= {"tool", "success", "result_preview", "error", "duration_ms"}
    failed = events[5]["data"]["extracted_data"]
    assert failed["success"] is False and failed["error"] == "ValueError: bad markup"
    assert events[-1]["data"]["ok"] is False


async def test_a_broken_event_sink_does_not_stop_the_task(registry, caplog):
    def sink(event):
        raise OSError("pipe closed")

    result = await execute_plan(plan("make_items"), registry=registry, on_event=sink)
    assert result.ok
    assert any("event sink" in r.getMessage() and "disabled" in r.getMessage() for r in caplog.records)


async def test_result_contract_keys(registry):
    result = await run(plan("make_items"), registry)
    doc = result.to_dict()
    assert set(doc) >= {"ok", "data", "steps", "errors", "plan", "timings"}
    assert set(doc["steps"][0]) >= {"tool", "success", "result", "error", "duration_ms", "attempts"}


def test_invalid_plan_lists_every_problem_and_runs_nothing(registry):
    doc = plan(
        {"tool": "nope"},
        {"tool": "double"},
        {"tool": "make_items", "parameters": {"count": "x"}},
        expected="tables",
    )
    with pytest.raises(PlanError) as info:
        check_plan(doc, registry)
    pointers = {(p.step, p.pointer) for p in info.value.problems}
    assert pointers == {
        (0, "/plan/0/tool"),
        (1, "/plan/1/tool"),
        (2, "/plan/2/parameters/count"),
        (None, "/expected_output"),
    }


def test_sync_run_with_a_plan_document(registry):
    import curllm_core

    result = curllm_core.run(plan=plan("make_items", "double"), registry=registry)
    assert result.ok and len(result.data["products"]) == 3


async def test_astream_yields_events_then_the_result(registry):
    from curllm_core.api import astream

    events = [e async for e in astream(plan=plan("make_items"), registry=registry)]
    assert events[0]["type"] == "init" and events[-1]["type"] == "complete"
    assert events[-1]["data"]["result"]["data"]["products"][0]["name"] == "item 0"


def test_terminal_view_prints_one_line_per_finished_step(registry, capsys):
    from curllm_core.cli.sinks import TerminalSink
    from curllm_core.events import StepEvent, ToolCall

    bus = EventBus([TerminalSink()])
    call = ToolCall(tool="extraction.make_items", params={})
    bus.emit(StepEvent(plan_index=1, status="running", message="x: starting", details=call))
    done = ToolCall(tool="extraction.make_items", params={}, success=True, duration_ms=12, attempts=1)
    message = "extraction.make_items: 3 products"
    bus.emit(StepEvent(plan_index=1, status="completed", message=message, details=done, duration_ms=12))
    err = capsys.readouterr().err
    assert "✓ extraction.make_items: 3 products" in err and "starting" not in err
