"""The Python API: ``run`` (sync), ``arun`` (async) and ``execute_plan``. Each returns a `Result`.

    import curllm_core
    result = curllm_core.run("find products under 150zł", url="https://shop.example/")
    for product in result.data["products"]: ...

An instruction is planned (rule planner by default; a litellm model when ``model`` is given); a plan
(document or `Plan`) is checked and run as it is. Events go to ``on_event`` (a callable) and/or an
`EventBus`; `astream` yields them as they happen. Each is a thin adapter over `runner.Runner`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import replace
from typing import Any

from .browser import Browser, BrowserOptions
from .engines import checked_engine
from .errors import CurllmError, PlanError
from .events import ErrorEvent, EventBus
from .events.stream import task_events
from .executor import RunOptions
from .plan import Plan
from .policy import NetworkPolicy
from .registry import Registry
from .result import Result
from .runner import Runner, TaskSpec, error_of


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


async def _run_once(runner: Runner, spec: TaskSpec, bus: EventBus | None) -> Result:
    """One task on a Runner of its own, closed after it (the HTTP engine's connections)."""
    try:
        return await runner.run(spec, events=bus)
    finally:
        await runner.aclose()


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
    engine: str | None = None,
) -> Result:
    """Check (when given a document) and run a plan. Raises PlanError, with every problem, if invalid.

    The start page is ``url``, else ``options.url``, else the plan's own ``url``. ``engine``
    (``auto``, the default; ``http``; ``browser``) is what reads the pages, as ``--engine`` says.
    """
    opts = _options(url, data, options, engine=checked_engine(engine))
    spec = TaskSpec(plan=plan, url=opts.url, data=opts.data, options=opts)
    return await _run_once(Runner(registry, browser), spec, _bus(events, on_event))


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
    max_replans: int | None = None,
    fields: list[str] | tuple[str, ...] | None = None,
    limit: int | None = None,
    consent: str | None = None,
    engine: str | None = None,
) -> Result:
    """Plan (unless ``plan`` is given) and run a task. Planning failures raise PlanningError.

    Without ``url``, the task starts at a site the instruction names that an installed tool knows
    ("produkty na Ceneo"), else at ``CURLLM_DEFAULT_URL`` or the config's ``default_url``. A task
    whose steps need a page and that has none of these fails with ``NO_URL``. ``timeout`` (seconds)
    limits the whole task, planning included. ``max_replans`` (default 1, or ``options.settings``'
    ``max_replans``) bounds how often a model may revise the plan after a failed step. ``fields``
    (``["name", "price"]``) returns only those item fields, in that order, and ``limit`` at most that
    many items, counted after the checks and the order: as "only names and prices" and "the first
    10" in the instruction, and for a given ``plan`` too. ``consent`` (``reject``, the default,
    ``accept`` or ``leave``) says what to answer a page's consent dialogs, as ``--consent`` does
    (given, it makes ``auto`` read the page in the browser: only a browser answers a dialog).
    ``engine`` (``auto``, the default; ``http``; ``browser``) is what reads the pages, as ``--engine``.
    """
    opts = _options(
        url,
        data,
        options,
        timeout_s=timeout,
        policy=policy,
        browser=browser_options,
        engine=checked_engine(engine),
    )
    if consent is not None:
        from .consent import check_mode

        mode = check_mode(consent, "consent=")
        opts = replace(opts, browser=replace(opts.browser, consent=mode, consent_asked=True))
    if plan is not None and fields is None and limit is None:
        return await execute_plan(
            plan, registry=registry, options=opts, events=events, on_event=on_event, browser=browser
        )  # ``engine`` is in ``opts``
    if plan is not None:  # a given plan, its item list cut to ``limit`` with only ``fields``
        spec = TaskSpec(
            plan=plan,
            url=opts.url,
            data=opts.data,
            options=opts,
            fields=tuple(fields) if fields is not None else None,
            limit=limit,
        )
        return await _run_once(Runner(registry, browser), spec, _bus(events, on_event))
    if max_replans is None:
        max_replans = int(opts.settings.get("max_replans", 1) or 0)
    spec = TaskSpec(
        instruction=instruction,
        url=opts.url,
        data=opts.data,
        model=model,
        options=opts,
        use_cache=use_cache,
        refresh_plan=refresh_plan,
        max_replans=max_replans,
        fields=tuple(fields) if fields is not None else None,
        limit=limit,
    )
    if not instruction or not instruction.strip():
        raise PlanError('no instruction given: say what to find, e.g. "find products under 150zł"')
    return await _run_once(Runner(registry, browser), spec, _bus(events, on_event))


def run(instruction: str | None = None, url: str | None = None, **kwargs: Any) -> Result:
    """Synchronous `arun`, for scripts and notebooks without an event loop."""
    return asyncio.run(arun(instruction, url, **kwargs))


async def astream(
    instruction: str | None = None, url: str | None = None, **kwargs: Any
) -> AsyncIterator[dict]:
    """Yield every event while the task runs; the last, ``complete``, also carries ``data["result"]``."""

    def ended(exc: BaseException | None) -> dict | None:
        return ErrorEvent(entry=error_of(exc)).to_dict() if isinstance(exc, CurllmError) else None

    stream = task_events(lambda bus: arun(instruction, url, events=bus, **kwargs), ended=ended, reraise=True)
    async with aclosing(stream):
        async for event in stream:
            yield event
