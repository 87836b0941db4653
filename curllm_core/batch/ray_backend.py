"""The Ray backend of batch runs: the driver reads, plans and records; Ray workers run the tasks.

    async for line in run_many(tasks, backend="ray", workers=2, concurrency=4): ...
    curllm batch tasks.jsonl --out results.jsonl --backend ray --address auto --workers 8 -j 4

Only where tasks run differs from the local backend. The driver is a `Batch` (`RayBatch`): it reads
the task file as a stream (a task read only when a slot is free), plans each task once
(`Runner.decide`: the model is called from here, the plan cache is this machine's), ships the plan
to a worker (`ray_worker.Worker`, an async Ray actor with one browser running up to C tasks at
once), receives the result as it finishes and yields the task's line, which the caller records (the
CLI: `OutFile`, fsynced, ``--resume``). Ray is imported only here, when this backend is chosen.

A worker that dies (its process, its node): its tasks whose plans only read (every tool's manifest
says ``effects: read``) run again on another worker (or on the same one once Ray has restarted it),
at most `MAX_LOSSES` times; a task with a ``write`` step is recorded as failed with ``WORKER_LOST``
instead, since its writes may have taken effect. When no worker is left, the batch stops: the tasks
waiting for one are recorded as ``CANCELLED`` and run again on ``--resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from ..errors import CurllmError, InternalError, UsageError, WorkerLost
from ..events import ErrorEvent, EventBus
from ..plan import plan_tools
from ..result import error_entry
from ..runner import Decided
from .engine import Batch, failed_line, result_line
from .ray_worker import Job, Worker, tool_digests
from .tasks import Task

log = logging.getLogger("curllm.batch.ray")

RAY_EXTRA = "pip install 'curllm[ray]'"
WORKER_LOST = WorkerLost.code
#: How many workers a read-only task may lose (each time it runs again elsewhere) before it fails.
MAX_LOSSES = 3
#: How long the batch waits for its first worker (actors wait for free CPUs, e.g. an autoscaler's).
READY_TIMEOUT_S = 300.0
#: A worker's actor is restarted by Ray this many times after its process or node dies.
MAX_RESTARTS = 3
#: Calls a worker takes besides its tasks (info, close).
SPARE_CALLS = 4
#: The object store of a local Ray started for one batch: results are small JSON-like documents.
LOCAL_OBJECT_STORE_BYTES = 200 * 2**20
#: Tries at joining a cluster through its client server (``ray://``): the head starts a server
#: process for each client, and on a loaded head that start fails now and then.
CLIENT_TRIES = 3
#: Seconds between those tries, times the try's number.
CLIENT_PAUSE_S = 1.0


def import_ray() -> Any:
    """The ``ray`` module, or UsageError (exit 2) naming the extra that installs it."""
    try:
        import ray
    except ImportError as e:
        raise UsageError(f"--backend ray needs Ray, which is not installed ({e}): {RAY_EXTRA}") from None
    return ray


class NoWorkerLeft(CurllmError):
    """Every Ray worker of the batch is gone (or none started): the batch stops; --resume continues it."""

    code = WORKER_LOST


# --- the connection ---------------------------------------------------------------------------


class RayCluster:
    """Ray for one batch: the cluster at ``address``, else ``RAY_ADDRESS``, else a private local Ray.

    ``connect()`` joins the cluster (or starts a local Ray with ``local_cpus`` CPUs, listening on
    127.0.0.1 only); ``close()`` disconnects, and stops the local Ray, only when this object did
    so. A process where Ray is already initialised (``ray.init`` by the caller) is used as it is.
    """

    def __init__(
        self, address: str | None = None, *, local_cpus: int | None = None, log_to_driver: bool = False
    ):
        self.address = address or None
        self.local_cpus = local_cpus
        self.log_to_driver = log_to_driver
        self.ray: Any = None
        self.owned = False

    @property
    def local(self) -> bool:
        """Whether connecting starts a Ray of this process's own (no address anywhere)."""
        return self.address is None and not os.environ.get("RAY_ADDRESS")

    def describe(self) -> str:
        """``the Ray cluster at HOST:PORT`` or ``a local Ray``, for messages."""
        if self.local:
            return "a local Ray"
        return f"the Ray cluster at {self.address or os.environ.get('RAY_ADDRESS')}"

    def connect(self) -> None:
        """Join (or start) Ray; UsageError (exit 2) when Ray is missing or the cluster cannot be reached."""
        if self.ray is not None:
            return
        # A local Ray of our own listens on 127.0.0.1 and reports no usage statistics. Both settings
        # are read when ray is imported and when its processes start, so they are set for that time.
        env = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
        added = [k for k in env if k not in os.environ] if self.local and "ray" not in sys.modules else []
        for key in added:
            os.environ[key] = env[key]
        try:
            ray = import_ray()
            if ray.is_initialized():
                self.ray = ray
                return
            if not self.local:
                self._probe(self.address or os.environ.get("RAY_ADDRESS") or "")
            kwargs: dict[str, Any] = {
                "logging_level": logging.ERROR,  # Ray's own notices (startup, tokens) are not ours to print
                "log_to_driver": self.log_to_driver,
            }
            if self.local:
                kwargs.update(
                    num_cpus=self.local_cpus or os.cpu_count() or 1,
                    include_dashboard=False,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                )
            else:
                kwargs["address"] = self.address
            with _signals_kept():
                try:
                    if str(kwargs.get("address", "")).startswith("ray://"):
                        _client_init(ray, kwargs)
                    else:
                        ray.init(**kwargs)
                except Exception as e:
                    text = _reason(e)
                    raise UsageError(
                        f"cannot {'start' if self.local else 'connect to'} {self.describe()}: {text}"
                    ) from None
            self.ray, self.owned = ray, True
        finally:
            for key in added:
                os.environ.pop(key, None)

    def _probe(self, address: str) -> None:
        """Fail at once when nothing listens at ``host:port`` (Ray itself retries for minutes)."""
        if address == "auto":
            return
        parts = urlsplit(address if "://" in address else f"//{address}")
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            host, port = None, None
        if not host or not port:
            raise UsageError(
                f"--address {address!r}: expected auto, HOST:PORT (the head's GCS port, 6379 by default) "
                "or ray://HOST:10001"
            )
        try:
            socket.create_connection((host, port), timeout=10).close()
        except OSError as e:
            raise UsageError(
                f"cannot connect to the Ray cluster at {address}: {e.strerror or e} (is `ray start --head` "
                "running there?)"
            ) from None

    def cpus(self) -> int:
        """The CPUs the cluster has now (at least 1)."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def close(self) -> None:
        """Disconnect, and stop a local Ray, if `connect` did so."""
        if self.ray is not None and self.owned:
            with _signals_kept():
                self.ray.shutdown()
        self.ray, self.owned = None, False


def _client_init(ray: Any, kwargs: dict[str, Any]) -> None:
    """``ray.init`` through a head's client server (``ray://``), tried again (`CLIENT_TRIES` in all)
    when the head could not start this client's server process ("Initialization failure from
    server": Ray's proxy does that now and then on a loaded head)."""
    for attempt in range(1, CLIENT_TRIES + 1):
        try:
            _client_init_once(ray, kwargs)
            return
        except ConnectionAbortedError as e:
            if attempt == CLIENT_TRIES:
                raise
            log.warning(
                "joining the Ray cluster at %s failed (try %d of %d), trying again: %s",
                kwargs.get("address"),
                attempt,
                CLIENT_TRIES,
                _reason(e),
            )
            time.sleep(CLIENT_PAUSE_S * attempt)


def _client_init_once(ray: Any, kwargs: dict[str, Any]) -> None:
    """One ``ray.init`` through ``ray://``, in a thread of its own while this one watches it.

    When the head fails to start this client's server, Ray's client closes its connection, but first
    waits for its log stream, which the head ends only when its own wait for that server runs out
    (``RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S`` on the head: 30 s by default, minutes on some
    clusters). A client that has closed needs its channel no more: closing it here ends that stream,
    and ``ray.init`` raises the head's reason at once."""
    outcome: list[BaseException | None] = []

    def join() -> None:
        try:
            ray.init(**kwargs)
        except BaseException as e:  # raised in the caller's thread below
            outcome.append(e)
        else:
            outcome.append(None)

    thread = threading.Thread(target=join, name="curllm-ray-connect", daemon=True)
    thread.start()
    unblocked = False
    while thread.is_alive():
        thread.join(0.2)
        worker = getattr(ray.util.client.ray.get_context(), "client_worker", None)
        channel = getattr(worker, "channel", None)
        if not unblocked and getattr(worker, "closed", False) and channel is not None:
            channel.close()  # the failed client's log stream ends; its close() goes on
            unblocked = True
    if outcome and outcome[0] is not None:
        raise outcome[0]


@contextlib.contextmanager
def _signals_kept():
    """ray.init installs a SIGTERM handler that exits at once; the batch's own (graceful) one stays."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in kept.items():
            if handler is not None:
                signal.signal(signum, handler)


# --- the workers ------------------------------------------------------------------------------


@dataclass
class Member:
    """One worker actor as the driver sees it."""

    name: str
    handle: Any
    state: str = "starting"  # starting, ready, lost (Ray may restart it), gone
    generation: int = 0  # bumped when it is lost or comes back: older slots are void
    info: dict = field(default_factory=dict)
    reported: str | None = None  # the fingerprint last reported as different

    @property
    def label(self) -> str:
        return self.info.get("label") or self.name


Slot = tuple[Member, int]


class WorkerPool:
    """The batch's worker actors and their free task slots (C per ready worker).

    A worker is usable once its ``info`` call answers (the actor started and loaded its tools). When
    it is lost, its slots become void; the pool asks it again, which waits for Ray's restart of the
    actor, or ends it for good (``gone``). When every worker is gone, `acquire` raises `NoWorkerLeft`.
    """

    def __init__(
        self,
        ray: Any,
        count: int,
        per_worker: int,
        *,
        headless: bool,
        driver_tools: dict[str, str],
        warn: Callable[[str], None],
        ready_timeout: float = READY_TIMEOUT_S,
    ):
        self.ray, self.count, self.per_worker = ray, count, per_worker
        self.headless, self.driver_tools, self.warn = headless, driver_tools, warn
        self.ready_timeout = ready_timeout
        self.members: list[Member] = []
        self.free: asyncio.Queue[Slot | None] = asyncio.Queue()
        self.failure: str | None = None  # why no worker is left
        self._watchers: set[asyncio.Task] = set()

    def start(self) -> None:
        """Create the actors (spread over the nodes); each joins the pool when it answers."""
        actor = self.ray.remote(
            num_cpus=1,
            max_concurrency=self.per_worker + SPARE_CALLS,
            max_restarts=MAX_RESTARTS,
            max_task_retries=0,  # the driver decides what runs again: never a task with writes
            scheduling_strategy="SPREAD",
        )(Worker)
        for i in range(1, self.count + 1):
            member = Member(f"w{i}", actor.remote(f"w{i}", self.headless))
            self.members.append(member)
            self._watch(member)
        self._spawn(self._deadline())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def _watch(self, member: Member) -> None:
        self._spawn(self._await_ready(member))

    async def _await_ready(self, member: Member) -> None:
        """Wait for the actor to answer (it is starting, or Ray restarts it); then offer its slots."""
        ray_errors = self.ray.exceptions
        try:
            info = await member.handle.info.remote()
        except asyncio.CancelledError:
            raise
        except ray_errors.RayActorError as e:
            member.state = "gone"
            self.warn(f"Ray worker {member.label} is gone: {_reason(e)}")
            self._check_left(f"every worker is gone (the last: {member.label}: {_reason(e)})")
            return
        except Exception as e:  # e.g. the worker cannot import curllm on its node
            member.state = "gone"
            self.warn(f"Ray worker {member.name} cannot start: {_reason(e)}")
            self._check_left(f"no worker could start ({member.name}: {_reason(e)})")
            return
        member.info = info
        member.state = "ready"
        member.generation += 1
        self._report(member)
        for _ in range(self.per_worker):
            self.free.put_nowait((member, member.generation))

    async def _deadline(self) -> None:
        """No worker ready in time (no free CPUs, a node that never comes): say so instead of waiting."""
        await asyncio.sleep(self.ready_timeout)
        if not any(m.info for m in self.members):
            for member in self.members:
                member.state = "gone"
            self._check_left(
                f"no Ray worker started within {self.ready_timeout:g} s (each needs one free CPU in the "
                "cluster: see `ray status`)"
            )

    def _report(self, member: Member) -> None:
        """Warn once per distinct set of tools that differs from the driver's (and about problems)."""
        info = member.info
        if info.get("fingerprint") == member.reported:
            return
        member.reported = info.get("fingerprint")
        tools: dict[str, str] = info.get("tools") or {}
        lacks = sorted(set(self.driver_tools) - set(tools))
        differ = sorted(k for k in self.driver_tools if k in tools and tools[k] != self.driver_tools[k])
        parts = []
        if lacks:
            parts.append(f"lacks {', '.join(lacks)}")
        if differ:
            parts.append(f"has other manifests of {', '.join(differ)}")
        if parts:
            self.warn(
                f"Ray worker {member.label}: its tools differ from this machine's: {'; '.join(parts)} "
                "(tasks that need them fail there)"
            )
        for problem in (info.get("plugin_errors") or []) + (info.get("problems") or []):
            self.warn(f"Ray worker {member.label}: {problem}")
        if info.get("browser_problem"):
            self.warn(f"Ray worker {member.label}: {info['browser_problem']}")

    def _check_left(self, why: str) -> None:
        if all(m.state == "gone" for m in self.members) and self.failure is None:
            self.failure = why
            self.free.put_nowait(None)  # wakes a waiter, which passes it on

    async def acquire(self) -> Slot:
        """A free slot of a ready worker (waits for one); NoWorkerLeft when every worker is gone."""
        while True:
            slot = await self.free.get()
            if slot is None:
                self.free.put_nowait(None)
                raise NoWorkerLeft(f"the batch stopped: {self.failure}")
            member, generation = slot
            if member.state == "ready" and member.generation == generation:
                return slot

    def release(self, slot: Slot) -> None:
        """Give a slot back (void if its worker was lost meanwhile)."""
        member, generation = slot
        if member.state == "ready" and member.generation == generation:
            self.free.put_nowait(slot)

    def lost(self, slot: Slot, error: BaseException) -> None:
        """The worker of ``slot`` died (or cannot be reached): void its slots, wait for its restart."""
        member, generation = slot
        if member.state == "ready" and member.generation == generation:
            member.state = "lost"
            member.generation += 1
            self.warn(f"Ray worker {member.label} was lost ({_reason(error)}); waiting for Ray to restart it")
            self._watch(member)

    async def close(self) -> None:
        """Close every worker's browser, then end the actors."""
        for task in list(self._watchers):
            task.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)

        async def close_one(member: Member) -> None:
            if member.state == "ready":
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(member.handle.close.remote(), 15)
            with contextlib.suppress(Exception):
                self.ray.kill(member.handle, no_restart=True)

        await asyncio.gather(*(close_one(m) for m in self.members), return_exceptions=True)


def _reason(error: BaseException) -> str:
    """One line saying why a Ray call failed: its message's first line, and when that only introduces
    more (a server's traceback after "...from server:"), the last line too, which names the cause."""
    lines = [x.strip() for x in str(error).splitlines() if x.strip()]
    if not lines:
        return type(error).__name__
    text = lines[0] if len(lines) == 1 or not lines[0].endswith(":") else f"{lines[0]} {lines[-1]}"
    return text[:300]


# --- the driver -------------------------------------------------------------------------------


class RayBatch(Batch):
    """A `Batch` whose tasks run on Ray workers; the lines, events and guarantees are the local ones.

    ``workers`` actors (default: the cluster's CPUs) run ``concurrency`` tasks each, so at most
    ``workers * concurrency`` tasks are read ahead of the results. ``cluster`` is a connected (or
    connectable) `RayCluster`; without one, ``address`` names it (None: ``RAY_ADDRESS``, else a
    local Ray for this batch, stopped at its end). ``warn`` receives warnings (workers whose tools
    differ, lost workers); by default they are logged. ``stopped_by`` is set when the batch stops
    because no worker is left.
    """

    def __init__(
        self,
        tasks: Any,
        *,
        workers: int | None = None,
        address: str | None = None,
        cluster: RayCluster | None = None,
        concurrency: int = 2,
        warn: Callable[[str], None] | None = None,
        ready_timeout: float = READY_TIMEOUT_S,
        **kwargs: Any,
    ):
        super().__init__(tasks, concurrency=concurrency, **kwargs)
        if workers is not None and workers < 1:
            raise UsageError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.per_worker = concurrency
        self.owns_cluster = cluster is None
        self.cluster = cluster or RayCluster(address, local_cpus=workers)
        self.warn = warn or log.warning
        self.ready_timeout = ready_timeout
        self.pool: WorkerPool | None = None
        self._told_replans = False

    async def results(self) -> Any:
        """Connect, start the workers, then run the tasks as `Batch.results` does. Single use."""
        if self.pool is not None:
            raise RuntimeError("a Batch runs once; make a new one")
        try:
            self.cluster.connect()
            count = self.workers or self.cluster.cpus()
            cpus = self.cluster.cpus()
            if count > cpus:
                self.warn(
                    f"{self.cluster.describe()} has {cpus} CPU(s) and each worker takes one: "
                    f"{count - cpus} of the {count} workers wait for more (an autoscaler may add nodes)"
                )
            # One coroutine per slot: a task is read only when a worker can take it.
            self.concurrency = count * self.per_worker
            self.pool = WorkerPool(
                self.cluster.ray,
                count,
                self.per_worker,
                headless=self.options.browser.headless,
                driver_tools=tool_digests(self.registry),
                warn=self.warn,
                ready_timeout=self.ready_timeout,
            )
            self.pool.start()
            async for line in super().results():
                yield line
        finally:
            if self.pool is not None:
                await self.pool.close()
            if self.owns_cluster:
                self.cluster.close()

    async def _prepare(self, spec: Any, bus: EventBus) -> Decided:
        """Plan here (or check the given plan), with no browser: the workers run the plan."""
        if spec.model and spec.max_replans > 0 and not self._told_replans:
            self._told_replans = True
            self.warn(
                "on Ray, a failed step is not re-planned by the model (plans are made once, on this "
                "machine); --max-replans applies to the local backend"
            )
        return await self.runner.decide(spec, events=bus)

    async def _execute(
        self, task: Task, prepared: Any, bus: EventBus, timings: dict, started_at: str, started: float
    ) -> dict:
        """Ship the planned task to a free worker; run it again elsewhere when the worker is lost and
        its plan only reads; a task with writes whose worker is lost fails with WORKER_LOST."""
        assert self.pool is not None
        ray_errors = self.cluster.ray.exceptions
        decided: Decided = prepared
        tools = tuple(plan_tools(decided.plan, self.registry))
        writes = [t for t in tools if (m := self.registry.get(t)) is not None and m.effects == "write"]
        lost: list[str] = []
        while True:
            try:
                slot = await self.pool.acquire()
            except NoWorkerLeft as e:
                if self.stopped_by is None:
                    self.stopped_by = e
                self.stop()
                raise asyncio.CancelledError from None  # recorded as CANCELLED: it runs on --resume
            member = slot[0]
            job = Job(task.id, _time_left(decided), tools, self.on_event is not None, bus.sequence)
            ref = member.handle.run.remote(job)
            try:
                reply = await ref
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    self.cluster.ray.cancel(ref)  # an async actor cancels the task (its context closes)
                self.pool.release(slot)
                raise
            except ray_errors.RayTaskError as e:  # the worker raised: a bug, not the task's failure
                self.pool.release(slot)
                log.error("task %s crashed on Ray worker %s: %s", task.id, member.label, e)
                return failed_line(
                    task,
                    error_entry(InternalError.code, f"on worker {member.label}: {_reason(e)}"),
                    started_at,
                    started,
                    url=decided.url,
                    timings=timings,
                )
            except ray_errors.RayError as e:  # the worker (its process, its node) is gone
                self.pool.lost(slot, e)
                lost.append(member.label)
                if writes:
                    return failed_line(
                        task,
                        error_entry(
                            WORKER_LOST,
                            f"worker {member.label} was lost while this task ran ({_reason(e)}); its plan "
                            f"has write steps ({', '.join(writes)}) that may have taken effect, so it is not "
                            "run again: check, then run it with --retry-failed",
                        ),
                        started_at,
                        started,
                        url=decided.url,
                        timings=timings,
                    )
                if len(lost) >= MAX_LOSSES:
                    return failed_line(
                        task,
                        error_entry(
                            WORKER_LOST,
                            f"{len(lost)} workers were lost while this task ran ({', '.join(lost)}); "
                            "not tried again",
                        ),
                        started_at,
                        started,
                        url=decided.url,
                        timings=timings,
                    )
                continue  # it only reads: run it again on another worker
            self.pool.release(slot)
            for event in reply.get("events") or []:  # numbered on from this bus's step events
                bus.emit(event["type"], event["data"])
                if event["type"] == "step":
                    bus.sequence += 1
            if "error" in reply:  # the worker could not start it: its events end in error, as here
                bus.emit(ErrorEvent(entry=reply["error"]))
                return failed_line(
                    task, reply["error"], started_at, started, url=decided.url, timings=timings
                )
            doc = reply["result"]
            if decided.usage:
                doc["usage"] = decided.usage  # the model was asked here, once
            return result_line(task, doc, decided.url, timings, started_at, started)


def _time_left(decided: Decided) -> Any:
    """The spec to ship, its time limit less the time spent so far (planning, waiting for a worker)."""
    spec = decided.spec
    timeout = spec.options.timeout_s
    if timeout is None:
        return spec
    left = max(0.1, timeout - (time.perf_counter() - decided.started))
    return replace(spec, options=replace(spec.options, timeout_s=left))
