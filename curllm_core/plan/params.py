"""One tool call's parameters: defaults filled in, checked against the manifest, and the data keys the
call reads and writes (`step_io`). Used wherever a tool is called: the plan check, the executor, a map
item, the markup choice, a nested ``ctx.run_tool``."""

from __future__ import annotations

import copy

from ..errors import Problem, json_pointer
from ..manifest import Manifest
from ..registry import Registry


def problem_at(message: str, path: list) -> Problem:
    """A problem at ``path`` of a plan document (the step index read from ``/plan/N/...``)."""
    step = path[1] if len(path) > 1 and path[0] == "plan" and isinstance(path[1], int) else None
    return Problem(message, json_pointer(path), step=step)


def fill_defaults(schema: dict, params: dict) -> dict:
    """Top-level ``default`` values of a parameters schema, under the given parameters."""
    filled = dict(params)
    for name, prop in (schema.get("properties") or {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def parameter_problems(manifest: Manifest, params: dict, path: list) -> list[Problem]:
    """The parameters against the tool's schema, every problem at its place under ``path``. Parameters
    the quick check takes (`quick_schema`) have none: jsonschema (~0.1 s to import) only finds and
    words them."""
    from ..quick_schema import certainly_valid

    if certainly_valid(manifest.parameters)(params):
        return []
    from jsonschema import Draft202012Validator

    errors = Draft202012Validator(manifest.parameters).iter_errors(params)
    return [
        problem_at(
            f"{manifest.key}: parameter {e.message}" if e.absolute_path else f"{manifest.key}: {e.message}",
            [*path, *e.absolute_path],
        )
        for e in sorted(errors, key=lambda e: list(e.absolute_path))
    ]


def named_tool(manifest: Manifest, params: dict, registry: Registry) -> Manifest | None:
    """The installed tool a step's ``tool``-role parameter names (pagination's ``extract``), if any."""
    name = params.get(manifest.parameter_for("tool") or "")
    return registry.get(name) if isinstance(name, str) else None


def step_io(manifest: Manifest, params: dict, registry: Registry) -> tuple[list[str], list[str]]:
    """The data keys a step reads and writes.

    A manifest's ``consumes``/``produces`` are adjusted by the parameters with a role (see
    `Manifest.parameter_for`): a ``data_key`` (a tool that works on "an item list" reads and writes
    that key instead), an ``input_key`` (a tool that reads an item list and writes its own key:
    it reads that key instead), and a ``tool`` (a tool that runs an extraction on each page, like pagination,
    produces what that extraction produces).
    """
    consumes, produces = list(manifest.consumes), list(manifest.produces)
    key = params.get(manifest.parameter_for("data_key") or "")
    if isinstance(key, str):
        consumes = [key] if consumes else []
        produces = [key] if produces else []
    read = params.get(manifest.parameter_for("input_key") or "")
    if isinstance(read, str):
        consumes = [read]
    inner = named_tool(manifest, params, registry)
    if inner is not None:
        produces = list(inner.produces)
    return consumes, produces
