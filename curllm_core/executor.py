"""The executor: runs a checked plan step by step and always returns a `Result`.

Per step: the start page is opened first if the tool needs a page; the tool runs under its time
limit; its output is checked against its manifest's ``output_schema``; the keys it produces are
merged into the data (see docs/plan.md, "Data and merging"). A failure is retried when transient
(timeouts, navigation errors) with backoff, then handed to the step's fallback, then to the plan's
fallback when that produces the same keys. Exceptions from tools never escape: they become failed
step results and entries in ``errors``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import markup
from .browser import Browser, BrowserOptions, Session
from .browser_path import find_browser
from .errors import (
    CurllmError,
    NoURL,
    OutputInvalid,
    PageUnavailable,
    StepOverrun,
    StepTimeout,
    SubmitUndone,
    ToolError,
    is_transient,
)
from .event_types import StepEvent, ToolCall, UrlCompleteEvent, UrlStartEvent
from .events import FAILED_STEP_REWARD, EventBus, preview_text
from .manifest import Manifest
from .plan import DEFAULT_RETRIES, Plan, Step, fill_defaults, step_io, step_keys
from .policy import NetworkPolicy
from .registry import Registry
from .result import ErrorEntry, Result, StepResult, error_entry
from .tool import ToolContext, load_callable

log = logging.getLogger("curllm.executor")


@dataclass
class RunOptions:
    """How to run a plan: start page, initial data, browser and network settings, limits."""

    url: str | None = None
    data: dict = field(default_factory=dict)
    browser: BrowserOptions = field(default_factory=BrowserOptions)
    policy: NetworkPolicy = field(default_factory=NetworkPolicy)
    timeout_s: float | None = None  # the whole task
    backoff_s: float = 0.25  # first retry delay; doubles per attempt
    settings: dict = field(default_factory=dict)  # handed to tools as ctx.settings


def describe(exc: BaseException) -> str:
    """``Type: message``, the form every step error takes."""
    if isinstance(exc, CurllmError):
        return f"{type(exc).__name__}: {exc.message}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else "(no message)"
    return f"{type(exc).__name__}: {text}"


def error_code(exc: BaseException) -> str:
    return exc.code if isinstance(exc, CurllmError) else "TOOL_FAILED"


_validators: dict[int, Any] = {}


def _output_validator(manifest: Manifest):
    from jsonschema import Draft202012Validator

    key = id(manifest.output_schema)
    if key not in _validators:
        _validators[key] = Draft202012Validator(manifest.output_schema)
    return _validators[key]


def preload_tools(plan: Plan, registry: Registry) -> None:
    """Import the code of the tools the plan's steps call, before the steps run.

    The runner calls it while the browser starts, so that this work (tens of ms of CPU for an
    extraction module) fills that wait instead of following it. Fallbacks are left out (they may
    never run); a tool that does not load is left for its step to report, as without this."""
    for step in plan.steps:
        manifest = registry.get(step.tool)
        if manifest is None:
            continue
        inner = step.parameters.get(manifest.parameter_for("tool") or "")
        for m in (manifest, registry.get(inner) if isinstance(inner, str) else None):
            if m is None:
                continue
            try:
                load_callable(m, registry.impls.get(m.key))
            except CurllmError:  # EntrypointImport, EntrypointInvalid: the step reports them
                pass


# A step that returns later than this past its limit held the event loop: it does not count.
OVERRUN_GRACE_MS = 250


class TaskPage:
    """The page of one task: a browser session (a context and its page) opened once at the start URL.

    It exists before the plan does, so that a model can be shown the page the steps then use (no
    second navigation), and the browser can start while the rules plan (`warm_up`). The `Execution`
    takes it over and closes it. ``browser`` is shared when given; else one is started on demand and
    closed with the page.
    """

    def __init__(self, options: RunOptions, events: EventBus, browser: Browser | None = None):
        self.options, self.events = options, events
        self.browser = browser
        self.owns_browser = browser is None
        self.session: Session | None = None
        self.opened = False  # the start URL is loaded in the session's page
        self.warming: asyncio.Task | None = None  # a browser launch started early (`warm_up`)
        #: What getting the page cost, before and during the run (the task's timings start here).
        self.timings: dict[str, int] = {"browser_ms": 0, "navigation_ms": 0}

    @property
    def page(self):
        return self.session.page if self.session else None

    @property
    def url(self) -> str | None:
        return self.page.url if self.page is not None and self.page.url != "about:blank" else self.options.url

    @property
    def launching(self) -> bool:
        """Whether the browser is being started early (`warm_up`) and is not up yet."""
        return self.warming is not None and not self.warming.done()

    async def warm_up(self) -> None:
        """Start launching the browser in a task and return at once (a failed launch is reported by
        the first step that needs a page, not here)."""
        if self.browser is None:
            self.browser = Browser(headless=self.options.browser.headless)
        elif self.browser.started:
            return
        browser = self.browser

        async def launch() -> None:
            try:
                await browser.start()
            except Exception as e:  # reported where a page is needed (BrowserNotFound before any step)
                log.debug("browser warm-up failed: %s", e)

        self.warming = asyncio.create_task(launch())
        await asyncio.sleep(0)  # the task imports Playwright and spawns its driver, then waits

    async def ensure_session(self) -> Session:
        """The task's browser session (context), started without opening the start URL."""
        if self.session is None:
            started = time.perf_counter()
            if self.browser is None:
                self.browser = Browser(headless=self.options.browser.headless)
            self.session = await self.browser.new_session(self.options.browser, self.options.policy)
            self.timings["browser_ms"] += elapsed_ms(started)
        return self.session

    async def open(self) -> None:
        """Start the browser and open the start URL (once; a no-op when it is open).

        One attempt per call: a failed opening raises, and the step's own retries try again.
        """
        if self.opened:
            return
        if not self.options.url:
            raise NoURL(
                # Worded for every entry point: a library caller has no --url to pass.
                "this step needs a web page but no URL was given: give the task a start URL (or name"
                " a site the installed tools know)"
            )
        await self.options.policy.check(self.options.url)  # refuse before starting anything
        session = await self.ensure_session()
        url = self.options.url
        self.events.emit(UrlStartEvent(url=url))
        started = time.perf_counter()
        try:
            await session.open(url)
        except PageUnavailable as e:
            self.timings["navigation_ms"] += elapsed_ms(started)
            self.events.emit(UrlCompleteEvent(url=url, error=describe(e), duration_ms=elapsed_ms(started)))
            raise
        self.opened = True
        self.timings["navigation_ms"] += elapsed_ms(started)
        self.events.emit(
            UrlCompleteEvent(
                url=self.page.url, duration_ms=elapsed_ms(started), title=await page_title(self.page)
            )
        )

    async def close(self) -> None:
        if self.warming is not None:
            await self.warming  # never raises: a failed launch is reported where a page is needed
        if self.session is not None:
            await self.session.close()
        if self.owns_browser and self.browser is not None:
            await self.browser.close()


#: Called after a failed step with (execution, index of the step); returns a revised plan (the steps
#: run so far, then new ones) or None to stop.
Replan = Callable[["Execution", int], Awaitable[Plan | None]]


class Execution:
    """The state of one run of one plan.

    ``page`` is the task's `TaskPage` when one was made before the plan (see `Runner.prepare`), else
    one is made on ``browser`` (shared when given). ``replan``, when given, may replace the rest of
    the plan after a failed step (a model re-planning).
    """

    def __init__(
        self,
        plan: Plan,
        registry: Registry,
        options: RunOptions,
        events: EventBus,
        browser: Browser | None = None,
        *,
        page: TaskPage | None = None,
        replan: Replan | None = None,
    ):
        self.plan, self.registry, self.options, self.events = plan, registry, options, events
        self.task_page = page if page is not None else TaskPage(options, events, browser)
        self.replan = replan
        self.open_error: Exception | None = None  # opening the page failed before the step's first attempt
        self.data: dict = dict(options.data)
        self.outputs: dict[str, dict] = {}
        self.steps: list[StepResult] = []
        self.errors: list[ErrorEntry] = []
        self.timings: dict[str, int] = self.task_page.timings
        self.timings["steps_ms"] = 0
        #: What the run did not fully do (a map's failed items), added to the plan's warnings.
        self.warnings: list[str] = []

    # --- the page ------------------------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        return self.task_page.session

    @property
    def page(self):
        return self.task_page.page

    @property
    def opened(self) -> bool:
        return self.task_page.opened

    @property
    def url(self) -> str | None:
        return self.task_page.url

    async def ensure_page(self) -> None:
        """Start the browser and open the start URL, before the first step that needs a page."""
        await self.task_page.open()

    # --- one tool call -------------------------------------------------------------------------

    def context(self, manifest: Manifest, data: dict, page: Any = None) -> ToolContext:
        """The tool's context: on the task's page, or on ``page`` (a map item's own page)."""
        return ToolContext(
            page=(page if page is not None else self.page) if manifest.needs_page else None,
            data=data,
            manifest=manifest,
            settings=self.options.settings,
            emit=self.events.emit,
            log=logging.getLogger(f"curllm.tool.{manifest.key}"),
            browser=self.session,
            url=page.url if page is not None else self.url,
            run_tool=lambda name, **params: self.run_nested(name, data, params, page),
            warn=lambda text: self.warnings.append(f"{manifest.key}: {text}"),
        )

    async def call(
        self, manifest: Manifest, params: dict, data: dict, timeout_ms: int, page: Any = None
    ) -> dict:
        """One attempt: run the tool under its time limit and check its output (on ``page`` when
        given, else on the task's page, opened first)."""
        if manifest.needs_page and page is None:
            if self.open_error is not None:  # that failure is this attempt's: the page is not opened twice
                e, self.open_error = self.open_error, None
                raise e
            await self.ensure_page()
        fn = load_callable(manifest, self.registry.impls.get(manifest.key))
        started = time.perf_counter()
        try:
            output = await asyncio.wait_for(
                fn(self.context(manifest, dict(data), page), **params), timeout_ms / 1000
            )
            took = elapsed_ms(started)
        except TimeoutError:
            raise StepTimeout(f"{manifest.key} did not finish within {timeout_ms} ms") from None
        if took > timeout_ms + OVERRUN_GRACE_MS:
            # The tool kept the event loop busy (CPU-bound work), so its time limit could not fire:
            # its answer came too late to count, and doing it again would burn as long.
            raise StepOverrun(
                f"{manifest.key} did not finish within {timeout_ms} ms (it took {took} ms of work "
                "that could not be interrupted)"
            )
        if not isinstance(output, dict):
            raise OutputInvalid(f"{manifest.key} returned {type(output).__name__}, not an object")
        errors = sorted(
            _output_validator(manifest).iter_errors(output), key=lambda e: list(map(str, e.absolute_path))
        )
        if errors:
            e = errors[0]
            where = "/" + "/".join(map(str, e.absolute_path))
            raise OutputInvalid(
                f"{manifest.key} output does not match its output_schema at {where}: {e.message}"
                + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else "")
            )
        return output

    async def run_nested(self, name: str, data: dict, params: dict, page: Any = None) -> dict:
        """``ctx.run_tool``: another tool on the same page and data, parameters checked first."""
        from .plan import parameter_problems

        manifest = self.registry.resolve(name)
        params = fill_defaults(manifest.parameters, params)
        problems = parameter_problems(manifest, params, [])
        if problems:
            raise ToolError(f"bad parameters for {manifest.key}: " + "; ".join(p.message for p in problems))
        return await self.call(manifest, params, data, manifest.timeout_ms, page)

    async def attempts(
        self,
        index: int,
        step: Step,
        manifest: Manifest,
        params: dict,
        data: dict,
        fallback_for: str | None = None,
    ) -> StepResult:
        """Run with retries of transient failures; the result says how many attempts it took."""
        retries = DEFAULT_RETRIES if step.retries is None else step.retries
        timeout_ms = step.timeout_ms if (step.timeout_ms and fallback_for is None) else manifest.timeout_ms
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                output = await self.call(manifest, params, data, timeout_ms)
                return StepResult(
                    manifest.key,
                    True,
                    output,
                    None,
                    elapsed_ms(started),
                    attempt,
                    index,
                    step.id,
                    fallback_for,
                    optional=step.optional,
                    params=params,
                )
            except Exception as e:  # every failure of a tool becomes a step result, never an escape
                # A write tool that ran may have submitted something already: trying again could do
                # it twice. Failing to open the page first (the tool never ran) is retried as usual.
                wrote = manifest.effects == "write" and (self.opened or not manifest.needs_page)
                if wrote or not is_transient(e) or attempt > retries:
                    if not isinstance(e, CurllmError):
                        log.debug("step %s failed", index, exc_info=True)
                    return StepResult(
                        manifest.key,
                        False,
                        None,
                        describe(e),
                        elapsed_ms(started),
                        attempt,
                        index,
                        step.id,
                        fallback_for,
                        # a tool that undid what it did (a form that broke the page) leaves the plan
                        # able to go on: its failure counts as an optional step's
                        optional=step.optional or isinstance(e, SubmitUndone),
                        code=error_code(e),
                        failure=e,
                        params=params,
                    )
                await asyncio.sleep(min(self.options.backoff_s * 2 ** (attempt - 1), 2.0))

    def fallback_params(self, manifest: Manifest, params: dict) -> dict | None:
        """The step's parameters that the fallback tool understands, with its defaults; None if invalid."""
        from .plan import parameter_problems

        props = manifest.parameters.get("properties") or {}
        adapted = fill_defaults(manifest.parameters, {k: v for k, v in params.items() if k in props})
        if parameter_problems(manifest, adapted, []):
            adapted = fill_defaults(manifest.parameters, {})
            if parameter_problems(manifest, adapted, []):
                return None
        return adapted

    def fallbacks(self, step: Step, manifest: Manifest) -> list[Manifest]:
        """The step's own fallback, then the plan's fallback if it produces the same keys."""
        found = []
        if step.fallback:
            found.append(self.registry.resolve(step.fallback))
        if self.plan.fallback:
            plan_fb = self.registry.resolve(self.plan.fallback)
            _, produces = step_io(manifest, step.parameters, self.registry)
            if produces and set(produces) <= set(plan_fb.produces) and plan_fb.key != manifest.key:
                found.append(plan_fb)
        return [m for i, m in enumerate(found) if m.key not in {f.key for f in found[:i]}]

    # --- the plan ------------------------------------------------------------------------------

    async def run_step(self, index: int, step: Step) -> bool:
        if step.map is not None:
            from .mapping import run_map

            return await run_map(self, index, step)
        manifest = self.registry.resolve(step.tool)
        data = self.outputs.get(step.input, {}) if step.input else self.data
        self.running(
            index,
            f"{manifest.key}: {step.description or manifest.description}",
            ToolCall(tool=manifest.key, params=step.parameters, tool_description=manifest.description),
        )
        params = step.parameters
        choice = await self.choose(index, manifest, params)
        if choice is not None:
            manifest, params = choice.manifest, choice.params
        result = await self.attempts(index, step, manifest, params, data)
        result.choice = choice.report() if choice else None
        # No fallback can help when the page itself cannot be had.
        undone = result.optional and not step.optional  # the tool put the page back: nothing to fall back on
        if not result.success and not isinstance(result.failure, PageUnavailable) and not undone:
            for fb in self.fallbacks(step, manifest):
                fb_params = self.fallback_params(fb, step.parameters)
                if fb_params is None:
                    continue
                self.record(result)
                self.events.emit(
                    StepEvent(
                        plan_index=index,
                        status="running",
                        message=f"{fb.key}: fallback for {manifest.key}",
                        url=self.url,
                        details=ToolCall(tool=fb.key, params=fb_params, tool_description=fb.description),
                    )
                )
                manifest, params = fb, fb_params
                result = await self.attempts(index, step, fb, fb_params, data, fallback_for=step.tool)
                if result.success:
                    break
        if result.success:
            manifest, params, result = await self.when_empty(index, step, manifest, params, data, result)
        self.record(result)
        if result.success:
            output = result.result or {}
            _, produces = step_io(manifest, params, self.registry)
            self.data.update({k: output[k] for k in produces if k in output})
            if step.id:
                self.outputs[step.id] = dict(output)
            return True
        await self.screenshot(index, manifest)
        what = "optional step" if result.optional else "step"
        entry = error_entry(
            result.code or "TOOL_FAILED",
            f"{what} {index} ({step.tool}) failed: {result.error}",
            step=index,
            tool=step.tool,
        )
        entry.optional = result.optional
        self.errors.append(entry)
        return result.optional

    async def choose(self, index: int, manifest: Manifest, params: dict) -> markup.Choice | None:
        """The tool the page's markup calls for instead of the planned extraction (see markup.py)."""
        if not (manifest.needs_page and self.page_tools(manifest, params)):
            return None
        try:
            await self.ensure_page()
        except Exception as e:  # reported by the step's first attempt, without opening the page again
            self.open_error = e
            return None
        choice = await markup.choose(self.page, self.registry, manifest, params)
        if choice is not None:
            self.announce(index, choice)
        return choice

    def running(self, index: int, message: str, call: ToolCall) -> None:
        """The step event saying that step ``index`` starts ``call`` (a tool, the tool chosen for it, a map)."""
        self.events.emit(
            StepEvent(plan_index=index, status="running", message=message, url=self.url, details=call)
        )

    def announce(self, index: int, choice: markup.Choice) -> None:
        self.running(
            index,
            f"{choice.chosen}: {choice.reason}",
            ToolCall(
                tool=choice.manifest.key,
                params=choice.params,
                tool_description=choice.manifest.description,
                choice=choice.report(),
            ),
        )

    def page_tools(self, manifest: Manifest, params: dict) -> bool:
        """Whether any tool declares markup for what this step extracts (no browser call otherwise)."""
        tool = manifest.parameter_for("tool")
        inner = self.registry.get(params[tool]) if tool and isinstance(params.get(tool), str) else manifest
        if inner is None or inner.category != "extraction":
            return False
        return any(m.key != inner.key for m in markup.candidates(self.registry, list(inner.produces)))

    async def when_empty(
        self, index: int, step: Step, manifest: Manifest, params: dict, data: dict, result: StepResult
    ) -> tuple[Manifest, dict, StepResult]:
        """An extraction that found nothing: try the tools whose markup the page shows, then the generic
        tools of the same kind (each must take the step's parameters); the first that finds something
        wins. Without one, the empty result stands (and the end-of-run check reports EMPTY_OUTPUT)."""
        _, produces = step_io(manifest, params, self.registry)
        if not markup.empty(result.result, produces) or self.page is None:
            return manifest, params, result
        tool = manifest.parameter_for("tool")
        tried = {params[tool] if tool and isinstance(params.get(tool), str) else manifest.key}
        best = result
        for alt in await markup.alternatives(self.page, self.registry, manifest, params, tried):
            self.record(result)  # the empty one, or an alternative that failed
            self.announce(index, alt)
            instead = step.tool if alt.manifest.key != step.tool else None
            result = await self.attempts(index, step, alt.manifest, alt.params, data, fallback_for=instead)
            result.choice = alt.report()
            if result.success:
                manifest, params, best = alt.manifest, alt.params, result
                if not markup.empty(result.result, produces):
                    break
        self.record(result)
        return manifest, params, best

    def record(self, result: StepResult) -> None:
        if any(r is result for r in self.steps[-3:]):
            return  # already reported (an empty extraction whose alternatives were tried)
        self.emit_step(result)
        self.steps.append(result)

    def emit_step(self, result: StepResult) -> None:
        status = "completed" if result.success else "failed"
        label = result.tool + (f" (fallback for {result.fallback_for})" if result.fallback_for else "")
        message = f"{label}: " + (_summary(result.result) if result.success else result.error or "failed")
        manifest = self.registry.get(result.tool)
        self.events.emit(
            StepEvent(
                plan_index=result.step,
                status=status,
                message=message,
                url=self.url,
                duration_ms=result.duration_ms,
                reward=self.reward(result),
                details=ToolCall(
                    tool=result.tool,
                    params=result.params,
                    tool_description=manifest.description if manifest else "",
                    choice=result.choice,
                    success=result.success,
                    result_preview=preview_text(result.result) if result.success else None,
                    error=result.error,
                    duration_ms=result.duration_ms,
                    attempts=result.attempts,
                    optional=result.optional,
                ),
            )
        )

    def reward(self, result: StepResult) -> float:
        """The step event's reward (docs/results-and-events.md#rewards), deterministic.

        A task is worth 1.0, shared equally among the plan's steps whose tool produces the expected
        output: such a step that returns a non-empty value of it earns its share. A failed tool call
        costs `FAILED_STEP_REWARD`; anything else (a form filled, an empty extraction) earns 0.
        """
        if not result.success:
            return FAILED_STEP_REWARD
        expected = self.plan.expected_output
        value = (result.result or {}).get(expected) if expected else None
        if value is None or value == [] or value == {}:
            return 0.0
        producers = sum(expected in step_keys(step, self.registry)[1] for step in self.plan.steps)
        return 1.0 / max(producers, 1)

    async def screenshot(self, index: int, manifest: Manifest) -> None:
        if self.options.browser.screenshots and self.session is not None:
            path = Path(self.options.browser.screenshots) / f"step{index}-{manifest.key}.png"
            if await self.session.screenshot(path):
                self.steps[-1].screenshot = str(path)

    async def run_steps(self) -> None:
        """Run the plan's steps in order; after a failed step, `replan` (when set) may replace the rest."""
        index = 0
        while index < len(self.plan.steps):
            step = self.plan.steps[index]
            index += 1
            if await self.run_step(index, step):
                continue
            revised = await self.replan(self, index) if self.replan is not None else None
            if revised is None:
                break
            self.plan = revised
        else:
            final = self.final_fallback()
            if final is not None:
                await self.run_step(len(self.plan.steps) + 1, final)

    def final_fallback(self) -> Step | None:
        """The step that makes the plan's fallback produce the expected output, when no step did.

        The design's form plans (``forms.price_filter`` then ``"fallback":
        "extraction.products_generic"``) leave a filtered listing and name the tool that reads it.
        It reads every page of that listing (through ``navigation.pagination`` when installed), and
        the price bounds a form step applied bound the products too, so a lax site filter cannot
        widen the answer.
        """
        expected, name = self.plan.expected_output, self.plan.fallback
        if not expected or not name or expected in self.data or self.errors:
            return None
        fb = self.registry.resolve(name)
        if expected not in fb.produces:
            return None
        props = fb.parameters.get("properties") or {}
        bounds: dict = {}
        for step in self.plan.steps:
            form = self.registry.get(step.tool)
            if form is None or form.category != "forms":
                continue
            for mine, theirs in (("min", "min_price"), ("max", "max_price")):
                value = step.parameters.get(mine)
                if isinstance(value, int | float) and not isinstance(value, bool) and theirs in props:
                    bounds[theirs] = value
        pager = self.registry.get("navigation.pagination")
        tool = pager.parameter_for("tool") if pager is not None else None
        if fb.category == "extraction" and pager is not None and tool is not None:
            params: dict = {tool: fb.key}
            if (tool_params := pager.parameter_for("tool_parameters")) is not None:
                params[tool_params] = bounds
            return Step(pager.key, params, f"the plan's fallback {fb.key} on every page of the listing")
        return Step(fb.key, bounds, f"the plan's fallback {fb.key}")

    async def run(self) -> Result:
        started = time.perf_counter()
        # The page may have been opened before the run (to summarise it for a planner): not a step cost.
        before = self.timings["browser_ms"] + self.timings["navigation_ms"]
        try:
            async with asyncio.timeout(self.options.timeout_s):
                await self.run_steps()
        except TimeoutError:
            took = (time.perf_counter() - started) - (self.options.timeout_s or 0)
            late = f"; it was stopped {took:.1f} s late: CPU-bound work held the process" if took > 1 else ""
            self.errors.append(
                error_entry(
                    "TASK_TIMEOUT",
                    f"the task did not finish within {self.options.timeout_s:g} s"
                    f" (--timeout); results so far are kept{late}",
                )
            )
        finally:
            self.timings["steps_ms"] = (
                elapsed_ms(started) + before - self.timings["browser_ms"] - self.timings["navigation_ms"]
            )
            await self.close()
        self.timings["total_ms"] = elapsed_ms(started)
        return self.finish()

    def finish(self) -> Result:
        expected = self.plan.expected_output
        if self.session is not None:
            # The page was sent somewhere the policy refuses (a click, a script, a redirect): that,
            # not the empty page left behind, is why the task failed.
            reported = {e.message for e in self.errors}
            for refused in self.session.blocked_navigations:
                if not any(refused.message in m for m in reported):
                    self.errors.append(
                        error_entry(refused.code, f"the page was not opened: {refused.message}")
                    )
                    reported.add(refused.message)
        # A failure that a revised plan recovered from ("recovered") does not count against the result.
        failures = [e for e in self.errors if not e.optional and not e.recovered]
        if not failures and expected:
            value = self.data.get(expected)
            if value is None:
                self.errors.append(
                    error_entry("NO_OUTPUT", f"the expected output {expected!r} was not produced")
                )
            elif isinstance(value, list | dict) and not value:
                self.errors.append(
                    error_entry("EMPTY_OUTPUT", f"the expected output {expected!r} is empty: nothing matched")
                )
        ok = not [e for e in self.errors if not e.optional and not e.recovered]  # incl. the above
        return Result(
            ok=ok,
            data=self.data,
            steps=self.steps,
            errors=self.errors,
            plan=self.plan.to_dict(),
            timings=self.timings,
            url=self.url,
            warnings=[*self.plan.warnings, *self.warnings],
        )

    async def close(self) -> None:
        await self.task_page.close()


def _summary(output: dict | None) -> str:
    if not output:
        return "done"
    parts = [f"{len(v)} {k}" for k, v in output.items() if isinstance(v, list)]
    return ", ".join(parts) if parts else "done"


async def page_title(page) -> str | None:
    """The title for the event; a page stuck in JavaScript does not answer, and that is no reason to wait."""
    try:
        return await asyncio.wait_for(page.title(), 2.0)
    except Exception:  # timed out, or the page is gone
        return None


def elapsed_ms(since: float) -> int:
    return int((time.perf_counter() - since) * 1000)


async def execute(
    plan: Plan,
    registry: Registry,
    options: RunOptions | None = None,
    *,
    events: EventBus | None = None,
    browser: Browser | None = None,
) -> Result:
    """Run a checked plan. ``browser`` is shared when given (batch runs), else started on demand.

    Raises BrowserNotFound before any step when the plan needs a page and no browser can be found.
    """
    if browser is None and plan.needs_page:
        find_browser()
    return await Execution(plan, registry, options or RunOptions(), events or EventBus(), browser).run()
