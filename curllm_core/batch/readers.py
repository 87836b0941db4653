"""Task files: JSONL, a JSON list, YAML or CSV (or ``-`` for stdin), read into tasks and bad tasks."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import IO, Any

from ..errors import UsageError
from ..result import error_entry
from .tasks import TASK_FIELDS, BadTask, Entry, _kind, task_from_dict

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
