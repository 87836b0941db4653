"""What a run returns: one `StepResult` per step and the `Result` of the task (the JSON contract)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True, eq=False, kw_only=True)
class ErrorEntry(Mapping[str, Any]):
    """One entry of a result's ``errors`` (docs/results-and-events.md, "Error entries").

    `to_dict()` is its JSON: ``code`` and ``message`` always, the other keys only when they say
    something. It also reads like that JSON (``entry["code"]``, ``entry.get("step")``, equal to
    the dict), so code written against the JSON shape keeps working.
    """

    code: str
    message: str
    step: int | None = None  # for a failed step (from 1)
    tool: str | None = None  # for a failed step
    optional: bool = False  # a failed optional step: does not make the result not ok
    recovered: bool = False  # a revised plan took over after this failure
    problems: list[str] | None = None  # for a plan or planning error, one line each

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.step is not None:
            doc["step"] = self.step
        if self.tool is not None:
            doc["tool"] = self.tool
        if self.optional:
            doc["optional"] = True
        if self.recovered:
            doc["recovered"] = True
        if self.problems is not None:
            doc["problems"] = list(self.problems)
        return doc

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


def entries_json(entries: list[ErrorEntry]) -> list[dict[str, Any]]:
    """The JSON of error entries (an entry given as a plain dict passes as it is)."""
    return [e.to_dict() if isinstance(e, ErrorEntry) else dict(e) for e in entries]


@dataclass(kw_only=True)
class StepResult:
    """``{"tool", "success", "result", "error", "duration_ms", "attempts"}`` plus where it came from."""

    tool: str
    success: bool
    result: dict | None = None
    error: str | None = None
    duration_ms: int = 0
    attempts: int = 0
    step: int = 0
    id: str | None = None
    fallback_for: str | None = None  # set when this tool ran as the fallback of a failed one
    optional: bool = False
    code: str | None = None  # the error code of a failure (e.g. STEP_TIMEOUT, HTTP_ERROR)
    screenshot: str | None = None  # taken when the step failed and --screenshots was given
    #: ``{"planned", "chosen", "reason"}`` when the page's markup (or an empty result) made another
    #: extraction tool run than the plan named (see executor/markup.py)
    choice: dict | None = None
    #: Why the step was not run (an optional page action on the HTTP engine, which has no live page).
    skipped: str | None = None
    #: The exception of a failure, for the executor's and re-planner's decisions (its class is its
    #: category, see errors.py); not part of the JSON.
    failure: BaseException | None = field(default=None, repr=False, compare=False)
    #: The parameters the tool was called with, for the step event; not part of the JSON.
    params: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict:
        doc = {
            "tool": self.tool,
            "success": self.success,
            "result": self.result,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "attempts": self.attempts,
            "step": self.step,
        }
        if self.id is not None:
            doc["id"] = self.id
        if self.fallback_for is not None:
            doc["fallback_for"] = self.fallback_for
        if self.optional:
            doc["optional"] = True
        if self.code is not None:
            doc["code"] = self.code
        if self.screenshot is not None:
            doc["screenshot"] = self.screenshot
        if self.choice is not None:
            doc["choice"] = self.choice
        if self.skipped is not None:
            doc["skipped"] = self.skipped
        return doc


@dataclass
class Result:
    """``{"ok", "data", "steps", "errors", "plan", "timings"}`` (plus ``usage`` when a model planned)."""

    ok: bool
    data: dict = field(default_factory=dict)
    steps: list[StepResult] = field(default_factory=list)
    errors: list[ErrorEntry] = field(default_factory=list)
    plan: dict | None = None
    timings: dict = field(default_factory=dict)
    usage: dict | None = None
    url: str | None = None
    #: What of the instruction was not done ("not done: log in ..."), from the plan.
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        doc: dict[str, Any] = {
            "ok": self.ok,
            "data": self.data,
            "steps": [s.to_dict() for s in self.steps],
            "errors": entries_json(self.errors),
            "plan": self.plan,
            "timings": self.timings,
        }
        if self.usage is not None:
            doc["usage"] = self.usage
        if self.url is not None:
            doc["url"] = self.url
        if self.warnings:
            doc["warnings"] = list(self.warnings)
        from .scrub import scrub_data

        # What a result carries is written (stdout, batch lines, HTTP): known secrets become ***.
        return scrub_data(doc)

    def items(self) -> tuple[str | None, list]:
        """The main item list (the plan's expected output, else the first list in data) for tables."""
        key = (self.plan or {}).get("expected_output")
        if key and isinstance(self.data.get(key), list):
            return key, self.data[key]
        for k, v in self.data.items():
            if isinstance(v, list):
                return k, v
        return None, []


def error_entry(code: str, message: str, *, step: int | None = None, tool: str | None = None) -> ErrorEntry:
    """An error entry; ``step`` and ``tool`` for a failed step."""
    return ErrorEntry(code=code, message=message, step=step, tool=tool)
