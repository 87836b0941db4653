"""The batch progress bar on stderr (rich): done of total, failed, running, ETA."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..batch import is_cancelled


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
    failed_ids: list[str] = field(default_factory=list)  # the first few

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
            if len(self.failed_ids) < 6:  # the summary names five; a huge batch keeps no more
                self.failed_ids.append(str(line.get("id")))
            for error in line.get("errors") or []:
                if isinstance(error, dict) and not error.get("optional"):
                    self.codes[error.get("code") or "ERROR"] += 1
                    break


class ProgressView:
    """A progress bar on stderr (rich): done of total, failed, running, ETA. Does nothing when off."""

    def __init__(self, enabled: bool, total: int | None):
        self._progress = None
        self._bar = None
        if enabled and (total is None or total > 0):  # None: not known (a task file read as it runs)
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

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
        if self._progress is not None and self._bar is not None:
            self._progress.update(
                self._bar, completed=tally.done, failed=tally.failed + tally.cancelled, running=running
            )
