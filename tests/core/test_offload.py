"""`offload.run`: small inputs in place, huge ones in a worker process that a cancellation kills."""

from __future__ import annotations

import asyncio
import json
import operator
import os
import time

import pytest

from curllm_core import offload
from curllm_core.errors import ToolError

HUGE = offload.OFF_LOOP_CHARS + 1


async def test_a_small_input_runs_in_place_and_a_huge_one_in_a_worker():
    assert await offload.run(os.getpid, size=10) == os.getpid()
    worker = await offload.run(os.getpid, size=HUGE)
    assert worker != os.getpid()
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)  # gone once it answered


async def test_the_functions_failure_is_raised_here():
    with pytest.raises(KeyError, match="nope"):
        await offload.run(operator.getitem, {}, "nope", size=HUGE)
    with pytest.raises(json.JSONDecodeError):
        await offload.run(json.loads, "{not json", size=HUGE)
    # A worker that dies before answering: a ToolError naming the function.
    with pytest.raises(ToolError, match="_exit ended before answering"):
        await offload.run(os._exit, 3, size=HUGE)


async def test_a_cancelled_call_kills_its_worker_at_once():
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(offload.run(time.sleep, 60, size=HUGE), 1.0)
    # Not the worker's 60 s waited out (a loaded machine's seconds are no measure of "at once": the
    # worker gone right after, below, is)
    assert time.monotonic() - started < 45
    children = [p for p in os.listdir("/proc") if p.isdigit() and _parent(p) == os.getpid()]
    assert not [p for p in children if b"curllm_core.offload" in _cmdline(p)]


def _parent(pid: str) -> int:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("PPid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def _cmdline(pid: str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""
