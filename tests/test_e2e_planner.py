"""What the rule planner understands, end to end: the rule planner and a real browser on the real page
snapshots, served over http from 127.0.0.1 and opened as files; the tasks run as `curllm run` runs
them, in this process with one browser (tests/in_process.py), and the CLI's own contracts (formats,
--fields and --limit, warnings and errors on stderr, exit codes) through the real `curllm` command.

Ordering and top-N, chosen fields (in every format, from the instruction and from --fields), counts
for every extraction, link targets named by site, and honest refusal (warnings, exit codes). The
expected answers come from ``TRUTH.json`` or from the page itself, read independently of curllm.
PL, EN and DE instructions.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import pytest_asyncio

from curllm_core.errors import PlanningError
from tests.conftest import REALPAGES, realpage
from tests.in_process import InProcessCurllm
from tests.test_e2e import curllm

pytestmark = pytest.mark.browser

CENEO, HN, REDDIT, HN_ITEM = (
    "ceneo_search_canon.html",
    "hn_front_2026.html",
    "reddit_old_dataisbeautiful_top.html",
    "hn_item_36817231.html",
)


@pytest.fixture(scope="module")
def truth() -> dict:
    path = REALPAGES / "TRUTH.json"
    if not path.is_file():
        pytest.skip("TRUTH.json not available (../shared/realpages)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser."""
    curllm_here = InProcessCurllm(curllm_browser)
    yield curllm_here
    await curllm_here.aclose()


def where(site_url: str, name: str, how: str) -> str:
    """The snapshot's address: served over http from 127.0.0.1, or its file path."""
    path = realpage(name)
    return f"{site_url}/real/{name}" if how == "http" else str(path)


def run(instruction: str, url: str, tmp: Path, *extra: str, fmt: str = "json"):
    """The real `curllm` command."""
    return curllm(instruction, "--url", url, "--format", fmt, *extra, tmp=tmp)


def items_of(result: dict) -> tuple[dict, list]:
    """The result document (``--format json``) of a run that succeeded (the CLI's exit 0), and its items."""
    assert result["ok"], str(result["errors"])[-2000:]
    assert result["plan"]["planner"] in ("rules", "cache")
    return result, result["data"][result["plan"]["expected_output"]]


def cli_items_of(out) -> tuple[dict, list]:
    assert out.returncode == 0, out.stderr + out.stdout[-2000:]
    return items_of(json.loads(out.stdout))


async def refusal(here: InProcessCurllm, instruction: str, url: str) -> str:
    """What a planning failure says (the CLI prints it as ``curllm: error [PLANNING_FAILED]: ...`` and
    exits 3 with nothing on stdout)."""
    with pytest.raises(PlanningError) as failed:
        await here.json(instruction, url)
    assert failed.value.code == "PLANNING_FAILED" and failed.value.exit_code == 3
    return str(failed.value)


def by_price(items: list, reverse: bool = False) -> list:
    """Items in price order, ties in page order (a stable sort, as the order step's)."""
    return sorted(items, key=lambda i: i["price"], reverse=reverse)


# --- ordering and top-N -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "how, instruction, count, reverse",
    [
        ("http", "the 5 cheapest products", 5, False),
        pytest.param("http", "die 3 teuersten Produkte", 3, True, marks=pytest.mark.slow),
        pytest.param("file", "produkty posortowane od najdroższego", None, True, marks=pytest.mark.slow),
        pytest.param("file", "najtańszy produkt", 1, False, marks=pytest.mark.slow),
    ],
)
async def test_products_in_price_order(here, site_url, truth, how, instruction, count, reverse):
    result, products = items_of(await here.json(instruction, where(site_url, CENEO, how)))
    want = by_price(truth[CENEO]["items"], reverse)[:count]
    assert [(p["name"], p["price"]) for p in products] == [(t["name"], t["price"]) for t in want]
    # The order is a visible step; the page's own sort control was only a speed-up.
    tools = [s["tool"] for s in result["plan"]["plan"]]
    assert "validation.order_items" in tools
    assert all(s.get("optional") for s in result["plan"]["plan"] if s["tool"] == "forms.dropdown_select")


@pytest.mark.parametrize(
    "instruction, count",
    [
        ("die 3 guenstigsten Produkte", 3),
        pytest.param("the 3 cheapset prodcuts", 3, marks=pytest.mark.slow),
        pytest.param("najtansze 3 produkty", 3, marks=pytest.mark.slow),
    ],
)
async def test_spelling_as_people_type(here, site_url, truth, instruction, count):
    """Umlauts as ae/oe/ue, Polish without diacritics and small typos: the same answer as the right
    spelling, and no word reported as not understood."""
    result, products = items_of(await here.json(instruction, where(site_url, CENEO, "http")))
    want = by_price(truth[CENEO]["items"])[:count]
    assert [(p["name"], p["price"]) for p in products] == [(t["name"], t["price"]) for t in want]
    assert not any("not understood" in w for w in result.get("warnings", [])), result.get("warnings")


@pytest.mark.parametrize(
    "how, name, instruction, count, reverse",
    [
        ("http", "geizhals_de_grafikkarten_2024.html", "die günstigsten 5 Grafikkarten", 5, False),
        pytest.param(
            "file", "ceneo_pl_gitary_yamaha_grid.html", "najtańsze 3 gitary", 3, False, marks=pytest.mark.slow
        ),
    ],
)
async def test_the_cheapest_of_a_listing_named_by_its_goods(
    here, site_url, truth, how, name, instruction, count, reverse
):
    """No kind word ("Grafikkarten", "gitary"): the listing's items, ordered over every page read; the
    page's sort control is only an optional speed-up (on a saved page it leads nowhere, and the
    answer is the same)."""
    result, products = items_of(await here.json(instruction, where(site_url, name, how)))
    want = by_price(truth[name]["items"], reverse)[:count]
    assert [(p["name"], p["price"]) for p in products] == [(t["name"], t["price"]) for t in want]
    assert all(s.get("optional") for s in result["plan"]["plan"] if s["tool"].startswith("forms."))
    assert "navigation.pagination" in {s["tool"] for s in result["plan"]["plan"]}


async def test_the_most_expensive_with_only_names_and_prices(here, site_url, truth):
    name = "geizhals_de_mainboards_am5_2024.html"
    _, products = items_of(
        await here.json("die 3 teuersten Mainboards, nur Name und Preis", where(site_url, name, "http"))
    )
    want = by_price(truth[name]["items"], reverse=True)[:3]
    assert products == [{"name": t["name"], "price": t["price"]} for t in want]


@pytest.mark.parametrize(
    "how, name, instruction, count, field",
    [
        pytest.param("http", HN, "the 5 stories with the most points", 5, "points", marks=pytest.mark.slow),
        ("file", HN, "3 artykuły z największą liczbą punktów", 3, "points"),
        pytest.param(
            "http", REDDIT, "die 4 Beiträge mit den meisten Punkten", 4, "score", marks=pytest.mark.slow
        ),
    ],
)
async def test_stories_with_the_most_points(here, site_url, truth, how, name, instruction, count, field):
    result, articles = items_of(await here.json(instruction, where(site_url, name, how)))
    want = sorted(truth[name]["items"], key=lambda t: t.get(field) or 0, reverse=True)[:count]
    # Points or score: one concept, named as the tool that read the page names it.
    got = [(a["title"], a["points"] if "points" in a else a["score"]) for a in articles]
    assert got == [(t["title"], t[field]) for t in want]
    ran = {s["tool"] for s in result["steps"]}
    assert "extraction.articles_reddit" not in ran or name == REDDIT


async def test_stories_by_comments_and_a_threshold(here, site_url, truth):
    """ "more than 100 upvotes" on Hacker News served from 127.0.0.1: not the reddit tool, and the
    order by comments over the stories above the threshold."""
    url = where(site_url, HN, "http")
    result, articles = items_of(
        await here.json("stories with more than 100 upvotes, most commented first", url)
    )
    assert "extraction.articles_reddit" not in {s["tool"] for s in result["plan"]["plan"]}
    want = {t["title"] for t in truth[HN]["items"] if (t.get("points") or 0) > 100}
    assert {a["title"] for a in articles} == want and len(want) >= 3
    comments = [a["comments"] for a in articles]
    assert comments == sorted(comments, reverse=True)


# --- fields, in every format ------------------------------------------------------------------------------


async def test_only_names_and_prices(here, site_url, truth):
    _, products = items_of(await here.json("tylko nazwy i ceny", where(site_url, CENEO, "http")))
    assert [list(p) for p in products] == [["name", "price"]] * len(truth[CENEO]["items"])
    assert products == [{"name": t["name"], "price": t["price"]} for t in truth[CENEO]["items"]]


@pytest.mark.parametrize(
    "fmt",
    ["csv", pytest.param("jsonl", marks=pytest.mark.slow), pytest.param("table", marks=pytest.mark.slow)],
)
async def test_the_fields_asked_for_in_every_format(here, site_url, tmp_path, truth, fmt):
    url = where(site_url, CENEO, "file")
    instruction = "nur Name und Preis der 3 günstigsten Produkte"
    # csv through the real command; jsonl and table as it renders them, the task run in this process
    if fmt == "csv":
        out = run(instruction, url, tmp_path, fmt=fmt)
        assert out.returncode == 0, out.stderr
        stdout = out.stdout
    else:
        stdout = await here.rendered(instruction, url, fmt)
    want = by_price(truth[CENEO]["items"])[:3]
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(stdout)))
        assert rows[0] == ["name", "price"]
        assert [(r[0], float(r[1])) for r in rows[1:]] == [(t["name"], t["price"]) for t in want]
    elif fmt == "jsonl":
        lines = [json.loads(line) for line in stdout.splitlines()]
        assert lines == [{"name": t["name"], "price": t["price"]} for t in want]
    else:
        header = next(line for line in stdout.splitlines() if "name" in line)
        assert "price" in header and "currency" not in stdout and "url" not in header
        assert all(t["name"][:20] in stdout for t in want)


def test_fields_from_the_command_line(site_url, tmp_path, truth):
    """--fields and --limit say what "only titles and urls of the first 4" says: a story's name is its
    title (one concept across sites)."""
    url = where(site_url, HN, "http")
    out = run("stories", url, tmp_path, "--fields", "name,url", "--limit", "4", fmt="csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    want = truth[HN]["items"][:4]
    assert rows == [["title", "url"], *[[t["title"], urljoin(url, t["url"])] for t in want]]


# --- counts for every extraction, link targets by site ------------------------------------------------


def hrefs(name: str, base: str) -> list[str]:
    """Every link target of the page, absolute, once each, in page order (read without curllm)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(realpage(name).read_bytes().decode("utf-8", "replace"))
    seen: dict[str, None] = {}
    for a in tree.css("a[href]"):
        url = urljoin(base, a.attributes.get("href") or "")
        if url.startswith(("http://", "https://")):
            seen.setdefault(url, None)
    return list(seen)


def on_site(url: str, name: str) -> bool:
    """The host is the site (any top-level domain) or a subdomain of it."""
    labels = (urlsplit(url).hostname or "").split(".")
    return any(label == name and i >= len(labels) - 3 for i, label in enumerate(labels[:-1]))


@pytest.mark.parametrize(
    "how, instruction, site",
    [
        ("http", "links to github", "github"),
        pytest.param("file", "linki do githuba", "github", marks=pytest.mark.slow),
        pytest.param("http", "Links zur Wikipedia", "wikipedia", marks=pytest.mark.slow),
    ],
)
async def test_links_to_a_named_site(here, site_url, how, instruction, site):
    url = where(site_url, HN_ITEM, how)
    _, links = items_of(await here.json(instruction, url))
    base = url if how == "http" else Path(url).resolve().as_uri()
    want = [u for u in hrefs(HN_ITEM, base) if on_site(u, site)]
    assert [link["url"] for link in links] == want and len(want) >= 2
    everything = hrefs(HN_ITEM, base)
    assert len(everything) > 10 * len(want)  # not "every link"


@pytest.mark.slow
async def test_a_count_on_links(here, site_url):
    url = where(site_url, HN_ITEM, "http")
    _, links = items_of(await here.json("die ersten 3 Links zu PDF-Dateien", url))
    want = [u for u in hrefs(HN_ITEM, url) if urlsplit(u).path.lower().endswith(".pdf")][:3]
    assert [link["url"] for link in links] == want and len(want) == 3


# --- honest refusal ---------------------------------------------------------------------------------------


def test_what_cannot_be_done_is_a_warning_and_the_rest_is_done(site_url, tmp_path, truth):
    out = run("log in and buy the cheapest", where(site_url, CENEO, "http"), tmp_path)
    result, products = cli_items_of(out)
    cheapest = by_price(truth[CENEO]["items"])[0]
    assert [(p["name"], p["price"]) for p in products] == [(cheapest["name"], cheapest["price"])]
    assert result["warnings"] and "log in" in result["warnings"][0] and "buy" in result["warnings"][0]
    assert "curllm: warning: not done: log in ('log in'), buy ('buy')" in out.stderr


@pytest.mark.parametrize(
    "instruction, says",
    [
        ("what is the weather tomorrow", "weather"),
        pytest.param("zaloguj się i zapłać", "log in ('zaloguj'), pay ('zapłać')", marks=pytest.mark.slow),
        pytest.param("Links zu anderen Seiten", "name no target", marks=pytest.mark.slow),
        pytest.param("erzähl mir einen Witz", "names nothing to get", marks=pytest.mark.slow),
    ],
)
async def test_nothing_doable_fails_with_planning_failed(here, site_url, instruction, says):
    assert says in await refusal(here, instruction, where(site_url, CENEO, "http"))


def test_nothing_doable_exits_3_with_the_reason_on_stderr(site_url, tmp_path):
    out = run("what is the weather tomorrow", where(site_url, CENEO, "http"), tmp_path)
    assert out.returncode == 3 and out.stdout == ""
    assert "curllm: error [PLANNING_FAILED]" in out.stderr and "weather" in out.stderr


@pytest.mark.slow
def test_an_instruction_too_long_is_bad_input(site_url, tmp_path):
    out = run("a" * 30_000, where(site_url, CENEO, "http"), tmp_path)
    assert out.returncode == 2 and "30,000 characters" in out.stderr and out.stdout == ""


# --- held-out kinds (session 11): what an outside check asked, end to end ----------------------------

BING, GEIZHALS, HN2020, FDIC, WIKI_HTML = (
    "bing_serp_microsoft_wikipedia.html",
    "geizhals_de_grafikkarten_2024.html",
    "hackernews_front_2020.html",
    "fdic_failed_bank_list_table_2014.html",
    "wikipedia_html_article.html",
)


def organic_results(name: str) -> list[str]:
    """The titles of a saved search page's organic results, read without curllm (the test knows
    this page's markup; curllm's tools must not)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(realpage(name).read_bytes().decode("utf-8", "replace"))
    return [li.css_first("h2").text(strip=True) for li in tree.css("#b_results > li.b_algo")]


@pytest.mark.parametrize(
    "how, instruction, count",
    [
        ("http", "die ersten 6 Treffer", 6),
        pytest.param("file", "wyniki", None, marks=pytest.mark.slow),
        pytest.param("http", "top 5 results", 5, marks=pytest.mark.slow),
    ],
)
async def test_bare_results_are_the_organic_results(here, site_url, how, instruction, count):
    """ "results" with no word for what they are: a search page's organic results, not products."""
    result, articles = items_of(await here.json(instruction, where(site_url, BING, how)))
    want = organic_results(BING)[:count]
    assert len(want) == (count or 10)
    assert [a["title"] for a in articles] == want
    assert all(a["url"].startswith("http") for a in articles)


async def test_a_count_before_goods_without_a_kind_word(here, site_url, truth):
    """ "two graphics cards please": two of the page's listing, in page order (exit 0, not exit 3)."""
    _, products = items_of(await here.json("two graphics cards please", where(site_url, GEIZHALS, "http")))
    want = truth[GEIZHALS]["items"][:2]
    assert [(p["name"], p["price"]) for p in products] == [(t["name"], t["price"]) for t in want]


@pytest.mark.parametrize(
    "how, instruction, fields, count",
    [
        ("file", "same tytuły postów", ["title"], None),
        pytest.param(
            "http", "tytuły i liczba punktów dla 5 pierwszych", ["title", "points"], 5, marks=pytest.mark.slow
        ),
    ],
)
async def test_fields_said_the_polish_way(here, site_url, truth, how, instruction, fields, count):
    name = REDDIT if fields == ["title"] else HN2020
    _, articles = items_of(await here.json(instruction, where(site_url, name, how)))
    want = truth[name]["items"][:count]
    assert articles == [{f: t[f] for f in fields} for t in want]


async def test_the_most_commented_in_polish(here, site_url, truth):
    _, articles = items_of(
        await here.json("najbardziej komentowane 5 wpisów", where(site_url, HN2020, "file"))
    )
    want = sorted(truth[HN2020]["items"], key=lambda t: t["comments"], reverse=True)[:5]
    assert [(a["title"], a["comments"]) for a in articles] == [(t["title"], t["comments"]) for t in want]


@pytest.mark.parametrize(
    "how, instruction, rows",
    [
        ("file", "the failed bank list table, first 10 rows", 10),
        pytest.param("http", "die ersten 3 Zeilen der Tabelle", 3, marks=pytest.mark.slow),
    ],
)
async def test_a_count_of_rows_keeps_the_first_rows(here, site_url, truth, how, instruction, rows):
    """A count of rows is not a count of tables: the one table, its first rows."""
    _, tables = items_of(await here.json(instruction, where(site_url, FDIC, how)))
    [table] = tables
    want = truth[FDIC]["tables"][0]
    assert table["headers"] == want["header"] and len(table["rows"]) == rows
    assert list(table["rows"][0].values()) == want["first_row"]


async def test_external_links_of_a_saved_page(here, site_url):
    """On a saved page, "external" means other than the site the page was saved from (its canonical
    address); no error for a file."""
    url = where(site_url, WIKI_HTML, "file")
    _, links = items_of(await here.json("linki zewnętrzne", url))
    want = [
        u
        for u in hrefs(WIKI_HTML, "https://en.wikipedia.org/wiki/HTML")
        if not (urlsplit(u).hostname or "").endswith("en.wikipedia.org")
    ]
    got = [link["url"] for link in links]
    assert got and set(got) <= set(want) and len(got) >= 0.8 * len(want)
    assert not any(urlsplit(u).hostname == "en.wikipedia.org" for u in got)


@pytest.mark.slow
async def test_external_links_over_http(here, site_url):
    url = where(site_url, WIKI_HTML, "http")
    _, links = items_of(await here.json("externe Links, nur 6", url))
    assert len(links) == 6 and all(urlsplit(link["url"]).hostname != "127.0.0.1" for link in links)


def test_a_link_target_that_is_no_known_site_is_said(site_url, tmp_path):
    """ "Links zu Bananen": matched as a site's name, none there, and both said (no silent answer)."""
    out = run("Links zu Bananen", where(site_url, WIKI_HTML, "http"), tmp_path)
    assert out.returncode == 1 and "EMPTY_OUTPUT" in out.stderr
    assert "'bananen' is no site curllm knows" in out.stderr


@pytest.mark.parametrize(
    "instruction, says",
    [
        ("lösche mein Konto", "delete ('lösche')"),
        pytest.param("zadzwoń do sklepu", "call ('zadzwoń')", marks=pytest.mark.slow),
        pytest.param("hello there", "names nothing to get", marks=pytest.mark.slow),
    ],
)
async def test_more_requests_no_tool_does_fail(here, site_url, instruction, says):
    assert says in await refusal(here, instruction, where(site_url, HN, "file"))


async def test_the_object_of_an_action_no_tool_does_is_read_and_the_action_named(here, site_url, truth):
    """ "upvote the top story": the top story, and "upvote" named as not done (exit 0 with a warning,
    which the CLI prints as ``curllm: warning: WARNING``)."""
    result, articles = items_of(await here.json("upvote the top story", where(site_url, HN, "http")))
    assert [a["title"] for a in articles] == [truth[HN]["items"][0]["title"]]
    assert any(w.startswith("not done: subscribe ('upvote')") for w in result["warnings"])
    assert result["warnings"] and "upvote" in result["warnings"][0]


async def test_people_asked_for_are_the_directory_s_people(here, tmp_path):
    """ "list the staff" on a staff directory whose entries link to the people's profiles: every
    person, in page order, with their profile's address."""
    people = ["Jane Doe", "Omar Haddad", "Mei Lin"]
    cards = "".join(
        f'<div class="person"><h3><a href="/people/{n.lower().replace(" ", "-")}">{n}</a></h3><p>Researcher</p></div>'
        for n in people
    )
    page = tmp_path / "team.html"
    page.write_text(f"<html><body><h1>Our team</h1><main>{cards}</main></body></html>", encoding="utf-8")
    result, items = items_of(await here.json("list the staff", str(page)))
    assert [i["title"] for i in items] == people
    assert [s["parameters"].get("kind") for s in result["plan"]["plan"]] == ["people"]


@pytest.mark.parametrize(
    "instruction",
    ["the price of this product", "jaki jest tytuł i cena tego produktu", "Preis dieses Produkts"],
)
async def test_this_product_is_the_page_s_own_product(here, site_url, instruction):
    """Asked about "this product" on a product page (EN/PL/DE): the product the page is about
    (`extraction.product_detail`), not the products it lists beside it, with only the fields asked
    for when some are named."""
    result, _ = await here.json(instruction, f"{site_url}/produkt/p02"), None
    assert result["ok"], result["errors"]
    product = result["data"]["product"]
    assert product["price"] == 149.99
    assert [s["tool"] for s in result["plan"]["plan"]][0] == "extraction.product_detail"


async def test_this_product_on_a_page_that_shows_none_is_empty(here, tmp_path):
    """ "read this product page" on a page that shows no product (an article): nothing read but the
    address is an empty answer (EMPTY_OUTPUT), never a record of nulls with exit 0."""
    page = tmp_path / "article.html"
    page.write_text(
        "<html><body><h1>How we test kettles</h1><p>We boiled water a thousand times.</p></body></html>",
        encoding="utf-8",
    )
    result = await here.json("read this product page", str(page))
    assert not result["ok"]
    assert [e["code"] for e in result["errors"]] == ["EMPTY_OUTPUT"], result["errors"]
