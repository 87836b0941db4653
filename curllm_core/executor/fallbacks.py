"""Fallbacks: which tool takes over a failed step, with which parameters, and the plan's final fallback.

Every name here comes from the plan and the manifests (a step's ``fallback``, the plan's
``fallback``, the parameters' roles); none is built in.
"""

from __future__ import annotations

from ..manifest import Category, Manifest
from ..plan.model import Plan, Step
from ..plan.params import fill_defaults, parameter_problems, step_io
from ..registry import Registry

#: The parameter roles of price bounds: a form step's bound carries over to the final fallback's.
BOUND_ROLES = ("min_price", "max_price")


def fallback_params(manifest: Manifest, params: dict) -> dict | None:
    """The step's parameters that the fallback tool understands, with its defaults; None if invalid."""
    props = manifest.parameters.get("properties") or {}
    adapted = fill_defaults(manifest.parameters, {k: v for k, v in params.items() if k in props})
    if parameter_problems(manifest, adapted, []):
        adapted = fill_defaults(manifest.parameters, {})
        if parameter_problems(manifest, adapted, []):
            return None
    return adapted


def fallbacks(plan: Plan, registry: Registry, step: Step, manifest: Manifest) -> list[Manifest]:
    """The step's own fallback, then the plan's fallback if it produces the same keys."""
    found = []
    if step.fallback:
        found.append(registry.resolve(step.fallback))
    if plan.fallback:
        plan_fb = registry.resolve(plan.fallback)
        _, produces = step_io(manifest, step.parameters, registry)
        if produces and set(produces) <= set(plan_fb.produces) and plan_fb.key != manifest.key:
            found.append(plan_fb)
    return [m for i, m in enumerate(found) if m.key not in {f.key for f in found[:i]}]


def pager(registry: Registry, extraction: Manifest) -> Manifest | None:
    """The installed navigation tool that runs ``extraction`` on every page of a listing: one whose
    ``tool``-role parameter takes it (the first by name when several do)."""
    for m in sorted(registry, key=lambda m: m.key):
        tool = m.parameter_for("tool")
        if (
            m.category == Category.NAVIGATION
            and tool is not None
            and not parameter_problems(m, {tool: extraction.key}, [])
        ):
            return m
    return None


def final_fallback(plan: Plan, registry: Registry, data: dict, failed: bool) -> Step | None:
    """The step that makes the plan's fallback produce the expected output, when no step did.

    The design's form plans (``forms.price_filter`` then ``"fallback":
    "extraction.products_generic"``) leave a filtered listing and name the tool that reads it.
    It reads every page of that listing (through the pager, when one is installed: `pager`), and
    the price bounds a form step applied (its parameters of role ``min_price``/``max_price``) bound
    what it reads too (the fallback's parameters of the same roles), so a lax site filter cannot
    widen the answer.
    """
    expected, name = plan.expected_output, plan.fallback
    if not expected or not name or expected in data or failed:
        return None
    fb = registry.resolve(name)
    if expected not in fb.produces:
        return None
    bounds: dict = {}
    for step in plan.steps:
        if not isinstance(step, Step):
            continue
        form = registry.get(step.tool)
        if form is None or form.category != Category.FORMS:
            continue
        for role in BOUND_ROLES:
            mine, theirs = form.parameter_for(role), fb.parameter_for(role)
            value = step.parameters.get(mine) if mine else None
            if theirs and isinstance(value, int | float) and not isinstance(value, bool):
                bounds[theirs] = value
    through = pager(registry, fb) if fb.category == Category.EXTRACTION else None
    tool = through.parameter_for("tool") if through is not None else None
    if through is not None and tool is not None:
        params: dict = {tool: fb.key}
        if (tool_params := through.parameter_for("tool_parameters")) is not None:
            params[tool_params] = bounds
        return Step(through.key, params, f"the plan's fallback {fb.key} on every page of the listing")
    return Step(fb.key, bounds, f"the plan's fallback {fb.key}")
