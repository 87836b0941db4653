"""The Python API: ``run`` (sync), ``arun`` (async) and ``execute_plan``. Each returns a `Result`.

    import curllm_core
    result = curllm_core.run("find products under 150zł", url="https://shop.example/")
    for product in result.data["products"]: ...

An instruction is planned (rule planner by default; a litellm model when ``model`` is given); a plan
(document or `Plan`) is checked and run as it is. Events go to ``on_event`` (a callable) and/or an
`EventBus`; `astream` yields them as they happen.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

from .browser import Browser, BrowserOptions
from .browser_path import find_browser
from .errors import CurllmError, PlanError
from .events import EventBus, QueueSink, now_iso, preview
from .executor import Execution, RunOptions, execute
from .plan import Plan, check_plan
from .policy import NetworkPolicy
from .registry import Registry
from .result import Result, error_entry

log = logging.getLogger("curllm.api")


def _registry(registry: Registry | None) -> Registry:
    if registry is not None:
        return registry
    from .plugins import load_registry

    return load_registry()


def _bus(events: EventBus | None, on_event: Callable[[dict], None] | None) -> EventBus:
    bus = events or EventBus()
    if on_event is not None:
        bus.add(on_event)
    return bus


def _options(url: str | None, data: dict | None, options: RunOptions | None, **overrides: Any) -> RunOptions:
    opts = options or RunOptions()
    if url is not None:
        opts = replace(opts, url=url)
    if data is not None:
        opts = replace(opts, data=dict(data))
    for key, value in overrides.items():
        if value is not None:
            opts = replace(opts, **{key: value})
    return opts


async def execute_plan(
    plan: Plan | dict,
    url: str | None = None,
    *,
    data: dict | None = None,
    registry: Registry | None = None,
    options: RunOptions | None = None,
    events: EventBus | None = None,
    on_event: Callable[[dict], None] | None = None,
    browser: Browser | None = None,
) -> Result:
    """Check (when given a document) and run a plan. Raises PlanError, with every problem, if invalid."""
    registry = _registry(registry)
    opts = _options(url, data, options)
    if not isinstance(plan, Plan):
        plan = check_plan(plan, registry, initial_keys=set(opts.data))
    bus = _bus(events, on_event)
    bus.emit(
        "init",
        {
            "url": opts.url,
            "instruction": plan.instruction,
            "planner": plan.planner or "given",
            "steps": len(plan.steps),
        },
    )
    _decision_event(bus, plan, [], opts.url)
    result = await execute(plan, registry, opts, events=bus, browser=browser)
    _complete_event(bus, result)
    return result


async def arun(
    instruction: str | None = None,
    url: str | None = None,
    *,
    plan: Plan | dict | None = None,
    data: dict | None = None,
    model: str | None = None,
    registry: Registry | None = None,
    options: RunOptions | None = None,
    timeout: float | None = None,
    policy: NetworkPolicy | None = None,
    browser_options: BrowserOptions | None = None,
    events: EventBus | None = None,
    on_event: Callable[[dict], None] | None = None,
    browser: Browser | None = None,
    use_cache: bool = True,
    refresh_plan: bool = False,
) -> Result:
    """Plan (unless ``plan`` is given) and run a task. Planning failures raise PlanningError."""
    registry = _registry(registry)
    opts = _options(url, data, options, timeout_s=timeout, policy=policy, browser=browser_options)
    if plan is not None:
        return await execute_plan(
            plan, registry=registry, options=opts, events=events, on_event=on_event, browser=browser
        )
    if not instruction or not instruction.strip():
        raise PlanError('no instruction given: say what to find, e.g. "find products under 150zł"')
    from .planner import plan_task

    bus = _bus(events, on_event)
    bus.emit(
        "init", {"url": opts.url, "instruction": instruction, "planner": f"llm:{model}" if model else "rules"}
    )
    started = time.perf_counter()
    # The execution exists before the plan so that a model can be shown the page it will work on:
    # the page opened for the summary is the one the steps then use (no second navigation).
    execution = Execution(Plan(steps=[]), registry, opts, bus, browser)
    if browser is None and opts.url and not model:
        await _warm_up(execution)
    try:
        planned = await plan_task(
            instruction,
            opts.url,
            registry,
            model=model,
            use_cache=use_cache,
            refresh=refresh_plan,
            events=bus,
            initial_keys=set(opts.data),
            page_summary=_page_summary(execution) if model and opts.url else None,
        )
        if browser is None and planned.plan.needs_page and execution.session is None:
            find_browser()  # as execute() does: BrowserNotFound before any step runs
    except BaseException:
        await execution.close()
        raise
    plan_ms = int((time.perf_counter() - started) * 1000)
    _decision_event(bus, planned.plan, planned.reasoning, opts.url, planned.source)
    execution.plan = planned.plan
    replanner = None
    max_replans = int(opts.settings.get("max_replans", 1) or 0)
    # Re-planning needs a model that answered: after a failed (fallen-back) planning it would fail again.
    if model and max_replans > 0 and not planned.source.startswith("rules"):
        replanner = _Replanner(instruction, model, registry, bus, max_replans)
        execution.replan = replanner
    result = await execution.run()
    result.timings["plan_ms"] = plan_ms
    result.timings["total_ms"] = result.timings.get("total_ms", 0) + plan_ms
    result.usage = planned.usage
    if replanner is not None and replanner.usage is not None:
        from .planner.llm import merge_usage

        result.usage = merge_usage(result.usage, replanner.usage)
    _complete_event(bus, result)
    return result


async def _warm_up(execution: Execution) -> None:
    """Start the browser while the rules plan: Chromium boots in its own process meanwhile.

    The launch goes on in a task; the planner's slowest part, importing the plan checker, runs
    after the task has reached its first wait. If the plan needs no page, closing the execution
    closes the browser again; a launch that fails is reported by the first step that needs it.
    """
    execution.browser = Browser(headless=execution.options.browser.headless)

    async def launch() -> None:
        try:
            await execution.browser.start()
        except Exception as e:  # reported where a page is needed (BrowserNotFound before any step)
            log.debug("browser warm-up failed: %s", e)

    execution.warm_up = asyncio.create_task(launch())
    await asyncio.sleep(0)  # the task imports Playwright and spawns its driver, then waits
    import jsonschema  # noqa: F401 - the checker's import overlaps the driver's start

    await asyncio.sleep(0)  # let the launch request go out before planning continues


def _page_summary(execution: Execution) -> Callable[[], Awaitable[dict | None]]:
    """Open the start page (once, in the execution's session) and summarise it for the model."""

    async def summarize() -> dict | None:
        from .planner.llm import summarize_page

        try:
            await execution.ensure_page()
            return await summarize_page(execution.page)
        except Exception as e:  # only a hint for the model: planning goes on without it
            log.debug("no page summary for the planner: %s", e)
            return None

    return summarize


class _Replanner:
    """After a failed step, asks the model for a revised plan of what remains (``max_replans`` times)."""

    def __init__(self, instruction: str, model: str, registry: Registry, bus: EventBus, limit: int):
        self.instruction, self.model, self.registry, self.bus, self.limit = (
            instruction,
            model,
            registry,
            bus,
            limit,
        )
        self.rounds = 0
        self.usage: dict | None = None

    async def __call__(self, execution: Execution, index: int) -> Plan | None:
        from .executor import PAGE_ERRORS
        from .planner import warn
        from .planner.llm import LLMFailure, merge_usage, replan_with_llm, summarize_page

        failed = execution.steps[-1] if execution.steps else None
        # A page that cannot be had defeats any plan; and the number of rounds is bounded.
        if failed is None or failed.code in PAGE_ERRORS or self.rounds >= self.limit:
            return None
        self.rounds += 1
        history = [
            {
                "step": r.step,
                "tool": r.tool,
                "success": r.success,
                "result_preview": preview(r.result) if r.success else None,
                "error": r.error,
            }
            for r in execution.steps
        ]
        summary = None
        if execution.page is not None:
            try:
                summary = await summarize_page(execution.page)
            except Exception as e:  # a hint only, as for the first plan
                log.debug("no page summary for re-planning: %s", e)
        try:
            planned = await replan_with_llm(
                self.instruction,
                execution.url,
                self.registry,
                self.model,
                history=history,
                remaining=execution.plan.steps[index:],
                data_keys=set(execution.data),
                expected_output=execution.plan.expected_output,
                page_summary=summary,
            )
        except LLMFailure as e:
            self.usage = merge_usage(self.usage, e.usage)
            warn(f"model {self.model} could not revise the plan ({e.reason}); stopping at the failed step")
            return None
        self.usage = merge_usage(self.usage, planned.usage)
        for entry in execution.errors:
            if entry.get("step") == index and not entry.get("optional"):
                entry["recovered"] = True  # the revised plan takes over; its own failures still count
        old = execution.plan
        revised = Plan(
            old.steps[:index] + planned.plan.steps,
            planned.plan.expected_output or old.expected_output,
            old.fallback,
            old.instruction,
            old.url,
            old.planner,
            old.needs_page or planned.plan.needs_page,
        )
        _decision_event(
            self.bus,
            planned.plan,
            planned.reasoning,
            execution.url,
            planned.source,
            message=f"revised plan of {len(planned.plan.steps)} step(s) by {planned.source} after step "
            f"{index} ({failed.tool}) failed",
            extra={"replan": self.rounds, "after_step": index, "first_step": index + 1},
        )
        return revised


def run(instruction: str | None = None, url: str | None = None, **kwargs: Any) -> Result:
    """Synchronous `arun`, for scripts and notebooks without an event loop."""
    return asyncio.run(arun(instruction, url, **kwargs))


async def astream(
    instruction: str | None = None, url: str | None = None, **kwargs: Any
) -> AsyncIterator[dict]:
    """Yield every event while the task runs; the last, ``complete``, also carries ``data["result"]``."""
    queue: asyncio.Queue = asyncio.Queue()
    bus = EventBus([QueueSink(queue)])
    task = asyncio.create_task(arun(instruction, url, events=bus, **kwargs))
    while True:
        getter = asyncio.ensure_future(queue.get())
        done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            event = getter.result()
            if event["type"] == "complete":
                result = await task
                yield {"type": "complete", "data": {**event["data"], "result": result.to_dict()}}
                return
            yield event
        else:
            getter.cancel()
            while not queue.empty():
                yield queue.get_nowait()
            exc = task.exception()
            if exc is not None:
                if isinstance(exc, CurllmError):
                    yield {
                        "type": "error",
                        "data": {**error_entry(exc.code, str(exc)), "timestamp": now_iso()},
                    }
                raise exc
            return


def _decision_event(
    bus: EventBus,
    plan: Plan,
    reasoning: list[str],
    url: str | None,
    source: str | None = None,
    *,
    message: str | None = None,
    extra: dict | None = None,
) -> None:
    calls = [
        {
            "tool": s.tool,
            "params": s.parameters,
            "reasoning": (reasoning[i] if i < len(reasoning) else "") or s.description,
        }
        for i, s in enumerate(plan.steps)
    ]
    bus.step(
        0,
        "agent_decision",
        "completed",
        message or f"plan of {len(plan.steps)} step(s) by {source or plan.planner or 'the user'}",
        url=url,
        extracted_data={
            "tool_calls": calls,
            "planner": source or plan.planner,
            "expected_output": plan.expected_output,
            **(extra or {}),
        },
    )


def _complete_event(bus: EventBus, result: Result) -> None:
    key, items = result.items()
    bus.emit(
        "complete",
        {
            "ok": result.ok,
            "url": result.url,
            "items": len(items),
            "key": key,
            "errors": result.errors,
            "duration_ms": result.timings.get("total_ms"),
        },
    )
