"""Tools chosen by the page, end to end: `curllm` and `curllm batch` on real page snapshots served
over http from 127.0.0.1 and opened as files. A site tool's `detect` markup makes it run wherever the
page comes from; an extraction that finds nothing tries the tool whose markup the page shows, then the
generic tool; a page without site markup stays on the generic tool.

The single tasks run as `curllm run` runs them, in this process with the session's browser
(tests/in_process.py); the batch runs the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from tests.conftest import REALPAGES, REALPAGES_REASON, realpage
from tests.in_process import InProcessCurllm
from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser
SITE = Path(__file__).resolve().parent / "site"


def curllm(*args: str, tmp: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    full.update(
        {"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache")), **(env or {})}
    )
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=full, timeout=300
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def here(curllm_browser):
    """`curllm run` in this process, in the session's browser."""
    curllm_here = InProcessCurllm(curllm_browser)
    yield curllm_here
    await curllm_here.aclose()


def truth(name: str) -> list[dict]:
    path = REALPAGES / "TRUTH.json"
    if not path.is_file():
        pytest.skip(f"TRUTH.json not available ({REALPAGES_REASON})")
    return json.loads(path.read_text(encoding="utf-8"))[name]["items"]


def names(items: list[dict]) -> list[str]:
    return [" ".join((x.get("title") or x.get("name") or "").split()) for x in items]


def ident(key: str, item: dict) -> object:
    """An item by its link's path and query, or a product by its price: the text of a page served
    without a charset is the charset's business, and a relative link's host the server's, not the
    business of tests of tool choice."""
    if key != "articles":
        return item["price"]
    parts = urlsplit(item["url"])
    return parts.path.lstrip("/"), parts.query


# pages with checked truth in TRUTH.json
TRUTHFUL = {
    "hn_front_2026.html",
    "hackernews_front_2020.html",
    "reddit_old_dataisbeautiful_top.html",
    "ceneo_search_canon.html",
    "amazon_de_search_katzenfutter.html",
}
# (page, the tool a plan names, its parameters, the tool the page's markup makes run, items expected)
CASES = [
    ("hn_front_2026.html", "extraction.articles_reddit", {"limit": 5}, "extraction.articles_hn", 5),
    ("hackernews_front_2020.html", "extraction.articles_reddit", {}, "extraction.articles_hn", 30),
    ("hn_item_36817231.html", "extraction.articles_reddit", {}, "extraction.articles_hn", 1),
    (
        "reddit_old_dataisbeautiful_top.html",
        "extraction.articles_hn",
        {"limit": 10},
        "extraction.articles_reddit",
        10,
    ),
    ("ceneo_search_canon.html", "extraction.products_generic", {}, "extraction.products_ceneo", 30),
    (
        "amazon_de_search_katzenfutter.html",
        "extraction.products_generic",
        {},
        "extraction.products_amazon",
        60,
    ),
    (
        "amazon_de_bestsellers_electronics.html",
        "extraction.products_generic",
        {},
        "extraction.products_amazon",
        30,
    ),
    ("geizhals_de_grafikkarten_2024.html", "extraction.products_generic", {}, None, None),  # no site markup
]


def test_the_page_chooses_the_site_tool_over_http_and_from_files(realpages_url, tmp_path):
    tasks = []
    for page, tool, params, _, _ in CASES:
        realpage(page)
        key = "articles" if "articles" in tool else "products"
        plan = {"plan": [{"tool": tool, "parameters": params}], "expected_output": key}
        for how, url in (("http", f"{realpages_url}/{page}"), ("file", (REALPAGES / page).as_uri())):
            tasks.append({"id": f"{page}:{how}", "url": url, "plan": plan})
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    out = curllm("batch", str(tasks_file), "--out", str(tmp_path / "out.jsonl"), "-j", "2", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = {x["id"]: x for x in map(json.loads, (tmp_path / "out.jsonl").read_text().splitlines())}
    for page, tool, _, chosen, count in CASES:
        for how in ("http", "file"):
            line = lines[f"{page}:{how}"]
            assert line["ok"], (page, how, line["errors"])
            (step,) = line["steps"]
            key, items = next((k, v) for k, v in line["data"].items() if isinstance(v, list))
            if chosen is None:  # no site's markup: the planned generic tool runs, nothing to report
                assert step["tool"] == tool and "choice" not in step and items
                continue  # (how exact the generic tool is on this page is its own tests' business)
            assert len(items) == count, (page, how)
            assert step["tool"] == chosen, (page, how, step)
            assert step["choice"]["planned"] == tool and step["choice"]["chosen"] == chosen
            assert f"the page shows {chosen}'s markup" in step["choice"]["reason"]
            if page in TRUTHFUL:
                expected = [ident(key, x) for x in truth(page)][:count]
                assert [ident(key, x) for x in items] == expected, (page, how)
    for how in ("http", "file"):
        (story,) = lines[f"hn_item_36817231.html:{how}"]["data"]["articles"]
        assert story["id"] == "36817231" and story["comments"] > 0


async def test_a_tool_that_cannot_take_the_steps_parameter_is_not_chosen_silently(here, realpages_url):
    """articles_hn knows no include_promoted: it does not stand in for articles_reddit (the option would
    be dropped), and the report says why. The empty result then goes to the generic tool, which takes
    it: every story of the page."""
    page = realpage("hn_front_2026.html").name
    plan = {
        "plan": [{"tool": "extraction.articles_reddit", "parameters": {"include_promoted": True}}],
        "expected_output": "articles",
    }
    result = await here.json(None, f"{realpages_url}/{page}", plan=plan)
    assert result["ok"], result["errors"]
    first, second = result["steps"]
    assert (
        first["tool"]
        == first["choice"]["chosen"]
        == first["choice"]["planned"]
        == "extraction.articles_reddit"
    )
    assert "extraction.articles_hn's markup" in first["choice"]["reason"]
    assert "cannot take include_promoted" in first["choice"]["reason"] and first["result"]["articles"] == []
    assert second["tool"] == "extraction.articles_generic" and second["fallback_for"] == first["tool"]
    wanted = [ident("articles", x) for x in truth(page)]
    assert [ident("articles", x) for x in result["data"]["articles"]] == wanted


@pytest.mark.parametrize("how", ["http", "file"])
@pytest.mark.parametrize(
    "page, instruction, tool, wanted",
    [
        # points, upvotes, punkty: one concept, whichever tool reads the page
        (
            "hn_front_2026.html",
            "stories with more than 100 upvotes",
            "extraction.articles_hn",
            lambda x: x["points"] > 100,
        ),
        (
            "hn_front_2026.html",
            "Beiträge mit mindestens 300 Punkten",
            "extraction.articles_hn",
            lambda x: x["points"] >= 300,
        ),
        (
            "reddit_old_dataisbeautiful_top.html",
            "posty z ponad 1000 punktów",
            "extraction.articles_reddit",
            lambda x: x["score"] > 1000,
        ),
    ],
)
async def test_an_instruction_on_a_saved_site_page_uses_the_sites_tool(
    here, realpages_url, how, page, instruction, tool, wanted
):
    """Planned for an unknown host (127.0.0.1, a file), the extraction runs the tool whose markup the
    page shows, with the threshold: exactly the stories asked for."""
    url = f"{realpages_url}/{page}" if how == "http" else realpage(page).as_uri()
    result = await here.json(instruction, url)
    assert result["ok"], result["errors"]
    (step,) = [s for s in result["steps"] if s["tool"].startswith("extraction.")]
    assert step["tool"] == tool and step["choice"]["chosen"] == tool
    expected = [
        ident("articles", x) for x in truth(page) if (x.get("points") or x.get("score") or 0) and wanted(x)
    ]
    assert [ident("articles", x) for x in result["data"]["articles"]] == expected and expected


TOOL = {
    "name": "stories_broken",
    "version": "0.1.0",
    "description": "A site tool whose site changed its markup: it finds nothing any more.",
    "category": "extraction",
    "parameters": {
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 1}, "min_rating": {"type": "number"}},
        "additionalProperties": False,
    },
    "output_schema": {
        "type": "object",
        "required": ["articles"],
        "properties": {"articles": {"type": "array"}},
    },
    "entrypoint": "broken:run",
    "dependencies": ["playwright", "page"],
    "produces": ["articles"],
    "sites": ["mirror.example"],
    "detect": "tr.athing, li.item",
}


def tools_dir(tmp_path: Path, key: str) -> Path:
    folder = tmp_path / "tools"
    folder.mkdir(exist_ok=True)
    name = f"{key}_broken"
    (folder / f"{name}.json").write_text(
        json.dumps(
            {
                **TOOL,
                "name": name,
                # a module name of its own: this process may have imported the other key's
                "entrypoint": f"broken_{key}:run",
                "produces": [key],
                "output_schema": {
                    "type": "object",
                    "required": [key],
                    "properties": {key: {"type": "array"}},
                },
            }
        )
    )
    (folder / f"broken_{key}.py").write_text(f"async def run(ctx, **params):\n    return {{{key!r}: []}}\n")
    return folder


async def test_an_empty_extraction_tries_the_tool_whose_markup_the_page_shows(
    curllm_browser, realpages_url, tmp_path
):
    page = realpage("hn_front_2026.html").name
    plan = {"plan": [{"tool": "extraction.articles_broken", "parameters": {"limit": 3}}]}
    with_tools = InProcessCurllm(curllm_browser, tools_path=tools_dir(tmp_path, "articles"))
    try:
        result = await with_tools.json(None, f"{realpages_url}/{page}", plan=plan)
    finally:
        await with_tools.aclose()
    assert result["ok"], result["errors"]
    expected = [ident("articles", x) for x in truth(page)][:3]
    assert [ident("articles", x) for x in result["data"]["articles"]] == expected
    first, second = result["steps"]
    assert first["tool"] == "extraction.articles_broken" and first["result"] == {"articles": []}
    assert (
        second["tool"] == "extraction.articles_hn" and second["fallback_for"] == "extraction.articles_broken"
    )
    assert second["choice"]["reason"].startswith(
        "extraction.articles_broken found no articles; the page shows"
    )


@pytest.mark.parametrize("how", ["http", "file"])
async def test_an_empty_extraction_then_tries_the_generic_tool(curllm_browser, site_url, tmp_path, how):
    url = f"{site_url}/test/inert-filter.html" if how == "http" else (SITE / "inert-filter.html").as_uri()
    with_tools = InProcessCurllm(curllm_browser, tools_path=tools_dir(tmp_path, "products"))
    try:
        await then_the_generic_tool(with_tools, url)
    finally:
        await with_tools.aclose()


async def then_the_generic_tool(with_tools: InProcessCurllm, url: str) -> None:
    plan = {"plan": [{"tool": "extraction.products_broken", "parameters": {"limit": 30}}]}
    result = await with_tools.json(None, url, plan=plan)
    assert result["ok"], result["errors"]
    assert len(result["data"]["products"]) == 24
    assert [s["tool"] for s in result["steps"]] == [
        "extraction.products_broken",
        "extraction.products_generic",
    ]
    assert (
        "extraction.products_generic is the generic tool for products"
        in result["steps"][1]["choice"]["reason"]
    )
    # a parameter the generic tool does not take: it is not tried, and the empty result is an error
    plan = {
        "plan": [{"tool": "extraction.products_broken", "parameters": {"min_rating": 4}}],
        "expected_output": "products",
    }
    result = await with_tools.json(None, url, plan=plan)
    assert not result["ok"]  # the CLI's exit 1
    assert [s["tool"] for s in result["steps"]] == ["extraction.products_broken"]
    assert [e["code"] for e in result["errors"]] == ["EMPTY_OUTPUT"]


@pytest.mark.parametrize("how", ["http", "file"])
@pytest.mark.parametrize(
    "page, instruction, lo, hi",
    [
        ("ceneo_search_canon.html", "produkty od 100 do 200 zł", 100, 200),
        ("amazon_de_search_katzenfutter.html", "Produkte unter 15 €", 0, 15),
    ],
)
async def test_a_filter_form_that_breaks_a_saved_page_is_undone_and_the_plan_goes_on(
    here, realpages_url, tmp_path, how, page, instruction, lo, hi
):
    url = f"{realpages_url}/{page}" if how == "http" else realpage(page).as_uri()
    events = tmp_path / "events.jsonl"
    result = await here.json(instruction, url, events_to=events)
    assert result["ok"], result["errors"]
    wanted = [p for p in truth(page) if p["price"] is not None and lo <= p["price"] <= hi]
    assert sorted(names(result["data"]["products"])) == sorted(names(wanted)) and wanted
    (error,) = result["errors"]
    assert error["code"] == "SUBMIT_FAILED" and error["optional"] and error["tool"] == "forms.price_filter"
    assert ("HTTP" if how == "http" else "browser error page") in error["message"]
    # the extraction read the page as it was, not the error page
    assert result["steps"][1]["result"]["pagination"]["urls"][0] == url
    failed = [
        e["data"]
        for e in map(json.loads, events.read_text().splitlines())
        if e["type"] == "step" and e["data"]["status"] == "failed"
    ]
    assert len(failed) == 1 and failed[0]["extracted_data"]["optional"] is True


@pytest.mark.parametrize("how", ["http", "file"])
async def test_local_shop_whose_filter_breaks_the_page(here, site_url, how):
    """In the browser, the filter is submitted, breaks the page, is undone, and the plan goes on."""
    url = f"{site_url}/test/broken-pl.html" if how == "http" else (SITE / "broken-pl.html").as_uri()
    result = await here.json("produkty od 100 do 200 zł", url, args=["--engine", "browser"])
    assert result["ok"], result["errors"]
    assert sorted(p["name"] for p in result["data"]["products"]) == BROKEN_SHOP_WANTED
    assert [e["code"] for e in result["errors"]] == ["SUBMIT_FAILED"]


async def test_local_shop_whose_filter_breaks_the_page_under_auto(here, site_url):
    """Under auto (the default) the page is read as HTML: the filter, an optional page action, is
    skipped (never submitted, nothing breaks), and the price check gives the same products."""
    url = f"{site_url}/test/broken-pl.html"
    result = await here.json("produkty od 100 do 200 zł", url)
    assert result["ok"], result["errors"]
    assert sorted(p["name"] for p in result["data"]["products"]) == BROKEN_SHOP_WANTED
    assert result["errors"] == []
    assert [s["tool"] for s in result["steps"] if s.get("skipped")] == ["forms.price_filter"]


BROKEN_SHOP_WANTED = ["Kubek podróżny Stal", "Kubek termiczny Kawa", "Zestaw kubków Rodzina"]


@pytest.mark.parametrize("how", ["http", "file"])
async def test_the_comments_of_a_saved_hn_item_page(here, realpages_url, how):
    """On an HN item page the site's markup is recognised (the report names articles_hn's markup), and
    the comments come back: all 100, never from the reddit extractor the words alone once picked."""
    page = "hn_item_36817231.html"
    url = f"{realpages_url}/{page}" if how == "http" else realpage(page).as_uri()
    result = await here.json("the comments on this story", url)
    assert result["ok"], result["errors"]
    assert len(result["data"]["articles"]) == 100
    assert all(s["tool"] != "extraction.articles_reddit" for s in result["steps"])
    (step,) = [s for s in result["steps"] if s["tool"].startswith("extraction.")]
    assert "extraction.articles_hn's markup" in step["choice"]["reason"]
