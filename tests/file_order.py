"""The order test files go to xdist workers in: the longest first, so that no long file starts last.

``scripts/test.sh`` gives each worker a whole file at a time (``--dist loadfile``). xdist's own order
(the files with the most tests first) sends a file with a few long tests (the tutorial's fresh venv,
a matrix run in one batch) to a worker near the end, and the other core then idles while it runs.
The files with recorded seconds (``tests/file_times.json``) go first, longest first; the others
follow in xdist's order (most tests first), so a record that misses a file only orders it as before.

``--record-file-times PATH`` writes the seconds of this run's files (set-up, call and teardown of
every test, summed) into PATH, keeping the files this run did not have; refresh the record with a
whole run on a quiet machine: ``bash scripts/test.sh --record-file-times tests/file_times.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

TIMES = Path(__file__).resolve().parent / "file_times.json"


def recorded_times(path: Path = TIMES) -> dict[str, float]:
    """The recorded seconds per test file (its node id's path), empty when there is no record."""
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def longest_files_first(items: list[pytest.Item], times: dict[str, float]) -> list[pytest.Item]:
    """``items`` with the recorded files first, longest first, then the others, those with the most
    tests first (xdist's own order); the tests of a file keep their order, ties keep the files'."""
    first_seen: dict[str, int] = {}
    counts: dict[str, int] = {}
    for item in items:
        file = file_of(item.nodeid)
        first_seen.setdefault(file, len(first_seen))
        counts[file] = counts.get(file, 0) + 1

    def key(item: pytest.Item) -> tuple[int, float, int, int]:
        file = file_of(item.nodeid)
        if file in times:
            return (0, -times[file], 0, first_seen[file])
        return (1, 0.0, -counts[file], first_seen[file])

    return sorted(items, key=key)  # stable: a file's tests stay in their order


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class FileTimes:
    """Sums every report's duration per test file (on xdist's controller, the workers' reports)."""

    def __init__(self, path: Path):
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        file = file_of(report.nodeid)
        self.seconds[file] = self.seconds.get(file, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """The record updated with this run's files (a partial run keeps the others' times); the
        files that no longer exist are dropped."""
        root = Path(session.config.rootpath)
        times = recorded_times(self.path) | {file: round(s, 1) for file, s in self.seconds.items()}
        times = {file: s for file, s in times.items() if (root / file).is_file()}
        ordered = dict(sorted(times.items(), key=lambda kv: (-kv[1], kv[0])))
        self.path.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
