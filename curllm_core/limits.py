"""Bounds on untrusted documents (task files, plans, input data): nesting depth and size.

A value nested deeper than `MAX_DEPTH` levels would make recursive code (JSON encoding, schema
checks, copies) raise RecursionError far from where it came in; a task bigger than `MAX_TASK_BYTES`
would hold a batch's memory. Both are refused where the document is read, with a message naming it.
"""

from __future__ import annotations

import json
from typing import Any

#: Containers inside containers: far more than any task, plan or data needs.
MAX_DEPTH = 100
#: One task of a task file (a JSONL line, a YAML or JSON list item), its data included.
MAX_TASK_BYTES = 10 * 1024 * 1024
#: A document read whole (a plan file, ``--input``, a JSON task file that is one object).
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


class TooDeep(ValueError):
    """A document nested deeper than `MAX_DEPTH` levels."""

    def __init__(self, limit: int = MAX_DEPTH):
        super().__init__(f"nested more than {limit} levels deep")


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise TooDeep when lists and objects nest deeper than ``limit`` (iterative: never recurses)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            raise TooDeep(limit)
        stack.extend((child, depth + 1) for child in children)


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises TooDeep instead of RecursionError, and for depth over ``limit``.

    Other problems raise json.JSONDecodeError as usual.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(limit) from None
    check_depth(value, limit)
    return value


def size_text(n: int) -> str:
    """``10 MiB``: a byte count as people read it."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit != "bytes" else f"{n} bytes"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"
