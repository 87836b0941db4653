"""Fixtures of the batch tests: test-only tools (no browser, or a page), a slow page server, the CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.warm_cache import fresh_cache

# Tools for the CLI in a subprocess, found through CURLLM_TOOLS_PATH: a manifest and its module side by side.
TOOLS_MODULE = """
import asyncio


async def sleep(ctx, seconds: float = 0.0, fail: bool = False) -> dict:
    await asyncio.sleep(seconds)
    if fail:
        raise ValueError("asked to fail")
    return {"products": list(ctx.data.get("products") or [{"name": "slept", "price": 1}])}


async def title(ctx) -> dict:
    heading = await ctx.page.text_content("h1")
    return {"products": [{"name": heading, "price": 1, "url": ctx.page.url}]}
"""

MANIFEST = {
    "version": "1.0.0",
    "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    "output_schema": {"type": "object", "required": ["products"]},
    "timeout_ms": 60000,
    "produces": ["products"],
    "effects": "read",
}
SLEEP_MANIFEST = {
    **MANIFEST,
    "name": "batch_sleep",
    "category": "validation",
    "dependencies": [],
    "description": "Test tool: wait some seconds, then pass the products on (or fail).",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "seconds": {"type": "number", "default": 0},
            "fail": {"type": "boolean", "default": False},
        },
    },
    "entrypoint": "batch_test_tools:sleep",
}
TITLE_MANIFEST = {
    **MANIFEST,
    "name": "batch_title",
    "category": "extraction",
    "dependencies": ["page"],
    "description": "Test tool: the page's h1 as the one product.",
    "entrypoint": "batch_test_tools:title",
}


@pytest.fixture(scope="session")
def tools_dir(tmp_path_factory) -> Path:
    """A CURLLM_TOOLS_PATH directory with validation.batch_sleep and extraction.batch_title."""
    root = tmp_path_factory.mktemp("batch-tools")
    (root / "batch_test_tools.py").write_text(TOOLS_MODULE)
    (root / "batch_sleep.json").write_text(json.dumps(SLEEP_MANIFEST))
    (root / "batch_title.json").write_text(json.dumps(TITLE_MANIFEST))
    return root


#: How long a ``meet`` request waits for the others at most (a broken concurrency ends the test).
MEET_TIMEOUT_S = 20


class SlowHandler(BaseHTTPRequestHandler):
    """``/page?ms=N&n=K``: a small page served after N ms; the server counts requests in flight.
    ``/page?meet=M&n=K``: served once M requests are in flight at the same time (or after
    `MEET_TIMEOUT_S`, when they never are): concurrency shown by readiness, not by timing."""

    def do_GET(self) -> None:  # noqa: N802 - the http.server naming
        query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
        server = self.server
        with server.lock:
            server.active += 1
            server.peak = max(server.peak, server.active)
            server.lock.notify_all()
        try:
            time.sleep(int(query.get("ms", "0")) / 1000)
            if "meet" in query:
                with server.lock:
                    meet = int(query["meet"])
                    server.lock.wait_for(lambda: server.peak >= meet, MEET_TIMEOUT_S)
            body = (
                f"<!DOCTYPE html><html><head><title>slow {query.get('n', '')}</title></head>"
                f"<body><h1>page {query.get('n', '')}</h1><p>129,99 zł</p></body></html>"
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with server.lock:
                server.active -= 1

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="session")
def slow_site() -> Iterator[ThreadingHTTPServer]:
    """A server of slow pages on 127.0.0.1; ``.url`` is its base, ``.peak`` the most requests at once."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    server.daemon_threads = True
    server.lock, server.active, server.peak = threading.Condition(), 0, 0
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def cli_env(tmp_path: Path, tools_dir: Path | None = None) -> dict:
    """The environment of a fresh user: no third-party plugins, private cache and config, no model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    if tools_dir is not None:
        env["CURLLM_TOOLS_PATH"] = str(tools_dir)
    return env


def run_batch(
    *args: str, env: dict, stdin: str | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    """``curllm batch ARGS`` in a subprocess, to the end."""
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", "batch", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=cwd,
    )


def start_batch(*args: str, env: dict, cwd: Path | None = None) -> subprocess.Popen:
    """``curllm batch ARGS`` started in its own session (so a signal can go to its whole process group,
    the way a terminal's Ctrl-C does)."""
    return subprocess.Popen(
        [sys.executable, "-m", "curllm_core", "batch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )


def read_lines(path: Path) -> list[dict]:
    """The result lines of an out file; fails the test on a torn or invalid line."""
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), f"torn last line: {text[-80:]!r}"
    return [json.loads(line) for line in text.splitlines()]


def wait_for_lines(path: Path, count: int, proc: subprocess.Popen, limit: float = 30) -> None:
    """Wait until ``path`` holds at least ``count`` complete lines (fail if the process ends first)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        if proc.poll() is not None:
            pytest.fail(f"the batch ended early ({proc.returncode}): {proc.stderr.read()}")
        time.sleep(0.02)
    pytest.fail(f"fewer than {count} lines in {path} after {limit} s")


def sleep_task(task_id: str, seconds: float = 0.0, fail: bool = False, **extra) -> dict:
    """A task that needs no browser: validation.batch_sleep on given products."""
    return {
        "id": task_id,
        "plan": [{"tool": "validation.batch_sleep", "parameters": {"seconds": seconds, "fail": fail}}],
        "expected_output": "products",
        "data": {"products": [{"name": task_id, "price": 10}]},
        **extra,
    }


def write_jsonl(path: Path, tasks: list[dict]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path
