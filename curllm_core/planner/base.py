"""The planners' shared types: what every planner (rules, a model, the cache) hands back.

A leaf of the package: the rule planner, the model planner and `plan_task` import it, it imports
none of them, so no planner module has to import another for a type.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..plan import Origin, Plan

__all__ = ["Origin", "Planned"]


@dataclass
class Planned:
    """A checked plan, why each step is in it, and who made it."""

    plan: Plan
    #: One line per step: why this tool and these parameters (goes into the agent_decision event).
    reasoning: list[str]
    #: ``rules``, ``llm:<model>``, ``cache``, or ``rules (llm failed: <reason>)``.
    source: str
    #: ``{"calls", "prompt_tokens", "completion_tokens", "cost_usd"}`` when a model was asked.
    usage: dict | None = None
    #: Who made it (``source`` says it for people).
    origin: Origin = Origin.RULES
