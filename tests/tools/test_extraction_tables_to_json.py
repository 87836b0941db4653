"""tables_to_json: the Wikipedia wikitables against TRUTH.json, structure-based rejection of layout,
navigation and infobox tables, rowspan/colspan, header quirks."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import tables_to_json
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import assert_valid_output, context, open_offline, page_text, truth

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
    assert table["headers"] == ["Team", "Score / Home", "Score / Away"]
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
async def test_run_in_a_real_browser(page):
    await open_offline(page, realpage(WIKI))
    out = await tables_to_json.run(context(page, "tables_to_json"))
    assert_valid_output("tables_to_json", out)
    assert_matches_truth(out["tables"])
