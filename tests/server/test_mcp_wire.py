"""`curllm mcp`'s stdin as a hostile client writes it: raw lines in, JSON-RPC answers out (issue #27).

One real `curllm mcp` process for the module; every bad line gets an error with ``id`` null, and the
server still answers the next valid request.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading

import pytest
from conftest import CURLLM, ROOT, server_env

pytest.importorskip("mcp", reason="curllm[mcp] is not installed")

pytestmark = pytest.mark.browser

LIMIT = 1024 * 1024  # the server's max_body_bytes, a stdin line's limit


class Wire:
    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 60) -> dict:
        return json.loads(self.lines.get(timeout=timeout))

    def ping(self, n: int) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}).encode())
        assert self.answer() == {"jsonrpc": "2.0", "id": n, "result": {}}


def peak_rss(pid: int) -> int:
    """The peak resident memory of process ``pid`` so far, in bytes (VmHWM)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for process {pid}")


@pytest.fixture(scope="module")
def wire(tmp_path_factory, browser_path):
    tmp = tmp_path_factory.mktemp("mcp_wire")
    proc = subprocess.Popen(
        [CURLLM, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(tmp),
        cwd=str(ROOT),
    )
    w = Wire(proc)
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    w.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode())
    assert w.answer()["id"] == 0
    w.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield w
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"hello, not json", -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700),  # cut short
        (b"\xff\xfe garbage \x00", -32700),
        (b"[" * 100_000 + b"]" * 100_000, -32700),  # nested too deep
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            -32700,
        ),
        (b"[1, 2]", -32600),  # JSON, not a request
        (b'{"hello": "world"}', -32600),
        (b"42", -32600),
    ],
    ids=["garbage", "truncated", "binary", "deep-array", "deep-params", "array", "object", "number"],
)
def test_a_bad_line_is_answered_and_the_next_is_served(wire, raw, code):
    wire.send(raw)
    answer = wire.answer()
    assert answer["id"] is None and answer["error"]["code"] == code, answer
    wire.ping(7)


def test_an_over_long_line_is_refused_without_being_buffered_whole(wire):
    """20 MB: answered with the limit in the message (it used to block ~50 s, buffering the line)."""
    big = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": "a" * (20 * LIMIT)}})
    peak = peak_rss(wire.proc.pid)
    wire.send(big.encode())
    answer = wire.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    assert f"over {LIMIT} bytes" in answer["error"]["message"]
    wire.ping(8)
    # Skipped in chunks, never held whole: the server's peak memory grew by far less than the line
    # (held whole it grows by its 20 MB at least). What it did, not its seconds (a loaded machine's).
    grew = peak_rss(wire.proc.pid) - peak
    assert grew < 8 * LIMIT, f"the server's peak memory grew by {grew / LIMIT:.1f} MB"
    # Just under the limit is still a message.
    pad = LIMIT - len(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": ""}})) - 1
    wire.send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": "a" * pad}}).encode())
    assert wire.answer() == {"jsonrpc": "2.0", "id": 9, "result": {}}
