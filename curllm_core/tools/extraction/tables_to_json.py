"""Data tables as JSON, told apart from layout, navigation and infobox tables by their structure.

A table counts as a data table when:

* it is not ``role=presentation``/``none`` and holds no nested table (nesting is layout);
* it has a header naming at least two distinct columns: ``<thead>`` rows, or leading rows made
  only of ``<th>`` (or ``role=columnheader``) cells, or a first row of short, distinct labels above
  a column of numbers (tables written with ``<td>`` only). An infobox's single title cell spanning
  both columns is no header; its ``<th>label</th><td>value</td>`` rows are key/value pairs;
* it is not a grid of links whose column headers are links too (a menu laid out as a table);
* most body rows (60%) span the header's number of columns, after rowspan/colspan expansion;
* it has at least ``min_rows`` data rows.

In the body, copies of the header rows (long tables repeat them every so many rows) and full-width
section labels are not records; rows with fewer cells than the header are padded with "".

``headers`` are the column names as the page shows them ("" for an unlabelled column); ``columns``
are the keys of each row object (the same names, made unique: "column 4" for an unlabelled one,
"Score (2)" for a repeated one). Cell text is the visible text: hidden sort keys left out,
footnote markers kept as written ("Revenue in million US$ [190]").

**Choosing tables** (`choose_tables`): ``nth`` (1 = the first data table, -1 the last),
``match`` (words naming the table, matched against its caption, headers, the heading above it and,
more weakly, the text just before it; in English, Polish or German, inflection-tolerant, with a
small vocabulary of words tables are named by), ``largest`` (the one with the most rows).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from selectolax.lexbor import LexborNode

from ... import offload
from ...errors import BadParams, NoMatch
from ...text import fold
from ...tool import ToolContext
from ._html import apply_limit, hidden_in_tree, page_html, parse_html, strip_junk, visible_text

_ALNUM_RE = re.compile(r"[^\W_]")
_NUMERIC_RE = re.compile(r"^[\s$€£¥%+\-−–.,:/()\d]*\d[\s$€£¥%+\-−–.,:/()\dkKmMbB]*$")
MAX_SPAN = 1000  # a colspan/rowspan beyond this is broken markup; browsers clamp similarly
CONSISTENT_SHARE = 0.6
MAX_LABEL = 40  # a header label longer than this is a sentence, not a column name
#: How much a match in the text before a table counts against one in its caption or headers.
CONTEXT_WEIGHT = 0.4
CONTEXT_CHARS = 400


@dataclass(frozen=True)
class _Cell:
    text: str
    header: bool
    origin: int  # the id of the source cell, so spanned copies can be recognised
    bold: bool = False  # the cell's text is all bold (<b>/<strong>): a header written with <td>
    link_only: bool = False  # the cell's text is all inside links
    link_mostly: bool = False  # at least half of the cell's text is inside links
    link_path: str | None = None  # the path of the cell's only link


def _span(node: LexborNode, name: str) -> int:
    try:
        value = int((node.attributes.get(name) or "1").strip())
    except ValueError:
        return 1
    return min(max(value, 1), MAX_SPAN)


def _row_cells(tr: LexborNode) -> list[LexborNode]:
    return [c for c in tr.iter() if c.tag in ("td", "th")]


def _text_in(node: LexborNode, tags: tuple[str, ...]) -> str:
    return "".join(visible_text(n) for n in node.css(", ".join(tags)))


def _make_cell(node: LexborNode) -> _Cell:
    text = visible_text(node)
    header = node.tag == "th" or (node.attributes.get("role") or "") == "columnheader"
    bold = link_only = link_mostly = False
    link_path = None
    if text:
        squeezed = text.replace(" ", "")
        bold = _text_in(node, ("b", "strong")).replace(" ", "") == squeezed
        links = node.css("a[href]")
        linked = len("".join(visible_text(a) for a in links).replace(" ", ""))
        link_only = bool(links) and linked == len(squeezed)
        link_mostly = bool(links) and linked >= 0.5 * len(squeezed)
        if link_only and len(links) == 1:
            link_path = (links[0].attributes.get("href") or "").strip()
    return _Cell(text, header, node.mem_id, bold, link_only, link_mostly, link_path)


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
            cell = _make_cell(node)
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


def _numeric(text: str) -> bool:
    return bool(_NUMERIC_RE.match(text))


def _label_row(row: list[_Cell], body: list[list[_Cell]]) -> bool:
    """A first row written with ``<td>`` that is a header: all bold labels, or short distinct labels
    above at least one column that is (almost) all numbers."""
    texts = [c.text for c in row]
    if (
        len(row) < 2
        or not all(texts)
        or len(set(texts)) < len(texts)
        or any(len(t) > MAX_LABEL for t in texts)
    ):
        return False
    if all(c.bold for c in row) and not all(c.bold for r in body for c in r if c.text):
        return True
    if len(body) < 2 or any(_numeric(t) for t in texts):
        return False
    for col in range(len(row)):
        values = [r[col].text for r in body if col < len(r) and r[col].text]
        if len(values) >= 2 and sum(map(_numeric, values)) >= 0.8 * len(values):
            return True
    return False


def _header_rows(rows: list[LexborNode], grid: list[list[_Cell]]) -> int:
    """How many leading rows are header rows: ``<thead>`` rows, else rows made only of header cells,
    else a first row of labels (see `_label_row`)."""
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
    if count == 0 and len(grid) >= 2 and _label_row(grid[0], grid[1:]):
        return 1
    return count


def _column_text(header_grid: list[list[_Cell]], col: int) -> str:
    return " ".join(row[col].text for row in header_grid if col < len(row))


def _headers(header_grid: list[list[_Cell]], width: int) -> tuple[list[str], list[str]]:
    """Column names as shown, and as unique row keys. Stacked header rows are joined top-down
    ("Revenue / 2023"), spans not repeated."""
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
    shown: list[str] = []
    unique: list[str] = []
    counts: dict[str, int] = {}
    for i, name in enumerate(names):
        if not _ALNUM_RE.search(name):  # empty, or controls only ("» «")
            shown.append("")
            name = f"column {i + 1}"
        else:
            shown.append(name)
        counts[name] = counts.get(name, 0) + 1
        unique.append(name if counts[name] == 1 else f"{name} ({counts[name]})")
    return shown, unique


def _repeats_header(row: list[_Cell], header_grid: list[list[_Cell]]) -> bool:
    """A body row that repeats a header row (long tables repeat their header every so many rows)."""
    texts = [c.text for c in row]
    if not any(texts):
        return False
    for header in header_grid:
        labels = [c.text for c in header]
        same = sum(1 for a, b in zip(texts, labels, strict=False) if a and a == b)
        filled = sum(1 for t in texts if t)
        if same and same >= 0.6 * filled and (all(c.header for c in row) or same == filled):
            return True
    return False


def _link_grid(header_grid: list[list[_Cell]], body: list[list[_Cell]]) -> bool:
    """A menu laid out as a table: every column header links to another page and every filled body
    cell is mostly a link. Sortable headers link back to the same page (a query or fragment): not a menu."""
    headers = [c for row in header_grid for c in row if c.text]
    if not headers or not all(c.link_only and c.link_path for c in headers):
        return False
    targets = set()
    for c in headers:
        parts = urlsplit(c.link_path or "")
        targets.add((parts.netloc, parts.path))
    if len(targets) < len(headers) or ("", "") in targets:
        return False
    cells = [c for row in body for c in row if c.text]
    return bool(cells) and all(c.link_mostly for c in cells)


def table_to_json(table: LexborNode, min_rows: int = 1) -> dict | None:
    """``{"caption", "headers", "columns", "rows"}`` for a data table, None for a
    layout/navigation/infobox table."""
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
    body = [
        r
        for r in body
        # A full-width row of header cells is a section label; a copy of the header is no record.
        if not (all(c.header for c in r) and len({c.origin for c in r}) == 1)
        and not _repeats_header(r, header_grid)
    ]
    if len(body) < min_rows or not body or _link_grid(header_grid, body):
        return None
    # A header may carry a trailing control cell the rows lack ("»" to show more columns): drop
    # such symbol-only columns until the header fits the rows.
    body_width = Counter(len(r) for r in body).most_common(1)[0][0]
    while width > body_width and not _ALNUM_RE.search(_column_text(header_grid, width - 1)):
        width -= 1
    if sum(1 for r in body if len(r) == width) < CONSISTENT_SHARE * len(body):
        return None
    headers, columns = _headers(header_grid, width)
    records = []
    for row in body:
        texts = [c.text for c in row[:width]] + [""] * (width - len(row))  # ragged rows padded
        records.append(dict(zip(columns, texts, strict=True)))
    caption_node = table.css_first("caption")
    caption = visible_text(caption_node) if caption_node is not None else ""
    return {"caption": caption or None, "headers": headers, "columns": columns, "rows": records}


# --- choosing tables -------------------------------------------------------------------------------

#: Words tables are named by, in English, Polish and German: any word of a group matches the others
#: ("Tabelle mit dem Umsatz" finds a "Revenue" column). Stems, see `_stem`.
_CONCEPTS = [
    "revenue revenues turnover umsatz umsätze erlös erlöse przychód przychody przychodów obroty",
    "sales sale verkauf verkäufe absatz sprzedaż sprzedaży",
    "income profit profits earnings gewinn gewinne einkommen ertrag zysk zyski dochód dochody",
    "shareholder shareholders stockholder owner owners ownership aktionär aktionäre anteilseigner "
    "eigentümer akcjonariusz akcjonariusze akcjonariuszy udziałowiec udziałowcy właściciel",
    "employee employees staff workforce headcount mitarbeiter beschäftigte angestellte pracownik "
    "pracownicy pracowników zatrudnienie",
    "year years jahr jahre rok lata",
    "price prices cost costs preis preise kosten cena ceny koszt koszty",
    "population einwohner bevölkerung ludność populacja mieszkańcy",
    "date dates datum daten data",
    "country countries land länder staat kraj kraje państwo",
    "city cities town stadt städte miasto miasta",
    "game games match matches spiel spiele partie mecz mecze",
    "player players spieler zawodnik zawodnicy gracz",
    "team teams mannschaft mannschaften drużyna drużyny zespół",
    "result results score scores ergebnis ergebnisse wynik wyniki",
    "schedule fixtures spielplan terminplan terminarz harmonogram",
    "bank banks banken banki",
    "share percentage percent anteil prozent udział procent",
    "assets vermögen aktiva aktywa",
    "name names namen nazwa nazwy",
    "processor processors cpu cpus prozessor prozessoren procesor procesory",
]
_FILLER = frozenset(
    "the a an of with for about on in showing that this table tables data list all "
    "tabela tabelę tabeli tabelka tabelkę z ze o w na dla tabelle tabellen mit dem den der die das des "
    "von über zu zum zur im".split()
)


#: Inflection endings (Polish, German, English plural) taken off a long word before it is cut to
#: five letters, so "banków" meets "bank" and "procesorów" meets "processor".
_ENDINGS = (
    "ami",
    "ach",
    "ych",
    "ich",
    "ów",
    "ow",
    "om",
    "ie",
    "en",
    "er",
    "es",
    "y",
    "i",
    "e",
    "s",
    "a",
    "u",
)


def _stem(word: str) -> str:
    """Inflection-tolerant form: a long word without its ending, cut to five letters (PL/DE endings
    vary after them); a plural "s" dropped from shorter words ("CPUs" -> "cpu")."""
    word = fold(word)
    if len(word) > 5:
        for ending in _ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= 4:
                word = word[: -len(ending)]
                break
        return word[:5]
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text)


_CONCEPT_OF: dict[str, int] = {}
for _i, _group in enumerate(_CONCEPTS):
    for _w in _group.split():
        _CONCEPT_OF.setdefault(_stem(_w), _i)


def _stems(text: str) -> set[str]:
    out: set[str] = set()
    for word in _words(text):
        stem = _stem(word)
        out.add(stem)
        if stem in _CONCEPT_OF:
            out.add(f"#{_CONCEPT_OF[stem]}")
        for part in _split_compound(fold(word)):  # "Umsatzentwicklung" holds "umsatz"
            out.add(f"#{_CONCEPT_OF[part]}")
    return out


def _split_compound(word: str) -> list[str]:
    """Concept stems a long (German) compound word starts or ends with."""
    if len(word) < 9:
        return []
    return [s for s in _CONCEPT_OF if len(s) == 5 and (word.startswith(s) or word.endswith(s))]


def _query_terms(match: str) -> list[set[str]]:
    """Each meaningful word of ``match`` as the set of forms that count as it (a hyphenated word is
    one term: "play-off" is "playoff", "play" or "off")."""
    terms = []
    for token in match.split():
        words = _words(token)
        if not words or (len(words) == 1 and fold(words[0]) in _FILLER):
            continue
        forms: set[str] = set()
        for word in ["".join(words), *words] if len(words) > 1 else words:
            stem = _stem(word)
            forms.add(stem)
            if stem in _CONCEPT_OF:
                forms.add(f"#{_CONCEPT_OF[stem]}")
            for part in _split_compound(fold(word)):
                forms.add(f"#{_CONCEPT_OF[part]}")
        terms.append(forms)
    return terms


_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _context(table: LexborNode) -> tuple[str, str]:
    """The heading above ``table`` (the nearest one before it in the document) and the text just
    before it (up to CONTEXT_CHARS characters)."""
    heading = ""
    before: list[str] = []
    size = 0
    node: LexborNode | None = table
    levels = 0
    while node is not None and node.tag not in ("body", "html") and levels < 12 and not heading:
        sibling = node.prev
        steps = 0
        while sibling is not None and steps < 40 and not heading:
            steps += 1
            if sibling.is_element_node:
                if sibling.tag in _HEADING_TAGS:
                    heading = visible_text(sibling)
                    break
                inner = sibling.css(", ".join(_HEADING_TAGS))
                if inner:
                    heading = visible_text(inner[-1])
                if size < CONTEXT_CHARS and sibling.tag != "table":
                    text = visible_text(sibling)
                    before.append(text)
                    size += len(text)
            sibling = sibling.prev
        node = node.parent
        levels += 1
    return heading, " ".join(reversed(before))[-CONTEXT_CHARS:]


def _describe(table: dict) -> str:
    name = table["caption"] or ", ".join(h for h in table["headers"] if h)[:60]
    return f"table {table['nth']} ({name}, {len(table['rows'])} rows)"


def _strength(terms: list[set[str]], table: dict, node: LexborNode, page: set[str]) -> float:
    """How well ``terms`` name ``table``: the share of them found in its caption, headers or heading;
    a match only in the text just before it counts CONTEXT_WEIGHT, and one only in the page's own
    title (what the page as a whole is about) half that, for every table alike (the biggest wins)."""
    heading, before = _context(node)
    # The page's own names for the table and its columns: labels, and the long names abbreviated
    # headers carry ("G" titled "Games").
    attrs = [node.attributes.get(a) or "" for a in ("aria-label", "summary", "title", "id")]
    for cell in node.css("thead th, tr:first-child th")[:60]:
        attrs += [cell.attributes.get(a) or "" for a in ("title", "aria-label", "abbr", "data-tip")]
    strong = _stems(" ".join([table["caption"] or "", " ".join(table["headers"]), heading, *attrs]))
    weak = _stems(before)
    score = 0.0
    for forms in terms:
        if forms & strong:
            score += 1.0
        elif forms & weak:
            score += CONTEXT_WEIGHT
        elif forms & page:
            score += CONTEXT_WEIGHT / 2
    return score / len(terms) if terms else 0.0


def page_topic(tree: Any) -> str:
    """What a page is about: its title and its first-level heading."""
    parts = [visible_text(n) for n in tree.css("title, h1")[:3]]
    return " ".join(p for p in parts if p)


def choose_tables(
    tables: list[tuple[dict, LexborNode]],
    *,
    nth: int | None = None,
    match: str | None = None,
    largest: bool = False,
    topic: str = "",
    smallest: bool = False,
) -> list[dict]:
    """The tables the choice points at (all of them without one). Raises ToolError (NO_MATCH) when
    the words name none of them or the page has fewer tables than ``nth``."""
    chosen = tables
    if match and match.strip():
        terms = _query_terms(match)
        if terms:
            page = _stems(topic)
            scored = [(_strength(terms, t, node, page), t, node) for t, node in tables]
            best = max((s for s, _, _ in scored), default=0.0)
            if best <= 0:
                raise NoMatch(
                    f"no table on the page matches {match!r}; the data tables are: "
                    + ("; ".join(_describe(t) for t, _ in tables) or "none")
                )
            # Close matches are all candidates; the biggest of them is the data table the words
            # point at (a small side table with the word in a header never wins over it).
            close = [(t, node) for s, t, node in scored if s >= 0.5 * best]
            top = max(len(t["rows"]) for t, _ in close)
            chosen = close if (nth is not None or largest) else [c for c in close if len(c[0]["rows"]) == top]
    if nth is not None:
        if nth == 0 or abs(nth) > len(chosen):
            raise NoMatch(
                f"table {nth} was asked for, but the page has {len(chosen)} matching data table(s): "
                + ("; ".join(_describe(t) for t, _ in chosen) or "none")
            )
        chosen = [chosen[nth - 1 if nth > 0 else nth]]
    if largest and chosen:
        top = max(len(t["rows"]) for t, _ in chosen)
        chosen = [next(c for c in chosen if len(c[0]["rows"]) == top)]
    if smallest and chosen:
        low = min(len(t["rows"]) for t, _ in chosen)
        chosen = [next(c for c in chosen if len(c[0]["rows"]) == low)]
    return [t for t, _ in chosen]


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise BadParams(f"{name} must be an integer >= {minimum}, got {value!r}")


def extract(
    html: str,
    base_url: str = "",
    *,
    min_rows: int = 1,
    limit: int | None = None,
    nth: int | None = None,
    match: str | None = None,
    largest: bool = False,
    smallest: bool = False,
    max_rows: int | None = None,
    selectors: dict | None = None,
    **_: Any,
) -> dict:
    """The data tables on ``html`` in page order (see the module docstring for what counts), or the
    ones ``nth``/``match``/``largest`` choose. Each carries ``nth`` (its place among the page's data
    tables, from 1) and ``index`` (its place among all ``<table>`` elements, from 0). ``max_rows``
    keeps the first N data rows of each table returned (the table is chosen on all of its rows)."""
    _check_int("min_rows", min_rows, 1)
    if max_rows is not None:
        _check_int("max_rows", max_rows, 1)
    if nth is not None and (isinstance(nth, bool) or not isinstance(nth, int) or nth == 0):
        raise BadParams(f"nth must be a non-zero integer (1 = first, -1 = last), got {nth!r}")
    tree = parse_html(html)
    strip_junk(tree)
    hidden: dict[int, bool] = {}
    found: list[tuple[dict, LexborNode]] = []
    for index, table in enumerate(tree.css("table")):
        if hidden_in_tree(table, hidden):
            continue
        data = table_to_json(table, min_rows)
        if data is not None:
            data["index"] = index
            data["nth"] = len(found) + 1
            found.append((data, table))
    topic = page_topic(tree) if match else ""
    tables = choose_tables(
        found, nth=nth, match=match, largest=bool(largest), smallest=bool(smallest), topic=topic
    )
    tables = apply_limit(tables, limit)
    if max_rows is not None:
        tables = [{**t, "rows": t["rows"][:max_rows]} for t in tables]
    return {"tables": tables}


async def run(
    ctx: ToolContext,
    min_rows: int = 1,
    limit: int | None = None,
    nth: int | None = None,
    match: str | None = None,
    largest: bool = False,
    smallest: bool = False,
    max_rows: int | None = None,
) -> dict:
    """Tool entry point: one round trip for the HTML, then `extract` (a huge page's in a worker process: `offload`)."""
    html, url = await page_html(ctx)
    return await offload.run(
        extract,
        html,
        url,
        size=len(html),
        min_rows=min_rows,
        limit=limit,
        nth=nth,
        match=match,
        largest=largest,
        smallest=smallest,
        max_rows=max_rows,
    )
