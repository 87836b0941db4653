"""The out file: durable appends, torn last lines cut, resume keeps one line per id."""

from __future__ import annotations

import json

import pytest

from curllm_core.batch import OutFile
from curllm_core.errors import UsageError


def line(task_id: str, ok: bool = True, code: str | None = None) -> dict:
    return {
        "id": task_id,
        "ok": ok,
        "data": {},
        "errors": [{"code": code, "message": "x"}] if code else [],
        "timings": {},
    }


def text(*lines: dict) -> str:
    return "".join(json.dumps(x) + "\n" for x in lines)


def test_lines_are_appended_whole(tmp_path):
    path = tmp_path / "sub" / "out.jsonl"
    path.parent.mkdir()
    out = OutFile(path)
    out.write(line("a"))
    out.write(line("b", False, "HTTP_ERROR") | {"data": {"name": "żółw ✓"}})
    out.close()
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"] and rows[1]["data"]["name"] == "żółw ✓"


def test_a_file_with_results_is_not_appended_to_by_accident(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(text(line("a")))
    with pytest.raises(UsageError, match="--resume"):
        OutFile(path)
    OutFile(path, overwrite=True).close()
    assert path.read_text() == ""
    path.write_text("")
    OutFile(path).close()  # an empty file is fine


def test_resume_knows_the_recorded_ids_and_cuts_a_torn_tail(tmp_path):
    path = tmp_path / "out.jsonl"
    whole = text(line("a"), line("b", False, "HTTP_ERROR"))
    torn = json.dumps(line("c"))[:17]
    path.write_text(whole + torn)
    notes: list[str] = []
    out = OutFile(path, resume=True, note=notes.append)
    assert out.recorded == {"a": True, "b": False}
    assert path.read_text() == whole
    assert any("torn last line" in n and f"{len(torn)} bytes" in n for n in notes)
    out.write(line("c"))
    out.close()
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a", "b", "c"]


def test_cancelled_tasks_run_again_and_lose_their_old_line(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(text(line("a"), line("b", False, "CANCELLED"), line("c", False, "HTTP_ERROR"), line("d")))
    notes: list[str] = []
    out = OutFile(path, resume=True, note=notes.append)
    out.close()
    assert out.recorded == {"a": True, "c": False, "d": True}
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a", "c", "d"]
    assert any("1 cancelled task(s) will run again" in n for n in notes)
    assert not list(tmp_path.glob(".out.jsonl.*"))  # the temporary file of the rewrite is gone


def test_retry_failed_runs_the_failed_ones_again(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(text(line("a"), line("b", False, "HTTP_ERROR"), line("c", False, "CANCELLED")))
    out = OutFile(path, retry_failed=True)
    out.close()
    assert out.recorded == {"a": True}
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a"]


def test_lines_that_are_not_results_are_left_alone(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("# my notes\n" + text(line("a")))
    notes: list[str] = []
    out = OutFile(path, resume=True, note=notes.append)
    out.close()
    assert out.recorded == {"a": True}
    assert path.read_text().startswith("# my notes\n")
    assert any("line 1 is not a result line" in n for n in notes)


def test_an_unserializable_result_still_gets_a_line(tmp_path):
    path = tmp_path / "out.jsonl"
    loop: dict = {}
    loop["self"] = loop
    out = OutFile(path)
    out.write(line("a") | {"data": loop})
    out.close()
    row = json.loads(path.read_text())
    assert row["id"] == "a" and row["ok"] is False and row["errors"][0]["code"] == "OUTPUT_INVALID"


def test_a_second_batch_on_the_same_file_is_refused(tmp_path):
    path = tmp_path / "out.jsonl"
    first = OutFile(path)
    try:
        with pytest.raises(UsageError, match="another curllm batch"):
            OutFile(path, resume=True)
    finally:
        first.close()
    OutFile(path, resume=True).close()  # free again once the first is done


def test_the_lock_follows_the_rewritten_file(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(text(line("a"), line("b", False, "CANCELLED")))
    out = OutFile(path, resume=True)
    try:
        with pytest.raises(UsageError, match="another curllm batch"):
            OutFile(path, resume=True)
    finally:
        out.close()


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(text(line("a")) + json.dumps(line("b")))
    out = OutFile(path, resume=True)
    out.write(line("c"))
    out.close()
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a", "b", "c"]
