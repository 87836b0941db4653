"""HTTP errors: every failure is ``{"error": {"code", "message"}}`` with a fitting status, never a traceback.

`HTTPError` is a `CurllmError` with a status; `status_for` gives the status of any other curllm error
(bad input 400, a task no plan can be made for 422, a refused target 403, no browser 503).
"""

from __future__ import annotations

from ..errors import (
    BrowserError,
    CurllmError,
    ManifestError,
    PlanError,
    PlanningError,
    PolicyError,
    RequestError,
    ToolNotFound,
    UsageError,
)


class HTTPError(CurllmError):
    """A request refused by the server itself (bad body, no token, busy, too large)."""

    code = RequestError.code
    status = 400

    def __init__(self, status: int, *, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message, code=code)
        self.status = status
        self.headers = headers or {}


def bad_request(message: str) -> HTTPError:
    return HTTPError(400, code=RequestError.code, message=message)


def status_for(error: CurllmError) -> int:
    """The HTTP status of a curllm error raised before or instead of a result."""
    if isinstance(error, HTTPError):
        return error.status
    if isinstance(error, PlanningError):
        return 422
    if isinstance(error, UsageError | PlanError | ManifestError | ToolNotFound):
        return 400
    if isinstance(error, PolicyError):
        return 403
    if isinstance(error, BrowserError):
        return 503
    return 500


def error_body(*, code: str, message: str, problems: list[dict] | None = None) -> dict:
    """The JSON of every error response; ``problems`` (each with its place) for a plan that fails the check."""
    error: dict = {"code": code, "message": message}
    if problems:
        error["problems"] = problems
    return {"error": error}
