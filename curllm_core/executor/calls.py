"""One tool call: the tool run under its time limit, its output checked, its failure described.

`call_tool` is one attempt (its output cleaned: `jsonsafe.clean`); trying again is `retry.attempt`'s. `describe` and `error_code` say what
a failure was, the same for a step, a fallback, a map item and a nested ``ctx.run_tool``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..clock import elapsed_ms
from ..errors import CurllmError, OutputInvalid, StepOverrun, StepTimeout, ToolError
from ..jsonsafe import clean, clean_text
from ..manifest import Manifest

# A step that returns later than this past its limit held the event loop: it does not count.
OVERRUN_GRACE_MS = 250


def describe(exc: BaseException) -> str:
    """``Type: message``, the form every step error takes."""
    if isinstance(exc, CurllmError):
        return clean_text(f"{type(exc).__name__}: {exc.message}")
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else "(no message)"
    return clean_text(f"{type(exc).__name__}: {text}")


def error_code(exc: BaseException) -> str:
    """The code of a failure: the error's own, else that of a tool failure."""
    return exc.code if isinstance(exc, CurllmError) else ToolError.code


_validators: dict[int, Any] = {}


def _output_validator(manifest: Manifest):
    from jsonschema import Draft202012Validator  # only when a tool has run (a cheap import then)

    key = id(manifest.output_schema)
    if key not in _validators:
        _validators[key] = Draft202012Validator(manifest.output_schema)
    return _validators[key]


async def call_tool(manifest: Manifest, run: Callable[[], Awaitable[Any]], timeout_ms: int) -> dict:
    """One attempt: ``run()`` (the tool called with its context and parameters) under the time limit,
    its output checked against the manifest's ``output_schema``."""
    started = time.perf_counter()
    try:
        output = await asyncio.wait_for(run(), timeout_ms / 1000)
        took = elapsed_ms(started)
    except TimeoutError:
        raise StepTimeout(f"{manifest.key} did not finish within {timeout_ms} ms") from None
    if took > timeout_ms + OVERRUN_GRACE_MS:
        # The tool kept the event loop busy (CPU-bound work), so its time limit could not fire:
        # its answer came too late to count, and doing it again would burn as long.
        raise StepOverrun(
            f"{manifest.key} did not finish within {timeout_ms} ms (it took {took} ms of work "
            "that could not be interrupted)"
        )
    if not isinstance(output, dict):
        raise OutputInvalid(f"{manifest.key} returned {type(output).__name__}, not an object")
    output = clean(output)  # page text enters here: no lone surrogates, no infinite numbers
    from ..quick_schema import certainly_valid

    if certainly_valid(manifest.output_schema)(output):
        return output  # certainly valid (`quick_schema`); else jsonschema decides and words the errors
    errors = sorted(
        _output_validator(manifest).iter_errors(output), key=lambda e: list(map(str, e.absolute_path))
    )
    if errors:
        e = errors[0]
        where = "/" + "/".join(map(str, e.absolute_path))
        raise OutputInvalid(
            f"{manifest.key} output does not match its output_schema at {where}: {e.message}"
            + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else "")
        )
    return output
