"""Hostile input, part three, against a real `curllm serve` process and `curllm mcp`: page data no JSON
may hold, clients that hang up or never read, slow and deep requests, the MCP network policy.

One server for the module (a second only where a setting differs); every page on the hostile server
on 127.0.0.1. Addresses the policy must refuse are checked without sending anything to them.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import CURLLM, ROOT, server_env, sse_events, start_server

pytestmark = pytest.mark.browser
TOOLS = ROOT / "tests" / "browser" / "tools"  # misbehaving: floods its output
PRODUCT_PLAN = {"plan": [{"tool": "extraction.product_detail"}]}
SLOW_LIMITS = {"CURLLM_SERVER_HEAD_TIMEOUT": "3", "CURLLM_SERVER_BODY_TIMEOUT": "5"}


@pytest.fixture(scope="module")
def server(server_tmp, browser_path):
    # A network policy (a blocked domain no test uses): every task is a client of the egress proxy.
    running = start_server(
        server_tmp,
        *("--concurrency", "2", "--queue", "4", "--block-domain", "blocked.test"),
        # Heads and bodies cut off sooner than the defaults (10 s, 20 s), for a quicker test.
        env={"CURLLM_TOOLS_PATH": str(TOOLS), **SLOW_LIMITS},
    )
    yield running
    assert running.stop() in (0, -2, 130), "".join(running.stderr)


def strict_json(text: str):
    def refuse(word: str):
        raise AssertionError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def check_lone_product(product: dict, url: str) -> None:
    assert product["name"] == "Lamp \ufffd" and product["description"] == "Half \ufffd an emoji"
    assert product["price"] is None and product["rating"] is None  # NaN and 1e309: no number
    assert product["url"] == url


# --- page data no JSON may hold ----------------------------------------------------------------------


def test_lone_surrogates_and_infinite_numbers_through_scrape_and_the_stream(server, hostile):
    url = f"{hostile.url}/lone"
    body = {"plan": PRODUCT_PLAN, "url": url}
    r = httpx.post(server.url + "/api/scrape", json=body, timeout=120)
    assert r.status_code == 200, r.text
    result = strict_json(r.content.decode("utf-8"))
    check_lone_product(result["data"]["product"], url)
    with (
        httpx.Client(timeout=120) as client,
        client.stream("POST", server.url + "/api/scrape/stream", json=body) as s,
    ):
        assert s.status_code == 200
        lines = list(s.iter_lines())
    for line in lines:
        if line.startswith("data:"):
            strict_json(line[5:])
    events = sse_events(lines)
    assert events[-1]["type"] == "complete", events[-1]
    assert "Lamp \ufffd" in [e["data"].get("title") for e in events if e["type"] == "url_complete"]
    check_lone_product(events[-1]["data"]["result"]["data"]["product"], url)


def mcp_params(tmp_path, *args: str):
    mcp = pytest.importorskip("mcp", reason="curllm[mcp] is not installed")
    return mcp, mcp.StdioServerParameters(
        command=CURLLM, args=["mcp", *args], env=server_env(tmp_path), cwd=str(ROOT)
    )


async def test_mcp_answers_a_page_of_lone_surrogates(tmp_path, hostile):
    mcp, params = mcp_params(tmp_path, "--allow-private")
    async with mcp.Client(params) as client:
        ran = await client.call_tool("run_plan", {"plan": PRODUCT_PLAN, "url": f"{hostile.url}/lone"})
    assert not ran.is_error, ran.content
    check_lone_product(ran.structured_content["product"], f"{hostile.url}/lone")


# --- the MCP network policy ------------------------------------------------------------------------------


async def test_mcp_refuses_private_and_link_local_targets_by_default(tmp_path, hostile):
    """Nothing reaches the hostile server (127.0.0.1) unless --allow-private; the metadata address is
    refused before any traffic (the policy reads the address as written)."""
    mcp, params = mcp_params(tmp_path)
    before = len(hostile.log)
    async with mcp.Client(params) as client:
        local = await client.call_tool("run", {"instruction": "find products", "url": f"{hostile.url}/ok"})
        tool = await client.call_tool(
            "extraction_products_generic", {"url": f"http://localhost:{hostile.port}/ok"}
        )
        meta = await client.call_tool(
            "run", {"instruction": "find products", "url": "http://169.254.169.254/latest/"}
        )
        meta6 = await client.call_tool("run", {"instruction": "find products", "url": "http://[fe80::1]/"})
    assert len(hostile.log) == before, hostile.log[before:]
    for refused in (local, tool):
        assert refused.is_error and refused.structured_content["error"]["code"] == "SSRF_BLOCKED_URL"
        assert "--allow-private" in refused.content[0].text
    for refused in (meta, meta6):
        assert refused.is_error and refused.structured_content["error"]["code"] == "SSRF_BLOCKED_URL"
        assert "--allow-link-local" in refused.content[0].text


# --- clients that hang up or never read ----------------------------------------------------------------


def wait_idle(server, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        health = server.health()
        if (health["running"], health["waiting"], health["contexts"]) == (0, 0, 0):
            return health
        if time.monotonic() > deadline:
            return health
        time.sleep(0.05)


def listening_sockets(pid: int) -> int:
    """TCP sockets of process ``pid`` in the LISTEN state (the server's own, the egress proxy)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            count += fields[3] == "0A" and fields[9] in inodes
    return count


def test_a_client_that_hangs_up_as_its_task_ends_leaves_no_context_or_proxy(server, hostile):
    body = {"plan": {"plan": [{"tool": "extraction.products_generic"}]}, "url": f"{hostile.url}/ok"}
    # One task first: the browser and its egress proxy (one for all the tasks) are there from then on.
    assert httpx.post(server.url + "/api/scrape", json=body, timeout=120).status_code == 200
    assert wait_idle(server, 10)["contexts"] == 0
    listening = listening_sockets(server.proc.pid)
    with httpx.Client(timeout=60) as client:
        for _ in range(6):
            with client.stream("POST", server.url + "/api/scrape/stream", json=body) as r:
                for line in r.iter_lines():
                    # The step is done: the task is closing its context now. Hang up.
                    if line.startswith("data:") and '"status": "completed"' in line and '"tool_call"' in line:
                        break
    health = wait_idle(server, 15)
    assert health["contexts"] == 0 and health["running"] == 0, health
    assert listening_sockets(server.proc.pid) == listening  # no proxy left by a task


def test_a_client_that_never_reads_its_stream_gives_its_slot_back_when_the_task_ends(server, hostile):
    """Two clients that send a task and never read a byte (a tiny receive window): the server's
    sends to them stall, yet each task's slot is free when the task is done: a third client (two
    slots) gets one and its whole stream, and the server is idle after it."""
    flood = {"plan": [{"tool": "extraction.misbehaving", "parameters": {"how": "flood"}}]}
    body = json.dumps({"plan": flood, "url": f"{hostile.url}/ok"}).encode()
    host, port = server.url.removeprefix("http://").split(":")
    head = (
        f"POST /api/scrape/stream HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    silent = []
    try:
        for _ in range(2):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect((host, int(port)))
            sock.sendall(head + body)
            silent.append(sock)
        with httpx.stream(
            "POST", server.url + "/api/scrape/stream", json={"plan": PRODUCT_PLAN, "url": f"{hostile.url}/ok"},
            timeout=60,
        ) as r:  # fmt: skip
            assert r.status_code == 200
            events = sse_events(r.iter_lines())
        assert events[-1]["type"] == "complete", events[-1]
        health = wait_idle(server, 60)
        assert health["running"] == 0 and health["waiting"] == 0, health
    finally:
        for sock in silent:
            sock.close()


# --- the map step never reads the server's files -----------------------------------------------------------


def file_targets(tmp_path) -> list[str]:
    """A file that exists (its text a marker) and one that does not, each as a file: URL and a path."""
    secret = tmp_path / "secret.html"
    secret.write_text("<html><body><h1>SECRET-MARKER</h1></body></html>")
    missing = tmp_path / "missing.html"
    return [secret.as_uri(), str(secret), missing.as_uri(), str(missing)]


def map_body(urls: list[str]) -> dict:
    plan = {"plan": [{"map": {"over": "products", "open": "{item.url}", "concurrency": 4,
                              "steps": [{"tool": "extraction.product_detail"}]}}]}  # fmt: skip
    return {"plan": plan, "data": {"products": [{"url": u} for u in urls]}}


def refusals(outcomes: list[dict], urls: list[str]) -> set[str]:
    """The items' errors with their own URL taken out: one text when the refusal says nothing of the file."""
    return {o["error"].replace(u, "URL") for o, u in zip(outcomes, urls, strict=True)}


def test_a_map_on_the_server_never_opens_its_files_nor_tells_which_exist(server, hostile, tmp_path):
    """No start URL; the map's items are the server's files (existing or not, file: URLs or paths) and
    two web pages: the files are refused alike, the web pages open, and no browser context is left."""
    files = file_targets(tmp_path)
    urls = [*files, f"{hostile.url}/ok?a=1", f"{hostile.url}/ok?a=2"]
    r = httpx.post(server.url + "/api/scrape", json=map_body(urls), timeout=120)
    assert r.status_code == 200, r.text
    assert "SECRET-MARKER" not in r.text
    outcomes = r.json()["data"]["results"]
    assert [o["success"] for o in outcomes] == [False] * 4 + [True] * 2, outcomes
    assert {o["code"] for o in outcomes[:4]} == {"BLOCKED_URL"}
    assert len(refusals(outcomes[:4], files)) == 1, outcomes[:4]  # the same words, file or no file
    health = wait_idle(server, 10)
    assert health["contexts"] == 0, health  # both items started the session at once: one session


async def test_mcp_run_plan_never_opens_the_servers_files(tmp_path):
    mcp, params = mcp_params(tmp_path)
    files = file_targets(tmp_path)
    async with mcp.Client(params) as client:
        ran = await client.call_tool("run_plan", map_body(files))
    text = json.dumps(ran.structured_content) + ran.content[0].text
    assert "SECRET-MARKER" not in text
    assert ran.is_error and ran.structured_content["error"]["code"] == "MAP_FAILED", text
    assert "opens only web pages" in text


# --- slow, deep and abandoned requests -------------------------------------------------------------------


def raw_connection(server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=60)


def test_half_sent_heads_and_bodies_are_cut_off_and_the_server_answers_meanwhile(server):
    head = raw_connection(server)
    head.sendall(b"POST /api/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
    body = raw_connection(server)
    body.sendall(
        b"POST /api/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"instruction": '
    )
    started = time.monotonic()
    assert server.health()["ok"]  # others are answered meanwhile
    # Closed by the server (EOF, before the socket's own 60 s ran out: nothing else in the server
    # closes a connection whose head never ends), and not before CURLLM_SERVER_HEAD_TIMEOUT (3 s): a
    # lower bound, which a loaded machine only makes easier to pass.
    assert head.recv(100) == b""
    assert time.monotonic() - started > 2.5
    answer = b""
    while b"BODY_TIMEOUT" not in answer and (chunk := body.recv(4096)):
        answer += chunk
    assert b" 408 " in answer.split(b"\r\n")[0] and b"BODY_TIMEOUT" in answer, answer
    assert b"within 5 s" in answer  # the body's limit ended it, as the answer says
    head.close()
    body.close()


def test_deep_bodies_are_400_and_a_client_leaving_mid_upload_logs_no_traceback(server):
    deep = "[" * 100_000 + "]" * 100_000
    r = httpx.post(server.url + "/api/scrape", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "BAD_JSON", r.text
    assert "nested more than" in r.json()["error"]["message"]
    logged = len(server.stderr)
    for _ in range(20):
        sock = raw_connection(server)
        sock.sendall(
            b"POST /api/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 5000\r\n\r\n{"instruction": "x'
        )
        sock.close()
    assert server.health()["ok"]
    assert not any("Traceback" in line for line in server.stderr[logged:]), server.stderr[logged:]


# --- CPU-bound extraction ----------------------------------------------------------------------------


def offload_workers(pid: int) -> list[int]:
    """Child processes of ``pid`` that are extraction workers (`curllm_core.offload`)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or f"PPid:\t{pid}\n" not in (proc / "status").read_text():
                continue
            if b"curllm_core.offload" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _page_parsed_in(seconds: float) -> float:
    """How many MB of the hostile server's JSON-LD page this machine's product_detail parses in about
    ``seconds`` (5 MB of it timed here), from 25 to 50: a fast machine gets a bigger page, so that the
    step's limit is still reached while it parses."""
    from curllm_core.tools.extraction import product_detail
    from tests.hostile_server import big_product_page

    sample = big_product_page(5).decode()
    started = time.process_time()
    product_detail.extract(sample, "http://127.0.0.1/bigld")
    per_mb = max(time.process_time() - started, 1e-3) / (len(sample) / 1e6)
    return round(min(max(25.0, seconds / per_mb), 50.0), 1)


def test_a_huge_product_page_holds_no_other_client_and_stops_at_the_step_limit(server, hostile):
    # 25 MB of JSON-LD or more: 8 s of parsing on a slow machine here, 2.3 s on a fast one (more by
    # the load), which used to hold the event loop throughout. The limit is well under what this
    # machine needs for the page it gets (`_page_parsed_in`): a page parsed within the limit would not
    # test it.
    plan = {"plan": [{"tool": "extraction.product_detail", "timeout_ms": 2000, "retries": 0}]}
    result: dict = {}
    mb = _page_parsed_in(seconds=3.5)

    def scrape() -> None:
        body = {"plan": plan, "url": f"{hostile.url}/bigld?mb={mb}"}
        result["answer"] = httpx.post(server.url + "/api/scrape", json=body, timeout=120)

    task = threading.Thread(target=scrape)
    started = time.monotonic()
    task.start()
    slowest, workers = 0.0, set()
    while task.is_alive():
        asked = time.monotonic()
        assert server.health()["ok"]
        slowest = max(slowest, time.monotonic() - asked)
        workers.update(offload_workers(server.proc.pid))
        time.sleep(0.1)
    task.join()
    took = time.monotonic() - started
    answer = result["answer"]
    assert answer.status_code == 200, answer.text
    errors = answer.json()["errors"]
    assert errors and errors[0]["code"] == "STEP_TIMEOUT", errors
    assert "within 2000 ms" in errors[0]["message"]
    assert workers, "the page was parsed on the server's event loop"
    # On the loop, health waited the whole parse (its 10 s timeout ran out): its slowest answer was
    # most of the scrape. Off it, the copies of the page through the browser's driver are what is
    # left (1.2 s at load 15): under 3 s, or a small part of the scrape on a machine loaded enough
    # to stretch both.
    assert slowest < max(3.0, took / 3), (
        f"a health request waited {slowest:.2f} s of the scrape's {took:.2f} s"
    )
    assert not offload_workers(server.proc.pid), "the worker outlived its step"
    assert took < 120  # a hang's bound: the step's own 2 s limit is what the error above says
