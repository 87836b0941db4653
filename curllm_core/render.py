"""Rendering a result: json (the whole contract), jsonl (one item per line), csv and table (the items)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

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
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _tables_items(result: Result) -> tuple[str | None, list]:
    key, items = result.items()
    if key == "tables" and items and isinstance(items[0], dict) and "rows" in items[0]:
        return key, items[0]["rows"]  # the first table's rows; json has them all
    return key, items


def render(result: Result, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str) + "\n"
    key, items = _tables_items(result)
    if fmt == "jsonl":
        return "".join(json.dumps(i, ensure_ascii=False, default=str) + "\n" for i in items)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns_of(items), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for item in items:
            writer.writerow({k: _cell(v) for k, v in item.items()} if isinstance(item, dict) else {})
        return out.getvalue()
    return render_table(result, key, items)


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
        console.print(json.dumps(result.data, ensure_ascii=False, indent=2, default=str))
    else:
        console.print(f"no {key or 'results'} found")
    for error in result.errors:
        label = "note" if error.get("optional") else "error"
        console.print(f"{label} [{error.get('code')}]: {error.get('message')}")
    if not result.ok and not result.errors:
        console.print("the result is not ok")
    return buf.getvalue()
