"""``curllm batch``: read a task file, run the tasks, record a line per task, print a summary.

The engine is `curllm_core.batch`; this module adds what a command needs: the out sink (a durable
file or stdout), the progress bar, Ctrl-C handling, the summary and the exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import click

from ..batch import DEFAULT_CONCURRENCY, Batch, Entry, OutFile
from ..batch.outfile import encode_line
from ..batch.readers import TaskStream
from ..batch.tasks import dedupe_stream
from ..errors import CurllmError, UsageError
from ..executor import RunOptions
from ..option_rules import MAX_CONCURRENCY, MAX_REPLANS
from ..registry import Registry
from .app import cli
from .exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, fail, note
from .options import (
    SectionedCommand,
    browser_options,
    configure_logging,
    make_run_options,
    report_registry_problems,
)
from .progress import ProgressView, Tally
from .signals import StopOnSignal
from .sinks import open_events

EXIT_FAILED = 1


@cli.command(
    "batch",
    cls=SectionedCommand,
    short_help="Run many tasks from a file, in one browser.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.argument("tasks_file", metavar="TASKS")
@click.option(
    "--out",
    "-o",
    "out",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Append one JSON line per finished task to FILE (default: stdout).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Skip the task ids already in --out; tasks recorded as CANCELLED or BROWSER_CRASHED run again.",
)
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Also run again the tasks recorded as failed (their old lines are removed).",
)
@click.option("--overwrite", is_flag=True, help="Empty --out first.")
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, MAX_CONCURRENCY),
    metavar="N",
    help="Tasks running at once (1 to 64), in one browser; with --backend ray, in each worker "
    "(default: config concurrency, else 2).",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    metavar="NAME",
    default="local",
    show_default=True,
    help="Where the tasks run: local (this process, one browser) or ray (workers on a Ray cluster; "
    "pip install 'curllm[ray]').",
)
@click.option(
    "--address",
    metavar="ADDRESS",
    help="With --backend ray: the cluster, auto, HOST:PORT or ray://HOST:10001 (default: $RAY_ADDRESS, "
    "else a local Ray for this batch).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 4096),
    metavar="N",
    help="With --backend ray: worker processes, one browser and one CPU each, running --concurrency "
    "tasks each (default: the cluster's CPUs).",
)
@click.option(
    "--input-format",
    type=click.Choice(["jsonl", "json", "yaml", "csv"]),
    metavar="FORMAT",
    help="Format of TASKS: jsonl, json, yaml or csv (default: by extension, else guessed from the content).",
)
@click.option(
    "--model",
    metavar="MODEL",
    help="A litellm model that plans instead of the rule planner; a task's model overrides it "
    "(default: $CURLLM_MODEL, else config model).",
)
@click.option(
    "--no-cache", is_flag=True, help="Neither read nor write the plan cache (rule plans and model plans)."
)
@click.option(
    "--refresh-plan", is_flag=True, help="Plan each distinct instruction again, overwriting the cache."
)
@click.option(
    "--max-replans",
    type=click.IntRange(0, MAX_REPLANS),
    metavar="N",
    default=1,
    show_default=True,
    help="0 to 5. With a model: how many times a failed step may trigger a revised plan of the remaining steps.",
)
@click.option(
    "--events",
    "events_to",
    metavar="FILE|-",
    help="Append every task's events, each with a task field, to FILE, or to stdout with - (then --out is needed).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="A progress bar on stderr: done of total, failed, running, ETA (default: on when stderr is a terminal).",
)
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="More on stderr: -v shows the step view and info logs, -vv debug logs.",
)
@browser_options
def batch_cmd(
    tasks_file: str,
    out: str | None,
    resume: bool,
    retry_failed: bool,
    overwrite: bool,
    concurrency: int | None,
    backend: str,
    address: str | None,
    workers: int | None,
    input_format: str | None,
    model: str | None,
    no_cache: bool,
    refresh_plan: bool,
    max_replans: int,
    events_to: str | None,
    progress: bool | None,
    verbose: int,
    **browser_params: Any,
) -> None:
    """Runs many tasks from TASKS (a file, or - for stdin) concurrently in one browser, one browser
    context per task, and records one JSON line per finished task.

    \b
    A task: {"id": "a1", "url": "https://shop/", "instruction": "find products under 150zł"}
    or, instead of the instruction, "plan": a plan (in CSV: JSON text or a plan file path).
    Optional: "data" (initial data), "model", "timeout" (s), "expected_output" (with a plan).
    Browser and network options apply to every task; --timeout is each task's limit.

    \b
      curllm batch tasks.jsonl --out results.jsonl -j 4
      curllm batch tasks.jsonl --out results.jsonl --resume    # after a crash or Ctrl-C
      curllm batch tasks.jsonl --out results.jsonl --backend ray --address auto --workers 8
    Exit: 0 all ok, 1 any failed, 2 unreadable tasks or bad options, 130 interrupted.
    """
    from ..runner import resolve_model

    configure_logging(verbose)
    try:
        options = make_run_options(browser_params, None, None)
        model = resolve_model(model)
        spec = BatchSpec(
            tasks=tasks_file,
            input_format=input_format,
            out=out,
            resume=resume,
            retry_failed=retry_failed,
            overwrite=overwrite,
            concurrency=concurrency,
            backend=backend,
            address=address,
            workers=workers,
            verbose=verbose,
            model=model,
            use_cache=not no_cache,
            refresh_plan=refresh_plan,
            max_replans=max_replans,
            events=events_to,
            progress=progress,
            options=options,
        )
        code = run_cli(spec)
    except CurllmError as e:
        fail(e)
    sys.exit(code)


@dataclass
class BatchSpec:
    """Everything ``curllm batch`` was asked to do (the CLI fills it in from its options)."""

    tasks: str
    input_format: str | None = None
    out: str | None = None
    resume: bool = False
    retry_failed: bool = False
    overwrite: bool = False
    concurrency: int | None = None
    backend: str = "local"
    address: str | None = None  # --backend ray: the cluster
    workers: int | None = None  # --backend ray: worker actors
    verbose: int = 0
    model: str | None = None
    use_cache: bool = True
    refresh_plan: bool = False
    max_replans: int = 1
    events: str | None = None
    progress: bool | None = None  # None: when stderr is a terminal
    options: RunOptions = field(default_factory=RunOptions)


class StreamOut:
    """Lines to a stream (stdout without ``--out``): flushed per line, for pipes."""

    def __init__(self, stream: IO[str] | None = None):
        self._stream = stream
        self.recorded: dict[str, bool] = {}

    def write(self, line: dict) -> None:
        """Write one line and flush it."""
        stream = self._stream or sys.stdout  # looked up late: the progress display may wrap stdout
        stream.write(encode_line(line).decode("utf-8"))
        stream.flush()

    def close(self) -> None:
        """Nothing to release: the stream belongs to the caller."""


def run_cli(spec: BatchSpec) -> int:
    """``curllm batch``: read the tasks, run them, record a line per task, print a summary.

    Returns the exit code: 0 all ok, 1 any failed, 2 unreadable input or bad options, 130 (143)
    interrupted by SIGINT (SIGTERM). Raises UsageError for what should exit 2 before anything runs.
    """
    from ..config import load_config

    config = load_config()
    concurrency = spec.concurrency or config.get("concurrency") or DEFAULT_CONCURRENCY
    if concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, got {concurrency} (config file)")
    if (spec.resume or spec.retry_failed) and not spec.out:
        raise UsageError("--resume needs --out FILE: the results recorded there are what it skips")
    if spec.resume and spec.overwrite:
        raise UsageError("give either --resume or --overwrite, not both")
    if spec.events == "-" and not spec.out:
        raise UsageError("--events - needs --out FILE: without it stdout carries the result lines")
    if spec.backend != "ray" and (spec.address is not None or spec.workers is not None):
        raise UsageError("--address and --workers go with --backend ray")
    stream = TaskStream(spec.tasks, spec.input_format)
    cluster = None
    if spec.backend == "ray":
        from ..batch.ray_backend import RayCluster

        cluster = RayCluster(spec.address, local_cpus=spec.workers, log_to_driver=spec.verbose > 0)
        try:
            cluster.connect()  # exit 2 before anything runs when Ray is missing or cannot be reached
        except KeyboardInterrupt:
            stream.close()
            cluster.close()
            note("interrupted while starting Ray; nothing ran")
            return EXIT_SIGINT
        except BaseException:
            stream.close()
            cluster.close()
            raise
    try:
        sink: OutFile | StreamOut = (
            OutFile(
                spec.out,
                resume=spec.resume,
                retry_failed=spec.retry_failed,
                overwrite=spec.overwrite,
                note=note,
            )
            if spec.out
            else StreamOut()
        )
    except BaseException:
        stream.close()
        if cluster is not None:
            cluster.close()
        raise
    events_sink = None
    tally = Tally()

    def todo() -> Iterator[Entry]:
        """The tasks as they are read, ids kept unique, those already in --out skipped and counted."""
        for entry in dedupe_stream(stream):
            tally.total += 1
            if entry.id in sink.recorded:
                tally.skipped += 1
                tally.skipped_failed += not sink.recorded[entry.id]
            else:
                yield entry

    def registry() -> Registry:
        """Loaded when the first task needs it (a file of bad lines loads no plugins)."""
        from ..plugins import load_registry

        loaded = load_registry()
        report_registry_problems(loaded)
        return loaded

    read_error = stopped_by = None
    try:
        if spec.events:
            events_sink = open_events(spec.events)
        progress = sys.stderr.isatty() if spec.progress is None else spec.progress
        started = time.perf_counter()
        try:
            code, read_error, stopped_by = asyncio.run(
                _run_and_record(
                    todo(), spec, concurrency, registry, sink, tally, progress, events_sink, cluster
                )
            )
        except KeyboardInterrupt:  # Ctrl-C before the batch's own handler was in place: nothing ran yet
            code = EXIT_SIGINT
        elapsed = time.perf_counter() - started
    finally:
        stream.close()
        sink.close()
        if events_sink is not None:
            events_sink.close()
        if cluster is not None:
            cluster.close()
    _summary(tally, elapsed, spec.out, code)
    if stopped_by is not None:
        note(f"error [{stopped_by.code}]: {stopped_by}")
        if spec.out:
            note(f"  continue with: --out {spec.out} --resume")
    if read_error is not None:
        note(f"error [{read_error.code}]: {read_error}")
        note(
            f"  the tasks before it ran; fix the file and continue with --out {spec.out} --resume"
            if spec.out
            else "  the tasks before it ran"
        )
        return EXIT_BAD_INPUT
    if code in (EXIT_SIGINT, EXIT_SIGTERM, EXIT_BAD_INPUT):
        return code
    return (
        EXIT_OK if tally.failed == 0 and tally.skipped_failed == 0 and tally.cancelled == 0 else EXIT_FAILED
    )


async def _run_and_record(
    todo: Iterator[Entry],
    spec: BatchSpec,
    concurrency: int,
    registry: Callable[[], Registry],
    sink: OutFile | StreamOut,
    tally: Tally,
    progress: bool,
    on_event: Callable[[dict], None] | None,
    cluster: Any = None,
) -> tuple[int, CurllmError | None, CurllmError | None]:
    """Run the batch, writing each line as it comes; SIGINT/SIGTERM stop it gracefully.

    Returns the exit code so far, the error that stopped reading the tasks and the one that stopped
    the batch otherwise (None when none did). ``cluster`` is the connected `RayCluster` of
    ``--backend ray``: the tasks run there, everything else is the same.
    """
    view = ProgressView(progress, None)  # the total is unknown: the tasks are read as they run
    common: dict[str, Any] = {
        "concurrency": concurrency,
        "options": spec.options,
        "registry": registry,
        "model": spec.model,
        "use_cache": spec.use_cache,
        "refresh_plan": spec.refresh_plan,
        "max_replans": spec.max_replans,
        "on_event": on_event,
        "on_start": lambda task: view.update(tally, len(batch.running)),
    }
    batch: Batch
    if cluster is not None:
        from ..batch.ray_backend import RayBatch

        batch = RayBatch(
            todo, cluster=cluster, workers=spec.workers, warn=lambda text: note(f"warning: {text}"), **common
        )
    else:
        batch = Batch(todo, **common)

    def interrupted() -> None:
        note(
            f"interrupted: cancelling {len(batch.running)} running task(s) and closing the browser "
            "(again to quit at once)"
        )
        batch.stop()

    code = EXIT_OK
    with StopOnSignal(interrupted) as signals, view:
        async with contextlib.aclosing(batch.results()) as lines:
            async for line in lines:
                try:
                    # In a thread: an fsync takes milliseconds, in which the loop keeps the other
                    # tasks going. The next line is only taken once this one is on disk.
                    await asyncio.to_thread(sink.write, line)
                except BrokenPipeError:
                    batch.stop()  # the reader is gone (e.g. | head): nobody to report to
                    _quiet_stdout()
                    return EXIT_FAILED, None, None
                except OSError as e:
                    note(f"error: cannot write the result of task {line.get('id')}: {e.strerror}; stopping")
                    batch.stop()
                    code = EXIT_BAD_INPUT
                    break
                tally.add(line)
                view.update(tally, len(batch.running))
    tally.not_started = tally.total - tally.skipped - tally.done
    return signals.exit_code or code, batch.read_error, batch.stopped_by


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that the exit flush raises nothing."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _summary(tally: Tally, elapsed: float, out: str | None, code: int) -> None:
    ran = tally.done
    rate = f" ({ran / elapsed:.1f}/s)" if elapsed > 0 and ran else ""
    parts = [f"{tally.ok} ok", f"{tally.failed} failed"]
    if tally.cancelled:
        parts.append(f"{tally.cancelled} cancelled")
    if tally.not_started:
        parts.append(f"{tally.not_started} not started")
    text = f"batch: {tally.total} task(s): " + ", ".join(parts) + f" in {elapsed:.1f} s{rate}"
    if tally.skipped:
        text += f"; {tally.skipped} skipped, already in {out}" + (
            f" ({tally.skipped_failed} of them failed)" if tally.skipped_failed else ""
        )
    note(text)
    if tally.total == 0 and code == EXIT_OK:
        note("  the task file has no tasks (it is empty, or only blank and comment lines)")
    if tally.codes:
        ids = ", ".join(tally.failed_ids[:5]) + (", …" if tally.failed > 5 else "")
        codes = ", ".join(f"{c} ×{n}" for c, n in tally.codes.most_common())
        note(f"  failed: {codes} (ids: {ids})")
    if out and (code in (EXIT_SIGINT, EXIT_SIGTERM) or tally.cancelled):  # interrupted, or a crash
        note(f"  continue with: --out {out} --resume")
