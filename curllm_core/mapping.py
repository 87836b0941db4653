"""Map steps: a sub-plan run once per item of a list, each item on its own page.

``{"map": {"over": "products", "as": "item", "open": "{item.url}", "concurrency": 4,
"steps": [{"tool": "extraction.product_detail"}], "merge": true}}`` opens every product's URL in a
fresh page of the task's browser context (the same network policy and egress proxy, the same
cookies), runs the steps there and merges what they found into the product. `check_map_step` checks
the spec and the sub-plan before anything runs; `run_map` runs it for the executor. Every item ends
as an outcome ``{"index", "tool", "success", "result", "error"}``, never an exception: one item's
failure (a 404 page, a refused URL, an unknown tool) fails that item only, and the result says so.
"""

from __future__ import annotations

import asyncio
import copy
import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from .errors import BadParams, CurllmError, MapFailed, StepTimeout, ToolError, ToolNotFound, is_transient
from .event_types import StepEvent, ToolCall, UrlCompleteEvent, UrlStartEvent
from .events import preview_text
from .executor import elapsed_ms, page_title
from .plan import DEFAULT_RETRIES, Step, _problem, fill_defaults, plan_schema, step_io
from .result import StepResult, error_entry

if TYPE_CHECKING:
    from .errors import Problem
    from .executor import Execution
    from .manifest import Manifest
    from .registry import Registry

#: ``{item}``, ``{item.url}``, ``{item.offer.price}``, ``{index}``: a name and an optional field path.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)\}")
#: A map step's result holds the outcomes in full; its event previews a few.
MAP_TOOL = "map"


class ItemError(ToolError):
    """An item that cannot run: a placeholder naming a field the item lacks, an unknown tool."""


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


def placeholders(value: Any) -> list[str]:
    """Every placeholder's name in a string, or in the strings of a list or object."""
    if isinstance(value, str):
        return [m.group(1) for m in PLACEHOLDER.finditer(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in placeholders(v)]
    if isinstance(value, list):
        return [n for v in value for n in placeholders(v)]
    return []


def check_map_step(
    raw: dict, path: list, available: set[str], registry: Registry
) -> tuple[Step, list[str], list[Problem], bool]:
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
            _problem(
                f"the map goes over {over!r} but no earlier step produces it (add a step that produces "
                "it before this one, or give it as --input data)",
                [*where, "over"],
            )
        )
    if not spec["merge"] and spec["collect"] == over:
        problems.append(
            _problem(
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
            problems.append(_problem(e.message, [*at, "tool"]))
            continue
        params = fill_defaults(manifest.parameters, params)
        problems += _parameter_problems(manifest, params, [*at, "parameters"])
        if manifest.needs_page and "open" not in spec:
            problems.append(
                _problem(
                    f"{manifest.key} needs a page, and the map opens none: give it an open URL "
                    f'(e.g. "open": "{{{name}.url}}")',
                    [*at, "tool"],
                )
            )
        consumes, produces = step_io(manifest, params, registry)
        for key in consumes:
            if key not in chain and not dynamic:
                problems.append(
                    _problem(
                        f"{manifest.key} consumes {key!r} but neither the data before the map, the item "
                        f"({name!r}) nor an earlier step of the map produces it",
                        [*at, "tool"],
                    )
                )
        chain |= set(produces)
    _, produces = map_io(spec)
    step = Step(
        tool=MAP_TOOL,
        description=raw.get("description", ""),
        id=raw.get("id"),
        input=raw.get("input"),
        timeout_ms=raw.get("timeout_ms"),
        optional=raw.get("optional", False),
        map=copy.deepcopy(raw["map"]),
    )
    return step, produces, problems, needs_page


def _unknown_name(other: str, name: str, path: list) -> Problem:
    return _problem(
        f"placeholder {{{other}...}} names {other!r}, but the map calls its items {name!r} (as): "
        f"write {{{name}.field}} (or {{index}})",
        path,
    )


def _parameter_problems(manifest: Manifest, params: dict, path: list) -> list[Problem]:
    """The parameters against the tool's schema, except values that hold a placeholder (they are
    checked for each item, once filled in)."""
    from jsonschema import Draft202012Validator

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
        out.append(_problem(message, [*path, *e.absolute_path]))
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


# --- running -------------------------------------------------------------------------------------


class _Item:
    """One item's run: its page, its steps, its outcome."""

    def __init__(self, runner: _MapRun, index: int, item: Any):
        self.runner, self.index, self.item = runner, index, item
        self.page: Any = None
        self.url: str | None = None
        self.tool: str | None = None
        self.params: dict = {}
        self.attempts = 0
        self.started = time.perf_counter()
        self.outcome: dict | None = None

    def finish(self, success: bool, result: dict | None = None, error: BaseException | None = None) -> dict:
        from .executor import error_code

        outcome: dict[str, Any] = {
            "index": self.index,
            "tool": self.tool,
            "success": success,
            "result": result if success else None,
            "error": None if error is None else _describe(error),
        }
        if self.url is not None:
            outcome["url"] = self.url
        if error is not None:
            outcome["code"] = error_code(error)
        outcome["duration_ms"] = elapsed_ms(self.started)
        self.outcome = outcome
        return outcome

    async def run(self) -> dict:
        spec = self.runner.spec
        limit = spec["item_timeout_ms"]
        try:
            async with asyncio.timeout(limit / 1000):
                result = await self.steps()
            outcome = self.finish(True, result)
        except TimeoutError:
            outcome = self.finish(
                False, error=StepTimeout(f"item {self.index} did not finish within {limit} ms")
            )
        except Exception as e:  # an item's failure is its outcome, never the map's exception
            outcome = self.finish(False, error=e)
        finally:
            await self.close()
        self.runner.report(self)
        return outcome

    async def close(self) -> None:
        if self.page is not None:
            page, self.page = self.page, None
            session = self.runner.ex.session
            if session is not None:  # it made the page
                await session.close_page(page)

    async def steps(self) -> dict:
        runner, spec = self.runner, self.runner.spec
        name = spec["as"]
        if "open" in spec:
            await self.open(fill(spec["open"], name, self.item, self.index))
        data = {**runner.data, name: self.item}
        found: dict = {}
        for sub in spec["steps"]:
            manifest, params = self.resolve(sub)
            output = await self.attempt(sub, manifest, params, data)
            if output is None:  # an optional sub-step that failed
                continue
            _, produces = step_io(manifest, params, runner.ex.registry)
            produced = {k: output[k] for k in produces if k in output}
            data.update(produced)
            found.update(produced)
        return found

    def resolve(self, sub: dict) -> tuple[Manifest, dict]:
        from .plan import parameter_problems

        registry, name = self.runner.ex.registry, self.runner.spec["as"]
        tool = fill(sub["tool"], name, self.item, self.index)
        self.tool = tool if isinstance(tool, str) else str(tool)
        manifest = registry.get(self.tool) if isinstance(tool, str) else None
        if manifest is None:
            raise ToolNotFound(f"Unknown tool: {self.tool}")
        self.tool = manifest.key
        params = fill_defaults(
            manifest.parameters, fill(sub.get("parameters") or {}, name, self.item, self.index)
        )
        self.params = params
        problems = parameter_problems(manifest, params, [])
        if problems:
            raise BadParams(f"bad parameters for {manifest.key}: " + "; ".join(p.message for p in problems))
        if manifest.needs_page and self.page is None:
            raise ItemError(f"{manifest.key} needs a page, and the map opens none (give it an open URL)")
        return manifest, params

    async def open(self, target: Any) -> None:
        ex = self.runner.ex
        if not isinstance(target, str) or not target.strip():
            raise ItemError(f"item {self.index} has no URL to open (open: {self.runner.spec['open']!r})")
        self.url = urljoin(ex.url or "", target.strip())
        session = await ex.task_page.ensure_session()
        retries = self.runner.spec["retries"]
        attempt = 0
        while True:
            attempt += 1
            self.page = self.page or await session.new_page()
            ex.events.emit(UrlStartEvent(url=self.url))
            started = time.perf_counter()
            try:
                await session.open(self.url, page=self.page)
            except Exception as e:  # the item fails (or tries again), never the map
                ex.events.emit(
                    UrlCompleteEvent(url=self.url, error=_describe(e), duration_ms=elapsed_ms(started))
                )
                if not is_transient(e) or attempt > retries:
                    raise
                await asyncio.sleep(min(ex.options.backoff_s * 2 ** (attempt - 1), 2.0))
                continue
            self.url = self.page.url
            ex.events.emit(
                UrlCompleteEvent(
                    url=self.url, duration_ms=elapsed_ms(started), title=await page_title(self.page)
                )
            )
            return

    async def attempt(self, sub: dict, manifest: Manifest, params: dict, data: dict) -> dict | None:
        ex = self.runner.ex
        retries = DEFAULT_RETRIES if sub.get("retries") is None else sub["retries"]
        timeout_ms = sub.get("timeout_ms") or manifest.timeout_ms
        tries = 0
        while True:
            tries += 1
            self.attempts += 1
            try:
                return await ex.call(manifest, params, data, timeout_ms, self.page)
            except Exception as e:  # retried when transient, else the item's (or an optional step's) failure
                if manifest.effects != "write" and is_transient(e) and tries <= retries:
                    await asyncio.sleep(min(ex.options.backoff_s * 2 ** (tries - 1), 2.0))
                    continue
                if sub.get("optional"):
                    self.runner.notes.append(
                        f"item {self.index}: optional {manifest.key} failed: {_describe(e)}"
                    )
                    return None
                raise


class _MapRun:
    """One run of a map step: its items, their outcomes, the result."""

    def __init__(self, ex: Execution, index: int, step: Step):
        self.ex, self.index, self.step = ex, index, step
        self.spec: dict = with_defaults(step.map or {})
        self.data: dict = ex.outputs.get(step.input, {}) if step.input else ex.data
        self.items: list = []
        self.chosen: list = []
        self.runs: list[_Item] = []
        self.notes: list[str] = []

    def report(self, item: _Item) -> None:
        """The item's step event: completed or failed, with its index and URL."""
        o = item.outcome or {}
        manifest = self.ex.registry.get(item.tool or "")
        label = f"item {item.index + 1}/{len(self.chosen)}" + (f" ({item.url})" if item.url else "")
        message = f"{label}: " + (
            _summary(o.get("result")) if o.get("success") else o.get("error") or "failed"
        )
        self.ex.events.emit(
            StepEvent(
                plan_index=self.index,
                status="completed" if o.get("success") else "failed",
                message=message,
                url=item.url,
                duration_ms=o.get("duration_ms"),
                details=ToolCall(
                    tool=item.tool or MAP_TOOL,
                    params=item.params,
                    tool_description=manifest.description if manifest else "",
                    success=bool(o.get("success")),
                    result_preview=preview_text(o.get("result")) if o.get("success") else None,
                    error=o.get("error"),
                    duration_ms=o.get("duration_ms") or 0,
                    attempts=item.attempts,
                    map_item={"index": item.index, "of": len(self.chosen)}
                    | ({"url": item.url} if item.url else {}),
                ),
            )
        )

    async def run(self) -> StepResult:
        spec = self.spec
        started = time.perf_counter()
        items = self.data.get(spec["over"])
        if not isinstance(items, list):
            what = "nothing" if items is None else f"a {type(items).__name__}"
            return self.failed(
                started, ToolError(f"the map goes over {spec['over']!r}, which holds {what}, not a list")
            )
        self.items = items
        limit = spec.get("max_items")
        self.chosen = items[:limit] if limit else list(items)
        self.runs = [_Item(self, i, item) for i, item in enumerate(self.chosen)]
        gate = asyncio.Semaphore(spec["concurrency"])

        async def bounded(run: _Item) -> dict:
            async with gate:
                run.started = time.perf_counter()
                return await run.run()

        tasks = [asyncio.create_task(bounded(r)) for r in self.runs]
        try:
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=(self.step.timeout_ms or 0) / 1000 or None)
                if pending:
                    for task in pending:
                        task.cancel()
                    await asyncio.gather(*pending, return_exceptions=True)
                    for run in self.runs:
                        if run.outcome is None:
                            run.finish(
                                False,
                                error=StepTimeout(
                                    f"the map did not finish within {self.step.timeout_ms} ms: item "
                                    f"{run.index} was {'stopped' if run.page is not None or run.tool else 'not run'}"
                                ),
                            )
                            self.report(run)
                    return self.finished(started, timed_out=True)
        except asyncio.CancelledError:
            # The task's time limit (or Ctrl-C): every item's page is closed, and what was done stays.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.keep_done()
            raise
        return self.finished(started)

    def outcomes(self) -> list[dict]:
        return [r.outcome for r in self.runs if r.outcome is not None]

    def merged_list(self) -> list:
        name = self.spec["as"]
        out = list(self.items)
        for run in self.runs:
            if run.outcome is not None and run.outcome["success"]:
                out[run.index] = merged(run.item, name, run.outcome["result"] or {})
        return out

    def produced(self) -> dict:
        if self.spec["merge"]:
            return {self.spec["over"]: self.merged_list()}
        return {self.spec["collect"]: self.outcomes()}

    def keep_done(self) -> None:
        """On cancellation, the items done so far go into the data (as a finished map would)."""
        if self.runs and not self.step.input:
            self.ex.data.update(self.produced())

    def finished(self, started: float, timed_out: bool = False) -> StepResult:
        spec = self.spec
        outcomes = self.outcomes()
        failed = [o for o in outcomes if not o["success"]]
        skipped = len(self.items) - len(self.chosen)
        report = {
            "over": spec["over"],
            "items": len(self.items),
            "run": len(self.chosen),
            "succeeded": len(outcomes) - len(failed),
            "failed": len(failed),
            "skipped": skipped,
            "outcomes": outcomes,
        }
        if self.notes:
            report["notes"] = list(self.notes)
        where = f"step {self.index} (map over {spec['over']})"
        if failed and not timed_out and len(failed) < len(outcomes):
            first = "; ".join(f"item {o['index']}{_at(o)}: {o['error']}" for o in failed[:3])
            more = f"; +{len(failed) - 3} more" if len(failed) > 3 else ""
            self.ex.warnings.append(
                f"{where}: {len(failed)} of {len(outcomes)} items failed and kept only what the steps "
                f"before found: {first}{more}"
            )
        if skipped:
            self.ex.warnings.append(
                f"{where}: max_items={spec['max_items']}: {skipped} of {len(self.items)} items were not run"
            )
        for note in self.notes:
            self.ex.warnings.append(f"{where}: {note}")
        output = self.produced() | {"map": report}
        if timed_out:
            return self.failed(
                started, StepTimeout(f"the map did not finish within {self.step.timeout_ms} ms"), output
            )
        if outcomes and len(failed) == len(outcomes):
            error = MapFailed(
                f"all {len(outcomes)} items failed; item 0{_at(failed[0])}: {failed[0]['error']}"
            )
            return self.failed(started, error, output)
        return StepResult(
            MAP_TOOL,
            True,
            output,
            None,
            elapsed_ms(started),
            1,
            self.index,
            self.step.id,
            optional=self.step.optional,
            params=spec,
        )

    def failed(self, started: float, error: CurllmError, output: dict | None = None) -> StepResult:
        from .executor import describe

        # A failed map still shows its outcomes: which items were done, which failed and why.
        return StepResult(
            MAP_TOOL,
            False,
            output,
            describe(error),
            elapsed_ms(started),
            1,
            self.index,
            self.step.id,
            optional=self.step.optional,
            code=error.code,
            failure=error,
            params=self.spec,
        )


async def run_map(ex: Execution, index: int, step: Step) -> bool:
    """Run a map step for the executor; True when the plan goes on (as `Execution.run_step`)."""
    spec = step.map or {}
    ex.running(
        index,
        f"map over {spec.get('over')}: {step.description or _what(spec)}",
        ToolCall(tool=MAP_TOOL, params=spec, tool_description=_what(spec)),
    )
    run = _MapRun(ex, index, step)
    result = await run.run()
    if not result.success and result.result and not step.input:
        # The items that were done are kept (as a task's time limit keeps the data so far); the
        # failure is still the step's.
        ex.data.update({k: v for k, v in result.result.items() if k != "map"})
    ex.record(result)
    if result.success:
        output = result.result or {}
        ex.data.update({k: v for k, v in output.items() if k != "map"})
        if step.id:
            ex.outputs[step.id] = dict(output)
        return True
    what = "optional step" if result.optional else "step"
    entry = error_entry(
        result.code or "TOOL_FAILED",
        f"{what} {index} (map) failed: {result.error}",
        step=index,
        tool=MAP_TOOL,
    )
    entry.optional = result.optional
    ex.errors.append(entry)
    return result.optional


def _what(spec: dict) -> str:
    tools = ", ".join(s["tool"] for s in spec.get("steps", []))
    return f"runs {tools} for each item of {spec.get('over')}" + (
        " on its own page" if "open" in spec else ""
    )


def _at(outcome: dict) -> str:
    return f" ({outcome['url']})" if outcome.get("url") else ""


def _summary(result: Any) -> str:
    if not isinstance(result, dict) or not result:
        return "done"
    keys = ", ".join(sorted(result))
    return f"found {keys}"


def _describe(e: BaseException) -> str:
    """``Type: message``, as step errors read; an item's own errors ("Unknown tool: X") as they are."""
    if isinstance(e, ItemError | ToolNotFound):
        return e.message
    from .executor import describe

    return describe(e)
