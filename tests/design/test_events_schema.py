"""Streams from the CLI, the Python API and astream validate field by field against the published
event schema (tools_manifests/events.schema.json, documented in docs/results-and-events.md)."""

from __future__ import annotations

import asyncio
import json

import pytest
from jsonschema import Draft202012Validator

from curllm_core.events import events_schema

from .stream_checks import assert_every_page_reported, validate
from .test_design_plans import FILTER_PLAN, ROOT, curllm, env, shop  # noqa: F401 - fixtures

PRODUCTS = json.loads((ROOT / "examples" / "plans" / "products.json").read_text(encoding="utf-8"))
CHECK_PLAN = json.loads((ROOT / "examples" / "plans" / "check_products.json").read_text(encoding="utf-8"))


def test_the_schema_is_valid_and_every_type_is_covered():
    from curllm_core.events import EVENT_TYPES

    Draft202012Validator.check_schema(events_schema())
    assert events_schema()["properties"]["type"]["enum"] == list(EVENT_TYPES)


def test_a_bad_event_is_refused():
    validator = Draft202012Validator(events_schema())
    bad = {"type": "step", "data": {"step_number": 0, "action": "tool_call"}}
    assert any("reward" in e.message for e in validator.iter_errors(bad))


def test_the_api_stream_validates():
    import curllm_core

    events: list[dict] = []
    result = curllm_core.run(
        plan={k: v for k, v in CHECK_PLAN.items() if k != "$schema"}, data=PRODUCTS, on_event=events.append
    )
    assert result.ok
    validate(events)
    complete = events[-1]["data"]
    assert complete["data"] == result.data and complete["metadata"]["counts"] == {"products": 2}
    assert complete["extracted_data"] == {"products": result.data["products"]}
    done = [e["data"] for e in events if e["type"] == "step" and e["data"]["status"] == "completed"]
    # The plan's two steps both produce the expected products: each earns half of the task's 1.0.
    assert sum(d["reward"] for d in done) == 1.0


def test_astream_validates():
    from curllm_core.api import astream

    async def collect() -> list[dict]:
        plan = {k: v for k, v in CHECK_PLAN.items() if k != "$schema"}
        return [e async for e in astream(plan=plan, data=PRODUCTS)]

    events = asyncio.run(collect())
    validate(events)
    assert events[-1]["type"] == "complete" and "result" in events[-1]["data"]


def test_astream_ends_a_refused_plan_with_an_error_event_then_raises():
    from curllm_core.api import astream
    from curllm_core.errors import PlanError

    events: list[dict] = []

    async def collect() -> None:
        plan = {"plan": [{"tool": "validation.no_such_tool"}], "expected_output": "products"}
        async for event in astream(plan=plan, data=PRODUCTS):
            events.append(event)

    with pytest.raises(PlanError):
        asyncio.run(collect())
    validate(events)
    error = events[-1]["data"]
    assert events[-1]["type"] == "error" and error["code"] == "BAD_PLAN"
    # The problems one line each, as the CLI's error event and a batch line give them.
    assert error["problems"] and any("no_such_tool" in p for p in error["problems"])


def test_the_cli_emits_an_error_event_for_a_refused_plan(env, tmp_path):  # noqa: F811
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "plan": [{"tool": "forms.price_filter", "parameters": {"max": 1}}],
                "expected_output": "products",
            }
        )
    )
    done = curllm("--plan", str(plan), "--events", "-", env=env)
    assert done.returncode == 2
    events = [json.loads(line) for line in done.stdout.splitlines()]
    validate(events)
    assert events[-1]["type"] == "error" and events[-1]["data"]["code"] == "BAD_PLAN"


def test_the_cli_ends_a_failed_run_with_an_error_event_after_complete(env, tmp_path):  # noqa: F811
    plan = tmp_path / "plan.json"
    step = {"tool": "validation.price_range_check", "parameters": {"max": 150, "mode": "fail"}}
    plan.write_text(json.dumps({"plan": [step], "expected_output": "products"}))
    data = tmp_path / "data.json"
    data.write_text(json.dumps(PRODUCTS))
    done = curllm("--plan", str(plan), "--input", str(data), "--events", "-", env=env)
    assert done.returncode == 1
    events = [json.loads(line) for line in done.stdout.splitlines()]  # only event lines
    validate(events)
    complete, error = events[-2:]
    assert complete["type"] == "complete" and not complete["data"]["ok"]
    assert error["type"] == "error" and error["data"]["errors"] == complete["data"]["errors"]
    assert error["data"]["code"] == complete["data"]["errors"][0]["code"] and error["data"]["step"] == 1
    failed = [e["data"] for e in events if e["type"] == "step" and e["data"]["status"] == "failed"]
    assert [d["reward"] for d in failed] == [-0.25]


def test_events_on_stdout_never_share_it_with_a_plan(env, tmp_path):  # noqa: F811
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({k: v for k, v in CHECK_PLAN.items() if k != "$schema"}))
    data = tmp_path / "data.json"
    data.write_text(json.dumps(PRODUCTS))
    done = curllm("--plan", str(plan), "--input", str(data), "--plan-only", "--events", "-", env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert "--plan-only prints the plan on stdout" in done.stderr and "-o FILE" in done.stderr
    out = tmp_path / "plan-out.json"
    done = curllm(
        "--plan", str(plan), "--input", str(data), "--plan-only", "--events", "-", "-o", str(out), env=env
    )
    assert done.returncode == 0 and done.stdout == "" and json.loads(out.read_text())["plan"]


@pytest.mark.browser
def test_the_cli_stream_validates_and_reports_every_page(shop, env, tmp_path, browser_path):  # noqa: F811
    serve, url = shop
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(FILTER_PLAN))
    done = curllm("--plan", str(plan), "--url", url, "--events", "-", env=env)
    assert done.returncode == 0, done.stderr
    # Only event lines on stdout: the result is in the complete event, not mixed into the stream.
    events = [json.loads(line) for line in done.stdout.splitlines()]
    validate(events)
    assert_every_page_reported(events)
    opened = [e["data"]["url"] for e in events if e["type"] == "url_complete"]
    # The start page, the page the filter's submit loaded, the filtered listing's second page.
    assert len(opened) == 3 and "price_max=150" in opened[1] and "strona=2" in opened[2], opened
    complete = events[-1]["data"]
    expected = sorted(p["name"] for p in serve.select_products(price_max=150))
    assert sorted(p["name"] for p in complete["data"]["products"]) == expected
    assert complete["metadata"]["counts"]["products"] == len(expected)
    calls = [e["data"]["extracted_data"] for e in events if e["data"].get("action") == "tool_call"]
    assert all(c["tool_name"] == c["tool"] and c["tool_description"] for c in calls)
    out = tmp_path / "out.json"
    done = curllm("--plan", str(plan), "--url", url, "--events", "-", "-o", str(out), env=env)
    assert done.returncode == 0 and json.loads(out.read_text())["data"] == complete["data"]


def test_the_docs_list_every_field_and_their_examples_validate():
    """Drift: every field the schema names, of every event type (a tool call's extracted_data and the
    complete event's metadata included), has its row with a type in docs/results-and-events.md, and
    every event example there validates."""
    doc = (ROOT / "docs" / "results-and-events.md").read_text(encoding="utf-8")
    defs = events_schema()["$defs"]
    rows = {line for line in doc.splitlines() if line.startswith("| `")}
    missing = []
    for kind in ("init", "url_start", "url_complete", "error"):
        for name in defs[kind]["properties"]:
            if name != "timestamp" and not any(r.startswith(f"| `{kind}` | `{name}` |") for r in rows):
                missing.append(f"{kind}.{name}")
    tool_call = defs["step"]["then"]["properties"]["extracted_data"]["properties"]
    for name in [*defs["step"]["properties"], *defs["complete"]["properties"], *tool_call]:
        if name != "timestamp" and not any(r.startswith(f"| `{name}` |") for r in rows):
            missing.append(name)
    for name in defs["complete"]["properties"]["metadata"]["required"]:
        if f"`{name}`" not in doc:
            missing.append(f"metadata.{name}")
    assert missing == [], f"fields missing from docs/results-and-events.md: {missing}"
    examples = [json.loads(line) for line in doc.splitlines() if line.startswith('{"type": ')]
    assert len(examples) >= 6
    validator = Draft202012Validator(events_schema())
    for event in examples:
        assert not [e.message for e in validator.iter_errors(event)], event["type"]
