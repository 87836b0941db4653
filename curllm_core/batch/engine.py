"""The batch engine: tasks run concurrently in one browser, one context per task, a line per task.

Each task goes through the one `runner.Runner` (start URL, planning or plan check, warm-up, page
summary, execution with re-planning); concurrent identical tasks share one planning. `run_many` is
the Python API over `Batch`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from dataclasses import replace
from typing import Any

from ..browser import Browser
from ..clock import elapsed_ms
from ..engines import DEFAULT_ENGINE, checked_engine
from ..errors import BrowserCrashed, Cancelled, CurllmError, InternalError, TaskError, UsageError
from ..events import ErrorEvent, EventBus, now_iso
from ..executor import RunOptions
from ..registry import Registry
from ..result import ErrorEntry, error_entry
from ..runner import Runner, TaskSpec, error_of
from .tasks import BadTask, Entry, Task, checked_stream

log = logging.getLogger("curllm.batch")

DEFAULT_CONCURRENCY = 2
CANCELLED = Cancelled.code
BROWSER_CRASHED = BrowserCrashed.code


def bad_line(entry: BadTask) -> dict:
    """The failed line of a task that could not run."""
    line = {
        "id": entry.id,
        "ok": False,
        "url": None,
        "data": {},
        "errors": [entry.error.to_dict()],
        "timings": {},
        "steps": [],
    }
    if entry.line is not None:
        line["line"] = entry.line
    return line


def failed_line(
    task: Task,
    error: ErrorEntry,
    started_at: str,
    started: float,
    url: str | None = None,
    timings: dict | None = None,
) -> dict:
    """The failed line of a task that ran (or began to): one error, no data."""
    line = {
        "id": task.id,
        "ok": False,
        "url": url or task.url,
        "data": {},
        "errors": [error.to_dict()],
        "timings": {**(timings or {}), "total_ms": elapsed_ms(started)},
        "steps": [],
        "started_at": started_at,
        "finished_at": now_iso(),
    }
    if task.line is not None:
        line["line"] = task.line
    return line


def _compact_step(step: dict) -> dict:
    """A step without its output (the data has it): tool, success, timing, error."""
    return {k: v for k, v in step.items() if k != "result"}


def is_cancelled(line: dict) -> bool:
    """Whether a recorded line is a task cancelled by an interrupt, or cut short by a browser crash:
    it runs again on ``--resume``."""
    return not line.get("ok") and any(
        isinstance(e, dict) and e.get("code") in (CANCELLED, BROWSER_CRASHED)
        for e in line.get("errors") or []
    )


# --- the engine --------------------------------------------------------------------------------


class Batch:
    """Tasks run concurrently in one browser, one context per task; `results` yields their lines.

    ``tasks`` is any iterable (a list, a `readers.TaskStream`): it is read one task at a time, as
    workers become free, so a huge task file never sits in memory. When reading it fails part-way
    (`readers.TaskFileError`), no more tasks start, the running ones finish, and ``read_error`` holds
    the error. ``stop()`` (what Ctrl-C calls) cancels the running tasks, which are recorded as
    ``CANCELLED``, and starts no more. The browser is started on the first task that needs a page and
    closed at the end, unless it was given (then its owner closes it).
    """

    def __init__(
        self,
        tasks: Iterable[Task | BadTask | dict],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        options: RunOptions | None = None,
        registry: Registry | Callable[[], Registry] | None = None,
        browser: Browser | None = None,
        model: str | None = None,
        use_cache: bool = True,
        refresh_plan: bool = False,
        max_replans: int | None = None,
        on_event: Callable[[dict], None] | None = None,
        on_start: Callable[[Task], None] | None = None,
    ):
        if concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, got {concurrency}")
        self._pending = checked_stream(tasks)
        #: Why reading the tasks stopped early (a task file unreadable from some point on), else None.
        self.read_error: CurllmError | None = None
        #: Why the batch stopped early otherwise (a backend that lost every worker), else None.
        self.stopped_by: CurllmError | None = None
        self.concurrency = concurrency
        self.options = options or RunOptions()
        self._registry = registry
        self.owns_browser = browser is None
        self.browser = browser if browser is not None else Browser(headless=self.options.browser.headless)
        self.model, self.use_cache, self.refresh_plan = model, use_cache, refresh_plan
        if max_replans is None:
            max_replans = int(self.options.settings.get("max_replans", 1) or 0)
        self.max_replans = max_replans
        self.on_event, self.on_start = on_event, on_start
        self.stopping = False
        self.running: dict[str, asyncio.Task] = {}
        self.runner = Runner(registry, self.browser)
        self._used = False

    @property
    def registry(self) -> Registry:
        """The tools: as given, else the installed ones (loaded on first use)."""
        return self.runner.registry

    def stop(self) -> None:
        """Start no more tasks; cancel the running ones (and their planning)."""
        self.stopping = True
        for task in list(self.running.values()):
            task.cancel()
        self.runner.cancel_plannings()

    async def results(self) -> AsyncGenerator[dict, None]:
        """Run the tasks; yield each one's line as it finishes (bad tasks first). Single use."""
        if self._used:
            raise RuntimeError("a Batch runs once; make a new one")
        self._used = True
        # Bounded: a worker waits for the consumer (the out file) instead of reading the file ahead.
        queue: asyncio.Queue = asyncio.Queue(maxsize=self.concurrency + 8)
        workers = [
            asyncio.create_task(self._worker(queue), name=f"curllm-batch-{i}")
            for i in range(self.concurrency)
        ]
        alive = len(workers)
        try:
            while alive:
                line = await queue.get()
                if line is None:
                    alive -= 1
                    continue
                yield line
        finally:
            # Reached early only when the consumer stopped iterating or was cancelled.
            self.stop()
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            await self.runner.aclose()
            if self.owns_browser:
                await _close_quietly(self.browser)

    def _next(self) -> Entry | None:
        """The next task to run, or None: the tasks are exhausted, stopped, or unreadable from here on."""
        if self.stopping or self.read_error is not None:
            return None
        try:
            return next(self._pending, None)
        except CurllmError as e:
            self.read_error = e
        except Exception as e:  # a reader's bug must not lose the lines of the tasks already run
            log.error("reading the tasks failed", exc_info=e)
            self.read_error = UsageError(f"the tasks cannot be read on: {type(e).__name__}: {e}")
        return None

    async def _worker(self, queue: asyncio.Queue) -> None:
        # No `finally` for the end marker: a worker is only cancelled when nobody reads the queue.
        try:
            while (entry := self._next()) is not None:
                if isinstance(entry, BadTask):
                    await queue.put(bad_line(entry))
                else:
                    await queue.put(await self._supervise(entry))
        except Exception as e:  # a bug: keep the batch's other lines, and end this worker visibly
            log.error("a batch worker failed", exc_info=e)
        await queue.put(None)

    async def _supervise(self, task: Task) -> dict:
        """Run one task in its own asyncio task, so that stop() can cancel exactly it."""
        started_at, started = now_iso(), time.perf_counter()
        inner = asyncio.create_task(self._run(task, started_at, started), name=f"curllm-task-{task.id}")
        self.running[task.id] = inner
        if self.on_start is not None:
            self.on_start(task)
        try:
            await asyncio.wait({inner})
        except asyncio.CancelledError:  # the worker itself is cancelled: take the task down with it
            inner.cancel()
            await asyncio.gather(inner, return_exceptions=True)
            raise
        finally:
            self.running.pop(task.id, None)
        if inner.cancelled():
            return self._cancelled(task, started_at, started)
        exc = inner.exception()
        if exc is not None:  # a bug, not a task failure: record it and keep the batch going
            log.error("task %s crashed", task.id, exc_info=exc)
            line = failed_line(
                task, error_entry(InternalError.code, f"{type(exc).__name__}: {exc}"), started_at, started
            )
        else:
            line = inner.result()
        if self.stopping and not line["ok"]:
            # A failure that comes in after an interrupt is most likely the interrupt's doing (a
            # terminal's Ctrl-C also reaches the browser): run it again on --resume.
            cancelled = self._cancelled(task, started_at, started)
            cancelled["errors"] += line["errors"]
            return cancelled
        return line

    def _cancelled(self, task: Task, started_at: str, started: float) -> dict:
        return failed_line(
            task,
            error_entry(
                CANCELLED, "the batch was interrupted while this task ran; it runs again with --resume"
            ),
            started_at,
            started,
        )

    async def _run(self, task: Task, started_at: str, started: float) -> dict:
        """Prepare (plan or check the plan), then execute; every failure becomes the task's failed line."""
        bus = EventBus()
        if self.on_event is not None:
            on_event, task_id = self.on_event, task.id
            bus.add(lambda event: on_event({**event, "task": task_id}))
        spec = self.task_spec(task)
        timings: dict[str, int] = {}
        try:
            if task.instruction is not None and task.url is None:
                spec = replace(spec, url=self.runner.start_url(spec))
                # With data there may be nothing to open (as for `curllm run --input`): plan on the data.
                if spec.url is None and not task.data:
                    raise TaskError(
                        f"task {task.id}: missing field url (and its instruction names no site the "
                        "installed tools know)"
                    )
            prepared = await self._prepare(spec, bus)
        except CurllmError as e:
            if task.instruction is not None:
                timings["plan_ms"] = elapsed_ms(started)
            # The task's events end in `error`, as a run's end in `complete`.
            entry = error_of(e)
            bus.emit(ErrorEvent(entry=entry))
            return failed_line(task, entry, started_at, started, url=spec.url, timings=timings)
        if prepared.plan_ms is not None:
            timings["plan_ms"] = prepared.plan_ms
        if prepared.needs_page and not prepared.url:
            await prepared.close()
            entry = error_entry(
                TaskError.code, f"task {task.id}: missing field url (its plan needs a web page)"
            )
            bus.emit(ErrorEvent(entry=entry))
            return failed_line(task, entry, started_at, started, timings=timings)
        return await self._execute(task, prepared, bus, timings, started_at, started)

    def task_spec(self, task: Task) -> TaskSpec:
        """The task as the Runner takes it: the batch's model, options and cache flags filled in."""
        timeout = task.timeout if task.timeout is not None else self.options.timeout_s
        options = replace(self.options, timeout_s=timeout)
        if task.consent is not None:
            browser = replace(options.browser, consent=task.consent, consent_asked=True)
            options = replace(options, browser=browser)
        if task.engine is not None:
            options = replace(options, engine=task.engine)
        return TaskSpec(
            instruction=task.instruction,
            plan=task.plan,
            url=task.url,
            data=dict(task.data or {}),
            model=task.model or self.model,
            options=options,
            use_cache=self.use_cache,
            refresh_plan=self.refresh_plan,
            max_replans=self.max_replans,
        )

    async def _prepare(self, spec: TaskSpec, bus: EventBus) -> Any:
        """Plan the task (or check its plan): here, with the shared browser warming up meanwhile."""
        return await self.runner.prepare(spec, events=bus)

    async def _execute(
        self, task: Task, prepared: Any, bus: EventBus, timings: dict, started_at: str, started: float
    ) -> dict:
        """Run the prepared task and make its line: here, in this process's browser."""
        crashes = self.browser.crashes
        result = await self.runner.execute(prepared)
        if not result.ok and self.browser.crashes != crashes:
            # Chromium went away under this task (the next task gets a new one): the failure is
            # not the task's own, so the line says so and --resume runs it again.
            result.errors.insert(
                0,
                error_entry(
                    BROWSER_CRASHED,
                    "the browser crashed while this task ran; it runs again with --resume",
                ),
            )
        return result_line(task, result.to_dict(), prepared.url, timings, started_at, started)


def result_line(
    task: Task, doc: dict, url: str | None, timings: dict, started_at: str, started: float
) -> dict:
    """A task's line from its result document (`Result.to_dict`): steps without their output."""
    line: dict[str, Any] = {
        "id": task.id,
        "ok": doc["ok"],
        "url": doc.get("url") or url,
        "data": doc["data"],
        "errors": doc["errors"],
        "timings": {**doc["timings"], **timings, "total_ms": elapsed_ms(started)},
        "steps": [_compact_step(s) for s in doc["steps"]],
        "started_at": started_at,
        "finished_at": now_iso(),
    }
    if doc.get("usage"):
        line["usage"] = doc["usage"]
    if doc.get("warnings"):  # what the answer may miss (a listing read in part): never dropped on the way
        line["warnings"] = doc["warnings"]
    if task.line is not None:
        line["line"] = task.line
    return line


BACKENDS = ("local", "ray")


def run_many(
    tasks: Iterable[Task | BadTask | dict],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    options: RunOptions | None = None,
    registry: Registry | None = None,
    browser: Browser | None = None,
    model: str | None = None,
    use_cache: bool = True,
    refresh_plan: bool = False,
    max_replans: int | None = None,
    on_event: Callable[[dict], None] | None = None,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    engine: str | None = None,
) -> AsyncIterator[dict]:
    """Run many tasks in one browser; ``async for line in run_many(tasks, concurrency=4)``.

    ``tasks`` are dicts with the fields of a task file line (or `Task` objects). Each yielded line is
    ``{"id", "ok", "url", "data", "errors", "timings", "steps", ...}``, in the order tasks finish; a
    bad task yields its own failed line and the others still run. ``options`` (browser, network,
    ``timeout_s``) apply to every task. Events of every task go to ``on_event``, tagged with ``task``.
    Stop early with ``contextlib.aclosing``; leaving the loop cancels the running tasks.

    ``backend="ray"`` (``pip install 'curllm[ray]'``) runs the tasks on ``workers`` Ray actors (default:
    the cluster's CPUs), ``concurrency`` tasks each, one browser each; ``address`` is the cluster
    (``auto``, ``HOST:PORT``, ``ray://HOST:10001``; default ``RAY_ADDRESS``, else a local Ray for
    this call). Plans are made here; the lines are the same. See docs/distributed.md. ``engine``
    (``auto``, the default; ``http``; ``browser``) is what reads the pages, as ``--engine`` says.
    """
    if engine is not None:
        options = replace(options or RunOptions(), engine=checked_engine(engine) or DEFAULT_ENGINE)
    common: dict[str, Any] = {
        "concurrency": concurrency,
        "options": options,
        "registry": registry,
        "model": model,
        "use_cache": use_cache,
        "refresh_plan": refresh_plan,
        "max_replans": max_replans,
        "on_event": on_event,
    }
    if backend == "ray":
        from .ray_backend import RayBatch

        if browser is not None:
            raise UsageError("browser= is for the local backend: each Ray worker starts its own")
        return RayBatch(tasks, address=address, workers=workers, **common).results()
    if backend != "local":
        raise UsageError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if address is not None or workers is not None:
        raise UsageError('address= and workers= go with backend="ray"')
    return Batch(tasks, browser=browser, **common).results()


async def _close_quietly(browser: Browser) -> None:
    try:
        await browser.close()
    except Exception as e:  # the driver may be gone already (it got the terminal's Ctrl-C too)
        log.debug("closing the browser: %s", e)
