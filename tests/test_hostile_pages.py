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

from tests.warm_cache import fresh_cache

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
    env.update(CURLLM_CACHE_DIR=str(fresh_cache(tmp / "cache")), CURLLM_LOAD_PLUGINS="")
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
    assert sorted(x["id"] for x in first) == ["t0", "t1"]  # tasks run concurrently: finishing order
    check_lone_product(first[0]["data"]["product"], url)
    tasks.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = curllm("batch", str(tasks), "--out", str(results), "--resume", "--no-progress", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "2 skipped, already in" in out.stderr
    done = [strict_json(x)["id"] for x in results.read_text(encoding="utf-8").splitlines()]
    assert sorted(done[:2]) == ["t0", "t1"] and done[2] == "t2"
    out = curllm("batch", str(tasks), "--no-progress", tmp=tmp_path)  # to stdout
    assert out.returncode == 0 and all(strict_json(x)["ok"] for x in out.stdout.splitlines())


# --- every navigation under one rule: a web page never makes curllm open a local file -------------------

MAP_PLAN = {
    "plan": [
        {"tool": "extraction.products_generic"},
        {"map": {"over": "products", "open": "{item.url}", "steps": [{"tool": "extraction.product_detail"}]}},
    ]
}


@pytest.fixture
def secret(tmp_path) -> Path:
    page = tmp_path / "secret.html"
    page.write_text(
        # A product's page (a name and a price), so that a product reader opening it says the marker.
        "<html><head><title>SECRET-MARKER</title></head><body><h1>SECRET-MARKER</h1>"
        '<p class="price">12,00 zł</p></body></html>'
    )
    return page


@pytest.mark.parametrize("options", [[], ["--allow-domain", "127.0.0.1"]], ids=["no-policy", "allow-domain"])
def test_a_listing_linking_to_local_files_never_opens_them(tmp_path, hostile, secret, options):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(MAP_PLAN))
    url = f"{hostile.url}/links-to?to={secret.as_uri()}"
    out = curllm("--plan", str(plan), "--url", url, "--format", "json", *options, tmp=tmp_path)
    assert "SECRET-MARKER" not in out.stdout + out.stderr
    result = strict_json(out.stdout)
    report = next(s for s in result["steps"] if s["tool"] == "map")["result"]["map"]
    assert report["run"] == 6 and report["failed"] == 6, report
    assert out.returncode == 1 and [e["code"] for e in result["errors"]] == ["MAP_FAILED"], result["errors"]
    assert "all 6 items failed" in result["errors"][0]["message"]
    assert "opens only web pages" in result["errors"][0]["message"]


def test_a_tools_own_goto_follows_the_same_rule(tmp_path, hostile, secret):
    """category_select loads a hidden entry's address itself (page.goto): a local file is refused."""
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps({"plan": [{"tool": "navigation.category_select", "parameters": {"path": ["Lamps"]}}]})
    )
    url = f"{hostile.url}/links-to?to={secret.as_uri()}"
    out = curllm("--plan", str(plan), "--url", url, "--format", "json", tmp=tmp_path)
    assert "SECRET-MARKER" not in out.stdout + out.stderr
    result = strict_json(out.stdout)
    assert out.returncode == 1 and result["errors"][0]["code"] == "BLOCKED_URL", result["errors"]


def test_a_task_started_on_a_local_file_may_open_local_files(tmp_path, secret):
    listing = tmp_path / "listing.html"
    items = "".join(
        f'<li class="item"><a href="secret.html#{i}">Product {i}</a> <span class="price">{40 * i + 9},00 zł</span></li>'
        for i in range(1, 7)
    )
    listing.write_text(f'<html><body><h1>Shop</h1><ul class="items">{items}</ul></body></html>')
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(MAP_PLAN))
    out = curllm("--plan", str(plan), "--url", str(listing), "--format", "json", tmp=tmp_path)
    result = strict_json(out.stdout)
    report = next(s for s in result["steps"] if s["tool"] == "map")["result"]["map"]
    assert report["failed"] == 0 and report["run"] == 6, result
    assert "SECRET-MARKER" in out.stdout  # the user's own files, as the user asked


def test_link_local_targets_are_refused_by_default_without_traffic(tmp_path):
    out = curllm("find products", "--url", "http://169.254.169.254/latest/meta-data/", tmp=tmp_path)
    assert out.returncode != 0 and "SSRF_BLOCKED_URL" in out.stderr and "--allow-link-local" in out.stderr


def test_curllm_run_without_a_timeout_stops_at_its_default_limit(tmp_path, hostile):
    # The real command in its own process, with its default (600 s) lowered to 4 s for the test;
    # the page never answers, so only the default limit can end the run.
    code = "import curllm_core.cli.run as run; run.DEFAULT_TIMEOUT_S = 4.0; from curllm_core.cli import main; main()"
    args = ["find products", "--url", f"{hostile.url}/hang", "--format", "json"]
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=cli_env(tmp_path),
        timeout=120,
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode != 0 and "TASK_TIMEOUT" in out.stderr, (out.stdout, out.stderr)
    assert "did not finish within 4 s" in out.stderr, out.stderr  # the limit, not what was left of it
    # With --timeout the option's value stands instead.
    out = subprocess.run(
        [sys.executable, "-c", code, *args, "--timeout", "2"],
        capture_output=True,
        text=True,
        env=cli_env(tmp_path),
        timeout=120,
    )
    assert "TASK_TIMEOUT" in out.stderr and "did not finish within 2 s" in out.stderr, out.stderr
