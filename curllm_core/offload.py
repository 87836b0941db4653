"""CPU-bound work on a huge input (a tool parsing a 25 MB page) in a worker process of its own: off
the event loop, and stopped for real at the step's time limit.

A pure function (``extract(html, base_url, ...)``) that parses a page holds the event loop for as long
as it works: on a server every other client waits, and the step's time limit cannot fire until it
returns (a thread would not help: it cannot be stopped, and parsing holds the GIL). `run` calls it in
place when its input is small (most pages: a worker costs a process start, ~0.4 s of CPU), and in a
new process when the input is over `OFF_LOOP_CHARS`; cancelling the call (the executor's time limit,
a client that hangs up) kills that process at once. The function travels by its module and name,
its arguments and its result by pickle, between this process and its own child only.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .errors import ToolError

#: Inputs up to this many characters are worked on in place (a few hundred ms at most).
OFF_LOOP_CHARS = 4_000_000
_LENGTH = 8  # bytes of the length before each message

T = TypeVar("T")


async def run(fn: Callable[..., T], *args: Any, size: int, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: in place when ``size`` (the input's length) is at most
    `OFF_LOOP_CHARS`, else in a worker process that a cancellation kills. ``fn`` must be a
    module-level function; what it raises is raised here (ToolError when it cannot travel)."""
    if size <= OFF_LOOP_CHARS:
        return fn(*args, **kwargs)
    payload = pickle.dumps((fn.__module__, fn.__qualname__, args, kwargs), pickle.HIGHEST_PROTOCOL)
    root = str(Path(__file__).resolve().parent.parent)  # where this curllm_core is imported from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "curllm_core.offload",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(len(payload).to_bytes(_LENGTH, "big") + payload)
        await proc.stdin.drain()
        proc.stdin.close()
        size_bytes = await proc.stdout.readexactly(_LENGTH)
        answer = await proc.stdout.readexactly(int.from_bytes(size_bytes, "big"))
    except (asyncio.IncompleteReadError, ConnectionError) as e:
        await _stop(proc)
        raise ToolError(
            f"the worker process running {fn.__qualname__} ended before answering "
            f"(exit code {proc.returncode}): {type(e).__name__}"
        ) from None
    except BaseException:  # cancelled (the step's time limit): the work stops now, not when done
        await _stop(proc)
        raise
    await _stop(proc)
    ok, value = pickle.loads(answer)
    if not ok:
        raise value
    return value


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    with contextlib.suppress(Exception):
        await asyncio.shield(proc.wait())


def _work() -> None:
    """The worker: one call read from stdin, its result (or its exception) written to stdout."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    size = int.from_bytes(stdin.read(_LENGTH), "big")
    module, name, args, kwargs = pickle.loads(stdin.read(size))
    try:
        fn: Any = importlib.import_module(module)
        for part in name.split("."):
            fn = getattr(fn, part)
        result: tuple[bool, Any] = (True, fn(*args, **kwargs))
        answer = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # the function's failure is the caller's to report
        try:
            answer = pickle.dumps((False, e), pickle.HIGHEST_PROTOCOL)
            pickle.loads(answer)  # an exception that cannot be rebuilt travels as a ToolError
        except Exception:
            answer = pickle.dumps((False, ToolError(f"{type(e).__name__}: {e}")), pickle.HIGHEST_PROTOCOL)
    stdout.write(len(answer).to_bytes(_LENGTH, "big") + answer)
    stdout.flush()


if __name__ == "__main__":
    _work()
