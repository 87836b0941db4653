"""`curllm batch` in a subprocess: formats, exit codes, SIGKILL and resume, a torn line, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter

import pytest

from .conftest import cli_env, read_lines, run_batch, sleep_task, start_batch, wait_for_lines, write_jsonl

PRICE_PLAN = [{"tool": "validation.price_range_check", "parameters": {"max": 150}}]
PRODUCTS = {"products": [{"name": "Kubek", "price": 39}, {"name": "Czajnik", "price": 189.99}]}


@pytest.fixture
def env(tmp_path, tools_dir):
    return cli_env(tmp_path, tools_dir)


def ids(lines: list[dict]) -> Counter:
    return Counter(x["id"] for x in lines)


def test_jsonl_to_stdout_with_the_spec_example(tmp_path, env):
    tasks = write_jsonl(
        tmp_path / "tasks.jsonl",
        [
            {"id": "cheap", "plan": PRICE_PLAN, "expected_output": "products", "data": PRODUCTS},
            {
                "id": "none",
                "plan": PRICE_PLAN,
                "expected_output": "products",
                "data": {"products": [PRODUCTS["products"][1]]},
            },
        ],
    )
    out = run_batch(str(tasks), "--no-progress", env=env)
    assert out.returncode == 1, out.stderr
    lines = {x["id"]: x for x in map(json.loads, out.stdout.splitlines())}
    assert lines["cheap"]["ok"] and lines["cheap"]["data"]["products"] == [{"name": "Kubek", "price": 39}]
    assert not lines["none"]["ok"] and lines["none"]["errors"][0]["code"] == "EMPTY_OUTPUT"
    assert "2 task(s): 1 ok, 1 failed" in out.stderr and "EMPTY_OUTPUT" in out.stderr
    assert "Traceback" not in out.stderr


def test_yaml_csv_and_stdin(tmp_path, env):
    (tmp_path / "plan.json").write_text(json.dumps({"plan": PRICE_PLAN, "expected_output": "products"}))
    yaml_file = tmp_path / "tasks.yaml"
    yaml_file.write_text("- id: y1\n  plan: plan.json\n  data:\n    products: [{name: a, price: 10}]\n")
    csv_file = tmp_path / "tasks.csv"
    csv_file.write_text(
        'id,plan,data\nc1,plan.json,"{""products"": [{""name"": ""a"", ""price"": 10}]}"\n'
        'c2,plan.json,"{""products"": [{""name"": ""b"", ""price"": 20}]}"\n'
    )
    for path, expected in ((yaml_file, ["y1"]), (csv_file, ["c1", "c2"])):
        out = run_batch(str(path), "--out", str(tmp_path / f"{path.suffix[1:]}.jsonl"), env=env)
        assert out.returncode == 0, out.stderr
        assert sorted(ids(read_lines(tmp_path / f"{path.suffix[1:]}.jsonl"))) == expected
    # stdin: guessed from the content, or told; relative plan paths are taken from the working folder
    sniffed = run_batch("-", env=env, stdin=csv_file.read_text(), cwd=tmp_path)
    assert sniffed.returncode == 0, sniffed.stderr
    assert sorted(json.loads(x)["id"] for x in sniffed.stdout.splitlines()) == ["c1", "c2"]
    told = run_batch("-", "--input-format", "yaml", env=env, stdin=yaml_file.read_text(), cwd=tmp_path)
    assert told.returncode == 0 and json.loads(told.stdout)["id"] == "y1"


def test_bad_lines_fail_alone(tmp_path, env):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join(
            [
                json.dumps(sleep_task("a")),
                "{torn",
                json.dumps({"id": "b", "url": "nope x"}),
                json.dumps(sleep_task("a")),
                json.dumps(sleep_task("c")),
            ]
        )
        + "\n"
    )
    out = run_batch(str(tasks), "--out", str(tmp_path / "out.jsonl"), env=env)
    assert out.returncode == 1
    lines = {x["id"]: x for x in read_lines(tmp_path / "out.jsonl")}
    assert set(lines) == {"a", "line:2", "b", "line:4", "c"}
    assert lines["a"]["ok"] and lines["c"]["ok"]
    assert {k: lines[k]["errors"][0]["code"] for k in ("line:2", "b", "line:4")} == {
        "line:2": "BAD_LINE",
        "b": "BAD_TASK",
        "line:4": "DUPLICATE_ID",
    }


@pytest.mark.parametrize(
    "args",
    [
        ("missing.jsonl",),
        ("bad.yaml",),
        ("tasks.jsonl", "--concurrency", "0"),
        ("tasks.jsonl", "--resume"),
        ("tasks.jsonl", "--out", "full.jsonl"),
        ("tasks.jsonl", "--viewport", "big"),
    ],
)
def test_unreadable_tasks_and_bad_options_exit_2(tmp_path, env, args):
    write_jsonl(tmp_path / "tasks.jsonl", [sleep_task("a")])
    (tmp_path / "bad.yaml").write_text("- id: a\n  x: y: z\n")
    (tmp_path / "full.jsonl").write_text('{"id": "a", "ok": true}\n')
    out = run_batch(*args, env=env, cwd=tmp_path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "error" in out.stderr.lower()


def test_sigkill_then_resume_loses_and_duplicates_nothing(tmp_path, env):
    tasks = write_jsonl(tmp_path / "tasks.jsonl", [sleep_task(f"t{i:02}", 0.25) for i in range(16)])
    out_file = tmp_path / "out.jsonl"
    proc = start_batch(str(tasks), "--out", str(out_file), "-j", "2", env=env)
    wait_for_lines(out_file, 4, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    before = out_file.read_bytes()
    first = [json.loads(x) for x in before.decode().splitlines(keepends=True) if x.endswith("\n")]
    assert 4 <= len(first) < 16 and all(x["ok"] for x in first)

    out = run_batch(str(tasks), "--out", str(out_file), "--resume", "-j", "4", env=env)
    assert out.returncode == 0, out.stderr
    lines = read_lines(out_file)
    assert out_file.read_bytes().startswith(before[: before.rfind(b"\n") + 1])  # nothing recorded was touched
    assert ids(lines) == Counter({f"t{i:02}": 1 for i in range(16)})
    assert f"{len(first)} skipped, already in" in out.stderr

    again = run_batch(str(tasks), "--out", str(out_file), "--resume", env=env)
    assert again.returncode == 0 and read_lines(out_file) == lines  # all done: nothing runs twice


def test_a_torn_last_line_is_cut_and_its_task_runs_again(tmp_path, env):
    tasks = write_jsonl(tmp_path / "tasks.jsonl", [sleep_task(f"t{i}") for i in range(5)])
    out_file = tmp_path / "out.jsonl"
    assert run_batch(str(tasks), "--out", str(out_file), env=env).returncode == 0
    whole = out_file.read_text().splitlines(keepends=True)
    torn_id = json.loads(whole[-1])["id"]
    out_file.write_text("".join(whole[:-1]) + whole[-1][: len(whole[-1]) // 2])  # killed mid-write

    out = run_batch(str(tasks), "--out", str(out_file), "--resume", env=env)
    assert out.returncode == 0, out.stderr
    assert "torn last line" in out.stderr
    lines = read_lines(out_file)
    assert ids(lines) == Counter({f"t{i}": 1 for i in range(5)})
    assert lines[-1]["id"] == torn_id


def interrupt_and_resume(
    tmp_path, env, tasks: list[dict], running: int, first_lines: int, under_way=None
) -> None:
    """Ctrl-C (SIGINT to the whole process group, like a terminal) once ``first_lines`` are written
    and the next tasks are under way (``under_way()`` says so when given; else 0.3 s): exit 130, the
    running tasks recorded CANCELLED, no others; then --resume finishes exactly the rest."""
    task_file = write_jsonl(tmp_path / "tasks.jsonl", tasks)
    out_file = tmp_path / "out.jsonl"
    proc = start_batch(str(task_file), "--out", str(out_file), "-j", str(running), env=env)
    wait_for_lines(out_file, first_lines, proc)
    if under_way is None:
        time.sleep(0.3)  # the next tasks (sleeps that say nothing while they run) are well under way
    else:
        deadline = time.monotonic() + 60  # a loaded machine stretches a page's start
        while not under_way():
            assert time.monotonic() < deadline and proc.poll() is None, "the next tasks never got under way"
            time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    lines = read_lines(out_file)
    cancelled = [x for x in lines if x["errors"] and x["errors"][0]["code"] == "CANCELLED"]
    assert len(cancelled) == running, lines
    assert all(x["ok"] for x in lines if x not in cancelled)
    assert len(lines) < len(tasks)

    out = run_batch(str(task_file), "--out", str(out_file), "--resume", "-j", "4", env=env, timeout=90)
    assert out.returncode == 0, out.stderr
    lines = read_lines(out_file)
    assert ids(lines) == Counter({t["id"]: 1 for t in tasks})
    assert all(x["ok"] for x in lines)


def test_ctrl_c_cancels_the_running_tasks(tmp_path, env):
    tasks = [sleep_task("quick")] + [sleep_task(f"t{i}", 0.5 if i < 2 else 1.5) for i in range(6)]
    interrupt_and_resume(tmp_path, env, tasks, running=2, first_lines=3)


@pytest.mark.browser
def test_ctrl_c_with_pages_loading_in_the_browser(tmp_path, env, slow_site, browser_path):
    def page(i: int, ms: int) -> dict:
        return {
            "id": f"p{i}",
            "url": f"{slow_site.url}/page?ms={ms}&n={i}",
            "plan": [{"tool": "extraction.batch_title"}],
            "expected_output": "products",
        }

    tasks = [page(0, 0), page(1, 0)] + [page(i, 1500) for i in range(2, 6)]
    # Under way: both slow pages requested and loading (the server holds them 1.5 s), not a fixed wait.
    interrupt_and_resume(
        tmp_path, env, tasks, running=2, first_lines=2, under_way=lambda: slow_site.active >= 2
    )


@pytest.mark.browser
def test_shop_products_under_150(tmp_path, env, site_url, browser_path):
    from curllm_core.plugins import load_registry

    if "extraction.products_generic" not in load_registry({"CURLLM_LOAD_PLUGINS": ""}):
        pytest.skip("extraction.products_generic is not installed")
    plan = tmp_path / "under150.json"
    plan.write_text(
        json.dumps(
            {"plan": [{"tool": "extraction.products_generic"}, *PRICE_PLAN], "expected_output": "products"}
        )
    )
    tasks = tmp_path / "tasks.csv"
    tasks.write_text(
        "id,url,plan\n"
        + "".join(f"s{i},{site_url}/?strona={i},under150.json\n" for i in (1, 2, 3))
        + f"gone,{site_url}/nie-ma-takiej-strony,under150.json\n"
    )
    out = run_batch(str(tasks), "--out", str(tmp_path / "out.jsonl"), "-j", "3", env=env, timeout=90)
    lines = {x["id"]: x for x in read_lines(tmp_path / "out.jsonl")}
    assert out.returncode == 1, out.stderr
    assert lines["gone"]["errors"][0]["code"] == "HTTP_ERROR"
    for key in ("s1", "s2", "s3"):
        assert lines[key]["ok"], lines[key]["errors"]
        prices = [p["price"] for p in lines[key]["data"]["products"]]
        assert prices and all(p <= 150 for p in prices)
    assert lines["s1"]["timings"]["navigation_ms"] > 0


def test_config_concurrency_and_tagged_events(tmp_path, env):
    (tmp_path / "config" / "curllm").mkdir(parents=True)
    (tmp_path / "config" / "curllm" / "config.toml").write_text("concurrency = 3\n")
    tasks = write_jsonl(tmp_path / "tasks.jsonl", [sleep_task(f"t{i}", 0.5) for i in range(3)])
    out = run_batch(
        str(tasks), "--out", str(tmp_path / "out.jsonl"), "--events", str(tmp_path / "ev.jsonl"), env=env
    )
    assert out.returncode == 0, out.stderr
    lines = read_lines(tmp_path / "out.jsonl")
    assert max(x["started_at"] for x in lines) < min(x["finished_at"] for x in lines)  # all three at once
    events = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    assert {e["task"] for e in events} == {"t0", "t1", "t2"}
    assert Counter(e["type"] for e in events)["complete"] == 3


def test_every_task_s_events_validate_against_the_event_schema(tmp_path, env):
    """`curllm batch --events`: each task's stream (tagged with its id) validates field by field
    against tools_manifests/events.schema.json and ends in `complete` when the task ran, or in
    `error` when it could not start (a refused plan, an instruction with nothing doable)."""
    from tests.design.stream_checks import assert_complete_carries_the_output, validate

    tasks = write_jsonl(
        tmp_path / "tasks.jsonl",
        [
            sleep_task("ok"),
            sleep_task("fails", fail=True),
            {**sleep_task("refused"), "plan": [{"tool": "validation.no_such_tool"}]},
            {"id": "unplannable", "instruction": "what is the weather tomorrow", "data": PRODUCTS},
        ],
    )
    out = run_batch(
        str(tasks), "--out", str(tmp_path / "out.jsonl"), "--events", str(tmp_path / "ev.jsonl"), env=env
    )
    assert out.returncode == 1, out.stderr
    lines = {x["id"]: x for x in read_lines(tmp_path / "out.jsonl")}
    events = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    streams: dict[str, list[dict]] = {}
    for event in events:
        streams.setdefault(event["task"], []).append(event)
    assert set(streams) == set(lines)
    for stream in streams.values():
        validate(stream)  # per task: its own step sequence
    for task_id in ("ok", "fails"):
        complete = streams[task_id][-1]
        assert complete["type"] == "complete", task_id
        assert_complete_carries_the_output(complete["data"], lines[task_id])
    assert lines["ok"]["ok"] and not lines["fails"]["ok"]
    failed = [e["data"] for e in streams["fails"] if e["type"] == "step" and e["data"]["status"] == "failed"]
    assert failed and all(d["reward"] < 0 for d in failed)
    for task_id, code in (("refused", "BAD_PLAN"), ("unplannable", "PLANNING_FAILED")):
        last = streams[task_id][-1]
        assert last["type"] == "error" and last["data"]["code"] == code == lines[task_id]["errors"][0]["code"]
