"""The runner: one task from its spec to a `Result`, the pipeline every entry point shares.

    runner = Runner(registry, browser, events)
    result = await runner.run(TaskSpec(instruction="find products under 150zł", url="shop.example"))

``run`` = ``prepare`` + ``execute``:

- **prepare** resolves the start URL once (`start_url`: the explicit URL, else a site the
  instruction names that an installed tool knows, else ``CURLLM_DEFAULT_URL``, else the config's
  ``default_url``), normalises and checks it (`check_start_url`), then plans the instruction or
  checks the given plan. While the rule planner works or the given plan is checked, the browser is
  already starting (warm-up), and the code of the plan's tools is imported in that wait; a model is
  shown a summary of the start page, opened in the session the steps then use. Under ``auto`` (the
  default engine) the browser starts only for a task it will read: during the check of a given plan
  that needs a live page (or with a consent mode asked for), else as soon as an instruction's plan
  is known to need it; a plan the HTTP engine reads starts none (`_browser_ahead`).
- **execute** runs the plan (steps, retries, fallbacks, re-planning by the model after a failed
  step, at most ``max_replans`` times) and returns the `Result`, with the planning time and the
  model's usage added.

Public surface (what the CLI, the Python API, batch runs, an HTTP server or a Ray worker call):

- `TaskSpec`: what to do (instruction or plan, url, data, model, `RunOptions`, cache flags,
  ``max_replans``, ``fields``/``limit``). Frozen and picklable: a task can cross a process boundary.
- `Runner(registry=None, browser=None, events=None)`: ``registry`` defaults to the installed tools
  (loaded on first use; a callable is called on first use, e.g. to report the registry's problems); ``browser`` is shared by every task when given (one browser per process,
  a fresh context per task; its owner closes it), else each task starts and closes its own;
  ``events`` is the default `EventBus` (a call's ``events=`` replaces it for that task, e.g. one
  SSE stream per request). Concurrent identical plannings (same instruction shape, site, model and
  data keys) share one planning, so one Runner serves many concurrent tasks.
- ``await runner.run(spec, events=None) -> Result``; ``await runner.prepare(spec) -> Prepared`` and
  ``await runner.execute(prepared) -> Result`` for callers that look at the plan in between
  (``await prepared.close()`` when not executing it). Cancelling the awaiting task (a client that
  disconnects) cancels the task and closes its browser context; the shared browser stays.
- ``await runner.decide(spec) -> Decided``: a task planned here to run in another process (a Ray
  worker): no browser; ``Decided.spec`` (picklable) carries the plan, and the other process runs it
  with ``prepare(spec, announced=True)`` (the plan checked against its own tools, the init and
  decision events not repeated) and ``execute``.
- Raises `UsageError` (bad URL, no instruction), `PlanError` (a given plan fails the check) and
  `PlanningError` (no plan for the instruction) before anything runs; everything that goes wrong
  while running is in the `Result`, including a task time limit hit while planning (``TASK_TIMEOUT``).

Nothing here prints, exits or reads the command line: adapters render and map to exit codes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .browser import Browser
from .clock import elapsed_ms
from .errors import BadURL, CurllmError, PageUnavailable, PlanError, TaskTimeout, UsageError
from .events import CompleteEvent, EngineEvent, EventBus, InitEvent, PlanDecision, StepEvent, preview
from .executor import Execution, RunOptions, TaskPage, preload_tools
from .plan import Origin, Plan, Step, check_plan, normalise_plan
from .registry import Registry
from .result import ErrorEntry, Result, error_entry

if TYPE_CHECKING:
    from .http_fetch import Connections
    from .planner import Planned
    from .politeness import Politeness

log = logging.getLogger("curllm.runner")

__all__ = ["TaskSpec", "Prepared", "Decided", "Runner", "check_start_url", "resolve_model"]

#: How many distinct plannings a Runner remembers (a batch plans each distinct task shape once).
PLAN_MEMO = 4096


@dataclass(frozen=True)
class TaskSpec:
    """One task: an ``instruction`` to plan, or a ``plan`` (a `Plan` or a plan document) to run.

    ``url`` is the start page as given (a URL, a bare host, a local path; None: resolved by the
    Runner). ``data`` is the initial data. ``options`` carries the browser and network settings and
    ``timeout_s``, the limit of the whole task, planning included. ``model`` None plans with rules.
    ``fields``/``limit`` are passed to the planner when given. ``base_dir`` resolves a relative local
    page path (a task file's folder).
    """

    instruction: str | None = None
    plan: Plan | dict | None = None
    url: str | None = None
    data: dict | None = None
    model: str | None = None
    options: RunOptions = field(default_factory=RunOptions)
    use_cache: bool = True
    refresh_plan: bool = False
    max_replans: int = 1
    fields: tuple[str, ...] | None = None
    limit: int | None = None
    base_dir: Path | None = None


@dataclass
class Prepared:
    """A task ready to run: its checked plan, its start URL, and how the plan was made."""

    spec: TaskSpec
    plan: Plan
    url: str | None
    source: str  # "given", "rules", "llm:<model>", "cache", "rules (llm failed: ...)"
    origin: Origin | None  # who made the plan (None: it was given): decides re-planning
    reasoning: list[str]
    usage: dict | None
    plan_ms: int | None  # None for a given plan
    events: EventBus
    options: RunOptions  # the start URL and initial data filled in
    page: TaskPage  # the task's page, maybe already opened (a model was shown it)
    started: float = field(default_factory=time.perf_counter)

    @property
    def needs_page(self) -> bool:
        """Whether a step needs a web page (and so a start URL)."""
        return self.plan.needs_page

    async def close(self) -> None:
        """Release what preparing started (a warming browser, an opened page) without running."""
        await self.page.close()


@dataclass(frozen=True)
class Decided:
    """A task prepared here to run in another process (`Runner.decide`): picklable, no browser.

    ``spec`` is what the other process runs: the start URL resolved, the checked plan as its document
    (``instruction``, ``fields`` and ``limit`` already planned into it). ``plan``, ``source``,
    ``usage`` and ``plan_ms`` (None for a given plan) say how it was made here; ``started`` is when
    preparing began (``time.perf_counter`` of this process: what is left of a time limit).
    """

    spec: TaskSpec
    plan: Plan
    url: str | None
    source: str
    usage: dict | None
    plan_ms: int | None
    started: float

    @property
    def needs_page(self) -> bool:
        """Whether a step needs a web page (and so a start URL)."""
        return self.plan.needs_page

    async def close(self) -> None:
        """Nothing to release: preparing started nothing (for callers that treat it as `Prepared`)."""


def resolve_model(explicit: str | None) -> str | None:
    """The planning model of a command: ``--model``, else ``CURLLM_MODEL``, else the config's ``model``."""
    if explicit is not None:
        return explicit or None
    from .config import load_config

    return os.environ.get("CURLLM_MODEL") or load_config().get("model") or None


def default_url() -> str | None:
    """``CURLLM_DEFAULT_URL``, else the config's ``default_url``."""
    from .config import load_config

    return os.environ.get("CURLLM_DEFAULT_URL") or load_config().get("default_url") or None


def check_start_url(raw: Any, base_dir: Path | None = None) -> str:
    """A start URL normalised (local paths to ``file://``, bare hosts to ``https://``) and checked.

    UsageError (code ``BAD_URL``) for anything a browser cannot open: not a string, not URL-like,
    a port that is not a number, a scheme other than http(s) and file, no host or path.
    """
    from .urls import looks_like_url, missing_local_page, normalize_url

    if not isinstance(raw, str):
        raise BadURL(f"url must be a string, not {type(raw).__name__}")
    text = raw.strip()
    # A relative page path is taken relative to base_dir (a task file's folder), as plan paths are.
    if base_dir is not None and text and "://" not in text and (base_dir / text).is_file():
        text = str(base_dir / text)
    missing = missing_local_page(text)
    if missing is not None:
        raise BadURL(f"bad URL {raw!r}: no such file {missing} (a web address needs http:// or https://)")
    if not looks_like_url(text):
        raise BadURL(f"bad URL {raw!r}: expected http(s)://…, file://… or the path of a local page")
    url = normalize_url(text)
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        raise BadURL(f"bad URL {raw!r}: the port is not a number from 0 to 65535") from None
    if parts.scheme in ("http", "https") and parts.hostname:
        return url
    if parts.scheme == "file" and parts.path:
        return url
    raise BadURL(f"bad URL {raw!r}: only http(s) and file URLs with a host or path can be opened")


def known_sites_hint(registry: Registry) -> str:
    """``amazon.com (+20 more), ceneo.pl, ...``: the sites installed tools know, one per name."""
    from .sites import site_label

    by_label: dict[str, list[str]] = {}
    for m in registry:
        for site in m.sites:
            if site not in by_label.setdefault(site_label(site), []):
                by_label[site_label(site)].append(site)
    return ", ".join(
        sites[0] + (f" (+{len(sites) - 1} more)" if len(sites) > 1 else "")
        for _, sites in sorted(by_label.items())
    )


class Runner:
    """Prepares and runs tasks (see the module docstring for the public surface)."""

    def __init__(
        self,
        registry: Registry | Callable[[], Registry] | None = None,
        browser: Browser | None = None,
        events: EventBus | None = None,
    ):
        self._registry = registry
        self.browser = browser
        self.events = events
        self._plans: dict[tuple, asyncio.Task] = {}
        self._politeness: Politeness | None = None
        self._connections: Connections | None = None
        self._checked: dict[tuple, Plan | PlanError] = {}

    @property
    def registry(self) -> Registry:
        """The tools: as given (a callable is called on first use), else the installed ones."""
        if self._registry is None:
            from .plugins import load_registry

            self._registry = load_registry()
        elif not isinstance(self._registry, Registry):
            self._registry = self._registry()
        return self._registry

    # --- the start URL -------------------------------------------------------------------------

    def start_url(self, spec: TaskSpec) -> str | None:
        """Where the task starts, normalised and checked; None when nothing gives one.

        The explicit URL; for an instruction, else a site it names ("na Ceneo") that an installed
        tool lists, else the default URL (env, config); for a plan, else the plan's own ``url``.
        """
        url = spec.url or None
        if url is None and spec.instruction is not None:
            url = self.named_site(spec.instruction) or default_url()
        elif url is None and spec.plan is not None:
            url = spec.plan.url if isinstance(spec.plan, Plan) else _plan_doc_url(spec.plan)
        return check_start_url(url, spec.base_dir) if url else None

    def named_site(self, instruction: str) -> str | None:
        """The home page of the best site the instruction names, if an installed tool knows it."""
        from .planner.named_sites import named_sites
        from .sites import site_url

        sites = named_sites(instruction, self.registry)
        return site_url(sites[0]) if sites else None

    # --- preparing -----------------------------------------------------------------------------

    async def prepare(
        self, spec: TaskSpec, *, events: EventBus | None = None, announced: bool = False
    ) -> Prepared:
        """Resolve the start URL, then plan the instruction or check the plan. Raises before any run.

        ``announced``: the task was prepared in another process (`decide`), which emitted its
        ``init`` and decision events; the given plan is checked here again, silently.
        """
        bus = events or self.events or EventBus()
        url = self.start_url(spec)
        data = dict(spec.data or {})
        options = replace(spec.options, url=url, data=data)
        # The page exists before the plan so that a model can be shown the page it will work on:
        # the page opened for the summary is the one the steps then use (no second navigation).
        page = TaskPage(options, bus, self.browser)
        if spec.plan is not None:
            # As for an instruction, the browser starts while the plan is checked (the checker's
            # import and the plan's tool code fill the wait for Chromium): only when a step may
            # need the page, else a browser would start for nothing.
            if url and self._browser_ahead(spec.options, spec.plan):
                await self._warm_up(page)
            try:
                plan = self._given_plan(spec, data)
                if not announced:
                    _init_event(bus, url, plan.instruction, plan.planner or "given", len(plan.steps))
                self._check_engine(plan, spec.options.engine)
                if plan.needs_page and self.browser is None and spec.options.engine != "http":
                    from .browser_path import find_browser

                    find_browser()  # as for an instruction: BrowserNotFound before any step runs
            except BaseException:
                await page.close()
                raise
            if page.launching:
                preload_tools(plan, self.registry)
            prepared = Prepared(
                spec, plan, url, plan.planner or "given", None, [], None, None, bus, options, page
            )
            if not announced:
                decision_event(bus, plan, [], url)
            return prepared
        instruction = _instruction(spec)
        _init_event(bus, url, instruction, f"llm:{spec.model}" if spec.model else "rules")
        started = time.perf_counter()
        if url and not spec.model and self._browser_ahead(spec.options):
            await self._warm_up(page)
        try:
            # Under --engine http a model is not shown the page (that would start a browser).
            planned = await self._plan(
                spec, instruction, url, data, bus, page if spec.options.engine != "http" else None
            )
            self._check_engine(planned.plan, spec.options.engine)
            if (
                planned.plan.needs_page
                and self.browser is None
                and page.session is None
                and spec.options.engine != "http"
            ):
                from .browser_path import find_browser

                find_browser()  # BrowserNotFound (bad set-up, exit 2) before any step runs
            if url and page.warming is None and self._browser_first(spec.options, planned.plan):
                # Under auto the plan decides: the browser starts now that it is known to be needed,
                # and the plan's tools are imported while it boots (the HTML engine needs none).
                await self._warm_up(page)
        except BaseException:
            await page.close()
            raise
        if page.launching:
            preload_tools(planned.plan, self.registry)
        plan_ms = elapsed_ms(started)
        decision_event(bus, planned.plan, planned.reasoning, url, planned.source)
        return Prepared(
            spec,
            planned.plan,
            url,
            planned.source,
            planned.origin,
            list(planned.reasoning),
            planned.usage,
            plan_ms,
            bus,
            options,
            page,
            started,
        )

    async def decide(self, spec: TaskSpec, *, events: EventBus | None = None) -> Decided:
        """Prepare a task that another process runs (a Ray worker): `prepare` without a browser.

        The start URL, the ``init`` event, the planning (shared by identical concurrent tasks, under
        the task's time limit, without a page summary for a model) or the check of a given plan, and
        the decision event; no warm-up, no page, no execution. The other process runs
        ``Decided.spec`` with ``prepare(..., announced=True)`` and `execute`. Raises as `prepare`.
        """
        bus = events or self.events or EventBus()
        started = time.perf_counter()
        url = self.start_url(spec)
        data = dict(spec.data or {})
        if spec.plan is not None:
            plan = self._given_plan(spec, data)
            _init_event(bus, url, plan.instruction, plan.planner or "given", len(plan.steps))
            decision_event(bus, plan, [], url)
            source, usage, plan_ms = plan.planner or "given", None, None
        else:
            instruction = _instruction(spec)
            _init_event(bus, url, instruction, f"llm:{spec.model}" if spec.model else "rules")
            planned = await self._plan(spec, instruction, url, data, bus, None)
            plan_ms = elapsed_ms(started)
            decision_event(bus, planned.plan, planned.reasoning, url, planned.source)
            plan, source, usage = planned.plan, planned.source, planned.usage
        self._check_engine(plan, spec.options.engine)  # refused here, before it travels
        # The plan travels as its document: the other process checks it against its own tools.
        shipped = replace(spec, instruction=None, plan=plan.to_dict(), url=url, fields=None, limit=None)
        return Decided(shipped, plan, url, source, usage, plan_ms, started)

    def _browser_ahead(self, options: RunOptions, plan: Plan | dict | None = None) -> bool:
        """Whether preparing starts the browser before the plan is known (while the rules plan, or
        while a given ``plan`` is checked): under ``browser`` when a step may need a page; under
        ``auto`` only when the browser will read the page (a consent mode asked for, a given plan
        with a step that needs a live page): a plan the HTML engine reads would start it for nothing
        (~0.5 s of CPU, and an owned browser's launch to wait for before closing it)."""
        from .engines import AUTO, BROWSER, consent_asked, may_need_live_page

        if plan is not None and not _may_need_page(plan, self.registry):
            return False
        if options.engine == BROWSER or (options.engine == AUTO and consent_asked(options.browser)):
            return True
        return options.engine == AUTO and plan is not None and may_need_live_page(plan, self.registry)

    def _browser_first(self, options: RunOptions, plan: Plan) -> bool:
        """Whether ``auto`` runs this planned task in the browser from the start (`engines.browser_reason`)."""
        from .engines import AUTO, browser_reason

        return (
            options.engine == AUTO
            and plan.needs_page
            and browser_reason(plan, self.registry, options.browser) is not None
        )

    def _check_engine(self, plan: Plan, engine: str) -> None:
        """``--engine http`` takes only plans whose steps can all run on HTML: UsageError (before
        anything runs) naming the step that cannot, and what to use instead."""
        if engine != "http" or not plan.needs_page:
            return
        from .engines import html_problem

        problem = html_problem(plan, self.registry)
        if problem is not None:
            raise UsageError(
                f"--engine http cannot run this plan: {problem}; use --engine auto (the browser for such"
                " plans) or --engine browser"
            )

    def _given_plan(self, spec: TaskSpec, data: dict) -> Plan:
        """The task's own plan, checked (once per distinct document), ``fields``/``limit`` applied."""
        assert spec.plan is not None
        plan = spec.plan if isinstance(spec.plan, Plan) else self.check(spec.plan, set(data))
        if spec.fields or spec.limit is not None:
            from .planner.rules import with_fields_and_limit

            plan = with_fields_and_limit(plan, self.registry, list(spec.fields or ()), spec.limit, set(data))
        return plan

    async def plan(self, spec: TaskSpec, *, events: EventBus | None = None) -> Planned:
        """Only plan the instruction (``--plan-only``): no browser, no page, nothing run."""
        from .planner import plan_task

        instruction = _instruction(spec)
        return await plan_task(
            instruction,
            self.start_url(spec),
            self.registry,
            model=spec.model,
            use_cache=spec.use_cache,
            refresh=spec.refresh_plan,
            events=events,
            initial_keys=set(spec.data or {}),
            **_planner_extras(spec),
        )

    def check(self, doc: dict, initial_keys: set[str]) -> Plan:
        """A given plan document normalised and checked, once per distinct document: a batch often
        runs one plan many times."""
        import json

        key = (json.dumps(doc, sort_keys=True, default=str), frozenset(initial_keys))
        if key not in self._checked:
            if len(self._checked) >= PLAN_MEMO:
                self._checked.pop(next(iter(self._checked)))
            try:
                self._checked[key] = check_plan(
                    normalise_plan(doc, self.registry), self.registry, initial_keys=set(initial_keys)
                )
            except PlanError as e:
                self._checked[key] = e
        found = self._checked[key]
        if isinstance(found, PlanError):
            raise found
        return found

    async def _plan(
        self,
        spec: TaskSpec,
        instruction: str,
        url: str | None,
        data: dict,
        bus: EventBus,
        page: TaskPage | None,
    ) -> Planned:
        """Plan under the task's time limit; concurrent identical tasks share one planning.

        A model is shown a summary of the start page when there is a ``page`` to open it in."""
        from .planner import plan_task
        from .planner.cache import normalize_instruction, url_shape

        key = (
            normalize_instruction(instruction),
            url_shape(url),
            spec.model,
            frozenset(data),
            spec.use_cache,
            spec.refresh_plan,
            spec.fields,
            spec.limit,
        )
        planning = self._plans.get(key)
        # A planning that failed fails alike for its twins; only a cancelled one (a stopped batch) is redone.
        first = planning is None or planning.cancelled()
        if first:
            summary = _page_summary(page) if spec.model and url and page is not None else None
            planning = asyncio.create_task(
                plan_task(
                    instruction,
                    url,
                    self.registry,
                    model=spec.model,
                    use_cache=spec.use_cache,
                    refresh=spec.refresh_plan,
                    events=bus,
                    initial_keys=set(data),
                    page_summary=summary,
                    **_planner_extras(spec),
                ),
                name="curllm-plan",
            )
            if len(self._plans) >= PLAN_MEMO:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = planning
        assert planning is not None
        timeout = spec.options.timeout_s
        try:
            # shield: one waiter's time limit or cancellation must not cancel a planning others share
            planned = await asyncio.wait_for(asyncio.shield(planning), timeout)
        except TimeoutError:
            raise TaskTimeout(f"planning did not finish within {timeout:g} s") from None
        if not first:
            # The model's usage was spent once: it is reported on the task that caused it; the plan is
            # this task's (its instruction and URL), not the one that planned first.
            planned = replace(
                planned, usage=None, plan=replace(planned.plan, instruction=instruction, url=url)
            )
        return planned

    async def _warm_up(self, page: TaskPage) -> None:
        """Start the browser while the rules plan: Chromium boots in its own process meanwhile.

        The launch goes on in a task; planning (and whatever it imports: jsonschema, when a plan's
        parameters need it worded or the rules fit a parameter) runs after the task has reached its
        first wait. If the plan needs no page, closing the page closes an owned browser again; a launch
        that fails is reported by the first step that needs it.
        """
        await page.warm_up()
        await asyncio.sleep(0)  # let the launch request go out before planning continues

    def cancel_plannings(self) -> None:
        """Cancel the plannings in flight (a stopped batch): their waiters see CancelledError."""
        for planning in self._plans.values():
            planning.cancel()

    async def aclose(self) -> None:
        """Cancel and await the plannings in flight. The shared browser is its owner's to close."""
        self.cancel_plannings()
        await asyncio.gather(*self._plans.values(), return_exceptions=True)
        if self._connections is not None:
            await self._connections.aclose()

    # --- running -------------------------------------------------------------------------------

    async def execute(self, prepared: Prepared) -> Result:
        """Run a prepared task (re-planning after a failed step when a model planned it)."""
        spec, options, bus = prepared.spec, prepared.options, prepared.events
        timeout = spec.options.timeout_s
        if timeout is not None and prepared.plan_ms is not None:
            # The task's limit covers its planning: the steps get what is left.
            left = max(0.1, timeout - (time.perf_counter() - prepared.started))
            options = replace(options, timeout_s=left, task_timeout_s=timeout)
        replanner = None
        max_replans = spec.max_replans
        # Re-planning needs a model that answered: after a failed (fallen-back) planning it would fail again.
        if (
            spec.model
            and max_replans > 0
            and prepared.plan_ms is not None
            and prepared.origin is not None
            and prepared.origin is not Origin.RULES
        ):
            replanner = Replanner(spec.instruction or "", spec.model, self.registry, bus, max_replans)
        result = await self._run_plan(prepared, options, replanner)
        if prepared.plan_ms is not None:
            result.timings["plan_ms"] = prepared.plan_ms
            result.timings["total_ms"] = result.timings.get("total_ms", 0) + prepared.plan_ms
            result.usage = prepared.usage
        if replanner is not None and replanner.usage is not None:
            from .planner.llm import merge_usage

            result.usage = merge_usage(result.usage, replanner.usage)
        complete_event(bus, result)
        return result

    async def _run_plan(self, prepared: Prepared, options: RunOptions, replanner: Replanner | None) -> Result:
        """The plan on the engine the options ask for (engines.py): the browser; or the HTTP engine,
        and under ``auto`` the browser again when the HTTP engine's answer cannot be trusted."""
        from . import offload
        from .engines import AUTO, BROWSER, HTTP, browser_reason, switch_reason

        bus, plan, engine = prepared.events, prepared.plan, options.engine
        if engine == BROWSER or not plan.needs_page:
            return await Execution(
                plan, self.registry, options, bus, page=prepared.page, replan=replanner
            ).run()
        problem = browser_reason(plan, self.registry, options.browser) if engine == AUTO else None
        if engine == AUTO and (problem is not None or prepared.page.opened):
            why = problem or "the page is open in the browser already (shown to the planning model)"
            bus.emit(EngineEvent(engine=BROWSER, reason=why, url=prepared.url))
            return await Execution(
                plan, self.registry, options, bus, page=prepared.page, replan=replanner
            ).run()
        bus.emit(EngineEvent(engine=HTTP, reason=_http_reason(engine), url=prepared.url))
        started = time.perf_counter()
        from .executor.html_page import HtmlTaskPage  # httpx and its kin load only for the HTTP engine

        html_page = HtmlTaskPage(options, bus, self.politeness, self.connections)
        execution = Execution(plan, self.registry, options, bus, page=html_page, replan=replanner)
        result = await execution.run()
        if engine != AUTO:
            await prepared.page.close()
            return result
        document = html_page.document
        # A huge page is parsed for the shell's signs off the event loop, as its extraction was.
        reason = await offload.run(
            switch_reason, result, document, execution.warnings, size=len(document.html) if document else 0
        )
        if reason is None:
            await prepared.page.close()
            return result
        bus.emit(EngineEvent(engine=BROWSER, reason=reason, url=prepared.url, switched_from=HTTP))
        if options.timeout_s is not None:
            options = replace(
                options,
                timeout_s=max(0.1, options.timeout_s - (time.perf_counter() - started)),
                task_timeout_s=options.task_timeout_s or options.timeout_s,
            )
        again = await Execution(plan, self.registry, options, bus, page=prepared.page, replan=replanner).run()
        again.timings["http_ms"] = result.timings.get("total_ms", 0)
        again.timings["total_ms"] = again.timings.get("total_ms", 0) + again.timings["http_ms"]
        return again

    @property
    def connections(self) -> Connections:
        """The HTTP engine's connections, shared by every task of this Runner (closed by `aclose`)."""
        if self._connections is None:
            from .http_fetch import Connections

            self._connections = Connections()
        return self._connections

    @property
    def politeness(self) -> Politeness:
        """Per-host limits, ``Retry-After`` holds and robots.txt, shared by every task of this Runner."""
        if self._politeness is None:
            from .politeness import Politeness

            self._politeness = Politeness()
        return self._politeness

    async def run(self, spec: TaskSpec, *, events: EventBus | None = None) -> Result:
        """Prepare and execute one task. A time limit hit while planning is a failed Result."""
        started = time.perf_counter()
        try:
            prepared = await self.prepare(spec, events=events)
        except TaskTimeout as e:
            result = Result(
                ok=False,
                errors=[error_entry(e.code, e.message)],
                timings={"plan_ms": elapsed_ms(started), "total_ms": elapsed_ms(started)},
                url=spec.url,
            )
            complete_event(events or self.events or EventBus(), result)
            return result
        return await self.execute(prepared)


def _http_reason(engine: str) -> str:
    if engine == "http":
        return "--engine http"
    return "every step of the plan can run on the page's HTML"


def _instruction(spec: TaskSpec) -> str:
    instruction = (spec.instruction or "").strip()
    if not instruction:
        raise UsageError('no instruction given: say what to find, e.g. "find products under 150zł"')
    return instruction


def _init_event(
    bus: EventBus, url: str | None, instruction: str | None, planner: str, steps: int | None = None
) -> None:
    """The first event of a task: where it starts, what it asks, who plans (and the steps of a given plan)."""
    bus.emit(InitEvent(url=url, instruction=instruction, planner=planner, steps=steps))


def _planner_extras(spec: TaskSpec) -> dict[str, Any]:
    """``fields``/``limit`` for the planner, only when given (planners without them keep working)."""
    extra: dict[str, Any] = {}
    if spec.fields is not None:
        extra["fields"] = list(spec.fields)
    if spec.limit is not None:
        extra["limit"] = spec.limit
    return extra


def _may_need_page(plan: Plan | dict, registry: Registry) -> bool:
    """Whether a given plan may need a web page, read before it is checked: a step (or its fallback)
    naming an installed tool that works on a page. A malformed document says no: its check fails
    next, and nothing is started for it."""
    if isinstance(plan, Plan):
        return plan.needs_page
    steps = plan.get("plan") if isinstance(plan, dict) else None
    if not isinstance(steps, list):
        return False
    names = [plan.get("fallback")]
    for step in steps:
        if not isinstance(step, dict):
            return False
        names += [step.get("tool"), step.get("fallback")]
    return any(
        isinstance(name, str) and (m := registry.get(name)) is not None and m.needs_page for name in names
    )


def _plan_doc_url(doc: Any) -> str | None:
    url = doc.get("url") if isinstance(doc, dict) else None
    return url if isinstance(url, str) and url else None


def _page_summary(page: TaskPage) -> Callable[[], Awaitable[dict | None]]:
    """Open the start page (once, in the task's session) and summarise it for the model."""

    async def summarize() -> dict | None:
        from .planner.llm import summarize_page

        try:
            await page.open()
            return await summarize_page(page.page)
        except Exception as e:  # only a hint for the model: planning goes on without it
            log.debug("no page summary for the planner: %s", e)
            return None

    return summarize


class Replanner:
    """After a failed step, asks the model for a revised plan of what remains (``limit`` times)."""

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
        from .planner import warn
        from .planner.llm import LLMFailure, merge_usage, merge_warnings, replan_with_llm, summarize_page

        failed = execution.steps[-1] if execution.steps else None
        # A page that cannot be had defeats any plan; and the number of rounds is bounded.
        if failed is None or isinstance(failed.failure, PageUnavailable) or self.rounds >= self.limit:
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
            if entry.step == index and not entry.optional:
                entry.recovered = True  # the revised plan takes over; its own failures still count
        old = execution.plan
        revised = Plan(
            steps=old.steps[:index] + planned.plan.steps,
            expected_output=planned.plan.expected_output or old.expected_output,
            fallback=old.fallback,
            instruction=old.instruction,
            url=old.url,
            planner=old.planner,
            needs_page=old.needs_page or planned.plan.needs_page,
            # What the first plan could not do is still not done: its warnings stay.
            warnings=merge_warnings(old.warnings, planned.plan.warnings),
        )
        decision_event(
            self.bus,
            planned.plan,
            planned.reasoning,
            execution.url,
            planned.source,
            message=f"revised plan of {len(planned.plan.steps)} step(s) by {planned.source} after step "
            f"{index} ({failed.tool}) failed",
            replan=(self.rounds, index),
        )
        return revised


def decision_event(
    bus: EventBus,
    plan: Plan,
    reasoning: list[str],
    url: str | None,
    source: str | None = None,
    *,
    message: str | None = None,
    replan: tuple[int, int] | None = None,
) -> None:
    """The ``agent_decision`` step event: the plan's tool calls with the reasoning for each.

    ``replan`` is (the round, the failed step) for a revised plan."""
    calls = [
        {
            "tool": s.tool,
            "params": s.parameters if isinstance(s, Step) else {},
            "reasoning": (reasoning[i] if i < len(reasoning) else "") or s.description,
        }
        for i, s in enumerate(plan.steps)
    ]
    rounds, after = replan or (None, None)
    bus.emit(
        StepEvent(
            plan_index=0,
            status="completed",
            message=message or f"plan of {len(plan.steps)} step(s) by {source or plan.planner or 'the user'}",
            url=url,
            details=PlanDecision(
                planner=source or plan.planner,
                tool_calls=calls,
                expected_output=plan.expected_output,
                replan=rounds,
                after_step=after,
                first_step=after + 1 if after is not None else None,
            ),
        )
    )


def complete_event(bus: EventBus, result: Result) -> None:
    """The last event of a task: its outcome and its output (`CompleteEvent.of`), so that a stream
    alone carries the answer (docs/results-and-events.md#events)."""
    bus.emit(CompleteEvent.of(result))


def error_of(e: CurllmError) -> ErrorEntry:
    """An error entry for an error raised before a task ran (with its problems, one line each)."""
    return ErrorEntry(code=e.code, message=e.message, problems=[str(p) for p in e.problems] or None)
