"""One error hierarchy. Every error has a stable ``code`` and a message that says what to do next.

The CLI maps the families to exit codes: bad input (manifest, plan, options, missing browser) is 2,
a planning failure is 3. Errors raised *inside* a running task (a tool failing, a page that does not
load, a URL the network policy refuses) never escape the executor: they become a failed step result,
and the task's result is not ok (exit 1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a document: where (file, step, JSON pointer) and why."""

    message: str
    pointer: str = ""
    source: str = ""
    step: int | None = None

    def __str__(self) -> str:
        where = [p for p in (self.source, self.pointer) if p]  # /plan/N/... names the step (0-based)
        return f"{': '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict:
        return {"message": self.message, "pointer": self.pointer, "source": self.source, "step": self.step}


class CurllmError(Exception):
    """Base of every error curllm raises on purpose."""

    code = "CURLLM_ERROR"
    exit_code = 1

    def __init__(self, message: str, *, code: str | None = None, problems: list[Problem] | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.problems: list[Problem] = list(problems or [])

    def __str__(self) -> str:
        if not self.problems:
            return self.message
        return self.message + "".join(f"\n  - {p}" for p in self.problems)

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "problems": [p.to_dict() for p in self.problems],
        }


class UsageError(CurllmError):
    """Bad options or arguments."""

    code = "BAD_USAGE"
    exit_code = 2


class ManifestError(CurllmError):
    """A manifest file is unreadable or invalid."""

    code = "BAD_MANIFEST"
    exit_code = 2


class PlanError(CurllmError):
    """A plan document is unreadable or fails the check; nothing has run."""

    code = "BAD_PLAN"
    exit_code = 2


class PlanningError(CurllmError):
    """No plan could be made for an instruction."""

    code = "PLANNING_FAILED"
    exit_code = 3


class TaskTimeout(CurllmError):
    """The task's time limit ran out (while planning; the executor records it in the result)."""

    code = "TASK_TIMEOUT"


class ToolError(CurllmError):
    """A tool failed while running (turned into a failed step result by the executor)."""

    code = "TOOL_FAILED"


class ToolNotFound(CurllmError):
    code = "UNKNOWN_TOOL"
    exit_code = 2


class BrowserError(CurllmError):
    """The browser could not be started or a page could not be opened."""

    code = "BROWSER_ERROR"


class BrowserNotFound(BrowserError):
    code = "BROWSER_NOT_FOUND"
    exit_code = 2


class NavigationError(BrowserError):
    """A page failed to load (HTTP status >= 400, DNS failure, timeout). Retried when ``transient``."""

    code = "NAVIGATION_FAILED"
    transient = True
    status: int | None = None


class PolicyError(CurllmError):
    """A URL refused by the network policy (``BLOCKED_URL``, ``SSRF_BLOCKED_URL``)."""

    code = "BLOCKED_URL"


class StepTimeout(ToolError):
    code = "STEP_TIMEOUT"
    transient = True


class OutputInvalid(ToolError):
    code = "OUTPUT_INVALID"


class SubmitFailed(ToolError):
    """A form, sort or search submit landed on an HTTP error or a browser error page.

    ``undone`` is true when the tool took the page back to where it was: the executor then reports
    the step as a failed optional step and the plan goes on.
    """

    code = "SUBMIT_FAILED"
    undone = False
