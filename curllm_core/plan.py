"""Plans: the JSON document that says which tools run, in which order, with which parameters.

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
import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .errors import PlanError, Problem, ToolNotFound
from .manifest import Manifest, manifests_dir
from .registry import Registry

DEFAULT_RETRIES = 2


@dataclass
class Step:
    tool: str
    parameters: dict = field(default_factory=dict)
    description: str = ""
    id: str | None = None
    input: str | None = None
    fallback: str | None = None
    retries: int | None = None
    timeout_ms: int | None = None
    optional: bool = False
    #: A map step's spec (``over``, ``steps``, ...; see `curllm_core.mapping`), defaults filled in; its
    #: ``tool`` is then ``"map"`` and its ``parameters`` empty.
    map: dict | None = None

    def to_dict(self) -> dict:
        doc: dict[str, Any]
        if self.map is not None:
            doc = {"map": self.map, "description": self.description}
        else:
            doc = {"tool": self.tool, "parameters": self.parameters, "description": self.description}
        for key in ("id", "input", "fallback", "retries", "timeout_ms"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        if self.optional:
            doc["optional"] = True
        return doc


@dataclass
class Plan:
    steps: list[Step]
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
        return doc


@cache
def plan_schema() -> dict:
    return json.loads((manifests_dir() / "plan.schema.json").read_text(encoding="utf-8"))


def _pointer(path) -> str:
    return "".join(f"/{str(p).replace('~', '~0').replace('/', '~1')}" for p in path)


#: What a map step does not take (it has ``map`` instead of ``tool``).
NOT_ON_MAP_STEPS = ("tool", "parameters", "fallback", "retries")


def _schema_problems(doc: Any) -> list[Problem]:
    """The plan schema's problems; a map step's refused fields named (the schema's ``false`` for
    them loses the field's name)."""
    from jsonschema import Draft202012Validator

    found = []
    for e in sorted(
        Draft202012Validator(plan_schema()).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))
    ):
        if e.schema is False and list(e.schema_path)[-2:] == ["then", "properties"]:
            continue  # reported below, by name
        found.append(_problem(e.message, list(e.absolute_path)))
    steps = doc.get("plan") if isinstance(doc, dict) else None
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        if isinstance(step, dict) and "map" in step:
            for name in NOT_ON_MAP_STEPS:
                if name in step:
                    found.append(
                        _problem(
                            f"{name!r} is not a field of a map step (it has map instead of tool; a map's "
                            "own steps are in map.steps)",
                            ["plan", i, name],
                        )
                    )
    return found


def _problem(message: str, path: list) -> Problem:
    step = path[1] if len(path) > 1 and path[0] == "plan" and isinstance(path[1], int) else None
    return Problem(message, _pointer(path), step=step)


def fill_defaults(schema: dict, params: dict) -> dict:
    """Top-level ``default`` values of a parameters schema, under the given parameters."""
    filled = dict(params)
    for name, prop in (schema.get("properties") or {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def parameter_problems(manifest: Manifest, params: dict, path: list) -> list[Problem]:
    from jsonschema import Draft202012Validator

    errors = Draft202012Validator(manifest.parameters).iter_errors(params)
    return [
        _problem(
            f"{manifest.key}: parameter {e.message}" if e.absolute_path else f"{manifest.key}: {e.message}",
            [*path, *e.absolute_path],
        )
        for e in sorted(errors, key=lambda e: list(e.absolute_path))
    ]


def step_io(manifest: Manifest, params: dict, registry: Registry) -> tuple[list[str], list[str]]:
    """The data keys a step reads and writes.

    A manifest's ``consumes``/``produces`` are adjusted by the parameters with a role (see
    `Manifest.parameter_for`): a ``data_key`` (a tool that works on "an item list" reads and writes
    that key instead), and a ``tool`` (a tool that runs an extraction on each page, like pagination,
    produces what that extraction produces).
    """
    consumes, produces = list(manifest.consumes), list(manifest.produces)
    key = params.get(manifest.parameter_for("data_key") or "")
    if isinstance(key, str):
        consumes = [key] if consumes else []
        produces = [key] if produces else []
    inner = named_tool(manifest, params, registry)
    if inner is not None:
        produces = list(inner.produces)
    return consumes, produces


def step_keys(step: Step, registry: Registry) -> tuple[list[str], list[str]]:
    """The data keys a checked step reads and writes, a map step's included."""
    if step.map is not None:
        from .mapping import map_io

        return map_io(step.map)
    manifest = registry.get(step.tool)
    return step_io(manifest, step.parameters, registry) if manifest is not None else ([], [])


def named_tool(manifest: Manifest, params: dict, registry: Registry) -> Manifest | None:
    """The installed tool a step's ``tool``-role parameter names (pagination's ``extract``), if any."""
    name = params.get(manifest.parameter_for("tool") or "")
    return registry.get(name) if isinstance(name, str) else None


def plan_tools(plan: Plan, registry: Registry) -> list[str]:
    """Every tool a checked plan may call, in order: its steps, their fallbacks, the tool a step runs
    on each page (its ``tool``-role parameter, pagination's ``extract``) and the plan's fallback."""
    names: list[str] = []
    for step in plan.steps:
        if step.map is not None:
            from .mapping import static_tools

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
            and nxt.category == "extraction"
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
            from .mapping import normalise_map

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

    steps: list[Step] = []
    available = set(initial_keys)
    outputs: dict[str, list[str]] = {}  # step id -> keys its output holds
    needs_page = False
    for i, raw in enumerate(doc["plan"]):
        path = ["plan", i]
        if "map" in raw:
            from .mapping import check_map_step

            visible = available
            if raw.get("input"):
                if raw["input"] not in outputs:
                    problems.append(
                        _problem(f"input {raw['input']!r} is not the id of an earlier step", [*path, "input"])
                    )
                visible = set(outputs.get(raw["input"], []))
            step, produces, found, page = check_map_step(raw, path, visible, registry)
            problems += found
            needs_page |= page
            if raw.get("id"):
                if raw["id"] in outputs:
                    problems.append(_problem(f"duplicate step id {raw['id']!r}", [*path, "id"]))
                outputs[raw["id"]] = produces
            available |= set(produces)
            steps.append(step)
            continue
        try:
            manifest = registry.resolve(raw["tool"])
        except ToolNotFound as e:
            problems.append(_problem(e.message, [*path, "tool"]))
            continue
        given = raw.get("parameters") or {}
        params = fill_defaults(manifest.parameters, given)  # what the tool will be called with
        problems += parameter_problems(manifest, params, [*path, "parameters"])
        needs_page |= manifest.needs_page
        step_fallback = raw.get("fallback")
        if step_fallback:
            fb = registry.get(step_fallback)
            if fb is None:
                problems.append(_problem(f"unknown fallback tool {step_fallback!r}", [*path, "fallback"]))
            else:
                needs_page |= fb.needs_page
        consumes, produces = step_io(manifest, params, registry)
        visible = available
        if raw.get("input"):
            if raw["input"] not in outputs:
                problems.append(
                    _problem(f"input {raw['input']!r} is not the id of an earlier step", [*path, "input"])
                )
            visible = set(outputs.get(raw["input"], []))
        for key in consumes:
            if key not in visible:
                problems.append(
                    _problem(
                        f"{manifest.key} consumes {key!r} but no earlier step produces it "
                        "(add a step that produces it before this one, or give it as --input data)",
                        [*path, "tool"],
                    )
                )
        if raw.get("id"):
            if raw["id"] in outputs:
                problems.append(_problem(f"duplicate step id {raw['id']!r}", [*path, "id"]))
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
            problems.append(_problem(f"unknown fallback tool {fallback!r}", ["fallback"]))
        else:
            needs_page |= fb.needs_page
            # The design's form plans end on a form step: the plan's fallback then produces the
            # expected output from the page the steps left (see `Execution.final_fallback`).
            available |= set(fb.produces)
    expected = doc.get("expected_output")
    if expected and expected not in available:
        problems.append(
            _problem(f"expected_output {expected!r} is not produced by any step", ["expected_output"])
        )
    if problems:
        raise PlanError("the plan is invalid; nothing was run", problems=problems)
    return Plan(
        steps,
        expected,
        fallback,
        doc.get("instruction"),
        doc.get("url"),
        doc.get("planner"),
        needs_page,
        list(doc.get("warnings") or []),
    )
