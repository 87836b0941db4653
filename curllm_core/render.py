"""Rendering a result: json (the whole contract), jsonl (one item per line), csv and table (the items;
every table of a tables result; a summary such as ``{"count": 30}`` when the plan's answer is one)."""

from __future__ import annotations

import csv
import io
from typing import Any

from .jsonsafe import dumps
from .result import Result

PREFERRED_COLUMNS = (
    "rank",
    "name",
    "title",
    "text",
    "price",
    "currency",
    "points",
    "score",
    "comments",
    "url",
)
MAX_COLUMNS = 7
MAX_TABLE_COLUMNS = 12


def columns_of(items: list[dict]) -> list[str]:
    """Columns for items: well-known keys first, then the rest in first-seen order."""
    seen: list[str] = []
    for item in items:
        for key in item if isinstance(item, dict) else ():
            if key not in seen:
                seen.append(key)
    ordered = [c for c in PREFERRED_COLUMNS if c in seen] + [c for c in seen if c not in PREFERRED_COLUMNS]
    return ordered


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict | list):
        return dumps(value)
    return str(value)


def _is_tables(key: str | None, items: list) -> bool:
    """Whether the item list is a list of tables (``tables_to_json``'s shape)."""
    return key == "tables" and bool(items) and all(isinstance(t, dict) and "rows" in t for t in items)


def _table_meta_keys(table: dict) -> tuple[str, str]:
    """The keys that carry a row's table and caption: ``table`` and ``caption``, unless the table has
    columns of those names (then ``_table`` and ``_caption``)."""
    columns = set(table.get("columns") or table.get("headers") or ())
    table_key = "_table" if "table" in columns else "table"
    caption_key = "_caption" if "caption" in columns else "caption"
    return table_key, caption_key


def table_number(table: dict, position: int) -> int:
    """A table's number as "the second table" means it (``nth``), else its place in the list."""
    nth = table.get("nth")
    return nth if isinstance(nth, int) and not isinstance(nth, bool) else position


def table_rows(tables: list[dict]) -> list[dict]:
    """Every row of every table, each carrying its table's number and caption (csv and jsonl)."""
    rows = []
    for position, table in enumerate(tables, start=1):
        table_key, caption_key = _table_meta_keys(table)
        meta = {table_key: table_number(table, position), caption_key: table.get("caption")}
        rows += [{**meta, **row} for row in table.get("rows") or [] if isinstance(row, dict)]
    return rows


def render(result: Result, fmt: str) -> str:
    """``result`` as ``json``, ``jsonl``, ``csv`` or ``table`` text (see docs/cli.md, ``--format``).

    Tables (``tables_to_json``'s output) are written whole: in csv and jsonl one line per row of
    every table, with the table's number and caption on each; in ``table`` one titled table each.
    """
    if fmt == "json":
        return dumps(result.to_dict(), indent=2, default=str) + "\n"
    summary = summary_of(result)
    if summary is not None:
        return render_summary(result, summary, fmt)
    key, items = result.items()
    tables = _is_tables(key, items)
    if tables and fmt in ("jsonl", "csv"):
        items = table_rows(items)
    if fmt == "jsonl":
        return "".join(dumps(i, default=str) + "\n" for i in items)
    if fmt == "csv":
        out = io.StringIO()
        fieldnames = _first_seen_columns(items) if tables else columns_of(items)
        writer = csv.DictWriter(out, fieldnames=fieldnames, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for item in items:
            writer.writerow({k: _cell(v) for k, v in item.items()} if isinstance(item, dict) else {})
        return out.getvalue()
    if tables:
        return render_tables(result, items)
    return render_table(result, key, items)


def summary_of(result: Result) -> dict | None:
    """The answer when it is one object, not a list (``validation.aggregate``'s ``{"count": 30}``):
    the plan's expected output holding a dict."""
    key = (result.plan or {}).get("expected_output")
    value = result.data.get(key) if key else None
    return value if isinstance(value, dict) else None


def render_summary(result: Result, summary: dict, fmt: str) -> str:
    """A summary in every format: jsonl one line, csv a header and one row, table one row per entry."""
    if fmt == "jsonl":
        return dumps(summary, default=str) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(summary), lineterminator="\n")
        writer.writeheader()
        writer.writerow({k: "" if v is None else v for k, v in summary.items()})
        return out.getvalue()
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, force_terminal=False, color_system=None)
    table = Table(title=(result.plan or {}).get("expected_output"), show_header=False, expand=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for what, value in summary.items():
        table.add_row(str(what), "" if value is None else str(value))
    console.print(table)
    _print_errors(console, result)
    return buf.getvalue()


def _first_seen_columns(items: list[dict]) -> list[str]:
    """Columns in the order the rows name them (a table's own column order, tables one after another)."""
    seen: dict[str, None] = {}
    for item in items:
        for k in item:
            seen.setdefault(k, None)
    return list(seen)


def render_tables(result: Result, tables: list[dict]) -> str:
    """One titled table per data table ("Table 2: Revenue (19 rows)"), at most MAX_TABLE_COLUMNS
    columns each (the title says how many more there are), then the errors."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, force_terminal=False, color_system=None)
    for position, data in enumerate(tables, start=1):
        rows = [r for r in data.get("rows") or [] if isinstance(r, dict)]
        columns = list(data.get("columns") or _first_seen_columns(rows))
        shown = columns[:MAX_TABLE_COLUMNS]
        title = f"Table {table_number(data, position)}"
        if data.get("caption"):
            title += f": {data['caption']}"
        title += f" ({len(rows)} row{'s' if len(rows) != 1 else ''}"
        if len(columns) > len(shown):
            title += f"; {len(columns) - len(shown)} more columns in --format csv or json"
        title += ")"
        if position > 1:
            console.print()
        console.print(title, highlight=False, markup=False, overflow="ignore", crop=False)
        table = Table(show_lines=False, expand=False)
        for column in shown:
            table.add_column(column, overflow="fold", max_width=40)
        for row in rows:
            table.add_row(*[_cell(row.get(c)) for c in shown])
        console.print(table)
    _print_errors(console, result)
    return buf.getvalue()


def render_table(result: Result, key: str | None, items: list) -> str:
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, force_terminal=False, color_system=None)
    if items:
        cols = columns_of(items)[:MAX_COLUMNS]
        table = Table(title=f"{len(items)} {key or 'items'}", show_lines=False, expand=False)
        table.add_column("#", justify="right", style="dim")
        for c in cols:
            table.add_column(
                c,
                justify="right" if c in ("price", "points", "score", "comments", "rank") else "left",
                overflow="fold",
                max_width=60 if c in ("name", "title", "url", "text") else 30,
            )
        for n, item in enumerate(items, start=1):
            table.add_row(
                str(n), *[_cell(item.get(c)) if isinstance(item, dict) else _cell(item) for c in cols]
            )
        console.print(table)
    elif key is None and result.data:  # no item list: show what there is
        console.print(dumps(result.data, indent=2, default=str))
    else:
        console.print(f"no {key or 'results'} found")
    _print_errors(console, result)
    return buf.getvalue()


def _print_errors(console: Any, result: Result) -> None:
    for error in result.errors:
        label = "note" if error.get("optional") else "error"
        console.print(f"{label} [{error.get('code')}]: {error.get('message')}")
    if not result.ok and not result.errors:
        console.print("the result is not ok")
