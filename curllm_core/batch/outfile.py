"""The durable out file of a batch (``--out FILE``): one fsynced JSON line per finished task.

Guarantees (`OutFile`):

- a line is appended with a single ``write`` and fsynced before the next one, so a finished task
  survives the process being killed at any moment;
- a torn last line (the process died inside that write) is cut off before anything is appended,
  and that task runs again;
- ``--resume`` skips the ids already recorded (tasks cancelled by Ctrl-C excepted: their lines are
  dropped and the tasks run again), so every id ends up with exactly one line;
- the file is locked while a batch writes to it, so two batches cannot interleave in it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ..errors import OutputInvalid

try:
    import fcntl
except ImportError:  # not on Windows: the out file is then not locked
    fcntl = None  # type: ignore[assignment]

from ..errors import UsageError
from ..jsonsafe import dumps
from ..result import error_entry
from .engine import is_cancelled


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
            size = os.fstat(self.fd).st_size
            if size and not resume and not overwrite:
                raise UsageError(
                    f"--out {self.path} already has results: add --resume to continue it "
                    "(skipping the ids it has), or --overwrite to start again"
                )
            if overwrite:
                os.ftruncate(self.fd, 0)
                os.fsync(self.fd)
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
                os.write(self.fd, b"\n")
                raw += b"\n"
            else:
                # The last write was cut short (the process was killed inside it): that task was not
                # recorded, so drop the fragment and let the task run again.
                self.note(
                    f"{self.path}: removed a torn last line ({len(tail)} bytes, from an interrupted "
                    "run); that task runs again"
                )
                os.ftruncate(self.fd, end)
                raw = raw[:end]
            os.fsync(self.fd)
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
        os.close(self.fd)
        self._fd = fd

    @property
    def fd(self) -> int:
        """The open, locked file's descriptor (ValueError once closed)."""
        if self._fd is None:
            raise ValueError(f"--out {self.path} is closed")
        return self._fd

    def write(self, line: dict) -> None:
        """Append one line durably: one write call, then fsync. OSError when the disk refuses."""
        data = encode_line(line)
        view = memoryview(data)
        while view:  # a regular file takes it all at once; a short write is continued, not lost
            view = view[os.write(self.fd, view) :]
        os.fsync(self.fd)

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


def encode_line(line: dict) -> bytes:
    """A result line as UTF-8 JSON and a newline; a line that cannot be JSON becomes a failed one.
    Known secrets (API keys, session cookies) are scrubbed."""
    from ..scrub import scrub_data

    try:
        text = dumps(scrub_data(line), default=str)
    except (TypeError, ValueError) as e:  # e.g. a tool returned a self-referencing structure
        text = json.dumps(
            {k: line.get(k) for k in ("id", "url", "started_at", "finished_at", "line") if k in line}
            | {
                "ok": False,
                "data": {},
                "steps": [],
                "timings": line.get("timings", {}),
                "errors": [
                    error_entry(OutputInvalid.code, f"the result cannot be written as JSON: {e}").to_dict()
                ],
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
