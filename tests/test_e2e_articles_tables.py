"""Stories, comments, search results and tables end to end: the rule planner and a real browser on the
real page snapshots, served over http from 127.0.0.1 and opened as files. PL, EN and DE
instructions; every output format for tables. The tasks run as `curllm run` runs them, in this
process with one browser (tests/in_process.py); the formats and an error's exit code through the
real `curllm` command."""

from __future__ import annotations

import csv
import io
import json

import pytest
import pytest_asyncio

from tests.conftest import REALPAGES, realpage
from tests.in_process import InProcessCurllm
from tests.test_e2e import curllm

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def truth() -> dict:
    path = REALPAGES / "TRUTH.json"
    if not path.is_file():
        pytest.skip("TRUTH.json not available (../shared/realpages)")
    return json.loads(path.read_text(encoding="utf-8"))


def where(site_url: str, name: str, how: str) -> str:
    """The snapshot's address: served over http from 127.0.0.1, or its file path."""
    path = realpage(name)
    return f"{site_url}/real/{name}" if how == "http" else str(path)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser."""
    curllm_here = InProcessCurllm(curllm_browser)
    yield curllm_here
    await curllm_here.aclose()


async def run_json(here: InProcessCurllm, instruction: str, url: str) -> dict:
    """The ``--format json`` document of a run that succeeded (the CLI's exit 0)."""
    result = await here.json(instruction, url)
    assert result["ok"], str(result["errors"])[-2000:]
    assert result["plan"]["planner"] in ("rules", "cache")
    return result


# --- stories and posts, points as one concept ---------------------------------------------------------


@pytest.mark.parametrize(
    "how, name, instruction, threshold",
    [
        ("http", "hn_front_2026.html", "stories with more than 100 points", 101),
        pytest.param("file", "hn_front_2026.html", "posty z ponad 100 punktów", 101, marks=pytest.mark.slow),
        ("http", "hackernews_front_2020.html", "Beiträge mit mindestens 300 Punkten", 300),
        ("http", "reddit_old_dataisbeautiful_top.html", "posts with more than 1000 upvotes", 1001),
        pytest.param(
            "file",
            "reddit_old_dataisbeautiful_top.html",
            "Beiträge mit mindestens 1500 Punkten",
            1500,
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_posts_above_a_points_threshold(here, site_url, truth, how, name, instruction, threshold):
    url = where(site_url, name, how)
    result = await run_json(here, instruction, url)
    want = [
        (t["title"], t["url"], t.get("points", t.get("score")))
        for t in truth[name]["items"]
        if (t.get("points", t.get("score")) or 0) >= threshold
    ]
    got = [(a["title"], a["url"], a.get("points", a.get("score"))) for a in result["data"]["articles"]]
    assert [(title, points) for title, _, points in got] == [(t, p) for t, _, p in want] and len(want) >= 3
    for (_, got_url, _), (_, want_url, _) in zip(got, want, strict=True):
        # A relative link (an Ask HN item) resolves against the page's address, or against the
        # site's home when the site's own tool read a saved page (chosen by the page's markup).
        assert got_url == want_url if want_url.startswith("http") else got_url.endswith("/" + want_url)


async def test_the_first_stories_of_a_listing(here, site_url, truth):
    url = where(site_url, "hackernews_front_2020.html", "http")
    result = await run_json(here, "die ersten 5 Beiträge", url)
    articles = result["data"]["articles"]
    want = truth["hackernews_front_2020.html"]["items"][:5]
    assert [(a["title"], a["points"], a["comments"], a["author"], a["rank"]) for a in articles] == [
        (t["title"], t["points"], t["comments"], t["user"], t["rank"]) for t in want
    ]


# --- comments ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "how, name, instruction, count",
    [
        ("http", "hn_item_36817231.html", "the comments on this story", 100),
        pytest.param("file", "hn_item_36817231.html", "alle Kommentare", 100, marks=pytest.mark.slow),
        ("http", "reddit_new_askreddit_post.html", "komentarze pod postem", 12),
    ],
)
async def test_comments_of_a_story(here, site_url, how, name, instruction, count):
    result = await run_json(here, instruction, where(site_url, name, how))
    comments = result["data"]["articles"]
    assert len(comments) == count
    assert all(c["text"] and c["url"] for c in comments)
    assert sum(1 for c in comments if c["author"]) >= count - 2  # a deleted account shows no name
    assert result["plan"]["plan"][0]["parameters"].get("kind") == "comments"


# --- search results ------------------------------------------------------------------------------------

BING = "bing_serp_microsoft_wikipedia.html"
BING_FIRST = ("Microsoft - Wikipedia", "https://en.wikipedia.org/wiki/Microsoft")


@pytest.mark.parametrize(
    "how, instruction, count",
    [
        ("http", "the 10 organic search results with title and url", 10),
        pytest.param("file", "wyniki wyszukiwania", 10, marks=pytest.mark.slow),
        ("http", "Suchergebnisse", 10),
        pytest.param("file", "die ersten 3 Suchergebnisse", 3, marks=pytest.mark.slow),
    ],
)
async def test_organic_search_results(here, site_url, how, instruction, count):
    result = await run_json(here, instruction, where(site_url, BING, how))
    results = result["data"]["articles"]
    assert len(results) == count  # not the page's 237 links
    assert (results[0]["title"], results[0]["url"]) == BING_FIRST
    assert all(r["url"].startswith("https://") and "bing.com" not in r["url"] for r in results)


def test_search_results_as_csv(site_url, tmp_path):
    out = curllm("search results", "--url", where(site_url, BING, "http"), "--format", "csv", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 10 and (rows[0]["title"], rows[0]["url"]) == BING_FIRST
    assert rows[0]["snippet"].startswith("Microsoft Corporation is an American multinational")


# --- tables: which one -----------------------------------------------------------------------------------

WIKI = "wikipedia_microsoft.html"


@pytest.mark.parametrize(
    "how, name, instruction, first_header, rows",
    [
        ("http", WIKI, "the second table", "Year", 19),
        pytest.param("file", WIKI, "druga tabela", "Year", 19, marks=pytest.mark.slow),
        ("http", WIKI, "die zweite Tabelle", "Year", 19),
        pytest.param("file", WIKI, "the revenue table", "Year", 19, marks=pytest.mark.slow),
        ("http", WIKI, "tabela akcjonariuszy", "Shareholder name", 11),
        pytest.param("http", WIKI, "Tabelle mit dem Umsatz", "Year", 19, marks=pytest.mark.slow),
        ("http", "userbenchmark_cpu_table.html", "the CPU table", "", 50),
        ("file", "fdic_failed_bank_list_table_2014.html", "the biggest table", "Bank Name", 524),
        pytest.param(
            "http",
            "basketball_reference_gsw_2017_games_table.html",
            "die größte Tabelle",
            "G",
            82,
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_one_table_by_place_words_or_size(here, site_url, how, name, instruction, first_header, rows):
    result = await run_json(here, instruction, where(site_url, name, how))
    [table] = result["data"]["tables"]
    assert table["headers"][0] == first_header and len(table["rows"]) == rows


def test_a_table_the_words_do_not_name_is_an_error(site_url, tmp_path):
    out = curllm(
        "the weather table", "--url", where(site_url, WIKI, "http"), "--format", "json", tmp=tmp_path
    )
    assert out.returncode == 1
    result = json.loads(out.stdout)
    assert [e["code"] for e in result["errors"]][:1] == ["NO_MATCH"]
    assert "Shareholder name" in result["errors"][0]["message"]  # says which tables there are


async def test_sports_tables_without_repeated_headers(here, site_url, truth):
    name = "basketball_reference_gsw_2017_games_table.html"
    result = await run_json(here, "extract the tables", where(site_url, name, "file"))
    tables = result["data"]["tables"]
    expected = truth[name]["tables"]
    assert [len(t["rows"]) for t in tables] == [e["n_data_rows"] for e in expected] == [82, 17]
    assert [t["headers"] for t in tables] == [e["header"] for e in expected]


# --- tables: every format writes every table ---------------------------------------------------------------


def test_every_format_writes_every_table(site_url, tmp_path):
    url = where(site_url, WIKI, "http")
    out = curllm("extract the tables", "--url", url, "--format", "csv", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 2 + 19 + 11
    assert [r["table"] for r in rows].count("2") == 19 and rows[0][
        "caption"
    ] == "Sales by region (2023) [184]"
    assert rows[2]["Year"] == "2005" and rows[-1]["Shareholder name"] == "Others"

    out = curllm("alle Tabellen der Seite", "--url", url, "--format", "jsonl", tmp=tmp_path)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 32 and {line["table"] for line in lines} == {1, 2, 3}
    assert lines[0] == {
        "table": 1,
        "caption": "Sales by region (2023) [184]",
        "Region": "United States",
        "Sales in billion $": "106.7",
        "share": "50.4%",
    }

    out = curllm("wszystkie tabele", "--url", url, "--format", "table", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    for title in ("Table 1: Sales by region (2023) [184] (2 rows)", "Table 2 (19 rows)", "Table 3 (11 rows)"):
        assert title in out.stdout
    assert "The Vanguard Group" in out.stdout and "211,915" in out.stdout

    out = curllm("the second table", "--url", url, "--format", "csv", tmp=tmp_path)
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 19 and {r["table"] for r in rows} == {"2"}  # its number on the page
