"""The executor: runs a checked plan and always returns a `Result`.

- `run.py`: `Execution` (the plan loop: steps, fallbacks, merging, end-of-run checks), `execute`,
  `preload_tools`.
- `calls.py`: one tool call (time limit, output check) and how a failure is described.
- `retry.py`: the one retry loop (`attempt`) and its write-safety rule, for tool steps and map items.
- `fallbacks.py`: which tool takes over a failed step, and the plan's final fallback.
- `markup.py`: tools chosen by the page's markup.
- `mapping.py`: the map step's runtime.
- `page.py`: `TaskPage`, the task's browser session.
- `options.py`: `RunOptions`.
"""

from __future__ import annotations

from .calls import describe, error_code
from .options import RunOptions
from .page import TaskPage, page_title
from .run import Execution, Replan, execute, preload_tools

__all__ = [
    "Execution",
    "Replan",
    "RunOptions",
    "TaskPage",
    "describe",
    "error_code",
    "execute",
    "page_title",
    "preload_tools",
]
