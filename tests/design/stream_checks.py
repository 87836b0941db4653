"""Checks of an event stream against the published schema (tools_manifests/events.schema.json),
shared by the tests of every stream: the CLI, the API, astream, batch and the server's SSE."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from curllm_core.events import events_schema


def validate(events: list[dict]) -> None:
    """Every event validates field by field; step_number is the sequence of the session's step events."""
    validator = Draft202012Validator(events_schema())
    assert events, "an empty stream proves nothing"
    for event in events:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(event)]
        assert not errors, (event["type"], errors)
    steps = [e["data"]["step_number"] for e in events if e["type"] == "step"]
    assert steps == list(range(len(steps))), "step_number: the sequence index of the session's step events"


def assert_every_page_reported(events: list[dict]) -> None:
    """Every page the run was on has its url_start, then its url_complete (a step's ``url`` is the
    page it ran on): none is left out, none left open."""
    opened: list[str] = []
    waiting: str | None = None
    for event in events:
        data = event["data"]
        if event["type"] == "url_start":
            assert waiting is None, f"{data['url']} started before {waiting} completed"
            waiting = data["url"]
        elif event["type"] == "url_complete":
            assert waiting is not None, f"{data['url']} completed without its url_start"
            waiting = None
            opened.append(data["url"])
    assert waiting is None, f"{waiting} never completed"
    visited = {e["data"]["url"] for e in events if e["type"] == "step" and e["data"]["action"] == "tool_call"}
    assert visited - {None} <= set(opened) | {events[0]["data"]["url"]}, (visited, opened)


def assert_complete_carries_the_output(complete: dict, result: dict) -> None:
    """The complete event's data, extracted_data and metadata say what the result says."""
    assert complete["ok"] == result["ok"] and complete["data"] == result["data"]
    key = complete["key"]
    assert complete["extracted_data"] == ({key: result["data"][key]} if key else {})
    counts = {k: len(v) for k, v in result["data"].items() if isinstance(v, list)}
    assert complete["metadata"]["counts"] == counts and complete["metadata"]["ok"] == result["ok"]
    assert complete["errors"] == result["errors"]
