"""The map step's runtime: a sub-plan run once per item of a list, each item on its own page.

What a map step is (its spec, check, placeholders and merge) is `curllm_core.plan.map_spec`; this is
how it runs. Every item opens its URL in a fresh page of the task's browser context (the same
network policy and egress proxy, the same cookies), runs the steps there (each through the
executor's one attempt function, `Execution.attempt`) and ends as an outcome ``{"index", "tool",
"success", "result", "error"}``, never an exception: one item's failure (a 404 page, a refused URL,
an unknown tool) fails that item only, and the result says so.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from ..clock import elapsed_ms
from ..errors import BadParams, CurllmError, ItemError, MapFailed, StepTimeout, ToolError, ToolNotFound
from ..events import StepEvent, ToolCall, UrlCompleteEvent, UrlStartEvent, preview_text
from ..plan.map_spec import describe_map, fill, merged, with_defaults
from ..plan.model import MAP_TOOL, MapStep
from ..plan.params import fill_defaults, parameter_problems, step_io
from ..result import StepResult
from .calls import describe, error_code
from .page import TaskPage, page_title
from .retry import attempt

if TYPE_CHECKING:
    from ..manifest import Manifest
    from .run import Execution


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
        if not isinstance(ex.task_page, TaskPage):
            raise ItemError("a map step opens its items in the browser (the HTTP engine has no live page)")
        session = await ex.task_page.ensure_session()

        async def open_once() -> None:
            assert self.url is not None  # set above; the page's own address after each opening
            self.page = self.page or await session.new_page()
            ex.events.emit(UrlStartEvent(url=self.url))
            started = time.perf_counter()
            try:
                await session.open(self.url, page=self.page)
            except Exception as e:  # the item fails (or tries again), never the map
                ex.events.emit(
                    UrlCompleteEvent(url=self.url, error=_describe(e), duration_ms=elapsed_ms(started))
                )
                raise
            self.url = self.page.url
            ex.events.emit(
                UrlCompleteEvent(
                    url=self.url, duration_ms=elapsed_ms(started), title=await page_title(self.page, session)
                )
            )

        tried = await attempt(open_once, retries=self.runner.spec["retries"], backoff_s=ex.options.backoff_s)
        if tried.error is not None:
            raise tried.error

    async def attempt(self, sub: dict, manifest: Manifest, params: dict, data: dict) -> dict | None:
        """A sub-step through the executor's one attempt function; None for an optional sub-step
        that failed (noted), else its failure is the item's."""
        tried = await self.runner.ex.attempt(
            manifest,
            params,
            data,
            retries=sub.get("retries"),
            timeout_ms=sub.get("timeout_ms") or manifest.timeout_ms,
            page=self.page,
        )
        self.attempts += tried.attempts
        if tried.error is None:
            return tried.value
        if sub.get("optional"):
            self.runner.notes.append(
                f"item {self.index}: optional {manifest.key} failed: {_describe(tried.error)}"
            )
            return None
        raise tried.error


class _MapRun:
    """One run of a map step: its items, their outcomes, the result."""

    def __init__(self, ex: Execution, index: int, step: MapStep):
        self.ex, self.index, self.step = ex, index, step
        self.spec: dict = with_defaults(step.map)
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
        return self.result(started, output)

    def failed(self, started: float, error: CurllmError, output: dict | None = None) -> StepResult:
        # A failed map still shows its outcomes: which items were done, which failed and why.
        return self.result(started, output, error)

    def result(self, started: float, output: dict | None, error: CurllmError | None = None) -> StepResult:
        return StepResult(
            tool=MAP_TOOL,
            success=error is None,
            result=output,
            error=None if error is None else describe(error),
            duration_ms=elapsed_ms(started),
            attempts=1,
            step=self.index,
            id=self.step.id,
            optional=self.step.optional,
            code=None if error is None else error.code,
            failure=error,
            params=self.spec,
        )


async def run_map(ex: Execution, index: int, step: MapStep) -> bool:
    """Run a map step for the executor; True when the plan goes on (as `Execution.run_step`)."""
    spec = step.map
    ex.running(
        index,
        f"map over {spec.get('over')}: {step.description or describe_map(spec)}",
        ToolCall(tool=MAP_TOOL, params=spec, tool_description=describe_map(spec)),
    )
    run = _MapRun(ex, index, step)
    result = await run.run()
    if not result.success and result.result and not step.input:
        # The items that were done are kept (as a task's time limit keeps the data so far); the
        # failure is still the step's.
        ex.data.update({k: v for k, v in result.result.items() if k != "map"})
    ex.record(result)
    produced = [k for k in (result.result or {}) if k != "map"]
    return ex.conclude(index, step, result, produced)


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
    return describe(e)
