"""Durations as curllm reports them: whole milliseconds since a `time.perf_counter()` reading (a leaf)."""

from __future__ import annotations

import time


def elapsed_ms(since: float) -> int:
    """Whole milliseconds from ``since`` (a ``time.perf_counter()`` reading) to now."""
    return int((time.perf_counter() - since) * 1000)
