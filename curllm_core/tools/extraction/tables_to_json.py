"""Data tables as JSON, told apart from layout, navigation and infobox tables by their structure.

A table counts as a data table when:

* it is not ``role=presentation``/``none`` and holds no nested table (nesting is layout);
* it has a header: ``<thead>`` rows, or leading rows made only of ``<th>`` cells, naming at least
  two distinct columns (an infobox's single title cell spanning both columns is no header; its
  ``<th>label</th><td>value</td>`` rows are key/value pairs, not records);
* most body rows (60%) span exactly the header's number of columns, after rowspan/colspan expansion;
* it has at least ``min_rows`` data rows.

Cell text is the visible text: hidden sort keys left out, footnote markers kept as written
("Revenue in million US$ [190]").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborNode

from ...errors import ToolError
from ...tool import ToolContext
from ._html import apply_limit, hidden_in_tree, page_html, parse_html, strip_junk, visible_text

_ALNUM_RE = re.compile(r"[^\W_]")
MAX_SPAN = 1000  # a colspan/rowspan beyond this is broken markup; browsers clamp similarly
CONSISTENT_SHARE = 0.6


@dataclass(frozen=True)
class _Cell:
    text: str
    header: bool
    origin: int  # the id of the source cell, so spanned copies can be recognised


def _span(node: LexborNode, name: str) -> int:
    try:
        value = int((node.attributes.get(name) or "1").strip())
    except ValueError:
        return 1
    return min(max(value, 1), MAX_SPAN)


def _row_cells(tr: LexborNode) -> list[LexborNode]:
    return [c for c in tr.iter() if c.tag in ("td", "th")]


def _take_pending(row: list[_Cell], col: int, pending: dict[int, tuple[int, _Cell]]) -> int:
    """Copy cells spanning down from earlier rows into ``row`` from ``col`` on; the next free column."""
    while col in pending:
        left, cell = pending[col]
        row.append(cell)
        if left <= 1:
            del pending[col]
        else:
            pending[col] = (left - 1, cell)
        col += 1
    return col


def _grid(rows: list[LexborNode]) -> list[list[_Cell]]:
    """The table as a rectangular-ish grid: each spanned cell copied into every slot it covers."""
    grid: list[list[_Cell]] = []
    pending: dict[int, tuple[int, _Cell]] = {}  # column -> (rows still to fill, cell)
    for tr in rows:
        row: list[_Cell] = []
        col = 0
        for node in _row_cells(tr):
            col = _take_pending(row, col, pending)
            cell = _Cell(visible_text(node), node.tag == "th", node.mem_id)
            rowspan, colspan = _span(node, "rowspan"), _span(node, "colspan")
            for _ in range(colspan):
                row.append(cell)
                if rowspan > 1:
                    pending[col] = (rowspan - 1, cell)
                col += 1
        col = _take_pending(row, col, pending)
        # Cells spanning down into columns past this row's own cells.
        for extra in sorted(c for c in pending if c >= col):
            while len(row) < extra:
                row.append(_Cell("", False, -1))
            col = _take_pending(row, extra, pending)
        grid.append(row)
    return grid


def _header_rows(rows: list[LexborNode], grid: list[list[_Cell]]) -> int:
    """How many leading rows are header rows: ``<thead>`` rows, else rows made only of ``<th>``."""
    in_thead = 0
    for tr in rows:
        parent = tr.parent
        if parent is not None and parent.tag == "thead":
            in_thead += 1
        else:
            break
    if in_thead:
        return in_thead
    count = 0
    for row in grid:
        if row and all(c.header for c in row):
            count += 1
        else:
            break
    return count


def _column_text(header_grid: list[list[_Cell]], col: int) -> str:
    return " ".join(row[col].text for row in header_grid if col < len(row))


def _headers(header_grid: list[list[_Cell]], width: int) -> list[str]:
    """Column names; stacked header rows are joined top-down ("Revenue / 2023"), spans not repeated."""
    names = []
    for col in range(width):
        parts: list[str] = []
        seen: set[int] = set()
        for row in header_grid:
            if col < len(row):
                cell = row[col]
                if cell.origin not in seen and cell.text and (not parts or parts[-1] != cell.text):
                    parts.append(cell.text)
                seen.add(cell.origin)
        names.append(" / ".join(parts))
    unique: list[str] = []
    counts: dict[str, int] = {}
    for i, name in enumerate(names):
        if not _ALNUM_RE.search(name):  # empty, or controls only ("» «")
            name = f"column {i + 1}"
        counts[name] = counts.get(name, 0) + 1
        unique.append(name if counts[name] == 1 else f"{name} ({counts[name]})")
    return unique


def table_to_json(table: LexborNode, min_rows: int = 1) -> dict | None:
    """``{"caption", "headers", "rows"}`` for a data table, None for a layout/navigation/infobox table."""
    if (table.attributes.get("role") or "").lower() in ("presentation", "none"):
        return None
    if any(t.mem_id != table.mem_id for t in table.css("table")):
        return None
    rows = [tr for tr in table.css("tr")]
    if not rows:
        return None
    grid = _grid(rows)
    n_header = _header_rows(rows, grid)
    if n_header == 0 or n_header >= len(grid):
        return None
    header_grid = grid[:n_header]
    width = max(len(r) for r in header_grid)
    distinct = {c.text for r in header_grid for c in r if c.text}
    if width < 2 or len(distinct) < 2:
        return None
    body = [r for r in grid[n_header:] if any(c.text for c in r)]
    # A full-width row of header cells in the body is a section label, not a record.
    body = [r for r in body if not (all(c.header for c in r) and len({c.origin for c in r}) == 1)]
    if len(body) < min_rows or not body:
        return None
    # A header may carry a trailing control cell the rows lack ("»" to show more columns): drop
    # such symbol-only columns until the header fits the rows.
    body_width = Counter(len(r) for r in body).most_common(1)[0][0]
    while width > body_width and not _ALNUM_RE.search(_column_text(header_grid, width - 1)):
        width -= 1
    if sum(1 for r in body if len(r) == width) < CONSISTENT_SHARE * len(body):
        return None
    headers = _headers(header_grid, width)
    records = []
    for row in body:
        texts = [c.text for c in row[:width]] + [""] * (width - len(row))
        records.append(dict(zip(headers, texts, strict=True)))
    caption_node = table.css_first("caption")
    caption = visible_text(caption_node) if caption_node is not None else ""
    return {"caption": caption or None, "headers": headers, "rows": records}


def extract(
    html: str,
    base_url: str = "",
    *,
    min_rows: int = 1,
    limit: int | None = None,
    selectors: dict | None = None,
    **_: Any,
) -> dict:
    """Every data table on ``html`` in page order (see the module docstring for what counts)."""
    if isinstance(min_rows, bool) or not isinstance(min_rows, int) or min_rows < 1:
        raise ToolError(f"min_rows must be an integer >= 1, got {min_rows!r}", code="BAD_PARAMS")
    tree = parse_html(html)
    strip_junk(tree)
    hidden: dict[int, bool] = {}
    tables = []
    for index, table in enumerate(tree.css("table")):
        if hidden_in_tree(table, hidden):
            continue
        data = table_to_json(table, min_rows)
        if data is not None:
            data["index"] = index
            tables.append(data)
    return {"tables": apply_limit(tables, limit)}


async def run(ctx: ToolContext, min_rows: int = 1, limit: int | None = None) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract`."""
    html, url = await page_html(ctx)
    return extract(html, url, min_rows=min_rows, limit=limit)
