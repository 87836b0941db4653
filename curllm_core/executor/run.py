"""The plan loop: runs a checked plan step by step and always returns a `Result`.

Per step: the start page is opened first if the tool needs a page; the tool runs under its time
limit; its output is checked against its manifest's ``output_schema``; the keys it produces are
merged into the data (see docs/plan.md, "Data and merging"). A failure is retried when transient
(timeouts, navigation errors) with backoff (`retry.attempt`), then handed to the step's fallback,
then to the plan's fallback when that produces the same keys (`fallbacks`). A map step is handed to
`mapping.run_map`. Exceptions from tools never escape: they become failed step results and entries
in ``errors``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..browser import Browser, Session
from ..browser_path import find_browser
from ..clock import elapsed_ms
from ..errors import CurllmError, EmptyOutput, NoOutput, PageUnavailable, SubmitUndone, TaskTimeout, ToolError
from ..events import FAILED_STEP_REWARD, EventBus, StepEvent, ToolCall, preview_text
from ..jsonsafe import clean_text
from ..manifest import Category, Manifest
from ..plan.check import step_keys
from ..plan.model import DEFAULT_RETRIES, AnyStep, MapStep, Plan, Step
from ..plan.params import fill_defaults, parameter_problems, step_io
from ..registry import Registry
from ..result import ErrorEntry, Result, StepResult, error_entry
from ..tool import ToolContext, load_callable
from . import detour, markup
from .calls import call_tool, describe, error_code
from .fallbacks import fallback_params, fallbacks, final_fallback
from .mapping import run_map
from .options import RunOptions
from .page import TaskPage
from .retry import Tried, attempt, may_have_written

if TYPE_CHECKING:  # the HTTP engine's page (and httpx) is imported only by a task that runs on it
    from ..tools.navigation.pagination import Pages
    from ..tools.stated_count import ListingWarning
    from .html_page import HtmlTaskPage

log = logging.getLogger("curllm.executor")


def preload_tools(plan: Plan, registry: Registry) -> None:
    """Import the code of the tools the plan's steps call, before the steps run.

    The runner calls it while the browser starts, so that this work (tens of ms of CPU for an
    extraction module) fills that wait instead of following it. Fallbacks are left out (they may
    never run); a tool that does not load is left for its step to report, as without this."""
    for step in plan.steps:
        if not isinstance(step, Step):
            continue
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


#: Called after a failed step with (execution, index of the step); returns a revised plan (the steps
#: run so far, then new ones) or None to stop.
Replan = Callable[["Execution", int], Awaitable[Plan | None]]


class Execution:
    """The state of one run of one plan.

    ``page`` is the task's `TaskPage` when one was made before the plan (see `Runner.prepare`), or
    an `HtmlTaskPage` (the HTTP engine: the page's HTML, no browser), else one is made on
    ``browser`` (shared when given). ``replan``, when given, may replace the rest of the plan after a
    failed step (a model re-planning).
    """

    def __init__(
        self,
        plan: Plan,
        registry: Registry,
        options: RunOptions,
        events: EventBus,
        browser: Browser | None = None,
        *,
        page: TaskPage | HtmlTaskPage | None = None,
        replan: Replan | None = None,
    ):
        self.plan, self.registry, self.options, self.events = plan, registry, options, events
        self.task_page: TaskPage | HtmlTaskPage = (
            page if page is not None else TaskPage(options, events, browser)
        )
        self.replan = replan
        self.open_error: Exception | None = None  # opening the page failed before the step's first attempt
        self.data: dict = dict(options.data)
        self.outputs: dict[str, dict] = {}
        self.steps: list[StepResult] = []
        self.errors: list[ErrorEntry] = []
        self.timings: dict[str, int] = self.task_page.timings
        self.timings["steps_ms"] = 0
        #: What the run did not fully do (a map's failed items), added to the plan's warnings; an
        #: extraction short of the page's stated size, a pager's pages left, as typed values
        #: (`stated_count.ListingWarning`, which `engines.switch_reason` decides by).
        self.warnings: list[str | ListingWarning] = []
        #: Form steps after which the page was at another address (see detour.py).
        self.moves: list[detour.Move] = []

    # --- the page ------------------------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        return self.task_page.session

    @property
    def page(self):
        return self.task_page.page

    @property
    def on_html(self) -> bool:
        """Whether the task runs on the HTTP engine (the page's HTML, no browser)."""
        return self.task_page.on_html

    @property
    def document(self) -> Any:
        """The fetched page (`http_fetch.Document`) on the HTTP engine, once opened; else None."""
        return self.task_page.document

    @property
    def opened(self) -> bool:
        return self.task_page.opened

    @property
    def url(self) -> str | None:
        return self.task_page.url

    async def ensure_page(self) -> None:
        """Start the browser and open the start URL, before the first step that needs a page."""
        await self.task_page.open()

    async def opened_early(self) -> bool:
        """Open the page before a step's first attempt (to look at it first); a failure is kept for
        that attempt to report, so the page is not opened twice."""
        try:
            await self.ensure_page()
        except Exception as e:
            self.open_error = e
            return False
        return True

    # --- one tool call -------------------------------------------------------------------------

    def context(self, manifest: Manifest, data: dict, page: Any = None, document: Any = None) -> ToolContext:
        """The tool's context: on the task's page, or on ``page`` (a map item's own page); on the
        HTTP engine on the fetched page, or on ``document`` (a pager's further page)."""
        ctx = ToolContext(
            page=(page if page is not None else self.page) if manifest.needs_page else None,
            data=data,
            manifest=manifest,
            settings=self.options.settings,
            emit=self.events.emit,
            log=logging.getLogger(f"curllm.tool.{manifest.key}"),
            browser=self.session,
            url=page.url if page is not None else self.url,
            warn=lambda text: self.warnings.append(_named(manifest.key, text)),
            document=(document or self.document) if manifest.needs_page and page is None else None,
            fetch=self.task_page.fetch,
        )
        # A nested tool reads the page its caller is on (a pager on HTML moves ``ctx.document`` on).
        ctx.run_tool = lambda name, **params: self.run_nested(name, data, params, page, ctx.document)
        return ctx

    async def call(
        self,
        manifest: Manifest,
        params: dict,
        data: dict,
        timeout_ms: int,
        page: Any = None,
        document: Any = None,
    ) -> dict:
        """One attempt: run the tool under its time limit and check its output (on ``page`` when
        given, else on the task's page, opened first)."""
        if manifest.needs_page and page is None:
            if self.open_error is not None:  # that failure is this attempt's: the page is not opened twice
                e, self.open_error = self.open_error, None
                raise e
            await self.ensure_page()
        fn = load_callable(manifest, self.registry.impls.get(manifest.key))
        return await call_tool(
            manifest, lambda: fn(self.context(manifest, dict(data), page, document), **params), timeout_ms
        )

    async def run_nested(
        self, name: str, data: dict, params: dict, page: Any = None, document: Any = None
    ) -> dict:
        """``ctx.run_tool``: another tool on the same page and data, parameters checked first."""
        manifest = self.registry.resolve(name)
        params = fill_defaults(manifest.parameters, params)
        problems = parameter_problems(manifest, params, [])
        if problems:
            raise ToolError(f"bad parameters for {manifest.key}: " + "; ".join(p.message for p in problems))
        return await self.call(manifest, params, data, manifest.timeout_ms, page, document)

    async def attempt(
        self,
        manifest: Manifest,
        params: dict,
        data: dict,
        *,
        retries: int | None,
        timeout_ms: int,
        page: Any = None,
    ) -> Tried[dict]:
        """The tool called until it succeeds or fails for good (`retry.attempt`), on ``page`` (a map
        item's) or on the task's page. A write tool that ran is never called twice."""

        def ran() -> bool:
            return not manifest.needs_page or page is not None or self.opened

        return await attempt(
            lambda: self.call(manifest, params, data, timeout_ms, page),
            retries=DEFAULT_RETRIES if retries is None else retries,
            backoff_s=self.options.backoff_s,
            wrote=lambda: may_have_written(manifest, ran=ran()),
        )

    async def attempts(
        self,
        index: int,
        step: Step,
        manifest: Manifest,
        params: dict,
        data: dict,
        fallback_for: str | None = None,
    ) -> StepResult:
        """A step's tool (or its fallback, or the tool the page called for) with retries; the result
        says how many attempts it took."""
        timeout_ms = step.timeout_ms if (step.timeout_ms and fallback_for is None) else manifest.timeout_ms
        tried = await self.attempt(manifest, params, data, retries=step.retries, timeout_ms=timeout_ms)
        e = tried.error
        if e is not None and not isinstance(e, CurllmError):
            log.debug("step %s failed", index, exc_info=e)
        return StepResult(
            tool=manifest.key,
            success=e is None,
            result=tried.value,
            error=None if e is None else describe(e),
            duration_ms=tried.duration_ms,
            attempts=tried.attempts,
            step=index,
            id=step.id,
            fallback_for=fallback_for,
            # a tool that undid what it did (a form that broke the page) leaves the plan able to go
            # on: its failure counts as an optional step's
            optional=step.optional or isinstance(e, SubmitUndone),
            code=None if e is None else error_code(e),
            failure=e,
            params=params,
        )

    # --- the plan ------------------------------------------------------------------------------

    async def run_step(self, index: int, step: AnyStep) -> bool:
        """Run one step (a map step: `mapping.run_map`); True when the plan goes on."""
        if isinstance(step, MapStep):
            return await run_map(self, index, step)
        manifest = self.registry.resolve(step.tool)
        data = self.outputs.get(step.input, {}) if step.input else self.data
        if self.on_html and step.optional and manifest.live_page:
            return self.skip(index, step, manifest)
        self.running(
            index,
            f"{manifest.key}: {step.description or manifest.description}",
            ToolCall(tool=manifest.key, params=step.parameters, tool_description=manifest.description),
        )
        params = step.parameters
        choice = await self.choose(index, manifest, params)
        if choice is not None:
            manifest, params = choice.manifest, choice.params
        before = await self.form_start(manifest)
        result = await self.attempts(index, step, manifest, params, data)
        result.choice = choice.report() if choice else None
        # No fallback can help when the page itself cannot be had.
        undone = result.optional and not step.optional  # the tool put the page back: nothing to fall back on
        if not result.success and not isinstance(result.failure, PageUnavailable) and not undone:
            for fb in fallbacks(self.plan, self.registry, step, manifest):
                fb_params = fallback_params(fb, step.parameters)
                if fb_params is None:
                    continue
                self.record(result)
                self.running(
                    index,
                    f"{fb.key}: fallback for {manifest.key}",
                    ToolCall(tool=fb.key, params=fb_params, tool_description=fb.description),
                )
                manifest, params = fb, fb_params
                result = await self.attempts(index, step, fb, fb_params, data, fallback_for=step.tool)
                if result.success:
                    break
        if result.success and before is not None:
            await self.note_move(index, step, manifest, before)
        if result.success:
            manifest, params, result = await self.when_empty(index, step, manifest, params, data, result)
            await self.check_complete(manifest, params, result)
        self.record(result)
        if not result.success:
            await self.screenshot(index, manifest)
        _, produces = step_io(manifest, params, self.registry)
        return self.conclude(index, step, result, produces)

    def skip(self, index: int, step: Step, manifest: Manifest) -> bool:
        """An optional step that needs a live page, on the HTTP engine: not run (as a failed optional
        step, the plan goes on; what it would have narrowed, the plan's validation steps check)."""
        self.running(
            index,
            f"{manifest.key}: skipped on HTML (an optional page action; the validation steps check the answer)",
            ToolCall(tool=manifest.key, params=step.parameters, tool_description=manifest.description),
        )
        result = StepResult(
            tool=manifest.key,
            success=True,
            result={},
            step=index,
            id=step.id,
            optional=True,
            params=step.parameters,
            skipped="an optional page action, not run on the HTTP engine (no live page)",
        )
        self.record(result)
        return True

    def conclude(self, index: int, step: AnyStep, result: StepResult, produces: list[str]) -> bool:
        """A step's recorded result into the run: what it produced into the data (and under its id),
        or its failure into ``errors``. True when the plan goes on (success, or an optional step)."""
        if result.success:
            output = result.result or {}
            self.data.update({k: output[k] for k in produces if k in output})
            if step.id:
                self.outputs[step.id] = dict(output)
            return True
        what = "optional step" if result.optional else "step"
        self.errors.append(
            ErrorEntry(
                code=result.code or ToolError.code,
                message=f"{what} {index} ({step.tool}) failed: {result.error}",
                step=index,
                tool=step.tool,
                optional=result.optional,
            )
        )
        return result.optional

    async def choose(self, index: int, manifest: Manifest, params: dict) -> markup.Choice | None:
        """The tool the page's markup calls for instead of the planned extraction (see markup.py)."""
        if not (manifest.needs_page and self.page_tools(manifest, params)):
            return None
        if not await self.opened_early():
            return None
        choice = await markup.choose(self.page or self.document, self.registry, manifest, params)
        if choice is not None and self.on_html and self.registry.resolve(choice.chosen).live_page:
            return None  # the tool the markup calls for needs a live page: the planned one reads the HTML
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
        if inner is None or inner.category != Category.EXTRACTION:
            return False
        return any(m.key != inner.key for m in markup.candidates(self.registry, list(inner.produces)))

    async def when_empty(
        self, index: int, step: Step, manifest: Manifest, params: dict, data: dict, result: StepResult
    ) -> tuple[Manifest, dict, StepResult]:
        """An extraction that found nothing: try the tools whose markup the page shows, then the generic
        tools of the same kind (each must take the step's parameters); the first that finds something
        wins. Without one, the empty result stands (and the end-of-run check reports EMPTY_OUTPUT)."""
        _, produces = step_io(manifest, params, self.registry)
        if not markup.empty(result.result, produces) or (self.page is None and self.document is None):
            return manifest, params, result
        if result.success and self.page is not None and await self.settling(result.duration_ms or 0):
            # The page was still at work (a timer about to render, a request in flight), or changed
            # while the step ran (a consent dialog answered let its listing through): read it once
            # more when that is done, before any other tool is tried or EMPTY_OUTPUT said.
            again = await self.attempts(index, step, manifest, params, data)
            if again.success:
                result = again
                if not markup.empty(result.result, produces):
                    return manifest, params, result
        tool = manifest.parameter_for("tool")
        tried = {params[tool] if tool and isinstance(params.get(tool), str) else manifest.key}
        best = result
        for alt in await markup.alternatives(
            self.page or self.document, self.registry, manifest, params, tried
        ):
            if self.on_html and self.registry.resolve(alt.chosen).live_page:
                continue  # a tool that needs a live page cannot read HTML as fetched
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
        if markup.empty(best.result, produces):
            back = await self.after_detour(index, step, manifest, params, data, produces)
            if back is not None:
                return back
        return manifest, params, best

    async def form_start(self, manifest: Manifest) -> str | None:
        """The page's address before a form step in the browser (opened first), to tell whether the
        form moved it (`note_move`); None for any other step."""
        if manifest.category != Category.FORMS or not manifest.needs_page or self.on_html:
            return None
        if not await self.opened_early():
            return None
        return self.page.url if self.page is not None else None

    async def note_move(self, index: int, step: Step, manifest: Manifest, before: str) -> None:
        """A form step that left the page at another address: remembered, with the landing page's
        HTTP status, for an extraction that finds nothing there (`after_detour`)."""
        after = self.page.url if self.page is not None else None
        if after is None or not detour.moved(before, after):
            return
        status = await detour.landed_status(self.page)
        self.moves.append(detour.Move(index, manifest.key, before, after, step.optional, status))

    async def after_detour(
        self, index: int, step: Step, manifest: Manifest, params: dict, data: dict, produces: list[str]
    ) -> tuple[Manifest, dict, StepResult] | None:
        """An extraction that found nothing on the page an optional form step led to: the page back
        where it was and the extraction again there; the form step then failed (an optional step),
        saying where it led. None when there is no such step or going back found nothing either."""
        move = next((m for m in reversed(self.moves) if not m.undone), None)
        if move is None or not move.optional or self.page is None or move.index == index:
            return None
        move.undone = True
        if not await detour.go_back(self.page, move):
            return None
        again = await self.attempts(index, step, manifest, params, data)
        if not again.success:
            self.record(again)
            return None
        found = await self.when_empty(index, step, manifest, params, data, again)
        if markup.empty(found[2].result, produces):
            return None
        message = detour.undone_message(move, found[0].key, produces[0] if produces else "items")
        for done in self.steps:
            if done.step == move.index and done.tool == move.tool and done.success:
                done.success, done.error, done.code, done.optional = False, message, SubmitUndone.code, True
        self.errors.append(
            ErrorEntry(
                code=SubmitUndone.code,
                message=f"optional step {move.index} ({move.tool}) failed: {message}",
                step=move.index,
                tool=move.tool,
                optional=True,
            )
        )
        self.warnings.append(f"{move.tool}: {message}")
        return found

    async def check_complete(self, manifest: Manifest, params: dict, result: StepResult) -> None:
        """An extraction of a whole listing (no count asked for) that read fewer items than the page
        states it has ("Wyniki 1–12 z 42") says so in the result's warnings: never a silent part.
        (A pager compares over every page it read, itself.)"""
        if (
            manifest.category != "extraction"
            or (self.page is None and self.document is None)
            or params.get("limit")
        ):
            return
        lists = [v for v in (result.result or {}).values() if isinstance(v, list) and v]
        if len(lists) != 1 or not all(isinstance(item, dict) for item in lists[0]):
            return
        from ..tools.stated_count import Shortfall, html_stated_texts, read_stated_texts, stated_listing

        read = len(lists[0]) + int((result.result or {}).get("dropped") or 0)
        try:
            texts = (
                html_stated_texts(self.document.html)
                if self.page is None
                else await read_stated_texts(self.page)
            )
            stated, shown = stated_listing(texts)
            if stated is None or read >= stated:
                return
            pages = await self.links_pages()
        except Exception:  # a page gone or being replaced: nothing to compare with
            return
        self.warnings.append(
            Shortfall(
                manifest.key,
                stated,
                read,
                paged=pages.next,
                shown=shown,
                earlier=pages.previous and not pages.next,
            )
        )

    async def links_pages(self) -> Pages:
        """Whether the task's page links its listing's next page and its previous one, by the pager's
        own rule (`pagination.links_pages`; on HTML `pagination.html_links_pages`: the next page by
        its address, the browser's pager also clicks a next control without one)."""
        from ..tools.navigation.pagination import html_links_pages, links_pages

        if self.page is None:
            return html_links_pages(self.document.html, self.document.url)
        return await links_pages(self.page)

    async def settling(self, step_ms: int = 0) -> bool:
        """Whether the task's page is still at work, counting work it scheduled (short timers), or its
        DOM changed during the last ``step_ms`` (the step's own time: what it read may be gone); when
        so, wait (bounded by the readiness timeout) until it is done. False when it is quiet."""
        from .. import readiness

        try:
            look = await readiness.probe(self.page)
        except Exception:  # a page gone or being replaced: nothing to wait for here
            return False
        if readiness.verdict(look, strict=True) is None and look.quiet_ms >= step_ms:
            return False
        await readiness.wait_ready(self.page, self.options.browser.ready_timeout_ms, strict=True)
        return True

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
            final = final_fallback(self.plan, self.registry, self.data, bool(self.errors))
            if final is not None:
                await self.run_step(len(self.plan.steps) + 1, final)

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
                    TaskTimeout.code,
                    f"the task did not finish within {self.options.task_timeout_s or self.options.timeout_s:g} s"
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
                    error_entry(NoOutput.code, f"the expected output {expected!r} was not produced")
                )
            elif isinstance(value, list | dict) and (not value or _blank_record(value)):
                self.errors.append(
                    error_entry(
                        EmptyOutput.code,
                        f"the expected output {expected!r} is empty: nothing matched"
                        + detour.empty_note(self.moves),
                    )
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
            warnings=[*self.plan.warnings, *map(str, self.warnings)],
        )

    async def close(self) -> None:
        await self.task_page.close()


def _summary(output: dict | None) -> str:
    if not output:
        return "done"
    parts = [f"{len(v)} {k}" for k, v in output.items() if isinstance(v, list)]
    return ", ".join(parts) if parts else "done"


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


def _named(key: str, warning: str | ListingWarning) -> str | ListingWarning:
    """A tool's warning named by the tool: a text prefixed with its key, a typed one given it."""
    if isinstance(warning, str):
        return clean_text(f"{key}: {warning}")
    import dataclasses

    return warning if warning.tool else dataclasses.replace(warning, tool=key)


def _blank_record(value: list | dict) -> bool:
    """A record with nothing read but the address it was read from (a product page's ``product`` on
    a page that shows none): as empty as an empty list."""
    return isinstance(value, dict) and all(v in (None, "", [], {}) for k, v in value.items() if k != "url")
