"""Normalising and checking a plan document, the two steps every plan goes through wherever it comes in.

Two explicit steps, in this order, wherever a plan comes in (a file, a planner, a model, a cache):

- `normalise_plan` returns the document in its one canonical form, as a new document: an extraction
  step folded into the pager before it, tool names as ``category.name``, defaults filled in.
- `check_plan` only reports: it turns a document into a `Plan` that says exactly what the document
  says, or raises one `PlanError` that lists every problem (step index and JSON pointer each),
  before anything runs: the JSON Schema, that every tool exists, each step's parameters against its
  manifest, the chain of data keys (a step that consumes ``products`` needs a producer before it)
  and that ``expected_output`` is produced.
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import PlanError, Problem, ToolNotFound
from ..manifest import Category
from ..registry import Registry
from .map_spec import NOT_ON_MAP_STEPS, check_map_step, map_io, normalise_map, static_tools
from .model import AnyStep, MapStep, Plan, Step, plan_schema
from .params import fill_defaults, parameter_problems, problem_at, step_io


def _schema_problems(doc: Any) -> list[Problem]:
    """The plan schema's problems; a map step's refused fields named (the schema's ``false`` for
    them loses the field's name). A plan the quick check takes has none: jsonschema (~0.1 s to
    import) only finds and words them."""
    from ..quick_schema import certainly_valid

    if certainly_valid(plan_schema())(doc):
        return []
    from jsonschema import Draft202012Validator

    found = []
    for e in sorted(
        Draft202012Validator(plan_schema()).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))
    ):
        if e.schema is False and list(e.schema_path)[-2:] == ["then", "properties"]:
            continue  # reported below, by name
        found.append(problem_at(e.message, list(e.absolute_path)))
    steps = doc.get("plan") if isinstance(doc, dict) else None
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        if isinstance(step, dict) and "map" in step:
            for name in NOT_ON_MAP_STEPS:
                if name in step:
                    found.append(
                        problem_at(
                            f"{name!r} is not a field of a map step (it has map instead of tool; a map's "
                            "own steps are in map.steps)",
                            ["plan", i, name],
                        )
                    )
    return found


def step_keys(step: AnyStep, registry: Registry) -> tuple[list[str], list[str]]:
    """The data keys a checked step reads and writes, a map step's included."""
    if isinstance(step, MapStep):
        return map_io(step.map)
    manifest = registry.get(step.tool)
    return step_io(manifest, step.parameters, registry) if manifest is not None else ([], [])


def plan_tools(plan: Plan, registry: Registry) -> list[str]:
    """Every tool a checked plan may call, in order: its steps, their fallbacks, the tool a step runs
    on each page (its ``tool``-role parameter, pagination's ``extract``) and the plan's fallback."""
    names: list[str] = []
    for step in plan.steps:
        if isinstance(step, MapStep):
            names += static_tools(step.map)
            continue
        names.append(step.tool)
        if step.fallback:
            names.append(step.fallback)
        manifest = registry.get(step.tool)
        inner = step.parameters.get(manifest.parameter_for("tool") or "") if manifest is not None else None
        if isinstance(inner, str):
            names.append(inner)
    if plan.fallback:
        names.append(plan.fallback)
    keys: list[str] = []
    for name in names:
        manifest = registry.get(name)
        key = manifest.key if manifest is not None else name
        if key not in keys:
            keys.append(key)
    return keys


def _fold_extraction(steps: list[dict], registry: Registry) -> list[dict]:
    """A step that takes a ``tool`` (pagination's ``extract``) but names none takes the extraction step
    that follows it."""
    out: list[dict] = []
    i = 0
    while i < len(steps):
        step = steps[i]
        if "map" in step:
            out.append(step)
            i += 1
            continue
        manifest = registry.get(step["tool"])
        nxt = registry.get(steps[i + 1].get("tool", "")) if i + 1 < len(steps) else None
        tool_param = manifest.parameter_for("tool") if manifest else None
        params = step.get("parameters") or {}
        if (
            manifest is not None
            and tool_param is not None
            and tool_param not in params
            and nxt is not None
            and nxt.category == Category.EXTRACTION
            and not steps[i + 1].get("id")
            and not steps[i + 1].get("input")
        ):
            params = {**params, tool_param: nxt.key}
            inner_params = manifest.parameter_for("tool_parameters")
            if inner_params is not None and steps[i + 1].get("parameters"):
                params[inner_params] = steps[i + 1]["parameters"]
            out.append({**step, "parameters": params})
            i += 2
            continue
        out.append(step)
        i += 1
    return out


def _key_of(name: Any, registry: Registry) -> Any:
    """``category.name`` of an installed tool; anything else as given (the check reports it)."""
    manifest = registry.get(name) if isinstance(name, str) else None
    return manifest.key if manifest is not None else name


def normalise_plan(doc: Any, registry: Registry) -> Any:
    """The plan document in its canonical form: a new document, ``doc`` itself is left as it is.

    - A step whose tool takes a ``tool``-role parameter (pagination's ``extract``) but names none
      takes the extraction step that follows it (and that step's parameters as its
      ``tool_parameters``).
    - Tool names (steps, their fallbacks, the plan's fallback) are written ``category.name``.
    - Each step's parameters get the top-level defaults of its tool's schema.

    A document the plan schema rejects comes back unchanged (a copy), and so does a name no
    installed tool has: `check_plan` then reports each problem where it was written. Normalising
    a normalised document changes nothing.
    """
    doc = copy.deepcopy(doc)
    if _schema_problems(doc):
        return doc
    steps = []
    for raw in _fold_extraction(doc["plan"], registry):
        if "map" in raw:
            steps.append({**raw, "map": normalise_map(raw["map"], registry)})
            continue
        step = {**raw, "tool": _key_of(raw["tool"], registry)}
        manifest = registry.get(raw["tool"])
        if manifest is not None:
            step["parameters"] = fill_defaults(manifest.parameters, raw.get("parameters") or {})
        if raw.get("fallback"):
            step["fallback"] = _key_of(raw["fallback"], registry)
        steps.append(step)
    doc["plan"] = steps
    if doc.get("fallback"):
        doc["fallback"] = _key_of(doc["fallback"], registry)
    return doc


def check_plan(doc: Any, registry: Registry, *, initial_keys: set[str] | frozenset = frozenset()) -> Plan:
    """Check a plan document against the registry; return the `Plan` it describes, as written.

    Raises `PlanError` listing every problem. ``initial_keys`` are the data keys given up front
    (``--input``), which count as produced before the first step. The check rewrites nothing: a
    parameter left out is judged by its default (as the tool will see it), but the `Plan` holds
    the document's own steps, names and parameters. Call `normalise_plan` first for the canonical
    form (every entry point does).
    """
    problems = _schema_problems(doc)
    if problems:
        raise PlanError("the plan is invalid; nothing was run", problems=problems)

    steps: list[AnyStep] = []
    available = set(initial_keys)
    outputs: dict[str, list[str]] = {}  # step id -> keys its output holds
    needs_page = False
    for i, raw in enumerate(doc["plan"]):
        path = ["plan", i]
        if "map" in raw:
            visible = available
            if raw.get("input"):
                if raw["input"] not in outputs:
                    problems.append(
                        problem_at(
                            f"input {raw['input']!r} is not the id of an earlier step", [*path, "input"]
                        )
                    )
                visible = set(outputs.get(raw["input"], []))
            step, produces, found, page = check_map_step(raw, path, visible, registry)
            problems += found
            needs_page |= page
            if raw.get("id"):
                if raw["id"] in outputs:
                    problems.append(problem_at(f"duplicate step id {raw['id']!r}", [*path, "id"]))
                outputs[raw["id"]] = produces
            available |= set(produces)
            steps.append(step)
            continue
        try:
            manifest = registry.resolve(raw["tool"])
        except ToolNotFound as e:
            problems.append(problem_at(e.message, [*path, "tool"]))
            continue
        given = raw.get("parameters") or {}
        params = fill_defaults(manifest.parameters, given)  # what the tool will be called with
        problems += parameter_problems(manifest, params, [*path, "parameters"])
        needs_page |= manifest.needs_page
        step_fallback = raw.get("fallback")
        if step_fallback:
            fb = registry.get(step_fallback)
            if fb is None:
                problems.append(problem_at(f"unknown fallback tool {step_fallback!r}", [*path, "fallback"]))
            else:
                needs_page |= fb.needs_page
        consumes, produces = step_io(manifest, params, registry)
        visible = available
        if raw.get("input"):
            if raw["input"] not in outputs:
                problems.append(
                    problem_at(f"input {raw['input']!r} is not the id of an earlier step", [*path, "input"])
                )
            visible = set(outputs.get(raw["input"], []))
        for key in consumes:
            if key not in visible:
                problems.append(
                    problem_at(
                        f"{manifest.key} consumes {key!r} but no earlier step produces it "
                        "(add a step that produces it before this one, or give it as --input data)",
                        [*path, "tool"],
                    )
                )
        if raw.get("id"):
            if raw["id"] in outputs:
                problems.append(problem_at(f"duplicate step id {raw['id']!r}", [*path, "id"]))
            outputs[raw["id"]] = produces
        available |= set(produces)
        steps.append(
            Step(
                tool=raw["tool"],
                parameters=copy.deepcopy(given),
                description=raw.get("description", ""),
                id=raw.get("id"),
                input=raw.get("input"),
                fallback=step_fallback,
                retries=raw.get("retries"),
                timeout_ms=raw.get("timeout_ms"),
                optional=raw.get("optional", False),
            )
        )
    fallback = doc.get("fallback")
    if fallback:
        fb = registry.get(fallback)
        if fb is None:
            problems.append(problem_at(f"unknown fallback tool {fallback!r}", ["fallback"]))
        else:
            needs_page |= fb.needs_page
            # The design's form plans end on a form step: the plan's fallback then produces the
            # expected output from the page the steps left (see `Execution.final_fallback`).
            available |= set(fb.produces)
    expected = doc.get("expected_output")
    if expected and expected not in available:
        problems.append(
            problem_at(f"expected_output {expected!r} is not produced by any step", ["expected_output"])
        )
    if problems:
        raise PlanError("the plan is invalid; nothing was run", problems=problems)
    return Plan(
        steps=steps,
        expected_output=expected,
        fallback=fallback,
        instruction=doc.get("instruction"),
        url=doc.get("url"),
        planner=doc.get("planner"),
        needs_page=needs_page,
        warnings=list(doc.get("warnings") or []),
        format=doc.get("format"),
    )
