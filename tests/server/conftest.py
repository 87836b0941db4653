"""The real server in a subprocess (`curllm serve --port 0`), the local shop and a hostile server.

`start_server(*args)` runs ``curllm serve --port 0 ARGS`` with a private cache and no plugins,
waits for its "serving on URL" line and returns a `RunningServer` (``.url``, ``.stop()``). Every
test talks to it with httpx over 127.0.0.1, as a client would.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.warm_cache import fresh_cache

pytest.importorskip("starlette", reason="curllm[server] is not installed")
pytest.importorskip("uvicorn", reason="curllm[server] is not installed")
httpx = pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
CURLLM = str(Path(sys.executable).parent / "curllm")


def server_env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(
        CURLLM_CACHE_DIR=str(fresh_cache(tmp / "cache")),
        CURLLM_CONFIG=str(tmp / "config.toml"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        PYTHONUNBUFFERED="1",
    )
    (tmp / "config.toml").write_text("", encoding="utf-8")
    return env


@dataclass
class RunningServer:
    proc: subprocess.Popen
    url: str
    stderr: list[str] = field(default_factory=list)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60, **kwargs)

    def health(self) -> dict:
        return httpx.get(self.url + "/api/health", timeout=10).json()


def start_server(
    tmp: Path, *args: str, command: list[str] | None = None, env: dict | None = None
) -> RunningServer:
    """Start ``curllm serve --port 0 ARGS`` (or ``command``) and wait until it listens."""
    cmd = command or [CURLLM, "serve", "--port", "0", *args]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**server_env(tmp), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"serving on (http://\S+?)/? ", line)
            if m and not url:
                url.append(m.group(1))
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    found.wait(60)
    if not url:
        proc.kill()
        pytest.fail("the server did not start:\n" + "".join(lines))
    server = RunningServer(proc, url[0], lines)
    # The browser starts in the app's lifespan: wait until the app answers.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            server.health()
            return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.stop()
    pytest.fail("the server never answered:\n" + "".join(lines))


@pytest.fixture(scope="module")
def server_tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("server")


@pytest.fixture(scope="module")
def hostile():
    from hostile_server import start_hostile

    server = start_hostile()
    yield server
    server.stop()


def sse_events(lines) -> list[dict]:
    """The events of an SSE stream (its ``data:`` lines are whole JSON events)."""
    import json

    events, data = [], []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and data:
            events.append(json.loads("\n".join(data)))
            data = []
    return events
