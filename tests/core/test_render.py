"""Output formats: every table of a tables result in every format (csv and jsonl rows carry their
table's number and caption; `table` draws one titled table each); item lists as before."""

from __future__ import annotations

import csv
import io
import json

from curllm_core.render import render
from curllm_core.result import Result

TABLES = [
    {
        "caption": "Umsatz nach Region",
        "headers": ["Region", "Umsatz"],
        "columns": ["Region", "Umsatz"],
        "rows": [{"Region": "Nord", "Umsatz": "10"}, {"Region": "Süd", "Umsatz": "12"}],
        "nth": 1,
        "index": 0,
    },
    {
        "caption": None,
        "headers": ["Rok", "", "table"],
        "columns": ["Rok", "column 2", "table"],
        "rows": [{"Rok": "2023", "column 2": "x", "table": "t"}],
        "nth": 3,
        "index": 5,
    },
]


def result(tables: list[dict], ok: bool = True, errors: list | None = None) -> Result:
    return Result(ok=ok, data={"tables": tables}, plan={"expected_output": "tables"}, errors=errors or [])


def test_csv_writes_every_table_with_its_number_and_caption():
    rows = list(csv.DictReader(io.StringIO(render(result(TABLES), "csv"))))
    assert [(r["table"], r["caption"], r["Region"]) for r in rows[:2]] == [
        ("1", "Umsatz nach Region", "Nord"),
        ("1", "Umsatz nach Region", "Süd"),
    ]
    # A table with a column named "table" keeps it; its number goes to "_table".
    assert (rows[2]["_table"], rows[2]["table"], rows[2]["Rok"], rows[2]["column 2"]) == (
        "3",
        "t",
        "2023",
        "x",
    )
    header = render(result(TABLES), "csv").splitlines()[0]
    assert header == "table,caption,Region,Umsatz,_table,Rok,column 2"


def test_jsonl_writes_every_row_of_every_table():
    lines = [json.loads(line) for line in render(result(TABLES), "jsonl").splitlines()]
    assert lines[0] == {"table": 1, "caption": "Umsatz nach Region", "Region": "Nord", "Umsatz": "10"}
    assert lines[2] == {"_table": 3, "caption": None, "Rok": "2023", "column 2": "x", "table": "t"}
    assert len(lines) == 3


def test_table_draws_one_titled_table_each():
    text = render(result(TABLES), "table")
    assert "Table 1: Umsatz nach Region (2 rows)" in text and "Table 3 (1 row)" in text
    assert "Süd" in text and "2023" in text
    wide = {
        **TABLES[0],
        "columns": [f"c{i}" for i in range(15)],
        "rows": [{f"c{i}": str(i) for i in range(15)}],
    }
    assert "3 more columns in --format csv or json" in render(result([wide]), "table")


def test_errors_and_empty_results_still_show():
    failed = result(
        [], ok=False, errors=[{"code": "NO_MATCH", "message": "no table on the page matches 'x'"}]
    )
    text = render(failed, "table")
    assert "no tables found" in text and "error [NO_MATCH]" in text
    assert render(failed, "csv") == "\n" and render(failed, "jsonl") == ""


def test_item_lists_are_unchanged():
    items = Result(ok=True, data={"products": [{"name": "A", "price": 1.5, "url": "u"}]}, plan=None)
    assert render(items, "csv") == "name,price,url\nA,1.50,u\n"
    assert json.loads(render(items, "jsonl")) == {"name": "A", "price": 1.5, "url": "u"}
    assert "1 products" in render(items, "table")


def test_a_summary_is_the_answer_in_every_format():
    """An aggregate's summary (the plan's expected output is a dict, not a list) is what each format
    shows, not the item list beside it."""
    summary = {"count": 30, "average_price": 41.7, "currency": "USD"}
    res = Result(
        ok=True,
        data={"products": [{"name": "A", "price": 1.5}], "summary": summary},
        plan={"expected_output": "summary"},
    )
    assert json.loads(render(res, "json"))["data"]["summary"] == summary
    assert json.loads(render(res, "jsonl")) == summary
    assert list(csv.DictReader(io.StringIO(render(res, "csv")))) == [
        {"count": "30", "average_price": "41.7", "currency": "USD"}
    ]
    table = render(res, "table")
    assert "average_price" in table and "41.7" in table and "USD" in table and "A" not in table.split()
    # A count of nothing is still an answer: 0, not "no results".
    empty = Result(ok=True, data={"summary": {"count": 0}}, plan={"expected_output": "summary"})
    assert render(empty, "csv") == "count\n0\n" and "0" in render(empty, "table")
