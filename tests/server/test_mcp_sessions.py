"""/mcp sessions in a real `curllm serve` (issue #27): a bounded number, closed when idle, the
longest-idle one closed to make room, 503 when every session is busy."""

from __future__ import annotations

import contextlib
import json
import time

import httpx
import pytest
from conftest import start_server

pytest.importorskip("mcp", reason="curllm[mcp] is not installed")

pytestmark = pytest.mark.browser

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("mcp_sessions"), "--mcp-sessions", "2", "--mcp-idle", "600")
    yield server
    server.stop()


def open_session(http: httpx.Client) -> str:
    r = http.post("/mcp", json=INIT, headers=HEADERS)
    assert r.status_code == 200, r.text
    sid = r.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert http.post("/mcp", json=note, headers=session(sid)).status_code == 202
    return sid


def session(sid: str) -> dict:
    return {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}


def ping(http: httpx.Client, sid: str) -> int:
    return http.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 5, "method": "ping"}, headers=session(sid)
    ).status_code


def close(http: httpx.Client, sid: str) -> None:
    http.delete("/mcp", headers=session(sid))


def test_a_new_session_closes_the_longest_idle_one_and_503_when_all_are_busy(served):
    with served.client() as http:
        first, second = open_session(http), open_session(http)
        assert ping(http, second) == 200  # `first` is now the one idle the longest
        third = open_session(http)
        assert ping(http, first) == 404  # closed to make room
        assert ping(http, second) == 200 and ping(http, third) == 200
        # Both sessions busy (an open event stream each): no session is closed, the new one is refused.
        with contextlib.ExitStack() as streams:
            for sid in (second, third):
                r = streams.enter_context(
                    http.stream("GET", "/mcp", headers={**session(sid), "Accept": "text/event-stream"})
                )
                assert r.status_code == 200
            refused = http.post("/mcp", json=INIT, headers=HEADERS)
            assert refused.status_code == 503
            assert json.loads(refused.text)["error"]["message"] == "Too many open sessions"
        close(http, second)
        close(http, third)


def test_an_idle_session_is_closed_after_mcp_idle(tmp_path):
    server = start_server(tmp_path, "--mcp-idle", "1")
    try:
        with server.client() as http:
            sid = open_session(http)
            deadline = time.monotonic() + 30
            while ping(http, sid) == 200:  # each ping restarts the idle period: poll slower than it
                assert time.monotonic() < deadline, "the idle session was never closed"
                time.sleep(1.5)
            assert ping(http, sid) == 404
    finally:
        server.stop()
