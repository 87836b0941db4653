"""Hostile task files through the real CLI: one bad line never takes down a batch (deep nesting,
YAML aliases, oversized tasks), a bad plan file is exit 2, and task files are read as a stream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from curllm_core.batch import parse_tasks
from curllm_core.batch.readers import TaskStream
from curllm_core.errors import UsageError
from curllm_core.limits import MAX_DEPTH, MAX_TASK_BYTES
from tests.in_process import Exited, cli_main

from .conftest import cli_env, run_batch, sleep_task, write_jsonl

DEEP = "[" * 5000 + "]" * 5000  # json's own recursion limit: RecursionError when parsed naively
DEEPISH = "[" * (MAX_DEPTH + 20) + "]" * (MAX_DEPTH + 20)  # parses, but deeper than a task may be


@pytest.fixture
def env(tmp_path, tools_dir):
    return cli_env(tmp_path, tools_dir)


def batch_here(*args: str, env: dict) -> Exited:
    """``curllm batch ARGS`` through the command's entry point in this process (tests/in_process.py),
    with the test's environment: for the further cases of a contract a real process already shows."""
    return cli_main(("batch", *args), env={k: v for k, v in env.items() if k.startswith(("CURLLM_", "XDG_"))})


def lines_of(out: subprocess.CompletedProcess | Exited) -> dict[str, dict]:
    assert "Traceback" not in out.stderr, out.stderr
    return {line["id"]: line for line in map(json.loads, out.stdout.splitlines())}


def test_deep_nesting_in_a_jsonl_line_fails_that_line_only(tmp_path, env):
    good = json.dumps(sleep_task("good"))
    deep_ignored = json.dumps(sleep_task("deep-x")).replace('{"id"', '{"x-note": ' + DEEP + ', "id"', 1)
    deepish = json.dumps(sleep_task("deepish")).replace('{"id"', '{"x-note": ' + DEEPISH + ', "id"', 1)
    deep_data = json.dumps(sleep_task("deep-data")).replace(
        '"data": {', '"data": {"nest": ' + DEEPISH + ", ", 1
    )
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join([good, deep_ignored, deepish, deep_data, json.dumps(sleep_task("last"))]) + "\n"
    )
    out = run_batch(str(tasks), env=env)
    assert out.returncode == 1, out.stderr
    lines = lines_of(out)
    assert lines["good"]["ok"] and lines["last"]["ok"]
    assert lines["line:2"]["errors"][0]["code"] == "BAD_LINE"
    assert "nested more than" in lines["line:2"]["errors"][0]["message"]
    for task_id in ("line:3", "line:4"):  # parsed, but deeper than a task may be
        assert lines[task_id]["errors"][0]["code"] == "BAD_LINE"
        assert f"nested more than {MAX_DEPTH} levels" in lines[task_id]["errors"][0]["message"]


def test_a_deep_task_given_in_python_fails_alone():
    from curllm_core.batch import task_from_dict

    entry = task_from_dict(sleep_task("d") | {"x-n": json.loads(DEEPISH)}, where="task:1")
    assert entry.error["code"] == "BAD_TASK" and "nested more than" in entry.error["message"]


def test_deep_nesting_in_yaml_csv_and_json_lists(tmp_path, env):
    deep_yaml = "x-note: " + "[" * 3000 + "]" * 3000
    yaml_text = (
        "- id: a\n  plan: [{tool: validation.batch_sleep}]\n  data: {products: [{name: a, price: 1}]}\n"
        f"- id: b\n  {deep_yaml}\n"
        "- id: c\n  plan: [{tool: validation.batch_sleep}]\n  data: {products: [{name: c, price: 1}]}\n"
    )
    (tmp_path / "t.yaml").write_text(yaml_text)
    # the real command shows it for a JSONL line (above); here each further format in this process
    lines = lines_of(batch_here(str(tmp_path / "t.yaml"), env=env))
    assert lines["a"]["ok"] and lines["c"]["ok"]
    assert lines["line:4"]["errors"][0]["code"] == "BAD_LINE", lines
    json_list = json.dumps([sleep_task("a"), {"id": "b", "x-n": json.loads(DEEPISH)}, sleep_task("c")])
    (tmp_path / "t.json").write_text(json_list)
    lines = lines_of(batch_here(str(tmp_path / "t.json"), env=env))
    assert lines["a"]["ok"] and lines["c"]["ok"] and lines["item:2"]["errors"][0]["code"] == "BAD_LINE"
    csv_text = (
        "id,plan,data\n"
        + "\n".join(
            [
                'a,"[{""tool"": ""validation.batch_sleep""}]","{""products"": []}"',
                'b,"[{""tool"": ""validation.batch_sleep""}]","{""n"": ' + DEEPISH.replace('"', '""') + '}"',
            ]
        )
        + "\n"
    )
    (tmp_path / "t.csv").write_text(csv_text)
    lines = lines_of(batch_here(str(tmp_path / "t.csv"), env=env))
    assert lines["line:3"]["errors"][0]["code"] == "BAD_LINE" and "a" in lines


@pytest.fixture(params=["libyaml", "python"])
def yaml_parser(request, monkeypatch):
    """Both of PyYAML's parsers: libyaml (when this PyYAML has it; 6.0.4's refuses deep nesting)
    and its pure-Python one (a PyYAML built without libyaml)."""
    import yaml

    if request.param == "python":
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    elif not hasattr(yaml, "CSafeLoader"):
        pytest.skip("this PyYAML has no libyaml")
    return request.param


@pytest.mark.parametrize(
    "layout",
    [
        "- {id: a, instruction: x}\n- {id: b, x-note: DEEP}\n- {id: c, instruction: x}\n",
        "tasks:\n  - id: a\n    instruction: x\n  - id: b\n    x-note: DEEP\n  - {id: c, instruction: x}\nz: 1\n",
        "[{id: a, instruction: x},\n {id: b, x-note: DEEP},\n {id: c, instruction: x}]\n",
    ],
    ids=["block-list", "under-tasks", "flow-list"],
)
def test_a_deep_yaml_item_fails_alone_with_either_parser(yaml_parser, layout):
    text = layout.replace("DEEP", "[" * 3000 + "]" * 3000)
    started = time.process_time()  # this process's CPU: the work done, which load does not stretch
    entries = parse_tasks(text, "yaml")
    assert time.process_time() - started < 20  # linear in depth, not quadratic
    assert [e.id for e in entries][0::2] == ["a", "c"] and entries[1].error is not None
    assert entries[1].error["message"].endswith(f"nested more than {MAX_DEPTH} levels deep")
    shallow = parse_tasks(text.replace("[" * 3000 + "]" * 3000, "{k: [1, {m: 'n: o'}]}"), "yaml")
    assert [e.id for e in shallow] == ["a", "b", "c"]


def test_either_yaml_parser_reads_the_same_tasks_and_refuses_the_same_syntax(yaml_parser):
    text = (
        "# tasks\n- id: a\n  instruction: 'find: things'\n  data: {products: [{name: x, price: 1.5}],\n"
        "    note: [a, {b: c}, [d]]}\n- {id: b, plan: [{tool: validation.batch_sleep}], data: {}}\n"
        "- id: c\n  instruction: >-\n    folded\n    text\n"
    )
    entries = parse_tasks(text, "yaml")
    assert [e.id for e in entries] == ["a", "b", "c"]
    assert entries[0].data == {"products": [{"name": "x", "price": 1.5}], "note": ["a", {"b": "c"}, ["d"]]}
    assert entries[0].instruction == "find: things" and entries[2].instruction == "folded text"
    with pytest.raises(UsageError, match="not valid YAML"):
        parse_tasks("- id: a\n  instruction: x: y\n", "yaml")


@pytest.mark.parametrize("where", ["plan", "input"])
def test_a_deeply_nested_plan_or_input_file_is_exit_2(tmp_path, env, where):
    deep = tmp_path / "deep.json"
    deep.write_text('{"plan": ' + DEEP + "}" if where == "plan" else '{"products": ' + DEEPISH + "}")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"plan": [{"tool": "validation.batch_sleep"}]}))
    args = ["--plan", str(deep)] if where == "plan" else ["--plan", str(plan), "--input", str(deep)]
    out = (  # the plan through the real command, the input through its entry point in this process
        subprocess.run(
            [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=env, timeout=60
        )
        if where == "plan"
        else cli_main(args, env={k: v for k, v in env.items() if k.startswith(("CURLLM_", "XDG_"))})
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert f"nested more than {MAX_DEPTH} levels deep" in out.stderr and f"--{where} {deep}" in out.stderr


def test_yaml_aliases_are_refused_billion_laughs_costs_nothing(tmp_path, env):
    laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        laughs.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    data = "\n".join("    " + line for line in laughs)
    text = (
        "- id: bomb\n  plan: [{tool: validation.batch_sleep}]\n  data:\n" + data + "\n"
        "- id: fine\n  plan: [{tool: validation.batch_sleep}]\n  data: {products: [{name: x, price: 1}]}\n"
    )
    assert len(text) < 1000
    (tmp_path / "bomb.yaml").write_text(text)
    used = _children_cpu()
    out = run_batch(str(tmp_path / "bomb.yaml"), env=env)
    # The command's own CPU, not the seconds of a loaded machine: expanded, the nine levels of nine
    # are 387 million strings (minutes of CPU, gigabytes); refused, a command's start.
    assert _children_cpu() - used < 30
    lines = lines_of(out)
    assert lines["fine"]["ok"]
    bomb = lines["line:1"]["errors"][0]
    assert bomb["code"] == "BAD_LINE" and "alias" in bomb["message"]
    assert len(out.stdout) < 5000  # nothing was expanded into the result


def test_an_oversized_task_fails_alone(tmp_path, env):
    big = sleep_task("big") | {"x-blob": "x" * (MAX_TASK_BYTES + 10)}
    tasks = write_jsonl(tmp_path / "big.jsonl", [sleep_task("a"), big, sleep_task("b")])
    lines = lines_of(batch_here(str(tasks), env=env))
    assert lines["a"]["ok"] and lines["b"]["ok"]
    error = lines["line:2"]["errors"][0]
    assert error["code"] == "BAD_LINE" and "larger than 10 MiB" in error["message"]


def test_a_file_broken_part_way_keeps_what_ran_and_exits_2(tmp_path, env):
    good = "".join(
        f"- id: t{i}\n  plan: [{{tool: validation.batch_sleep}}]\n  data: {{products: []}}\n"
        for i in range(3)
    )
    (tmp_path / "t.yaml").write_text(good + "- id: broken\n  plan: [unclosed\n")
    out_file = tmp_path / "out.jsonl"
    out = run_batch(str(tmp_path / "t.yaml"), "--out", str(out_file), env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "not valid YAML" in out.stderr and "--resume" in out.stderr
    assert sorted(json.loads(x)["id"] for x in out_file.read_text().splitlines()) == ["t0", "t1", "t2"]


def test_unreadable_from_the_start_is_exit_2_before_anything_runs(tmp_path, env):
    (tmp_path / "t.yaml").write_text("- id: a\n  plan: [unclosed\n")
    # the real command shows exit 2 for a file broken part way (above); this one in this process
    out = batch_here(str(tmp_path / "t.yaml"), env=env)
    assert out.returncode == 2 and out.stdout == "" and "not valid YAML" in out.stderr
    assert "Traceback" not in out.stderr


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _read_so_far(pid: int, path: Path) -> int | None:
    """How far process ``pid`` has read the file at ``path`` (its open descriptor's position), or
    None when it has the file open no longer."""
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if os.readlink(fd) != str(path):
                continue
            for line in Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().splitlines():
                if line.startswith("pos:"):
                    return int(line.split()[1])
        except OSError:
            continue
    return None


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.slow
def test_a_huge_task_file_is_streamed(tmp_path, env):
    """200,000 tasks: the first result comes at once and memory stays flat (the file is not loaded)."""
    path = tmp_path / "huge.jsonl"
    task = sleep_task("x")
    with path.open("w") as f:
        for i in range(200_000):
            f.write(json.dumps(task | {"id": f"t{i}"}) + "\n")
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "curllm_core", "batch", str(path), "-j", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = proc.stdout.readline()
        first_s = time.monotonic() - started
        # The first result came while most of the file was still unread: at once, not after the file
        # (what the command did, not the seconds of a loaded machine)
        read = _read_so_far(proc.pid, path.resolve())
        for _ in range(2000):
            assert proc.stdout.readline()
        rss = _peak_rss_mb(proc.pid)
    finally:
        proc.kill()
        proc.communicate()
    assert json.loads(first)["ok"]
    size = path.stat().st_size
    assert read is not None and read < size / 4, f"first result after {read} of {size} bytes read"
    assert first_s < 60, f"first result after {first_s:.1f} s"  # a hang's bound
    assert rss < 250, f"peak RSS {rss:.0f} MB"


def test_the_stream_reads_only_as_far_as_taken(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(sleep_task(f"t{i}")) + "\n" for i in range(5)) + "{broken\n")
    stream = TaskStream(str(path))
    first = next(iter(stream))
    assert first.id == "t0" and stream.count == 1
    stream.close()
    with pytest.raises(UsageError, match="not valid YAML"):
        TaskStream("-", "yaml", stdin=__import__("io").StringIO("- id: a\n  x: [\n"))


def test_yaml_values_keep_their_types_and_lines():
    text = "- id: 7\n  plan: [{tool: v.x, parameters: {max: 1.5, flag: true, n: null, d: 2024-01-02}}]\n"
    (entry,) = parse_tasks(text, "yaml")
    params = entry.plan["plan"][0]["parameters"]
    assert entry.id == "7" and entry.line == 1
    assert params["max"] == 1.5 and params["flag"] is True and params["n"] is None
    assert str(params["d"]) == "2024-01-02"
    (bad,) = parse_tasks("- !!python/object:os.system {id: a}\n", "yaml")
    assert bad.error["code"] == "BAD_LINE" and "python/object" in bad.error["message"]
