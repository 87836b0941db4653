"""Batch runs: many tasks in one process and one browser, each result recorded once, nothing lost.

- `tasks`: one task checked (`task_from_dict` → `Task` or `BadTask`), ids kept unique (`dedupe`);
- `readers`: task files (JSONL, JSON, YAML, CSV, stdin) read as a stream (`TaskStream`), each task
  bounded in size and depth, YAML aliases refused;
- `engine`: `Batch` runs tasks concurrently through the one `runner.Runner`, one browser context per
  task in one shared `Browser`, and yields one JSON-able line per task as it finishes; `run_many`
  is the Python API over it;
- `outfile`: `OutFile`, the durable ``--out`` file (fsynced lines, torn-line repair, resume, lock);
- `ray_backend` and `ray_worker`: the same batch on a Ray cluster (``backend="ray"``): the driver
  reads, plans and records, workers (Ray actors, a browser each) run the tasks. Imported only then.

The ``curllm batch`` command (progress, signals, summary) lives in `curllm_core.cli.batch`.
"""

from __future__ import annotations

from .engine import BACKENDS, CANCELLED, DEFAULT_CONCURRENCY, Batch, bad_line, is_cancelled, run_many
from .outfile import OutFile
from .readers import (
    EXTENSIONS,
    INPUT_FORMATS,
    TaskFileError,
    TaskStream,
    parse_tasks,
    read_tasks,
    sniff_format,
)
from .tasks import (
    TASK_FIELDS,
    BadTask,
    Entry,
    Task,
    TaskError,
    check_task_url,
    dedupe,
    dedupe_stream,
    task_from_dict,
)

__all__ = [
    "BACKENDS",
    "CANCELLED",
    "DEFAULT_CONCURRENCY",
    "EXTENSIONS",
    "INPUT_FORMATS",
    "TASK_FIELDS",
    "BadTask",
    "Batch",
    "Entry",
    "OutFile",
    "Task",
    "TaskError",
    "TaskFileError",
    "TaskStream",
    "bad_line",
    "check_task_url",
    "dedupe",
    "dedupe_stream",
    "is_cancelled",
    "parse_tasks",
    "read_tasks",
    "run_many",
    "sniff_format",
    "task_from_dict",
]
