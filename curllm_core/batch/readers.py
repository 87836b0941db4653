"""Task files read as a stream: JSONL, a JSON list, YAML or CSV (or ``-`` for stdin).

`TaskStream` opens a task file, checks its start (readable, UTF-8, a known format, a usable CSV
header or YAML top level) and then yields one checked task (`Task` or `BadTask`) at a time, reading
only as far as the tasks taken so far: a file of a million tasks starts its first task at once and
never sits in memory whole. A Ray or server backend iterates the same stream.

Each task is bounded: nested at most `limits.MAX_DEPTH` levels and at most `limits.MAX_TASK_BYTES`
big; YAML aliases (``*name``) are refused, so a few hundred bytes cannot expand into gigabytes.
A task over a bound fails alone (``BAD_LINE``). A file that stops being readable part-way (invalid
YAML or JSON syntax, bytes that are not UTF-8) raises `TaskFileError` where that happens; the tasks
before it have been yielded.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import BadLine, TaskError, UsageError
from ..limits import MAX_DEPTH, MAX_DOCUMENT_BYTES, MAX_TASK_BYTES, TooDeep, check_depth, size_text
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
#: How much of a file is looked at to guess its format (and read ahead at most, for JSON lists).
HEAD_BYTES = 64 * 1024


class TaskFileError(UsageError):
    """A task file that cannot be read on (as a whole, or from some point on)."""


class TaskStream:
    """The tasks of a task file, read lazily; iterate once. ``count`` is how many were yielded.

    Construction opens the file and reads up to its first task, so that an unreadable file raises
    `UsageError` before anything runs. ``close()`` releases the file (iterating to the end does too).
    """

    def __init__(self, source: str, input_format: str | None = None, *, stdin: IO[Any] | None = None):
        if input_format is not None and input_format not in INPUT_FORMATS:
            raise UsageError(f"unknown task format {input_format!r} (known: {', '.join(INPUT_FORMATS)})")
        self.count = 0
        self._file: IO[bytes] | None = None
        if source == "-":
            raw = _binary(stdin if stdin is not None else sys.stdin)
            base_dir, name = Path.cwd(), "stdin"
        else:
            path = Path(source)
            try:
                raw = self._file = open(path, "rb")  # noqa: SIM115 - closed by close() / the end
            except OSError as e:
                raise UsageError(f"task file {source}: cannot read: {e.strerror}") from None
            base_dir, name = path.resolve().parent, source
            input_format = input_format or EXTENSIONS.get(path.suffix.lower())
        self.name = name
        try:
            head = raw.read(HEAD_BYTES)
        except OSError as e:
            self.close()
            raise UsageError(f"task file {source}: cannot read: {e.strerror}") from None
        if head.startswith(codecs.BOM_UTF8):
            head = head[len(codecs.BOM_UTF8) :]
        text = _decode_head(head, name, complete=len(head) < HEAD_BYTES)
        fmt = input_format or sniff_format(text)
        if fmt == "json" and text.lstrip().startswith("{") and "\n{" in text.strip():
            fmt = "jsonl"  # a .json file that is really one object per line
        self.format = fmt
        stream = io.BufferedReader(_Prefixed(head, raw), buffer_size=HEAD_BYTES)
        self._entries = iter_entries(stream, fmt, base_dir=base_dir, name=name)
        try:
            self._first: Entry | None = next(self._entries, None)
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> Iterator[Entry]:
        try:
            if self._first is not None:
                first, self._first = self._first, None
                self.count += 1
                yield first
            for entry in self._entries:
                self.count += 1
                yield entry
        finally:
            self.close()

    def close(self) -> None:
        """Release the file (stdin stays open: it is the caller's)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def read_tasks(source: str, input_format: str | None = None, *, stdin: IO[Any] | None = None) -> list[Entry]:
    """Every task of a task file as a list (small files, tests); `TaskStream` reads lazily."""
    return list(TaskStream(source, input_format, stdin=stdin))


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
    return list(iter_entries(io.BytesIO(text.encode("utf-8")), fmt, base_dir=base_dir, name=name))


def iter_entries(
    stream: IO[bytes], fmt: str, *, base_dir: Path | None = None, name: str = "tasks"
) -> Iterator[Entry]:
    """Checked tasks and bad tasks from a binary stream of a known format, one at a time."""
    base_dir = base_dir or Path.cwd()
    plan_files: dict[Path, Any] = {}

    def check(doc: Any, where: str, line: int | None) -> Entry:
        return task_from_dict(doc, where=where, line=line, base_dir=base_dir, plan_files=plan_files)

    if fmt == "jsonl":
        yield from _jsonl(stream, check)
    elif fmt == "csv":
        yield from _csv(_text(stream, name), name, check)
    elif fmt == "json":
        yield from _json(_text(stream, name), name, check)
    elif fmt == "yaml":
        yield from _yaml(_text(stream, name), name, check)
    else:
        raise UsageError(f"unknown task format {fmt!r} (known: {', '.join(INPUT_FORMATS)})")


# --- the formats -------------------------------------------------------------------------------


def _jsonl(stream: IO[bytes], check: Any) -> Iterator[Entry]:
    number = 0
    while True:
        raw = stream.readline(MAX_TASK_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_TASK_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a chunk at a time
                raw = stream.readline(HEAD_BYTES)
            yield _bad_line(number, f"is larger than {size_text(MAX_TASK_BYTES)} (a task's limit)")
            continue
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        try:
            stripped = raw.decode("utf-8").strip()
        except UnicodeDecodeError as e:
            yield _bad_line(number, f"is not UTF-8 text (byte {e.start})")
            continue
        if not stripped or stripped.startswith("#"):
            continue
        where = f"line:{number}"
        try:
            doc = json.loads(stripped)
            check_depth(doc)
        except json.JSONDecodeError as e:
            yield _bad_line(number, f"is not valid JSON: {e.msg} (column {e.colno})")
            continue
        except (RecursionError, TooDeep):
            yield _bad_line(number, f"is nested more than {MAX_DEPTH} levels deep")
            continue
        yield check(doc, where, number)


def _csv(text: IO[str], name: str, check: Any) -> Iterator[Entry]:
    # csv.reader, not DictReader: it shows blank rows, so every row's first line number is known.
    reader = csv.reader(text, skipinitialspace=True)
    try:
        header = [h.strip() for h in next(reader, [])]
    except csv.Error as e:
        raise TaskFileError(f"task file {name}: not valid CSV: {e}") from None
    if not header:
        return
    unknown = [h for h in header if h not in TASK_FIELDS and not h.startswith(("x-", "x_"))]
    if unknown or "id" not in header:
        problem = f"unknown column(s) {', '.join(map(repr, unknown))}" if unknown else "no id column"
        raise TaskFileError(
            f"task file {name}: {problem} (columns: {', '.join(TASK_FIELDS)}; prefix your own with x-)"
        )
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            yield BadTask(
                f"line:{line}", error_entry(BadLine.code, f"line {line} is not valid CSV: {e}"), line
            )
            line = reader.line_num + 1
            continue
        start, line = line, reader.line_num + 1
        if len(row) > len(header):
            yield _bad_line(start, "has more cells than the header has columns")
            continue
        doc: dict[str, Any] = {k: v.strip() for k, v in zip(header, row, strict=False) if v.strip() != ""}
        if not doc:
            continue  # a blank row
        if "data" in doc:
            try:
                doc["data"] = json.loads(doc["data"])
                check_depth(doc["data"])
            except json.JSONDecodeError as e:
                where = f"task {doc['id']}" if doc.get("id") else f"line:{start}"
                yield BadTask(
                    doc.get("id") or f"line:{start}",
                    error_entry(
                        TaskError.code, f"{where}: data is not valid JSON: {e.msg} (column {e.colno})"
                    ),
                    start,
                )
                continue
            except (RecursionError, TooDeep):
                yield _bad_line(start, f"is nested more than {MAX_DEPTH} levels deep")
                continue
        yield check(doc, f"line:{start}", start)


def _json(text: IO[str], name: str, check: Any) -> Iterator[Entry]:
    """A JSON list of tasks, item by item; an object (``{"tasks": [...]}``) is read whole, bounded."""
    items = _JsonItems(text, name)
    if items.opening == "{":
        yield from _json_object(items.rest(), name, check)
        return
    for index, (doc, line) in enumerate(items, 1):
        if isinstance(doc, TooDeep):
            yield BadTask(
                f"item:{index}",
                error_entry(
                    BadLine.code, f"item {index} (line {line}) is nested more than {MAX_DEPTH} levels deep"
                ),
                line,
            )
            continue
        yield check(doc, f"item:{index}", None)


def _json_object(text: str, name: str, check: Any) -> Iterator[Entry]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise TaskFileError(
            f"task file {name}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    except RecursionError:
        raise TaskFileError(f"task file {name}: nested more than {MAX_DEPTH} levels deep") from None
    items = _task_list(doc, name)
    for index, item in enumerate(items, 1):
        try:
            check_depth(item)
        except TooDeep:
            yield BadTask(
                f"item:{index}",
                error_entry(BadLine.code, f"item {index} is nested more than {MAX_DEPTH} levels deep"),
                None,
            )
            continue
        yield check(item, f"item:{index}", None)


class _JsonItems:
    """The items of a JSON list read from a text stream one at a time (``raw_decode`` on a buffer)."""

    def __init__(self, stream: IO[str], name: str):
        self.stream, self.name = stream, name
        self.decoder = json.JSONDecoder()
        self.buf, self.pos, self.line, self.eof = "", 0, 1, False
        self._skip_space()
        self.opening = self.buf[self.pos : self.pos + 1]
        if self.opening not in ("[", "{"):
            if self.eof and not self.opening:
                self.opening = "["  # an empty file: no tasks
                self.buf, self.pos = "[]", 0
            else:
                raise TaskFileError(
                    f"task file {name}: expected a list of tasks (or an object with a tasks list)"
                )

    def _more(self, at_least: int = HEAD_BYTES) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.stream.read(max(at_least, HEAD_BYTES))
        except UnicodeDecodeError as e:
            raise TaskFileError(
                f"task file {self.name}: not UTF-8 text near line {self.line}: {e.reason}"
            ) from None
        if not chunk:
            self.eof = True
            return False
        if self.pos > HEAD_BYTES:  # drop what has been consumed
            self.buf, self.pos = self.buf[self.pos :], 0
        self.buf += chunk
        return True

    def _skip_space(self) -> None:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                if self.buf[self.pos] == "\n":
                    self.line += 1
                self.pos += 1
            if self.pos < len(self.buf) or not self._more():
                return

    def rest(self) -> str:
        """The whole document (for an object at the top), at most `MAX_DOCUMENT_BYTES`."""
        while self._more():
            if len(self.buf) - self.pos > MAX_DOCUMENT_BYTES:
                raise TaskFileError(
                    f"task file {self.name}: an object of tasks is read whole and may be at most "
                    f"{size_text(MAX_DOCUMENT_BYTES)}; write large task files as JSONL (one task per line)"
                )
        return self.buf[self.pos :]

    def _fail(self, what: str) -> TaskFileError:
        return TaskFileError(f"task file {self.name}: not valid JSON: {what} (line {self.line})")

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        self.pos += 1  # the opening [
        first = True
        while True:
            self._skip_space()
            if self.pos >= len(self.buf):
                raise self._fail("the list is not closed")
            if self.buf[self.pos] == "]":
                return
            if not first:
                if self.buf[self.pos] != ",":
                    raise self._fail("expected , or ] between tasks")
                self.pos += 1
                self._skip_space()
            first = False
            line = self.line
            value = self._item()
            yield value, line

    def _item(self) -> Any:
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except RecursionError:
                raise self._fail(f"a task nested more than {MAX_DEPTH} levels deep") from None
            except json.JSONDecodeError as e:
                if len(self.buf) - self.pos > MAX_TASK_BYTES:
                    raise self._fail(
                        f"a task larger than {size_text(MAX_TASK_BYTES)} (a task's limit)"
                    ) from None
                if self._more(len(self.buf) - self.pos):  # the item may continue: read on (doubling)
                    continue
                raise self._fail(e.msg) from None
            if end == len(self.buf) and self._more():
                continue  # a number or literal cut at the buffer's end: decode it whole
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            try:
                check_depth(value)
            except TooDeep as e:
                return e
            return value


def _yaml(text: IO[str], name: str, check: Any) -> Iterator[Entry]:
    """YAML tasks, parsed by libyaml when PyYAML has it, else (or from a libyaml refusal on) in Python.

    libyaml (PyYAML 6.0.4 and later bundle a version with a nesting limit) refuses a file with a
    flow collection nested more than ~1,000 levels as a whole, and its parser cannot go on after that.
    Such a file is read again from its start by PyYAML's own parser (no nesting limit, no recursion:
    events only), the items already yielded skipped, so the deep item fails alone (``BAD_LINE``,
    nested more than `MAX_DEPTH` levels) with either PyYAML, as with any other bound.
    """
    import yaml

    source = _Replayable(text)
    loader_class = getattr(yaml, "CSafeLoader", None)
    loader = (loader_class or _python_loader())(source)
    index = 0
    try:
        try:
            for item in _YamlEvents(loader, name, native=loader_class is not None).items():
                index += 1
                yield _yaml_entry(item, index, check)
        except _NativeLimit:
            loader.dispose()
            loader = _python_loader()(source.replay())
            for item in _YamlEvents(loader, name, skip=index).items():
                index += 1
                yield _yaml_entry(item, index, check)
    finally:
        loader.dispose()
        source.close()


def _yaml_entry(item: tuple[Any, int | None, str | None], index: int, check: Any) -> Entry:
    doc, line, problem = item
    where = f"line:{line}" if line else f"item:{index}"
    if problem is not None:
        label = f"line {line}" if line else f"item {index}"
        return BadTask(where, error_entry(BadLine.code, f"{label} {problem}"), line)
    return check(doc, where, line)


def _python_loader() -> Any:
    """PyYAML's own SafeLoader, linear in nesting depth.

    Its scanner keeps one possible simple key per open flow level and walks them all at every token:
    quadratic in depth (a 3,000-deep ``[[[...]]]`` takes tens of seconds). The keys are always in
    level order, which is also the order of their positions, so the nearest one is the first, and the
    stale ones are a leading run: the same answers in constant (amortised) time.
    """
    import yaml

    class Loader(yaml.SafeLoader):
        def next_possible_simple_key(self) -> Any:
            keys = self.possible_simple_keys
            return next(iter(keys.values())).token_number if keys else None

        def stale_possible_simple_keys(self) -> None:
            keys = self.possible_simple_keys
            for level in list(keys):
                key = keys[level]
                if key.line == self.line and self.index - key.index <= 1024:
                    return
                if key.required:
                    raise yaml.scanner.ScannerError(
                        "while scanning a simple key",
                        key.mark,
                        "could not find expected ':'",
                        self.get_mark(),
                    )
                del keys[level]

    return Loader


class _NativeLimit(Exception):
    """libyaml refused to nest deeper: the file is read again by PyYAML's own parser."""


class _Replayable(io.TextIOBase):
    """A text stream that keeps what was read (in memory, on disk past 8 MiB) to be read again."""

    def __init__(self, text: IO[str]):
        import tempfile

        self._text = text
        self._copy: IO[str] | None = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by close()
            max_size=8 * 1024 * 1024, mode="w+", encoding="utf-8", newline=""
        )

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        chunk = self._text.read(-1 if size is None else size)
        if self._copy is not None:
            self._copy.write(chunk)
        return chunk

    def replay(self) -> io.TextIOBase:
        """What was read so far and then the rest of the stream (no more copying)."""
        assert self._copy is not None
        copy, self._copy = self._copy, None
        copy.seek(0)
        return _Chained(copy, self._text)

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
            self._copy = None
        super().close()


class _Chained(io.TextIOBase):
    """Two text streams read one after the other; the first is closed when it is used up."""

    def __init__(self, first: IO[str], rest: IO[str]):
        self._first: IO[str] | None = first
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        size = -1 if size is None else size
        if self._first is not None:
            chunk = self._first.read(size)
            if chunk:
                return chunk
            self._first.close()
            self._first = None
        return self._rest.read(size)


class _YamlEvents:
    """A YAML task list from parser events: items built without recursion, aliases refused.

    ``native``: the loader is libyaml's, whose nesting limit raises `_NativeLimit`; ``skip``: how
    many items of the task list to pass over (already yielded by a first parse).
    """

    def __init__(self, loader: Any, name: str, *, native: bool = False, skip: int = 0):
        self.loader, self.name, self.native, self.skip = loader, name, native, skip

    def _get(self) -> Any:
        import yaml

        try:
            return self.loader.get_event()
        except yaml.YAMLError as e:
            raise self._error(e) from None
        except UnicodeDecodeError as e:
            raise TaskFileError(f"task file {self.name}: not UTF-8 text: {e.reason}") from None

    def _peek(self) -> Any:
        import yaml

        try:
            return self.loader.peek_event()
        except yaml.YAMLError as e:
            raise self._error(e) from None
        except UnicodeDecodeError as e:
            raise TaskFileError(f"task file {self.name}: not UTF-8 text: {e.reason}") from None

    def _error(self, e: Exception) -> Exception:
        if self.native and "nesting depth" in str(getattr(e, "problem", "")):
            return _NativeLimit()
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        return TaskFileError(f"task file {self.name}: not valid YAML: {problem}{where}")

    def items(self) -> Iterator[tuple[Any, int | None, str | None]]:
        from yaml import events as ev

        self._get()  # the stream's start
        if isinstance(self._peek(), ev.StreamEndEvent):
            return
        self._get()  # the document's start
        top = self._peek()
        if isinstance(top, ev.SequenceStartEvent):
            self._get()
            yield from self._sequence()
        elif isinstance(top, ev.MappingStartEvent):
            self._get()
            found = False
            while not isinstance(self._peek(), ev.MappingEndEvent):
                key = self._get()
                if (
                    not found
                    and isinstance(key, ev.ScalarEvent)
                    and key.value == "tasks"
                    and isinstance(self._peek(), ev.SequenceStartEvent)
                ):
                    self._get()
                    found = True
                    yield from self._sequence()
                else:
                    self._skip(key)
                    self._skip(self._get())
            if not found:
                raise TaskFileError(
                    f"task file {self.name}: expected a list of tasks (or an object with a tasks list), "
                    "got an object"
                )
        elif isinstance(top, ev.ScalarEvent):
            value, _, problem = self._item()
            if value is not None or problem is not None:
                raise TaskFileError(
                    f"task file {self.name}: expected a list of tasks (or an object with a tasks list), "
                    f"got {_kind(value) if problem is None else 'a scalar'}"
                )
        else:
            raise TaskFileError(f"task file {self.name}: expected a list of tasks")

    def _sequence(self) -> Iterator[tuple[Any, int | None, str | None]]:
        from yaml import events as ev

        while not isinstance(self._peek(), ev.SequenceEndEvent):
            if self.skip:
                self.skip -= 1
                self._skip(self._get())
                continue
            yield self._item()
        self._get()

    def _skip(self, first: Any) -> None:
        """Consume the rest of the node that starts with event ``first``."""
        from yaml import events as ev

        depth = 1 if isinstance(first, ev.CollectionStartEvent) else 0
        while depth:
            event = self._get()
            if isinstance(event, ev.CollectionStartEvent):
                depth += 1
            elif isinstance(event, ev.CollectionEndEvent):
                depth -= 1

    def _item(self) -> tuple[Any, int | None, str | None]:
        """One list item: (value, line, None), or (None, line, problem) with the item skipped."""
        from yaml import events as ev

        first = self._peek()
        line = first.start_mark.line + 1 if first.start_mark is not None else None
        start = first.start_mark.index if first.start_mark is not None else 0
        stack: list[list[Any]] = []  # [container, is_mapping, pending key]
        nothing = stack  # a marker no value can be
        while True:
            event = self._get()
            problem = None
            value: Any = nothing
            if isinstance(event, ev.AliasEvent):
                problem = f"uses an alias (*{event.anchor}): task files allow no aliases, write the value out"
            elif event.end_mark is not None and event.end_mark.index - start > MAX_TASK_BYTES:
                problem = f"is larger than {size_text(MAX_TASK_BYTES)} (a task's limit)"
            elif isinstance(event, ev.CollectionStartEvent):
                if event.tag not in (None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
                    problem = f"has the tag {event.tag}, which task files do not allow"
                elif len(stack) >= MAX_DEPTH:
                    problem = f"is nested more than {MAX_DEPTH} levels deep"
                else:
                    is_map = isinstance(event, ev.MappingStartEvent)
                    stack.append([{} if is_map else [], is_map, nothing])
                    continue
            elif isinstance(event, ev.CollectionEndEvent):
                value = stack.pop()[0]
            else:
                try:
                    value = self._scalar(event)
                except Exception as e:  # a constructor's refusal (unknown tag, bad timestamp): this item only
                    problem = f"cannot be read: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            if problem is not None:
                opened = len(stack) + isinstance(event, ev.CollectionStartEvent)
                self._skip_open(opened - isinstance(event, ev.CollectionEndEvent))
                return None, line, problem
            if not stack:
                return value, line, None
            top = stack[-1]
            if not top[1]:
                top[0].append(value)
            elif top[2] is nothing:
                if isinstance(value, dict | list):
                    self._skip_open(len(stack))
                    return None, line, "has a list or an object as a key (keys are strings or numbers)"
                top[2] = value
            else:
                top[0][top[2]] = value
                top[2] = nothing

    def _skip_open(self, depth: int) -> None:
        """After a problem inside an item: consume events until its open collections are closed."""
        from yaml import events as ev

        while depth:
            event = self._get()
            if isinstance(event, ev.CollectionStartEvent):
                depth += 1
            elif isinstance(event, ev.CollectionEndEvent):
                depth -= 1

    def _scalar(self, event: Any) -> Any:
        import yaml

        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        constructors = self.loader.yaml_constructors
        construct = constructors.get(tag) or constructors[None]
        return construct(self.loader, node)


# --- helpers ------------------------------------------------------------------------------------


def _task_list(doc: Any, name: str) -> list:
    if isinstance(doc, dict) and isinstance(doc.get("tasks"), list):
        return doc["tasks"]
    if isinstance(doc, list):
        return doc
    if doc is None:
        return []
    raise TaskFileError(
        f"task file {name}: expected a list of tasks (or an object with a tasks list), got {_kind(doc)}"
    )


def _bad_line(number: int, problem: str) -> BadTask:
    return BadTask(f"line:{number}", error_entry(BadLine.code, f"line {number} {problem}"), number)


def _decode_head(head: bytes, name: str, *, complete: bool) -> str:
    """The start of a file as text; UsageError when it is not UTF-8 (a cut last character is fine)."""
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as e:
        if not complete and e.start >= len(head) - 3 and e.reason == "unexpected end of data":
            return head[: e.start].decode("utf-8")
        raise UsageError(f"task file {name}: not UTF-8 text (byte {e.start})") from None


def _text(stream: IO[bytes], name: str) -> IO[str]:
    del name
    return io.TextIOWrapper(stream, encoding="utf-8", newline="")


def _binary(stream: IO[Any]) -> IO[bytes]:
    """The bytes of stdin (or of a text stream given in its place)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return buffer
    if isinstance(stream, io.TextIOBase):
        return _Encoded(stream)
    return stream  # already binary


class _Encoded(io.RawIOBase):
    """A text stream read as UTF-8 bytes."""

    def __init__(self, text: IO[str]):
        self._text, self._pending = text, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = self._text.read(HEAD_BYTES)
            if not chunk:
                return 0
            self._pending = chunk.encode("utf-8")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class _Prefixed(io.RawIOBase):
    """``head`` (already read, to sniff the format) and then the rest of ``raw``."""

    def __init__(self, head: bytes, raw: IO[bytes]):
        self._head, self._raw = head, raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n
