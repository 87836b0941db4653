"""The operations on items end to end: the rule planner and a real browser on the shared real page
snapshots (served over http from 127.0.0.1, or opened as files), the tasks run as `curllm run` runs
them in this process with one browser (tests/in_process.py), a format named in the words and the
exit code of a refusal through the real `curllm` command. Each
operation is asked for in words (EN/PL/DE) and its answer checked against TRUTH.json, read
independently of curllm: counts, averages, a brand word, the author, a bound on comments, the link's
domain, one per group, ads left out, each once, and a format named in the words.
"""

from __future__ import annotations

import csv
import io
import json
import re
from statistics import fmean
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from curllm_core.errors import PlanningError
from tests.conftest import REALPAGES, realpage
from tests.in_process import InProcessCurllm
from tests.test_e2e import curllm

pytestmark = pytest.mark.browser

CENEO, HN2020, AMAZON = (
    "ceneo_search_canon.html",
    "hackernews_front_2020.html",
    "amazon_de_search_katzenfutter.html",
)


@pytest.fixture(scope="module")
def truth() -> dict:
    path = REALPAGES / "TRUTH.json"
    if not path.is_file():
        pytest.skip("TRUTH.json not available (../shared/realpages)")
    return json.loads(path.read_text(encoding="utf-8"))


def where(site_url: str, name: str, how: str) -> str:
    path = realpage(name)
    return f"{site_url}/real/{name}" if how == "http" else str(path)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser."""
    curllm_here = InProcessCurllm(curllm_browser)
    yield curllm_here
    await curllm_here.aclose()


async def answer(here: InProcessCurllm, instruction: str, url: str) -> dict:
    """The ``--format json`` document of a run that succeeded (the CLI's exit 0)."""
    result = await here.json(instruction, url)
    assert result["ok"] and result["plan"]["planner"] in ("rules", "cache"), result["errors"]
    return result


async def test_a_count_and_an_average_price(here, site_url, truth):
    items = truth[CENEO]["items"]
    result = await answer(
        here, "ile ofert jest na stronie i jaka jest ich średnia cena?", where(site_url, CENEO, "http")
    )
    assert result["plan"]["expected_output"] == "summary"
    assert result["data"]["summary"] == {
        "count": len(items),
        "average_price": round(fmean(i["price"] for i in items), 2),
        "currency": "PLN",
    }


@pytest.mark.slow
async def test_a_word_before_the_noun_filters_the_names(here, site_url, truth):
    """ "EOS" before the noun: the cameras whose names hold the word, cheapest first."""
    result = await answer(here, "die 3 günstigsten EOS Kameras", where(site_url, CENEO, "file"))
    want = sorted(
        (i for i in truth[CENEO]["items"] if re.search(r"\bEOS\b", i["name"])), key=lambda i: i["price"]
    )
    assert [(p["name"], p["price"]) for p in result["data"]["products"]] == [
        (i["name"], i["price"]) for i in want[:3]
    ]
    assert any("'EOS'" in w for w in result["warnings"])  # said: the word is read as a name filter
    assert any("Kameras" in w for w in result["warnings"])  # the unknown noun is quoted, not dropped


async def test_the_author_a_bound_on_comments_and_the_links_domain(here, site_url, truth):
    items = truth[HN2020]["items"]
    # An author with a story of a known number of comments, and a bound just above it.
    story = next(i for i in items if isinstance(i.get("comments"), int))
    author, bound = story["user"], story["comments"] + 1
    result = await answer(
        here, f"stories posted by {author} with fewer than {bound} comments", where(site_url, HN2020, "http")
    )
    want = [
        i["title"]
        for i in items
        if i["user"] == author and isinstance(i.get("comments"), int) and i["comments"] < bound
    ]
    assert [a["title"] for a in result["data"]["articles"]] == want
    tools = [s["tool"] for s in result["plan"]["plan"]]
    assert "validation.filter_text" in tools and "validation.filter_number" in tools


@pytest.mark.slow
async def test_the_links_domain(here, site_url, truth):
    items = truth[HN2020]["items"]
    host = "github.com"
    result = await answer(here, f"Beiträge mit Links zu {host}", where(site_url, HN2020, "file"))
    want = [i["title"] for i in items if (urlsplit(i["url"]).hostname or "").endswith(host)]
    assert want and [a["title"] for a in result["data"]["articles"]] == want


@pytest.mark.slow
async def test_one_per_group_and_each_once(here, site_url, truth):
    items = truth[HN2020]["items"]
    result = await answer(here, "one story per author, without duplicates", where(site_url, HN2020, "http"))
    seen: list[str] = []
    for i in items:
        if i["user"] not in seen:
            seen.append(i["user"])
    assert [a["author"] for a in result["data"]["articles"]] == seen


def test_ads_left_out_as_csv_named_in_the_words(site_url, tmp_path, truth):
    """ "ohne Werbung" drops the sponsored rows; "als CSV" makes the output CSV without --format."""
    out = curllm("alle Produkte ohne Werbung als CSV", "--url", where(site_url, AMAZON, "http"), tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    want = [i for i in truth[AMAZON]["items"] if not i.get("sponsored")]
    assert [r["name"] for r in rows] == [i["name"] for i in want]
    assert "sponsored" not in out.stdout.splitlines()[0] or all(r["sponsored"] in ("False", "") for r in rows)


async def test_nothing_doable_exits_3_quoting_the_words(here, site_url, tmp_path):
    out = curllm("zarezerwuj stolik dla czterech osób", "--url", where(site_url, CENEO, "http"), tmp=tmp_path)
    assert out.returncode == 3 and "book" in out.stderr and "PLANNING_FAILED" in out.stderr
    with pytest.raises(PlanningError) as failed:  # the same exit 3 (PLANNING_FAILED)
        await here.json("which of these looks best?", where(site_url, CENEO, "http"))
    assert failed.value.exit_code == 3 and "'looks best' is a judgement" in str(failed.value)


@pytest.mark.parametrize(
    ("name", "instruction", "key", "value"),
    [
        # a superlative of a value is that value, in its language
        (CENEO, "what is the highest price?", "max_price", lambda items: max(i["price"] for i in items)),
        pytest.param(
            "reddit_old_dataisbeautiful_top.html",
            "najniższy wynik wśród postów",
            "min_points",
            lambda items: min(i["score"] for i in items),
            marks=pytest.mark.slow,
        ),
        # only the sponsored ones, counted
        pytest.param(
            AMAZON,
            "wieviele gesponserte Produkte gibt es",
            "count",
            lambda items: sum(1 for i in items if i.get("sponsored")),
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_a_value_superlative_and_the_sponsored_ones_counted(
    here, site_url, truth, name, instruction, key, value
):
    result = await answer(here, instruction, where(site_url, name, "http"))
    assert result["plan"]["expected_output"] == "summary"
    assert result["data"]["summary"][key] == value(truth[name]["items"])


@pytest.mark.parametrize(
    ("name", "instruction", "key", "value"),
    [
        # a model number after its name is part of the name filter ("RTX 4070", not "RTX")
        (
            "geizhals_de_grafikkarten_2024.html",
            "Durchschnittspreis aller RTX 4070 Karten",
            "average_price",
            lambda items: round(fmean(i["price"] for i in items if "RTX 4070" in i["name"]), 2),
        ),
        # a Polish comparative before "od" is an upper bound
        pytest.param(
            "ceneo_pl_bluray_sensacyjne_list.html",
            "ile filmow jest tanszych od 35 zl",
            "count",
            lambda items: sum(1 for i in items if i["price"] < 35),
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_a_model_number_and_a_polish_comparative(here, site_url, truth, name, instruction, key, value):
    result = await answer(here, instruction, where(site_url, name, "http"))
    assert result["data"]["summary"][key] == value(truth[name]["items"])


@pytest.mark.slow
async def test_a_score_range_and_a_domain_after_from(here, site_url, truth):
    """ "z wynikiem między" bounds the score (no price filter on a page without prices); "stories from
    X" keeps the stories linking to X."""
    reddit = "reddit_old_dataisbeautiful_top.html"
    result = await answer(here, "posty z wynikiem miedzy 1500 a 2000", where(site_url, reddit, "file"))
    want = [i["title"] for i in truth[reddit]["items"] if 1500 <= i["score"] <= 2000]
    assert want and [a["title"] for a in result["data"]["articles"]] == want
    hn = "hn_front_2026.html"
    result = await answer(here, "stories from fabiensanglard.net", where(site_url, hn, "file"))
    want = [i["title"] for i in truth[hn]["items"] if "fabiensanglard.net" in (i.get("url") or "")]
    assert want and [a["title"] for a in result["data"]["articles"]] == want


async def test_a_format_curllm_does_not_write_is_refused_through_the_cli(site_url, tmp_path):
    """ "zapisz to jako pdf" named no links to PDF files: exit 3 naming the format, never a list."""
    out = curllm("zapisz to jako pdf", "--url", where(site_url, "hn_front_2026.html", "http"), tmp=tmp_path)
    assert out.returncode == 3 and "PLANNING_FAILED" in out.stderr and "'jako pdf'" in out.stderr, out.stderr
