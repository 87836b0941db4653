"""The plan model: `Plan`, its tool steps (`Step`) and map steps (`MapStep`), as a checked plan holds them.

A `Step` calls one tool with parameters; a `MapStep` runs a sub-plan once per item of a list (its
spec: `curllm_core.plan.map_spec`). Both say what the document said (`check_plan` rewrites nothing),
and ``to_dict()`` gives the document back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar

from ..manifest import manifests_dir

#: How often a step's transient failure is tried again when the step does not say.
DEFAULT_RETRIES = 2


@dataclass
class Step:
    """A tool step: one tool called with parameters."""

    tool: str
    parameters: dict = field(default_factory=dict)
    description: str = ""
    id: str | None = None
    input: str | None = None
    fallback: str | None = None
    retries: int | None = None
    timeout_ms: int | None = None
    optional: bool = False
    #: A tool step has no map spec (`MapStep.map`); read alike on every step of a plan.
    map: ClassVar[None] = None

    def to_dict(self) -> dict:
        doc: dict[str, Any] = {
            "tool": self.tool,
            "parameters": self.parameters,
            "description": self.description,
        }
        for key in ("id", "input", "fallback", "retries", "timeout_ms"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        if self.optional:
            doc["optional"] = True
        return doc


@dataclass
class MapStep:
    """A map step ([map over items](docs/plan.md#map-over-items)): ``map`` is its spec as written
    (``over``, ``as``, ``open``, ``steps``, ...; defaults: `map_spec.with_defaults`)."""

    map: dict
    description: str = ""
    id: str | None = None
    input: str | None = None
    timeout_ms: int | None = None
    optional: bool = False
    #: The name a map step goes by where a tool's name is shown (events, step results, reasoning).
    tool: ClassVar[str] = "map"

    def to_dict(self) -> dict:
        doc: dict[str, Any] = {"map": self.map, "description": self.description}
        for key in ("id", "input", "timeout_ms"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        if self.optional:
            doc["optional"] = True
        return doc


#: The name of a map step where a tool's name is shown.
MAP_TOOL = MapStep.tool

AnyStep = Step | MapStep


class Origin(StrEnum):
    """Who made a plan: what the runner decides by (a model may re-plan only a plan the rule planner
    did not make), where ``Planned.source`` and ``Plan.planner`` are the display strings."""

    RULES = "rules"  # the rule planner, also when it stood in for a model that failed
    MODEL = "model"
    CACHE = "cache"


@dataclass(kw_only=True)
class Plan:
    steps: list[AnyStep]
    expected_output: str | None = None
    fallback: str | None = None
    instruction: str | None = None
    url: str | None = None
    planner: str | None = None
    #: Whether any step (or a fallback) needs a browser page; worked out by `check_plan`.
    needs_page: bool = field(default=True, compare=False)
    #: What the planner could not do of the instruction ("not done: buy ..."): shown on stderr and
    #: carried into the result's ``warnings``.
    warnings: list[str] = field(default_factory=list)
    #: The output format the instruction names ("as CSV"): the CLI's ``--format`` unless given.
    format: str | None = None

    def to_dict(self) -> dict:
        """The plan document: the same shape `check_plan` (and ``curllm --plan``) accepts."""
        doc: dict[str, Any] = {
            "plan": [s.to_dict() for s in self.steps],
            "expected_output": self.expected_output,
        }
        for key in ("fallback", "instruction", "url", "planner"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        if self.warnings:
            doc["warnings"] = list(self.warnings)
        if self.format is not None:
            doc["format"] = self.format
        return doc


@cache
def plan_schema() -> dict:
    """The published plan schema (``plan.schema.json``)."""
    return json.loads((manifests_dir() / "plan.schema.json").read_text(encoding="utf-8"))
