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
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

from .browser import Browser, BrowserOptions
from .errors import CurllmError, PlanError
from .events import EventBus, QueueSink
from .executor import RunOptions, execute
from .plan import Plan, check_plan
from .policy import NetworkPolicy
from .registry import Registry
from .result import Result, error_entry


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


async def execute_plan(plan: Plan | dict, url: str | None = None, *, data: dict | None = None,
                       registry: Registry | None = None, options: RunOptions | None = None,
                       events: EventBus | None = None, on_event: Callable[[dict], None] | None = None,
                       browser: Browser | None = None) -> Result:
    """Check (when given a document) and run a plan. Raises PlanError, with every problem, if invalid."""
    registry = _registry(registry)
    opts = _options(url, data, options)
    if not isinstance(plan, Plan):
        plan = check_plan(plan, registry, initial_keys=set(opts.data))
    bus = _bus(events, on_event)
    bus.emit("init", {"url": opts.url, "instruction": plan.instruction, "planner": plan.planner or "given",
                      "steps": len(plan.steps)})
    _decision_event(bus, plan, [], opts.url)
    result = await execute(plan, registry, opts, events=bus, browser=browser)
    _complete_event(bus, result)
    return result


async def arun(instruction: str | None = None, url: str | None = None, *, plan: Plan | dict | None = None,
               data: dict | None = None, model: str | None = None, registry: Registry | None = None,
               options: RunOptions | None = None, timeout: float | None = None,
               policy: NetworkPolicy | None = None, browser_options: BrowserOptions | None = None,
               events: EventBus | None = None, on_event: Callable[[dict], None] | None = None,
               browser: Browser | None = None, use_cache: bool = True, refresh_plan: bool = False) -> Result:
    """Plan (unless ``plan`` is given) and run a task. Planning failures raise PlanningError."""
    registry = _registry(registry)
    opts = _options(url, data, options, timeout_s=timeout, policy=policy, browser=browser_options)
    if plan is not None:
        return await execute_plan(plan, registry=registry, options=opts, events=events, on_event=on_event,
                                  browser=browser)
    if not instruction or not instruction.strip():
        raise PlanError("no instruction given: say what to find, e.g. \"find products under 150zł\"")
    from .planner import plan_task

    bus = _bus(events, on_event)
    bus.emit("init", {"url": opts.url, "instruction": instruction, "planner": f"llm:{model}" if model else "rules"})
    started = time.perf_counter()
    planned = await plan_task(instruction, opts.url, registry, model=model, use_cache=use_cache,
                              refresh=refresh_plan, events=bus, initial_keys=set(opts.data))
    plan_ms = int((time.perf_counter() - started) * 1000)
    _decision_event(bus, planned.plan, planned.reasoning, opts.url, planned.source)
    result = await execute(planned.plan, registry, opts, events=bus, browser=browser)
    result.timings["plan_ms"] = plan_ms
    result.usage = planned.usage
    _complete_event(bus, result)
    return result


def run(instruction: str | None = None, url: str | None = None, **kwargs: Any) -> Result:
    """Synchronous `arun`, for scripts and notebooks without an event loop."""
    return asyncio.run(arun(instruction, url, **kwargs))


async def astream(instruction: str | None = None, url: str | None = None, **kwargs: Any) -> AsyncIterator[dict]:
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
                    yield {"type": "error", "data": error_entry(exc.code, str(exc))}
                raise exc
            return


def _decision_event(bus: EventBus, plan: Plan, reasoning: list[str], url: str | None, source: str | None = None) -> None:
    calls = [{"tool": s.tool, "params": s.parameters,
              "reasoning": (reasoning[i] if i < len(reasoning) else "") or s.description}
             for i, s in enumerate(plan.steps)]
    bus.step(0, "agent_decision", "completed", f"plan of {len(plan.steps)} step(s) by {source or plan.planner or 'the user'}",
             url=url, extracted_data={"tool_calls": calls, "planner": source or plan.planner,
                                      "expected_output": plan.expected_output})


def _complete_event(bus: EventBus, result: Result) -> None:
    key, items = result.items()
    bus.emit("complete", {"ok": result.ok, "url": result.url, "items": len(items), "key": key,
                          "errors": result.errors, "duration_ms": result.timings.get("total_ms")})
