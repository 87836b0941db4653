"""The browser layer as `curllm run` drives it: page loading, failures, the network policy, dialogs,
popups.

Every case ends in a clear, structured result within its time limit, with no traceback. A time limit
is shown kept by the result (the error names the limit that ended the task), not by the seconds the
command took: a loaded machine makes a command slower, not its limits different. Every command has
`curllm`'s 90 s as the bound of a hang.

The pages' cases run in this process (tests/in_process.py): the same Runner, the options parsed by
`curllm run`'s own parser, one real Chromium for the module, and the exit code the command gives
(0, or 1 when the result is not ok). The contracts of the command and its own browser run the real
`curllm`: a page's result and exit 0, a refusal before any browser starts, the screenshot and session
files written as the browser closes, no browser found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from hostile_server import start_hostile

from tests.in_process import InProcessCurllm

pytestmark = pytest.mark.browser
TOOLS = Path(__file__).parent / "tools"
PLAN = json.dumps({"plan": [{"tool": "extraction.page_info"}], "expected_output": "page"})


@pytest.fixture(scope="module")
def hostile():
    server = start_hostile()
    yield server
    server.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser, with this directory's tools."""
    curllm_here = InProcessCurllm(curllm_browser, tools_path=TOOLS)
    yield curllm_here
    await curllm_here.aclose()


class Ran:
    """What `curllm --plan - --format json ARGS` ended with: its exit code and its document."""

    def __init__(self, returncode: int, result: dict):
        self.returncode, self.result = returncode, result


async def run(here: InProcessCurllm, *args: str, plan: str = PLAN) -> Ran:
    """The task of ``curllm --plan - --format json ARGS`` (``plan`` on stdin), run in this process."""
    return Ran(*await here.run_plan(json.loads(plan), args))


def curllm(*args: str, plan: str = PLAN, env_extra: dict | None = None, timeout: float = 90, tmp: Path):
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
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", "--plan", "-", "--format", "json", *args],
        input=plan,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert "Traceback" not in out.stderr, out.stderr
    out.result = json.loads(out.stdout) if out.stdout.strip().startswith("{") else None
    return out


def assert_ended_by_the_limit(result: dict, seconds: int) -> None:
    """The task was ended by the time limit it was given (``--timeout SECONDS``), and says so: the
    task's limit, or the page load's, which is derived from it (at most the task's)."""
    error = result["errors"][0]
    assert error["code"] in ("TASK_TIMEOUT", "NAVIGATION_TIMEOUT"), error
    if error["code"] == "TASK_TIMEOUT":
        assert f"did not finish within {seconds} s (--timeout)" in error["message"], error
    else:
        took = int(error["message"].split("timed out after ", 1)[1].split(" ms", 1)[0])
        assert took <= seconds * 1000, error


def test_a_page_loads(browser_path, hostile, tmp_path):
    out = curllm("--url", f"{hostile.url}/ok", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.result["data"]["page"] == {"title": "Shop", "url": f"{hostile.url}/ok", "items": 6}


@pytest.mark.parametrize("status, attempts", [(404, 1), (500, 3)])
async def test_http_errors_fail_with_the_status(here, hostile, status, attempts):
    before = hostile.hits[f"/status/{status}"]
    out = await run(here, "--url", f"{hostile.url}/status/{status}")
    assert out.returncode == 1
    [error] = out.result["errors"]
    assert error["code"] == "HTTP_ERROR" and f"HTTP {status}" in error["message"]
    assert hostile.hits[f"/status/{status}"] - before == attempts  # 5xx is retried, 4xx is not


@pytest.mark.parametrize("path", ["/hang", "/trickle"])
async def test_a_server_that_never_finishes_ends_within_the_timeout(here, hostile, path):
    out = await run(here, "--url", f"{hostile.url}{path}", "--timeout", "4")
    assert out.returncode == 1
    assert_ended_by_the_limit(out.result, 4)


async def test_a_redirect_loop(here, hostile):
    out = await run(here, "--url", f"{hostile.url}/loop")
    assert out.returncode == 1 and "ERR_TOO_MANY_REDIRECTS" in out.result["errors"][0]["message"]


async def test_a_redirect_hop_to_a_blocked_domain_is_refused(here, hostile):
    out = await run(
        here,
        "--url",
        f"{hostile.url}/redirect?to=http://www.blocked.test/x",
        "--block-domain",
        "blocked.test",
    )
    assert out.returncode == 1
    error = out.result["errors"][0]
    assert error["code"] == "BLOCKED_URL" and "blocked.test" in error["message"]


async def test_allow_list_refuses_other_hosts_on_redirect(here, hostile):
    port = hostile.server_address[1]
    out = await run(
        here,
        "--url",
        f"{hostile.url}/redirect?to=http://localhost:{port}/ok",
        "--allow-domain",
        "127.0.0.1",
    )
    assert (
        out.result["errors"][0]["code"] == "BLOCKED_URL" and "localhost" in out.result["errors"][0]["message"]
    )


def test_block_private_refuses_loopback_before_any_request(browser_path, hostile, tmp_path):
    before = sum(hostile.hits.values())
    out = curllm("--url", f"{hostile.url}/ok", "--block-private", tmp=tmp_path)
    assert out.returncode == 1
    assert out.result["errors"][0]["code"] == "SSRF_BLOCKED_URL"
    assert sum(hostile.hits.values()) == before  # nothing reached the server
    # Refused at once: no browser started, no navigation, one attempt (a refusal is not retried).
    assert out.result["timings"]["browser_ms"] == out.result["timings"]["navigation_ms"] == 0
    assert [s["attempts"] for s in out.result["steps"]] == [1]


@pytest.mark.parametrize("address", ["10.0.0.1", "169.254.169.254"])
async def test_block_private_refuses_private_and_metadata_addresses(here, address):
    # The proxy is a closed loopback port: even a broken policy could not send traffic anywhere else.
    out = await run(
        here,
        "--url",
        f"http://{address}/latest/meta-data/",
        "--block-private",
        "--proxy",
        "http://127.0.0.1:9",
    )
    assert out.returncode == 1
    error = out.result["errors"][0]
    assert error["code"] == "SSRF_BLOCKED_URL" and address in error["message"]


async def test_dialogs_are_dismissed(here, hostile):
    out = await run(here, "--url", f"{hostile.url}/dialogs")
    assert out.returncode == 0, out.result
    assert out.result["data"]["page"]["title"] == "after dialogs"


async def test_popups_do_not_derail_the_task(here, hostile):
    out = await run(here, "--url", f"{hostile.url}/popup")
    assert out.returncode == 0, out.result
    assert out.result["data"]["page"]["title"] == "Popups"


@pytest.mark.parametrize("path, title", [("/throws", "Throws"), ("/iframes", "Frames")])
async def test_scripts_that_throw_and_iframes(here, hostile, path, title):
    out = await run(here, "--url", f"{hostile.url}{path}")
    assert out.returncode == 0 and out.result["data"]["page"]["title"] == title


async def test_a_5mb_dom_loads(here, hostile):
    out = await run(here, "--url", f"{hostile.url}/big?mb=5", "--timeout", "60")
    assert out.returncode == 0, out.result
    assert out.result["data"]["page"]["title"] == "Big" and out.result["data"]["page"]["items"] == 6


async def test_a_50mb_dom_ends_within_the_timeout(here, hostile):
    # 5 s: the limit is what is tested (the 5 MB page above loads whole); a longer one only kept
    # Chromium parsing for as long (15 s of a core before).
    out = await run(here, "--url", f"{hostile.url}/big?mb=50", "--timeout", "5")
    if out.returncode:  # too big for the time given: a structured error, not a hang
        assert out.returncode == 1
        assert_ended_by_the_limit(out.result, 5)
    else:
        assert out.result["data"]["page"]["items"] == 6


async def test_local_files_by_path_and_file_url(here, tmp_path):
    page = tmp_path / "page.html"
    page.write_text('<title>Local</title><li class="item">a</li>')
    for target in (str(page), page.as_uri()):
        out = await run(here, "--url", target)
        assert out.returncode == 0 and out.result["data"]["page"]["title"] == "Local"


def test_screenshot_on_failure_and_session_file(browser_path, hostile, tmp_path):
    failing = json.dumps(
        {
            "plan": [
                {"tool": "extraction.page_info"},
                {
                    "tool": "validation.required_fields",
                    "parameters": {"fields": ["x"], "key": "nothing", "mode": "fail"},
                },
            ]
        }
    )
    shots, session = tmp_path / "shots", tmp_path / "state.json"
    out = curllm(
        "--url",
        f"{hostile.url}/ok",
        "--screenshots",
        str(shots),
        "--session",
        str(session),
        plan=failing.replace('"key": "nothing", ', ""),
        tmp=tmp_path,
    )
    del out
    out = curllm(
        "--url",
        f"{hostile.url}/ok",
        "--screenshots",
        str(shots),
        "--session",
        str(session),
        plan=json.dumps(
            {
                "plan": [
                    {"tool": "extraction.page_info"},
                    {
                        "tool": "validation.required_fields",
                        "parameters": {"fields": ["x"], "mode": "fail", "key": "page"},
                    },
                ]
            }
        ),
        tmp=tmp_path,
    )
    assert out.returncode == 1
    assert list(shots.glob("*.png")), "a screenshot of the failed step"
    assert json.loads(session.read_text()).keys() >= {"cookies", "origins"}


def test_no_browser_found_exits_2_naming_the_fix(hostile, tmp_path):
    out = curllm(
        "--url", f"{hostile.url}/ok", env_extra={"CURLLM_BROWSER": str(tmp_path / "none")}, tmp=tmp_path
    )
    assert out.returncode == 2
    assert "apt-get install chromium-headless-shell" in out.stderr and "CURLLM_BROWSER" in out.stderr


async def test_a_dns_failure_is_not_retried(here):
    out = await run(here, "--url", "http://curllm-test.invalid/")
    assert out.returncode == 1
    assert "ERR_NAME_NOT_RESOLVED" in out.result["errors"][0]["message"]
    assert out.result["steps"][0]["attempts"] == 1
