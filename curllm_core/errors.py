"""One error hierarchy: the class of an error *is* its category, and each class owns its ``code``.

    CurllmError                      CURLLM_ERROR   the base (exit 1)
    ├── InputError                                  bad input, nothing ran (exit 2)
    │   ├── UsageError               BAD_USAGE      options, arguments, config
    │   │   └── BadURL               BAD_URL        a start URL no browser can open
    │   ├── ManifestError            BAD_MANIFEST
    │   ├── PlanError                BAD_PLAN       a plan that fails the check
    │   ├── ToolNotFound             UNKNOWN_TOOL
    │   ├── BrowserNotFound          BROWSER_NOT_FOUND   (also a BrowserError)
    │   ├── RequestError             BAD_REQUEST    a request the server refuses (its `status`)
    │   │   ├── BadHost              BAD_HOST
    │   │   ├── Unauthorized         UNAUTHORIZED
    │   │   ├── BodyTooLarge         BODY_TOO_LARGE
    │   │   ├── BadContentType       BAD_CONTENT_TYPE
    │   │   ├── BadJSON              BAD_JSON
    │   │   ├── RouteNotFound        NOT_FOUND
    │   │   ├── MethodNotAllowed     METHOD_NOT_ALLOWED
    │   │   └── QueueFull            QUEUE_FULL
    │   └── TaskError                BAD_TASK       one task of a batch: its failed line
    │       ├── BadTaskURL           BAD_URL
    │       ├── BadLine              BAD_LINE
    │       └── DuplicateId          DUPLICATE_ID
    ├── PlanningError                PLANNING_FAILED     no plan for the instruction (exit 3)
    └── RunError                                    while a task runs: a failed step, never an escape
        ├── InternalError            INTERNAL_ERROR a failure nobody expected (a bug), never a traceback
        ├── NoOutput                 NO_OUTPUT      the expected output was not produced
        ├── EmptyOutput              EMPTY_OUTPUT   ... or is empty
        ├── Cancelled                CANCELLED      a batch stopped before the task ended
        ├── WorkerLost               WORKER_LOST    (Ray)
        ├── MissingTool              MISSING_TOOL   (Ray: a worker lacks a tool)
        ├── TaskTimeout              TASK_TIMEOUT
        ├── PageUnavailable                         the page cannot be had: no fallback tool helps
        │   ├── NoURL                NO_URL
        │   ├── PolicyError          BLOCKED_URL    refused by the network policy
        │   │   └── SSRFBlocked      SSRF_BLOCKED_URL
        │   └── BrowserError         BROWSER_ERROR
        │       ├── BrowserLaunchFailed  BROWSER_LAUNCH_FAILED
        │       ├── BrowserCrashed   BROWSER_CRASHED
        │       └── NavigationError  NAVIGATION_FAILED   transient
        │           ├── NavigationRefused                a permanent network error (not transient)
        │           ├── NavigationTimeout  NAVIGATION_TIMEOUT   transient
        │           └── HTTPStatusError    HTTP_ERROR    (4xx; `HTTPServerError` for 5xx is transient)
        └── ToolError                TOOL_FAILED    a tool failed; the step's fallback may help
            ├── StepTimeout          STEP_TIMEOUT   transient
            │   └── StepOverrun                     held the event loop past the limit (not transient)
            ├── OutputInvalid        OUTPUT_INVALID
            ├── MapFailed            MAP_FAILED     every item of a map step failed
            ├── ItemError                           a map item that cannot run (its own failure only)
            ├── BadParams            BAD_PARAMS     a parameter value its schema cannot rule out
            ├── BadSelectors         BAD_SELECTORS  a manifest's `selectors` the engine cannot use
            ├── NoPage               NO_PAGE
            ├── EntrypointImport     ENTRYPOINT_IMPORT
            ├── EntrypointInvalid    ENTRYPOINT_INVALID
            ├── ElementNotFound      ELEMENT_NOT_FOUND
            │   ├── FieldNotFound    FIELD_NOT_FOUND
            │   ├── OptionNotFound   OPTION_NOT_FOUND
            │   └── NoMatch          NO_MATCH
            └── SubmitFailed         SUBMIT_FAILED  a submit landed on an error page
                └── SubmitUndone                    ... and the tool put the page back (undone)

``exit_code`` is what the CLI exits with when the error ends a command. ``transient`` (a class
attribute) says the cause may pass by itself, so the executor tries the step again; it never retries
a write tool that ran (it may have submitted something already). The executor tries a step's
fallback unless the failure is a `PageUnavailable`, and a model re-plans only after a tool failure.

A third-party tool may still raise ``ToolError(message, code=...)`` for a code of its own,
and any exception with ``transient = True`` is retried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


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


def json_pointer(path: Any) -> str:
    """A JSON pointer (RFC 6901) to ``path`` (keys and indexes): ``["plan", 0, "a/b"]`` -> ``/plan/0/a~1b``."""
    return "".join(f"/{str(p).replace('~', '~0').replace('/', '~1')}" for p in path)


class CurllmError(Exception):
    """Base of every error curllm raises on purpose."""

    code = "CURLLM_ERROR"
    exit_code: ClassVar[int] = 1
    #: The cause may pass by itself (a timeout, a server error): worth another attempt.
    transient: ClassVar[bool] = False

    def __init__(self, message: str, *, code: str | None = None, problems: list[Problem] | None = None):
        super().__init__(message)
        self.message = message
        if code:  # a third-party tool's own code; curllm's own errors take their class's
            self.code = code
        self.problems: list[Problem] = list(problems or [])

    def __str__(self) -> str:
        if not self.problems:
            return self.message
        return self.message + "".join(f"\n  - {p}" for p in self.problems)

    def __reduce__(self):  # picklable with its keyword arguments (a batch worker in another process)
        return (_rebuild, (type(self), self.message, self.code, self.problems, dict(self.__dict__)))

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "problems": [p.to_dict() for p in self.problems],
        }


def _rebuild(cls: type[CurllmError], message: str, code: str, problems: list, state: dict) -> CurllmError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    error.message, error.code, error.problems = message, code, list(problems)
    return error


# --- bad input: nothing ran (exit 2) ------------------------------------------------------------


class InputError(CurllmError):
    """Bad input found before anything ran: options, a manifest, a plan, a tool name."""

    exit_code = 2


class UsageError(InputError):
    """Bad options or arguments."""

    code = "BAD_USAGE"


class BadURL(UsageError):
    """A start URL a browser cannot open (not http(s)/file, no host, a bad port)."""

    code = "BAD_URL"


class ManifestError(InputError):
    """A manifest file is unreadable or invalid."""

    code = "BAD_MANIFEST"


class PlanError(InputError):
    """A plan document is unreadable or fails the check; nothing has run."""

    code = "BAD_PLAN"


class ToolNotFound(InputError):
    """No tool by that name, or a bare name more than one category has."""

    code = "UNKNOWN_TOOL"


class TaskError(InputError):
    """What is wrong with one task of a batch; becomes that task's failed line, never stops the batch."""

    code = "BAD_TASK"


class BadTaskURL(TaskError):
    """A task ``url`` a browser cannot open."""

    code = "BAD_URL"


class BadLine(TaskError):
    """A line of a task file that is not a task (not JSON, not an object, nested too deep)."""

    code = "BAD_LINE"


class DuplicateId(TaskError):
    """A task id already used earlier in the batch: that task is not run."""

    code = "DUPLICATE_ID"


class RequestError(InputError):
    """A request the server refuses itself (`curllm serve`); ``status`` is its HTTP status."""

    code = "BAD_REQUEST"
    status: ClassVar[int] = 400


class BadHost(RequestError):
    """A loopback server asked under a name that is not loopback (DNS rebinding)."""

    code = "BAD_HOST"


class Unauthorized(RequestError):
    """No bearer token, or a wrong one."""

    code = "UNAUTHORIZED"
    status = 401


class BodyTooLarge(RequestError):
    """A request body over the server's limit."""

    code = "BODY_TOO_LARGE"
    status = 413


class BadContentType(RequestError):
    """A request body that is not ``application/json``."""

    code = "BAD_CONTENT_TYPE"
    status = 415


class BodyTimeout(RequestError):
    """A request body that did not arrive within the server's time limit."""

    code = "BODY_TIMEOUT"
    status = 408


class BadJSON(RequestError):
    """A request body that is not JSON (or not UTF-8 text)."""

    code = "BAD_JSON"


class RouteNotFound(RequestError):
    """No such route."""

    code = "NOT_FOUND"
    status = 404


class MethodNotAllowed(RequestError):
    """A route asked with a method it does not take."""

    code = "METHOD_NOT_ALLOWED"
    status = 405


class QueueFull(RequestError):
    """Every task slot and queue place of the server is taken: try again later."""

    code = "QUEUE_FULL"
    status = 429


# --- planning (exit 3) ----------------------------------------------------------------------------


class PlanningError(CurllmError):
    """No plan could be made for an instruction."""

    code = "PLANNING_FAILED"
    exit_code = 3


# --- while a task runs: failed steps and error entries (exit 1) ---------------------------------


class RunError(CurllmError):
    """Something went wrong while a task ran; the executor records it in the result."""


class NoOutput(RunError):
    """The plan ran and its ``expected_output`` was not produced."""

    code = "NO_OUTPUT"


class EmptyOutput(RunError):
    """The plan ran and its ``expected_output`` is empty: nothing matched."""

    code = "EMPTY_OUTPUT"


class Cancelled(RunError):
    """A batch's task not run to its end: the batch was stopped (Ctrl-C, a signal)."""

    code = "CANCELLED"


class WorkerLost(RunError):
    """On Ray: the worker running a task died (a task with writes is not run twice)."""

    code = "WORKER_LOST"


class MissingTool(RunError):
    """On Ray: a worker lacks a tool the plan calls (the plugins differ between nodes)."""

    code = "MISSING_TOOL"


class TaskTimeout(RunError):
    """The task's time limit ran out (while planning; the executor records it in the result)."""

    code = "TASK_TIMEOUT"


class PageUnavailable(RunError):
    """The task's page cannot be had at all: a fallback tool would meet the same wall."""


class NoURL(PageUnavailable):
    """A step needs a page but the task has no start URL."""

    code = "NO_URL"


class PolicyError(PageUnavailable):
    """A URL refused by the network policy (a blocked or not-allowed domain or scheme).

    ``host`` is the host refused, when known (to tie a failed navigation to its refusal).
    """

    code = "BLOCKED_URL"

    def __init__(self, message: str, *, host: str | None = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.host = host


class SSRFBlocked(PolicyError):
    """``--block-private``: the host resolves to a non-public address, or cannot be resolved."""

    code = "SSRF_BLOCKED_URL"


class RobotsDisallowed(PageUnavailable):
    """The HTTP engine did not fetch a page its site's robots.txt disallows (the browser engine acts
    for a person, as a browser; the HTTP engine is a crawler)."""

    code = "ROBOTS_DISALLOWED"


class BrowserError(PageUnavailable):
    """The browser could not be started or a page could not be opened."""

    code = "BROWSER_ERROR"


class BrowserNotFound(InputError, BrowserError):
    """No Chromium to start: bad set-up, reported before any step (exit 2)."""

    code = "BROWSER_NOT_FOUND"


class BrowserLaunchFailed(BrowserError):
    """Chromium was found but did not start."""

    code = "BROWSER_LAUNCH_FAILED"


class BrowserCrashed(BrowserError):
    """The shared browser died while a batch's task ran; ``--resume`` runs the task again."""

    code = "BROWSER_CRASHED"


class NavigationError(BrowserError):
    """A page failed to load (DNS, connection, ...); retried, as the network may recover."""

    code = "NAVIGATION_FAILED"
    transient = True
    status: int | None = None  # the HTTP status, for `HTTPStatusError`


class NavigationRefused(NavigationError):
    """A network error that another attempt cannot fix (an unknown host, a refused certificate)."""

    transient = False


class NavigationTimeout(NavigationError):
    """Opening the page took longer than the navigation timeout."""

    code = "NAVIGATION_TIMEOUT"


class HTTPStatusError(NavigationError):
    """The page answered with an HTTP status of 400 or more (a client error: not retried)."""

    code = "HTTP_ERROR"
    transient = False

    def __init__(self, message: str, *, status: int):
        super().__init__(message)
        self.status = status


class HTTPServerError(HTTPStatusError):
    """The page answered with an HTTP status of 500 or more: the server may recover."""

    transient = True


def http_status_error(status: int, message: str) -> HTTPStatusError:
    """The error for a page that answered ``status`` (>= 400): transient for a server error."""
    return (HTTPServerError if status >= 500 else HTTPStatusError)(message, status=status)


class ToolError(RunError):
    """A tool failed while running (turned into a failed step result by the executor)."""

    code = "TOOL_FAILED"


class StepTimeout(ToolError):
    """An attempt exceeded its step's ``timeout_ms``."""

    code = "STEP_TIMEOUT"
    transient = True


class StepOverrun(StepTimeout):
    """An attempt that held the event loop (CPU-bound work) and returned past its ``timeout_ms``:
    its output does not count, and it is not retried (it would burn as long again)."""

    transient = False


class OutputInvalid(ToolError):
    """A tool returned a non-object or an output that fails its ``output_schema``."""

    code = "OUTPUT_INVALID"


class MapFailed(ToolError):
    """Every item of a map step failed (one item's failure only fails that item)."""

    code = "MAP_FAILED"


class ItemError(ToolError):
    """A map item that cannot run: a placeholder naming a field the item lacks, no URL to open, a
    tool that needs a page the map does not open."""


class BadParams(ToolError):
    """A parameter value its schema cannot rule out (an invalid regular expression, ...)."""

    code = "BAD_PARAMS"


class BadSelectors(ToolError):
    """A manifest's ``selectors`` block the layouts engine cannot use."""

    code = "BAD_SELECTORS"


class NoPage(ToolError):
    """A tool that reads the page ran without one."""

    code = "NO_PAGE"


class EntrypointImport(ToolError):
    """A tool's entrypoint module does not import."""

    code = "ENTRYPOINT_IMPORT"


class EntrypointInvalid(ToolError):
    """A tool's entrypoint is neither a `BaseTool` subclass nor an async function."""

    code = "ENTRYPOINT_INVALID"


class ElementNotFound(ToolError):
    """Nothing on the page to act on: no element shows the text."""

    code = "ELEMENT_NOT_FOUND"


class FieldNotFound(ElementNotFound):
    """No such form field on the page."""

    code = "FIELD_NOT_FOUND"


class OptionNotFound(ElementNotFound):
    """No such option in a select."""

    code = "OPTION_NOT_FOUND"


class NoMatch(ElementNotFound):
    """Nothing on the page matches what names it (a table's words, an ordinal past the last)."""

    code = "NO_MATCH"


class SubmitFailed(ToolError):
    """A form, sort or search submit landed on an HTTP error or a browser error page."""

    code = "SUBMIT_FAILED"
    #: The tool took the page back to where it was: the executor then reports the step as a failed
    #: optional step and the plan goes on (`SubmitUndone`).
    undone: ClassVar[bool] = False


class SubmitUndone(SubmitFailed):
    """A submit that broke the page, undone: the page is back as it was."""

    undone = True


class NoEffect(ToolError):
    """A filter, sort or submit after which the page's listing did not change: a failed optional
    step (the validation steps still hold the answer to what was asked)."""

    code = "NO_EFFECT"


class InternalError(RunError):
    """A failure nobody expected (a bug): reported as an error entry or response, never a traceback."""

    code = "INTERNAL_ERROR"


def is_transient(exc: BaseException) -> bool:
    """Worth another attempt: the class says so (or a third-party exception's ``transient``), or a
    Playwright ``TimeoutError``."""
    if getattr(exc, "transient", False):
        return True
    return type(exc).__name__ == "TimeoutError" and type(exc).__module__.startswith("playwright")
