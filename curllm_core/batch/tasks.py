"""Batch tasks: one task of a task file checked (`task_from_dict`) into a `Task` or a `BadTask`.

A task is ``{"id", "url", "instruction" | "plan", ...}`` (see `TASK_FIELDS`). What is wrong with one
task becomes that task's failed line (`BadTask`); it never stops the batch. Ids stay unique (`dedupe`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadLine, BadTaskURL, DuplicateId, TaskError, UsageError
from ..limits import MAX_DEPTH, MAX_DOCUMENT_BYTES, TooDeep, check_depth, size_text
from ..result import ErrorEntry, error_entry

#: The fields a task may have. ``plan`` is a plan document, a list of steps, or (as a string) JSON or
#: the path of a plan file; ``expected_output`` goes with a list of steps; ``data`` is the initial data.
TASK_FIELDS = (
    "id",
    "url",
    "instruction",
    "plan",
    "expected_output",
    "data",
    "model",
    "timeout",
    "consent",
    "engine",
)


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
    consent: str | None = None  # what to answer consent dialogs (`consent.MODES`); the batch's when None
    engine: str | None = None  # what reads the pages (`engines.ENGINES`); the batch's when None

    def to_dict(self) -> dict:
        """The task as a document `task_from_dict` accepts."""
        doc: dict[str, Any] = {"id": self.id}
        for key in ("url", "instruction", "plan", "data", "model", "timeout", "consent", "engine"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        return doc


@dataclass
class BadTask:
    """A task that cannot run: it gets a failed line of its own (``id`` is ``line:N`` when it has none)."""

    id: str
    error: ErrorEntry
    line: int | None = None


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
                BadLine.code,
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
            where, error_entry(TaskError.code, f"{where}: {what} (every task needs a unique id)"), line
        )
    task_id = task_id.strip()
    try:
        check_depth(doc)  # even an ignored x- field: deeper values break recursive code later
    except TooDeep:
        return BadTask(
            task_id,
            error_entry(TaskError.code, f"task {task_id}: nested more than {MAX_DEPTH} levels deep"),
            line,
        )
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
    consent = doc.get("consent")
    if consent is not None:
        from ..consent import check_mode

        try:
            consent = check_mode(consent, "consent")
        except UsageError as e:
            raise TaskError(e.message) from None
    engine = doc.get("engine")
    if engine is not None:
        from ..option_rules import option_problem

        problem = option_problem("engine", engine)
        if problem is not None:
            raise TaskError(problem)
        engine = engine.strip().lower()
    return Task(
        task_id,
        url,
        instruction,
        plan,
        data,
        model.strip() if model else None,
        timeout,
        line,
        consent,
        engine,
    )


def _plan_document(plan: Any, expected: Any, base_dir: Path, plan_files: dict) -> dict:
    """The task's plan as a plan document: given as one, as a list of steps, as JSON text or a file path."""
    if isinstance(plan, str):
        text = plan.strip()
        if text[:1] in ("{", "["):
            try:
                plan = json.loads(text)
                check_depth(plan)
            except json.JSONDecodeError as e:
                raise TaskError(f"plan is not valid JSON: {e.msg} (column {e.colno})") from None
            except (RecursionError, TooDeep):
                raise TaskError(f"plan is nested more than {MAX_DEPTH} levels deep") from None
        elif text:
            path = (base_dir / text).resolve()
            if path not in plan_files:
                plan_files[path] = _read_plan_file(path, text)
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
    from ..runner import check_start_url

    if not isinstance(raw, str):
        raise BadTaskURL(f"url must be a string, not {_kind(raw)}")
    try:
        return check_start_url(raw, base_dir)
    except UsageError as e:
        raise BadTaskURL(e.message) from None


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _read_plan_file(path: Path, text: str) -> Any:
    """A plan file named by a task: its document, or the TaskError every task naming it gets."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as e:
        return TaskError(f"plan file {text}: cannot read: {e.strerror}")
    if len(raw) > MAX_DOCUMENT_BYTES:
        return TaskError(f"plan file {text}: larger than {size_text(MAX_DOCUMENT_BYTES)}")
    try:
        doc = json.loads(raw.decode("utf-8"))
        check_depth(doc)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        return TaskError(f"plan file {text}: not valid JSON: {e}")
    except (RecursionError, TooDeep):
        return TaskError(f"plan file {text}: nested more than {MAX_DEPTH} levels deep")
    return doc


def dedupe(entries: Iterable[Entry]) -> list[Entry]:
    """Mark every repeat of an id as a `BadTask` (``DUPLICATE_ID``, id ``line:N``, or ``task:N`` for
    tasks given in Python): ids must stay unique in the output, which is what ``--resume`` relies on."""
    return list(dedupe_stream(entries))


def dedupe_stream(entries: Iterable[Entry]) -> Iterator[Entry]:
    """`dedupe`, lazily: each entry as it comes (only the ids seen, and their lines, are kept)."""
    seen: dict[str, int | None] = {}
    for index, entry in enumerate(entries, 1):
        if entry.id not in seen:
            seen[entry.id] = entry.line
            yield entry
            continue
        first_line = seen[entry.id]
        where = f"line:{entry.line}" if entry.line else f"task:{index}"
        at = f"on line {first_line}" if first_line else "by an earlier task"
        yield BadTask(
            where,
            error_entry(
                DuplicateId.code, f"{where}: id {entry.id!r} is already used {at}; this task was not run"
            ),
            entry.line,
        )


def checked_stream(tasks: Iterable[Task | BadTask | dict]) -> Iterator[Entry]:
    """Tasks given to the API, lazily: dicts are checked like lines of a task file (``task:N`` for bad
    ones), and ids kept unique."""

    def checked() -> Iterator[Entry]:
        for i, task in enumerate(tasks, 1):
            yield task if isinstance(task, Task | BadTask) else task_from_dict(task, where=f"task:{i}")

    return dedupe_stream(checked())
