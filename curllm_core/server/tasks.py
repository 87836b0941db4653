"""Tasks over HTTP and MCP: the request body, the slots that bound concurrency, and the task service.

`parse_task` turns a request body into a `TaskRequest` (every problem named, nothing run); `Slots`
lets ``concurrency`` tasks run and ``queue`` more wait, and refuses the next one; `TaskService` owns
the process's one browser and runs each task in a fresh context of it through the one `Runner`,
reporting its events as they happen.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from ..browser import Browser, parse_viewport
from ..config import MAX_READY_TIMEOUT_S
from ..errors import BadURL, BrowserError, CurllmError, InternalError, QueueFull, TaskTimeout, UsageError
from ..events import ErrorEvent, EventBus
from ..events.stream import task_events
from ..executor import RunOptions
from ..option_rules import option_problem
from ..registry import Registry
from ..result import Result, error_entry
from ..runner import Runner, TaskSpec, error_of, resolve_model
from .errors import HTTPError, bad_request
from .settings import ServerSettings

log = logging.getLogger("curllm.server")

TASK_KEYS = ("instruction", "url", "plan", "data", "model", "fields", "limit", "options")
#: What a request may change of the server's task defaults. Nothing that names a file on the server
#: (sessions, screenshots), a proxy, or loosens the network policy.
OPTION_KEYS = (
    "timeout",
    "locale",
    "user_agent",
    "viewport",
    "load_images",
    "consent",
    "engine",
    "ready_timeout",
    "block_domains",
    "cache",
    "max_replans",
)
#: Past the time limit, planning (a model may be slow) gets this long before the task is stopped hard.
HARD_STOP_GRACE_S = 5.0


@dataclass(frozen=True)
class TaskRequest:
    """A task as a client sent it, checked for shape (not yet planned or run)."""

    instruction: str | None = None
    url: str | None = None
    plan: dict | None = None
    data: dict | None = None
    model: str | None = None
    fields: tuple[str, ...] | None = None
    limit: int | None = None
    options: dict = field(default_factory=dict)


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )


def parse_task(body: Any, *, need_instruction: bool = False) -> TaskRequest:
    """A `TaskRequest` from a decoded JSON body; HTTPError 400 naming every problem."""
    if not isinstance(body, dict):
        raise bad_request(
            f'the body must be a JSON object like {{"instruction": ..., "url": ...}}, not {_type_name(body)}'
        )
    problems = [f"unknown field {k!r}" for k in body if k not in TASK_KEYS]

    def text(key: str) -> str | None:
        value = body.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{key} must be a non-empty string, not {_type_name(value)}")
            return None
        return value.strip()

    def obj(key: str) -> dict | None:
        value = body.get(key)
        if value is not None and not isinstance(value, dict):
            problems.append(f"{key} must be an object, not {_type_name(value)}")
            return None
        return value

    instruction, url, model = text("instruction"), text("url"), text("model")
    plan, data, options = obj("plan"), obj("data"), obj("options") or {}
    fields = body.get("fields")
    if fields is not None:
        if (
            not isinstance(fields, list)
            or not fields
            or not all(isinstance(f, str) and f.strip() for f in fields)
        ):
            problems.append("fields must be a non-empty array of field names")
            fields = None
        else:
            fields = tuple(f.strip() for f in fields)
    limit = body.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        problems.append(f"limit must be a whole number of at least 1, not {limit!r}")
        limit = None
    if plan is not None and instruction is not None:
        problems.append("give either an instruction or a plan, not both")
    if plan is None and instruction is None and "instruction" not in body:
        problems.append(
            'no instruction: send {"instruction": "find products under 150zł", "url": "https://…"}'
        )
    if need_instruction and plan is not None:
        problems.append("this route plans an instruction: send instruction, not plan")
    problems += [
        f"options.{k} is not an option a request may set (allowed: {', '.join(OPTION_KEYS)})"
        for k in options
        if k not in OPTION_KEYS
    ]
    if problems:
        raise bad_request("; ".join(problems))
    return TaskRequest(instruction, url, plan, data, model, fields, limit, dict(options))


def check_target(url: str) -> str:
    """A normalised start URL the server may open: http(s) only (never ``file:``, a path on the server)."""
    scheme = urlsplit(url).scheme
    if scheme not in ("http", "https"):
        # A local path arrives here as the file: URL the runner made of it.
        raise HTTPError(
            400, code=BadURL.code, message=f"url {url!r}: the server opens only http(s) URLs, not {scheme}:"
        )
    return url


def _run_options(
    settings: ServerSettings, req: TaskRequest, url: str | None, *, mcp: bool = False
) -> RunOptions:
    """The server's task defaults, with what the request may change, the time limit applied."""
    base = replace(settings.options, policy=settings.policy_for(mcp=mcp))
    o = req.options
    limit = settings.time_limit_s
    if base.timeout_s:
        limit = min(limit, base.timeout_s)
    # The rules of each option are the CLI's and the config file's (option_rules.py).
    problems = [f"options.{p}" for k, v in o.items() if v is not None and (p := option_problem(k, v))]
    if o.get("consent") is not None:
        from ..consent import MODES

        if o["consent"] not in MODES:
            problems.append(f"options.consent must be one of {', '.join(MODES)}, not {o['consent']!r}")
    ready = o.get("ready_timeout")
    if ready is not None and (
        isinstance(ready, bool) or not isinstance(ready, int | float) or not 0 <= ready <= MAX_READY_TIMEOUT_S
    ):
        problems.append(f"options.ready_timeout must be a number of seconds from 0 to {MAX_READY_TIMEOUT_S}")
    if problems:
        raise bad_request("; ".join(problems))
    if o.get("timeout") is not None:
        limit = min(limit, float(o["timeout"]))
    browser = base.browser
    for key in ("locale", "user_agent", "load_images"):
        if o.get(key) is not None:
            browser = replace(browser, **{key: o[key]})
    if o.get("viewport") is not None:
        browser = replace(browser, viewport=parse_viewport(o["viewport"]))
    if o.get("consent") is not None:
        browser = replace(browser, consent=o["consent"], consent_asked=True)
    if ready is not None:
        browser = replace(browser, ready_timeout_ms=int(ready * 1000))
    policy = base.policy
    if o.get("block_domains") is not None:
        # A request may only add to what is refused, never allow more than the server does.
        policy = replace(policy, block=(*policy.block, *o["block_domains"]))
    return replace(
        base,
        url=url,
        data=dict(req.data or {}),
        browser=browser,
        policy=policy,
        timeout_s=limit,
        engine=o["engine"].strip().lower() if o.get("engine") is not None else base.engine,
    )


class Ticket:
    """A place in the server: waiting for a slot, then running. Release it exactly once (idempotent)."""

    def __init__(self, slots: Slots):
        self.slots = slots
        self.state = "waiting"

    async def acquire(self) -> None:
        """Wait for a running slot (cancellation while waiting gives the place up)."""
        try:
            await self.slots._semaphore.acquire()
        except BaseException:
            self.release()
            raise
        self.slots.waiting -= 1
        self.slots.running += 1
        self.state = "running"

    def release(self) -> None:
        if self.state == "waiting":
            self.slots.waiting -= 1
        elif self.state == "running":
            self.slots.running -= 1
            self.slots._semaphore.release()
        self.state = "released"

    async def __aenter__(self) -> Ticket:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class Slots:
    """At most ``concurrency`` tasks run; ``queue`` more wait in order; the next is refused (429)."""

    def __init__(self, concurrency: int, queue: int):
        self.concurrency, self.queue = concurrency, queue
        self.running = self.waiting = 0
        self._semaphore = asyncio.Semaphore(concurrency)

    def reserve(self) -> Ticket:
        """A ticket, or HTTPError 429 ``QUEUE_FULL`` when every slot and queue place is taken."""
        if self.running + self.waiting >= self.concurrency + self.queue:
            raise HTTPError(
                429,
                code=QueueFull.code,
                message=f"the server is busy: {self.running} task(s) running and {self.waiting} waiting "
                f"(--concurrency {self.concurrency}, --queue {self.queue}); try again shortly",
                headers={"Retry-After": "1"},
            )
        self.waiting += 1
        return Ticket(self)


class TaskService:
    """One browser for the process; each task in a fresh context of it, under its slot and time limit."""

    def __init__(self, settings: ServerSettings, registry: Registry | None = None):
        if registry is None:
            from ..plugins import load_registry

            registry = load_registry()
        self.settings = settings
        self.registry = registry
        self.browser = Browser(headless=settings.options.browser.headless)
        self.runner = Runner(registry, self.browser)
        self.slots = Slots(settings.concurrency, settings.queue)
        self.browser_problem: str | None = None

    # --- the browser ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the browser now, so the first task does not wait for it (a failure is kept, not raised)."""
        try:
            await self.browser.start()
            self.browser_problem = None
        except CurllmError as e:
            self.browser_problem = f"[{e.code}] {e.message}"
            log.warning("no browser yet: %s", e.message)

    async def close(self) -> None:
        await self.browser.close()

    async def ensure_browser(self) -> None:
        """The browser is running (started again after a crash); BrowserError (503) if it cannot be."""
        try:
            await self.browser.start()
            self.browser_problem = None
        except BrowserError as e:
            self.browser_problem = f"[{e.code}] {e.message}"
            raise

    # --- preparing ------------------------------------------------------------------------------

    def spec(self, req: TaskRequest, *, mcp: bool = False) -> TaskSpec:
        """The runner's task spec for a request (the server's defaults, what the request may change);
        ``mcp``: an MCP tool call's (`ServerSettings.policy_for`)."""
        options = _run_options(self.settings, req, None, mcp=mcp)
        return TaskSpec(
            instruction=req.instruction,
            plan=req.plan,
            url=req.url,
            data=req.data,
            model=resolve_model(req.model),
            options=options,
            use_cache=req.options.get("cache", True),
            max_replans=req.options.get("max_replans", 1),
            fields=req.fields,
            limit=req.limit,
        )

    async def prepare(self, req: TaskRequest, *, mcp: bool = False) -> TaskSpec:
        """Check what can be checked before a task runs: its plan, its start URL against the server's
        rules and network policy, the browser. Raises CurllmError (with its HTTP status) otherwise."""
        spec = self.spec(req, mcp=mcp)
        plan = self.runner.check(req.plan, set(req.data or {})) if req.plan is not None else None
        try:
            url = self.runner.start_url(spec)
        except UsageError as e:
            raise HTTPError(400, code=BadURL.code, message=e.message) from None
        if url is None and req.data is None:
            raise UsageError(
                'no URL to start from: send "url": "https://…" (or name a site an installed tool knows)'
            )
        if url is not None:
            url = check_target(url)
            await spec.options.policy.check(url)  # a refused target is refused before anything starts
            if plan is None or plan.needs_page:
                await self.ensure_browser()
        return replace(spec, url=url, plan=plan if plan is not None else spec.plan)

    async def plan(self, req: TaskRequest, *, mcp: bool = False) -> dict:
        """The plan an instruction gets (the document ``curllm --plan-only`` prints); nothing runs."""
        spec = self.spec(req, mcp=mcp)
        try:
            url = self.runner.start_url(spec)
        except UsageError as e:
            raise HTTPError(400, code=BadURL.code, message=e.message) from None
        planned = await self.runner.plan(replace(spec, url=check_target(url) if url else None))
        return planned.plan.to_dict()

    # --- running --------------------------------------------------------------------------------

    async def execute(self, spec: TaskSpec, bus: EventBus) -> Result:
        """Run a task through the one runner, in a fresh context of the shared browser."""
        # The runner keeps the time limit (planning included); this is the backstop if anything hangs.
        limit = (spec.options.timeout_s or self.settings.time_limit_s) + HARD_STOP_GRACE_S
        try:
            async with asyncio.timeout(limit):
                return await self.runner.run(spec, events=bus)
        except TimeoutError:
            raise HTTPError(
                504,
                code=TaskTimeout.code,
                message=f"the task did not finish within the server's time limit ({limit:g} s)",
            ) from None

    async def events(self, spec: TaskSpec, ticket: Ticket) -> AsyncGenerator[dict, None]:
        """Every event of the task as it happens (the ``--events`` lines), waiting for a slot first.

        The last event is ``complete`` (its data also carries ``result``, the whole Result) or
        ``error`` (``code``, ``message``). Closing the iterator early cancels the task; its browser
        context is closed before this returns. The slot is the task's, not the reader's: it is given
        back when the task ends, however slowly (or never) the client reads what is left.
        """

        async def run(bus: EventBus) -> Result:
            async with ticket:  # the task's slot, given back when it ends, whoever reads its events
                return await self.execute(spec, bus)

        stream = task_events(run, ended=error_event)
        async with aclosing(stream):
            async for event in stream:
                yield event

    async def result(self, spec: TaskSpec, ticket: Ticket) -> Result:
        """Run a task to its end (waiting for a slot first) and return its Result."""
        async with ticket:
            return await self.execute(spec, EventBus())


def error_event(exc: BaseException | None) -> dict:
    """The ``error`` event that ends a stream when a task could not produce a result."""
    if isinstance(exc, CurllmError):
        return ErrorEvent(entry=error_of(exc)).to_dict()  # a refused plan's problems one line each
    log.error("task failed unexpectedly", exc_info=exc)
    message = "the task failed unexpectedly (a bug: the server log has the details)"
    return ErrorEvent(entry=error_entry(InternalError.code, message)).to_dict()


def tool_info(manifest) -> dict:
    """A tool as the API shows it."""
    return {
        "name": manifest.key,
        "category": manifest.category,
        "version": manifest.version,
        "description": manifest.description,
        "parameters": manifest.parameters,
        "source": manifest.source,
    }
