"""`curllm serve` over real HTTP: the stream against `--events`, errors, limits, slots, disconnects, security."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import CURLLM, server_env, sse_events, start_server

from tests.in_process import Exited, cli_main

pytestmark = pytest.mark.browser

TASK = "find products under 150zł"


@pytest.fixture(scope="module")
def server(server_tmp, browser_path):
    running = start_server(server_tmp, "--concurrency", "2", "--queue", "4")
    yield running
    assert running.stop() in (0, -2, 130), "".join(running.stderr)


def cli_like(tmp: Path, *args: str) -> Exited:
    """What ``curllm ARGS`` ends with, the reference the server's answers are compared with: the
    command's console entry point run in this process (tests/in_process.py: its parsing, options,
    output and ``--events`` sink, no Python process of its own), in the server's environment (a
    private cache and an empty config file, plugins as installed)."""
    env: dict[str, str | None] = {
        k: v for k, v in server_env(tmp).items() if k.startswith(("CURLLM_", "LITELLM_"))
    }
    return cli_main(args, env={**env, "CURLLM_LOAD_PLUGINS": None})


def stream(server, body: dict, **kwargs) -> tuple[httpx.Response, list[dict]]:
    with server.client() as client, client.stream("POST", "/api/scrape/stream", json=body, **kwargs) as r:
        lines = list(r.iter_lines()) if r.status_code == 200 else []
        if r.status_code != 200:
            r.read()
        return r, sse_events(lines)


# --- the stream is the --events output -------------------------------------------------------------

VARYING = {"timestamp", "duration_ms", "timings", "total_ms"}


def _stable(value):
    """The value without what differs between two runs of the same task (times)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def test_the_stream_has_exactly_the_events_and_fields_of_events_output(
    server, site_url, server_tmp, tmp_path
):
    events_file = tmp_path / "events.jsonl"
    cli = cli_like(
        tmp_path,
        TASK,
        "--url",
        f"{site_url}/",
        "--events",
        str(events_file),
        "--format",
        "json",
        "--no-cache",
    )
    assert cli.returncode == 0, cli.stderr
    expected = [json.loads(line) for line in events_file.read_text(encoding="utf-8").splitlines()]

    r, got = stream(server, {"instruction": TASK, "url": f"{site_url}/", "options": {"cache": False}})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert [e["type"] for e in got] == [e["type"] for e in expected]
    assert got[-1]["type"] == "complete"
    for mine, theirs in zip(got, expected, strict=True):
        # Every field --events writes, with the same value (times aside), and nothing else...
        extra = set(mine["data"]) - set(theirs["data"])
        assert extra == ({"result"} if mine["type"] == "complete" else set()), mine["type"]
        assert set(theirs["data"]) <= set(mine["data"])
        assert _stable({k: v for k, v in mine["data"].items() if k != "result"}) == _stable(theirs["data"])
        assert set(mine) == set(theirs) == {"type", "data"}
    # ...except that `complete` also carries the whole result: the one `curllm --format json` prints.
    result = got[-1]["data"]["result"]
    assert _stable(result) == _stable(json.loads(cli.stdout))
    assert result["ok"] and result["data"]["products"]
    assert all(p["price"] <= 150 for p in result["data"]["products"])


def test_the_stream_validates_field_by_field_against_the_event_schema(server, site_url):
    """A real server process's SSE stream, read by a real HTTP client, against the published schema
    (tools_manifests/events.schema.json): every event and field, the step sequence, every page the
    run visited, the output in `complete`; and a task that cannot be planned ends in `error`."""
    from tests.design.stream_checks import (
        assert_complete_carries_the_output,
        assert_every_page_reported,
        validate,
    )

    r, events = stream(server, {"instruction": TASK, "url": f"{site_url}/", "options": {"cache": False}})
    assert r.status_code == 200
    validate(events)
    assert events[0]["type"] == "init" and events[-1]["type"] == "complete"
    assert_every_page_reported(events)
    complete = events[-1]["data"]
    assert_complete_carries_the_output(complete, complete["result"])
    assert complete["ok"] and complete["data"]["products"]
    assert all(p["price"] <= 150 for p in complete["extracted_data"]["products"])
    calls = [
        e["data"]["extracted_data"]
        for e in events
        if e["type"] == "step" and e["data"]["action"] == "tool_call"
    ]
    assert calls and all(c["tool_name"] == c["tool"] and c["parameters"] == c["params"] for c in calls)
    assert all(c["result"] == c.get("result_preview") for c in calls)

    r, events = stream(server, {"instruction": "what is the weather tomorrow", "url": f"{site_url}/"})
    assert r.status_code == 200
    validate(events)
    assert events[-1]["type"] == "error" and events[-1]["data"]["code"] == "PLANNING_FAILED"


def test_sse_framing_is_one_message_per_event(server, site_url):
    with server.client() as client:
        with client.stream(
            "POST", "/api/scrape/stream", json={"instruction": TASK, "url": f"{site_url}/nowosci"}
        ) as r:
            raw = "".join(r.iter_text())
    messages = [m for m in raw.split("\n\n") if m.strip()]
    for message in messages:
        lines = message.split("\n")
        assert lines[0].startswith("event: ") and lines[1].startswith("data: ") and len(lines) == 2, message
        assert json.loads(lines[1][6:])["type"] == lines[0][7:]


def test_scrape_returns_the_result_json(server, site_url):
    with server.client() as client:
        r = client.post("/api/scrape", json={"instruction": TASK, "url": f"{site_url}/"})
    assert r.status_code == 200
    doc = r.json()
    assert set(doc) >= {"ok", "data", "steps", "errors", "plan", "timings"}
    assert doc["ok"] and all(p["price"] <= 150 for p in doc["data"]["products"])


def test_plan_route_gives_the_plan_only(server, site_url, tmp_path):
    with server.client() as client:
        body = {"instruction": TASK, "url": f"{site_url}/", "options": {"cache": False}}
        plan = client.post("/api/plan", json=body).json()
    cli = cli_like(tmp_path, TASK, "--url", f"{site_url}/", "--plan-only", "--no-cache")
    assert plan == json.loads(cli.stdout)


def test_a_plan_runs_as_given(server, site_url):
    plan = {
        "plan": [{"tool": "extraction.products_generic", "parameters": {"limit": 3}}],
        "expected_output": "products",
    }
    with server.client() as client:
        doc = client.post("/api/scrape", json={"plan": plan, "url": f"{site_url}/"}).json()
    assert doc["ok"] and len(doc["data"]["products"]) == 3
    assert doc["plan"]["plan"][0]["tool"] == "extraction.products_generic"


def test_a_map_plan_runs_through_the_api_and_streams_each_item(server, site_url):
    from jsonschema import Draft202012Validator

    from curllm_core.events import events_schema

    plan = {
        "plan": [
            {"tool": "extraction.products_generic", "parameters": {"max_price": 50}},
            {
                "map": {
                    "over": "products",
                    "open": "{item.url}",
                    "concurrency": 2,
                    "steps": [{"tool": "extraction.product_detail"}],
                    "merge": True,
                }
            },
        ],
        "expected_output": "products",
    }
    body = {"plan": plan, "url": f"{site_url}/?price_max=50"}
    with server.client() as client:
        doc = client.post("/api/scrape", json=body).json()
    assert doc["ok"], doc["errors"]
    products = doc["data"]["products"]
    assert len(products) == 5 and all(p["sku"] and p["brand"] and p["availability"] for p in products)
    assert doc["steps"][-1]["result"]["map"]["succeeded"] == 5
    response, events = stream(server, body)
    assert response.status_code == 200
    validator = Draft202012Validator(events_schema())
    assert [list(validator.iter_errors(e)) for e in events] == [[] for _ in events]
    items = [e for e in events if e["type"] == "step" and "map_item" in e["data"]["extracted_data"]]
    assert sorted(e["data"]["extracted_data"]["map_item"]["index"] for e in items) == [0, 1, 2, 3, 4]
    assert events[-1]["data"]["data"]["products"] == products


def test_fields_and_limit_as_the_cli_takes_them(server, site_url, tmp_path):
    body = {"instruction": TASK, "url": f"{site_url}/", "fields": ["name", "price"], "limit": 3}
    with server.client() as client:
        doc = client.post("/api/scrape", json={**body, "options": {"cache": False}}).json()
    cli = cli_like(
        tmp_path, TASK, "--url", f"{site_url}/", "--fields", "name,price", "--limit", "3", "--format", "json",
        "--no-cache",
    )  # fmt: skip
    assert doc["ok"] and len(doc["data"]["products"]) == 3
    assert _stable(doc) == _stable(json.loads(cli.stdout))


def test_tools_routes(server):
    with server.client() as client:
        tools = client.get("/api/tools").json()
        one = client.get("/api/tools/products_generic")
        missing = client.get("/api/tools/no_such_tool")
    names = {t["name"] for t in tools}
    assert "extraction.products_generic" in names
    assert set(tools[0]) == {"name", "category", "version", "description", "parameters", "source"}
    assert one.status_code == 200 and one.json()["name"] == "extraction.products_generic"
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "UNKNOWN_TOOL"


def test_health_and_openapi(server):
    with server.client() as client:
        health = client.get("/api/health").json()
        doc = client.get("/openapi.json").json()
    assert health["ok"] and health["browser"] == "ready" and health["concurrency"] == 2
    assert set(doc["paths"]) == {
        "/api/scrape/stream",
        "/api/scrape",
        "/api/plan",
        "/api/tools",
        "/api/tools/{name}",
        "/api/health",
    }


# --- bad input: a JSON error with its status, never a traceback ---------------------------------------


@pytest.mark.parametrize(
    "content, headers, status, code",
    [
        (b"{not json", {"content-type": "application/json"}, 400, "BAD_JSON"),
        (b"", {"content-type": "application/json"}, 400, "BAD_JSON"),
        (b"\xff\xfe", {"content-type": "application/json"}, 400, "BAD_JSON"),
        (b"[1, 2]", {"content-type": "application/json"}, 400, "BAD_REQUEST"),
        (b'{"instruction": "x", "colour": 1}', {"content-type": "application/json"}, 400, "BAD_REQUEST"),
        (b'{"instruction": 5}', {"content-type": "application/json"}, 400, "BAD_REQUEST"),
        (
            b'{"instruction": "x", "options": {"proxy": "http://p"}}',
            {"content-type": "application/json"},
            400,
            "BAD_REQUEST",
        ),
        (
            b'{"instruction": "x", "options": {"block_domains": ["localhost:8080"]}}',
            {"content-type": "application/json"},
            400,
            "BAD_REQUEST",
        ),
        (
            b'{"instruction": "x", "url": "file:///etc/passwd"}',
            {"content-type": "application/json"},
            400,
            "BAD_URL",
        ),
        (b'{"instruction": "x", "url": "/etc/passwd"}', {"content-type": "application/json"}, 400, "BAD_URL"),
        (
            b'{"plan": {"plan": [{"tool": "nope"}]}, "url": "http://127.0.0.1:9/"}',
            {"content-type": "application/json"},
            400,
            "BAD_PLAN",
        ),
        (
            b'{"instruction": "x", "url": "http://127.0.0.1:9/"}',
            {"content-type": "text/plain"},
            415,
            "BAD_CONTENT_TYPE",
        ),
        (b"x" * (1024 * 1024 + 1), {"content-type": "application/json"}, 413, "BODY_TOO_LARGE"),
    ],
)
@pytest.mark.parametrize("route", ["/api/scrape", "/api/scrape/stream"])
def test_bad_requests(server, route, content, headers, status, code):
    with server.client() as client:
        r = client.post(route, content=content, headers=headers)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    error = r.json()["error"]
    assert error["code"] == code and error["message"]
    assert "Traceback" not in r.text


def test_oversized_body_is_refused_without_reading_it(server):
    # Content-Length alone decides: the server answers before the body is sent.
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50000000\r\n\r\n{"
        )
        answer = b""
        while b"BODY_TOO_LARGE" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
    answer = answer.decode()
    assert answer.startswith("HTTP/1.1 413") and "BODY_TOO_LARGE" in answer


def test_unknown_routes_and_methods_are_json(server):
    with server.client() as client:
        missing = client.get("/api/nothing")
        wrong = client.delete("/api/scrape")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_a_foreign_host_header_is_refused_on_loopback(server):
    # DNS rebinding: a web page whose name now points at 127.0.0.1 must not reach the API.
    r = httpx.get(server.url + "/api/tools", headers={"Host": "attacker.example"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "BAD_HOST"


def test_no_cors_unless_asked(server):
    with server.client() as client:
        r = client.options(
            "/api/scrape", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
        )
        r2 = client.get("/api/tools", headers={"Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in r.headers and "access-control-allow-origin" not in r2.headers


# --- time limits, disconnects, slots -------------------------------------------------------------------


def test_per_request_time_limit(server, hostile):
    with server.client() as client:
        r = client.post(
            "/api/scrape",
            json={"instruction": "find products", "url": f"{hostile.url}/hang", "options": {"timeout": 1}},
        )
    assert r.status_code == 200
    # Ended by the request's limit, and said so (the page load alone would wait 30 s, the server's
    # limit is 300 s): the limit is shown kept by the result, not by seconds a loaded machine stretches.
    [timeout] = [e for e in r.json()["errors"] if e["code"] == "TASK_TIMEOUT"]
    assert "did not finish within 1 s" in timeout["message"], timeout


#: How long a disconnected client's task may take to be gone: far below the 30 s its page load to
#: /hang would hold it otherwise, far above what cancelling takes on a loaded machine.
CANCELLED_WITHIN_S = 15


def _wait_idle(server, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        health = server.health()
        if (health["running"], health["waiting"], health["contexts"]) == (
            0,
            0,
            0,
        ) or time.monotonic() > deadline:
            return health
        time.sleep(0.05)


def test_a_client_that_disconnects_cancels_its_task_and_context(server, hostile):
    assert _wait_idle(server, 10)["contexts"] == 0
    # In the browser: its context is what must not outlive the client (under auto a plan that reads
    # HTML opens none; the next test disconnects from such a task).
    body = {"instruction": "find products", "url": f"{hostile.url}/hang", "options": {"engine": "browser"}}
    with server.client() as client:
        with client.stream("POST", "/api/scrape/stream", json=body) as r:
            for line in r.iter_lines():
                if line.startswith("data:") and json.loads(line[5:])["type"] == "url_start":
                    # Checked inside the loop: leaving it closes the connection.
                    health = server.health()
                    assert health["running"] == 1 and health["contexts"] == 1, str(health)
                    break
    # The connection is closed here. Left running, the task would wait 30 s for /hang's page (the
    # page load's limit) before failing: idle well before that is the cancellation.
    health = _wait_idle(server, CANCELLED_WITHIN_S)
    assert health["contexts"] == 0 and health["running"] == 0, health


def test_a_disconnect_also_cancels_a_plain_scrape(server, hostile):
    def post() -> None:
        try:
            httpx.post(
                server.url + "/api/scrape",
                json={"instruction": "find products", "url": f"{hostile.url}/hang"},
                timeout=1.5,
            )
        except httpx.ReadTimeout:
            pass  # the client gives up: it disconnects

    thread = threading.Thread(target=post)
    thread.start()
    thread.join()
    health = _wait_idle(server, CANCELLED_WITHIN_S)
    assert health["contexts"] == 0 and health["running"] == 0, health


def test_concurrency_queue_and_queue_full(server_tmp, hostile, browser_path):
    busy = start_server(server_tmp, "--concurrency", "1", "--queue", "1")
    try:
        results: dict[str, list[dict]] = {}

        def run(name: str, path: str) -> None:
            body = {"instruction": "find products", "url": f"{hostile.url}{path}"}
            with httpx.Client(base_url=busy.url, timeout=60) as client:
                with client.stream("POST", "/api/scrape/stream", json=body) as r:
                    results[name] = sse_events(list(r.iter_lines()))

        # The first task's page is held until the test lets it go: the slot and the queue stay full
        # while the test looks, however slow the machine (a page of fixed seconds could end first).
        first = threading.Thread(target=run, args=("first", "/gate?name=queue-full"))
        first.start()
        _until(lambda: busy.health()["running"] == 1)
        second = threading.Thread(target=run, args=("second", "/ok"))
        second.start()
        _until(lambda: busy.health()["waiting"] == 1)
        assert busy.health()["running"] == 1  # at most --concurrency run
        refused = httpx.post(
            busy.url + "/api/scrape/stream", json={"instruction": "find products", "url": f"{hostile.url}/ok"}
        )
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "QUEUE_FULL"
        assert refused.headers["retry-after"] == "1"
        assert results == {}  # neither has ended: the first is held, the second waits for its slot
        hostile.open_gate("queue-full")
        first.join(60)
        second.join(60)
        for name in ("first", "second"):
            assert results[name][-1]["type"] == "complete", results[name]
        # The second started only after the first had finished.
        assert results["second"][0]["data"]["timestamp"] >= results["first"][-1]["data"]["timestamp"]
        assert busy.health()["running"] == 0
    finally:
        hostile.open_gate("queue-full")
        busy.stop()


def _until(check, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


# --- security ------------------------------------------------------------------------------------------


def test_another_host_needs_a_token(server_tmp):
    r = subprocess.run(
        [CURLLM, "serve", "--host", "0.0.0.0", "--port", "0"],
        env=server_env(server_tmp),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert "--token" in r.stderr and "Traceback" not in r.stderr


TOKEN = "s3cret-token-1"


@pytest.fixture(scope="module")
def guarded(server_tmp, browser_path):
    """`curllm serve --token T --block-private`: one server for the two options' tests (each option's
    refusal is its own: 401 without the token, 403 for a private target with it)."""
    running = start_server(server_tmp, "--token", TOKEN, "--block-private")
    yield running
    running.stop()


def test_a_token_is_required_when_given(guarded):
    with httpx.Client(base_url=guarded.url) as client:
        none = client.get("/api/tools")
        wrong = client.get("/api/tools", headers={"Authorization": "Bearer nope-nope-nope"})
        right = client.get("/api/tools", headers={"Authorization": f"Bearer {TOKEN}"})
        health = client.get("/api/health")
        page = client.get("/")
        mcp = client.post("/mcp", json={})
        scrape = client.post("/api/scrape", json={"instruction": TASK, "url": "http://127.0.0.1:9/"})
    assert none.status_code == wrong.status_code == mcp.status_code == scrape.status_code == 401
    assert none.json()["error"]["code"] == "UNAUTHORIZED" and none.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200 and health.status_code == 200 and page.status_code == 200


EXPOSED_APP = """
import sys, uvicorn
from curllm_core.server import create_app
from curllm_core.server.serving import bind, url_of
app = create_app(host="0.0.0.0", token="t0ken-for-tests", allow_private={allow_private})
sock = bind("127.0.0.1", 0)  # the app is configured as exposed; the test only listens on loopback
print("curllm: serving on " + url_of(sock) + "/ ", file=sys.stderr, flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
"""


@pytest.mark.parametrize("allow_private", [False, True])
def test_off_loopback_private_targets_are_blocked_unless_allowed(
    server_tmp, site_url, allow_private, browser_path
):
    import sys

    exposed = start_server(
        server_tmp, command=[sys.executable, "-c", EXPOSED_APP.format(allow_private=allow_private)]
    )
    try:
        auth = {"Authorization": "Bearer t0ken-for-tests"}
        body = {"instruction": TASK, "url": f"{site_url}/"}
        with httpx.Client(base_url=exposed.url, headers=auth, timeout=60) as client:
            r = client.post("/api/scrape", json=body)
            s = client.post("/api/scrape/stream", json=body)
            f = client.post("/api/scrape", json={"instruction": TASK, "url": "file:///etc/hostname"})
        if allow_private:
            assert r.status_code == 200 and r.json()["ok"]
        else:
            assert r.status_code == s.status_code == 403
            assert r.json()["error"]["code"] == s.json()["error"]["code"] == "SSRF_BLOCKED_URL"
        assert f.status_code == 400 and f.json()["error"]["code"] == "BAD_URL"
    finally:
        exposed.stop()


def test_block_private_on_loopback_refuses_private_targets(guarded, site_url):
    r = httpx.post(
        guarded.url + "/api/scrape",
        json={"instruction": TASK, "url": f"{site_url}/"},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=60,
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "SSRF_BLOCKED_URL"
