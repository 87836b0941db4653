"""The HTTP engine against the browser: the same answers on the real page snapshots and the local
test site (both served on 127.0.0.1, under a policy that allows nothing else), `auto` going back to
the browser for a client-rendered listing and returning every item, and the real `curllm` command's
``--engine``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from curllm_core.events import EventBus
from curllm_core.executor import RunOptions
from curllm_core.policy import NetworkPolicy
from curllm_core.runner import Runner, TaskSpec
from tests.in_process import cli_main
from tests.site_apps import catalogue

pytestmark = pytest.mark.browser

ONLY_HERE = NetworkPolicy(allow=("127.0.0.1",))  # the snapshots link to their sites: never fetched
CATALOG = json.loads((Path(__file__).resolve().parent.parent / "examples/shop/catalog.json").read_text())
#: Real pages in several markups and languages (PL, DE, FR, EN; products, articles, tables); the
#: slow test runs every snapshot.
PAGES = {
    "ceneo_search_canon.html": "znajdź wszystkie produkty",
    "geizhals_de_grafikkarten_2024.html": "alle Produkte",
    "leboncoin_fr_voitures_2018.html": "list all products",
    "ebay_de_search_apple.html": "alle Angebote",
    "hn_front_2026.html": "list all stories",
    "reddit_old_dataisbeautiful_top.html": "list all posts",
    "wikipedia_microsoft.html": "extract the tables",
}


@pytest.fixture(scope="module")
def runner(curllm_browser):
    """A Runner over the session's browser (`curllm_browser`: one Chromium for every module)."""
    return Runner(browser=curllm_browser)


#: The browser's answers by (instruction, URL): the reference every engine is compared with, read
#: once per module (a page two tests compare with is not read in the browser twice).
BROWSER_ANSWERS: dict[tuple[str, str], tuple[dict, list[dict]]] = {}


async def run(runner: Runner, instruction: str, url: str, engine: str) -> tuple[dict, list[dict]]:
    if engine == "browser" and (instruction, url) in BROWSER_ANSWERS:
        return BROWSER_ANSWERS[(instruction, url)]
    events: list[dict] = []
    spec = TaskSpec(instruction=instruction, url=url, options=RunOptions(engine=engine, policy=ONLY_HERE))
    result = await runner.run(spec, events=EventBus([events.append]))
    answer = result.to_dict(), [e for e in events if e["type"] == "engine"]
    if engine == "browser":
        BROWSER_ANSWERS[(instruction, url)] = answer
    return answer


async def compare(runner: Runner, instruction: str, url: str) -> tuple[dict, str]:
    """The task on the browser and on ``auto``: the same answer. Returns the browser's result and the
    engine whose answer ``auto`` gave: ``http`` when the HTTP engine's answer stood (it is then the
    HTTP engine's own, compared with the browser's), ``browser`` when it said it could not be sure."""
    on_browser, _ = await run(runner, instruction, url, "browser")
    on_auto, engines = await run(runner, instruction, url, "auto")
    assert on_auto["data"] == on_browser["data"], url
    assert on_auto["ok"] == on_browser["ok"]
    assert on_auto.get("warnings") == on_browser.get("warnings"), url
    assert engines, "auto says which engine it chose"
    return on_browser, engines[-1]["data"]["engine"]


@pytest.mark.parametrize("page", sorted(PAGES))
async def test_real_pages_read_the_same_on_both_engines(runner, realpages_url, page):
    result, _ = await compare(runner, PAGES[page], f"{realpages_url}/{page}")
    assert result["ok"]


async def test_the_http_engine_alone_on_a_real_page(runner, realpages_url):
    """Where the HTTP engine is sure, its own answer (``--engine http``) is the browser's."""
    url = f"{realpages_url}/hn_front_2026.html"
    on_http, engines = await run(runner, "list all stories", url, "http")
    on_browser, _ = await run(runner, "list all stories", url, "browser")
    assert [e["data"]["engine"] for e in engines] == ["http"]
    assert on_http["ok"] and on_http["data"] == on_browser["data"] and len(on_http["data"]["articles"]) == 30


@pytest.mark.slow
async def test_every_other_real_page_reads_the_same_on_both_engines(runner, realpages_url):
    """Wherever ``auto`` keeps the HTTP engine's answer, it is the browser's. Where the HTTP engine
    was not sure, ``auto``'s answer is the browser's own read of the page, the same plan run as
    ``--engine browser`` runs it: it is not read in the browser a second time (about 1 s of CPU a
    page) to compare the browser with itself; the quick test above does that on its real pages."""
    from tests.conftest import REALPAGES

    truth = json.loads((REALPAGES / "TRUTH.json").read_text())
    words = {"products": "list all products", "articles": "list all stories", "tables": "extract the tables"}
    stood = []
    for page in sorted(p.name for p in REALPAGES.glob("*.html") if p.name not in PAGES):  # those: above
        kind = truth.get(page, {}).get("kind") or ("tables" if "table" in page else "products")
        url = f"{realpages_url}/{page}"
        on_auto, engines = await run(runner, words[kind], url, "auto")
        assert engines, "auto says which engine it chose"
        if engines[-1]["data"]["engine"] == "browser":  # the browser read the page: its answer stands
            assert engines[-1]["data"]["reason"], url
            continue
        on_browser, _ = await run(runner, words[kind], url, "browser")
        assert on_auto["data"] == on_browser["data"], url
        assert on_auto["ok"] == on_browser["ok"], url
        assert on_auto.get("warnings") == on_browser.get("warnings"), url
        stood.append(page)
    assert stood, "the HTTP engine's answer stood on some real page, and was compared with the browser's"


@pytest.mark.parametrize(
    "instruction, path",
    [
        ("find products under 150zł", "/"),
        ("Produkte zwischen 100 und 200 €", "/"),
        ("produkty od 1000 do 2500 zł", "/"),
        ("all stories from the first 2 pages", "/test/hn.html"),  # a next page by its rel=next link
        ("wszystkie posty ze wszystkich stron", "/test/reddit.html"),  # by its "next ›" link
        ("extract the table", "/test/table.html"),
    ],
)
async def test_the_local_site_reads_the_same_on_both_engines(runner, site_url, instruction, path):
    result, engine = await compare(runner, instruction, site_url + path)
    assert result["ok"] and engine == "http"  # static pages: the HTTP engine's answer stands


async def test_the_shop_runs_on_http_under_auto(runner, site_url):
    result, engines = await run(runner, "znajdź produkty poniżej 150 zł", site_url + "/", "auto")
    assert [e["data"]["engine"] for e in engines] == ["http"]
    names = sorted(p["name"] for p in result["data"]["products"])
    assert names == sorted(p["name"] for p in CATALOG["products"] if p["price"] <= 150)
    skipped = [s for s in result["steps"] if s.get("skipped")]
    assert [s["tool"] for s in skipped] == ["forms.price_filter"]  # optional: the check guarantees it


@pytest.mark.parametrize("markup, lang", [("bem", "pl"), ("testid", "en"), ("hashed", "de")])
async def test_a_client_rendered_listing_goes_back_to_the_browser_and_returns_every_item(
    runner, site_url, markup, lang
):
    url = f"{site_url}/app/render?markup={markup}&lang={lang}&delay=100&hydrate=50"
    result, engines = await run(runner, "list all products", url, "auto")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [
        ("http", None),
        ("browser", "http"),
    ]
    assert "shell" in engines[1]["data"]["reason"]
    assert result["ok"], result["errors"]
    wanted = catalogue(lang, 12)
    assert sorted(p["name"] for p in result["data"]["products"]) == sorted(p["name"] for p in wanted)
    assert "http_ms" in result["timings"]


@pytest.mark.parametrize(
    "page, instruction, stated",
    [
        ("paged-en.html", "list the products", 120),  # rel=next in the head, "Next" in a pager
        ("paged-pl.html", "znajdź produkty", 312),  # "Następna strona" in a pager, "Wyniki 1–12 z 312"
        ("paged-de.html", "zeige die Produkte", 42),  # an arrow labelled "Zur nächsten Seite"
    ],
)
async def test_a_paged_listing_read_without_its_pager_stays_on_http_and_says_what_it_missed(
    runner, site_url, page, instruction, stated
):
    """One page of a listing that states more and links its next page: the browser would read the
    same page, so ``auto`` keeps the HTTP engine's answer, with the browser's warning."""
    url = f"{site_url}/test/{page}"
    on_auto, engines = await run(runner, instruction, url, "auto")
    on_browser, _ = await run(runner, instruction, url, "browser")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [("http", None)]
    assert [s["tool"] for s in on_auto["steps"]] == ["extraction.products_generic"]  # no pager asked for
    assert on_auto["ok"] and len(on_auto["data"]["products"]) == 12
    (warning,) = on_auto["warnings"]
    assert f"the page states {stated} items and 12 were read" in warning and "ask for more pages" in warning
    assert on_auto["data"] == on_browser["data"] and on_auto["warnings"] == on_browser["warnings"]


@pytest.mark.parametrize(
    "page, instruction, stated, read",
    [
        ("paged-last-en.html", "list the products", 120, 12),  # rel=prev in the head, "‹ Previous"
        ("paged-last-pl.html", "znajdź produkty", 36, 12),  # "Poprzednia strona"; no count of this page
        ("paged-last-de.html", "zeige die Produkte", 42, 6),  # an arrow labelled "Zur vorherigen Seite"
    ],
)
async def test_the_last_page_of_a_listing_read_without_its_pager_stays_on_http(
    runner, site_url, page, instruction, stated, read
):
    """The last page of a listing that states more: the rest is on the pages before it, which it
    links; the browser would read the same page, so ``auto`` keeps the HTTP engine's answer (the
    page was read once), with the browser's warning, which says where the rest is."""
    url = f"{site_url}/test/{page}"
    on_auto, engines = await run(runner, instruction, url, "auto")
    on_browser, _ = await run(runner, instruction, url, "browser")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [("http", None)]
    assert on_auto["ok"] and len(on_auto["data"]["products"]) == read
    (warning,) = on_auto["warnings"]
    assert f"the page states {stated} items and {read} were read" in warning
    assert "a later page of its listing" in warning and "start from the listing's first page" in warning
    assert on_auto["data"] == on_browser["data"] and on_auto["warnings"] == on_browser["warnings"]


@pytest.mark.parametrize(
    "path, instruction, stated, read",
    [
        ("/?strona=2", "produkty ze wszystkich stron", 24, 16),  # the shop: pages 2 and 3 of 3
        ("/test/paged-last-en.html", "all products from all pages", 120, 12),
        ("/test/paged-last-de.html", "alle Produkte von allen Seiten", 42, 6),
    ],
)
async def test_a_pager_started_on_a_later_page_stays_on_http(
    runner, site_url, path, instruction, stated, read
):
    """A pager that starts on a later page of a listing (the page links its previous one) reads it to
    its end and misses the pages before it, in the browser as on HTML: ``auto`` keeps the HTTP
    engine's answer, with the browser's warning, which says to start from the first page."""
    on_auto, engines = await run(runner, instruction, site_url + path, "auto")
    on_browser, _ = await run(runner, instruction, site_url + path, "browser")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [("http", None)]
    assert on_auto["ok"] and len(on_auto["data"]["products"]) == read
    (warning,) = on_auto["warnings"]
    assert warning.startswith(f"navigation.pagination: the page states {stated} items and {read} were read")
    assert "start from the listing's first page" in warning
    assert on_auto["data"] == on_browser["data"] and on_auto["warnings"] == on_browser["warnings"]


async def test_the_last_page_short_of_what_it_shows_still_goes_to_the_browser(runner, site_url):
    # "Showing 109–120 of 120" and a previous page, but 4 of its 12 items in the HTML: a script adds the rest
    result, engines = await run(
        runner, "list the products", f"{site_url}/test/paged-last-short-en.html", "auto"
    )
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [
        ("http", None),
        ("browser", "http"),
    ]
    assert "the page states 120 items and 4 were read" in engines[1]["data"]["reason"]
    assert result["ok"] and len(result["data"]["products"]) == 12
    (warning,) = result["warnings"]
    assert (
        "the page states 120 items and 12 were read" in warning and "a later page of its listing" in warning
    )


@pytest.mark.parametrize(
    "path, instruction, pages, items",
    [
        ("/", "produkty z pierwszych 2 stron", 2, ("products", 16)),  # the shop: "Następna", rel=next
        ("/", "Produkte von den ersten 2 Seiten", 2, ("products", 16)),
        ("/test/hn.html", "stories from the first 1 page", 1, ("articles", 5)),  # "More", rel=next
    ],
)
async def test_a_pager_that_read_the_pages_asked_for_stays_on_http(
    runner, site_url, path, instruction, pages, items
):
    """The pager read the pages it was asked for and the listing links more: the browser's pager would
    follow the same links, so ``auto`` keeps the HTTP engine's answer, with the browser's warning."""
    on_auto, engines = await run(runner, instruction, site_url + path, "auto")
    on_browser, _ = await run(runner, instruction, site_url + path, "browser")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [("http", None)]
    key, count = items
    assert on_auto["ok"] and len(on_auto["data"][key]) == count  # every item of those pages
    (warning,) = on_auto["warnings"]
    assert f"and the listing goes on (max_pages={pages})" in warning
    assert on_auto["data"] == on_browser["data"] and on_auto["warnings"] == on_browser["warnings"]


@pytest.mark.parametrize(
    "page, instruction, stated",
    [
        ("short-en.html", "list the products", None),  # "24 products", no pager: the rest by script
        ("short-pl.html", "znajdź produkty", 96),  # "Wyniki 1–24 z 96" and a next page, but 4 of 24 here
    ],
)
async def test_a_listing_short_of_what_its_page_shows_still_goes_to_the_browser(
    runner, site_url, page, instruction, stated
):
    result, engines = await run(runner, instruction, f"{site_url}/test/{page}", "auto")
    assert [(e["data"]["engine"], e["data"].get("switched_from")) for e in engines] == [
        ("http", None),
        ("browser", "http"),
    ]
    assert "the page states" in engines[1]["data"]["reason"]
    assert result["ok"] and len(result["data"]["products"]) == 24  # what the script rendered too
    if stated is None:
        assert not result.get("warnings")
    else:  # the browser read the whole page; the rest is on the next ones
        (warning,) = result["warnings"]
        assert (
            f"the page states {stated} items and 24 were read" in warning and "ask for more pages" in warning
        )


@pytest.mark.parametrize(
    "pattern, markup, lang",
    [
        ("state-redux", "utility", "en"),  # window.__PRELOADED_STATE__ = {...}
        ("state-redux", "testid", "de"),
        ("state-apollo", "bem", "pl"),  # window["__APOLLO_STATE__"]=...: GraphQL edges
        ("state-apollo", "utility", "de"),
        ("state-parse", "cssmod", "de"),  # var pageData = JSON.parse('...')
        ("state-parse", "utility", "pl"),
    ],
)
async def test_a_listing_a_script_renders_from_its_state_is_read_from_the_html(
    runner, site_url, pattern, markup, lang
):
    """The browser reads the list the script rendered; the HTTP engine reads the state the script
    rendered it from, without running it: the same answer, and ``auto`` keeps the HTTP engine's."""
    import site_pagecontent as pages

    result, engine = await compare(
        runner, pages.INSTRUCTIONS[lang], f"{site_url}/pc/{pattern}/{markup}-{lang}.html"
    )
    assert result["ok"] and engine == "http"
    got = [(p["name"], p["price"], p["currency"]) for p in result["data"]["products"]]
    assert got == [(n, p, pages.CURRENCY[lang]) for n, p in pages.PRODUCTS[lang]]


@pytest.mark.parametrize("markup, lang", [("utility", "pl"), ("bem", "en")])
async def test_state_behind_skeletons_is_read_by_the_http_engine_as_by_the_browser(
    runner, site_url, markup, lang
):
    """A skeleton page whose products are only in ``window.__INITIAL_STATE__ = {...}``: ``--engine
    http`` reads them as the browser does (``auto`` still takes the browser's answer for a shell)."""
    import site_pagecontent as pages

    url = f"{site_url}/pc/embedded-state/{markup}-{lang}.html"
    on_http, _ = await run(runner, pages.INSTRUCTIONS[lang], url, "http")
    on_browser, _ = await run(runner, pages.INSTRUCTIONS[lang], url, "browser")
    assert on_http["ok"] and on_http["data"] == on_browser["data"]
    assert len(on_http["data"]["products"]) == len(pages.PRODUCTS[lang])


@pytest.mark.parametrize(
    "page, instruction",
    [
        ("state-results-en.html", "list the results"),  # self.__SEARCH_STATE__ = {...}
        ("state-results-de.html", "alle Suchergebnisse"),  # var searchData = JSON.parse("...")
    ],
)
async def test_results_behind_skeletons_are_read_from_script_state_on_both_engines(
    runner, site_url, page, instruction
):
    url = f"{site_url}/test/{page}"
    on_http, _ = await run(runner, instruction, url, "http")
    on_browser, _ = await run(runner, instruction, url, "browser")
    assert on_http["ok"] and len(on_http["data"]["articles"]) == 4
    assert on_http["data"] == on_browser["data"] and on_http.get("warnings") == on_browser.get("warnings")


# --- the real command -----------------------------------------------------------------------------


def curllm(*args: str, tmp: Path, config: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    # The session's cache (tests/conftest.py): the manifests checked once, not by each command.
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": os.environ["CURLLM_CACHE_DIR"]})
    if config is not None:
        (tmp / "config.toml").write_text(config)
        env["CURLLM_CONFIG"] = str(tmp / "config.toml")
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_the_command_on_the_http_engine(site_url, tmp_path):
    out = curllm(
        "find products under 150zł",
        "--url",
        site_url + "/",
        "--engine",
        "http",
        "--format",
        "json",
        "--events",
        str(tmp_path / "events.jsonl"),
        tmp=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    names = sorted(p["name"] for p in json.loads(out.stdout)["data"]["products"])
    assert names == sorted(p["name"] for p in CATALOG["products"] if p["price"] <= 150)
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [e["data"]["engine"] for e in events if e["type"] == "engine"] == ["http"]


def test_the_engine_from_the_config_file(site_url, tmp_path):
    out = curllm(
        "wszystkie posty ze wszystkich stron",
        "--url",
        site_url + "/test/reddit.html",
        "--format",
        "json",
        tmp=tmp_path,
        config='engine = "http"\n',
    )
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["data"]["articles"]) == 6  # both pages, by the next link


def test_bad_engines_are_refused_with_exit_2(site_url, tmp_path):
    bad = curllm("find products", "--url", site_url + "/", "--engine", "fast", tmp=tmp_path)
    assert bad.returncode == 2 and "--engine" in bad.stderr
    # The further refusals through the command's entry point in this process (the same checks, the
    # same exit and line), not a process each.
    env = {"CURLLM_CACHE_DIR": os.environ["CURLLM_CACHE_DIR"]}
    (tmp_path / "config.toml").write_text('engine = "fast"\n')
    bad_config = cli_main(
        ("find products", "--url", site_url + "/"),
        env={**env, "CURLLM_CONFIG": str(tmp_path / "config.toml")},
    )
    assert bad_config.returncode == 2 and "engine must be one of auto, http, browser" in bad_config.stderr
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "plan": [
                    {"tool": "navigation.click_by_text", "parameters": {"text": "Laptopy"}},
                    {"tool": "extraction.products_generic", "parameters": {}},
                ]
            }
        )
    )
    live = cli_main(("--plan", str(plan), "--url", site_url + "/", "--engine", "http"), env=env)
    assert live.returncode == 2 and "Traceback" not in live.stderr
    assert (
        "--engine http cannot run this plan: step 1 (navigation.click_by_text) needs a live page"
        in live.stderr
    )
