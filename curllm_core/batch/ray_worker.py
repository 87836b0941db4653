"""A worker of a batch on Ray: one process, one browser, one `Runner`, up to C tasks at once.

The driver (`batch.ray_backend`) makes each `Worker` a Ray actor (an async actor: its tasks share
one event loop and one Chromium, a browser context each). A worker builds its registry from its own
environment (its plugins, ``CURLLM_TOOLS_PATH``) and reports it (`Worker.info`: the fingerprint and
a digest per tool), so the driver can say which tools differ. It runs tasks the driver planned
(`Job`): the plan is checked again against the worker's own tools, and a tool the worker lacks fails
the task with ``MISSING_TOOL``, naming the tool and the worker. It never plans: the model is called
from the driver only.

This module imports no Ray; it is plain Python that Ray runs in its worker processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from dataclasses import dataclass
from typing import Any

from ..browser import Browser
from ..errors import CurllmError, MissingTool
from ..events import EventBus
from ..registry import Registry
from ..result import error_entry
from ..runner import Runner, TaskSpec, error_of

MISSING_TOOL = MissingTool.code


@dataclass(frozen=True)
class Job:
    """One task as it travels to a worker (picklable).

    ``spec`` comes from `Runner.decide` on the driver: the checked plan's document, the start URL,
    the data, the options (with what is left of the task's time limit). ``tools`` are every tool the
    plan may call; ``events`` asks for the task's events back with its result, their step events
    numbered on from ``sequence``.
    """

    id: str
    spec: TaskSpec
    tools: tuple[str, ...]
    events: bool = False
    sequence: int = 0  # the number of the task's next step event (the driver's bus emitted the first)


def tool_digests(registry: Registry) -> dict[str, str]:
    """``category.name`` -> a short hash of its manifest (what `Registry.fingerprint` hashes, per tool)."""
    return {
        m.key: hashlib.sha256(json.dumps(m.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:12]
        for m in registry
    }


class Worker:
    """A Ray actor's state: the registry of this node, one shared browser, a `Runner` over both."""

    def __init__(self, name: str, headless: bool = True):
        from ..plugins import load_registry

        self.name = name
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.registry = load_registry()
        self.browser = Browser(headless=headless)
        self.runner = Runner(self.registry, self.browser)

    @property
    def label(self) -> str:
        """How messages name this worker: ``w1 (pid 123 on host)``."""
        return f"{self.name} (pid {self.pid} on {self.host})"

    async def info(self) -> dict[str, Any]:
        """Who this worker is and which tools it has (the driver compares them with its own)."""
        from ..browser_path import find_browser
        from ..errors import BrowserNotFound
        from ..version import __version__

        try:
            browser: str | None = find_browser()
            browser_problem = None
        except BrowserNotFound as e:
            browser, browser_problem = None, e.message
        return {
            "name": self.name,
            "label": self.label,
            "pid": self.pid,
            "host": self.host,
            "version": __version__,
            "fingerprint": self.registry.fingerprint,
            "tools": tool_digests(self.registry),
            "problems": [str(p) for p in self.registry.problems],
            "plugin_errors": [f"{p.name}: {p.error}" for p in self.registry.plugins if p.error],
            "browser": browser,
            "browser_problem": browser_problem,
        }

    async def run(self, job: Job) -> dict[str, Any]:
        """Run one planned task: ``{"result": Result.to_dict(), "events", "worker"}``, or ``{"error", ...}``
        when it cannot start here (a tool this worker lacks, a plan its tools reject)."""
        events: list[dict] = []
        bus = EventBus([events.append] if job.events else [])
        bus.sequence = job.sequence
        reply: dict[str, Any] = {"events": events, "worker": self.label}
        missing = [t for t in job.tools if self.registry.get(t) is None]
        if missing:
            reply["error"] = error_entry(
                MISSING_TOOL,
                f"worker {self.label} has no tool {', '.join(missing)}: install the same plugins and "
                f"CURLLM_TOOLS_PATH on every node (tools fingerprint here {self.registry.fingerprint})",
            )
            return reply
        try:
            prepared = await self.runner.prepare(job.spec, events=bus, announced=True)
        except CurllmError as e:
            entry = error_of(e)
            entry.message = f"on worker {self.label}: {entry.message}"
            reply["error"] = entry
            return reply
        result = await self.runner.execute(prepared)
        reply["result"] = result.to_dict()
        return reply

    async def close(self) -> None:
        """Close the browser (the driver calls it when the batch ends)."""
        await self.runner.aclose()
        await self.browser.close()
