"""Task files and task checks: every format, every kind of bad task, ids kept unique."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from curllm_core.batch import (
    BadTask,
    Task,
    check_task_url,
    dedupe,
    parse_tasks,
    read_tasks,
    sniff_format,
    task_from_dict,
)
from curllm_core.errors import UsageError

PLAN = [{"tool": "validation.price_range_check", "parameters": {"max": 150}}]


def check(doc, base_dir: Path | None = None):
    return task_from_dict(doc, where="line:7", line=7, base_dir=base_dir)


def error_of(entry) -> tuple[str, str]:
    assert isinstance(entry, BadTask), entry
    return entry.error["code"], entry.error["message"]


def test_a_good_instruction_task():
    task = check(
        {
            "id": "a1",
            "url": "https://shop.example/",
            "instruction": "  find products under 150zł ",
            "timeout": 30,
            "model": "gpt-4o-mini",
        }
    )
    assert task == Task(
        "a1", "https://shop.example/", "find products under 150zł", None, None, "gpt-4o-mini", 30.0, 7
    )


def test_a_plan_task_with_steps_expected_output_and_data():
    task = check({"id": 5, "plan": PLAN, "expected_output": "products", "data": {"products": []}})
    assert task.id == "5" and task.url is None
    assert task.plan == {"plan": PLAN, "expected_output": "products"}
    assert task.data == {"products": []}


def test_a_plan_as_json_text_or_a_file_next_to_the_task_file(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"plan": PLAN, "expected_output": "products"}))
    assert check({"id": "a", "plan": json.dumps(PLAN)}).plan == {"plan": PLAN}
    assert check({"id": "a", "plan": "p.json"}, tmp_path).plan["expected_output"] == "products"
    code, message = error_of(check({"id": "a", "plan": "missing.json"}, tmp_path))
    assert code == "BAD_TASK" and "missing.json" in message and "cannot read" in message
    code, message = error_of(check({"id": "a", "plan": "{not json"}))
    assert code == "BAD_TASK" and "not valid JSON" in message


@pytest.mark.parametrize(
    ("doc", "code", "words"),
    [
        ({"url": "https://x/", "instruction": "find"}, "BAD_TASK", "missing field id"),
        ({"id": "", "instruction": "find"}, "BAD_TASK", "missing field id"),
        ({"id": ["a"], "instruction": "find"}, "BAD_TASK", "id must be a string"),
        ({"id": "a", "url": "https://x/"}, "BAD_TASK", "missing field instruction"),
        ({"id": "a", "instruction": "   "}, "BAD_TASK", "empty instruction"),
        ({"id": "a", "instruction": 3}, "BAD_TASK", "instruction must be a string"),
        ({"id": "a", "instruction": "find", "plan": PLAN}, "BAD_TASK", "either instruction or plan"),
        (
            {"id": "a", "instruction": "find", "expected_output": "products"},
            "BAD_TASK",
            "expected_output goes with",
        ),
        ({"id": "a", "instruction": "find", "instrution": "x"}, "BAD_TASK", "unknown field(s) 'instrution'"),
        ({"id": "a", "instruction": "find", "data": [1]}, "BAD_TASK", "data must be an object"),
        ({"id": "a", "instruction": "find", "timeout": -1}, "BAD_TASK", "timeout must be a positive"),
        ({"id": "a", "instruction": "find", "timeout": "soon"}, "BAD_TASK", "timeout must be a number"),
        (
            {"id": "a", "instruction": "find", "consent": "maybe"},
            "BAD_TASK",
            "use one of reject, accept, leave",
        ),
        (
            {"id": "a", "instruction": "find", "engine": "fast"},
            "BAD_TASK",
            "engine must be one of auto, http, browser, not 'fast'",
        ),
        ({"id": "a", "plan": 7}, "BAD_TASK", "plan must be"),
        ({"id": "a", "url": "not a url", "instruction": "find"}, "BAD_URL", "bad URL 'not a url'"),
        ({"id": "a", "url": "http://", "instruction": "find"}, "BAD_URL", "bad URL"),
        (
            {"id": "a", "url": "ftp://files.example/x", "instruction": "find"},
            "BAD_URL",
            "only http(s) and file",
        ),
        ({"id": "a", "url": "http://shop.example:99999/", "instruction": "find"}, "BAD_URL", "port"),
        ({"id": "a", "url": 12, "instruction": "find"}, "BAD_URL", "url must be a string"),
    ],
)
def test_bad_tasks_say_what_is_wrong(doc, code, words):
    entry = check(doc)
    got_code, message = error_of(entry)
    assert got_code == code and words in message
    assert entry.id == (doc["id"] if isinstance(doc.get("id"), str) and doc["id"] else "line:7")
    assert entry.line == 7


def test_own_fields_with_an_x_prefix_are_allowed():
    assert isinstance(check({"id": "a", "instruction": "find", "x-note": "mine", "x_owner": "me"}), Task)


def test_urls_are_normalized_and_local_pages_found_beside_the_task_file(tmp_path):
    assert check_task_url("shop.example/list") == "https://shop.example/list"
    assert check_task_url("http://localhost:8000/") == "http://localhost:8000/"
    (tmp_path / "page.html").write_text("<h1>x</h1>")
    assert check_task_url("page.html", tmp_path) == (tmp_path / "page.html").resolve().as_uri()


def test_jsonl_bad_lines_get_their_line_number_and_the_rest_is_read():
    text = "\n".join(
        [
            json.dumps({"id": "a", "instruction": "find"}),
            "",
            "# a comment",
            '{"id": "b", "instruction": ',
            "[1, 2]",
            json.dumps({"id": "c", "plan": PLAN}),
        ]
    )
    entries = parse_tasks(text, "jsonl")
    assert [e.id for e in entries] == ["a", "line:4", "line:5", "c"]
    assert (
        entries[1].error["code"] == "BAD_LINE" and "line 4 is not valid JSON" in entries[1].error["message"]
    )
    assert entries[2].error["code"] == "BAD_LINE" and "not a list" in entries[2].error["message"]
    assert entries[3].line == 6


def test_yaml_as_a_list_or_under_tasks_with_line_numbers():
    text = """\
# tasks
- id: a
  url: https://shop.example/
  instruction: find products under 150zł
- just a string
- id: b
  plan:
    - tool: validation.price_range_check
      parameters: {max: 150}
  expected_output: products
"""
    entries = parse_tasks(text, "yaml")
    assert [e.id for e in entries] == ["a", "line:5", "b"]
    assert entries[0].line == 2 and entries[2].line == 6
    assert entries[2].plan["plan"][0]["parameters"] == {"max": 150}
    nested = parse_tasks("tasks:\n  - {id: a, instruction: find}\n", "yaml")
    assert nested[0].id == "a" and nested[0].line == 2


def test_broken_yaml_is_an_unreadable_file():
    with pytest.raises(UsageError, match=r"not valid YAML.*line 2"):
        parse_tasks("- id: a\n  instruction: x: y\n", "yaml")
    with pytest.raises(UsageError, match="expected a list of tasks"):
        parse_tasks("just text\n", "yaml")


def test_csv_with_plan_cells_data_and_bad_rows(tmp_path):
    (tmp_path / "plan.json").write_text(json.dumps({"plan": PLAN, "expected_output": "products"}))
    text = (
        "id,url,instruction,plan,data,timeout\n"
        'a,https://shop.example/,"find products, cheap ones",,,10\n'
        'b,,,plan.json,"{""products"": []}",\n'
        'c,,,"[{""tool"": ""validation.price_range_check""}]",,\n'
        "d,https://x/,find,,,,extra\n"
        "\n"
        "e,https://x/,,,,\n"
    )
    entries = parse_tasks(text, "csv", base_dir=tmp_path)
    assert [e.id for e in entries] == ["a", "b", "c", "line:5", "e"]
    a, b, c, extra, e = entries
    assert a.instruction == "find products, cheap ones" and a.timeout == 10.0 and a.line == 2
    assert b.plan["expected_output"] == "products" and b.data == {"products": []}
    assert c.plan == {"plan": [{"tool": "validation.price_range_check"}]}
    assert extra.error["code"] == "BAD_LINE" and "more cells" in extra.error["message"]
    assert e.error["code"] == "BAD_TASK" and e.line == 7


def test_csv_header_problems_make_the_file_unreadable():
    with pytest.raises(UsageError, match="unknown column"):
        parse_tasks("id,url,instructions\na,https://x/,find\n", "csv")
    with pytest.raises(UsageError, match="no id column"):
        parse_tasks("url,instruction\nhttps://x/,find\n", "csv")


def test_a_json_array_file(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"id": "a", "instruction": "find"}, "nope"]))
    entries = read_tasks(str(path))
    assert [e.id for e in entries] == ["a", "item:2"]


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ('{"id": "a"}\n{"id": "b"}\n', "jsonl"),
        ('# c\n\n{"id": "a"}\n', "jsonl"),
        ('[{"id": "a"}]', "json"),
        ("id,url,instruction\na,b,c\n", "csv"),
        ("url, id ,plan\n", "csv"),
        ("- id: a\n  instruction: x\n", "yaml"),
        ("tasks:\n  - id: a\n", "yaml"),
    ],
)
def test_sniffing(text, fmt):
    assert sniff_format(text) == fmt


def test_read_tasks_by_extension_from_stdin_and_unreadable_files(tmp_path):
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"id": "a", "instruction": "find"}\n')
    assert read_tasks(str(jsonl))[0].id == "a"
    assert read_tasks("-", stdin=io.StringIO("id,instruction\nb,find\n"))[0].id == "b"
    assert read_tasks("-", "yaml", stdin=io.StringIO("- {id: c, instruction: find}\n"))[0].id == "c"
    with pytest.raises(UsageError, match="cannot read"):
        read_tasks(str(tmp_path / "missing.jsonl"))
    binary = tmp_path / "t.csv"
    binary.write_bytes(b"id,instruction\n\xff\xfe\n")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_tasks(str(binary))


def test_duplicate_ids_fail_with_their_own_id():
    entries = dedupe(
        parse_tasks("\n".join(json.dumps({"id": i, "instruction": "find"}) for i in "abab"), "jsonl")
    )
    assert [e.id for e in entries] == ["a", "b", "line:3", "line:4"]
    assert (
        entries[2].error["code"] == "DUPLICATE_ID" and "already used on line 1" in entries[2].error["message"]
    )


def test_the_example_task_files_are_all_good():
    examples = Path(__file__).resolve().parents[2] / "examples" / "batch"
    for name in ("tasks.jsonl", "tasks.yaml", "tasks.csv"):
        entries = dedupe(read_tasks(str(examples / name)))
        assert entries and all(isinstance(e, Task) for e in entries), (name, entries)


def test_a_task_may_choose_its_engine():
    from curllm_core.batch.engine import Batch
    from curllm_core.executor import RunOptions

    task = check({"id": "a", "instruction": "find products", "engine": "HTTP"})
    assert task.engine == "http" and task.to_dict()["engine"] == "http"
    batch = Batch([], options=RunOptions(engine="browser"))
    assert batch.task_spec(task).options.engine == "http"
    assert batch.task_spec(check({"id": "b", "instruction": "find"})).options.engine == "browser"
