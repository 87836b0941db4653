"""The network policy under attack, as `curllm run` enforces it, against servers on 127.0.0.1.

The policy cases run in this process (tests/in_process.py): the same Runner, the options parsed by
`curllm run`'s own parser and made as the command makes them, one real Chromium for the module (a
policed context gets the browser's egress proxy, as each CLI process's browser does). The CLI's own
contracts (a refusal's exit code and stderr line, a bad domain value's exit 2, what a secret may
appear in) run the real `curllm` command.

Every case checks the server's request log: a host the policy refuses never receives a request,
whatever the spelling of the URL, the hop of the redirect chain or the kind of request. Names that
do not resolve (``allowed.test``, ``bücher.example``) are reached by giving the counting server as
``--proxy``: curllm's egress proxy checks each request and then hands it to that server, which
logs the host it was meant for.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from hostile_server import start_hostile

from curllm_core.egress import basic_auth
from curllm_core.errors import UsageError
from tests.in_process import InProcessCurllm, cli_run_options

pytestmark = pytest.mark.browser
TOOLS = Path(__file__).parent / "tools"
PLAN = json.dumps({"plan": [{"tool": "extraction.page_info"}], "expected_output": "page"})


@pytest.fixture(scope="module")
def hostile():
    server = start_hostile()
    yield server
    server.stop()


class Listener:
    """A raw TCP (or UDP) listener on 127.0.0.1 that counts what reaches it."""

    def __init__(self, udp: bool = False):
        kind = socket.SOCK_DGRAM if udp else socket.SOCK_STREAM
        self.sock = socket.socket(socket.AF_INET, kind)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        if not udp:
            self.sock.listen()
        threading.Thread(target=self._udp if udp else self._tcp, daemon=True).start()

    def _tcp(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.received.append(conn.recv(200) or b"(connected)")
            except OSError:
                self.received.append(b"(connected)")
            conn.close()

    def _udp(self) -> None:
        while True:
            try:
                data, _ = self.sock.recvfrom(4096)
            except OSError:
                return
            self.received.append(data)

    def close(self) -> None:
        self.sock.close()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser, with this directory's tools."""
    curllm_here = InProcessCurllm(curllm_browser, tools_path=TOOLS)
    yield curllm_here
    await curllm_here.aclose()


@dataclass
class Ran:
    """What `curllm --plan - --format json ARGS` ended with: its exit code and its document."""

    returncode: int
    result: dict[str, Any]


async def run(here: InProcessCurllm, *args: str, plan: str = PLAN) -> Ran:
    """The task of ``curllm --plan - --format json ARGS`` (``plan`` on stdin), run in this process."""
    return Ran(*await here.run_plan(json.loads(plan), args))


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


def curllm(*args: str, plan: str = PLAN, timeout: float = 90, tmp: Path, env_extra: dict | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_TOOLS_PATH": str(TOOLS),
            # The session's cache (tests/conftest.py): the manifests are checked by the first
            # command, not by each (a cold cache costs a command 0.4 s of its 2 s of CPU).
            "CURLLM_CACHE_DIR": os.environ["CURLLM_CACHE_DIR"],
            **(env_extra or {}),
        }
    )
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", "--plan", "-", "--format", "json", *args],
        input=plan,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    out.seconds = time.monotonic() - started
    assert "Traceback" not in out.stderr, out.stderr
    out.result = json.loads(out.stdout) if out.stdout.strip().startswith("{") else None
    return out


def blocked(out, code: str = "BLOCKED_URL", *words: str) -> None:
    """The run failed because the policy refused a request, and says so (not EMPTY_OUTPUT)."""
    assert out.returncode == 1, (out.result, getattr(out, "stderr", None))
    error = out.result["errors"][0]
    assert error["code"] == code, out.result["errors"]
    for word in words:
        assert word in error["message"], error["message"]


# --- redirects --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "location",
    [
        "http:\\\\localhost:{port}\\x",  # backslashes: a path to urljoin, a host to Chromium
        "http:/\\/localhost:{port}/x",
        "\\\\localhost:{port}/x",  # scheme-relative, with backslashes
        "http://LOCALHOST.:{port}/x",  # case and a trailing dot
        "http://loc\talhost:{port}/x",  # a tab inside the host is removed
        "http://user@127.0.0.1:{port}@localhost:{port}/x",  # userinfo ends at the last @
        "http://loc%61lhost:{port}/x",  # percent-encoded host
    ],
)
async def test_a_redirect_to_a_blocked_host_is_refused_however_it_is_spelled(here, hostile, location):
    before = len(hostile.requests_to("localhost"))
    to = quote(location.format(port=hostile.port), safe="")
    out = await run(here, "--url", f"{hostile.url}/redirect?to={to}", "--block-domain", "localhost")
    blocked(out, "BLOCKED_URL", "localhost")
    assert len(hostile.requests_to("localhost")) == before, "a blocked host received a request"


async def test_ipv4_spellings_are_read_as_the_address(here, hostile):
    before = len(hostile.requests_to("127.0.0.1"))
    start = f"http://localhost:{hostile.port}"
    for spelling in ("0x7f.1", "2130706433", "0177.0.0.1", "127.1"):
        to = quote(f"http://{spelling}:{hostile.port}/x", safe="")
        out = await run(here, "--url", f"{start}/redirect?to={to}", "--block-domain", "127.0.0.1")
        blocked(out, "BLOCKED_URL", "127.0.0.1")
    assert len(hostile.requests_to("127.0.0.1")) == before


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_every_hop_of_a_chain_is_checked(here, hostile, status):
    # allowed -> allowed -> blocked: the second hop's target is only known to the browser.
    second = quote(f"http://localhost:{hostile.port}/x", safe="")
    first = quote(f"/redirect?to={second}&status={status}", safe="")
    out = await run(
        here,
        "--url",
        f"{hostile.url}/redirect?to={first}&status={status}",
        "--block-domain",
        "localhost",
    )
    blocked(out, "BLOCKED_URL", "localhost")
    assert not [r for r in hostile.requests_to("localhost") if r[2] == "/x"]


async def test_a_hop_whose_body_is_broken_is_still_checked(here, hostile):
    # The old check fetched the hop itself, failed on the garbage body and let the browser go on.
    # Now: the hop that cannot be read fails closed (or, when the browser reads the redirect, its
    # target is refused), and the redirect is requested once per attempt, never again behind it.
    to = quote(f"http://localhost:{hostile.port}/gz", safe="")
    before = hostile.hits["/gz302"]
    out = await run(here, "--url", f"{hostile.url}/gz302?to={to}", "--block-domain", "localhost")
    assert out.returncode == 1
    assert out.result["errors"][0]["code"] in ("BLOCKED_URL", "NAVIGATION_FAILED"), out.result["errors"]
    assert not [r for r in hostile.requests_to("localhost") if r[2] == "/gz"]
    assert hostile.hits["/gz302"] - before == out.result["steps"][0]["attempts"]


async def test_each_request_is_sent_once(here, hostile):
    # /switch answers the first request with a harmless redirect and later ones with a hostile one:
    # a checker that fetches a chain and lets the browser fetch it again sees the first only.
    hostile.hits["/switch"] = 0
    to = quote(f"http://localhost:{hostile.port}/hostile", safe="")
    switch = quote(f"/switch?to={to}", safe="")
    out = await run(here, "--url", f"{hostile.url}/redirect?to={switch}", "--block-domain", "localhost")
    assert out.returncode == 0, out.result
    assert out.result["data"]["page"]["title"] == "Shop"
    assert hostile.hits["/switch"] == 1
    assert not [r for r in hostile.requests_to("localhost") if r[2] == "/hostile"]


async def test_a_form_post_is_sent_once_and_its_redirect_checked(here, hostile):
    before = hostile.hits["POST /post"]
    out = await run(here, "--url", f"{hostile.url}/post-form?to=/ok", "--block-domain", "blocked.test")
    assert out.returncode == 0, out.result
    assert out.result["data"]["page"]["title"] == "Shop"
    assert hostile.hits["POST /post"] - before == 1

    before = hostile.hits["POST /post"]
    to = quote(f"http://localhost:{hostile.port}/after-post", safe="")
    out = await run(here, "--url", f"{hostile.url}/post-form?to={to}", "--block-domain", "localhost")
    blocked(out, "BLOCKED_URL", "localhost")
    assert hostile.hits["POST /post"] - before == 1
    assert not [r for r in hostile.requests_to("localhost") if r[2] == "/after-post"]


async def test_a_redirect_off_the_allow_list_to_a_name_that_does_not_resolve(here, hostile):
    # The counting server is the upstream proxy: it logs the host each request was meant for.
    to = quote("http://evil.test/x", safe="")
    out = await run(
        here,
        "--url",
        f"http://allowed.test/redirect?to={to}",
        "--allow-domain",
        "allowed.test",
        "--proxy",
        hostile.url,
    )
    blocked(out, "BLOCKED_URL", "evil.test")
    assert hostile.requests_to("allowed.test") and not hostile.requests_to("evil.test")


async def test_block_private_refuses_a_redirect_from_a_public_address(here, hostile):
    to = quote(f"http://127.0.0.1:{hostile.port}/private", safe="")
    out = await run(
        here,
        "--url",
        f"http://93.184.216.34/redirect?to={to}",
        "--block-private",
        "--proxy",
        hostile.url,
    )
    blocked(out, "SSRF_BLOCKED_URL", "127.0.0.1")
    assert hostile.requests_to("93.184.216.34")
    assert not [r for r in hostile.log if r[2] == "/private"]


@pytest.mark.parametrize(
    "block, target",
    [
        ("bücher.example", "http://xn--bcher-kva.example/x"),
        ("xn--bcher-kva.example", "http://b%C3%BCcher.example/x"),
    ],
)
async def test_international_names_match_their_punycode(here, hostile, block, target):
    out = await run(
        here,
        "--url",
        f"http://allowed.test/redirect?to={quote(target, safe='')}",
        "--block-domain",
        block,
        "--proxy",
        hostile.url,
    )
    blocked(out, "BLOCKED_URL", "xn--bcher-kva.example")
    assert not hostile.requests_to("xn--bcher-kva.example")
    # The start URL itself, in the other spelling: refused before a browser starts.
    other = "http://bücher.example/" if block.startswith("xn--") else "http://xn--bcher-kva.example/"
    out = await run(here, "--url", other, "--block-domain", block, "--proxy", hostile.url)
    blocked(out, "BLOCKED_URL", "xn--bcher-kva.example")
    assert out.result["timings"]["browser_ms"] == 0


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--block-domain", "localhost:8080", ["has a port", "did you mean localhost?"]),
        ("--block-domain", "http://x.test", ["is a URL", "did you mean x.test?"]),
        ("--allow-domain", "https://x.test/path", ["is a URL"]),
        ("--block-domain", "*.x.test", ["no wildcards"]),
        ("--allow-domain", "x.test/y", ["not a domain name"]),
    ],
)
def test_domain_values_that_are_not_domains_are_bad_usage(option, value, words):
    # `curllm run`'s parser and options: the error the CLI reports as exit 2 (the CLI test below).
    with pytest.raises(UsageError) as refused:
        cli_run_options(["--url", "http://127.0.0.1:9/ok", option, value])
    assert refused.value.code == "BAD_USAGE" and refused.value.exit_code == 2
    assert value in str(refused.value)
    for word in words:
        assert word in str(refused.value)


def test_a_domain_value_that_is_not_a_domain_exits_2_from_the_cli(hostile, tmp_path):
    out = curllm("--url", f"{hostile.url}/ok", "--block-domain", "localhost:8080", tmp=tmp_path)
    assert out.returncode == 2, out.stdout
    assert "curllm: error [BAD_USAGE]" in out.stderr and "localhost:8080" in out.stderr
    assert "has a port" in out.stderr and "did you mean localhost?" in out.stderr


def test_a_refused_redirect_from_the_cli_exits_1_and_says_so(browser_path, hostile, tmp_path):
    # The CLI's side of a refusal: exit 1, the error in the document and on stderr; no request.
    before = len(hostile.requests_to("localhost"))
    to = quote(f"http://LOCALHOST.:{hostile.port}/x", safe="")
    out = curllm("--url", f"{hostile.url}/redirect?to={to}", "--block-domain", "localhost", tmp=tmp_path)
    blocked(out, "BLOCKED_URL", "localhost")
    assert "curllm: error [BLOCKED_URL]: " in out.stderr and "localhost" in out.stderr, out.stderr
    assert len(hostile.requests_to("localhost")) == before, "a blocked host received a request"


# --- every kind of request -------------------------------------------------------------------


@pytest.mark.parametrize(
    "policy", [["--block-domain", "localhost"], ["--allow-domain", "127.0.0.1"]], ids=["block", "allow"]
)
async def test_every_request_kind_of_a_page_goes_through_the_policy(
    here, hostile, listener, tmp_path, policy
):
    target = f"http://localhost:{hostile.port}"
    ws = f"ws://localhost:{listener.port}"
    before = len(hostile.requests_to("localhost"))
    out = await run(
        here,
        "--url",
        f"{hostile.url}/kinds?target={quote(target)}&ws={quote(ws)}",
        *policy,
        plan=json.dumps(
            {
                "plan": [
                    {"tool": "extraction.page_info"},
                    {"tool": "extraction.page_info", "parameters": {"wait_ms": 2500}},
                ],
                "expected_output": "page",
            }
        ),
    )
    assert out.returncode == 0, out.result  # blocked subresources do not fail the task
    assert out.result["data"]["page"]["title"] == "Kinds"
    assert hostile.requests_to("localhost")[before:] == [], "a blocked host received a request"
    assert listener.received == [], "a blocked WebSocket connected"
    assert any(path == "/sw.js" for _, _, path in hostile.log), "the service worker was not even tried"


@pytest.mark.parametrize(
    "policy",
    [["--block-private"], ["--block-domain", "127.0.0.1"], ["--allow-domain", "example.com"]],
    ids=["private", "block", "allow"],
)
async def test_a_local_file_page_reaches_nothing_the_policy_refuses(
    here, hostile, listener, tmp_path, policy
):
    udp = Listener(udp=True)
    page = tmp_path / "local.html"
    page.write_text(
        "<title>Local</title><li class='item'>a</li><script>"
        f"new WebSocket('ws://127.0.0.1:{listener.port}/');"
        f"fetch('http://127.0.0.1:{hostile.port}/from-file').catch(() => 0);"
        "const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:" + str(udp.port) + "'}]});"
        "pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o));"
        "</script>"
    )
    try:
        out = await run(
            here,
            "--url",
            str(page),
            *policy,
            plan=json.dumps(
                {
                    "plan": [{"tool": "extraction.page_info", "parameters": {"wait_ms": 2000}}],
                    "expected_output": "page",
                }
            ),
        )
        assert out.returncode == 0, out.result
        assert listener.received == [], "the WebSocket reached the loopback server"
        assert not [r for r in hostile.log if r[2] == "/from-file"]
        assert udp.received == [], "WebRTC sent UDP around the policy"
    finally:
        udp.close()


async def test_without_a_policy_the_same_page_does_connect(here, hostile, listener, tmp_path):
    """The control case: the listeners above do see traffic when nothing is refused."""
    page = tmp_path / "local.html"
    page.write_text(
        f"<title>Local</title><script>new WebSocket('ws://127.0.0.1:{listener.port}/');"
        f"fetch('http://127.0.0.1:{hostile.port}/from-file-allowed').catch(() => 0);</script>"
    )
    plan = json.dumps(
        {
            "plan": [{"tool": "extraction.page_info", "parameters": {"wait_ms": 1500}}],
            "expected_output": "page",
        }
    )
    out = await run(here, "--url", str(page), "--block-domain", "other.test", plan=plan)
    assert out.returncode == 0, out.result
    assert listener.received and [r for r in hostile.log if r[2] == "/from-file-allowed"]


# --- secrets --------------------------------------------------------------------------------------


def test_a_session_cookie_a_page_shows_is_scrubbed(browser_path, hostile, tmp_path):
    secret = "sessionSECRET-4f2a9c77e1"
    session = tmp_path / "state.json"
    session.write_text(
        json.dumps(
            {
                "cookies": [
                    {
                        "name": "sid",
                        "value": secret,
                        "domain": "127.0.0.1",
                        "path": "/",
                        "expires": -1,
                        "httpOnly": False,
                        "secure": False,
                        "sameSite": "Lax",
                    }
                ],
                "origins": [],
            }
        )
    )
    events = tmp_path / "events.jsonl"
    out = curllm(
        "--url",
        f"{hostile.url}/echo-cookie",
        "--session",
        str(session),
        "--events",
        str(events),
        tmp=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.result["data"]["page"]["title"] == "Cookie sid=***"  # the page did get it
    assert secret not in out.stdout + out.stderr + events.read_text()
    assert secret in session.read_text()  # the session file itself keeps it, of course


@pytest.mark.parametrize("target", ["file:///etc/passwd", "data:text/html,<title>x</title>"])
async def test_a_redirect_to_a_local_scheme_fails_once_and_is_not_retried(here, hostile, target):
    before = hostile.hits["/redirect"]
    out = await run(here, "--url", f"{hostile.url}/redirect?to={quote(target, safe='')}")
    assert out.returncode == 1
    error, step = out.result["errors"][0], out.result["steps"][0]
    assert error["code"] == "NAVIGATION_FAILED" and "ERR_UNSAFE_REDIRECT" in error["message"]
    assert step["attempts"] == 1 and hostile.hits["/redirect"] - before == 1


# --- link-local targets reached through redirects, without a policy ----------------------------


async def test_a_redirect_hop_to_a_link_local_address_is_refused_without_a_policy(here, hostile):
    # No policy is given, so there is no egress proxy: the counting server is the browser's own
    # --proxy and logs the host each request was meant for; nothing goes to 169.254.169.254.
    last = quote("http://169.254.169.254/latest/meta-data/", safe="")
    middle = quote(f"http://middle.test/redirect?to={last}", safe="")
    start = f"http://allowed.test/redirect?to={middle}"
    out = await run(here, "--url", start, "--proxy", hostile.url)
    blocked(out, "SSRF_BLOCKED_URL", "169.254.169.254", "--allow-link-local")
    assert hostile.requests_to("middle.test"), "the first hop was followed"
    assert not hostile.requests_to("169.254.169.254")
    # Allowed on purpose, the same chain reaches it (still through the counting server).
    out = await run(here, "--url", start, "--proxy", hostile.url, "--allow-link-local")
    assert hostile.requests_to("169.254.169.254"), out.result


async def test_the_users_proxy_credentials_go_to_the_users_proxy_and_nowhere_else(here):
    upstream = start_hostile()  # an authenticated proxy that serves every page itself
    upstream.require_proxy_auth = basic_auth("user", "pa:ss")
    proxy = f"http://user:pa%3Ass@127.0.0.1:{upstream.port}"
    start = f"http://shop.test/redirect?to={quote('http://other.test/ok', safe='')}"
    try:
        # Through the egress proxy (the default), and straight from Chromium (nothing to check).
        for extra in ([], ["--allow-link-local"]):
            before = len(upstream.requests_to("other.test"))
            out = await run(here, "--url", start, "--proxy", proxy, *extra)
            assert out.returncode == 0, (extra, out.result)
            assert out.result["data"]["page"]["title"] == "Shop"
            assert len(upstream.requests_to("other.test")) > before, "the redirect was not followed"
    finally:
        upstream.stop()
    # Sent to the proxy as the proxy's, never inside a tunnel to a site, never another value.
    assert upstream.proxy_auth and set(upstream.proxy_auth) == {(True, upstream.require_proxy_auth)}
