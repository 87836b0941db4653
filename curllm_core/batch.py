"""Batch runs: many tasks in one process and one browser, each result recorded once, nothing lost.

A task is ``{"id", "url", "instruction" | "plan", ...}`` (see `TASK_FIELDS`). Task files are JSONL,
YAML or CSV (`read_tasks`). `Batch` runs tasks concurrently, one browser context per task in one
shared `Browser`, and yields one JSON-able line per task as it finishes; `run_many` is the Python
API over it and `run_cli` the ``curllm batch`` command (out file, resume, progress, signals).

Guarantees of ``--out FILE`` (`OutFile`):

- a line is appended with a single ``write`` and fsynced before the next one, so a finished task
  survives the process being killed at any moment;
- a torn last line (the process died inside that write) is cut off before anything is appended,
  and that task runs again;
- ``--resume`` skips the ids already recorded (tasks cancelled by Ctrl-C excepted: their lines are
  dropped and the tasks run again), so every id ends up with exactly one line;
- the file is locked while a batch writes to it, so two batches cannot interleave in it.

Planning happens once per distinct instruction and site (the plan cache's key: the instruction and
the URL's shape): concurrent identical tasks wait for one planning (an asyncio task per key), and
the planner's disk cache covers later runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import importlib
import io
import json
import logging
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

try:
    import fcntl
except ImportError:  # not on Windows: the out file is then not locked
    fcntl = None  # type: ignore[assignment]

from .browser import Browser
from .errors import CurllmError, PlanError, PlanningError, UsageError
from .events import EventBus, now_iso
from .executor import RunOptions
from .plan import Plan, check_plan
from .registry import Registry
from .result import error_entry

log = logging.getLogger("curllm.batch")

#: The fields a task may have. ``plan`` is a plan document, a list of steps, or (as a string) JSON or
#: the path of a plan file; ``expected_output`` goes with a list of steps; ``data`` is the initial data.
TASK_FIELDS = ("id", "url", "instruction", "plan", "expected_output", "data", "model", "timeout")
#: Task file formats, by extension; anything else (and stdin) is sniffed.
EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".csv": "csv",
}
INPUT_FORMATS = ("jsonl", "json", "yaml", "csv")
DEFAULT_CONCURRENCY = 2
CANCELLED = "CANCELLED"
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_SIGINT, EXIT_SIGTERM = 0, 1, 2, 130, 143


# --- tasks -------------------------------------------------------------------------------------


@dataclass
class Task:
    """One task of a batch, checked: ``instruction`` xor ``plan`` (a plan document), URL normalized."""

    id: str
    url: str | None = None
    instruction: str | None = None
    plan: dict | None = None
    data: dict | None = None
    model: str | None = None
    timeout: float | None = None
    line: int | None = None  # where it came from in the task file, 1-based

    def to_dict(self) -> dict:
        """The task as a document `task_from_dict` accepts."""
        doc: dict[str, Any] = {"id": self.id}
        for key in ("url", "instruction", "plan", "data", "model", "timeout"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        return doc


@dataclass
class BadTask:
    """A task that cannot run: it gets a failed line of its own (``id`` is ``line:N`` when it has none)."""

    id: str
    error: dict
    line: int | None = None


class TaskError(CurllmError):
    """What is wrong with one task; becomes that task's failed line, never stops the batch."""

    code = "BAD_TASK"


Entry = Task | BadTask


def task_from_dict(
    doc: Any,
    *,
    where: str,
    line: int | None = None,
    base_dir: Path | None = None,
    plan_files: dict[Path, Any] | None = None,
) -> Entry:
    """Check one task document. ``where`` (``line:N``) names it when it has no usable id.

    ``base_dir`` resolves relative plan paths and local page paths (the task file's folder);
    ``plan_files`` caches plan files read by path, so that 1000 rows naming one file read it once.
    """
    if not isinstance(doc, dict):
        return BadTask(
            where,
            error_entry(
                "BAD_LINE",
                f"{where}: a task must be an object with id, url and instruction or plan, not {_kind(doc)}",
            ),
            line,
        )
    task_id = doc.get("id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not task_id.strip():
        what = "missing field id" if task_id in (None, "") else f"id must be a string, not {_kind(task_id)}"
        return BadTask(
            where, error_entry("BAD_TASK", f"{where}: {what} (every task needs a unique id)"), line
        )
    task_id = task_id.strip()
    try:
        return _check_task(
            doc, task_id, line, base_dir or Path.cwd(), {} if plan_files is None else plan_files
        )
    except TaskError as e:
        return BadTask(task_id, error_entry(e.code, f"task {task_id}: {e.message}"), line)


def _check_task(doc: dict, task_id: str, line: int | None, base_dir: Path, plan_files: dict) -> Task:
    unknown = [k for k in doc if k not in TASK_FIELDS and not str(k).startswith(("x-", "x_"))]
    if unknown:
        raise TaskError(
            f"unknown field(s) {', '.join(map(repr, unknown))} (known: {', '.join(TASK_FIELDS)};"
            " prefix your own with x-)"
        )
    instruction, plan = doc.get("instruction"), doc.get("plan")
    if instruction is not None and plan is not None:
        raise TaskError("give either instruction or plan, not both")
    if instruction is None and plan is None:
        raise TaskError("missing field instruction (or plan)")
    if instruction is not None:
        if not isinstance(instruction, str):
            raise TaskError(f"instruction must be a string, not {_kind(instruction)}")
        if not instruction.strip():
            raise TaskError('empty instruction: say what to find, e.g. "find products under 150zł"')
        if doc.get("expected_output") is not None:
            raise TaskError("expected_output goes with a plan; the planner sets it for an instruction")
        instruction = instruction.strip()
    else:
        plan = _plan_document(plan, doc.get("expected_output"), base_dir, plan_files)
    url = doc.get("url")
    if url is not None and url != "":
        url = check_task_url(url, base_dir)
    else:
        url = None
    data = doc.get("data")
    if data is not None and not isinstance(data, dict):
        raise TaskError(f"data must be an object of data keys, not {_kind(data)}")
    model = doc.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise TaskError("model must be a non-empty string (a litellm model name)")
    timeout = doc.get("timeout")
    if timeout is not None:
        if isinstance(timeout, str):
            try:
                timeout = float(timeout)
            except ValueError:
                raise TaskError(f"timeout must be a number of seconds, not {timeout!r}") from None
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise TaskError(f"timeout must be a positive number of seconds, not {timeout!r}")
        timeout = float(timeout)
    return Task(task_id, url, instruction, plan, data, model.strip() if model else None, timeout, line)


def _plan_document(plan: Any, expected: Any, base_dir: Path, plan_files: dict) -> dict:
    """The task's plan as a plan document: given as one, as a list of steps, as JSON text or a file path."""
    if isinstance(plan, str):
        text = plan.strip()
        if text[:1] in ("{", "["):
            try:
                plan = json.loads(text)
            except json.JSONDecodeError as e:
                raise TaskError(f"plan is not valid JSON: {e.msg} (column {e.colno})") from None
        elif text:
            path = (base_dir / text).resolve()
            if path not in plan_files:
                try:
                    plan_files[path] = json.loads(path.read_text(encoding="utf-8"))
                except OSError as e:
                    plan_files[path] = TaskError(f"plan file {text}: cannot read: {e.strerror}")
                except (json.JSONDecodeError, UnicodeDecodeError) as e:
                    plan_files[path] = TaskError(f"plan file {text}: not valid JSON: {e}")
            if isinstance(plan_files[path], TaskError):
                raise plan_files[path]
            plan = plan_files[path]
        else:
            raise TaskError("empty plan")
    if isinstance(plan, list):
        plan = {"plan": plan}
    if not isinstance(plan, dict):
        raise TaskError(
            f"plan must be a plan object, a list of steps, JSON text or a file path, not {_kind(plan)}"
        )
    if expected is not None:
        if not isinstance(expected, str):
            raise TaskError(f"expected_output must be a string, not {_kind(expected)}")
        plan = {**plan, "expected_output": expected}
    return plan


def check_task_url(raw: Any, base_dir: Path | None = None) -> str:
    """A task's start URL, normalized; TaskError (``BAD_URL``) for anything a browser cannot open."""
    from .urls import looks_like_url, normalize_url

    if not isinstance(raw, str):
        raise TaskError(f"url must be a string, not {_kind(raw)}", code="BAD_URL")
    text = raw.strip()
    # A relative page path is taken relative to the task file, the way plan paths are.
    if base_dir is not None and text and "://" not in text and (base_dir / text).is_file():
        text = str(base_dir / text)
    if not looks_like_url(text):
        raise TaskError(
            f"bad URL {raw!r}: expected http(s)://…, file://… or the path of a local page", code="BAD_URL"
        )
    url = normalize_url(text)
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        raise TaskError(
            f"bad URL {raw!r}: the port is not a number from 0 to 65535", code="BAD_URL"
        ) from None
    if parts.scheme in ("http", "https") and parts.hostname:
        return url
    if parts.scheme == "file" and parts.path:
        return url
    raise TaskError(
        f"bad URL {raw!r}: only http(s) and file URLs with a host or path can be opened", code="BAD_URL"
    )


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


# --- task files --------------------------------------------------------------------------------


def read_tasks(source: str, input_format: str | None = None, *, stdin: IO[str] | None = None) -> list[Entry]:
    """Read a task file (or ``-`` for stdin). UsageError when the file as a whole cannot be read.

    The format comes from ``input_format``, else the extension, else the content (`sniff_format`).
    One bad task or line does not fail the file: it becomes a `BadTask`.
    """
    if input_format is not None and input_format not in INPUT_FORMATS:
        raise UsageError(f"unknown task format {input_format!r} (known: {', '.join(INPUT_FORMATS)})")
    if source == "-":
        text = (stdin or sys.stdin).read()
        base_dir, name = Path.cwd(), "stdin"
    else:
        path = Path(source)
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise UsageError(f"task file {source}: cannot read: {e.strerror}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise UsageError(f"task file {source}: not UTF-8 text (byte {e.start})") from None
        base_dir, name = path.resolve().parent, source
        input_format = input_format or EXTENSIONS.get(path.suffix.lower())
    fmt = input_format or sniff_format(text)
    if fmt == "json" and text.lstrip().startswith("{") and "\n{" in text.strip():
        fmt = "jsonl"  # a .json file that is really one object per line
    return parse_tasks(text, fmt, base_dir=base_dir, name=name)


def sniff_format(text: str) -> str:
    """Guess the format of task text: JSON lines, a JSON array, CSV with a header, else YAML."""
    first = next(
        (ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), ""
    )
    if first.startswith("{"):
        return "jsonl"
    if first.startswith("["):
        return "json"
    header = next(csv.reader([first]), [])
    if len(header) > 1 and "id" in [h.strip() for h in header]:
        return "csv"
    return "yaml"


def parse_tasks(text: str, fmt: str, *, base_dir: Path | None = None, name: str = "tasks") -> list[Entry]:
    """Parse task text of a known format into checked tasks and bad tasks."""
    base_dir = base_dir or Path.cwd()
    plan_files: dict[Path, Any] = {}
    if fmt == "jsonl":
        return _parse_jsonl(text, base_dir, plan_files)
    if fmt == "csv":
        return _parse_csv(text, base_dir, name, plan_files)
    if fmt == "json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise UsageError(
                f"task file {name}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
            ) from None
        items = _task_list(doc, name)
        return [
            task_from_dict(d, where=f"item:{i}", base_dir=base_dir, plan_files=plan_files)
            for i, d in enumerate(items, 1)
        ]
    if fmt == "yaml":
        return _parse_yaml(text, base_dir, name, plan_files)
    raise UsageError(f"unknown task format {fmt!r} (known: {', '.join(INPUT_FORMATS)})")


def _task_list(doc: Any, name: str) -> list:
    if isinstance(doc, dict) and isinstance(doc.get("tasks"), list):
        return doc["tasks"]
    if isinstance(doc, list):
        return doc
    if doc is None:
        return []
    raise UsageError(
        f"task file {name}: expected a list of tasks (or an object with a tasks list), got {_kind(doc)}"
    )


def _parse_jsonl(text: str, base_dir: Path, plan_files: dict) -> list[Entry]:
    entries: list[Entry] = []
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"line:{number}"
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as e:
            entries.append(
                BadTask(
                    where,
                    error_entry("BAD_LINE", f"line {number} is not valid JSON: {e.msg} (column {e.colno})"),
                    number,
                )
            )
            continue
        entries.append(
            task_from_dict(doc, where=where, line=number, base_dir=base_dir, plan_files=plan_files)
        )
    return entries


def _parse_yaml(text: str, base_dir: Path, name: str, plan_files: dict) -> list[Entry]:
    import yaml

    try:
        doc = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)  # the same document again, for line numbers
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise UsageError(f"task file {name}: not valid YAML: {problem}{where}") from None
    items = _task_list(doc, name)
    if isinstance(root, yaml.MappingNode):
        root = next((v for k, v in root.value if getattr(k, "value", None) == "tasks"), None)
    lines = [n.start_mark.line + 1 for n in root.value] if isinstance(root, yaml.SequenceNode) else []
    entries: list[Entry] = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else None
        where = f"line:{line}" if line else f"item:{i + 1}"
        entries.append(task_from_dict(item, where=where, line=line, base_dir=base_dir, plan_files=plan_files))
    return entries


def _parse_csv(text: str, base_dir: Path, name: str, plan_files: dict) -> list[Entry]:
    # csv.reader, not DictReader: it shows blank rows, so every row's first line number is known.
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
    try:
        header = [h.strip() for h in next(reader, [])]
    except csv.Error as e:
        raise UsageError(f"task file {name}: not valid CSV: {e}") from None
    if not header:
        return []
    unknown = [h for h in header if h not in TASK_FIELDS and not h.startswith(("x-", "x_"))]
    if unknown or "id" not in header:
        problem = f"unknown column(s) {', '.join(map(repr, unknown))}" if unknown else "no id column"
        raise UsageError(
            f"task file {name}: {problem} (columns: {', '.join(TASK_FIELDS)}; prefix your own with x-)"
        )
    entries: list[Entry] = []
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            entries.append(
                BadTask(f"line:{line}", error_entry("BAD_LINE", f"line {line} is not valid CSV: {e}"), line)
            )
            line = reader.line_num + 1
            continue
        start, line = line, reader.line_num + 1
        if len(row) > len(header):
            entries.append(
                BadTask(
                    f"line:{start}",
                    error_entry("BAD_LINE", f"line {start} has more cells than the header has columns"),
                    start,
                )
            )
            continue
        doc = {k: v.strip() for k, v in zip(header, row, strict=False) if v.strip() != ""}
        if not doc:
            continue  # a blank row
        if "data" in doc:
            try:
                doc["data"] = json.loads(doc["data"])
            except json.JSONDecodeError as e:
                where = f"task {doc['id']}" if doc.get("id") else f"line:{start}"
                entries.append(
                    BadTask(
                        doc.get("id") or f"line:{start}",
                        error_entry(
                            "BAD_TASK", f"{where}: data is not valid JSON: {e.msg} (column {e.colno})"
                        ),
                        start,
                    )
                )
                continue
        entries.append(
            task_from_dict(doc, where=f"line:{start}", line=start, base_dir=base_dir, plan_files=plan_files)
        )
    return entries


def dedupe(entries: Iterable[Entry]) -> list[Entry]:
    """Mark every repeat of an id as a `BadTask` (``DUPLICATE_ID``, id ``line:N``, or ``task:N`` for
    tasks given in Python): ids must stay unique in the output, which is what ``--resume`` relies on."""
    seen: dict[str, Entry] = {}
    out: list[Entry] = []
    for index, entry in enumerate(entries, 1):
        first = seen.get(entry.id)
        if first is None:
            seen[entry.id] = entry
            out.append(entry)
            continue
        where = f"line:{entry.line}" if entry.line else f"task:{index}"
        at = f"on line {first.line}" if first.line else "by an earlier task"
        out.append(
            BadTask(
                where,
                error_entry(
                    "DUPLICATE_ID", f"{where}: id {entry.id!r} is already used {at}; this task was not run"
                ),
                entry.line,
            )
        )
    return out


def _entries(tasks: Iterable[Task | BadTask | dict]) -> list[Entry]:
    """Tasks given to the API: dicts are checked like lines of a task file (``task:N`` for bad ones)."""
    entries: list[Entry] = []
    for i, task in enumerate(tasks, 1):
        if isinstance(task, Task | BadTask):
            entries.append(task)
        else:
            entries.append(task_from_dict(task, where=f"task:{i}"))
    return dedupe(entries)


# --- result lines ------------------------------------------------------------------------------


def bad_line(entry: BadTask) -> dict:
    """The failed line of a task that could not run."""
    line = {
        "id": entry.id,
        "ok": False,
        "url": None,
        "data": {},
        "errors": [entry.error],
        "timings": {},
        "steps": [],
    }
    if entry.line is not None:
        line["line"] = entry.line
    return line


def _failed_line(
    task: Task,
    error: dict,
    started_at: str,
    started: float,
    url: str | None = None,
    timings: dict | None = None,
) -> dict:
    line = {
        "id": task.id,
        "ok": False,
        "url": url or task.url,
        "data": {},
        "errors": [error],
        "timings": {**(timings or {}), "total_ms": _ms(started)},
        "steps": [],
        "started_at": started_at,
        "finished_at": now_iso(),
    }
    if task.line is not None:
        line["line"] = task.line
    return line


def _error_of(e: CurllmError) -> dict:
    entry = error_entry(e.code, e.message)
    if e.problems:
        entry["problems"] = [str(p) for p in e.problems]
    return entry


def _compact_step(step: dict) -> dict:
    """A step without its output (the data has it): tool, success, timing, error."""
    return {k: v for k, v in step.items() if k != "result"}


def is_cancelled(line: dict) -> bool:
    """Whether a recorded line is a task cancelled by an interrupt (it runs again on ``--resume``)."""
    return not line.get("ok") and any(
        isinstance(e, dict) and e.get("code") == CANCELLED for e in line.get("errors") or []
    )


# --- the engine --------------------------------------------------------------------------------


@dataclass
class _Planned:
    plan: Plan
    usage: dict | None
    source: str | None


class Batch:
    """Tasks run concurrently in one browser, one context per task; `results` yields their lines.

    ``stop()`` (what Ctrl-C calls) cancels the running tasks, which are recorded as ``CANCELLED``,
    and starts no more. The browser is started on the first task that needs a page and closed at
    the end, unless it was given (then its owner closes it).
    """

    def __init__(
        self,
        tasks: Iterable[Task | BadTask | dict],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        options: RunOptions | None = None,
        registry: Registry | None = None,
        browser: Browser | None = None,
        model: str | None = None,
        use_cache: bool = True,
        refresh_plan: bool = False,
        on_event: Callable[[dict], None] | None = None,
        on_start: Callable[[Task], None] | None = None,
    ):
        if concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, got {concurrency}")
        self.entries = _entries(tasks)
        self.concurrency = concurrency
        self.options = options or RunOptions()
        self._registry = registry
        self.owns_browser = browser is None
        self.browser = browser if browser is not None else Browser(headless=self.options.browser.headless)
        self.model, self.use_cache, self.refresh_plan = model, use_cache, refresh_plan
        self.on_event, self.on_start = on_event, on_start
        self.stopping = False
        self.running: dict[str, asyncio.Task] = {}
        self._plans: dict[tuple, asyncio.Task] = {}
        self._checked: dict[tuple, Plan | PlanError] = {}
        self._used = False

    @property
    def registry(self) -> Registry:
        """The tools: as given, else the installed ones (loaded on first use)."""
        if self._registry is None:
            from .plugins import load_registry

            self._registry = load_registry()
        return self._registry

    def stop(self) -> None:
        """Start no more tasks; cancel the running ones (and their planning)."""
        self.stopping = True
        for task in list(self.running.values()):
            task.cancel()
        for planning in self._plans.values():
            planning.cancel()

    async def results(self) -> AsyncIterator[dict]:
        """Run the tasks; yield each one's line as it finishes (bad tasks first). Single use."""
        if self._used:
            raise RuntimeError("a Batch runs once; make a new one")
        self._used = True
        queue: asyncio.Queue = asyncio.Queue()
        pending = iter(self.entries)
        workers = [
            asyncio.create_task(self._worker(pending, queue), name=f"curllm-batch-{i}")
            for i in range(min(self.concurrency, max(1, len(self.entries))))
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
            for planning in self._plans.values():
                planning.cancel()
            await asyncio.gather(*self._plans.values(), return_exceptions=True)
            if self.owns_browser:
                await _close_quietly(self.browser)

    async def _worker(self, pending, queue: asyncio.Queue) -> None:
        try:
            while not self.stopping:
                entry = next(pending, None)
                if entry is None:
                    return
                if isinstance(entry, BadTask):
                    queue.put_nowait(bad_line(entry))
                    continue
                queue.put_nowait(await self._supervise(entry))
        finally:
            queue.put_nowait(None)

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
            line = _failed_line(
                task, error_entry("INTERNAL_ERROR", f"{type(exc).__name__}: {exc}"), started_at, started
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
        return _failed_line(
            task,
            error_entry(
                CANCELLED, "the batch was interrupted while this task ran; it runs again with --resume"
            ),
            started_at,
            started,
        )

    async def _run(self, task: Task, started_at: str, started: float) -> dict:
        """Plan (or check the plan), then execute; every failure becomes the task's failed line."""
        from .api import execute_plan

        bus = EventBus()
        if self.on_event is not None:
            on_event, task_id = self.on_event, task.id
            bus.add(lambda event: on_event({**event, "task": task_id}))
        timeout = task.timeout if task.timeout is not None else self.options.timeout_s
        options = replace(self.options, url=task.url, data=dict(task.data or {}), timeout_s=timeout)
        timings: dict[str, int] = {}
        usage = None
        try:
            if task.plan is not None:
                plan = self._check(task.plan, set(options.data))
            else:
                planned, url = await self._plan(task, options, bus, timeout)
                plan, usage = planned.plan, planned.usage
                options = replace(options, url=url)
                timings["plan_ms"] = _ms(started)
        except CurllmError as e:
            return _failed_line(task, _error_of(e), started_at, started, timings=timings)
        except TimeoutError:
            return _failed_line(
                task,
                error_entry("TASK_TIMEOUT", f"planning did not finish within {timeout:g} s"),
                started_at,
                started,
                timings=timings,
            )
        url = options.url or (plan.url if task.plan is not None else None)
        if plan.needs_page and not url:
            return _failed_line(
                task,
                error_entry("BAD_TASK", f"task {task.id}: missing field url (its plan needs a web page)"),
                started_at,
                started,
                timings=timings,
            )
        if url and url != options.url:
            try:
                url = check_task_url(url)
            except TaskError as e:
                return _failed_line(task, _error_of(e), started_at, started, timings=timings)
        if timeout is not None:
            timeout = max(0.1, timeout - (time.perf_counter() - started))
        options = replace(options, url=url, timeout_s=timeout)
        result = await execute_plan(
            plan, options=options, registry=self.registry, events=bus, browser=self.browser
        )
        doc = result.to_dict()
        line: dict[str, Any] = {
            "id": task.id,
            "ok": result.ok,
            "url": result.url or url,
            "data": result.data,
            "errors": result.errors,
            "timings": {**timings, **result.timings, "total_ms": _ms(started)},
            "steps": [_compact_step(s) for s in doc["steps"]],
            "started_at": started_at,
            "finished_at": now_iso(),
        }
        if usage:
            line["usage"] = usage
        if task.line is not None:
            line["line"] = task.line
        return line

    def _check(self, doc: dict, initial_keys: set[str]) -> Plan:
        """check_plan, once per distinct document: a batch often runs one plan many times."""
        key = (json.dumps(doc, sort_keys=True, default=str), frozenset(initial_keys))
        if key not in self._checked:
            try:
                self._checked[key] = check_plan(doc, self.registry, initial_keys=set(initial_keys))
            except PlanError as e:
                self._checked[key] = e
        found = self._checked[key]
        if isinstance(found, PlanError):
            raise found
        return found

    async def _plan(
        self, task: Task, options: RunOptions, bus: EventBus, timeout: float | None
    ) -> tuple[_Planned, str | None]:
        """The plan for an instruction and the start URL: concurrent identical tasks share one planning."""
        try:
            planner = importlib.import_module(".planner", __package__)
        except ImportError as e:
            raise PlanningError(f"the planner cannot be loaded ({e}); give the task a plan instead") from None
        model = task.model or self.model
        url = options.url
        resolve = getattr(planner, "resolve_start_url", None)
        if url is None and resolve is not None:
            try:
                url = resolve(task.instruction, None, self.registry)
            except UsageError:
                raise TaskError(
                    f"task {task.id}: missing field url (and its instruction names no site the "
                    "installed tools know)"
                ) from None
            if url:
                url = check_task_url(url)
        key = (*_plan_key(task.instruction, url), model, frozenset(options.data))
        planning = self._plans.get(key)
        if planning is None:

            async def plan_once() -> _Planned:
                planned = await planner.plan_task(
                    task.instruction,
                    url,
                    self.registry,
                    model=model,
                    use_cache=self.use_cache,
                    refresh=self.refresh_plan,
                    events=bus,
                    initial_keys=set(options.data),
                )
                return _Planned(
                    planned.plan, getattr(planned, "usage", None), getattr(planned, "source", None)
                )

            planning = asyncio.create_task(plan_once(), name=f"curllm-plan-{task.id}")
            self._plans[key] = planning
            first = True
        else:
            first = False
        # shield: one waiter's timeout or cancellation must not cancel the planning the others wait for
        planned = await asyncio.wait_for(asyncio.shield(planning), timeout)
        # The usage (model tokens) was spent once: it is reported on the task that caused it.
        return (planned if first else _Planned(planned.plan, None, planned.source)), url


def _plan_key(instruction: str, url: str | None) -> tuple[str, str]:
    """What a plan depends on, as the plan cache sees it: the normalized instruction and the URL's
    shape (host, path with numbers folded, query keys). Two tasks alike in these share one planning."""
    try:
        from .planner.cache import normalize_instruction, url_shape
    except ImportError:  # a planner without that cache: plan per exact instruction and URL
        return " ".join(instruction.split()), url or ""
    return normalize_instruction(instruction), url_shape(url)


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
    on_event: Callable[[dict], None] | None = None,
) -> AsyncIterator[dict]:
    """Run many tasks in one browser; ``async for line in run_many(tasks, concurrency=4)``.

    ``tasks`` are dicts with the fields of a task file line (or `Task` objects). Each yielded line is
    ``{"id", "ok", "url", "data", "errors", "timings", "steps", ...}``, in the order tasks finish; a
    bad task yields its own failed line and the others still run. ``options`` (browser, network,
    ``timeout_s``) apply to every task. Events of every task go to ``on_event``, tagged with ``task``.
    Stop early with ``contextlib.aclosing``; leaving the loop cancels the running tasks.
    """
    batch = Batch(
        tasks,
        concurrency=concurrency,
        options=options,
        registry=registry,
        browser=browser,
        model=model,
        use_cache=use_cache,
        refresh_plan=refresh_plan,
        on_event=on_event,
    )
    return batch.results()


async def _close_quietly(browser: Browser) -> None:
    try:
        await browser.close()
    except Exception as e:  # the driver may be gone already (it got the terminal's Ctrl-C too)
        log.debug("closing the browser: %s", e)


# --- the out file ------------------------------------------------------------------------------


class OutFile:
    """The ``--out`` JSONL file: one durable line per finished task (see the module docstring).

    The file is locked (flock) while a batch writes to it: a second ``curllm batch`` on the same
    file is refused instead of interleaving and duplicating results.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        resume: bool = False,
        retry_failed: bool = False,
        overwrite: bool = False,
        note: Callable[[str], None] = lambda text: None,
    ):
        self.path = Path(path)
        self.note = note
        #: id -> the recorded line's ok, for the ids kept from an earlier run
        self.recorded: dict[str, bool] = {}
        self._fd: int | None = None
        try:
            self._prepare(resume or retry_failed, retry_failed, overwrite)
        except BaseException:
            self.close()
            raise

    def _prepare(self, resume: bool, retry_failed: bool, overwrite: bool) -> None:
        existed = self.path.exists()
        self._fd = self._open_locked(self.path)
        try:
            size = os.fstat(self._fd).st_size
            if size and not resume and not overwrite:
                raise UsageError(
                    f"--out {self.path} already has results: add --resume to continue it "
                    "(skipping the ids it has), or --overwrite to start again"
                )
            if overwrite:
                os.ftruncate(self._fd, 0)
                os.fsync(self._fd)
            elif size:
                self._load(retry_failed)
        except OSError as e:
            raise UsageError(f"--out {self.path}: {e.strerror}") from None
        if not existed:
            _fsync_dir(self.path)  # the new file's name must survive a crash too, not only its lines

    def _open_locked(self, path: Path) -> int:
        """Open for appending and take the lock; make sure the locked file is still the one at ``path``."""
        for _ in range(5):
            try:
                fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError as e:
                raise UsageError(f"--out {path}: cannot open: {e.strerror}") from None
            if fcntl is None:
                return fd
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise UsageError(
                    f"--out {path} is being written by another curllm batch; wait for it to end "
                    "(or stop it), then --resume"
                ) from None
            try:
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)  # another batch replaced the file (a resume's rewrite) meanwhile: lock the new one
        raise UsageError(f"--out {path} keeps being replaced by another process")

    def _load(self, retry_failed: bool) -> None:
        raw = self.path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):
            tail = raw[end:]
            if _result_id(tail) is not None:
                # A whole result without its newline (a file put together by hand): keep it.
                os.write(self._fd, b"\n")
                raw += b"\n"
            else:
                # The last write was cut short (the process was killed inside it): that task was not
                # recorded, so drop the fragment and let the task run again.
                self.note(
                    f"{self.path}: removed a torn last line ({len(tail)} bytes, from an interrupted "
                    "run); that task runs again"
                )
                os.ftruncate(self._fd, end)
                raw = raw[:end]
            os.fsync(self._fd)
        keep: list[bytes] = []
        dropped: Counter = Counter()
        for number, chunk in enumerate(raw.splitlines(keepends=True), 1):
            line = _result_line(chunk)
            if line is None:
                if chunk.strip():
                    self.note(f"{self.path}: line {number} is not a result line; left as it is")
                keep.append(chunk)
                continue
            task_id = str(line["id"])
            if is_cancelled(line):
                dropped["cancelled"] += 1
            elif retry_failed and not line.get("ok"):
                dropped["failed"] += 1
            else:
                self.recorded[task_id] = bool(line.get("ok"))
                keep.append(chunk)
                continue
            self.recorded.pop(task_id, None)
        if dropped:
            what = " and ".join(f"{n} {kind}" for kind, n in dropped.items())
            self.note(f"{self.path}: {what} task(s) will run again; their old lines are removed")
            self._rewrite(b"".join(keep))

    def _rewrite(self, content: bytes) -> None:
        """Replace the file atomically (a crash leaves the old file or the new one), keeping the lock."""
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = None
        try:
            with open(tmp, "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            fd = self._open_locked(tmp)  # locked before it takes the name: no moment without the lock
            os.replace(tmp, self.path)
        except (OSError, UsageError) as e:
            if fd is not None:
                os.close(fd)
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(e, UsageError):
                raise
            raise UsageError(f"--out {self.path}: cannot rewrite: {e.strerror}") from None
        _fsync_dir(self.path)
        os.close(self._fd)
        self._fd = fd

    def write(self, line: dict) -> None:
        """Append one line durably: one write call, then fsync. OSError when the disk refuses."""
        data = _encode(line)
        view = memoryview(data)
        while view:  # a regular file takes it all at once; a short write is continued, not lost
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)

    def close(self) -> None:
        """Release the lock and the file."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _result_line(chunk: bytes) -> dict | None:
    try:
        line = json.loads(chunk)
    except ValueError:
        return None
    return line if isinstance(line, dict) and isinstance(line.get("id"), str | int) else None


def _result_id(chunk: bytes) -> str | None:
    line = _result_line(chunk)
    return None if line is None else str(line["id"])


class StreamOut:
    """Lines to a stream (stdout without ``--out``): flushed per line, for pipes."""

    def __init__(self, stream: IO[str] | None = None):
        self._stream = stream
        self.recorded: dict[str, bool] = {}

    def write(self, line: dict) -> None:
        """Write one line and flush it."""
        stream = self._stream or sys.stdout  # looked up late: the progress display may wrap stdout
        stream.write(_encode(line).decode("utf-8"))
        stream.flush()

    def close(self) -> None:
        """Nothing to release: the stream belongs to the caller."""


def _encode(line: dict) -> bytes:
    try:
        text = json.dumps(line, ensure_ascii=False, default=str)
    except (TypeError, ValueError) as e:  # e.g. a tool returned a self-referencing structure
        text = json.dumps(
            {k: line.get(k) for k in ("id", "url", "started_at", "finished_at", "line") if k in line}
            | {
                "ok": False,
                "data": {},
                "steps": [],
                "timings": line.get("timings", {}),
                "errors": [error_entry("OUTPUT_INVALID", f"the result cannot be written as JSON: {e}")],
            },
            ensure_ascii=False,
            default=str,
        )
    return (text + "\n").encode("utf-8")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path.resolve().parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory; the lines themselves are synced
    finally:
        os.close(fd)


# --- the command -------------------------------------------------------------------------------


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
    model: str | None = None
    use_cache: bool = True
    refresh_plan: bool = False
    events: str | None = None
    progress: bool | None = None  # None: when stderr is a terminal
    options: RunOptions = field(default_factory=RunOptions)


@dataclass
class Tally:
    """Counts for the progress display and the summary."""

    total: int = 0
    skipped: int = 0
    skipped_failed: int = 0
    ok: int = 0
    failed: int = 0
    cancelled: int = 0
    not_started: int = 0
    codes: Counter = field(default_factory=Counter)
    failed_ids: list[str] = field(default_factory=list)

    @property
    def done(self) -> int:
        """Tasks that ran to a line in this run."""
        return self.ok + self.failed + self.cancelled

    def add(self, line: dict) -> None:
        """Count one written line."""
        if is_cancelled(line):
            self.cancelled += 1
        elif line.get("ok"):
            self.ok += 1
        else:
            self.failed += 1
            self.failed_ids.append(str(line.get("id")))
            for error in line.get("errors") or []:
                if isinstance(error, dict) and not error.get("optional"):
                    self.codes[error.get("code") or "ERROR"] += 1
                    break


class ProgressView:
    """A progress bar on stderr (rich): done of total, failed, running, ETA. Does nothing when off."""

    def __init__(self, enabled: bool, total: int):
        self._progress = None
        self._bar = None
        if enabled and total > 0:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("curllm batch"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed[/red] · {task.fields[running]} running"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar = self._progress.add_task("tasks", total=total, failed=0, running=0)

    def __enter__(self) -> ProgressView:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, tally: Tally, running: int) -> None:
        """Show the counts now: ``running`` is what the batch runs at this moment."""
        if self._progress is not None:
            self._progress.update(
                self._bar, completed=tally.done, failed=tally.failed + tally.cancelled, running=running
            )


def _note(text: str) -> None:
    print(f"curllm: {text}", file=sys.stderr, flush=True)


def run_cli(spec: BatchSpec) -> int:
    """``curllm batch``: read the tasks, run them, record a line per task, print a summary.

    Returns the exit code: 0 all ok, 1 any failed, 2 unreadable input or bad options, 130 (143)
    interrupted by SIGINT (SIGTERM). Raises UsageError for what should exit 2 before anything runs.
    """
    from .config import load_config

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
    spec = replace(spec, model=spec.model or config.get("model") or None)
    entries = dedupe(read_tasks(spec.tasks, spec.input_format))
    sink: OutFile | StreamOut = (
        OutFile(
            spec.out, resume=spec.resume, retry_failed=spec.retry_failed, overwrite=spec.overwrite, note=_note
        )
        if spec.out
        else StreamOut()
    )
    events_stream = None
    try:
        tally = Tally(total=len(entries))
        todo = []
        for entry in entries:
            if entry.id in sink.recorded:
                tally.skipped += 1
                tally.skipped_failed += not sink.recorded[entry.id]
            else:
                todo.append(entry)
        on_event = None
        if spec.events:
            from .events import JsonlSink

            if spec.events == "-":
                events_sink = JsonlSink(sys.stdout)
            else:
                try:
                    events_stream = open(spec.events, "a", encoding="utf-8")  # noqa: SIM115 - closed below
                except OSError as e:
                    raise UsageError(f"--events {spec.events}: cannot open: {e.strerror}") from None
                events_sink = JsonlSink(events_stream)
            on_event = events_sink
        registry = None
        if any(isinstance(e, Task) for e in todo):
            from .plugins import load_registry

            registry = load_registry()
            for warning in registry.warnings:
                _note(f"warning: {warning}")
            for problem in registry.problems:
                _note(f"warning: skipped a bad manifest: {problem}")
        progress = sys.stderr.isatty() if spec.progress is None else spec.progress
        started = time.perf_counter()
        try:
            code = asyncio.run(
                _run_and_record(todo, spec, concurrency, registry, sink, tally, progress, on_event)
            )
        except KeyboardInterrupt:  # Ctrl-C before the batch's own handler was in place: nothing ran yet
            code = EXIT_SIGINT
        elapsed = time.perf_counter() - started
    finally:
        sink.close()
        if events_stream is not None:
            events_stream.close()
    _summary(tally, elapsed, spec.out, code)
    if code in (EXIT_SIGINT, EXIT_SIGTERM, EXIT_BAD_INPUT):
        return code
    return (
        EXIT_OK if tally.failed == 0 and tally.skipped_failed == 0 and tally.cancelled == 0 else EXIT_FAILED
    )


async def _run_and_record(
    todo: list[Entry],
    spec: BatchSpec,
    concurrency: int,
    registry: Registry | None,
    sink: OutFile | StreamOut,
    tally: Tally,
    progress: bool,
    on_event: Callable[[dict], None] | None,
) -> int:
    """Run the batch, writing each line as it comes; SIGINT/SIGTERM stop it gracefully."""
    view = ProgressView(progress, tally.total - tally.skipped)
    batch = Batch(
        todo,
        concurrency=concurrency,
        options=spec.options,
        registry=registry,
        model=spec.model,
        use_cache=spec.use_cache,
        refresh_plan=spec.refresh_plan,
        on_event=on_event,
        on_start=lambda task: view.update(tally, len(batch.running)),
    )
    loop = asyncio.get_running_loop()
    interrupted: list[int] = []

    def on_signal(signum: int) -> None:
        if interrupted:  # a second Ctrl-C: leave now; every line written so far is already on disk
            os._exit(EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM)
        interrupted.append(signum)
        _note(
            f"interrupted: cancelling {len(batch.running)} running task(s) and closing the browser "
            "(again to quit at once)"
        )
        batch.stop()

    handled = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, on_signal, signum)
            handled.append(signum)
    code = EXIT_OK
    try:
        with view:
            async with contextlib.aclosing(batch.results()) as lines:
                async for line in lines:
                    try:
                        # In a thread: an fsync takes milliseconds, in which the loop keeps the other
                        # tasks going. The next line is only taken once this one is on disk.
                        await asyncio.to_thread(sink.write, line)
                    except BrokenPipeError:
                        batch.stop()  # the reader is gone (e.g. | head): nobody to report to
                        _quiet_stdout()
                        return EXIT_FAILED
                    except OSError as e:
                        _note(
                            f"error: cannot write the result of task {line.get('id')}: {e.strerror}; stopping"
                        )
                        batch.stop()
                        code = EXIT_BAD_INPUT
                        break
                    tally.add(line)
                    view.update(tally, len(batch.running))
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
    tally.not_started = tally.total - tally.skipped - tally.done
    if interrupted:
        return EXIT_SIGINT if interrupted[0] == signal.SIGINT else EXIT_SIGTERM
    return code


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
    _note(text)
    if tally.codes:
        ids = ", ".join(tally.failed_ids[:5]) + (", …" if len(tally.failed_ids) > 5 else "")
        codes = ", ".join(f"{c} ×{n}" for c, n in tally.codes.most_common())
        _note(f"  failed: {codes} (ids: {ids})")
    if code in (EXIT_SIGINT, EXIT_SIGTERM) and out:
        _note(f"  continue with: --out {out} --resume")


def _ms(since: float) -> int:
    return int((time.perf_counter() - since) * 1000)
