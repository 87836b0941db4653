"""curllm: manifest-driven browser automation. An instruction and a URL in, exactly the data asked for out.

The public surface is re-exported here; heavy parts (the executor, the browser, planners) are
imported on first use so that ``import curllm_core`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .hookspecs import hookimpl  # noqa: E402

# Imported eagerly: the submodule `curllm_core.tool` shares its name with the decorator, and this
# binding must come last so that `from curllm_core import tool` gives the decorator.
from .tool import BaseTool, CodeTool, ToolContext, tool  # noqa: E402
from .version import __version__

__all__ = [
    "__version__",
    "hookimpl",
    "tool",
    "BaseTool",
    "CodeTool",
    "ToolContext",
    "load_registry",
    "run",
    "arun",
    "execute_plan",
    "run_many",
    "Plan",
    "Step",
    "check_plan",
    "normalise_plan",
    "Result",
    "StepResult",
    "CurllmError",
]

_LAZY = {
    "load_registry": "plugins",
    "run": "api",
    "arun": "api",
    "execute_plan": "api",
    "run_many": "batch",
    "Plan": "plan",
    "Step": "plan",
    "check_plan": "plan",
    "normalise_plan": "plan",
    "Result": "result",
    "StepResult": "result",
    "CurllmError": "errors",
}

if TYPE_CHECKING:  # pragma: no cover
    from .api import arun, execute_plan, run  # noqa: F401
    from .batch import run_many  # noqa: F401
    from .errors import CurllmError  # noqa: F401
    from .plan import Plan, Step, check_plan, normalise_plan  # noqa: F401
    from .plugins import load_registry  # noqa: F401
    from .result import Result, StepResult  # noqa: F401


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'curllm_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
