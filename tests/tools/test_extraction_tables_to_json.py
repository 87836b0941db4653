"""tables_to_json: the table truths (Wikipedia, a sports schedule, a government list) against
TRUTH.json, structure-based rejection of layout, navigation and infobox tables, rowspan/colspan,
repeated header rows, ragged rows, header quirks, and choosing a table by place, words or size."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import tables_to_json
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import assert_valid_output, open_offline, page_text, truth

WIKI = "wikipedia_microsoft.html"


def extract(html: str, **params) -> list[dict]:
    out = tables_to_json.extract(html, "https://en.wikipedia.org/wiki/Microsoft", **params)
    assert_valid_output("tables_to_json", out)
    return out["tables"]


def assert_matches_truth(tables: list[dict]) -> None:
    expected = truth()[WIKI]["tables"]
    assert len(tables) == len(expected) == 3  # the three wikitables among the page's 22 tables
    for table, item in zip(tables, expected, strict=True):
        assert table["caption"] == item["caption"]
        assert table["headers"] == item["header"]
        assert len(table["rows"]) + 1 == item["n_rows"]  # the truth counts every <tr>, the header row too
        assert list(table["rows"][0].values()) == item["first"]
        assert list(table["rows"][-1].values()) == item["last"]


def test_wikipedia_wikitables_match_truth():
    tables = extract(page_text(WIKI))
    assert_matches_truth(tables)
    revenue = tables[1]["rows"]
    assert [r["Year"] for r in revenue] == [str(y) for y in range(2005, 2024)]  # every row, in order
    assert revenue[13]["Net income in million US$ [190]"] == "16,571"  # 2018


def test_other_real_pages():
    [html_table] = extract(page_text("wikipedia_html_article.html"))
    assert html_table["caption"] == "HTML escape sequence examples"
    assert html_table["headers"][:4] == ["Named", "Decimal", "Hexadecimal", "Result"]
    for name in ("hn_front_2026.html", "hn_item_36817231.html", "bing_serp_microsoft_wikipedia.html"):
        assert extract(page_text(name)) == [], name  # layout tables only


def test_header_with_a_control_cell_the_rows_lack():
    ranking = extract(page_text("userbenchmark_cpu_table.html"), min_rows=10)
    [cpu] = ranking
    assert len(cpu["rows"]) == 50
    assert cpu["headers"][:2] == ["", ""] and cpu["columns"][:2] == ["column 1", "column 2"]
    assert cpu["headers"][2:] == [
        "User rating %",
        "Value %",
        "Avg. bench %",
        "1-Core Pts",
        "8-Core Pts",
        "Mkt. share %",
        "Age months",
        "Price",
    ]
    assert cpu["rows"][0]["Price"].startswith("$1,454")


SPANS = """<table><caption>Results <sup>[1]</sup></caption>
<thead><tr><th rowspan="2">Team</th><th colspan="2">Score</th></tr><tr><th>Home</th><th>Away</th></tr></thead>
<tbody>
<tr><td rowspan="2">Red</td><td>1</td><td>2</td></tr>
<tr><td>3</td><td>4</td></tr>
<tr><th colspan="3">Group B</th></tr>
<tr><td>Blue<span style="display:none">sortkey</span></td><td colspan="2">walkover</td></tr>
</tbody></table>"""

NOT_DATA = """
<table class="infobox"><tr><th colspan="2">Acme Corp</th></tr><tr><th>Founded</th><td>1950</td></tr>
  <tr><th>Revenue</th><td>US$ 5 billion</td></tr></table>
<table role="presentation"><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
<table class="layout"><tr><td><table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>
<table><tr><td>no</td><td>header</td></tr><tr><td>at</td><td>all</td></tr></table>
<table><tr><th>Only</th><th>Header</th></tr></table>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td></tr><tr><td>1</td></tr><tr><td>1</td><td>2</td></tr></table>
"""


def test_rowspan_colspan_stacked_headers_and_section_rows():
    [table] = extract(SPANS)
    assert table["caption"] == "Results [1]"
    assert table["headers"] == table["columns"] == ["Team", "Score / Home", "Score / Away"]
    assert table["rows"] == [
        {"Team": "Red", "Score / Home": "1", "Score / Away": "2"},
        {"Team": "Red", "Score / Home": "3", "Score / Away": "4"},
        {"Team": "Blue", "Score / Home": "walkover", "Score / Away": "walkover"},
    ]


def test_layout_navigation_and_infobox_tables_are_skipped():
    # nested tables: the outer one is layout, the inner one is a real (tiny) data table
    tables = extract(NOT_DATA)
    assert [t["headers"] for t in tables] == [["x", "y"]]


def test_min_rows_and_limit():
    assert len(extract(page_text(WIKI), min_rows=5)) == 2
    assert [t["caption"] for t in extract(page_text(WIKI), limit=1)] == ["Sales by region (2023) [184]"]
    with pytest.raises(ToolError):
        extract(SPANS, min_rows=0)


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage(WIKI))
    out = await on_page("extraction.tables_to_json")
    assert_valid_output("tables_to_json", out)
    assert_matches_truth(out["tables"])


# --- sports and government tables: repeated header rows, unlabelled columns, ragged rows ----------


def rows_as_lists(table: dict) -> list[list[str]]:
    return [list(row.values()) for row in table["rows"]]


@pytest.mark.parametrize(
    "name", ["basketball_reference_gsw_2017_games_table.html", "fdic_failed_bank_list_table_2014.html"]
)
def test_sports_and_government_tables_match_truth(name):
    tables = extract(page_text(name))
    expected = truth()[name]["tables"]
    assert len(tables) == len(expected)
    for table, item in zip(tables, expected, strict=True):
        assert table["headers"] == item["header"]  # "" for an unlabelled column, as shown
        assert len(table["columns"]) == len(set(table["columns"])) == item["n_cols"]
        assert len(table["rows"]) == item["n_data_rows"]  # repeated header rows are not data
        rows = rows_as_lists(table)
        assert rows[0] == item["first_row"] and rows[-1] == item["last_row"]
        if "second_row" in item:
            assert rows[1] == item["second_row"]
        if "caption" in item:
            assert table["caption"].startswith(item["caption"])
    if "wins" in expected[0]:
        for table, item in zip(tables, expected, strict=True):
            results = [row[table["columns"][7]] for row in table["rows"]]
            assert (results.count("W"), results.count("L")) == (item["wins"], item["losses"])
    for ragged in expected[0].get("ragged_rows", []):
        row = rows_as_lists(tables[0])[ragged["data_row_index"]]
        assert row[0] == ragged["bank"] and row[ragged["n_cells"] :] == [""] * (10 - ragged["n_cells"])


REPEATED = """<table><caption>Tabelle der Spiele</caption>
<thead><tr><th>Nr.</th><th>Gegner</th><th></th><th>Tore</th></tr></thead>
<tbody>
<tr><td>1</td><td>Hamburg</td><td>H</td><td>2:1</td></tr>
<tr><td>2</td><td>Bremen</td><td>A</td><td>0:0</td></tr>
<tr class="zwischenkopf"><th>Nr.</th><th>Gegner</th><th></th><th>Tore</th></tr>
<tr><td>3</td><td>Köln</td><td>H</td></tr>
<tr><td>Nr.</td><td>Gegner</td><td></td><td>Tore</td></tr>
<tr><td>4</td><td>Mainz</td><td>A</td><td>3:2</td></tr>
</tbody></table>"""

# Written with <td> only: a first row of labels above a column of numbers is the header.
TD_HEADER = """<table>
<tr><td>Województwo</td><td>Ludność</td><td>Powierzchnia km²</td></tr>
<tr><td>mazowieckie</td><td>5 514 699</td><td>35 558</td></tr>
<tr><td>śląskie</td><td>4 402 950</td><td>12 333</td></tr>
<tr><td>wielkopolskie</td><td>3 496 450</td><td>29 826</td></tr>
</table>
<table><tr><td><b>State</b></td><td><b>Capital</b></td></tr>
<tr><td>Bavaria</td><td>Munich</td></tr><tr><td>Saxony</td><td>Dresden</td></tr></table>
<table><tr><td>just</td><td>words</td></tr><tr><td>in</td><td>cells</td></tr><tr><td>no</td><td>header</td></tr></table>"""

# A menu laid out as a table: the headers link to other sections, every cell is (mostly) a link.
LINK_GRID = """<table><tr><th><a href="https://cpu.example.com/">CPU</a></th><th><a href="https://gpu.example.com/">GPU</a></th></tr>
<tr><td><a href="/cpu/1">Ryzen 5 7600</a> <a href="/cpu/1#p">$199</a></td><td><a href="/gpu/1">RTX 4060</a> $299</td></tr></table>
<table><tr><th><a href="?sort=name">Name</a></th><th><a href="?sort=price">Price</a></th></tr>
<tr><td><a href="/p/1">Widget</a></td><td><a href="/p/1">$5</a></td></tr></table>"""


def test_repeated_header_rows_are_dropped_and_short_rows_padded():
    [table] = extract(REPEATED)
    assert table["headers"] == ["Nr.", "Gegner", "", "Tore"]
    assert table["columns"] == ["Nr.", "Gegner", "column 3", "Tore"]
    assert rows_as_lists(table) == [
        ["1", "Hamburg", "H", "2:1"],
        ["2", "Bremen", "A", "0:0"],
        ["3", "Köln", "H", ""],
        ["4", "Mainz", "A", "3:2"],
    ]


def test_a_header_written_with_td_cells():
    numbers, bold = extract(TD_HEADER)
    assert numbers["headers"] == ["Województwo", "Ludność", "Powierzchnia km²"] and len(numbers["rows"]) == 3
    assert bold["headers"] == ["State", "Capital"] and rows_as_lists(bold)[1] == ["Saxony", "Dresden"]


def test_a_link_grid_is_navigation_but_sortable_headers_are_not():
    [table] = extract(LINK_GRID)
    assert table["headers"] == ["Name", "Price"]


# --- choosing a table ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, captions_or_headers",
    [
        ({"nth": 2}, ["Year"]),
        ({"nth": -1}, ["Shareholder name"]),
        ({"nth": 1}, ["Region"]),
        ({"match": "revenue"}, ["Year"]),
        ({"match": "Umsatz"}, ["Year"]),  # German word, English page: the vocabulary links them
        ({"match": "przychody"}, ["Year"]),
        ({"match": "akcjonariuszy"}, ["Shareholder name"]),
        ({"match": "Aktionäre"}, ["Shareholder name"]),
        ({"match": "shareholders"}, ["Shareholder name"]),
        ({"match": "sales by region"}, ["Region"]),
        ({"match": "employees"}, ["Year"]),
        ({"largest": True}, ["Year"]),
        ({"match": "revenue", "nth": 1}, ["Year"]),
    ],
)
def test_choose_a_table_by_place_words_or_size(params, captions_or_headers):
    tables = extract(page_text(WIKI), **params)
    assert [t["headers"][0] for t in tables] == captions_or_headers
    assert all(t["nth"] in (1, 2, 3) for t in tables)


def test_the_words_point_at_the_data_table_not_a_side_table():
    # "the CPU table": the side grids have a "CPU" column header but are menus; the ranking is
    # introduced as "the definitive list of top CPUs".
    [cpu] = extract(page_text("userbenchmark_cpu_table.html"), match="CPU")
    assert len(cpu["rows"]) == 50
    small = (
        """<h2>Prices</h2><table><tr><th>CPU</th><th>Price</th></tr><tr><td>A</td><td>1</td></tr></table>
    <h2>Benchmark results of desktop CPUs</h2><table><tr><th>Model</th><th>Score</th></tr>"""
        + "".join(f"<tr><td>M{i}</td><td>{i}</td></tr>" for i in range(30))
        + "</table>"
    )
    [big] = extract(small, match="CPU")
    assert len(big["rows"]) == 30 and big["nth"] == 2


def test_a_choice_that_matches_nothing_says_so():
    with pytest.raises(ToolError) as e:
        extract(page_text(WIKI), match="weather forecast")
    assert e.value.code == "NO_MATCH" and "table 2" in str(e.value)
    with pytest.raises(ToolError) as e:
        extract(page_text(WIKI), nth=7)
    assert e.value.code == "NO_MATCH" and "3 matching data table(s)" in str(e.value)
    with pytest.raises(ToolError):
        extract(SPANS, nth=0)


@pytest.mark.parametrize(
    "name, match, rows",
    [
        ("fdic_failed_bank_list_table_2014.html", "upadłych banków", 524),  # Polish inflection
        ("fdic_failed_bank_list_table_2014.html", "failed banks", 524),
        ("basketball_reference_gsw_2017_games_table.html", "play-off", 17),  # a hyphenated word
        ("basketball_reference_gsw_2017_games_table.html", "Spiele", 82),  # "G" is titled "Games"
        ("basketball_reference_gsw_2017_games_table.html", "schedule", 82),  # what the page is about
        ("basketball_reference_gsw_2017_games_table.html", "regulären Saison", 82),
        ("userbenchmark_cpu_table.html", "procesorów", 50),
    ],
)
def test_words_in_any_form_name_a_table(name, match, rows):
    [table] = extract(page_text(name), match=match)
    assert len(table["rows"]) == rows


def test_max_rows_keeps_the_first_rows_of_the_table_chosen_on_all_its_rows():
    """ "the biggest table, first 5 rows": the table is chosen on all its rows, then cut."""
    html = realpage(WIKI).read_text(encoding="utf-8")
    [table] = extract(html, largest=True, max_rows=5)
    full = extract(html, largest=True)[0]
    assert table["headers"] == full["headers"] and table["rows"] == full["rows"][:5]
    assert len(full["rows"]) > 5
    assert [len(t["rows"]) for t in extract(html, max_rows=2)] == [2, 2, 2]
    with pytest.raises(ToolError):
        extract(html, max_rows=0)


def test_smallest_is_the_data_table_with_the_fewest_rows():
    html = realpage(WIKI).read_text(encoding="utf-8")
    [table] = extract(html, smallest=True)
    assert table["headers"][0] == "Region" and len(table["rows"]) == 2  # of 2, 19 and 11 data rows
