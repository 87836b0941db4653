"""Helpers shared by the benchmarks: timing medians and writing a results section."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
PYTHON = sys.executable


def median_ms(fn: Callable[[], object], runs: int = 7, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def user_env(extra: dict | None = None) -> dict:
    """The environment of a user's shell: bytecode caching on (this machine's sessions turn it off
    with PYTHONDONTWRITEBYTECODE, which would make every run recompile curllm's sources)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


def command_ms(args: list[str], runs: int = 7, env: dict | None = None) -> float:
    full_env = user_env(env)
    return median_ms(
        lambda: subprocess.run(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=full_env, check=False
        ),
        runs=runs,
    )


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_section(name: str, title: str, lines: list[str]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.md"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    path.write_text(f"## {title}\n\n_{stamp}; {machine()}_\n\n" + "\n".join(lines) + "\n")
    print(path.read_text())
    return path


def record_run(name: str, doc: dict, keep: int = 12) -> list[dict]:
    """Append one run's figures to ``results/<name>.runs.jsonl`` and return the last ``keep`` runs: on a
    shared machine one run says little, the spread over runs at different moments says more."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.runs.jsonl"
    entry = {"at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"), "load": round(os.getloadavg()[0], 1), **doc}
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(entry, ensure_ascii=False) + "\n")
    runs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return runs[-keep:]
