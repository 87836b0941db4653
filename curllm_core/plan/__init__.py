"""Plans: the JSON document that says which tools run, in which order, with which parameters.

- `model.py`: `Plan`, `Step` (a tool step), `MapStep` (a map step), `plan_schema`.
- `params.py`: one tool call's parameters (`fill_defaults`, `parameter_problems`, `step_io`,
  `named_tool`), used wherever a tool is called.
- `map_spec.py`: the map step's spec (defaults, check, placeholders, merge).
- `check.py`: `normalise_plan` (the canonical document, a new one) and `check_plan` (reports, never
  rewrites); `step_keys`, `plan_tools`.

Every name a caller needs is importable from ``curllm_core.plan``.
"""

from __future__ import annotations

from .check import check_plan, normalise_plan, plan_tools, step_keys
from .map_spec import NOT_ON_MAP_STEPS
from .model import DEFAULT_RETRIES, MAP_TOOL, AnyStep, MapStep, Origin, Plan, Step, plan_schema
from .params import fill_defaults, named_tool, parameter_problems, problem_at, step_io

__all__ = [
    "DEFAULT_RETRIES",
    "MAP_TOOL",
    "NOT_ON_MAP_STEPS",
    "AnyStep",
    "MapStep",
    "Origin",
    "Plan",
    "Step",
    "check_plan",
    "fill_defaults",
    "named_tool",
    "normalise_plan",
    "parameter_problems",
    "plan_schema",
    "plan_tools",
    "problem_at",
    "step_io",
    "step_keys",
]
