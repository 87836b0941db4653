"""Tasks run as `curllm run` runs them, in the test's process: one Runner and the session's browser
for a module's many tasks, instead of a `curllm` process and a Chromium for each.

A `curllm` process costs about 3 s of CPU before its task begins (Python, the tools, Playwright's
driver, Chromium); a task in a shared browser, a few tenths. The CLI's own contracts (exit codes,
what goes to stdout and stderr, the formats, its options) keep real subprocess tests in every
module that uses this; the rest ask the same Runner the CLI asks, with the CLI's options (no
third-party plugins, the CLI's time limit, a plan made fresh as in an empty cache), and get the
document ``--format json`` prints; a given plan as ``--plan`` gives it; many tasks as ``curllm batch``
runs them (`run_many`, its lines). `cli_run_options` gives the options a `curllm run` command line
would run with, its arguments parsed by the command's own parser. `cli_main` runs a whole command
line through the console entry point itself (`curllm_core.cli.main`: its parsing, its one-line
errors and exit codes), for the many cases of one contract beside the real process that proves it.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curllm_core.browser import Browser

if TYPE_CHECKING:
    from curllm_core.executor import RunOptions


class InProcessCurllm:
    """``await curllm.json(instruction, url)``: the result document of ``curllm INSTRUCTION --url URL
    --format json``. A planning failure raises `PlanningError` (the CLI's exit 3), bad input
    `UsageError` (exit 2), as the CLI would report them."""

    def __init__(self, browser: Browser, tools_path: Path | None = None):
        from curllm_core.plugins import load_registry
        from curllm_core.runner import Runner

        env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
        if tools_path is not None:  # as CURLLM_TOOLS_PATH gives the CLI further tools
            env["CURLLM_TOOLS_PATH"] = str(tools_path)
        # No manifest cache: this may run before a test has set its private CURLLM_CACHE_DIR.
        registry = load_registry({**env, "CURLLM_LOAD_PLUGINS": ""}, use_cache=False)
        self.runner = Runner(registry, browser)

    async def json(
        self,
        instruction: str | None,
        url: str,
        *,
        fields: tuple[str, ...] | None = None,
        limit: int | None = None,
        plan: dict | None = None,
        args: Sequence[str] = (),
        events_to: Path | None = None,
    ) -> dict[str, Any]:
        """The task's document; with ``plan`` (a plan document, as ``--plan`` reads it) that plan
        runs as given, without ``instruction``; ``args``: `curllm run`'s browser and network options
        (e.g. ``--engine browser``), parsed by its parser (`cli_run_options`); ``events_to``: the
        file ``--events FILE`` appends the task's events to, written by the CLI's own sink."""
        from curllm_core.cli.sinks import open_events
        from curllm_core.events import EventBus
        from curllm_core.render import render
        from curllm_core.runner import TaskSpec

        spec = TaskSpec(
            instruction=instruction,
            plan=plan,
            url=url,
            options=cli_run_options(args)[1] if args else self.options(),
            use_cache=False,
            fields=fields,
            limit=limit,
        )
        spec = replace(spec, url=self.runner.start_url(spec))
        bus = EventBus()
        sink = open_events(str(events_to)) if events_to else None
        if sink is not None:
            bus.add(sink)
        try:
            result = await self.runner.run(spec, events=bus)
        finally:
            if sink is not None:
                sink.close()
        return json.loads(render(result, "json"))

    async def rendered(self, instruction: str, url: str, fmt: str) -> str:
        """What ``curllm INSTRUCTION --url URL --format FMT`` prints on stdout (its renderer, `render`)."""
        from curllm_core.render import render
        from curllm_core.runner import TaskSpec

        spec = TaskSpec(instruction=instruction, url=url, options=self.options(), use_cache=False)
        result = await self.runner.run(replace(spec, url=self.runner.start_url(spec)))
        return render(result, fmt)

    async def run_plan(self, plan: dict, args: Sequence[str]) -> tuple[int, dict[str, Any]]:
        """``curllm --plan FILE --format json ARGS``: its exit code (0, or 1 when the result is not
        ok) and its document. ARGS are `curllm run`'s (``--url``, the browser and network options),
        parsed by its parser (`cli_run_options`); bad ones raise `UsageError` (the CLI's exit 2)."""
        from curllm_core.render import render
        from curllm_core.runner import TaskSpec

        url, options = cli_run_options(args)
        result = await self.runner.run(TaskSpec(plan=plan, url=url, options=options))
        return (0 if result.ok else 1), json.loads(render(result, "json"))

    async def batch(self, tasks: list[dict], concurrency: int) -> list[dict]:
        """The lines ``curllm batch TASKS -j CONCURRENCY`` writes (in the order the tasks end), run
        in this process's browser by the same engine (`run_many`)."""
        from curllm_core.batch import run_many

        lines = run_many(
            tasks,
            concurrency=concurrency,
            options=self.options(batch=True),
            registry=self.runner.registry,
            browser=self.runner.browser,
            use_cache=False,
        )
        return [line async for line in lines]

    @staticmethod
    def options(batch: bool = False) -> Any:
        """The CLI's options when none is given: `curllm run`'s time limit; none for a batch's task."""
        from curllm_core.cli.options import make_run_options
        from curllm_core.cli.run import DEFAULT_TIMEOUT_S

        options = make_run_options({}, None, None)
        return options if batch else replace(options, timeout_s=DEFAULT_TIMEOUT_S)

    async def aclose(self) -> None:
        await self.runner.aclose()


def cli_run_options(args: Sequence[str]) -> tuple[str | None, RunOptions]:
    """The ``--url`` and the `RunOptions` of ``curllm run ARGS``: ARGS parsed by the command's own
    parser (its types, choices and checks; click's errors are the CLI's exit 2), the options made
    from them as the command makes them (`make_run_options`, `curllm run`'s time limit)."""
    from curllm_core.cli.options import BrowserOption, make_run_options
    from curllm_core.cli.run import DEFAULT_TIMEOUT_S, run_cmd

    with run_cmd.make_context("run", list(args)) as ctx:
        params = dict(ctx.params)
    browser_params = {
        p.name: params[p.name] for p in run_cmd.params if isinstance(p, BrowserOption) and p.name
    }
    options = make_run_options(browser_params, None, None)
    if options.timeout_s is None:
        options = replace(options, timeout_s=DEFAULT_TIMEOUT_S)
    return params.get("url"), options


@dataclass
class Exited:
    """What a command line ended with: its exit code and what it wrote (as `subprocess.run` tells)."""

    returncode: int
    stdout: str
    stderr: str


def cli_main(
    args: Sequence[str], *, stdin: str | None = None, env: Mapping[str, str | None] | None = None
) -> Exited:
    """``curllm ARGS`` run by its console entry point (`curllm_core.cli.main`) in this process: the
    same parsing, checks, error lines and exit codes, with ``stdin`` as its standard input and an
    environment as a test's `curllm` process gets it (no ``CURLLM_``/``OPENAI_`` variable of this
    process, no third-party plugins) plus ``env``, where None unsets a variable (click's test isolation
    swaps them back after)."""
    from click.testing import CliRunner

    from curllm_core.cli import main

    overrides: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("CURLLM_", "OPENAI_"))}
    overrides.update({"CURLLM_LOAD_PLUGINS": "", **(env or {})})
    saved = sys.argv
    # The command sets up its logging on the root logger (a stderr handler, a level): a process-wide
    # setting a `curllm` process ends with, given back here so later tests log as before.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    with CliRunner().isolation(input=stdin, env=overrides) as (out, err, _):
        sys.argv = ["curllm", *args]
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        finally:
            sys.argv = saved
            root.handlers[:] = handlers
            root.setLevel(level)
            gc.unfreeze()  # main() froze this process's objects for its exit, which does not come
            sys.stdout.flush()
            sys.stderr.flush()
        return Exited(code, out.getvalue().decode(), err.getvalue().decode())
