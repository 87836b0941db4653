"""Hostile input, part three, through the real CLI and batch: page data no JSON may hold (lone UTF-16
surrogates, 1e309, NaN), task defaults that bound a run, the network rules of every navigation.

Against the hostile server on 127.0.0.1 (tests/hostile_server.py), one per module. Each case ends in
a clear outcome: valid JSON with the unwritable part replaced (U+FFFD, ``null``), a recorded error,
never a traceback or a dead batch. The server and MCP cases are in tests/server/test_hostile.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_server import start_hostile

pytestmark = pytest.mark.browser
PRODUCT_PLAN = {"plan": [{"tool": "extraction.product_detail"}]}


@pytest.fixture(scope="module")
def hostile():
    server = start_hostile()
    yield server
    server.stop()


def strict_json(text: str):
    """JSON as the standard has it: ``Infinity``/``NaN`` are not JSON."""

    def refuse(word: str):
        raise AssertionError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def cli_env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CURLLM_", "OPENAI_"))}
    env.update(CURLLM_CACHE_DIR=str(tmp / "cache"), CURLLM_LOAD_PLUGINS="")
    return env


def curllm(*args: str, tmp: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        capture_output=True,
        text=True,
        env=cli_env(tmp),
        timeout=timeout,
        encoding="utf-8",
    )
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    return out


def check_lone_product(product: dict, url: str) -> None:
    assert product["name"] == "Lamp \ufffd" and product["description"] == "Half \ufffd an emoji"
    assert product["price"] is None and product["rating"] is None  # NaN and 1e309: no number
    assert product["currency"] == "PLN" and product["reviews"] == 3 and product["url"] == url


def test_lone_surrogates_and_infinite_numbers_from_a_page_come_out_as_json(tmp_path, hostile):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PRODUCT_PLAN))
    events = tmp_path / "events.jsonl"
    url = f"{hostile.url}/lone"
    out = curllm("--plan", str(plan), "--url", url, "--format", "json", "--events", str(events), tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    result = strict_json(out.stdout)
    check_lone_product(result["data"]["product"], url)
    written = [strict_json(line) for line in events.read_text(encoding="utf-8").splitlines()]
    titles = [e["data"].get("title") for e in written if e["type"] == "url_complete"]
    assert "Lamp \ufffd" in titles  # the title the page's script set
    out = curllm("--plan", str(plan), "--url", url, "--format", "table", tmp=tmp_path)
    assert out.returncode == 0 and "Lamp \ufffd" in out.stdout, out.stderr


def test_a_lone_surrogate_never_stops_a_batch_and_resume_reads_it_back(tmp_path, hostile):
    url = f"{hostile.url}/lone"
    tasks = tmp_path / "tasks.jsonl"
    lines = [{"id": f"t{i}", "url": url, "plan": PRODUCT_PLAN} for i in range(3)]
    tasks.write_text("\n".join(json.dumps(x) for x in lines[:2]) + "\n")
    results = tmp_path / "out.jsonl"
    out = curllm("batch", str(tasks), "--out", str(results), "--no-progress", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    first = [strict_json(x) for x in results.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in first] == ["t0", "t1"]
    check_lone_product(first[0]["data"]["product"], url)
    tasks.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = curllm("batch", str(tasks), "--out", str(results), "--resume", "--no-progress", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "2 skipped, already in" in out.stderr
    assert [strict_json(x)["id"] for x in results.read_text(encoding="utf-8").splitlines()] == [
        "t0",
        "t1",
        "t2",
    ]
    out = curllm("batch", str(tasks), "--no-progress", tmp=tmp_path)  # to stdout
    assert out.returncode == 0 and all(strict_json(x)["ok"] for x in out.stdout.splitlines())
