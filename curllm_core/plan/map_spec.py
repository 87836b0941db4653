"""The map step's spec: its defaults, its check, its placeholders and how an item's findings merge.

``{"map": {"over": "products", "as": "item", "open": "{item.url}", "concurrency": 4,
"steps": [{"tool": "extraction.product_detail"}], "merge": true}}`` runs the sub-plan once per
product, on the product's own page, and merges what it found into the product. This module is what
a map step *is* (checked before anything runs: `check_map_step`); running it is the executor's
(`curllm_core.executor.mapping`).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ..errors import ItemError, Problem, ToolNotFound
from ..manifest import Manifest
from ..registry import Registry
from .model import MapStep, plan_schema
from .params import fill_defaults, problem_at, step_io

#: ``{item}``, ``{item.url}``, ``{item.offer.price}``, ``{index}``: a name and an optional field path.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)\}")

#: What a map step does not take (it has ``map`` instead of ``tool``).
NOT_ON_MAP_STEPS = ("tool", "parameters", "fallback", "retries")


# --- the spec ------------------------------------------------------------------------------------


def map_defaults() -> dict:
    """The defaults of a map spec, from the published plan schema."""
    props = plan_schema()["$defs"]["map"]["properties"]
    return {k: copy.deepcopy(v["default"]) for k, v in props.items() if "default" in v}


def with_defaults(spec: dict) -> dict:
    """The map spec with the schema's defaults under it (what runs)."""
    return {**map_defaults(), **spec}


def normalise_map(spec: dict, registry: Registry) -> dict:
    """A map spec in its canonical form (for `normalise_plan`): its defaults filled in, and each
    sub-step named outright with its tool's ``category.name`` and parameter defaults. Tools named by
    a placeholder, and names no installed tool has, stay as written."""
    out = with_defaults(copy.deepcopy(spec))
    steps = []
    for sub in out["steps"]:
        manifest = None if PLACEHOLDER.search(sub["tool"]) else registry.get(sub["tool"])
        if manifest is not None:
            sub = {
                **sub,
                "tool": manifest.key,
                "parameters": fill_defaults(manifest.parameters, sub.get("parameters") or {}),
            }
        steps.append(sub)
    out["steps"] = steps
    return out


def map_io(spec: dict) -> tuple[list[str], list[str]]:
    """What a map step reads (its list) and writes: the list itself when merging, else ``collect``."""
    return [spec["over"]], [spec["over"] if spec.get("merge") else spec.get("collect") or "results"]


def static_tools(spec: dict) -> list[str]:
    """The sub-steps' tools named outright (not by a placeholder)."""
    return [s["tool"] for s in spec["steps"] if not PLACEHOLDER.search(s["tool"])]


def describe_map(spec: dict) -> str:
    """What a map step does, in one line (its step event's description)."""
    tools = ", ".join(s["tool"] for s in spec.get("steps", []))
    return f"runs {tools} for each item of {spec.get('over')}" + (
        " on its own page" if "open" in spec else ""
    )


def placeholders(value: Any) -> list[str]:
    """Every placeholder's name in a string, or in the strings of a list or object."""
    if isinstance(value, str):
        return [m.group(1) for m in PLACEHOLDER.finditer(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in placeholders(v)]
    if isinstance(value, list):
        return [n for v in value for n in placeholders(v)]
    return []


# --- the check -----------------------------------------------------------------------------------


def check_map_step(
    raw: dict, path: list, available: set[str], registry: Registry
) -> tuple[MapStep, list[str], list[Problem], bool]:
    """Check a map step (already valid against the plan schema): the list it maps over is produced
    before it, its placeholders name its items, and its sub-plan checks like a plan (tools,
    parameters judged with their defaults, the consumes/produces chain, a page for tools that need
    one). Tools named by a placeholder (``{item.tool}``) are resolved for each item when it runs.
    Like `check_plan`, it rewrites nothing: the step holds the spec as written.

    Returns the step, the keys it produces, the problems and whether it needs a browser.
    """
    spec = with_defaults(raw["map"])
    where = [*path, "map"]
    problems: list[Problem] = []
    name = spec["as"]
    over = spec["over"]
    if over not in available:
        problems.append(
            problem_at(
                f"the map goes over {over!r} but no earlier step produces it (add a step that produces "
                "it before this one, or give it as --input data)",
                [*where, "over"],
            )
        )
    if not spec["merge"] and spec["collect"] == over:
        problems.append(
            problem_at(
                f"collect {over!r} would replace the list the map goes over: name another key, or merge",
                [*where, "collect"],
            )
        )
    for field in ("open",):
        for other in placeholders(spec.get(field)):
            if other not in (name, "index"):
                problems.append(_unknown_name(other, name, [*where, field]))
    needs_page = "open" in spec
    chain = set(available) | {name}
    dynamic = False  # after a tool named by a placeholder, what the sub-plan holds is unknown
    for j, sub in enumerate(spec["steps"]):
        at = [*where, "steps", j]
        for other in placeholders([sub["tool"], sub.get("parameters") or {}]):
            if other not in (name, "index"):
                problems.append(_unknown_name(other, name, at))
        params = dict(sub.get("parameters") or {})
        if PLACEHOLDER.search(sub["tool"]):
            dynamic = True
            continue
        try:
            manifest = registry.resolve(sub["tool"])
        except ToolNotFound as e:
            problems.append(problem_at(e.message, [*at, "tool"]))
            continue
        params = fill_defaults(manifest.parameters, params)
        problems += _parameter_problems(manifest, params, [*at, "parameters"])
        if manifest.needs_page and "open" not in spec:
            problems.append(
                problem_at(
                    f"{manifest.key} needs a page, and the map opens none: give it an open URL "
                    f'(e.g. "open": "{{{name}.url}}")',
                    [*at, "tool"],
                )
            )
        consumes, produces = step_io(manifest, params, registry)
        for key in consumes:
            if key not in chain and not dynamic:
                problems.append(
                    problem_at(
                        f"{manifest.key} consumes {key!r} but neither the data before the map, the item "
                        f"({name!r}) nor an earlier step of the map produces it",
                        [*at, "tool"],
                    )
                )
        chain |= set(produces)
    _, produces = map_io(spec)
    step = MapStep(
        map=copy.deepcopy(raw["map"]),
        description=raw.get("description", ""),
        id=raw.get("id"),
        input=raw.get("input"),
        timeout_ms=raw.get("timeout_ms"),
        optional=raw.get("optional", False),
    )
    return step, produces, problems, needs_page


def _unknown_name(other: str, name: str, path: list) -> Problem:
    return problem_at(
        f"placeholder {{{other}...}} names {other!r}, but the map calls its items {name!r} (as): "
        f"write {{{name}.field}} (or {{index}})",
        path,
    )


def _parameter_problems(manifest: Manifest, params: dict, path: list) -> list[Problem]:
    """The parameters against the tool's schema, except values that hold a placeholder (they are
    checked for each item, once filled in)."""
    from jsonschema import Draft202012Validator  # only when checking (as `parameter_problems`)

    out = []
    for e in sorted(
        Draft202012Validator(manifest.parameters).iter_errors(params), key=lambda e: list(e.absolute_path)
    ):
        node: Any = params
        templated = False
        for part in e.absolute_path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                break
            if isinstance(node, str) and PLACEHOLDER.search(node):
                templated = True
                break
        if templated:
            continue
        message = (
            f"{manifest.key}: parameter {e.message}" if e.absolute_path else f"{manifest.key}: {e.message}"
        )
        out.append(problem_at(message, [*path, *e.absolute_path]))
    return out


# --- placeholders --------------------------------------------------------------------------------


def fill(value: Any, name: str, item: Any, index: int) -> Any:
    """``value`` with the item's placeholders filled in: a string that is one placeholder becomes
    the field's value (a number stays a number), placeholders inside text become text. Raises
    `ItemError` for a field the item lacks."""
    if isinstance(value, dict):
        return {k: fill(v, name, item, index) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, name, item, index) for v in value]
    if not isinstance(value, str) or "{" not in value:
        return value
    whole = PLACEHOLDER.fullmatch(value)
    if whole and whole.group(1) in (name, "index"):
        return _lookup(whole, name, item, index, value)

    def text(m: re.Match) -> str:
        if m.group(1) not in (name, "index"):
            return m.group(0)
        found = _lookup(m, name, item, index, value)
        if found is None:
            raise ItemError(f"item {index} has no value for {m.group(0)} (in {value!r})")
        return found if isinstance(found, str) else str(found)

    return PLACEHOLDER.sub(text, value)


def _lookup(m: re.Match, name: str, item: Any, index: int, where: str) -> Any:
    if m.group(1) == "index":
        return index
    node = item
    for part in m.group(2).split(".")[1:]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ItemError(f"item {index} has no field {m.group(2)[1:]!r} (in {where!r})")
    return node


# --- merging -------------------------------------------------------------------------------------


def merged(item: Any, name: str, result: dict) -> Any:
    """The item with what its steps found: an object's fields (``{"product": {...}}``'s) and other
    values by their key. Every field found is added (``null`` when the page did not state it, so
    every merged item has the same fields); where the item has a value already, it stays (the
    listing's price and URL are what the steps before the map checked)."""
    out = dict(item) if isinstance(item, dict) else {name: item}
    for key, value in result.items():
        pairs = value.items() if isinstance(value, dict) else [(key, value)]
        for field, found in pairs:
            if field not in out or (found is not None and out[field] in (None, "", [], {})):
                out[field] = found
    return out
