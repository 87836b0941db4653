"""Streams from the CLI, the Python API and astream validate field by field against the published
event schema (tools_manifests/events.schema.json, documented in docs/results-and-events.md)."""

from __future__ import annotations

import asyncio
import json

import pytest
from jsonschema import Draft202012Validator

from curllm_core.events import events_schema

from .test_design_plans import FILTER_PLAN, ROOT, curllm, env, shop  # noqa: F401 - fixtures

PRODUCTS = json.loads((ROOT / "examples" / "plans" / "products.json").read_text(encoding="utf-8"))
CHECK_PLAN = json.loads((ROOT / "examples" / "plans" / "check_products.json").read_text(encoding="utf-8"))


def validate(events: list[dict]) -> None:
    validator = Draft202012Validator(events_schema())
    assert events, "an empty stream proves nothing"
    for event in events:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(event)]
        assert not errors, (event["type"], errors)
    steps = [e["data"]["step_number"] for e in events if e["type"] == "step"]
    assert steps == list(range(len(steps))), "step_number: the sequence index of the session's step events"


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
    opened = [e["data"]["url"] for e in events if e["type"] == "url_complete"]
    assert len(opened) == 2 and "strona=2" in opened[1], opened  # the filtered listing's second page
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
    """Drift: every field the schema names for step, tool_call and complete events is documented,
    and every event example in docs/results-and-events.md validates."""
    doc = (ROOT / "docs" / "results-and-events.md").read_text(encoding="utf-8")
    defs = events_schema()["$defs"]
    names = set(defs["step"]["required"]) | set(defs["complete"]["required"])
    names |= set(defs["step"]["then"]["properties"]["extracted_data"]["required"])
    names |= set(defs["complete"]["properties"]["metadata"]["required"])
    missing = sorted(n for n in names if f"`{n}`" not in doc)
    assert missing == [], f"fields missing from docs/results-and-events.md: {missing}"
    examples = [json.loads(line) for line in doc.splitlines() if line.startswith('{"type": ')]
    assert len(examples) >= 6
    validator = Draft202012Validator(events_schema())
    for event in examples:
        assert not [e.message for e in validator.iter_errors(event)], event["type"]
