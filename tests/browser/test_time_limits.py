"""Time limits hold against pages that never give the thread back, through the real CLI.

A page stuck in JavaScript answers no call that runs in it (evaluate, storage state): every such
call has a limit, so `run` and `batch` end near --timeout, with --session as without it: ended by
the limit given, as their results say (a command's own bound, 120 s, is a hang's).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_server import start_hostile

from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser
TOOLS = Path(__file__).parent / "tools"
PLAN = {"plan": [{"tool": "extraction.page_info"}], "expected_output": "page"}


@pytest.fixture(scope="module")
def hostile():
    server = start_hostile()
    yield server
    server.stop()


def run(args: list[str], tmp: Path, stdin: str | None = None, timeout: float = 120):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(
        # The session's cache (tests/conftest.py): the manifests checked once, not by each command.
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_TOOLS_PATH": str(TOOLS),
            "CURLLM_CACHE_DIR": os.environ["CURLLM_CACHE_DIR"],
        }
    )
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_a_stuck_page_with_session_ends_near_the_timeout(browser_path, hostile, tmp_path):
    session = tmp_path / "state.json"
    reached = hostile.hits["/busy"]
    out = run(
        [
            "--plan",
            "-",
            "--format",
            "json",
            "--url",
            f"{hostile.url}/busy",
            "--timeout",
            "8",
            "--session",
            str(session),
        ],
        tmp_path,
        stdin=json.dumps(PLAN),
    )
    assert out.returncode == 1
    result = json.loads(out.stdout)
    assert result["errors"][0]["code"] == "TASK_TIMEOUT"
    # Ended by its 8 s, then the session saved within the save's own limit and the browser closed:
    # the command ended by itself (its bound, 120 s, is a hang's), said by the result, not timed.
    # 8 s, not 4: the limit counts the browser's start too, which a loaded machine can stretch past
    # 4 s (the task then ends before any page, with no session to save); the page was reached.
    assert "did not finish within 8 s" in result["errors"][0]["message"]
    assert hostile.hits["/busy"] > reached, "the stuck page was never reached"
    assert session.exists(), out.stderr
    assert json.loads(session.read_text())["cookies"] == []  # the cookies were still saved


def test_a_batch_of_stuck_pages_with_session_ends(browser_path, hostile, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps({"id": f"t{i}", "url": f"{hostile.url}/busy", "plan": PLAN}) + "\n" for i in range(3)
        )
    )
    results, session = tmp_path / "results.jsonl", tmp_path / "state.json"
    out = run(
        ["batch", str(tasks), "--out", str(results), "--timeout", "4", "--session", str(session), "-j", "3"],
        tmp_path,
    )
    assert out.returncode == 1, out.stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == ["t0", "t1", "t2"]
    assert all(line["errors"][0]["code"] == "TASK_TIMEOUT" for line in lines)
    assert all("did not finish within 4 s" in line["errors"][0]["message"] for line in lines)
    json.loads(session.read_text())  # whole, never half written by concurrent tasks


def test_a_catastrophic_pattern_from_a_plan_is_stopped(browser_path, tmp_path):
    page = tmp_path / "links.html"
    page.write_text(
        "<title>Links</title>"
        + "".join(f'<a href="https://example.com/{"a" * 3000}{i}!">link {i}</a>' for i in range(50))
    )
    plan = {
        "plan": [{"tool": "extraction.links_by_pattern", "parameters": {"pattern": "(a+)+$"}}],
        "expected_output": "links",
    }
    out = run(
        ["--plan", "-", "--format", "json", "--url", str(page), "--timeout", "60"], tmp_path, json.dumps(plan)
    )
    assert out.returncode == 1
    result = json.loads(out.stdout)
    step = result["steps"][0]
    assert not step["success"] and step["code"] == "BAD_PARAMS", step
    # The budget stopped it (2 s), long before --timeout (60 s would end it in TASK_TIMEOUT).
    assert "(a+)+$" in step["error"] and "took more than 2 s" in step["error"]
    assert all(e["code"] != "TASK_TIMEOUT" for e in result["errors"])


def test_a_step_that_burns_the_cpu_past_its_limit_does_not_succeed(tmp_path):
    plan = {"plan": [{"tool": "misbehaving", "parameters": {"how": "burn"}}], "expected_output": "products"}
    out = run(["--plan", "-", "--format", "json"], tmp_path, json.dumps(plan))
    assert out.returncode == 1
    step = json.loads(out.stdout)["steps"][0]
    assert not step["success"] and step["code"] == "STEP_TIMEOUT"
    assert "did not finish within 1000 ms (it took 3" in step["error"]
    assert step["attempts"] == 1  # burning again would take as long


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def test_tasks_in_flight_when_the_browser_crashes_run_again_on_resume(browser_path, hostile, tmp_path):
    import signal

    # Both pages are held (a gate) until the browser is gone; opened then, they answer the resume at once.
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps({"id": f"t{i}", "url": f"{hostile.url}/gate?name=crash", "plan": PLAN}) + "\n"
            for i in range(2)
        )
    )
    reached = hostile.hits["/gate"]
    results = tmp_path / "results.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_TOOLS_PATH": str(TOOLS),
            "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "c")),
        }
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "curllm_core", "batch", str(tasks), "--out", str(results), "-j", "2"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90  # the batch's start, stretched on a loaded machine
        while hostile.hits["/gate"] - reached < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert hostile.hits["/gate"] - reached == 2, "the tasks never reached their pages"
        browsers = [
            p
            for p in _descendants(proc.pid)
            if "chrom" in open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace")
        ]
        assert browsers, "no browser process found"
        for pid in browsers:  # the browser this batch started, killed as a crash would
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=90)
    finally:
        hostile.open_gate("crash")
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == ["t0", "t1"]
    assert all(line["errors"][0]["code"] == "BROWSER_CRASHED" for line in lines), lines
    assert "--resume" in stderr and proc.returncode == 1
    out = run(["batch", str(tasks), "--out", str(results), "--resume"], tmp_path)
    assert out.returncode == 0, out.stderr  # both run again, on a new browser, and succeed
    final = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(line["id"] for line in final if line["ok"]) == ["t0", "t1"]
