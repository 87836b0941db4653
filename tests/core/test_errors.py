"""The error tree: the class is the category and owns the code; the executor decides by class."""

from __future__ import annotations

import pickle

import pytest

from curllm_core import errors
from curllm_core.errors import (
    BrowserError,
    BrowserNotFound,
    CurllmError,
    ElementNotFound,
    HTTPServerError,
    HTTPStatusError,
    InputError,
    NavigationError,
    NavigationRefused,
    PageUnavailable,
    PlanningError,
    PolicyError,
    SSRFBlocked,
    ToolError,
    http_status_error,
    is_transient,
)
from curllm_core.events import EventBus
from curllm_core.executor import RunOptions, execute
from curllm_core.plan import check_plan
from curllm_core.registry import Registry
from curllm_core.tool import tool


def _classes() -> list[type[CurllmError]]:
    return [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, CurllmError)]


def test_every_class_is_one_category_with_its_exit_code():
    for cls in _classes():
        if cls is CurllmError:
            continue
        families = [f for f in (InputError, PlanningError, errors.RunError) if issubclass(cls, f)]
        assert families, f"{cls.__name__} is in no family"
        if issubclass(cls, InputError):
            assert cls.exit_code == 2, cls
        elif issubclass(cls, PlanningError):
            assert cls.exit_code == 3, cls
        else:
            assert cls.exit_code == 1, cls
    # a missing browser is bad set-up (exit 2) and a browser error (HTTP 503 from the server)
    assert issubclass(BrowserNotFound, BrowserError) and BrowserNotFound.exit_code == 2


def test_codes_are_owned_by_classes_and_distinct_where_they_mean_different_things():
    assert SSRFBlocked("x").code == "SSRF_BLOCKED_URL" and isinstance(SSRFBlocked("x"), PolicyError)
    assert http_status_error(404, "gone").code == "HTTP_ERROR"
    assert ElementNotFound("x").code == "ELEMENT_NOT_FOUND"
    assert errors.FieldNotFound("x").code == "FIELD_NOT_FOUND"
    # a third-party tool keeps its own code
    assert ToolError("x", code="MY_OWN").code == "MY_OWN" and ToolError("y").code == "TOOL_FAILED"


def test_transient_is_a_class_attribute():
    assert is_transient(NavigationError("reset")) and not is_transient(NavigationRefused("no such host"))
    assert isinstance(http_status_error(503, "busy"), HTTPServerError) and is_transient(
        http_status_error(503, "busy")
    )
    gone = http_status_error(404, "gone")
    assert type(gone) is HTTPStatusError and not is_transient(gone) and gone.status == 404
    assert not is_transient(ToolError("bug")) and not is_transient(ValueError("bug"))

    class Flaky(Exception):  # a third-party exception declaring itself transient
        transient = True

    assert is_transient(Flaky())


@pytest.mark.parametrize(
    "error",
    [SSRFBlocked("blocked"), http_status_error(502, "bad gateway"), ToolError("x", code="MY_OWN")],
)
def test_errors_survive_pickling(error):
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and again.code == error.code and again.message == error.message
    assert getattr(again, "status", None) == getattr(error, "status", None)


CALLS: list[str] = []


@tool(category="extraction", produces=["products"], dependencies=[])
async def refused(ctx) -> dict:
    """The page is refused: a fallback would meet the same wall."""
    CALLS.append("refused")
    raise PolicyError("blocked URL https://x.example/")


@tool(category="extraction", produces=["products"], dependencies=[])
async def missing(ctx) -> dict:
    """Nothing to click."""
    CALLS.append("missing")
    raise ElementNotFound("nothing shows the text")


@tool(category="extraction", produces=["products"], dependencies=[])
async def backup(ctx) -> dict:
    """The fallback."""
    CALLS.append("backup")
    return {"products": [{"name": "a"}]}


@tool(category="forms", produces=[], dependencies=[], effects="write")
async def submits(ctx) -> dict:
    """A write tool whose failure is transient: never run twice."""
    CALLS.append("submits")
    raise http_status_error(503, "busy")


async def _run(doc: dict):
    registry = Registry()
    for t in (refused, missing, backup, submits):
        registry.register(t, source="test")
    CALLS.clear()
    plan = check_plan(doc, registry)
    return await execute(plan, registry, RunOptions(backoff_s=0.001), events=EventBus())


async def test_a_page_unavailable_failure_gets_no_fallback_a_tool_failure_does():
    result = await _run({"plan": [{"tool": "refused", "fallback": "backup"}]})
    assert CALLS == ["refused"] and not result.ok
    assert isinstance(result.steps[0].failure, PageUnavailable) and result.errors[0]["code"] == "BLOCKED_URL"
    assert "failure" not in result.steps[0].to_dict()

    result = await _run({"plan": [{"tool": "missing", "fallback": "backup"}]})
    assert CALLS == ["missing", "backup"] and result.ok
    assert result.steps[0].to_dict()["code"] == "ELEMENT_NOT_FOUND"


async def test_a_write_tool_that_ran_is_not_retried_even_when_transient():
    result = await _run({"plan": [{"tool": "submits", "retries": 2}]})
    assert CALLS == ["submits"] and result.steps[0].attempts == 1 and result.steps[0].code == "HTTP_ERROR"


def test_require_page_names_the_tool_from_its_manifest():
    from curllm_core.errors import NoPage
    from curllm_core.tool import ToolContext
    from curllm_core.toolkit import require_page

    ctx = ToolContext(manifest=backup.manifest)
    with pytest.raises(NoPage, match=r"^extraction\.backup needs a browser page"):
        require_page(ctx)
    assert require_page(ToolContext(page="the page")) == "the page"
